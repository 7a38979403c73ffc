"""One exception hierarchy for everything a user can see go wrong.

Errors raised by the script itself (torch's RuntimeError, Python's TypeError, ...)
are `ScriptError`s: a script's `try/except` can catch them by `kind`. Everything
else (syntax, unsupported features, limits) ends the run.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .source import Source, Span

# Exit statuses of `run`, `explain` and `graph`, documented in the README.
EXIT_OK = 0
EXIT_SCRIPT_ERROR = 1  # the script raised, did not parse, or used an unsupported feature
EXIT_USAGE = 2  # bad option; missing, unreadable or non-UTF-8 script
EXIT_LIMIT = 3  # a resource limit stopped the script

# Python's exception hierarchy, as far as scripts can name it: kind -> parent kind.
EXCEPTION_PARENTS: dict[str, str | None] = {
    "BaseException": None,
    "Exception": "BaseException",
    "ArithmeticError": "Exception",
    "ZeroDivisionError": "ArithmeticError",
    "OverflowError": "ArithmeticError",
    "FloatingPointError": "ArithmeticError",
    "LookupError": "Exception",
    "IndexError": "LookupError",
    "KeyError": "LookupError",
    "RuntimeError": "Exception",
    "NotImplementedError": "RuntimeError",
    "RecursionError": "RuntimeError",
    "TypeError": "Exception",
    "ValueError": "Exception",
    "UnicodeError": "ValueError",  # a codec's (str.encode, bytes.decode, codecs)
    "UnicodeDecodeError": "UnicodeError",
    "UnicodeEncodeError": "UnicodeError",
    "UnicodeTranslateError": "UnicodeError",
    "NameError": "Exception",
    "SyntaxError": "Exception",  # ast.literal_eval's, of text that does not parse
    "UnboundLocalError": "NameError",
    "AttributeError": "Exception",
    "AssertionError": "Exception",
    "StopIteration": "Exception",
    "ImportError": "Exception",
    "ModuleNotFoundError": "ImportError",
    "OSError": "Exception",
    "FileNotFoundError": "OSError",
    "FileExistsError": "OSError",
    "IsADirectoryError": "OSError",
    "NotADirectoryError": "OSError",
    "UnpicklingError": "Exception",  # pickle.UnpicklingError (torch.load's weights_only)
    "GradcheckError": "RuntimeError",  # torch.autograd.gradcheck.GradcheckError
    "_LinAlgError": "RuntimeError",  # torch.linalg.LinAlgError (torch._C._LinAlgError)
    "JSONDecodeError": "ValueError",  # json.JSONDecodeError
    "StatisticsError": "ValueError",  # statistics.StatisticsError
    "ErrorDuringImport": "Exception",  # pydoc.ErrorDuringImport
    "error": "Exception",  # re.error
    "FrozenInstanceError": "AttributeError",  # dataclasses.FrozenInstanceError
    # numpy's, named as an uncaught one prints (each class's __name__ is UFuncTypeError)
    "numpy._core._exceptions.UFuncTypeError": "TypeError",
    "numpy._core._exceptions._UFuncNoLoopError": "numpy._core._exceptions.UFuncTypeError",
    "numpy._core._exceptions._UFuncCastingError": "numpy._core._exceptions.UFuncTypeError",
    "numpy._core._exceptions._UFuncInputCastingError":
        "numpy._core._exceptions._UFuncCastingError",
    "numpy._core._exceptions._UFuncOutputCastingError":
        "numpy._core._exceptions._UFuncCastingError",
    "SystemExit": "BaseException",  # sys.exit(): ends the run with its status (runner.py)
    "GeneratorExit": "BaseException",  # what gen.close() raises at the suspended yield
    # never raised by gradtrace itself, but named by scripts' `except KeyboardInterrupt:`
    # around training loops (Python evaluates the name when another error passes by)
    "KeyboardInterrupt": "BaseException",
    "Warning": "Exception",  # what warnings.warn takes, and raises under an "error" filter
    "TracerWarning": "Warning",  # torch.jit.TracerWarning (torch.jit._trace)
    **{kind: "Warning" for kind in (
        "UserWarning", "DeprecationWarning", "PendingDeprecationWarning", "SyntaxWarning",
        "RuntimeWarning", "FutureWarning", "ImportWarning", "UnicodeWarning", "BytesWarning",
        "ResourceWarning", "EncodingWarning")},
}
# kinds above that are not Python builtins (torch's classes, pickle's)
NOT_BUILTIN_EXCEPTIONS = frozenset({"GradcheckError", "_LinAlgError", "UnpicklingError",
                                    "TracerWarning",
                                    "JSONDecodeError", "StatisticsError", "error",
                                    "FrozenInstanceError", "ErrorDuringImport",
                                    *(kind for kind in EXCEPTION_PARENTS
                                      if kind.startswith("numpy."))})
# how Python's traceback names an uncaught error of the kinds above that live in a module
# (it writes `module.qualname` for any class outside builtins and __main__)
PRINTED_KINDS = {"GradcheckError": "torch.autograd.gradcheck.GradcheckError",
                 "_LinAlgError": "torch._C._LinAlgError",
                 "UnpicklingError": "_pickle.UnpicklingError",
                 "JSONDecodeError": "json.decoder.JSONDecodeError",
                 "StatisticsError": "statistics.StatisticsError",
                 "ErrorDuringImport": "pydoc.ErrorDuringImport",
                 "error": "re.error",
                 "FrozenInstanceError": "dataclasses.FrozenInstanceError"}
# the __name__ of the kinds above whose class shows its base's name
EXCEPTION_NAMES = {kind: "UFuncTypeError" for kind in EXCEPTION_PARENTS
                   if kind.startswith("numpy._core._exceptions.")}


class ExceptionChain:
    """An exception's `__cause__`, `__context__` and `__suppress_context__` (the errors
    themselves; on the script's exception instance when it has one, so that raising it
    again keeps them)."""

    __slots__ = ("cause", "context", "suppress_context")

    def __init__(self) -> None:
        self.cause: ScriptError | None = None
        self.context: ScriptError | None = None
        self.suppress_context = False


CAUSE_LINE = "\nThe above exception was the direct cause of the following exception:\n"
CONTEXT_LINE = "\nDuring handling of the above exception, another exception occurred:\n"
MAX_CHAIN_SHOWN = 100  # links of a chain an uncaught error shows (Python shows them all)


def error_view(err: Any) -> Any:
    """What the script holds for an error: its exception instance, or the error itself."""
    instance = getattr(err, "instance", None)
    return err if instance is None else instance


def exception_chain(err: Any) -> ExceptionChain | None:
    return getattr(error_view(err), "chain", None)


def chained_before(err: Any) -> list[tuple[Any, str]]:
    """The exceptions Python prints before `err` when it is uncaught, earliest first, each
    with the line that leads from it to the next (traceback.TracebackException's walk:
    the cause, else the context unless suppressed; an exception is shown once)."""
    links: list[tuple[Any, str]] = []
    seen = {id(error_view(err))}
    current = err
    while len(links) < MAX_CHAIN_SHOWN:
        chain = exception_chain(current)
        if chain is None:
            break
        if chain.cause is not None:
            after, line = chain.cause, CAUSE_LINE
        elif chain.context is not None and not chain.suppress_context:
            after, line = chain.context, CONTEXT_LINE
        else:
            break
        if id(error_view(after)) in seen:
            break
        seen.add(id(error_view(after)))
        links.append((after, line))
        current = after
    return links[::-1]


class GradtraceError(Exception):
    """Base of every user-facing error: a kind, a message and (once known) a span."""

    kind = "Error"
    note: str | None = None  # a line for the user under the uncaught error, not its message
    # Python's "Did you mean" when uncaught (a NameError's), asked for only then
    suggest: Callable[[], str | None] | None = None

    def __init__(self, message: str, span: Span | None = None, kind: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        if kind is not None:
            self.kind = kind

    def at(self, span: Span | None) -> GradtraceError:
        """Attach the innermost known location (the first one wins)."""
        if self.span is None:
            self.span = span
        return self

    def format(self, source: Source | None = None) -> str:
        """`file:line:col: Kind: message`, the source line and a caret; an exception with
        a cause or context shows those first, joined by Python's lines."""
        parts = []
        for before, line in chained_before(self):
            parts += [before.format_one(source), line]
        parts.append(self.format_one(source))
        return "\n".join(parts)

    @property
    def uncaught_message(self) -> str:
        """The message as Python's last-resort printer shows it: with ". Did you mean:
        'x'?" when it finds a name close to the missing one (interpreter/suggestions.py)."""
        found = self.suggest() if self.suggest is not None else None
        return self.message if found is None else f"{self.message}. Did you mean: '{found}'?"

    @property
    def printed_kind(self) -> str:
        """The kind as Python's traceback names it uncaught (`torch._C._LinAlgError`)."""
        return PRINTED_KINDS.get(self.kind, self.kind)

    def format_one(self, source: Source | None = None) -> str:
        """This error alone: `file:line:col: Kind: message`, the source line, a caret."""
        kind = self.printed_kind
        message = self.uncaught_message
        head = f"{kind}: {message}" if message else kind
        if source is None or self.span is None:
            return head if source is None else f"{source.name}: {head}"
        where = f"{source.name}:{self.span.line}:{self.span.column}"
        snippet = source.snippet(self.span)
        text = f"{where}: {head}\n{snippet}" if snippet.strip() else f"{where}: {head}"
        return text if self.note is None else f"{text}\n{self.note}"


