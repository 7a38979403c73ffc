"""`warnings`, `sys` and `time` as scripts see them.

- `warnings`: warn / filterwarnings / simplefilter / resetwarnings / formatwarning here
  (they need the call stack and the run's filters, warning_filters.py); catch_warnings and
  WarningMessage are bundled library code (gradtrace/lib/warnings.gt).
- `sys`: what scripts use without leaving the sandbox: exit (a SystemExit the runner turns
  into the run's exit status), stdout/stderr (the run's captured streams), argv (the
  script's name only), version_info/version/platform of the Python running gradtrace,
  maxsize, float_info; `modules` (set by modules.make_modules once every module exists:
  those a script may import, and the script's own `__main__`). Everything else (`sys.path`,
  `_getframe`, `setrecursionlimit`, ...) is refused where it is used.
- `time`: the real clocks (scripts subtract them), and sleep refused.
"""
from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import NotSupportedError, ScriptError, TorchTypeError
from .objects import BuiltinFunction, Instance, type_name
from .text_io import ScriptStream
from .warning_filters import (
    ACTIONS,
    WARNING_KINDS,
    compile_pattern,
    format_warning,
    warning_category,
)

if TYPE_CHECKING:
    from .core import Interpreter


def builtin(name: str, fn: Callable[..., Any], signature: Callable[..., Any]) -> BuiltinFunction:
    """A C builtin of a Python module (`<built-in function warn>`): `signature` is a
    do-nothing function with its parameters, which gives Python's argument messages."""
    signature.__name__ = signature.__qualname__ = name
    return BuiltinFunction(name, fn, functools.partial(signature))


def python_function(name: str, fn: Callable[..., Any],
                    signature: Callable[..., Any]) -> BuiltinFunction:
    """A function a Python module writes in Python (`<function filterwarnings at 0x...>`)."""
    signature.__name__ = signature.__qualname__ = name
    return BuiltinFunction(name, fn, signature)


# ------------------------------------------------------------------------ warnings


def _warn_sig(message, category=None, stacklevel=1, source=None, *,  # type: ignore[no-untyped-def]
              skip_file_prefixes=()): pass  # noqa: E704,ANN001


def _filterwarnings_sig(action, message="", category=None, module="", lineno=0,  # type: ignore[no-untyped-def]
                        append=False): pass  # noqa: E704,ANN001


def _simplefilter_sig(action, category=None, lineno=0, append=False): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001


def _resetwarnings_sig(): pass  # type: ignore[no-untyped-def]  # noqa: E704


def _formatwarning_sig(message, category, filename, lineno, line=None): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001


def _showwarning_sig(message, category, filename, lineno, file=None, line=None): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001


def _warning_location(interp: Interpreter, stacklevel: int) -> tuple[int, str | None, str]:
    """(line, filename or None for the script, module) of the frame `stacklevel` up:
    1 is the statement calling warn, 2 its function's caller, ...; past the outermost
    frame Python names `sys`, line 1."""
    if stacklevel <= 1:
        span = interp.current_span
        return (span.line if span is not None else 0), None, "__main__"
    stack = interp.call_stack
    if stacklevel - 1 > len(stack):
        return 1, "sys", "sys"
    span = stack[len(stack) - (stacklevel - 1)][1]
    return (span.line if span is not None else 0), None, "__main__"


