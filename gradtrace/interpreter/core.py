"""The Interpreter: one run of one script, assembled from its compilers and runtime."""
from __future__ import annotations

import sys
import threading
import weakref
from typing import Any, TextIO

from .. import progress, stdlib, syntax, torch_namespace
from ..engine import anomaly, dtypes, forward_ad, jit, saved_hooks, settings
from ..engine.backward import CHECKPOINT_VALID
from ..engine.batching import TRANSFORMS
from ..engine.device import DEFAULT as DEFAULT_DEVICE
from ..engine.ops import creation
from ..errors import GradtraceError, GtSyntaxError, LimitExceeded, NotSupportedError, ScriptError
from ..source import Source, Span
from . import nesting, numpy_module, torch_function_protocol
from .attribute_writes import AttributeWrites
from .attributes import Attributes, TensorDicts
from .builtins import make_builtins
from .calls import Calls
from .class_attributes import ClassAttributes
from .classes import ClassRuntime
from .definitions import DefinitionCompiler
from .displays import DisplayCompiler
from .exception_statements import ExceptionCompiler
from .expressions import ExpressionCompiler
from .generators import GeneratorCompiler
from .library import Library
from .matching import MatchCompiler
from .modules import ImportCompiler, make_modules
from .operator_expressions import OperatorCompiler
from .protocols import Protocols
from .pure_modules import Abstracts
from .runtime import BREAK, CONTINUE, BreakSignal, ContinueSignal, Frame, Limits, ReturnSignal
from .scopes import Scope, module_scope
from .statements import StatementCompiler
from .targets import TargetCompiler
from .tensor_class_attributes import TensorClassAttributes
from .text_io import ScriptStream
from .type_attributes import TypeAttributes
from .typecheck import TypeChecks
from .warning_filters import Warnings


class SpanSink:
    """Where library code's closures write `current_span`: nowhere the trace reads, so
    what a library module runs keeps the user's calling line."""

    __slots__ = ("current_span",)

    def __init__(self) -> None:
        self.current_span: Span | None = None


def _reset_run_state() -> None:
    """The engine's process-wide modes are a run's own, like grad mode: each run starts and
    ends with them at torch's defaults (an error or a limit may leave some set)."""
    anomaly.reset()
    DEFAULT_DEVICE.reset()  # set_default_device's and `with torch.device(...)` blocks'
    dtypes.reset_default_dtype()
    saved_hooks.reset()  # hooks a run pushed
    settings.reset()  # threads and print options
    numpy_module.reset_formatter()  # a script's np.set_printoptions(formatter=...)
    torch_namespace.reset_backend_flags()  # the torch.backends switches
    forward_ad.reset()  # a dual level
    jit.reset()  # a torch.jit graph's run (an error may end one midway)
    TRANSFORMS.reset()  # torch.func's vmap and grad levels
    CHECKPOINT_VALID.clear()  # reentrant checkpoints' backward passes
    # `break`/`continue` raise one shared instance each; the last raise left its traceback,
    # and with it the run's frames and every value they hold, on the instance
    BREAK.__traceback__ = CONTINUE.__traceback__ = None


