"""Calling one of Python's types that gradtrace keeps opaque: `type(a_module)`,
`type(a_function)`, `type(print)`. gradtrace makes none of their instances, but their
argument errors are CPython's, and scripts meet them without meaning to: a class statement
whose base is a module or a function (`import torch.autograd.function as Function`, then
`class Exp(Function)`) calls the base's type with (name, bases, namespace)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.tensor import type_name

_MISSING: Any = object()


def _module(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """module(name, doc=None), as its __init__ parses them ("U|O:module")."""
    for key in kwargs:
        if key not in ("name", "doc"):
            return f"'{key}' is an invalid keyword argument for module()"
    given = len(args) + len(kwargs)
    if given > 2:
        return f"module() takes at most 2 arguments ({given} given)"
    name = args[0] if args else kwargs.get("name", _MISSING)
    if name is _MISSING:
        return "module() missing required argument 'name' (pos 1)"
    if not isinstance(name, str):
        return f"module() argument 'name' must be str, not {type_name(name)}"
    return None


def _function(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """function(code, globals, ...): no script value is a code object."""
    code = args[0] if args else kwargs.get("code", _MISSING)
    if code is _MISSING:
        return "function() missing required argument 'code' (pos 1)"
    return f"function() argument 'code' must be code, not {type_name(code)}"


def _builtin_function(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    return "cannot create 'builtin_function_or_method' instances"


CONSTRUCTORS: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], str | None]] = {
    "module": _module, "function": _function,
    "builtin_function_or_method": _builtin_function}


def call_error(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None | bool:
    """CPython's TypeError for calling the builtin type `name` with these arguments; None
    when the call would make an instance (which gradtrace does not); False for a type not
    in the table."""
    check = CONSTRUCTORS.get(name)
    return False if check is None else check(args, kwargs)
