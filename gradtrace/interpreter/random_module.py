"""Python's `random` module for scripts: CPython's Mersenne Twister, one generator per run for
the module's functions and one of its own for each `random.Random(seed)`, so a seeded script
draws CPython's numbers."""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..engine import unreproducible
from ..errors import LimitExceeded, ScriptError

if TYPE_CHECKING:
    from .core import Interpreter

_RANDOM_METHODS = (
    "seed", "random", "uniform", "randint", "randrange", "choice", "shuffle", "sample",
    "gauss", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
    "gammavariate", "betavariate", "paretovariate", "weibullvariate", "triangular",
)


class PyRandom:
    """A `random.Random(seed)` instance: a Mersenne Twister of its own (CPython's, so its
    draws are CPython's), with the module's methods allow-listed and nothing else."""

    __slots__ = ("interp", "generator", "table")
    python_type_name = "Random"

    def __init__(self, interp: Interpreter, generator: random.Random):
        self.interp = interp
        self.generator = generator
        self.table = _random_methods(interp, generator)

    def clone(self) -> PyRandom:
        """copy.copy and copy.deepcopy: a generator of its own in the same state."""
        generator = random.Random()
        generator.setstate(self.generator.getstate())
        return PyRandom(self.interp, generator)

    def __repr__(self) -> str:
        return f"<random.Random object at {hex(id(self))}>"


def _random_methods(interp: Interpreter, generator: random.Random) -> dict[str, Any]:
    """The module's and a Random instance's methods, bound to `generator`, with size guards
    on the draws whose result grows with an argument."""
    table: dict[str, Any] = {name: getattr(generator, name) for name in _RANDOM_METHODS}
    limit = interp.limits.max_sequence

    def choices(population: Any, weights: Any = None, *, cum_weights: Any = None,
                k: int = 1) -> list:
        if isinstance(k, int) and k > limit:
            raise LimitExceeded(f"random.choices of {k} items exceeds the limit of {limit} "
                                "(raise it with --max-sequence)")
        return generator.choices(population, weights, cum_weights=cum_weights, k=k)

    def getrandbits(k: int) -> int:
        if isinstance(k, int) and k > interp.limits.max_int_bits:
            raise LimitExceeded(f"random.getrandbits({k}) exceeds the integer size limit "
                                f"({interp.limits.max_int_bits} bits)")
        return generator.getrandbits(k)

    table.update(choices=choices, getrandbits=getrandbits, getstate=generator.getstate,
                 setstate=generator.setstate)
    return table


def random_namespace(interp: Interpreter) -> stdlib.Namespace:
    """`random`: Python's Mersenne Twister, one generator per run, seeded from the system
    like CPython's until the script calls `random.seed`; `random.Random(seed)` makes a
    generator of the script's own."""
    table = _random_methods(interp, random.Random())

    def random_instance(x: Any = None) -> PyRandom:
        if x is None:  # seeded from the system, as CPython's
            unreproducible.note(unreproducible.UNSEEDED_RANDOM)
        seed = x if x is None or isinstance(x, (int, float, str, bytes, bytearray)) \
            else object()  # refused by CPython with its own words, no script code run
        try:
            generator = random.Random(seed)
        except TypeError as e:
            raise ScriptError(str(e), kind="TypeError") from None
        return PyRandom(interp, generator)

    table["Random"] = random_instance
    return stdlib.Namespace("random", table)


def random_instance_attribute(obj: PyRandom, name: str) -> Any:
    """A Random instance's allow-listed method, or None when it has no such one."""
    return obj.table.get(name)