class Interpreter(StatementCompiler, ExceptionCompiler, DefinitionCompiler, GeneratorCompiler,
                  ImportCompiler, TargetCompiler, ExpressionCompiler, OperatorCompiler,
                  DisplayCompiler, MatchCompiler, Protocols, Attributes, AttributeWrites,
                  TypeAttributes, ClassRuntime, ClassAttributes, Calls, TypeChecks):
    """One run of one script (and of the library modules it uses)."""

    def __init__(self, source: Source, stdout: TextIO | None = None,
                 stderr: TextIO | None = None, limits: Limits | None = None):
        self.source = source
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.limits = limits or Limits()
        self.globals = Frame({"__name__": "__main__"})
        self.builtin_types: dict[type, Any] = {}
        self.namedtuple_classes: set[type] = set()  # the classes the script's namedtuple() made
        # a `class P(NamedTuple)` body's methods, properties and constants, by class
        self.namedtuple_extras: dict[type, dict[str, Any]] = {}
        # the base class of a script class deriving from each namedtuple class (made once)
        self.namedtuple_bases: dict[type, Any] = {}
        self.protocol_classes: set[Any] = set()  # classes naming `Protocol` as a base
        torch_function_protocol.reset(self)  # (a run starts with __torch_function__ on)
        self.runtime_protocols: set[Any] = set()  # those @runtime_checkable marks
        # generic classes (Generic[T] among the bases): their type parameters, and the
        # aliases `Box[int]` made of them (typing caches them: `Box[int] is Box[int]`)
        self.generic_classes: dict[Any, tuple[Any, ...]] = {}
        self.generic_aliases: dict[tuple[int, Any], Any] = {}
        self.orig_bases: dict[Any, tuple[Any, ...]] = {}  # classes with typing aliases as bases
        # collections.abc's and numbers' classes: (module, name) (abc_checks.py)
        self.abc_kinds: dict[Any, tuple[str, str]] = {}
        self.abc_registry: dict[Any, list[Any]] = {}  # ABC.register's virtual subclasses
        self.tensor_descriptors: dict[str, Any] = {}  # `torch.Tensor.add`, one per name
        self.abc_registry_bases: set[Any] = set()  # the registering classes and their bases
        self.stderr_stream = ScriptStream("stderr", self.stderr)  # sys.stderr
        self.warnings = Warnings(self)  # the warnings filters and where warnings go
        self.builtins = make_builtins(self)
        self.run_folders: set[str] = set()  # the folders os.makedirs made (os_module.py)
        # the script as a module (`sys.modules[__name__]`, d2l's `d2l = sys.modules[...]`):
        # its attributes are the module's variables, live
        self.script_module = stdlib.Namespace("__main__", self.globals.vars)
        self.modules = make_modules(self)
        # names `from M import *` bound under torch that gradtrace lacks: (M, name), refused
        # where the script reads them (expressions.py's NameError path)
        self.star_unsupported: dict[str, tuple[Any, str]] = {}
        self.library = Library(self)
        self.tensor_dicts = TensorDicts()  # what the script stores on tensors (`t.g = ...`)
        self.tensor_class_attributes = TensorClassAttributes()  # `torch.Tensor.ndim = ...`
        # names the script adds to library modules (`nn.MaskedLinear = MaskedLinear`), by
        # module name: new names only, as the modules' own code never reads them
        self.module_attributes: dict[str, dict[str, Any]] = {}
        self.module_dicts: dict[int, Any] = {}  # each module's __dict__ view (module_dicts.py)
        self.saved_files: dict[str, Any] = {}  # torch.save's files, by name (serialization.py)
        self.steps = 0
        # tick() compares steps with step_cap only: the deadline timer and an abort lower
        # the cap, so neither costs a clock read per step nor waits for 1024 slow steps
        self.step_cap = self.limits.max_steps
        self.expired = False  # --timeout has passed
        self.aborted: GradtraceError | None = None  # a limit or refusal that ends the run
        self.depth = 0
        self.in_library = False  # the code running now is a bundled library module's
        self.position = progress.STATE  # where a supervisor reads the statement running
        # The expression or statement running now: the trace labels the tensors and nodes
        # an op makes with it, so each construct sets its own span after evaluating its
        # operands, just before its operation runs. Library code never sets it.
        self.current_span: Span | None = None
        self.tracer: Any = None  # a tracing.Tracer while one is attached
        # (function name, its call site, library code?) of each function or generator body
        # running: calls restore the call site's span on return; anomaly mode's tracebacks
        self.call_stack: list[tuple[str, Span | None, bool]] = []
        # the frame of the innermost script function running (the module's at the top
        # level): inspect.currentframe(), whose f_back each call sets (frame_objects.py)
        self.running_frame: Frame = self.globals
        # the frame each of those frame objects (lib/inspect.gt's `frame`) stands for
        self.frame_objects: weakref.WeakKeyDictionary[Any, Frame] = weakref.WeakKeyDictionary()
        # the engine's AutogradFunction of each torch.autograd.Function subclass used
        self.autograd_functions: dict[Any, Any] = {}
        # the exceptions the running `except` handlers are handling, innermost last
        self.handling: list[Any] = []
        self.context_exits: list[Any] = []  # the exits of contexts an ExitStack entered
        self.abstracts = Abstracts()  # the functions @abc.abstractmethod marked
        self.slot_cache: dict[Any, Any] = {}  # each class's __slots__ names (slots.py)
        # what each class body annotates, and the annotations once read (`__annotations__`)
        self.class_annotations: dict[Any, dict[str, Any]] = {}
        self.class_annotation_values: dict[Any, dict[str, Any]] = {}
        self._warned_once: set[tuple[str, str]] = set()
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

    def compile_evaluated(self, text: str) -> Any:
        """The code of an expression a script hands to `eval`, compiled as the script's
        own code (every name looked up through the frames it runs in), attributed to the
        `eval` call's line; a syntax error in it is the call's."""
        from ..parser import parse_evaluated

        span = self.current_span
        try:
            expr = parse_evaluated(text, span)
        except GtSyntaxError as err:  # raised by the call, as Python's: a script catches it
            raise ScriptError(err.message, span, kind="SyntaxError") from None
        saved = (self._scope, self._spans)
        self._scope = Scope("module", None)
        self._spans = SpanSink()
        try:
            return self.compile_expr(expr)
        finally:
            self._scope, self._spans = saved

    # -------------------------------------------------------------- running

    def run(self, module: syntax.Module) -> None:
        """Execute the script; an uncaught script error propagates with its span."""
        code = self.compile_module(module.body, self.globals, "__main__", library=False)
        creation.WARNINGS.clear()
        _reset_run_state()
        anomaly.STACK = self.format_stack
        # room for max_call_depth nested script calls, each a handful of Python frames,
        # as far as the C stack holds them (deep values recurse in C: see nesting.py)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, nesting.reserve_stack(
            2000 + 60 * self.limits.max_call_depth)))
        timer = threading.Timer(self.limits.timeout, self._expire)
        timer.daemon = True
        timer.start()
        try:
            code(self.globals)
            if self.aborted is not None:  # swallowed by something that is not the script's
                raise self.aborted
        except (BreakSignal, ContinueSignal):  # the parser only allows these inside loops
            raise NotSupportedError("'break' outside loop") from None
        except ReturnSignal:
            raise NotSupportedError("'return' outside function") from None
        except RecursionError:
            raise LimitExceeded(
                "maximum recursion depth exceeded (limit: --max-call-depth)",
                self.current_span) from None
        finally:
            timer.cancel()
            timer.join()  # gone before the views are made (cancel only wakes it)
            sys.setrecursionlimit(old_limit)
            _reset_run_state()
            anomaly.STACK = None

    def format_stack(self) -> list[str]:
        """The script's call stack as Python's traceback.format_stack prints it (library
        frames left out: they stand for torch's own Python, which has other files)."""
        frames = [("<module>", False)] + [(name, library) for name, _, library in
                                          self.call_stack]
        spans = [span for _, span, _ in self.call_stack] + [self.current_span]
        out = []
        for (name, library), span in zip(frames, spans):
            if library:
                continue
            line = span.line if span is not None else 0
            text = self.source.line_text(line).strip()
            out.append(f'  File "{self.source.python_name}", line {line}, in {name}\n'
                       + (f"    {text}\n" if text else ""))
        return out

    def _expire(self) -> None:
        """The deadline timer (a thread: it runs at the next switch interval, between two
        bytecodes of however slow a step; a single C call that holds the interpreter lock
        is the command line supervisor's to end)."""
        self.expired = True
        self.step_cap = -1

    def tick(self) -> None:
        """Count a step; enforce the step and time limits, and keep an abort going."""
        self.steps += 1
        if self.steps > self.step_cap:
            self._over_limit()

    def _over_limit(self) -> None:
        if self.aborted is not None:
            raise self.aborted
        if self.expired:
            error = LimitExceeded(f"the script ran longer than {self.limits.timeout:g} s "
                                  "(raise the limit with --timeout)")
        else:
            error = LimitExceeded(f"the script ran more than {self.limits.max_steps} steps "
                                  "(raise the limit with --max-steps)")
        self.abort(error)
        raise error

    def abort(self, error: GradtraceError) -> None:
        """A limit or refusal ends the run: no construct may swallow it (a `finally` that
        continues, a generator's `finally`, library code), so every later step raises it
        again."""
        if self.aborted is None:
            self.aborted = error
            self.step_cap = -1

    def warn(self, message: str, module: str = "__main__", where: int | None = None) -> None:
        """A Python warning (`Category: text`) at the script line running now, through
        the script's warnings filters (shown once per line by Python's default filter;
        `module` and `where` say the torch module and line it comes from, if not the
        script's)."""
        line = self.current_span.line if self.current_span else 0
        self.warnings.emit_text(message, line, module, where)

    def warn_once(self, message: str, where: str = "", per_place: bool = False) -> None:
        """A warning torch raises with its own code as the location: Python's filter shows
        it once per run for each place in torch (`where`), at the first user line;
        `per_place`: a TORCH_WARN_ONCE, shown once whatever its message."""
        key = ("", where) if per_place else (message, where)
        if key in self._warned_once:
            return
        self._warned_once.add(key)
        self.warn(message)

    def _flush_engine_warnings(self) -> None:
        while creation.WARNINGS:
            message = creation.WARNINGS.pop(0)
            if isinstance(message, creation.OnceWarning):
                self.warn_once(message, message.where)
            elif isinstance(message, creation.PlacedWarning):
                self.warn(message, message.module, message.line)
            else:
                self.warn(message)
