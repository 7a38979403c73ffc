"""Generator functions: a body with `yield` compiles to a Python generator function.

Design: every other closure runs a statement to completion, so a `yield` cannot suspend
one. A generator's body is therefore compiled a second way: each statement that contains
a `yield` (and each block around one: `if`, `for`, `while`, `with`, `try`) becomes a
Python generator function, and blocks run their statements with `yield from`. Python
then keeps the suspended state (loop positions, the frame, open `with` blocks) for us;
statements without a `yield` are compiled as everywhere else and run at full speed, so
only the path to each `yield` pays for suspension. Calling the function binds its
arguments and returns a `ScriptGenerator` around the Python generator; `next()` resumes
it through the interpreter (one call deeper, steps counted as usual).

`yield` is supported as a statement (`yield x`, `yield from xs`) and as the value of an
assignment (`x = yield y`: None, or what `gen.send(v)` sent; `yield from` passes what is
sent on to a script generator it delegates to). `gen.throw(e)` raises e at the suspended
`yield`, `gen.close()` raises GeneratorExit there. A generator that is left suspended does
not run its `finally` blocks when Python collects it (no script code runs then), nor does
one stopped by a limit or a refusal.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from .. import stdlib, syntax
from ..engine.ops import creation
from ..errors import GradtraceError, NotSupportedError, ScriptError, stop_iteration
from .chaining import note_context
from .exception_statements import SCRIPT_FLOW
from .objects import ScriptGenerator, type_name
from .runtime import BreakSignal, ContinueSignal, Frame, ReturnSignal
from .scopes import contains_yield
from .statements import ABORT

GenCode = Callable[[Frame], Iterator[Any]]

# _closing_safe: the generators below name what they catch through closure variables, not
# module globals. A script generator left suspended is closed when Python collects it, which
# can be at interpreter shutdown, after this module's globals are cleared; an `except`
# naming a global would then raise "catching classes that do not inherit from BaseException".


class GeneratorCompiler:
    """The second compilation of statements, for generator bodies."""

    def compile_generator_body(self, body: tuple[syntax.Stmt, ...]) -> GenCode:
        block = self.compile_gen_block(body)
        return_signal, script_error = ReturnSignal, ScriptError  # see _closing_safe

        def run(frame: Frame) -> Iterator[Any]:
            try:
                yield from block(frame)
            except return_signal as ret:
                return ret.value
            except script_error as err:
                if err.kind == "StopIteration":  # PEP 479
                    raise ScriptError("generator raised StopIteration",
                                      kind="RuntimeError") from None
                raise

        return run

    def compile_gen_block(self, body: tuple[syntax.Stmt, ...]) -> GenCode:
        codes = [(True, self.compile_gen_stmt(s)) if contains_yield(s) else
                 (False, self.compile_stmt(s)) for s in body]
        tick = self.tick

        def run(frame: Frame) -> Iterator[Any]:
            for suspends, code in codes:
                tick()
                if suspends:
                    yield from code(frame)
                else:
                    code(frame)

        return run

    def compile_gen_stmt(self, node: syntax.Stmt) -> GenCode:
        method = getattr(self, "gen_" + type(node).__name__, None)  # dispatch on AST type
        if method is None:
            raise NotSupportedError("`yield` is only supported as a statement or as the value "
                                    "of an assignment (`x = yield value`)", node.span)
        code = method(node)
        span, spans, flush, abort, position, key = self.statement_context(node)
        gradtrace_error, script_error, warnings = GradtraceError, ScriptError, creation.WARNINGS
        generator_exit = GeneratorExit  # see _closing_safe

        def run(frame: Frame) -> Iterator[Any]:
            spans.current_span = span
            position[1] = key
            report_warnings = True
            try:
                return (yield from code(frame))
            except gradtrace_error as err:
                err.at(span)
                if not isinstance(err, script_error):
                    abort(err)
                raise
            except generator_exit:  # closed while suspended, perhaps at interpreter shutdown
                report_warnings = False  # when no gradtrace module can be relied on
                raise
            finally:
                if report_warnings and warnings:
                    flush()

        return run

    def _compile_yield(self, node: Any) -> GenCode:
        """`yield value` / `yield from iterable` as a generator whose result is what the
        expression evaluates to (None, or the return value of a delegated generator)."""
        if not isinstance(node, (syntax.Yield, syntax.YieldFrom)):
            raise NotSupportedError("`yield` is only supported as a statement or as the value "
                                    "of an assignment (`x = yield value`)", node.span)
        span = node.span
        spans = self._spans
        if isinstance(node, syntax.Yield):
            value = self.compile_expr(node.value) if node.value is not None else None

            def run_yield(frame: Frame) -> Iterator[Any]:
                sent = yield value(frame) if value is not None else None
                spans.current_span = span  # resumed: what follows is this statement's again
                return sent

            return run_yield
        source = self.compile_expr(node.value)

        resume = self.resume

        def run_from(frame: Frame) -> Iterator[Any]:
            iterable = source(frame)
            result = None
            if type(iterable) is ScriptGenerator:  # its return value is the result
                sent = None
                while True:
                    try:  # one call deeper, as a call would be; what is sent goes on in
                        value = resume(iterable, send=sent)
                    except StopIteration as stop:
                        result = stop.value
                        break
                    sent = yield value
            else:
                yield from self.iterate(iterable, span)
            spans.current_span = span
            return result

        return run_from

    def gen_ExprStmt(self, node: syntax.ExprStmt) -> GenCode:
        return self._compile_yield(node.value)

    def gen_Assign(self, node: syntax.Assign) -> GenCode:
        value = self._compile_yield(node.value)
        stores = [self.compile_store(t, node.span) for t in node.targets]

        def run(frame: Frame) -> Iterator[Any]:
            result = yield from value(frame)
            for store in stores:
                store(frame, result)

        return run

    def gen_AnnAssign(self, node: syntax.AnnAssign) -> GenCode:
        value = self._compile_yield(node.value)
        store = self.compile_store(node.target, node.span)

        def run(frame: Frame) -> Iterator[Any]:
            store(frame, (yield from value(frame)))

        return run

    def gen_If(self, node: syntax.If) -> GenCode:
        test = self.compile_expr(node.test)
        body = self.compile_gen_block(node.body)
        orelse = self.compile_gen_block(node.orelse) if node.orelse else None
        span = node.test.span

        def run(frame: Frame) -> Iterator[Any]:
            if self.truth(test(frame), span):
                yield from body(frame)
            elif orelse is not None:
                yield from orelse(frame)

        return run

    def gen_While(self, node: syntax.While) -> GenCode:
        test = self.compile_expr(node.test)
        body = self.compile_gen_block(node.body)
        orelse = self.compile_gen_block(node.orelse) if node.orelse else None
        span = node.test.span
        break_signal, continue_signal = BreakSignal, ContinueSignal

        def run(frame: Frame) -> Iterator[Any]:
            while self.truth(test(frame), span):
                self.tick()
                try:
                    yield from body(frame)
                except break_signal:
                    return
                except continue_signal:
                    pass
            if orelse is not None:
                yield from orelse(frame)

        return run

    def gen_For(self, node: syntax.For) -> GenCode:
        iterable = self.compile_expr(node.iter)
        store = self.compile_store(node.target)
        body = self.compile_gen_block(node.body)
        orelse = self.compile_gen_block(node.orelse) if node.orelse else None
        span = node.iter.span
        break_signal, continue_signal = BreakSignal, ContinueSignal

        def run(frame: Frame) -> Iterator[Any]:
            for item in self.iterate(iterable(frame), span):
                self.tick()
                store(frame, item)
                try:
                    yield from body(frame)
                except break_signal:
                    return
                except continue_signal:
                    pass
            if orelse is not None:
                yield from orelse(frame)

        return run

    def gen_With(self, node: syntax.With) -> GenCode:
        items = self.compile_with_items(node)
        body = self.compile_gen_block(node.body)
        count = len(items)
        script_error, flow, abort = ScriptError, (ReturnSignal, BreakSignal, ContinueSignal), ABORT

        def run(frame: Frame, index: int = 0) -> Iterator[Any]:
            if index == count:
                yield from body(frame)
                return
            expr, store, span = items[index]
            manager, exit_ = self.enter_context(expr(frame), span)
            try:
                if store is not None:
                    store(frame, manager)
                yield from run(frame, index + 1)
            except script_error as err:
                if not exit_(err):
                    raise
            except flow:
                exit_(None)
                raise
            except BaseException:  # a limit, a refusal, or the generator being closed
                exit_(abort)
                raise
            else:
                exit_(None)

        return run

    def gen_Try(self, node: syntax.Try) -> GenCode:
        body = self.compile_gen_block(node.body)
        handlers = self.compile_handlers(node, self.compile_gen_block)
        orelse = self.compile_gen_block(node.orelse) if node.orelse else None
        final = self.compile_gen_block(node.finalbody) if node.finalbody else None
        report = not self._scope.library
        script_error, script_flow = ScriptError, SCRIPT_FLOW
        noted, forget = note_context, _forget  # see _closing_safe
        interp = self

        def run(frame: Frame) -> Iterator[Any]:
            # as statements.stmt_Try: the error being handled is what a bare `raise`
            # re-raises and what errors raised meanwhile have as __context__
            try:
                try:
                    yield from body(frame)
                except script_error as err:
                    for type_code, name, handler, span in handlers:
                        if type_code is None or self.exception_matches(
                                err, type_code(frame), span, report):
                            interp.handling.append(err)
                            try:
                                if name is not None:
                                    frame.vars[name] = err if err.instance is None \
                                        else err.instance
                                try:
                                    yield from handler(frame)
                                finally:
                                    if name is not None:
                                        frame.vars.pop(name, None)
                            except script_error as new:
                                noted(new, err)
                                raise
                            finally:
                                forget(interp.handling, err)
                            break
                    else:
                        raise
                else:
                    if orelse is not None:
                        yield from orelse(frame)
            except script_flow as flow:
                if final is not None:
                    if isinstance(flow, script_error):
                        interp.handling.append(flow)
                        try:
                            yield from final(frame)
                        except script_error as new:
                            noted(new, flow)
                            raise
                        finally:
                            forget(interp.handling, flow)
                    else:
                        yield from final(frame)
                raise
            else:
                if final is not None:
                    yield from final(frame)

        return run


def _forget(handling: list, err: Any) -> None:
    """Drop `err` from the errors being handled: the last entry, unless the generator was
    suspended in its handler while other code handled errors of its own."""
    for i in range(len(handling) - 1, -1, -1):
        if handling[i] is err:
            del handling[i]
            return


def generator_attribute(interp: Any, gen: ScriptGenerator, name: str) -> Any:
    """`gen.send`, `gen.throw`, `gen.close` as bound methods, and the type slots
    `gen.__next__` and `gen.__iter__` as method-wrappers (JEM's
    `cycle(loader).__next__()`); None for other names."""
    method = _GENERATOR_METHODS.get(name)
    if method is not None:
        return stdlib.BoundMethod(gen, method(interp), name)
    slot = _GENERATOR_SLOTS.get(name)
    return None if slot is None else stdlib.BoundMethod(gen, slot(interp), name, wrapper=True)


def _send(interp: Any) -> Callable[..., Any]:
    def send(gen: ScriptGenerator, value: Any, /) -> Any:
        return _stopped_as_script_error(lambda: interp.resume(gen, send=value))
    return send


def _throw(interp: Any) -> Callable[..., Any]:
    def throw(gen: ScriptGenerator, error: Any, /) -> Any:
        raised = interp.raised_error(
            error, "exceptions must be classes or instances deriving from BaseException, "
                   f"not {type_name(error)}")
        return _stopped_as_script_error(lambda: interp.resume(gen, raised))
    return throw


def _close(interp: Any) -> Callable[..., Any]:
    def close(gen: ScriptGenerator, /) -> None:
        """GeneratorExit at the suspended yield (its except and finally blocks run)."""
        if inspect.getgeneratorstate(gen.gen) in (inspect.GEN_CREATED, inspect.GEN_CLOSED):
            gen.gen.close()
            return
        try:
            interp.resume(gen, ScriptError("", kind="GeneratorExit"))
        except StopIteration:
            return
        except ScriptError as err:
            if err.kind == "GeneratorExit":
                return
            raise
        raise ScriptError("generator ignored GeneratorExit", kind="RuntimeError")
    return close


def _stopped_as_script_error(step: Callable[[], Any]) -> Any:
    """The generator's next value; its return is Python's StopIteration, the script's."""
    try:
        return step()
    except StopIteration as stop:
        raise stop_iteration(stop.value) from None


_GENERATOR_METHODS = {"send": _send, "throw": _throw, "close": _close}


def _next(interp: Any) -> Callable[..., Any]:
    def __next__(gen: ScriptGenerator, /, *args: Any) -> Any:
        """next(gen): the next value, or the script's StopIteration."""
        _no_arguments(args)
        return _stopped_as_script_error(lambda: interp.resume(gen))
    return __next__


def _iter(interp: Any) -> Callable[..., Any]:
    def __iter__(gen: ScriptGenerator, /, *args: Any) -> ScriptGenerator:
        _no_arguments(args)
        return gen
    return __iter__


def _no_arguments(args: tuple) -> None:
    """A type slot's method-wrapper takes no arguments (`g.__next__(1)`)."""
    if args:
        raise ScriptError(f"expected 0 arguments, got {len(args)}", kind="TypeError")


_GENERATOR_SLOTS = {"__next__": _next, "__iter__": _iter}
