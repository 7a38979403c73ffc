"""Compiles statements to closures."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import stdlib, syntax
from ..engine.ops import creation
from ..errors import (
    GradtraceError,
    NotSupportedError,
    ScriptError,
)
from ..source import Span
from .operators import INPLACE
from .runtime import (
    BREAK,
    CONTINUE,
    Code,
    Frame,
    ReturnSignal,
    UserFunction,
    run_iteration,
    type_name,
)


class StatementCompiler:
    """Statements: blocks, assignments, control flow, definitions, with/try, imports."""

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
            raise ReturnSignal(value(frame) if value is not None else None)

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
                if not run_iteration(body, frame):
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
                if not run_iteration(body, frame):
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
            if not isinstance(manager, stdlib.CONTEXT_TYPES):
                raise ScriptError(
                    f"'{type_name(manager)}' object does not support the context manager "
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

