"""id(): a number per object, unique among the objects alive at once, as Python promises.

An address would say where Python keeps an object, so a script sees small numbers in the
order it first asks. CPython reuses the memory of a freed object for the next object of its
size, so objects whose lifetimes do not overlap often share an id: `id(t.storage()) ==
id(u.storage())` and `id(Net()) == id(Net())` are True there, because the first temporary
is freed before the second is made (tutorials print the first to show shared storage).
Numbers are reused the same way: a numbered object that dies gives its number back, and
the next new object of the same kind (its type standing for its size) takes the number
freed last. Tensors and graph nodes keep their numbers for the whole run: the views
(report, explain, the page) keep them alive to show them, so whether one had died would
depend on the view, and a run prints the same under every view. Objects that cannot be
referenced weakly (lists, dicts, tuples, numbers) are kept alive too.
"""
from __future__ import annotations

import weakref
from functools import partial
from typing import Any

from ..engine.node import Node
from ..engine.tensor import Tensor
from ..errors import LimitExceeded

_KEPT = (Tensor, Node)  # what the views keep alive


class Identities:
    """The numbers id() has given out: live objects by their host id, freed numbers by kind."""

    def __init__(self, cap: int) -> None:
        self.cap = cap  # objects numbered at once
        self._live: dict[int, tuple[int, Any]] = {}  # host id -> (number, the object or a weakref)
        self._free: dict[type, list[int]] = {}
        self._issued = 0

    def known(self, obj: Any) -> int | None:
        """The number `obj` has, if id() gave it one (a deepcopy memo keyed by id())."""
        entry = self._live.get(id(obj))
        return None if entry is None else entry[0]

    def number(self, obj: Any) -> int:
        key = id(obj)
        entry = self._live.get(key)
        if entry is not None:
            return entry[0]
        if len(self._live) >= self.cap:
            raise LimitExceeded(f"id() has numbered {self.cap} live objects, the limit (a "
                                "tenth of --max-sequence)")
        kind = type(obj)
        freed = self._free.get(kind)
        if freed:
            number = freed.pop()
        else:
            self._issued += 1
            number = self._issued
        holder: Any = obj
        if not isinstance(obj, _KEPT):
            try:
                holder = weakref.ref(obj, partial(self._release, key, kind, number))
            except TypeError:  # (no weak references to it)
                pass
        self._live[key] = (number, holder)
        return number

    def _release(self, key: int, kind: type, number: int, _ref: weakref.ref) -> None:
        """The object died: its number is free for the next object of its kind."""
        del self._live[key]
        self._free.setdefault(kind, []).append(number)
