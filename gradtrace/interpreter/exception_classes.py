"""Script classes that subclass Python's exceptions (`class StopTraining(Exception)`).

Such a class's base is one of the frozen classes below, one per builtin kind
(`Exception`, `ValueError`, ...), shared by every run like `object`: BaseException's
`__init__` (keeps `args`), `__str__` and `__repr__` as NativeFunctions. Its instances are
ordinary `Instance`s; `raise` turns one into the `ScriptError` the interpreter unwinds with
(`instance_error`), which keeps the instance (what `except ... as e` binds) and the builtin
kind at the root of its class (what `except ValueError` matches, through errors.py's
hierarchy). Uncaught, it is reported as Python's traceback names it (`StopTraining`, a
library's `argparse.ArgumentError`).
"""
from __future__ import annotations

from typing import Any

from ..errors import EXCEPTION_PARENTS, ScriptError, TorchTypeError
from .dunders import OBJECT
from .objects import Instance, NativeFunction, ScriptClass

_BASES: dict[str, ScriptClass] = {}


def _init(inst: Instance, *args: Any, **kwargs: Any) -> None:
    if kwargs:
        raise TorchTypeError(f"{inst.cls.name}() takes no keyword arguments")
    inst.attrs["args"] = args


def _args(inst: Instance) -> tuple[Any, ...]:
    args = inst.attrs.get("args", ())
    return args if isinstance(args, tuple) else tuple(args)


def _str(inst: Instance) -> str:
    args = _args(inst)
    if not args:
        return ""
    return str(args[0]) if len(args) == 1 else str(args)


def _repr(inst: Instance) -> str:
    return f"{inst.cls.name}({', '.join(repr(a) for a in _args(inst))})"


def exception_base(kind: str) -> ScriptClass:
    """The class a script's `class C(kind)` derives from."""
    found = _BASES.get(kind)
    if found is None:
        attrs: dict[str, Any] = {name: NativeFunction(name, kind, fn) for name, fn in (
            ("__init__", _init), ("__str__", _str), ("__repr__", _repr))}
        found = _BASES[kind] = ScriptClass(kind, kind, "builtins", OBJECT, attrs, None,
                                           frozen=True)
        found.exception_kind = kind
    return found


def is_exception_kind(kind: str) -> bool:
    """Whether a script may subclass `kind`: Exception and what derives from it, except
    the kinds the interpreter itself acts on (warning categories, StopIteration)."""
    if kind in ("StopIteration", "Warning"):
        return False
    while kind is not None:
        if kind == "Exception":
            return True
        if kind == "Warning":
            return False
        kind = EXCEPTION_PARENTS.get(kind)
    return False


def exception_name(cls: ScriptClass) -> str:
    """The class as Python's traceback names it: `StopTraining`, `argparse.ArgumentError`."""
    if cls.module in ("builtins", "__main__"):
        return cls.qualname
    return f"{cls.module}.{cls.qualname}"


def instance_error(inst: Instance) -> ScriptError:
    """`raise inst`: the error to unwind with, its message `str(inst)`."""
    name = exception_name(inst.cls)
    try:
        message = str(inst)
    except TypeError as bad:  # __str__ returned non-string (type int)
        raise TorchTypeError(str(bad)) from None
    err = ScriptError(message, kind=name)
    err.instance = inst
    err.root_kind = inst.cls.exception_kind
    return err
