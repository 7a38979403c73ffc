"""`__slots__`: an instance of a class whose every class but object declares `__slots__`
has no `__dict__`, so setting a name none of them lists is Python's AttributeError
(`'Point' object has no attribute 'z'`). A class in the MRO without `__slots__` (or one
listing `__dict__`), or a builtin exception (BaseException has a `__dict__`), lifts the
restriction; a builtin type's own base (dict, tuple, ...) has none to add.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ScriptError
from .dunders import OBJECT
from .objects import MISSING, ScriptClass
from .scopes import mangle

if TYPE_CHECKING:
    from .core import Interpreter


def slot_names(interp: Interpreter, cls: ScriptClass) -> frozenset[str] | None:
    """The attribute names an instance of `cls` may hold, None when it has a `__dict__`
    (computed once per class: a class's `__slots__` cannot be set after it is made)."""
    cache = interp.slot_cache
    if cls in cache:
        return cache[cls]
    names: set[str] | None = set()
    for klass in cls.mro:
        if klass is OBJECT:
            continue
        if klass.frozen and klass.interp is None:
            if klass.exception_kind is not None:
                names = None
                break
            continue
        slots = klass.attrs.get("__slots__", MISSING)
        if slots is MISSING:
            names = None
            break
        items = (slots,) if isinstance(slots, str) else interp.materialize(slots, "__slots__")
        for item in items:
            if not isinstance(item, str):
                raise ScriptError(f"__slots__ items must be strings, not "
                                  f"'{type(item).__name__}'", kind="TypeError")
            if item == "__dict__":
                names = None
                break
            names.add(mangle(item, klass.name))
        if names is None:
            break
    found = None if names is None else frozenset(names)
    cache[cls] = found
    return found


def check_slot(interp: Interpreter, obj: Any, name: str) -> None:
    """Setting `name` on an instance: refused when its class's slots do not list it."""
    allowed = slot_names(interp, obj.cls)
    if allowed is not None and name not in allowed:
        raise ScriptError(f"'{obj.cls.name}' object has no attribute '{name}'",
                          kind="AttributeError")
