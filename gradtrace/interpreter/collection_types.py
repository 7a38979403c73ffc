"""`collections.defaultdict`, `Counter`, `deque` and `namedtuple` as scripts see them, and
`functools.partial`. The dicts work as any dict does (subscripts, `in`, iteration, the dict
methods) and all print as CPython 3.11 prints them. NLP tutorials count tokens with Counter
and group items with defaultdict(list); the DQN tutorial keeps its replay memory in a
deque of namedtuples."""
from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from .. import stdlib
from .objects import ScriptIterator


class defaultdict(dict):  # noqa: N801 - Python's name, shown by type(x).__name__
    """A dict whose missing keys are filled by calling `default_factory` (a script
    callable, called through the interpreter)."""

    __slots__ = ("default_factory", "_call")

    def __init__(self, default_factory: Any, call: Callable[[Any], Any], *args: Any,
                 **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.default_factory = default_factory
        self._call = call

    def __missing__(self, key: Any) -> Any:
        if self.default_factory is None:
            raise KeyError(key)
        value = self[key] = self._call(self.default_factory)
        return value

    def __repr__(self) -> str:
        return f"defaultdict({self.default_factory!r}, {dict.__repr__(self)})"

    __str__ = __repr__

    def copy(self) -> defaultdict:
        return defaultdict(self.default_factory, self._call, self)


class Counter(collections.Counter):
    """Python's Counter, printed with its own class name whatever module defines it; an
    iterable it counts is built first (within --max-sequence) by `materialize`."""

    def __init__(self, materialize: Callable[[Any], Any], iterable: Any = None, /,
                 **kwargs: Any):
        self._materialize = materialize
        super().__init__(self._counted(iterable), **kwargs)

    def _counted(self, iterable: Any) -> Any:
        if iterable is None or isinstance(iterable, dict):
            return iterable
        return self._materialize(iterable)

    def update(self, iterable: Any = None, /, **kwargs: Any) -> None:
        super().update(self._counted(iterable), **kwargs)

    def subtract(self, iterable: Any = None, /, **kwargs: Any) -> None:
        super().subtract(self._counted(iterable), **kwargs)

    def __repr__(self) -> str:
        if not self:
            return "Counter()"
        return f"Counter({dict(self.most_common())!r})"

    __str__ = __repr__

    def copy(self) -> Counter:
        return Counter(self._materialize, self)


COUNTER_METHODS: dict[str, Callable[..., Any]] = {
    **{name: getattr(dict, name) for name in stdlib.DICT_METHODS if name != "fromkeys"},
    "copy": Counter.copy, "most_common": collections.Counter.most_common,
    "update": Counter.update, "subtract": Counter.subtract,
    "total": collections.Counter.total,
    # (lazy: a huge count is counted item by item by whatever consumes it)
    "elements": lambda c: ScriptIterator("chain", collections.Counter.elements(c)),
}
DEFAULTDICT_METHODS: dict[str, Callable[..., Any]] = {
    **stdlib.DICT_METHODS, "copy": defaultdict.copy}


class partial:  # noqa: N801 - Python's name, shown by type(x).__name__
    """`functools.partial`: forum answers register one hook per layer with
    `register_forward_hook(partial(save_activation, name))`. Calls go through the
    interpreter (`call`), as the script's own call of `func` would."""

    __slots__ = ("func", "args", "keywords", "_call")

    def __init__(self, call: Callable[..., Any], func: Any, *args: Any, **keywords: Any):
        self._call = call
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(self.func, [*self.args, *args], {**self.keywords, **kwargs})

    def __repr__(self) -> str:
        parts = [repr(self.func), *map(repr, self.args),
                 *(f"{k}={v!r}" for k, v in self.keywords.items())]
        return f"functools.partial({', '.join(parts)})"


class deque(collections.deque):  # noqa: N801 - Python's name, shown by type(x).__name__
    """Python's deque (a bounded one drops from the other end), under the script's limits:
    the iterable it starts from is built first by the caller."""

    __slots__ = ()


DEQUE_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(collections.deque, name) for name in (
        "append", "appendleft", "pop", "popleft", "clear", "count", "index", "remove",
        "reverse", "rotate", "insert", "extend", "extendleft")
}
DEQUE_METHODS["copy"] = lambda d: deque(d, d.maxlen)

MISSING = object()  # what namedtuple_attribute answers for a name it does not have


def namedtuple_attribute(obj: tuple, name: str) -> Any:
    """A field of a namedtuple instance (which may hold None), or one of its documented
    members; MISSING else."""
    if name in obj._fields or name in ("_fields", "_asdict", "_replace",  # type: ignore
                                       "_field_defaults"):
        return getattr(obj, name)
    return MISSING
