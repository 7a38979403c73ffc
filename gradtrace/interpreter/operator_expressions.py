"""Operators: unary, binary (the engine's tensors, numpy's values and script classes'
dunders, with the size guards of `*` and `%` on sequences and text), boolean and
comparison chains."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import syntax
from ..engine.ndarray import NUMPY_TYPES, ndarray, raw, tensor_binop, wrap
from ..engine.tensor import Tensor
from ..errors import (
    GradtraceError,
    LimitExceeded,
    ScriptError,
)
from ..source import Span
from .builtin_classes import inherits_number_dunder, number_operand
from .dunders import _BINARY
from .nesting import HASHED, SET_OPERATORS, check_all_hashable
from .numpy_module import DTYPE_CLASSES
from .objects import (
    BuiltinType,
    Instance,
    script_message,
)
from .operators import BINOPS, COMPARE, NUMBERS, TENSOR_BINOPS, TENSOR_RBINOPS, UNARY
from .runtime import PYTHON_ERRORS, Code, Frame, short_int
from .union_types import is_union_operand, union

SEQUENCES = (str, bytes, list, tuple)  # what `*` repeats and `+` joins: counted first
# a %-format conversion's flags, width and precision (group 1), as printf-style formatting
# reads them
PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?([-#0 +]*[0-9*]*(?:\.[0-9*]*)?)[hlL]?[a-zA-Z%]")
# int operators whose result is no larger than its operands allow (+ and - add a bit at
# most): no size guard to run before them
_UNGUARDED_INT_OPS = frozenset(("+", "-", "/", "&", "|", "^", ">>"))
# and those whose result of two ints under 2**62 is under 2**124: far below any size limit
_SMALL_INT_OPS = frozenset(("*", "//", "%"))
_SMALL = 1 << 62

REFLECTED = {symbol: f"__r{name}__" for name, symbol in _BINARY.items()}
FORWARD = {symbol: f"__{name}__" for name, symbol in _BINARY.items()}


class OperatorCompiler:
    """The Interpreter's mixin for `-x`, `a + b`, `a and b`, `a < b < c`."""

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
