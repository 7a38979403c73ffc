"""`numpy.random` for scripts: the legacy global RandomState (seeded by the script or
noted as unreproducible), RandomState(seed) and default_rng(seed) objects, each with its
allow-listed samplers; numpy's own generators, so the streams are numpy's bit for bit, and
every sample's size checked against the limits first."""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import stdlib
from ..engine import unreproducible
from ..engine.ndarray import call, raw, wrap
from .numpy_module import NumpyFunction, args_of, missing, numel, reserve

if TYPE_CHECKING:
    from .core import Interpreter

_LEGACY_RANDOM = (
    "rand", "randn", "randint", "random", "random_sample", "ranf", "sample", "uniform",
    "normal", "standard_normal", "choice", "permutation", "binomial", "poisson",
    "exponential", "beta", "gamma", "multivariate_normal", "laplace", "lognormal",
    "logistic", "geometric", "multinomial", "dirichlet", "standard_t", "chisquare",
    "standard_exponential", "random_integers", "rayleigh", "weibull",
    "triangular", "standard_gamma", "standard_cauchy", "pareto", "power", "vonmises",
    "hypergeometric", "negative_binomial", "gumbel", "wald", "f", "zipf", "logseries",
)
_GENERATOR_METHODS = (
    "random", "integers", "normal", "uniform", "standard_normal", "choice", "permutation",
    "binomial", "poisson", "exponential", "beta", "gamma", "multivariate_normal", "laplace",
    "lognormal", "logistic", "geometric", "multinomial", "dirichlet", "standard_t",
    "chisquare", "standard_exponential", "permuted", "triangular", "standard_gamma",
    "rayleigh", "weibull", "pareto", "gumbel",
)
_SHAPE_KWARGS = ("size", "shape")


def _random_size(args: list, kwargs: dict, positional_dims: bool) -> int:
    if positional_dims:  # rand(2, 3), randn(2, 3)
        return numel(tuple(args)) if args else 1
    for key in _SHAPE_KWARGS:
        if key in kwargs:
            return numel(kwargs[key])
    return 0


class RandomSource:
    """np.random.RandomState / np.random.default_rng()'s Generator as a script value:
    numpy's generator, its sampling methods allow-listed."""

    __slots__ = ("gen", "methods", "kind")

    def __init__(self, gen: Any, methods: tuple[str, ...], kind: str):
        self.gen = gen
        self.methods = methods
        self.kind = kind

    def __repr__(self) -> str:
        if self.kind == "SeedSequence":  # numpy's, of the numbers it holds
            return repr(self.gen)
        return f"{self.kind}(MT19937)" if self.kind == "RandomState" else \
            f"Generator({type(self.gen.bit_generator).__name__})"


def _sampler(interp: Interpreter, gen: Any, name: str, note: Callable[[], None]) -> Callable:
    method = getattr(gen, name)  # a fixed name from the allow-lists above
    positional_dims = name in ("rand", "randn")

    def sample(*args: Any, **kwargs: Any) -> Any:
        note()
        if name in ("shuffle",):
            target = args[0] if args else kwargs.get("x")
            if type(target) is list or isinstance(target, deque):  # shuffled in place
                interp.check_size(len(target), "a shuffle() argument")
                return call(method, target)
            return call(method, raw(target))
        converted, named = args_of(args, kwargs)
        n = _random_size(converted, named, positional_dims)
        if not positional_dims and len(converted) >= 3 and name in (
                "randint", "uniform", "normal", "integers", "binomial", "laplace", "logistic",
                "lognormal", "gamma", "beta", "choice"):
            n = numel(converted[2]) if converted[2] is not None else 1
        elif not positional_dims and name in ("choice", "permutation") and converted and \
                isinstance(converted[0], (int, np.integer)) and "size" not in named:
            n = int(converted[0]) if name == "permutation" else 1
        reserve(n)
        return wrap(call(method, *converted, **named))

    return sample


