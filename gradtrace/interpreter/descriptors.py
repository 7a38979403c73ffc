"""Descriptors a script writes: an instance whose class defines `__get__` (and, for a
data descriptor, `__set__` or `__delete__`), stored as a class attribute. Python's
attribute protocol, as CPython's object and type run it:

- reading through an instance: a data descriptor on the class wins over the instance's
  own attribute; a non-data one (only `__get__`) gives way to it; `__get__(obj, type)`;
- reading through the class: `__get__(None, cls)`;
- setting/deleting through an instance: a data descriptor's `__set__(obj, value)` /
  `__delete__(obj)` (one without that method is Python's AttributeError);
- `__set_name__(owner, name)` of each attribute when its class statement ends.
(`property`, `staticmethod`, `classmethod` and functions are the interpreter's own.)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ScriptError
from .objects import MISSING, Instance, ScriptClass

if TYPE_CHECKING:
    from .core import Interpreter


def getter(value: Any) -> Any:
    """The `__get__` of a script object stored on a class, MISSING if it is no descriptor."""
    if type(value) is not Instance:
        return MISSING
    return value.cls.lookup("__get__")


def is_data_descriptor(value: Any) -> bool:
    return type(value) is Instance and (value.cls.lookup("__set__") is not MISSING or
                                        value.cls.lookup("__delete__") is not MISSING)


def describe(interp: Interpreter, descriptor: Instance, obj: Any, owner: Any) -> Any:
    """`descriptor.__get__(obj, owner)` (obj None when read through the class)."""
    return interp.call_bound(descriptor.cls.lookup("__get__"), descriptor, (obj, owner))


def assign(interp: Interpreter, descriptor: Instance, obj: Instance, name: str,
           value: Any) -> None:
    """`obj.name = value` through a data descriptor."""
    method = descriptor.cls.lookup("__set__")
    if method is MISSING:
        raise ScriptError("__set__", kind="AttributeError")
    interp.call_bound(method, descriptor, (obj, value))


def remove(interp: Interpreter, descriptor: Instance, obj: Instance) -> None:
    """`del obj.name` through a data descriptor."""
    method = descriptor.cls.lookup("__delete__")
    if method is MISSING:
        raise ScriptError("__delete__", kind="AttributeError")
    interp.call_bound(method, descriptor, (obj,))


def set_names(interp: Interpreter, cls: ScriptClass) -> None:
    """type.__new__'s last step: `value.__set_name__(cls, name)` for each attribute that
    has one, in the class body's order."""
    for name, value in list(cls.attrs.items()):
        if type(value) is Instance:
            hook = value.cls.lookup("__set_name__")
            if hook is not MISSING:
                interp.call_bound(hook, value, (cls, name))
