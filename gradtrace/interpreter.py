"""Runs a parsed script: compiles each AST node once into a Python closure, then calls it.

Values are plain Python objects (int, float, str, list, tuple, dict, None) plus the
engine's Tensor, Node and DType. Attributes and methods come only from the explicit
tables in `stdlib`; errors carry the span of the expression that raised them.
"""
from __future__ import annotations

import builtins as builtins_module
import operator
import string
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from . import stdlib, syntax
from .engine import anomaly
from .engine.custom_function import FunctionCtx
from .engine.dtypes import DType
from .engine.generator import Generator
from .engine.node import AccumulateGrad, Node
from .engine.ops import creation
from .engine.ops.reductions import ReturnTypes
from .engine.shapes import Size
from .engine.tensor import RemovableHandle, Tensor
from .errors import (
    GradtraceError,
    LimitExceeded,
    NotSupportedError,
    ScriptError,
    TorchTypeError,
)
from .source import Source, Span

Code = Callable[["Frame"], Any]
_FORMATTER = string.Formatter()

# Python exceptions our operations can raise on script values, reported with Python's text.
PYTHON_ERRORS = (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError,
                 OverflowError, AttributeError)


@dataclass
class Limits:
    """Resource limits; each has a CLI option (see `gradtrace run --help`)."""

    timeout: float = 60.0  # seconds of wall time
    max_steps: int = 50_000_000  # statements and loop iterations executed
    max_call_depth: int = 200  # nested calls of script functions
    max_int_bits: int = 100_000  # size of Python integers a script may compute
    max_sequence: int = 10_000_000  # length of strings and lists a script may build
    max_elements: int = 50_000_000  # elements in one tensor
    max_memory: int = 1 << 30  # bytes of live tensor data


@dataclass
class Frame:
    """A scope: `vars` here, then the enclosing scopes, then the builtins."""

    vars: dict[str, Any]
    parent: Frame | None = None


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Any):
        self.value = value


BREAK = _Break()
CONTINUE = _Continue()


@dataclass
class UserFunction:
    """A `def` or `lambda` from the script; Python-callable so hooks and key= work."""

    name: str
    params: tuple[syntax.Param, ...]
    defaults: dict[str, Any]
    body: Code
    closure: Frame
    interpreter: Interpreter = field(repr=False)
    is_lambda: bool = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.interpreter.call_function(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.name} at {id(self):#x}>"

    __hash__ = object.__hash__


def _binop_table() -> dict[str, Callable[[Any, Any], Any]]:
    return {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
        "&": operator.and_, "|": operator.or_, "^": operator.xor,
    }


BINOPS = _binop_table()
INPLACE = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
    "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "@": operator.imatmul,
    "&": operator.iand, "|": operator.ior, "^": operator.ixor,
}
COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert,
         "not": operator.not_}


