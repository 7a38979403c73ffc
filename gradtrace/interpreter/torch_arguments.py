"""Argument types of engine functions checked as torch's argument parser checks them,
from each function's declared signature (its annotations), not call site by call site.

torch's parser takes only a Python bool for a `bool` parameter (`requires_grad=2`,
`keepdim=1`, `requires_grad_(None)` are TypeErrors: "argument 'requires_grad' must be
bool, not int"), where Python code would take any truthy value. The engine declares its
`bool` parameters (`requires_grad: bool = False`); this module reads those declarations
once per function and checks every call's arguments against them.

A keyword-only `bool` (torch's TensorOptions: `torch.ones(2, requires_grad=None)`) also
takes None, as torch does. Not exact: functions with several overloads in torch (randn,
arange, std, var) word the error as "received an invalid combination of arguments";
here it is the single-overload wording.
"""
from __future__ import annotations

import inspect
from typing import Any

from ..errors import ScriptError
from ..source import Span
from ..stdlib import BoundMethod
from .objects import type_name

_BOOL = ("bool",)  # annotations as written (the engine uses `from __future__ import annotations`)
# function -> ((name, position or -1 if keyword-only), ...) of its bool parameters
_DECLARED: dict[Any, tuple[tuple[str, int], ...]] = {}


def _bool_parameters(fn: Any) -> tuple[tuple[str, int], ...]:
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return ()
    found = []
    for position, p in enumerate(parameters):
        if p.annotation in _BOOL or p.annotation is bool:
            keyword_only = p.kind is p.KEYWORD_ONLY
            found.append((p.name, -1 if keyword_only else position))
    return tuple(found)


def check_bool_arguments(fn: Any, args: Any, kwargs: dict[str, Any],
                         span: Span | None) -> None:
    """torch's TypeError for a non-bool given to a parameter an engine function (or
    Tensor method) declares bool."""
    if type(fn) is BoundMethod:
        function, name = fn.fn, fn.name
    else:
        function, name = getattr(fn, "__func__", fn), getattr(fn, "__name__", "function")
    module = getattr(function, "__module__", None)
    if module is None or not module.startswith("gradtrace.engine"):
        return  # (closures made per call, like a list's bound methods, are never cached)
    declared = _DECLARED.get(function)
    if declared is None:
        if len(_DECLARED) > 20_000:  # engine functions are module-level: never this many
            _DECLARED.clear()
        declared = _DECLARED[function] = _bool_parameters(function)
    if not declared:
        return
    bound = function is not fn  # a method: `self` is not among the script's arguments
    for parameter, position in declared:
        if parameter in kwargs:
            value = kwargs[parameter]
            if type(value) is bool or (value is None and position < 0):
                continue
            where = ""
        else:
            index = position - bound
            if position < 0 or index < 0 or index >= len(args):
                continue
            value = args[index]
            if type(value) is bool:
                continue
            where = f" (position {index + 1})"
        raise ScriptError(f"{name}(): argument '{parameter}'{where} must be bool, not "
                          f"{type_name(value)}", span, kind="TypeError")