class ScriptError(GradtraceError):
    """An exception raised inside the script (catchable with try/except). One raised from
    an instance of a script's exception class keeps it (`instance`) and the builtin kind its
    class derives from (`root_kind`, what Python's hierarchy matches)."""

    kind = "Exception"
    instance: object = None
    root_kind: str | None = None
    chain: ExceptionChain | None = None  # (when it has no exception instance)

    def __repr__(self) -> str:
        args = getattr(self, "script_args", ())
        if len(args) > 1:  # `ValueError("bad", 3)`
            return f"{self.kind}({', '.join(map(repr, args))})"
        if not self.message:
            return f"{self.kind}()"
        if self.kind == "KeyError":  # its message is already the key's repr
            return f"KeyError({self.message})"
        if self.kind == "SystemExit" and hasattr(self, "code"):  # sys.exit(3): SystemExit(3)
            return f"SystemExit({self.code!r})"
        if self.kind == "StopIteration" and hasattr(self, "value"):  # a generator's return
            return f"StopIteration({self.value!r})"
        return f"{self.kind}({self.message!r})"

    def matches(self, kind: str) -> bool:
        """Whether `except kind:` catches this error, following Python's hierarchy."""
        current: str | None = self.root_kind or self.kind
        while current is not None:
            if current == kind:
                return True
            current = EXCEPTION_PARENTS.get(current, "Exception")
        return False


