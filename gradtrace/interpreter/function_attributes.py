"""The introspection attributes of a script function that real code reads without
`inspect`: `__defaults__` (the positional parameters' defaults, a tuple, None when there
are none), `__kwdefaults__` (the keyword-only ones, a dict or None) and `__annotations__`
(the parameters' and the return's annotations by name, in Python's order); and a class's
`__annotations__` (what its body annotates, `x: int`, its own only, as in Python 3.10+).

Annotations are evaluated when `__annotations__` is first read, not when the `def` (or the
class body) runs, as CPython 3.11 does: an annotation gradtrace cannot evaluate (a type
it lacks) then costs nothing unless the script reads it. They are evaluated in the scope
the `def` ran in, once; the dict is the function's own, so a script's changes to it stay.
Under `from __future__ import annotations` each is the string Python keeps (the parser
makes it).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import GradtraceError
from .objects import MISSING, ScriptClass, UserFunction
from .runtime import compiled_or_refused

FUNCTION_INTROSPECTION = frozenset(("__defaults__", "__kwdefaults__", "__annotations__"))


def function_attribute(fn: UserFunction, name: str) -> Any:
    """One of FUNCTION_INTROSPECTION's attributes of a script function (MISSING if not)."""
    if name == "__defaults__":
        values = tuple(fn.defaults[p] for p in fn.signature.positional if p in fn.defaults)
        return values or None
    if name == "__kwdefaults__":
        values = {p: fn.defaults[p] for p in fn.signature.kwonly if p in fn.defaults}
        return values or None
    if name == "__annotations__":
        if fn.annotations is None:
            fn.annotations = fn.annotate() if fn.annotate is not None else {}
        return fn.annotations
    return MISSING


def annotator(annotations: list[tuple[str, Callable[[Any], Any]]], frame: Any
              ) -> Callable[[], dict[str, Any]] | None:
    """What evaluates a function's annotations (compiled in the scope around the `def`)
    in the frame the `def` ran in; None when it has none."""
    if not annotations:
        return None
    return lambda: {name: code(frame) for name, code in annotations}


def compile_annotation(interp: Any, expr: Any) -> Callable[[Any], Any]:
    """An annotation compiled in the scope it stands in; one the compiler refuses raises
    only when read (it never stopped a script before annotations were kept)."""
    return compiled_or_refused(interp.compile_expr, expr, GradtraceError)


def class_annotations(interp: Any, cls: ScriptClass) -> dict[str, Any]:
    """`Cls.__annotations__`: what its own body annotates, evaluated when first read."""
    found = interp.class_annotation_values.get(cls)
    if found is None:
        pending = interp.class_annotations.get(cls, {})
        found = interp.class_annotation_values[cls] = {name: read() for name, read in
                                                       pending.items()}
    return found
