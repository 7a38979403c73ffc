"""Compiles expressions to closures: names (as their scope decided), literals, f-strings,
attributes, subscripts, calls, operators. (Displays and comprehensions are in
`displays.py`.)"""
from __future__ import annotations

import datetime
from types import BuiltinFunctionType
from typing import Any

import numpy as np

from .. import stdlib, syntax
from ..engine.ndarray import ndarray
from ..engine.tensor import Tensor
from ..errors import (
    GradtraceError,
    LimitExceeded,
    NotSupportedError,
    ScriptError,
)
from ..source import Span
from . import frame_locals
from .builtin_classes import as_builtin
from .objects import (
    BuiltinFunction,
    BuiltinType,
    Instance,
    Method,
    ScriptClass,
    UserFunction,
    script_message,
    type_name,
)
from .runtime import PYTHON_ERRORS, Code, Frame, named
from .suggestions import name_error_suggestion


class ExpressionCompiler:
    """Expressions: names, literals, f-strings, attributes, subscripts, calls
    (operators: operator_expressions.py)."""

    def compile_expr(self, node: syntax.Expr) -> Code:
        method = getattr(self, "expr_" + type(node).__name__)  # internal dispatch on AST type
        return method(node)

    def expr_Constant(self, node: syntax.Constant) -> Code:
        value = node.value
        return lambda frame: value

    def expr_Name(self, node: syntax.Name) -> Code:
        name = self.mangled(node.id)
        span = node.span
        builtins = self.builtins
        scope = self._scope

        module_vars = self._module_frame.vars
        # (a script's own star imports; bundled library code reads its own names)
        star_unsupported = {} if scope.library else self.star_unsupported

        def missing(frame: Frame) -> Any:
            if star_unsupported and name in star_unsupported:  # (shadowing a builtin)
                raise stdlib.missing_namespace_name(*star_unsupported[name]).at(span)
            if name in builtins:
                return builtins[name]
            if name in stdlib.NOT_SUPPORTED_BUILTINS:
                raise NotSupportedError(stdlib.NOT_SUPPORTED_BUILTINS[name], span)
            err = ScriptError(f"name '{name}' is not defined", span, kind="NameError")
            # (a function's own variables first; a module's frame has none of its own)
            local_vars = frame.vars if frame.function is not None else {}
            err.suggest = lambda: name_error_suggestion(name, named(local_vars),
                                                        named(module_vars))
            raise err

        # (`name in vars` then `vars[name]`: two opcodes, cheaper than a `.get` call)
        if scope.kind == "function" and name in scope.locals:
            def load_local(frame: Frame) -> Any:
                variables = frame.vars
                if name in variables:
                    return variables[name]
                raise ScriptError(f"cannot access local variable '{name}' where it is not "
                                  "associated with a value", span, kind="UnboundLocalError")

            return load_local
        if name in scope.globals:
            module = self._module_frame.vars

            def load_global(frame: Frame) -> Any:
                return module[name] if name in module else missing(frame)

            return load_global

        def load(frame: Frame) -> Any:
            f: Frame | None = frame
            while f is not None:
                variables = f.vars
                if name in variables:
                    return variables[name]
                f = f.parent
            return missing(frame)

        return load

    def expr_FString(self, node: syntax.FString) -> Code:
        parts: list[Any] = []
        for part in node.parts:
            if isinstance(part, str):
                parts.append(part)
            else:
                spec = part.spec
                if isinstance(spec, syntax.FString):  # formatted first, as Python does
                    spec = self.expr_FString(spec)
                parts.append((self.compile_expr(part.value), part.conversion, spec,
                              part.span))

        def run(frame: Frame) -> str:
            out = []
            for part in parts:
                if isinstance(part, str):
                    out.append(part)
                    continue
                code, conversion, spec, span = part
                value = code(frame)
                if spec is not None and type(spec) is not str:
                    spec = spec(frame)  # (before the conversion, as CPython orders them)
                if conversion is not None:
                    value = self.convert(value, conversion, span)
                out.append(self.format_value(value, spec or "", span))
            return "".join(out)

        return run

    def convert(self, value: Any, conversion: str, span: Span) -> str:
        """An f-string's `!r` / `!s` / `!a`: Python's errors (str() of a huge int) are the
        script's."""
        try:
            if conversion == "a":
                return ascii(value)
            return repr(value) if conversion == "r" else str(value)
        except GradtraceError as err:
            err.at(span)
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(script_message(str(err), (value,)), span,
                              kind=type(err).__name__) from None

    def check_spec(self, spec: str, span: Span | None) -> None:
        """A format spec's width and precision are counted against --max-sequence before
        Python pads (`"{:900000000}"` would build 900 MB in one C call)."""
        for digits in "".join(c if c.isdigit() else " " for c in spec).split():
            if len(digits) > 18 or int(digits) > self.limits.max_sequence:
                raise LimitExceeded(
                    f"format spec '{spec[:40]}' asks for more than "
                    f"{self.limits.max_sequence} characters (raise it with --max-sequence)",
                    span)

    def format_value(self, value: Any, spec: str, span: Span) -> str:
        """f-string formatting: specs only for numbers, strings and tensors, widths bounded."""
        if spec:
            if not isinstance(value, (int, float, complex, str, Tensor, Instance, np.generic,
                                      ndarray, datetime.date, datetime.time,
                                      datetime.timedelta)):
                raise NotSupportedError(
                    f"format spec '{spec}' is only supported for numbers, strings and tensors",
                    span)
            self.check_spec(spec, span)
            if isinstance(value, (datetime.date, datetime.time)):  # a strftime format
                self.check_size(len(spec) * 12, "a strftime() result")
        try:
            return format(value, spec)
        except GradtraceError as err:
            err.at(span)
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(script_message(str(err), (value,)), span,
                              kind=type(err).__name__) from None

    def expr_Attribute(self, node: syntax.Attribute) -> Code:
        obj = self.compile_expr(node.value)
        attr = self.mangled(node.attr)
        span = node.span
        spans = self._spans

        def run(frame: Frame) -> Any:
            o = obj(frame)
            spans.current_span = span  # a property such as `.T` runs an op
            return self.get_attribute(o, attr, span)

        return run

    def compile_index(self, node: syntax.Expr) -> Code:
        if isinstance(node, syntax.Slice):
            parts = [self.compile_expr(p) if p is not None else None
                     for p in (node.lower, node.upper, node.step)]

            def make_slice(frame: Frame) -> slice:
                return slice(*(p(frame) if p is not None else None for p in parts))

            return make_slice
        if isinstance(node, syntax.TupleExpr):
            if any(isinstance(e, syntax.Starred) for e in node.elts):
                # `t[*idx, ::2]`, `t[(*fill, i)]`: unpacked as a display's, slices as an index's
                unpacked = self._compile_items(node.elts, self.compile_index)
                return lambda frame: tuple(unpacked(frame))
            items = [self.compile_index(e) for e in node.elts]
            return lambda frame: tuple(i(frame) for i in items)
        return self.compile_expr(node)

    def expr_Subscript(self, node: syntax.Subscript) -> Code:
        obj = self.compile_expr(node.value)
        index = self.compile_index(node.index)
        span = node.span

        spans = self._spans

        def run(frame: Frame) -> Any:
            try:
                o, i = obj(frame), index(frame)
                spans.current_span = span
                result = self.get_item(o, i)
                if self.tracer is not None:
                    self.tracer.made(result)
                return result
            except GradtraceError as err:
                err.at(span)
                raise

        return run

    def expr_Slice(self, node: syntax.Slice) -> Code:
        return self.compile_index(node)

    def expr_Starred(self, node: syntax.Starred) -> Code:
        raise NotSupportedError("starred expressions are only supported in calls, displays "
                                "and assignment targets", node.span)

    def _call_locals(self, func: Code, span: Any) -> Code:
        """`locals()` by name: in a `def` function, its frame's locals dict refreshed
        (frame_locals); elsewhere, or when the name is not the builtin, a plain call."""
        call = self.call
        builtin = self.builtins["locals"]
        names = self._scope.frame_names
        spans = self._spans

        def call_locals(frame: Frame) -> Any:
            f = func(frame)
            spans.current_span = span
            if f is not builtin or names is None:
                return call(f, [], {}, span)
            store = getattr(frame, "locals_dict", None)
            if store is None:
                store = frame.locals_dict = {}
            return frame_locals.refresh(store, *names, frame)

        return call_locals

    def expr_Call(self, node: syntax.Call) -> Code:
        func = self.compile_expr(node.func)
        span = node.span
        spans = self._spans
        call = self.call_intrinsic_or if self._scope.library else self.call
        args = []
        has_star = False
        for a in node.args:
            if isinstance(a, syntax.Starred):
                args.append((True, self.compile_expr(a.value), a.value.span))
                has_star = True
            else:
                args.append((False, self.compile_expr(a), a.span))
        keywords = [(k.arg, self.compile_expr(k.value), k.span) for k in node.keywords]
        if isinstance(node.func, syntax.Name) and node.func.id == "super" and not node.args \
                and not keywords:
            zero_arg_super = self.zero_arg_super
            builtin = self.builtins["super"]

            def call_super(frame: Frame) -> Any:
                f = func(frame)
                spans.current_span = span
                if f is builtin:
                    return zero_arg_super(frame, span)
                return call(f, [], {}, span)

            return call_super
        if isinstance(node.func, syntax.Name) and node.func.id == "locals" and not node.args \
                and not keywords:
            return self._call_locals(func, span)
        if not has_star and not keywords:
            codes = [c for _, c, _ in args]
            if len(codes) == 1:
                only = codes[0]

                def call_one(frame: Frame) -> Any:
                    f = func(frame)
                    value = only(frame)
                    spans.current_span = span
                    return call(f, [value], {}, span)

                return call_one

            def call_simple(frame: Frame) -> Any:
                f = func(frame)
                values = [c(frame) for c in codes]
                spans.current_span = span
                return call(f, values, {}, span)

            return call_simple

        def call_general(frame: Frame) -> Any:
            f = func(frame)
            values: list[Any] = []
            for starred, code, arg_span in args:
                if starred:
                    value = code(frame)
                    try:
                        values.extend(self.materialize(value, "a *args argument", arg_span))
                    except ScriptError as err:
                        if getattr(err, "not_iterable", err) is not value:
                            raise
                        raise ScriptError(f"{function_str(f)} argument after * must be an "
                                          f"iterable, not {type_name(as_builtin(value))}",
                                          arg_span, kind="TypeError") from None
                else:
                    values.append(code(frame))
            kwargs: dict[str, Any] = {}
            for name, code, arg_span in keywords:
                if name is not None:
                    if name in kwargs:  # (after a ** spread: Python's dict merge error)
                        raise ScriptError(f"{function_str(f)} got multiple values for "
                                          f"keyword argument '{name}'", arg_span,
                                          kind="TypeError")
                    kwargs[name] = code(frame)
                    continue
                value = code(frame)
                mapping = self.unpacked_mapping(value, "a **kwargs argument")
                if mapping is None:
                    raise ScriptError(f"{function_str(f)} argument after ** must be a "
                                      f"mapping, not {type_name(as_builtin(value))}", arg_span,
                                      kind="TypeError")
                for key, value in mapping.items():
                    if not isinstance(key, str):
                        raise ScriptError("keywords must be strings", arg_span,
                                          kind="TypeError")
                    if key in kwargs:
                        raise ScriptError(f"{function_str(f)} got multiple values for "
                                          f"keyword argument '{key}'", arg_span,
                                          kind="TypeError")
                    kwargs[key] = value
            spans.current_span = span
            return call(f, values, kwargs, span)

        return call_general

    def expr_IfExp(self, node: syntax.IfExp) -> Code:
        test = self.compile_expr(node.test)
        body = self.compile_expr(node.body)
        orelse = self.compile_expr(node.orelse)
        span = node.test.span
        return lambda frame: body(frame) if self.truth(test(frame), span) else orelse(frame)

    def expr_Yield(self, node: syntax.Yield | syntax.YieldFrom) -> Code:
        raise NotSupportedError("`yield` is only supported as a statement or as the value of "
                                "an assignment (`x = yield value`)", node.span)

    expr_YieldFrom = expr_Yield


def function_str(fn: Any) -> str:
    """Python's _PyObject_FunctionStr, which its `*`/`**` argument errors use: a function
    or class with its module (`__main__.f()`, `__main__.A.m()`), a builtin without
    (`print()`)."""
    if isinstance(fn, Method):
        fn = fn.function
    if isinstance(fn, (UserFunction, ScriptClass)) and fn.module != "builtins":
        return f"{fn.module}.{fn.qualname}()"
    if type(fn) is BuiltinType:  # `dict(a=1, **{"a": 2})`: the class by its name
        return f"{fn.name}()"
    return f"{callable_name(fn)}()"


def callable_name(fn: Any) -> str:
    """How Python names a callable in its call errors (`Net.forward`, `f`, `print`)."""
    if isinstance(fn, Method):
        fn = fn.function
    if isinstance(fn, (UserFunction, ScriptClass)):
        return fn.qualname
    if isinstance(fn, (stdlib.BoundMethod, BuiltinFunction)):
        return fn.name
    if isinstance(fn, BuiltinFunctionType):
        return fn.__name__
    return type_name(fn)