def _random_table(interp: Interpreter, gen: Any, names: tuple[str, ...],
                  note: Callable[[], None]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name in (*names, "shuffle"):
        if hasattr(gen, name):
            table[name] = NumpyFunction(name, _sampler(interp, gen, name, note), interp,
                                        f"{name}")
    return table


_SEED_SEQUENCE_VALUES = ("entropy", "spawn_key", "pool_size", "n_children_spawned", "state")


def _seed_sequence(gen: Any) -> RandomSource:
    return RandomSource(gen, ("generate_state", "spawn"), "SeedSequence")


def _seed_sequence_attribute(interp: Interpreter, source: RandomSource, name: str) -> Any:
    """np.random.SeedSequence's values and its generate_state()/spawn() (Lightning's
    worker_init_fn seeds numpy from `SeedSequence([...]).generate_state(4)`)."""
    gen = source.gen
    if name in _SEED_SEQUENCE_VALUES:
        value = getattr(gen, name)
        if type(value) is dict:  # `state`: the other four by name
            return {key: wrap(item) for key, item in value.items()}
        return wrap(value)
    if name == "generate_state":
        def generate_state(*args: Any, **kwargs: Any) -> Any:
            converted, named = args_of(args, kwargs)  # (n_words, dtype=np.uint32)
            n_words = converted[0] if converted else named.get("n_words")
            if isinstance(n_words, int):
                reserve(n_words)
            return wrap(call(gen.generate_state, *converted, **named))
        return NumpyFunction(name, generate_state, interp)
    if name == "spawn":
        def spawn(n_children: Any) -> list[RandomSource]:
            if isinstance(n_children, int):  # each child ~20 us of numpy's own loop: at
                reserve(n_children, 1 << 14)   # most 65,536 children under the 1 GiB limit
            return [_seed_sequence(child) for child in call(gen.spawn, raw(n_children))]
        return NumpyFunction(name, spawn, interp)
    raise missing(source.kind, name)


def _state_methods(interp: Interpreter, gen: Any, note: Callable[[], None],
                   restored: Callable[[], None]) -> dict[str, NumpyFunction]:
    """A RandomState's get_state()/set_state(): the legacy tuple ('MT19937', the 624 keys,
    pos, has_gauss, cached_gaussian) saved and restored (seed_everything helpers collect it
    beside torch.get_rng_state()); legacy=False's dict is refused as numpy values are."""
    def get_state(legacy: bool = True) -> Any:
        note()  # an unseeded generator's state is the OS's entropy
        value = call(gen.get_state, raw(legacy))
        if type(value) is tuple:  # its first item names the bit generator
            return (value[0], *(wrap(v) for v in value[1:]))
        return wrap(value)

    def set_state(value: Any) -> None:
        call(gen.set_state, raw(value))
        restored()

    return {"get_state": NumpyFunction("get_state", get_state, interp),
            "set_state": NumpyFunction("set_state", set_state, interp)}


def numpy_random_namespace(interp: Interpreter) -> stdlib.Namespace:
    """np.random: one legacy RandomState per run (numpy seeds its global one from the OS
    until the script calls np.random.seed), RandomState(seed) and default_rng(seed)."""
    state = np.random.RandomState()
    seeded = [False]

    def note() -> None:
        if not seeded[0]:
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)

    table = _random_table(interp, state, _LEGACY_RANDOM, note)

    def seed(seed: Any = None) -> None:
        seeded[0] = seed is not None
        call(state.seed, raw(seed))

    def random_state(seed: Any = None) -> RandomSource:
        if seed is None:
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)
        gen = call(np.random.RandomState, raw(seed))
        return RandomSource(gen, _LEGACY_RANDOM + ("seed",), "RandomState")

    def default_rng(seed: Any = None) -> RandomSource:
        if seed is None:
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)
        if type(seed) is RandomSource:
            if seed.kind != "SeedSequence":
                return seed
            return RandomSource(call(np.random.default_rng, seed.gen), _GENERATOR_METHODS,
                                "Generator")
        gen = call(np.random.default_rng, raw(seed))
        return RandomSource(gen, _GENERATOR_METHODS, "Generator")

    def restored() -> None:  # a state the script holds: what follows is as reproducible
        seeded[0] = True      # as the state it came from

    def seed_sequence(entropy: Any = None, *, spawn_key: Any = (),
                      pool_size: Any = 4) -> RandomSource:
        if entropy is None:  # numpy's entropy from the OS
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)
        if isinstance(pool_size, int):  # its pool: pool_size uint32 words
            reserve(pool_size, 4)
        return _seed_sequence(call(np.random.SeedSequence, raw(entropy),
                                   spawn_key=raw(spawn_key), pool_size=raw(pool_size)))

    table.update(seed=NumpyFunction("seed", seed, interp),
                 SeedSequence=NumpyFunction("SeedSequence", seed_sequence, interp),
                 **_state_methods(interp, state, note, restored),
                 RandomState=NumpyFunction("RandomState", random_state, interp),
                 default_rng=NumpyFunction("default_rng", default_rng, interp))
    return stdlib.Namespace("numpy.random", table)


def random_source_attribute(interp: Interpreter, source: RandomSource, name: str) -> Any:
    """A RandomState's or Generator's method (the allow-listed samplers only)."""
    if source.kind == "SeedSequence":
        return _seed_sequence_attribute(interp, source, name)
    if source.kind == "RandomState" and name in ("get_state", "set_state"):
        return _state_methods(interp, source.gen, lambda: None, lambda: None)[name]
    if name in source.methods or name == "shuffle":
        if name == "seed":
            return NumpyFunction("seed", lambda seed=None: call(source.gen.seed, raw(seed)),
                                 interp)
        return NumpyFunction(name, _sampler(interp, source.gen, name, lambda: None), interp)
    raise missing(source.kind, name)
