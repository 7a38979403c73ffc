"""Compiles expressions to closures: names (as their scope decided), literals, f-strings,
attributes, subscripts, calls, operators. (Displays and comprehensions are in
`displays.py`.)"""
from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from types import BuiltinFunctionType
from typing import Any

import numpy as np

from .. import stdlib, syntax
from ..engine.ndarray import NUMPY_TYPES, ndarray, raw, tensor_binop, wrap
from ..engine.tensor import Tensor
from ..errors import (
    GradtraceError,
    LimitExceeded,
    NotSupportedError,
    ScriptError,
)
from ..source import Span
from . import frame_locals
from .builtin_classes import as_builtin, inherits_number_dunder, number_operand
from .dunders import _BINARY
from .nesting import HASHED, SET_OPERATORS, check_all_hashable
from .numpy_module import DTYPE_CLASSES
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
from .operators import BINOPS, COMPARE, NUMBERS, TENSOR_BINOPS, TENSOR_RBINOPS, UNARY
from .runtime import PYTHON_ERRORS, Code, Frame, named, short_int
from .suggestions import name_error_suggestion
from .union_types import is_union_operand, union

# a %-format conversion's flags, width and precision (group 1), as printf-style formatting
# reads them
SEQUENCES = (str, bytes, list, tuple)  # what `*` repeats and `+` joins: counted first
PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?([-#0 +]*[0-9*]*(?:\.[0-9*]*)?)[hlL]?[a-zA-Z%]")
# int operators whose result is no larger than its operands allow (+ and - add a bit at
# most): no size guard to run before them
_UNGUARDED_INT_OPS = frozenset(("+", "-", "/", "&", "|", "^", ">>"))
# and those whose result of two ints under 2**62 is under 2**124: far below any size limit
_SMALL_INT_OPS = frozenset(("*", "//", "%"))
_SMALL = 1 << 62


class ExpressionCompiler:
    """Expressions: names, literals, f-strings, operators, calls, displays, comprehensions."""

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

    def expr_UnaryOp(self, node: syntax.UnaryOp) -> Code:
        operand = self.compile_expr(node.operand)
        span = node.span
        if node.op == "not":
            return lambda frame: not self.truth(operand(frame), span)
        fn = UNARY[node.op]

        spans = self._spans

        def run(frame: Frame) -> Any:
            value = operand(frame)
            spans.current_span = span
            try:
                result = fn(value)
            except GradtraceError as err:
                err.at(span)
                raise
            except PYTHON_ERRORS as err:
                raise ScriptError(script_message(str(err), (value,)), span,
                                  kind=type(err).__name__) from None
            if self.tracer is not None:
                self.tracer.made(result)
            return result

        return run

    def expr_BinOp(self, node: syntax.BinOp) -> Code:
        left = self.compile_expr(node.left)
        # a constant right operand (`y * 0.9999`, `i + 1`) is read without a call
        is_constant = type(node.right) is syntax.Constant
        constant = node.right.value if is_constant else None
        right = None if is_constant else self.compile_expr(node.right)
        fn = BINOPS[node.op]
        op = node.op
        span = node.span
        apply_op = self.apply_op
        spans = self._spans
        on_tensor = TENSOR_BINOPS[op]
        on_number = TENSOR_RBINOPS.get(op)

        def run(frame: Frame) -> Any:
            a = left(frame)
            b = constant if right is None else right(frame)
            spans.current_span = span
            if type(a) is Tensor:
                if type(b) is Tensor or type(b) in NUMBERS:
                    # apply_op's work without its call: the commonest operator of a script
                    try:
                        result = on_tensor(a, b)
                    except GradtraceError as err:
                        err.at(span)
                        raise
                    except PYTHON_ERRORS as err:
                        raise ScriptError(script_message(str(err), (a, b)), span,
                                          kind=type(err).__name__) from None
                    if self.tracer is not None:
                        self.tracer.made(result)
                    return result
            elif type(b) is Tensor and on_number is not None and type(a) in NUMBERS:
                return apply_op(on_number, b, a, op, span)
            return apply_op(fn, a, b, op, span)

        return run

    def apply_op(self, fn: Callable[[Any, Any], Any], a: Any, b: Any, op: str,
                 span: Span | None) -> Any:
        """A binary operator on script values, with size guards for Python ints/sequences.
        (The caller labels the operation: it sets current_span.)"""
        ta, tb = type(a), type(b)
        if (ta is float or ta is int) and (tb is float or tb is int) and (
                op in _UNGUARDED_INT_OPS or ta is float or tb is float or
                op in _SMALL_INT_OPS and -_SMALL < a < _SMALL and -_SMALL < b < _SMALL):
            # two plain numbers whose result cannot outgrow the size limit (the int operators
            # _guard_binop sizes first take the path below): a loop counter's `i + 1`,
            # `i % 100`, a running `total += loss_value`
            try:
                return fn(a, b)
            except PYTHON_ERRORS as err:
                raise ScriptError(script_message(str(err), (a, b)), span,
                                  kind=type(err).__name__) from None
        if type(a) is Instance and isinstance(b, Tensor) and op in REFLECTED and \
                inherits_number_dunder(a, FORWARD[op]):  # `Scale(0.5) * x`: int's or
            a = number_operand(a)  # float's own operator gives way to the tensor's
        elif type(b) is Instance and isinstance(a, Tensor):
            b = number_operand(b)  # `x * Label.CAT`: torch reads an int subclass as an int
        if type(a) is not Tensor and type(b) is not Tensor:
            self._guard_binop(op, a, b, span)
        elif type(b) is Instance and op in REFLECTED:
            # torch's operators answer NotImplemented for an object they do not know:
            # Python then asks its reflected method (an IntEnum member's __rmul__)
            result = getattr(b, REFLECTED[op])(a)
            if result is not NotImplemented:
                return result
        try:
            if type(a) in NUMPY_TYPES or type(b) in NUMPY_TYPES:
                a, b, mixed = self.numpy_operands(a, b)
                if mixed:
                    result = tensor_binop(op, a, b, self.warn)
                    if self.tracer is not None:
                        self.tracer.made(result)
                    return result
            if op == "|" and (a is not None or b is not None) and \
                    is_union_operand(a) and is_union_operand(b):
                result = union(a, b)  # `int | None` (PEP 604)
            else:
                result = fn(a, b)
        except GradtraceError as err:
            err.at(span)
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(script_message(str(err), (a, b)), span,
                              kind=type(err).__name__) from None
        if self.tracer is not None:
            self.tracer.made(result)
        return result

    def numpy_operands(self, a: Any, b: Any) -> tuple[Any, Any, bool]:
        """Operands where numpy meets torch: a numpy scalar next to a tensor is a Python
        number (as torch reads it); a tensor and an array go to `tensor_binop`."""
        if isinstance(a, Tensor) or isinstance(b, Tensor):
            if isinstance(a, np.generic):
                a = a.item()
            if isinstance(b, np.generic):
                b = b.item()
            return a, b, type(a) is ndarray or type(b) is ndarray
        if isinstance(a, np.generic) and type(b) in (list, tuple):  # numpy would build an
            b = wrap(np.asarray(raw(b)))  # array of the list's items: checked ones here
        elif isinstance(b, np.generic) and type(a) in (list, tuple):
            a = wrap(np.asarray(raw(a)))
        if type(a) is BuiltinType and a.type in DTYPE_CLASSES:  # `x.dtype == np.float32`
            a = a.type
        if type(b) is BuiltinType and b.type in DTYPE_CLASSES:
            b = b.type
        return a, b, False

    def _guard_binop(self, op: str, a: Any, b: Any, span: Span) -> None:
        limit = self.limits.max_int_bits
        if op in ("**", "*") and isinstance(a, int) and isinstance(b, int):
            if op == "**" and b > 0 and abs(a) > 1 and b * max(abs(a).bit_length() - 1, 1) > limit:
                raise LimitExceeded(
                    f"{short_int(a)} ** {short_int(b)} would exceed the integer size limit "
                    f"({limit} bits)", span)
            if op == "*" and a.bit_length() + b.bit_length() > limit:
                raise LimitExceeded(f"integer result exceeds the size limit ({limit} bits)", span)
        if op == "<<" and isinstance(a, int) and isinstance(b, int) and b > 0 and \
                a.bit_length() + b > limit:
            raise LimitExceeded(f"{short_int(a)} << {short_int(b)} would exceed the integer "
                                f"size limit ({limit} bits)", span)
        if op in ("//", "%") and isinstance(a, int) and isinstance(b, int) and \
                max(a.bit_length(), b.bit_length()) > limit:
            raise LimitExceeded(f"integer operand exceeds the size limit ({limit} bits)", span)
        if op == "%" and isinstance(a, (str, bytes)):
            self.check_percent(a.decode("latin-1") if type(a) is bytes else a, b, span)
        if op in SET_OPERATORS and (isinstance(a, HASHED) or isinstance(b, HASHED)):
            # a dict view's `|` takes any iterable and hashes its items
            check_all_hashable(b if isinstance(a, HASHED) else a)
        if op == "*" and (isinstance(a, SEQUENCES) and isinstance(b, int) or
                          isinstance(b, SEQUENCES) and isinstance(a, int)):
            seq, n = (a, b) if isinstance(b, int) else (b, a)
            if len(seq) * n > self.limits.max_sequence:
                raise LimitExceeded(
                    f"repeating a sequence of {len(seq)} items {short_int(n)} times exceeds the "
                    f"limit of {self.limits.max_sequence} items (raise it with --max-sequence)",
                    span)
        if op == "+" and isinstance(a, SEQUENCES) and type(a) is type(b):
            if len(a) + len(b) > self.limits.max_sequence:
                raise LimitExceeded(
                    f"a sequence longer than {self.limits.max_sequence} items "
                    "(raise the limit with --max-sequence)", span)

    def check_percent(self, text: str, args: Any, span: Span) -> None:
        """`text % args`: its widths and precisions, and the numbers `*` takes from `args`,
        are counted against --max-sequence before Python pads."""
        for match in PERCENT_SPEC.finditer(text):
            self.check_spec(match.group(1), span)
        if "*" in text:
            values = args if isinstance(args, tuple) else (args,)
            for value in values:
                if isinstance(value, int) and abs(value) > self.limits.max_sequence:
                    raise LimitExceeded(
                        f"a '*' width of {short_int(value)} asks for more than "
                        f"{self.limits.max_sequence} characters (raise it with --max-sequence)",
                        span)

    def expr_BoolOp(self, node: syntax.BoolOp) -> Code:
        values = [(self.compile_expr(v), v.span) for v in node.values]
        is_and = node.op == "and"

        *tested, (last, _) = values  # Python never asks the last operand for its truth

        def run(frame: Frame) -> Any:
            for code, span in tested:
                result = code(frame)
                if self.truth(result, span) != is_and:
                    return result
            return last(frame)

        return run

    def expr_Compare(self, node: syntax.Compare) -> Code:
        left = self.compile_expr(node.left)
        rest = [(COMPARE[op], self.compile_expr(c), op)
                for op, c in zip(node.ops, node.comparators)]
        span = node.span
        spans = self._spans

        def run(frame: Frame) -> Any:
            a = left(frame)
            result: Any = True
            for i, (fn, code, op) in enumerate(rest):
                b = code(frame)
                spans.current_span = span
                try:
                    if type(a) in NUMPY_TYPES or type(b) in NUMPY_TYPES:
                        x, y, mixed = self.numpy_operands(a, b)
                        result = tensor_binop(op, x, y, self.warn) if mixed else fn(x, y)
                    else:
                        result = fn(a, b)
                except GradtraceError as err:
                    err.at(span)
                    raise
                except PYTHON_ERRORS as err:
                    raise ScriptError(script_message(str(err), (a, b)), span,
                                      kind=type(err).__name__) from None
                if i + 1 < len(rest) and not self.truth(result, span):
                    return result
                a = b
            if self.tracer is not None:
                self.tracer.made(result)
            return result

        return run

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



REFLECTED = {symbol: f"__r{name}__" for name, symbol in _BINARY.items()}
FORWARD = {symbol: f"__{name}__" for name, symbol in _BINARY.items()}


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
