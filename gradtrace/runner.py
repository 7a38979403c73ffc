"""The Python API behind the CLI: load a script, run it, and report what happened."""
from __future__ import annotations

import gc
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .engine import exactness
from .engine.grad_mode import set_grad_enabled
from .engine.limits import configure as configure_allocation
from .errors import (
    EXIT_LIMIT,
    EXIT_OK,
    EXIT_SCRIPT_ERROR,
    GradtraceError,
    InternalError,
    LimitExceeded,
    ScriptError,
)
from .interpreter import Interpreter, Limits
from .source import Source
from .tracing import Tracer


class ScriptFileError(Exception):
    """The script could not be read (missing, a directory, not UTF-8)."""


def load_source(path: str, stdin: TextIO | None = None) -> Source:
    """Read SCRIPT (or stdin for `-`) as UTF-8 text."""
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin
        if stream is None or (hasattr(stream, "isatty") and stream.isatty()):
            raise ScriptFileError("no script on standard input (pipe a script into `-`)")
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
        name = "<stdin>"
    else:
        p = Path(path)
        if p.is_dir():
            raise ScriptFileError(f"{path}: is a directory, not a script")
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise ScriptFileError(f"{path}: no such file") from None
        except OSError as err:
            raise ScriptFileError(f"{path}: cannot read ({err.strerror})") from None
        name = path
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            line = data[: err.start].count(b"\n") + 1
            raise ScriptFileError(
                f"{name}:{line}: the script is not UTF-8 text (byte {data[err.start]:#04x} at "
                f"offset {err.start})") from None
    else:
        text = data
    return Source(name, text)


@dataclass
class RunResult:
    """What a run left behind: its output, its error (if any), and its variables."""

    source: Source
    stdout: str
    error: GradtraceError | None
    variables: dict[str, Any] = field(default_factory=dict)
    trace: Tracer | None = None
    module: tuple[Any, ...] | None = None  # the parsed script (None if it did not parse)
    inexact: tuple[str, ...] = ()  # why some float values may differ from torch's last bits

    @property
    def exit_code(self) -> int:
        if self.error is None:
            return EXIT_OK
        if isinstance(self.error, LimitExceeded):
            return EXIT_LIMIT
        return EXIT_SCRIPT_ERROR

    @property
    def uncaught(self) -> bool:
        return isinstance(self.error, ScriptError)


class _Tee(io.StringIO):
    """Keeps the script's stdout and forwards it live when asked."""

    def __init__(self, forward: TextIO | None):
        super().__init__()
        self.forward = forward

    def write(self, text: str) -> int:
        if self.forward is not None:
            self.forward.write(text)
        return super().write(text)


def run_source(source: Source, *, stdout: TextIO | None = None, stderr: TextIO | None = None,
               limits: Limits | None = None, trace: bool = False) -> RunResult:
    """Parse and run a script. Output is captured (and forwarded to `stdout` if given).

    With `trace`, the result carries a Tracer holding everything the engine did.
    """
    from .parser import parse

    limits = limits or Limits()
    configure_allocation(limits.max_elements, limits.max_memory)
    out = _Tee(stdout)
    err_stream = stderr if stderr is not None else io.StringIO()
    interpreter = Interpreter(source, out, err_stream, limits)
    error: GradtraceError | None = None
    grad_mode = set_grad_enabled(True)  # every run starts in grad mode, like a new process
    # Graphs are acyclic, yet every op allocates a few objects: Python's default collector
    # thresholds rescan a large graph over and over (30% of the time for 10^5+ nodes).
    gc_thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    tracer = Tracer(interpreter) if trace else None
    module = None
    exactness.reset()
    try:
        module = parse(source)
        if tracer is not None:
            with tracer:
                interpreter.run(module)
        else:
            interpreter.run(module)
    except GradtraceError as exc:
        error = exc
    except MemoryError:
        error = LimitExceeded("out of memory (lower the sizes, or see --max-memory)",
                              interpreter.current_span)
    except RecursionError:
        error = LimitExceeded("the script nests too deeply (maximum recursion depth exceeded)",
                              interpreter.current_span)
    except Exception as exc:  # a gradtrace bug: report it at the script's location
        error = InternalError(f"{type(exc).__name__}: {exc} (please report this bug)",
                              interpreter.current_span)
    finally:
        grad_mode.__exit__()
        _restore_gc(gc_thresholds)
    return RunResult(source, out.getvalue(), error, dict(interpreter.globals.vars), tracer,
                     module, exactness.causes())


def _restore_gc(thresholds: tuple[int, ...]) -> None:
    """Put the collector's thresholds back without it scanning the whole run at once.

    The run leaves up to 100,000 objects in the youngest generation (its raised
    threshold); with the default back, the next allocation would scan them all, and a
    traced run's trace with them (10-80 ms on the benchmark's workloads). `freeze` then
    `unfreeze` splices every generation's list into the oldest one instead: the run's
    objects wait for the next full collection, as survivors of the young ones would.
    (Skipped if the caller froze objects of its own: unfreeze would release them.)
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
    gc.set_threshold(*thresholds)


def run_text(text: str, name: str = "<script>", **kwargs: Any) -> RunResult:
    return run_source(Source(name, text), **kwargs)