class Interpreter:
    """One run of one script."""

    def __init__(self, source: Source, stdout: TextIO | None = None,
                 stderr: TextIO | None = None, limits: Limits | None = None):
        self.source = source
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.limits = limits or Limits()
        self.globals = Frame({})
        self.builtins = self._make_builtins()
        self.steps = 0
        self.depth = 0
        self.deadline = 0.0
        # The expression or statement running now: the trace labels the tensors and nodes
        # an op makes with it, so each construct sets its own span after evaluating its
        # operands, just before its operation runs.
        self.current_span: Span | None = None
        self.tracer: Any = None  # a tracing.Tracer while one is attached
        self._warned: set[tuple[str, int]] = set()
        # (function name, call site) of each script function running: anomaly tracebacks
        self.call_stack: list[tuple[str, Span | None]] = []

    # -------------------------------------------------------------- running

    def run(self, module: syntax.Module) -> None:
        """Execute the script; an uncaught script error propagates with its span."""
        code = self.compile_block(module.body)
        self.deadline = time.monotonic() + self.limits.timeout
        creation.WARNINGS.clear()
        anomaly.reset()
        anomaly.STACK = self.format_stack
        # room for max_call_depth nested script calls, each a handful of Python frames
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 2000 + 40 * self.limits.max_call_depth))
        try:
            code(self.globals)
        except (_Break, _Continue):  # the parser only allows these inside loops
            raise NotSupportedError("'break' outside loop") from None
        except _Return:
            raise NotSupportedError("'return' outside function") from None
        except RecursionError:
            raise LimitExceeded(
                "maximum recursion depth exceeded (limit: --max-call-depth)",
                self.current_span) from None
        finally:
            sys.setrecursionlimit(old_limit)
            anomaly.reset()  # the mode is the run's, like grad mode
            anomaly.STACK = None

    def format_stack(self) -> list[str]:
        """The script's call stack as Python's traceback.format_stack prints it."""
        frames = []
        names = ["<module>"] + [name for name, _ in self.call_stack]
        spans = [span for _, span in self.call_stack] + [self.current_span]
        for name, span in zip(names, spans):
            line = span.line if span is not None else 0
            text = self.source.line_text(line).strip()
            frames.append(f'  File "{self.source.name}", line {line}, in {name}\n'
                          + (f"    {text}\n" if text else ""))
        return frames

    def tick(self) -> None:
        """Count a step; enforce the step and time limits."""
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise LimitExceeded(
                f"the script ran more than {self.limits.max_steps} steps "
                "(raise the limit with --max-steps)")
        if not self.steps & 1023 and time.monotonic() > self.deadline:
            raise LimitExceeded(
                f"the script ran longer than {self.limits.timeout:g} s "
                "(raise the limit with --timeout)")

    def warn(self, message: str) -> None:
        """A Python warning: printed once per script line, like Python's default filter."""
        line = self.current_span.line if self.current_span else 0
        if (message, line) in self._warned:
            return
        self._warned.add((message, line))
        text = f"{self.source.name}:{line}: {message}\n"
        src = self.source.line_text(line).strip()
        if src and self.source.name != "<stdin>":
            text += f"  {src}\n"
        self.stderr.write(text)

    def _flush_engine_warnings(self) -> None:
        while creation.WARNINGS:
            self.warn(creation.WARNINGS.pop(0))

    # -------------------------------------------------------------- builtins

    def _make_builtins(self) -> dict[str, Any]:
        limits = self.limits

        def script_print(*args: Any, sep: str | None = " ", end: str | None = "\n") -> None:
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            self.stdout.write(sep.join(str(a) for a in args) + end)

        def check_size(n: int, what: str) -> None:
            if n > limits.max_sequence:
                raise LimitExceeded(
                    f"{what} of {n} items exceeds the limit of {limits.max_sequence} "
                    "(raise it with --max-sequence)")

        def sized(fn: Callable[..., Any], what: str) -> Callable[..., Any]:
            """A builtin that walks its first argument in C: check the length first."""
            def call(*args: Any, **kwargs: Any) -> Any:
                if args:
                    check_size(_length_hint(args[0]), what)
                return fn(*args, **kwargs)

            call.__name__ = fn.__name__
            return call

        def script_format(text: str, *args: Any, **kwargs: Any) -> str:
            """str.format without attribute or index lookups in the fields."""
            for _, field_name, spec, _ in _FORMATTER.parse(text):
                if field_name and any(c in field_name for c in ".["):
                    raise NotSupportedError(
                        f"format field '{{{field_name}}}' is not supported (only positions and "
                        "names; use an f-string)")
                if spec and "{" in spec:
                    raise NotSupportedError("nested format fields are not supported")
            return text.format(*args, **kwargs)

        self.format_method = script_format
        table: dict[str, Any] = dict(stdlib.PLAIN_BUILTINS)
        table.update(stdlib.exception_types())
        table["print"] = script_print
        for name in ("list", "tuple", "dict", "sorted", "sum", "min", "max", "any", "all"):
            table[name] = sized(table.get(name) or getattr(builtins_module, name),
                                f"a {name}() argument")
        return table

    # -------------------------------------------------------------- statements

    def compile_block(self, body: tuple[syntax.Stmt, ...]) -> Code:
        codes = [self.compile_stmt(s) for s in body]
        tick = self.tick

        if len(codes) == 1:
            only = codes[0]

            def run_one(frame: Frame) -> None:
                tick()
                only(frame)

            return run_one

        def run_block(frame: Frame) -> None:
            for code in codes:
                tick()
                code(frame)

        return run_block

    def compile_stmt(self, node: syntax.Stmt) -> Code:
        method = getattr(self, "stmt_" + type(node).__name__)  # internal dispatch on AST type
        code = method(node)
        span = node.span

        def run(frame: Frame) -> None:
            self.current_span = span
            try:
                code(frame)
            except GradtraceError as err:
                err.at(span)
                raise
            finally:
                if creation.WARNINGS:
                    self._flush_engine_warnings()

        return run

    def stmt_ExprStmt(self, node: syntax.ExprStmt) -> Code:
        return self.compile_expr(node.value)

    def stmt_Pass(self, node: syntax.Pass) -> Code:
        return lambda frame: None

    def stmt_Break(self, node: syntax.Break) -> Code:
        def run(frame: Frame) -> None:
            raise BREAK

        return run

    def stmt_Continue(self, node: syntax.Continue) -> Code:
        def run(frame: Frame) -> None:
            raise CONTINUE

        return run

    def stmt_Return(self, node: syntax.Return) -> Code:
        value = self.compile_expr(node.value) if node.value is not None else None

        def run(frame: Frame) -> None:
            raise _Return(value(frame) if value is not None else None)

        return run

    def stmt_Assign(self, node: syntax.Assign) -> Code:
        value = self.compile_expr(node.value)
        stores = [self.compile_store(t, node.span) for t in node.targets]
        if len(stores) == 1:
            store = stores[0]
            return lambda frame: store(frame, value(frame))

        def run(frame: Frame) -> None:
            v = value(frame)
            for store in stores:
                store(frame, v)

        return run

    def stmt_AugAssign(self, node: syntax.AugAssign) -> Code:
        op = INPLACE[node.op]
        value = self.compile_expr(node.value)
        span = node.span
        target = node.target
        if isinstance(target, syntax.Name):
            load = self.compile_expr(target)
            name = target.id

            def run_name(frame: Frame) -> None:
                result = self.apply_op(op, load(frame), value(frame), node.op, span)
                frame.vars[name] = result
                if self.tracer is not None:
                    self.tracer.bind(name, result)

            return run_name
        # the target's read is labelled with the target; the operator and the write with the
        # statement, as apply_op leaves it
        target_span = target.span
        if isinstance(target, syntax.Attribute):
            obj = self.compile_expr(target.value)
            attr = target.attr

            def run_attr(frame: Frame) -> None:
                o = obj(frame)
                self.current_span = target_span
                current = self.get_attribute(o, attr, span)
                self.set_attribute(o, attr, self.apply_op(op, current, value(frame), node.op,
                                                          span))

            return run_attr
        if isinstance(target, syntax.Subscript):
            obj = self.compile_expr(target.value)
            index = self.compile_index(target.index)

            def run_item(frame: Frame) -> None:
                o, i = obj(frame), index(frame)
                self.current_span = target_span
                current = self.get_item(o, i)
                self.set_item(o, i, self.apply_op(op, current, value(frame), node.op, span))

            return run_item
        raise NotSupportedError("illegal expression for augmented assignment", node.span)

    def stmt_If(self, node: syntax.If) -> Code:
        test = self.compile_expr(node.test)
        body = self.compile_block(node.body)
        orelse = self.compile_block(node.orelse) if node.orelse else None

        def run(frame: Frame) -> None:
            if self.truth(test(frame), node.test.span):
                body(frame)
            elif orelse is not None:
                orelse(frame)

        return run

    def stmt_While(self, node: syntax.While) -> Code:
        test = self.compile_expr(node.test)
        body = self.compile_block(node.body)
        orelse = self.compile_block(node.orelse) if node.orelse else None

        def run(frame: Frame) -> None:
            while self.truth(test(frame), node.test.span):
                self.tick()
                if not _run_iteration(body, frame):
                    return
            if orelse is not None:
                orelse(frame)

        return run

    def stmt_For(self, node: syntax.For) -> Code:
        iterable = self.compile_expr(node.iter)
        store = self.compile_store(node.target)
        body = self.compile_block(node.body)
        orelse = self.compile_block(node.orelse) if node.orelse else None
        span = node.iter.span

        def run(frame: Frame) -> None:
            for item in self.iterate(iterable(frame), span):
                self.tick()
                store(frame, item)
                if not _run_iteration(body, frame):
                    return
            if orelse is not None:
                orelse(frame)

        return run

    def stmt_FunctionDef(self, node: syntax.FunctionDef) -> Code:
        make = self._function_maker(node.name, node.params, self.compile_block(node.body),
                                    False)
        name = node.name

        def run(frame: Frame) -> None:
            frame.vars[name] = make(frame)

        return run

    def _function_maker(self, name: str, params: tuple[syntax.Param, ...], body: Code,
                        is_lambda: bool) -> Callable[[Frame], UserFunction]:
        defaults = [(p.name, self.compile_expr(p.default)) for p in params
                    if p.default is not None]

        def make(frame: Frame) -> UserFunction:
            values = {n: d(frame) for n, d in defaults}
            return UserFunction(name, params, values, body, frame, self, is_lambda)

        return make

    def stmt_With(self, node: syntax.With) -> Code:
        items = [(self.compile_expr(i.context_expr),
                  self.compile_store(i.optional_vars) if i.optional_vars is not None else None,
                  i.context_expr.span) for i in node.items]
        body = self.compile_block(node.body)

        def run(frame: Frame, index: int = 0) -> None:
            if index == len(items):
                body(frame)
                return
            expr, store, span = items[index]
            manager = expr(frame)
            if creation.WARNINGS:  # detect_anomaly() warns on the `with` line
                self._flush_engine_warnings()
            if not isinstance(manager, stdlib.CONTEXT_TYPES):
                raise ScriptError(
                    f"'{_type_name(manager)}' object does not support the context manager "
                    "protocol", span, kind="TypeError")
            entered = manager.__enter__()
            try:
                if store is not None:
                    store(frame, entered)
                run(frame, index + 1)
            finally:
                manager.__exit__(None, None, None)

        return run

    def stmt_Try(self, node: syntax.Try) -> Code:
        body = self.compile_block(node.body)
        handlers = [(self.compile_expr(h.type) if h.type is not None else None, h.name,
                     self.compile_block(h.body), h) for h in node.handlers]
        orelse = self.compile_block(node.orelse) if node.orelse else None
        final = self.compile_block(node.finalbody) if node.finalbody else None

        def run(frame: Frame) -> None:
            try:
                try:
                    body(frame)
                except ScriptError as err:
                    for type_code, name, handler, h in handlers:
                        if type_code is None or self.exception_matches(
                                err, type_code(frame), h.span):
                            if name is not None:
                                frame.vars[name] = err
                            handler(frame)
                            break
                    else:
                        raise
                else:
                    if orelse is not None:
                        orelse(frame)
            finally:
                if final is not None:
                    final(frame)

        return run

    def exception_matches(self, err: ScriptError, kind: Any, span: Span) -> bool:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        for k in kinds:
            if not isinstance(k, stdlib.ExceptionType):
                raise ScriptError("catching classes that do not inherit from BaseException is "
                                  "not allowed", span, kind="TypeError")
            if err.matches(k.kind):
                if self.tracer is not None:
                    self.tracer.caught(err, span)
                return True
        return False

    def stmt_Raise(self, node: syntax.Raise) -> Code:
        exc = self.compile_expr(node.exc) if node.exc is not None else None

        def run(frame: Frame) -> None:
            if exc is None:
                raise NotSupportedError("bare 'raise' is not supported; raise an exception")
            value = exc(frame)
            if isinstance(value, stdlib.ExceptionType):
                value = value()
            if not isinstance(value, ScriptError):
                raise ScriptError("exceptions must derive from BaseException", kind="TypeError")
            value.span = None
            raise value

        return run

    def stmt_Assert(self, node: syntax.Assert) -> Code:
        test = self.compile_expr(node.test)
        msg = self.compile_expr(node.msg) if node.msg is not None else None

        def run(frame: Frame) -> None:
            if not self.truth(test(frame), node.test.span):
                text = str(msg(frame)) if msg is not None else ""
                raise ScriptError(text, kind="AssertionError")

        return run

    def stmt_Import(self, node: syntax.Import) -> Code:
        bindings = []
        for alias in node.names:
            module = self._module(alias.name, alias.span)
            if alias.asname:
                bindings.append((alias.asname, module))
            else:
                top = alias.name.split(".")[0]
                bindings.append((top, self._module(top, alias.span)))

        def run(frame: Frame) -> None:
            for name, value in bindings:
                frame.vars[name] = value

        return run

    def stmt_ImportFrom(self, node: syntax.ImportFrom) -> Code:
        module = self._module(node.module, node.span)
        bindings = []
        for alias in node.names:
            if alias.name not in module.table:
                raise NotSupportedError(
                    f"cannot import name '{alias.name}' from '{node.module}' (gradtrace "
                    "supports torch, torch.nn.functional and torch.autograd)", alias.span)
            bindings.append((alias.asname or alias.name, module.table[alias.name]))

        def run(frame: Frame) -> None:
            for name, value in bindings:
                frame.vars[name] = value

        return run

    def _module(self, name: str, span: Span) -> stdlib.Namespace:
        if name not in stdlib.MODULES:
            raise NotSupportedError(
                f"import of '{name}' is not supported (gradtrace scripts may import torch, "
                "torch.nn.functional and torch.autograd)", span)
        return stdlib.MODULES[name]

    # -------------------------------------------------------------- assignment targets

    def compile_store(self, target: syntax.Expr,
                      label: Span | None = None) -> Callable[[Frame, Any], None]:
        """Store into `target`; what the store runs (unpacking a tensor, writing an item or
        an attribute) is labelled with `label`, the `=` statement as for `+=`, else with the
        target (a loop's statement spans its whole body)."""
        label = label or target.span
        if isinstance(target, syntax.Name):
            name = target.id

            def store_name(frame: Frame, value: Any) -> None:
                frame.vars[name] = value
                if self.tracer is not None:
                    self.tracer.bind(name, value)

            return store_name
        if isinstance(target, (syntax.TupleExpr, syntax.ListExpr)):
            stores = [self.compile_store(e, label) for e in target.elts]
            span = target.span
            count = len(stores)

            def store_unpack(frame: Frame, value: Any) -> None:
                items = list(self.iterate(value, span, label))
                if len(items) != count:
                    if len(items) < count:
                        msg = f"not enough values to unpack (expected {count}, got {len(items)})"
                    else:
                        msg = f"too many values to unpack (expected {count})"
                    raise ScriptError(msg, span, kind="ValueError")
                for store, item in zip(stores, items):
                    store(frame, item)

            return store_unpack
        if isinstance(target, syntax.Attribute):
            obj = self.compile_expr(target.value)
            attr = target.attr
            span = target.span

            def store_attr(frame: Frame, value: Any) -> None:
                try:
                    o = obj(frame)
                    self.current_span = label
                    self.set_attribute(o, attr, value)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return store_attr
        if isinstance(target, syntax.Subscript):
            obj = self.compile_expr(target.value)
            index = self.compile_index(target.index)
            span = target.span

            def store_item(frame: Frame, value: Any) -> None:
                try:
                    o, i = obj(frame), index(frame)
                    self.current_span = label
                    self.set_item(o, i, value)
                except GradtraceError as err:
                    err.at(span)
                    raise

            return store_item
        raise NotSupportedError("cannot assign to this expression", target.span)

    # -------------------------------------------------------------- expressions

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
                    f"{_short_int(a)} ** {_short_int(b)} would exceed the integer size limit "
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
            raise _Return(value(frame))

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

    # -------------------------------------------------------------- runtime helpers

    def truth(self, value: Any, span: Span) -> bool:
        try:
            return bool(value)
        except GradtraceError as err:
            err.at(span)
            raise

    def iterate(self, value: Any, span: Span, label: Span | None = None) -> Any:
        """Iterate a script value (a tensor unbinds, like torch's Tensor.__iter__).

        Errors point at `span`; the unbind is labelled with `label` (an assignment's
        statement), else with `span`.
        """
        if isinstance(value, Tensor):
            if value.ndim == 0:
                raise ScriptError("iteration over a 0-d tensor", span, kind="TypeError")
            self.current_span = label or span
            try:
                return iter(value.unbind(0))
            except GradtraceError as err:
                err.at(span)
                raise
        if isinstance(value, (list, tuple, str, range, dict, Size, zip, enumerate)) or \
                type(value).__name__ in ("dict_keys", "dict_values", "dict_items",
                                         "list_reverseiterator", "reversed"):
            return iter(value)
        raise ScriptError(f"'{_type_name(value)}' object is not iterable", span,
                          kind="TypeError")

    def get_item(self, obj: Any, index: Any) -> Any:
        if isinstance(obj, Tensor):
            return obj[index]
        if isinstance(obj, (list, tuple, str, dict, Size, range)):
            try:
                return obj[index]
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err) if not isinstance(err, KeyError) else repr(index),
                                  kind=type(err).__name__) from None
        raise ScriptError(f"'{_type_name(obj)}' object is not subscriptable", kind="TypeError")

    def set_item(self, obj: Any, index: Any, value: Any) -> None:
        if isinstance(obj, Tensor):
            from .engine.ops.views import setitem

            setitem(obj, index, value)
            return
        if isinstance(obj, (list, dict)):
            try:
                obj[index] = value
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None
            return
        raise ScriptError(f"'{_type_name(obj)}' object does not support item assignment",
                          kind="TypeError")

    def get_attribute(self, obj: Any, name: str, span: Span) -> Any:
        """Attribute access through the per-type tables in `stdlib` only."""
        try:
            result = self._get_attribute(obj, name)
        except GradtraceError as err:
            err.at(span)
            raise
        if self.tracer is not None:
            self.tracer.attribute_read(obj, name, result)
        return result

    def _get_attribute(self, obj: Any, name: str) -> Any:
        if isinstance(obj, Tensor):
            getter = stdlib.TENSOR_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            method = stdlib.TENSOR_METHODS.get(name)
            if method is not None:
                return stdlib.BoundMethod(obj, method, name)
            if name in stdlib.NOT_SUPPORTED_METHODS:
                raise NotSupportedError(stdlib.NOT_SUPPORTED_METHODS[name])
            return self._missing(obj, name)
        if isinstance(obj, stdlib.Namespace):
            if name in obj.table:
                return obj.table[name]
            if stdlib.is_private(name):
                raise stdlib.not_supported_attribute(obj, name)
            raise NotSupportedError(f"'{obj.name}.{name}' is not supported by gradtrace")
        if isinstance(obj, FunctionCtx):  # a custom Function's ctx / grad_fn
            return stdlib.ctx_attribute(obj, name)
        if isinstance(obj, Node):
            if name == "variable" and isinstance(obj, AccumulateGrad):
                return obj.variable
            getter = stdlib.NODE_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            method = stdlib.NODE_METHODS.get(name)
            if method is not None:
                return stdlib.BoundMethod(obj, method, name)
            if name.startswith("_saved_"):
                return stdlib.node_saved(obj, name)
            return self._missing(obj, name)
        table: dict[str, Callable[..., Any]] | None = None
        if isinstance(obj, DType):
            getter = stdlib.DTYPE_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
        elif isinstance(obj, ReturnTypes):
            getter = stdlib.RETURN_TYPES_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            table = stdlib.TUPLE_METHODS
        elif isinstance(obj, Size):
            table = stdlib.SIZE_METHODS
        elif isinstance(obj, list):
            table = stdlib.LIST_METHODS
        elif isinstance(obj, tuple):
            table = stdlib.TUPLE_METHODS
        elif isinstance(obj, dict):
            table = stdlib.DICT_METHODS
        elif isinstance(obj, str):
            if name == "format":
                return stdlib.BoundMethod(obj, self.format_method, name)
            table = stdlib.STR_METHODS
        elif isinstance(obj, RemovableHandle):
            table = stdlib.HANDLE_METHODS
        elif isinstance(obj, Generator):
            getter = stdlib.GENERATOR_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            table = stdlib.GENERATOR_METHODS
        elif isinstance(obj, ScriptError) and name == "args":
            return (obj.message,)
        if table is not None and name in table:
            return stdlib.BoundMethod(obj, self._guarded(table[name]), name)
        return self._missing(obj, name)

    def _guarded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Python methods of lists/strings: their errors become the script's errors."""
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None

        return call

    def _missing(self, obj: Any, name: str) -> Any:
        if stdlib.is_private(name):
            raise stdlib.not_supported_attribute(obj, name)
        raise ScriptError(f"'{stdlib.owner_name(obj)}' object has no attribute '{name}'",
                          kind="AttributeError")

    def set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if self.tracer is not None:
            self.tracer.attribute_write(self._set_attribute, obj, name, value)
        else:
            self._set_attribute(obj, name, value)

    def _set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if isinstance(obj, Tensor):
            setter = stdlib.TENSOR_SETTERS.get(name)
            if setter is not None:
                setter(obj, value)
                return
            if name in stdlib.TENSOR_ATTRIBUTES or name in stdlib.TENSOR_METHODS:
                raise ScriptError(
                    f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable",
                    kind="AttributeError")
        if isinstance(obj, FunctionCtx):
            stdlib.set_ctx_attribute(obj, name, value)
            return
        if stdlib.is_private(name):
            raise stdlib.not_supported_attribute(obj, name)
        raise NotSupportedError(
            f"setting attribute '{name}' on {stdlib.owner_name(obj)} is not supported")

    # -------------------------------------------------------------- calls

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], span: Span) -> Any:
        if isinstance(fn, UserFunction):
            return self.call_function(fn, args, kwargs)
        if not _is_callable_value(fn):
            raise ScriptError(f"'{_type_name(fn)}' object is not callable", span,
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
        except (_Return, _Break, _Continue):
            raise
        except RecursionError:
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(_python_message(err), span, kind=type(err).__name__) from None

    def call_function(self, fn: UserFunction, args: Any, kwargs: dict[str, Any]) -> Any:
        frame = Frame(self._bind(fn, args, kwargs), fn.closure)
        self.depth += 1
        self.call_stack.append((fn.name, self.current_span))
        try:
            if self.depth > self.limits.max_call_depth:
                raise ScriptError("maximum recursion depth exceeded", kind="RecursionError")
            fn.body(frame)
        except _Return as ret:
            return ret.value
        finally:
            self.depth -= 1
            # back at the call site: what the caller's engine call does next is labelled there
            self.current_span = self.call_stack.pop()[1]
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


def _run_iteration(body: Code, frame: Frame) -> bool:
    """One pass of a loop body; False when it hit `break`."""
    try:
        body(frame)
    except _Break:
        return False
    except _Continue:
        pass
    return True


def _short_int(n: int) -> str:
    return str(n) if n.bit_length() < 64 else "a large integer"


def _length_hint(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 0


def _is_callable_value(fn: Any) -> bool:
    """Only values the language hands out are callable: engine/builtin functions, methods."""
    return callable(fn) and not isinstance(fn, (Tensor, Node, DType))


def _python_message(err: Exception) -> str:
    return str(err)


def _type_name(value: Any) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, UserFunction):
        return "function"
    if isinstance(value, Node):
        return value.name()
    if value is None:
        return "NoneType"
    return type(value).__name__
