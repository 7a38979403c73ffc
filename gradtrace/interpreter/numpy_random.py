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
from ..errors import NotSupportedError
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
        return RandomSource(gen, _LEGACY_RANDOM + ("seed", "get_state", "set_state"),
                            "RandomState")

    def default_rng(seed: Any = None) -> RandomSource:
        if seed is None:
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)
        if type(seed) is RandomSource:
            return seed
        gen = call(np.random.default_rng, raw(seed))
        return RandomSource(gen, _GENERATOR_METHODS, "Generator")

    def set_state(state_tuple: Any) -> None:
        # the state a script restores is one it read (get_state noted it, were the stream
        # unseeded then) or one it wrote out: what follows is reproducible
        call(state.set_state, raw(state_tuple))
        seeded[0] = True

    table.update(seed=NumpyFunction("seed", seed, interp),
                 get_state=NumpyFunction("get_state", _get_state(state, note), interp),
                 set_state=NumpyFunction("set_state", set_state, interp),
                 RandomState=NumpyFunction("RandomState", random_state, interp),
                 default_rng=NumpyFunction("default_rng", default_rng, interp))
    return stdlib.Namespace("numpy.random", table)


def _get_state(gen: Any, note: Callable[[], None]) -> Callable[..., Any]:
    """get_state(legacy=True) of a RandomState: numpy's tuple ('MT19937', the 624 keys,
    pos, has_gauss, cached_gaussian) (a dict of them with legacy=False), as numpy gives
    it; an unseeded stream's state is noted as unreproducible."""
    def get_state(legacy: Any = True) -> Any:
        note()
        state = call(gen.get_state, raw(legacy))
        if isinstance(state, dict):  # legacy=False: the bit generator's dict
            raise NotSupportedError("np.random.get_state(legacy=False) (a dict state) is "
                                    "not supported by gradtrace; the legacy tuple is")
        kind, keys, pos, has_gauss, cached_gaussian = state
        return (kind, wrap(keys), pos, has_gauss, cached_gaussian)

    return get_state


def random_source_attribute(interp: Interpreter, source: RandomSource, name: str) -> Any:
    """A RandomState's or Generator's method (the allow-listed samplers only)."""
    if name in source.methods or name == "shuffle":
        if name == "seed":
            return NumpyFunction("seed", lambda seed=None: call(source.gen.seed, raw(seed)),
                                 interp)
        if name == "get_state":
            return NumpyFunction(name, _get_state(source.gen, lambda: None), interp)
        if name == "set_state":
            return NumpyFunction(name, lambda state: call(source.gen.set_state, raw(state)),
                                 interp)
        return NumpyFunction(name, _sampler(interp, source.gen, name, lambda: None), interp)
    raise missing(source.kind, name)
