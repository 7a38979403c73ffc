"""Calling script functions and the engine's: binding arguments, depth, errors."""
from __future__ import annotations

from typing import Any

from ..errors import (
    GradtraceError,
    ScriptError,
    TorchTypeError,
)
from ..source import Span
from .runtime import (
    PYTHON_ERRORS,
    BreakSignal,
    ContinueSignal,
    Frame,
    ReturnSignal,
    UserFunction,
    is_callable_value,
    type_name,
)


class Calls:
    """Calls of script functions, builtins and engine functions."""

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], span: Span) -> Any:
        if isinstance(fn, UserFunction):
            return self.call_function(fn, args, kwargs)
        if not is_callable_value(fn):
            raise ScriptError(f"'{type_name(fn)}' object is not callable", span,
                              kind="TypeError")
        if self.tracer is not None:
            return self.tracer.call(self._invoke, fn, args, kwargs, span)
        return self._invoke(fn, args, kwargs, span)

    def _invoke(self, fn: Any, args: list[Any], kwargs: dict[str, Any], span: Span) -> Any:
        """Call an engine or builtin function; its errors become the script's, at `span`."""
        try:
            return fn(*args, **kwargs)
        except GradtraceError as err:
            err.at(span)
            raise
        except (ReturnSignal, BreakSignal, ContinueSignal):
            raise
        except RecursionError:
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(str(err), span, kind=type(err).__name__) from None

    def call_function(self, fn: UserFunction, args: Any, kwargs: dict[str, Any]) -> Any:
        frame = Frame(self._bind(fn, args, kwargs), fn.closure)
        self.depth += 1
        try:
            if self.depth > self.limits.max_call_depth:
                raise ScriptError("maximum recursion depth exceeded", kind="RecursionError")
            fn.body(frame)
        except ReturnSignal as ret:
            return ret.value
        finally:
            self.depth -= 1
        return None

    def _bind(self, fn: UserFunction, args: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        params = fn.params
        if len(args) > len(params):
            n = len(params)
            raise TorchTypeError(
                f"{fn.name}() takes {n} positional argument{'s' if n != 1 else ''} but "
                f"{len(args)} {'were' if len(args) != 1 else 'was'} given")
        bound = {p.name: a for p, a in zip(params, args)}
        names = {p.name for p in params}
        for key, value in kwargs.items():
            if key not in names:
                raise TorchTypeError(f"{fn.name}() got an unexpected keyword argument '{key}'")
            if key in bound:
                raise TorchTypeError(f"{fn.name}() got multiple values for argument '{key}'")
            bound[key] = value
        missing = [p.name for p in params if p.name not in bound and p.name not in fn.defaults]
        if missing:
            quoted = [f"'{m}'" for m in missing]
            listed = quoted[0] if len(quoted) == 1 else (
                ", ".join(quoted[:-1]) + " and " + quoted[-1])
            raise TorchTypeError(
                f"{fn.name}() missing {len(missing)} required positional argument"
                f"{'s' if len(missing) != 1 else ''}: {listed}")
        for p in params:
            if p.name not in bound:
                bound[p.name] = fn.defaults[p.name]
        return bound

