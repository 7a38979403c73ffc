"""Compiles expressions to closures."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import stdlib, syntax
from ..engine.tensor import Tensor
from ..errors import (
    GradtraceError,
    LimitExceeded,
    NotSupportedError,
    ScriptError,
)
from ..source import Span
from .operators import BINOPS, COMPARE, UNARY
from .runtime import PYTHON_ERRORS, Code, Frame, ReturnSignal, short_int


class ExpressionCompiler:
    """Expressions: names, literals, f-strings, operators, calls, displays, comprehensions."""

    def compile_expr(self, node: syntax.Expr) -> Code:
        method = getattr(self, "expr_" + type(node).__name__)  # internal dispatch on AST type
        return method(node)

    def expr_Constant(self, node: syntax.Constant) -> Code:
        value = node.value
        return lambda frame: value

    def expr_Name(self, node: syntax.Name) -> Code:
        name = node.id
        span = node.span
        builtins = self.builtins

        def load(frame: Frame) -> Any:
            f: Frame | None = frame
            while f is not None:
                if name in f.vars:
                    return f.vars[name]
                f = f.parent
            if name in builtins:
                return builtins[name]
            if name in stdlib.NOT_SUPPORTED_BUILTINS:
                raise NotSupportedError(stdlib.NOT_SUPPORTED_BUILTINS[name], span)
            raise ScriptError(f"name '{name}' is not defined", span, kind="NameError")

        return load

    def expr_FString(self, node: syntax.FString) -> Code:
        parts: list[Any] = []
        for part in node.parts:
            if isinstance(part, str):
                parts.append(part)
            else:
                parts.append((self.compile_expr(part.value), part.conversion, part.spec,
                              part.span))

        def run(frame: Frame) -> str:
            out = []
            for part in parts:
                if isinstance(part, str):
                    out.append(part)
                    continue
                code, conversion, spec, span = part
                value = code(frame)
                if conversion == "r":
                    value = repr(value)
                elif conversion == "s":
                    value = str(value)
                out.append(self.format_value(value, spec or "", span))
            return "".join(out)

        return run

    def format_value(self, value: Any, spec: str, span: Span) -> str:
        """f-string formatting: specs only for numbers, strings and tensors, widths bounded."""
        if spec:
            if not isinstance(value, (int, float, str, Tensor)):
                raise NotSupportedError(
                    f"format spec '{spec}' is only supported for numbers, strings and tensors",
                    span)
            digits = "".join(c if c.isdigit() else " " for c in spec).split()
            if any(len(d) > 4 for d in digits):
                raise LimitExceeded(f"format spec '{spec}' asks for more than 9999 characters",
                                    span)
        try:
            return format(value, spec)
        except PYTHON_ERRORS as err:
            raise ScriptError(str(err), span, kind=type(err).__name__) from None

    def expr_Attribute(self, node: syntax.Attribute) -> Code:
        obj = self.compile_expr(node.value)
        attr = node.attr
        span = node.span

        def run(frame: Frame) -> Any:
            o = obj(frame)
            self.current_span = span  # a property such as `.T` runs an op
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
            items = [self.compile_index(e) for e in node.elts]
            return lambda frame: tuple(i(frame) for i in items)
        return self.compile_expr(node)

    def expr_Subscript(self, node: syntax.Subscript) -> Code:
        obj = self.compile_expr(node.value)
        index = self.compile_index(node.index)
        span = node.span

        def run(frame: Frame) -> Any:
            try:
                o, i = obj(frame), index(frame)
                self.current_span = span
                return self.get_item(o, i)
            except GradtraceError as err:
                err.at(span)
                raise

        return run

    def expr_Slice(self, node: syntax.Slice) -> Code:
        return self.compile_index(node)

    def expr_Starred(self, node: syntax.Starred) -> Code:
        raise NotSupportedError("starred expressions are only supported in calls", node.span)

    def expr_Call(self, node: syntax.Call) -> Code:
        func = self.compile_expr(node.func)
        span = node.span
        args = []
        has_star = False
        for a in node.args:
            if isinstance(a, syntax.Starred):
                args.append((True, self.compile_expr(a.value), a.value.span))
                has_star = True
            else:
                args.append((False, self.compile_expr(a), a.span))
        keywords = [(k.arg, self.compile_expr(k.value)) for k in node.keywords]
        if not has_star and not keywords:
            codes = [c for _, c, _ in args]

            def call_simple(frame: Frame) -> Any:
                f = func(frame)
                values = [c(frame) for c in codes]
                self.current_span = span
                return self.call(f, values, {}, span)

            return call_simple

        def call(frame: Frame) -> Any:
            f = func(frame)
            values: list[Any] = []
            for starred, code, arg_span in args:
                if starred:
                    values.extend(self.iterate(code(frame), arg_span))
                else:
                    values.append(code(frame))
            kwargs = {name: code(frame) for name, code in keywords}
            self.current_span = span
            return self.call(f, values, kwargs, span)

        return call

    def expr_UnaryOp(self, node: syntax.UnaryOp) -> Code:
        operand = self.compile_expr(node.operand)
        span = node.span
        if node.op == "not":
            return lambda frame: not self.truth(operand(frame), span)
        fn = UNARY[node.op]

        def run(frame: Frame) -> Any:
            try:
                value = operand(frame)
                self.current_span = span
                return fn(value)
            except GradtraceError as err:
                err.at(span)
                raise
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), span, kind=type(err).__name__) from None

        return run

    def expr_BinOp(self, node: syntax.BinOp) -> Code:
        left = self.compile_expr(node.left)
        right = self.compile_expr(node.right)
        fn = BINOPS[node.op]
        op = node.op
        span = node.span
        apply_op = self.apply_op
        return lambda frame: apply_op(fn, left(frame), right(frame), op, span)

    def apply_op(self, fn: Callable[[Any, Any], Any], a: Any, b: Any, op: str,
                 span: Span) -> Any:
        """A binary operator on script values, with size guards for Python ints/sequences."""
        if type(a) is not Tensor and type(b) is not Tensor:
            self._guard_binop(op, a, b, span)
        self.current_span = span
        try:
            return fn(a, b)
        except GradtraceError as err:
            err.at(span)
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(str(err), span, kind=type(err).__name__) from None

    def _guard_binop(self, op: str, a: Any, b: Any, span: Span) -> None:
        limit = self.limits.max_int_bits
        if op in ("**", "*") and isinstance(a, int) and isinstance(b, int):
            if op == "**" and b > 0 and abs(a) > 1 and b * max(abs(a).bit_length() - 1, 1) > limit:
                raise LimitExceeded(
                    f"{short_int(a)} ** {short_int(b)} would exceed the integer size limit "
                    f"({limit} bits)", span)
            if op == "*" and a.bit_length() + b.bit_length() > limit:
                raise LimitExceeded(f"integer result exceeds the size limit ({limit} bits)", span)
        if op == "*" and (isinstance(a, (str, list, tuple)) and isinstance(b, int) or
                          isinstance(b, (str, list, tuple)) and isinstance(a, int)):
            seq, n = (a, b) if isinstance(b, int) else (b, a)
            if len(seq) * n > self.limits.max_sequence:
                raise LimitExceeded(
                    f"repeating a sequence of {len(seq)} items {n} times exceeds the limit of "
                    f"{self.limits.max_sequence} items (raise it with --max-sequence)", span)
        if op == "+" and isinstance(a, (str, list, tuple)) and type(a) is type(b):
            if len(a) + len(b) > self.limits.max_sequence:
                raise LimitExceeded(
                    f"a sequence longer than {self.limits.max_sequence} items "
                    "(raise the limit with --max-sequence)", span)

    def expr_BoolOp(self, node: syntax.BoolOp) -> Code:
        values = [(self.compile_expr(v), v.span) for v in node.values]
        is_and = node.op == "and"

        def run(frame: Frame) -> Any:
            result = None
            for code, span in values:
                result = code(frame)
                if self.truth(result, span) != is_and:
                    return result
            return result

        return run

    def expr_Compare(self, node: syntax.Compare) -> Code:
        left = self.compile_expr(node.left)
        rest = [(COMPARE[op], self.compile_expr(c)) for op, c in zip(node.ops, node.comparators)]
        span = node.span

        def run(frame: Frame) -> Any:
            a = left(frame)
            result: Any = True
            for i, (fn, code) in enumerate(rest):
                b = code(frame)
                self.current_span = span
                try:
                    result = fn(a, b)
                except GradtraceError as err:
                    err.at(span)
                    raise
                except PYTHON_ERRORS as err:
                    raise ScriptError(str(err), span, kind=type(err).__name__) from None
                if i + 1 < len(rest) and not self.truth(result, span):
                    return result
                a = b
            return result

        return run

    def expr_IfExp(self, node: syntax.IfExp) -> Code:
        test = self.compile_expr(node.test)
        body = self.compile_expr(node.body)
        orelse = self.compile_expr(node.orelse)
        span = node.test.span
        return lambda frame: body(frame) if self.truth(test(frame), span) else orelse(frame)

    def expr_Lambda(self, node: syntax.Lambda) -> Code:
        value = self.compile_expr(node.body)

        def body(frame: Frame) -> None:
            raise ReturnSignal(value(frame))

        return self._function_maker("<lambda>", node.params, body, True)

    def expr_ListExpr(self, node: syntax.ListExpr) -> Code:
        items = self._compile_items(node.elts)
        return lambda frame: list(items(frame))

    def expr_TupleExpr(self, node: syntax.TupleExpr) -> Code:
        items = self._compile_items(node.elts)
        return lambda frame: tuple(items(frame))

    def _compile_items(self, elts: tuple[syntax.Expr, ...]) -> Callable[[Frame], list]:
        codes = [(isinstance(e, syntax.Starred),
                  self.compile_expr(e.value if isinstance(e, syntax.Starred) else e), e.span)
                 for e in elts]

        def items(frame: Frame) -> list:
            out: list = []
            for starred, code, span in codes:
                if starred:
                    out.extend(self.iterate(code(frame), span))
                else:
                    out.append(code(frame))
            return out

        return items

    def expr_DictExpr(self, node: syntax.DictExpr) -> Code:
        pairs = [(self.compile_expr(k), self.compile_expr(v))
                 for k, v in zip(node.keys, node.values)]
        span = node.span

        def run(frame: Frame) -> dict:
            out = {}
            for k, v in pairs:
                key = k(frame)
                if isinstance(key, (list, dict)):
                    raise ScriptError(f"unhashable type: '{type(key).__name__}'", span,
                                      kind="TypeError")
                out[key] = v(frame)
            return out

        return run

    def expr_ListComp(self, node: syntax.ListComp) -> Code:
        elt = self.compile_expr(node.elt)
        gens = [(self.compile_expr(g.iter), self.compile_store(g.target),
                 [(self.compile_expr(c), c.span) for c in g.ifs], g.iter.span)
                for g in node.generators]
        limit = self.limits.max_sequence

        def run(frame: Frame) -> list:
            inner = Frame({}, frame)
            out: list = []

            def loop(level: int) -> None:
                iter_code, store, ifs, span = gens[level]
                source = iter_code(frame if level == 0 else inner)
                for item in self.iterate(source, span):
                    self.tick()
                    store(inner, item)
                    if all(self.truth(c(inner), s) for c, s in ifs):
                        if level + 1 < len(gens):
                            loop(level + 1)
                        else:
                            out.append(elt(inner))
                            if len(out) > limit:
                                raise LimitExceeded(
                                    f"a list of more than {limit} items "
                                    "(raise the limit with --max-sequence)", node.span)

            loop(0)
            return out

        return run

