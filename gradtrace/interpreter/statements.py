"""Compiles statements to closures: blocks, assignments, control flow, with/try/raise.
(Definitions are in `definitions.py`, imports in `modules.py`, generator bodies in
`generators.py`.)"""
from __future__ import annotations

from functools import partial
from typing import Any

from .. import progress, stdlib, syntax
from ..engine.ops import creation
from ..errors import GradtraceError, NotSupportedError, ScriptError
from ..source import Span
from .chaining import note_context
from .function_attributes import compile_annotation
from .memory_io import BytesIO
from .objects import ANNOTATED, MISSING, Instance, type_name
from .operators import INPLACE
from .runtime import (
    BREAK,
    CONTINUE,
    BreakSignal,
    Code,
    ContinueSignal,
    Frame,
    ReturnSignal,
    compiled_or_refused,
    run_iteration,
)
from .text_io import StringIO

ABORT: Any = object()  # what a context's exit gets when a limit or refusal ends the run


class StatementCompiler:
    """Statements: blocks, assignments, control flow, with (try, raise and assert:
    exception_statements.py)."""

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
        span, spans, flush, abort, position, key = self.statement_context(node)

        def run(frame: Frame) -> None:
            spans.current_span = span
            position[1] = key
            try:
                code(frame)
            except GradtraceError as err:
                err.at(span)
                if not isinstance(err, ScriptError):
                    abort(err)
                raise
            finally:
                if creation.WARNINGS:
                    flush()

        return run

    def statement_context(self, node: syntax.Stmt) -> tuple[Any, ...]:
        """What a statement's runner binds once: its span, where the current span is kept,
        the warning flush, the abort, and the supervisor's position slot and key (library
        code keeps the user's line, so it writes a slot nobody reads)."""
        span = node.span
        spans = self._spans
        if spans is not self:
            position, key = [0, 0], 0
        else:
            position, key = self.position, progress.position_key(span)
        return span, spans, self._flush_engine_warnings, self.abort, position, key

    def stmt_ExprStmt(self, node: syntax.ExprStmt) -> Code:
        return self.compile_expr(node.value)

    def stmt_Pass(self, node: syntax.Pass) -> Code:
        return lambda frame: None

    stmt_Global = stmt_Nonlocal = stmt_Pass  # decided when compiling (scopes.py)

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

    def stmt_AnnAssign(self, node: syntax.AnnAssign) -> Code:
        """`x: T = v` is `x = v`; `x: T` does nothing, except that a class body records the
        names it annotates, in order (the fields a `@dataclass` makes), each with what
        evaluates its annotation (`Cls.__annotations__`, when read)."""
        record = None
        if self._scope.kind == "class" and isinstance(node.target, syntax.Name):
            field = node.target.id
            annotation = compile_annotation(self, node.annotation)

            def record(frame: Frame) -> None:  # (evaluated when read: function_attributes)
                frame.vars.setdefault(ANNOTATED, {})[field] = partial(annotation, frame)
        if node.value is None:
            return record if record is not None else self.stmt_Pass(node)
        value = self.compile_expr(node.value)
        store = self.compile_store(node.target, node.span)
        if record is None:
            return lambda frame: store(frame, value(frame))

        def run(frame: Frame) -> None:
            store(frame, value(frame))
            record(frame)

        return run

    def stmt_AugAssign(self, node: syntax.AugAssign) -> Code:
        op = INPLACE[node.op]
        value = self.compile_expr(node.value)
        span = node.span
        target = node.target
        spans = self._spans
        apply_op = self.apply_op
        symbol = node.op
        if isinstance(target, syntax.Name):
            load = self.compile_expr(target)
            store = self.compile_store(target, span)

            def run_name(frame: Frame) -> None:
                current = load(frame)
                operand = value(frame)
                spans.current_span = span
                store(frame, apply_op(op, current, operand, symbol, span))

            return run_name
        # the target's read is labelled with the target; the operator and the write with the
        # statement
        target_span = target.span
        if isinstance(target, syntax.Attribute):
            obj = self.compile_expr(target.value)
            attr = self.mangled(target.attr)

            def run_attr(frame: Frame) -> None:
                o = obj(frame)
                spans.current_span = target_span
                current = self.get_attribute(o, attr, span)
                operand = value(frame)
                spans.current_span = span
                self.set_attribute(o, attr, apply_op(op, current, operand, symbol, span))

            return run_attr
        if isinstance(target, syntax.Subscript):
            obj = self.compile_expr(target.value)
            index = self.compile_index(target.index)

            def run_item(frame: Frame) -> None:
                o, i = obj(frame), index(frame)
                spans.current_span = target_span
                current = self.get_item(o, i)
                operand = value(frame)
                spans.current_span = span
                self.set_item(o, i, apply_op(op, current, operand, symbol, span))

            return run_item
        raise NotSupportedError("illegal expression for augmented assignment", node.span)

    def stmt_Delete(self, node: syntax.Delete) -> Code:
        deletes = [self.compile_delete(t) for t in node.targets]

        def run(frame: Frame) -> None:
            for delete in deletes:
                delete(frame)

        return run

    def stmt_If(self, node: syntax.If) -> Code:
        test = self.compile_expr(node.test)
        if _is_type_checking(node.test):
            body = self._type_checking_block(node.body)
        else:
            body = self.compile_block(node.body)
        orelse = self.compile_block(node.orelse) if node.orelse else None
        span = node.test.span

        def run(frame: Frame) -> None:
            if self.truth(test(frame), span):
                body(frame)
            elif orelse is not None:
                orelse(frame)

        return run

    def _type_checking_block(self, body: tuple[syntax.Stmt, ...]) -> Code:
        """`if TYPE_CHECKING:`'s block, which only type checkers read: what gradtrace
        refuses in it (imports of modules it lacks) is refused when it runs, not before."""
        return compiled_or_refused(self.compile_block, body, NotSupportedError)

    def stmt_While(self, node: syntax.While) -> Code:
        test = self.compile_expr(node.test)
        body = self.compile_block(node.body)
        orelse = self.compile_block(node.orelse) if node.orelse else None
        span = node.test.span

        def run(frame: Frame) -> None:
            while self.truth(test(frame), span):
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

    def compile_with_items(self, node: syntax.With) -> list[tuple[Code, Any, Span | None]]:
        return [(self.compile_expr(i.context_expr),
                 self.compile_store(i.optional_vars) if i.optional_vars is not None else None,
                 i.context_expr.span) for i in node.items]

    def stmt_With(self, node: syntax.With) -> Code:
        items = self.compile_with_items(node)
        body = self.compile_block(node.body)
        count = len(items)
        with_span = None  # where Python's traceback places the __exit__ call: the `with`
        if node.span is not None:  # line, without carets
            text = self.source.line_text(node.span.line).rstrip()
            with_span = Span(node.span.line, node.span.column, node.span.line,
                             len(text) + 1)

        def run(frame: Frame, index: int = 0) -> None:
            if index == count:
                body(frame)
                return
            expr, store, span = items[index]
            manager, exit_ = self.enter_context(expr(frame), span)
            try:
                if store is not None:
                    store(frame, manager)
                run(frame, index + 1)
            except ScriptError as err:
                if with_span is not None:
                    self.current_span = with_span
                    self.pin_frame(err)
                try:
                    suppressed = exit_(err)
                except ScriptError as new:  # __exit__ raised while err was in flight
                    note_context(new, err)
                    raise
                if not suppressed:
                    raise
            except (ReturnSignal, BreakSignal, ContinueSignal):
                if with_span is not None and type(manager) is Instance:
                    self.current_span = with_span
                exit_(None)
                raise
            except BaseException:
                exit_(ABORT)  # a limit or refusal ends the run: no script code runs now
                raise
            else:
                # a script's or library's __exit__ (assertRaises' "not raised") is called
                # from the `with` line, as its traceback shows; torch's own managers'
                # events (grad mode on again) stay with the block's last statement, the
                # visit the views tell them in
                if with_span is not None and type(manager) is Instance:
                    self.current_span = with_span
                exit_(None)

        return run

    def enter_context(self, manager: Any, span: Span | None) -> tuple[Any, Any]:
        """Enter a context manager: grad-mode managers, or an instance with `__enter__`
        and `__exit__`. Returns what `as` binds and the exit function, which takes the
        script error in flight (or None) and says whether the error is suppressed."""
        if creation.WARNINGS:  # detect_anomaly() warns on the `with` line
            self._flush_engine_warnings()
        if isinstance(manager, (*stdlib.CONTEXT_TYPES, BytesIO, StringIO)):
            entered = manager.__enter__()

            def exit_native(err: Any) -> bool:
                manager.__exit__(None, None, None)
                return False

            return entered, exit_native
        if type(manager) is Instance:
            enter, leave = manager.cls.lookup("__enter__"), manager.cls.lookup("__exit__")
            if enter is not MISSING and leave is not MISSING:
                entered = self.call_bound(enter, manager, ())

                def exit_script(err: Any) -> bool:
                    if err is ABORT:
                        return False
                    if err is None:
                        self.call_bound(leave, manager, (None, None, None))
                        return False
                    if err.instance is not None:  # an instance of a script's exception
                        kind, value = err.instance.cls, err.instance
                    else:
                        kind, value = self.builtins.get(
                            err.kind, stdlib.ExceptionType(err.kind)), err
                    return self.truth(self.call_bound(leave, manager, (kind, value, None)),
                                      span)

                return entered, exit_script
        raise ScriptError(f"'{type_name(manager)}' object does not support the context manager "
                          "protocol", span, kind="TypeError")


def _is_type_checking(test: syntax.Expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING` as an `if`'s whole test."""
    return isinstance(test, syntax.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, syntax.Attribute) and test.attr == "TYPE_CHECKING"