class TorchRuntimeError(ScriptError):
    kind = "RuntimeError"


class TorchTypeError(ScriptError):
    kind = "TypeError"


class TorchValueError(ScriptError):
    kind = "ValueError"


class TorchIndexError(ScriptError):
    kind = "IndexError"


class GtSyntaxError(GradtraceError):
    """The script does not parse."""

    kind = "SyntaxError"


class NotSupportedError(GradtraceError):
    """Valid Python that gradtrace deliberately does not run."""

    kind = "NotSupportedError"


class LimitExceeded(GradtraceError):
    """A resource limit (time, steps, memory, size) stopped the script."""

    kind = "LimitError"


class ScriptFileError(GradtraceError):
    """SCRIPT could not be read (missing, a directory, a device or FIFO, not UTF-8): a
    usage error (exit status 2), reported before anything ran."""

    kind = "ScriptFileError"

    def format(self, source: Source | None = None) -> str:
        """`file: message` (`file:line: message` for text that is not UTF-8), as the
        command line prints it after `gradtrace: `."""
        where = "" if source is None else source.name
        if self.span is not None:
            where = f"{where}:{self.span.line}"
        return f"{where}: {self.message}" if where else self.message


class InternalError(GradtraceError):
    """A bug in gradtrace itself, reported with the script location instead of a traceback."""

    kind = "InternalError"


def stop_iteration(value: object) -> ScriptError:
    """Python's StopIteration for a generator that returned `value` (its `.value`)."""
    err = ScriptError("" if value is None else str(value), kind="StopIteration")
    if value is not None:
        err.value = value  # type: ignore[attr-defined]
    return err


def os_error(number: int, path: str, kind: str) -> ScriptError:
    """Python's OSError subclass `kind` for a file operation on `path` that failed with the
    error number `number`: `[Errno 17] File exists: 'plots'`, with the `.errno`, `.strerror`
    and `.filename` the `if e.errno != errno.EEXIST: raise` idiom reads, and its args."""
    import os

    strerror = os.strerror(number)
    err = ScriptError(f"[Errno {number}] {strerror}: {path!r}", kind=kind)
    err.script_args = (number, strerror)  # type: ignore[attr-defined]
    err.python_attributes = {  # type: ignore[attr-defined]
        "errno": number, "strerror": strerror, "filename": path, "filename2": None}
    return err
