"""The Interpreter: one run of one script, assembled from its compilers and runtime."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from .. import syntax
from ..engine.ops import creation
from ..errors import LimitExceeded, NotSupportedError
from ..source import Source, Span
from .attributes import Attributes
from .builtins import make_builtins
from .calls import Calls
from .classes import ClassRuntime
from .definitions import DefinitionCompiler
from .displays import DisplayCompiler
from .expressions import ExpressionCompiler
from .generators import GeneratorCompiler
from .library import Library
from .modules import ImportCompiler, make_modules
from .protocols import Protocols
from .runtime import BreakSignal, ContinueSignal, Frame, Limits, ReturnSignal
from .scopes import Scope, module_scope
from .statements import StatementCompiler
from .targets import TargetCompiler
from .typecheck import TypeChecks


class SpanSink:
    """Where library code's closures write `current_span`: nowhere the trace reads, so
    what a library module runs keeps the user's calling line."""

    __slots__ = ("current_span",)

    def __init__(self) -> None:
        self.current_span: Span | None = None


class Interpreter(StatementCompiler, DefinitionCompiler, GeneratorCompiler, ImportCompiler,
                  TargetCompiler, ExpressionCompiler, DisplayCompiler, Protocols, Attributes,
                  ClassRuntime, Calls, TypeChecks):
    """One run of one script (and of the library modules it uses)."""

    def __init__(self, source: Source, stdout: TextIO | None = None,
                 stderr: TextIO | None = None, limits: Limits | None = None):
        self.source = source
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.limits = limits or Limits()
        self.globals = Frame({"__name__": "__main__"})
        self.builtin_types: dict[type, Any] = {}
        self.builtins = make_builtins(self)
        self.modules = make_modules(self)
        self.library = Library(self)
        self.steps = 0
        self.depth = 0
        self.in_library = False  # the code running now is a bundled library module's
        self.deadline = 0.0
        # The expression or statement running now: the trace labels the tensors and nodes
        # an op makes with it, so each construct sets its own span after evaluating its
        # operands, just before its operation runs. Library code never sets it.
        self.current_span: Span | None = None
        self.tracer: Any = None  # a tracing.Tracer while one is attached
        self._warned: set[tuple[str, int]] = set()
        # what is being compiled: the scope, the module's frame and name, where spans go
        self._scope = Scope("module", None)
        self._module_frame = self.globals
        self._module_name = "__main__"
        self._spans: Any = self

    # -------------------------------------------------------------- compiling

    def compile_module(self, body: tuple[syntax.Stmt, ...], frame: Frame, name: str,
                       library: bool) -> Any:
        """Compile a module's statements to run in `frame` (the script's globals, or a
        library module's). Library code is compiled so that it never sets current_span,
        never binds names the tracer sees, and may call intrinsics."""
        saved = (self._scope, self._module_frame, self._module_name, self._spans)
        self._scope = module_scope(body, library)
        self._module_frame, self._module_name = frame, name
        self._spans = SpanSink() if library else self
        try:
            return self.compile_block(body) if body else (lambda frame: None)
        finally:
            self._scope, self._module_frame, self._module_name, self._spans = saved

    # -------------------------------------------------------------- running

    def run(self, module: syntax.Module) -> None:
        """Execute the script; an uncaught script error propagates with its span."""
        code = self.compile_module(module.body, self.globals, "__main__", library=False)
        self.deadline = time.monotonic() + self.limits.timeout
        creation.WARNINGS.clear()
        # room for max_call_depth nested script calls, each a handful of Python frames
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 2000 + 60 * self.limits.max_call_depth))
        try:
            code(self.globals)
        except (BreakSignal, ContinueSignal):  # the parser only allows these inside loops
            raise NotSupportedError("'break' outside loop") from None
        except ReturnSignal:
            raise NotSupportedError("'return' outside function") from None
        except RecursionError:
            raise LimitExceeded(
                "maximum recursion depth exceeded (limit: --max-call-depth)",
                self.current_span) from None
        finally:
            sys.setrecursionlimit(old_limit)

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
