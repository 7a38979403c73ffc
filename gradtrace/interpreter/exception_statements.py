"""`try`/`except`/`else`/`finally`, `raise` (with `from`) and `assert`: how a script's
exceptions are raised, matched against their handlers and chained."""
from __future__ import annotations

from typing import Any

from .. import stdlib, syntax
from ..errors import ScriptError
from ..source import Span
from .chaining import note_context, set_cause, set_context
from .exception_classes import instance_error
from .objects import Instance, ScriptClass
from .runtime import (
    BreakSignal,
    Code,
    ContinueSignal,
    Frame,
    ReturnSignal,
)

# what may run a `finally` block: the script's own exceptions and control flow. Anything
# else (a limit, a refusal, a generator being closed) ends the run with no script code run.
SCRIPT_FLOW = (ScriptError, BreakSignal, ContinueSignal, ReturnSignal)


class ExceptionCompiler:
    """The Interpreter's mixin for `try`, `raise` and `assert`."""

    def compile_handlers(self, node: syntax.Try, block: Any = None
                         ) -> list[tuple[Any, Any, Any, Span | None]]:
        """(type, name, body, span) of each except clause; bodies compiled by `block`."""
        block = block or self.compile_block
        return [(self.compile_expr(h.type) if h.type is not None else None,
                 self.mangled(h.name) if h.name is not None else None,
                 block(h.body), h.span) for h in node.handlers]

    def pin_frame(self, err: ScriptError) -> None:
        """An error the script's code handles (an `except`, a `with`'s __exit__) in the frame
        that raised it: that frame is its traceback's one entry, for a chain printed later
        from elsewhere (traceback_module.format_error)."""
        if getattr(err, "frames", None) is None:
            err.frames = [(self.call_stack[-1][0] if self.call_stack else "<module>",
                           err.span)]

    def stmt_Try(self, node: syntax.Try) -> Code:
        body = self.compile_block(node.body)
        handlers = self.compile_handlers(node)
        orelse = self.compile_block(node.orelse) if node.orelse else None
        final = self.compile_block(node.finalbody) if node.finalbody else None
        report = not self._scope.library  # library code's own catches are not the script's

        def run(frame: Frame) -> None:
            try:
                try:
                    body(frame)
                except ScriptError as err:
                    for type_code, name, handler, span in handlers:
                        if type_code is None or self.exception_matches(
                                err, type_code(frame), span, report):
                            self.handling.append(err)  # what a bare `raise` re-raises
                            if report:
                                self.pin_frame(err)
                            try:
                                if name is None:
                                    handler(frame)
                                else:
                                    frame.vars[name] = err if err.instance is None \
                                        else err.instance
                                    try:
                                        handler(frame)
                                    finally:
                                        frame.vars.pop(name, None)  # as Python's `del name`
                            except ScriptError as new:  # raised while handling err
                                note_context(new, err)
                                raise
                            finally:
                                self.handling.pop()
                            break
                    else:
                        raise
                else:
                    if orelse is not None:
                        orelse(frame)
            except SCRIPT_FLOW as flow:
                if final is not None:
                    if isinstance(flow, ScriptError):  # handled while `finally` runs
                        self.handling.append(flow)
                        try:
                            final(frame)
                        except ScriptError as new:
                            note_context(new, flow)
                            raise
                        finally:
                            self.handling.pop()
                    else:
                        final(frame)
                raise
            else:
                if final is not None:
                    final(frame)

        return run

    def exception_matches(self, err: ScriptError, kind: Any, span: Span | None,
                          report: bool = True) -> bool:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        for k in kinds:
            if type(k) is ScriptClass and k.exception_kind is not None:  # a script's class
                if err.instance is not None and k in err.instance.cls.mro:
                    if report and self.tracer is not None:
                        self.tracer.caught(err, span)
                    return True
                continue
            if not isinstance(k, stdlib.ExceptionType):
                raise ScriptError("catching classes that do not inherit from BaseException is "
                                  "not allowed", span, kind="TypeError")
            if err.matches(k.kind):
                if report and self.tracer is not None:
                    self.tracer.caught(err, span)
                return True
        return False

    def stmt_Raise(self, node: syntax.Raise) -> Code:
        exc = self.compile_expr(node.exc) if node.exc is not None else None
        cause = self.compile_expr(node.cause) if node.cause is not None else None

        def run(frame: Frame) -> None:
            if exc is None:  # bare `raise`: the exception the innermost handler is handling
                if not self.handling:
                    raise ScriptError("No active exception to reraise", kind="RuntimeError")
                raise self.handling[-1]
            value = self.raised_error(exc(frame), "exceptions must derive from BaseException")
            if cause is not None:  # `raise value from why`
                set_cause(value, self._exception_cause(cause(frame)))
            if self.handling:  # raised while handling another: its __context__
                set_context(value, self.handling[-1])
            value.span = None
            raise value

        return run

    def raised_error(self, value: Any, refusal: str) -> ScriptError:
        """The error `raise value` raises (an exception class is called first, `raise
        StopTraining`); TypeError(`refusal`) for a value that is no exception."""
        if isinstance(value, stdlib.ExceptionType):
            value = value()
        elif type(value) is ScriptClass and value.exception_kind is not None:
            value = self.instantiate(value, [], {})
        if type(value) is Instance and value.cls.exception_kind is not None:
            value = instance_error(value)
        if not isinstance(value, ScriptError):
            raise ScriptError(refusal, kind="TypeError")
        return value

    def _exception_cause(self, why: Any) -> ScriptError | None:
        """The cause `raise ... from why` names: None, an exception, or an exception class
        (called, as Python calls it)."""
        if why is None:
            return None
        if isinstance(why, stdlib.ExceptionType):
            why = why()
        elif type(why) is ScriptClass and why.exception_kind is not None:
            why = self.instantiate(why, [], {})
        if type(why) is Instance and why.cls.exception_kind is not None:
            return instance_error(why)
        if isinstance(why, ScriptError):
            return why
        raise ScriptError("exception causes must derive from BaseException", kind="TypeError")

    def stmt_Assert(self, node: syntax.Assert) -> Code:
        test = self.compile_expr(node.test)
        msg = self.compile_expr(node.msg) if node.msg is not None else None
        span = node.test.span

        def run(frame: Frame) -> None:
            if not self.truth(test(frame), span):
                text = str(msg(frame)) if msg is not None else ""
                raise ScriptError(text, kind="AssertionError")

        return run