def _warnings_namespace(interp: Interpreter) -> stdlib.Namespace:
    filters = interp.warnings

    def warn(message: Any, category: Any = None, stacklevel: Any = 1, source: Any = None, *,
             skip_file_prefixes: Any = ()) -> None:
        if isinstance(message, ScriptError) and message.kind in WARNING_KINDS:
            kind, text = message.kind, message.message
        else:
            kind = "UserWarning" if category is None else warning_category(category)
            # a str is filtered and shown as it is; any other object (not a Warning) is
            # CPython's registry key and the filters' match argument as it is (warn_filters)
            text = str(message) if type(message) is Instance and \
                message.cls.exception_kind is not None else message
        if not isinstance(stacklevel, int):
            raise TorchTypeError(f"'{type_name(stacklevel)}' object cannot be interpreted "
                                 "as an integer")
        line, filename, module = _warning_location(interp, stacklevel)
        line_text = None if filename is None else ""
        filters.emit(text, kind, line, module, filename, line_text)

    def filterwarnings(action: Any, message: Any = "", category: Any = None, module: Any = "",
                       lineno: Any = 0, append: Any = False) -> None:
        if action not in ACTIONS:
            raise ScriptError(f"invalid action: {action!r}", kind="AssertionError")
        if not isinstance(message, str):
            raise ScriptError("message must be a string", kind="AssertionError")
        kind = "Warning" if category is None else _category_class(category)
        if not isinstance(module, str):
            raise ScriptError("module must be a string", kind="AssertionError")
        if not isinstance(lineno, int) or lineno < 0:
            raise ScriptError("lineno must be an int >= 0", kind="AssertionError")
        filters.add_filter(action, compile_pattern(message, "message") if message else None,
                           kind, compile_pattern(module, "module", False) if module else None,
                           lineno, bool(append))

    def simplefilter(action: Any, category: Any = None, lineno: Any = 0,
                     append: Any = False) -> None:
        if action not in ACTIONS:
            raise ScriptError(f"invalid action: {action!r}", kind="AssertionError")
        kind = "Warning" if category is None else _category_class(category)
        if not isinstance(lineno, int) or lineno < 0:
            raise ScriptError("lineno must be an int >= 0", kind="AssertionError")
        filters.add_filter(action, None, kind, None, lineno, bool(append))

    def resetwarnings() -> None:
        filters.reset()

    def formatwarning(message: Any, category: Any, filename: Any, lineno: Any,
                      line: Any = None) -> str:
        kind = category.kind if isinstance(category, stdlib.ExceptionType) else \
            type_name(category)
        own = (interp.source.name, interp.source.python_name)
        if line is None and filename in own and isinstance(lineno, int):
            line = interp.source.line_text(lineno)
        return format_warning(str(message), kind, str(filename), lineno,
                              line if isinstance(line, str) else None)

    def showwarning(message: Any, category: Any, filename: Any, lineno: Any, file: Any = None,
                    line: Any = None) -> None:
        text = formatwarning(message, category, filename, lineno, line)
        (file if file is not None else interp.stderr_stream).write(text)

    table: dict[str, Any] = {
        "warn": builtin("warn", warn, _warn_sig),
        "filterwarnings": python_function("filterwarnings", filterwarnings,
                                          _filterwarnings_sig),
        "simplefilter": python_function("simplefilter", simplefilter, _simplefilter_sig),
        "resetwarnings": python_function("resetwarnings", resetwarnings, _resetwarnings_sig),
        "formatwarning": python_function("formatwarning", formatwarning, _formatwarning_sig),
        "showwarning": python_function("showwarning", showwarning, _showwarning_sig),
        "catch_warnings": stdlib.LibraryName("warnings", "catch_warnings"),
        "WarningMessage": stdlib.LibraryName("warnings", "WarningMessage"),
    }
    return stdlib.Namespace("warnings", table)


def _category_class(category: Any) -> str:
    if not isinstance(category, stdlib.ExceptionType):
        raise ScriptError("category must be a class", kind="AssertionError")
    if category.kind not in WARNING_KINDS:
        raise ScriptError("category must be a Warning subclass", kind="AssertionError")
    return category.kind


# ------------------------------------------------------------------------ sys


class StructSequence(tuple):
    """A `sys.version_info` / `sys.float_info`: a tuple with named fields, printed as
    Python prints it (`sys.version_info(major=3, ...)`)."""

    fields: tuple[str, ...] = ()
    label = ""

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self.fields, self))
        return f"{self.label}({inner})"

    __str__ = __repr__


VERSION_INFO_FIELDS = ("major", "minor", "micro", "releaselevel", "serial")
FLOAT_INFO_FIELDS = ("max", "max_exp", "max_10_exp", "min", "min_exp", "min_10_exp", "dig",
                     "mant_dig", "epsilon", "radix", "rounds")
STRUCTS: dict[type, tuple[str, ...]] = {}


def _make_struct(label: str, fields: tuple[str, ...], value: Any) -> StructSequence:
    cls = type(label.replace(".", "_"), (StructSequence,), {"fields": fields, "label": label,
                                                          "python_type_name": label})
    STRUCTS[cls] = fields
    return cls(getattr(value, f) for f in fields)


VERSION_INFO = _make_struct("sys.version_info", VERSION_INFO_FIELDS, sys.version_info)
STRUCT_TIME_FIELDS = ("tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec", "tm_wday",
                      "tm_yday", "tm_isdst")


def STRUCT_TIME(value: time.struct_time) -> StructSequence:  # noqa: N802 (a type)
    """time.localtime()/gmtime() as a `time.struct_time(tm_year=..., ...)`."""
    return _STRUCT_TIME_TYPE(getattr(value, f) for f in STRUCT_TIME_FIELDS)
FLOAT_INFO = _make_struct("sys.float_info", FLOAT_INFO_FIELDS, sys.float_info)
_STRUCT_TIME_TYPE = type(_make_struct("time.struct_time", STRUCT_TIME_FIELDS, time.gmtime(0)))


def struct_attribute(obj: StructSequence, name: str) -> Any:
    """A field of sys.version_info / sys.float_info (None if it has none of that name)."""
    fields = STRUCTS.get(type(obj), ())
    if name in fields:
        return obj[fields.index(name)]
    return None


def _exit_sig(status=None, /): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001


def system_exit(code: Any = None) -> ScriptError:
    """SystemExit(code): its message is the code (`str(e)`), kept as `.code`."""
    error = ScriptError("" if code is None else str(code), kind="SystemExit")
    error.code = code  # type: ignore[attr-defined]
    return error


class Quitter:
    """The builtins `exit` and `quit` (site.py's): calling one raises SystemExit(code)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code: Any = None) -> None:
        raise system_exit(code)


def _sys_namespace(interp: Interpreter) -> stdlib.Namespace:
    def exit_(status: Any = None) -> None:
        raise system_exit(status)

    table: dict[str, Any] = {
        "exit": builtin("exit", exit_, _exit_sig),
        "stdout": ScriptStream("stdout", interp.stdout),
        "stderr": interp.stderr_stream,
        "argv": [interp.source.name],
        "version_info": VERSION_INFO,
        "version": sys.version,
        "platform": sys.platform,
        "maxsize": sys.maxsize,
        "float_info": FLOAT_INFO,
        "byteorder": sys.byteorder,
        "hexversion": sys.hexversion,
    }
    return stdlib.Namespace("sys", table)


def exit_status(error: ScriptError, stderr: Any) -> int:
    """What an uncaught SystemExit makes the run's status, as Python's: None is 0, an int
    itself, anything else is printed to stderr and is 1."""
    code = getattr(error, "code", None)
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code & 0xFF
    if isinstance(code, bool):
        return int(code)
    stderr.write(f"{code}\n")
    return 1


# ------------------------------------------------------------------------ time


def _time_namespace(interp: Interpreter) -> stdlib.Namespace:
    def sleep(seconds: Any) -> None:
        raise NotSupportedError("time.sleep is not supported: a gradtrace run does not wait")

    clocks = {name: getattr(time, name) for name in (
        "time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns",
        "monotonic_ns")}

    def converting(convert: Callable[..., Any]) -> Callable[..., StructSequence]:
        def call(seconds: Any = None) -> StructSequence:
            return STRUCT_TIME(convert(seconds))
        return call

    def strftime(format: Any, t: Any = None) -> str:
        if not isinstance(format, str):
            raise TorchTypeError(f"strftime() argument 1 must be str, not {type_name(format)}")
        if len(format) > 10_000:  # (each directive gives a few characters)
            raise NotSupportedError("time.strftime of a format over 10,000 characters")
        try:
            return time.strftime(format, time.localtime() if t is None else tuple(t))
        except (TypeError, ValueError, OverflowError) as err:
            raise ScriptError(str(err), kind=type(err).__name__) from None

    table: dict[str, Any] = {name: BuiltinFunction(name, fn, fn) for name, fn in clocks.items()}
    table["sleep"] = BuiltinFunction("sleep", sleep, time.sleep)
    table["localtime"] = BuiltinFunction("localtime", converting(time.localtime), time.localtime)
    table["gmtime"] = BuiltinFunction("gmtime", converting(time.gmtime), time.gmtime)
    table["strftime"] = BuiltinFunction("strftime", strftime, time.strftime)
    return stdlib.Namespace("time", table)


def _timeit_namespace(time_module: stdlib.Namespace) -> stdlib.Namespace:
    """`from timeit import default_timer as timer`: Python's default_timer is
    time.perf_counter itself (the same object); timeit's Timer and timeit() (which run
    code strings) are gradtrace's gap by name."""
    return stdlib.Namespace("timeit", {"default_timer": time_module.table["perf_counter"]})


def system_namespaces(interp: Interpreter) -> dict[str, stdlib.Namespace]:
    time_module = _time_namespace(interp)
    return {"warnings": _warnings_namespace(interp), "sys": _sys_namespace(interp),
            "time": time_module, "timeit": _timeit_namespace(time_module)}

