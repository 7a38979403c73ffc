"""The Python API behind the CLI: load a script, run it, and report what happened."""
from __future__ import annotations

import gc
import io
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from . import progress
from .collector import age_young_objects
from .engine import exactness, levels
from .engine.grad_mode import set_grad_enabled
from .engine.heap import keep_freed_memory
from .engine.limits import configure as configure_allocation
from .errors import (
    EXIT_LIMIT,
    EXIT_OK,
    EXIT_SCRIPT_ERROR,
    EXIT_USAGE,
    GradtraceError,
    InternalError,
    LimitExceeded,
    ScriptError,
    ScriptFileError,
)
from .interpreter import Interpreter, Limits
from .interpreter.runtime import named
from .interpreter.system_modules import exit_status
from .source import Source, Span

if TYPE_CHECKING:  # (the tracer is imported by the runs that trace: not `--quiet`'s)
    from .tracing import Tracer

MAX_SCRIPT_BYTES = 16 << 20  # a script is text a person wrote or pasted


def load_source(path: str, stdin: TextIO | None = None) -> Source:
    """Read SCRIPT (or stdin for `-`) as UTF-8 text: at most MAX_SCRIPT_BYTES, and only a
    regular file (a FIFO would block, /dev/zero never ends). A ScriptFileError's message
    leaves the file's name to its `format`."""
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin
        if stream is None or (hasattr(stream, "isatty") and stream.isatty()):
            raise ScriptFileError("no script on standard input (pipe a script into `-`)")
        reader = stream.buffer if hasattr(stream, "buffer") else stream
        data = reader.read(MAX_SCRIPT_BYTES + 1)
        name = "<stdin>"
        python_path = None
    else:
        data = _read_file(path)
        name = path
        python_path = os.path.abspath(path)
    if len(data) > MAX_SCRIPT_BYTES:
        raise ScriptFileError(f"larger than {MAX_SCRIPT_BYTES >> 20} MiB; gradtrace "
                              "runs scripts, not data")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            line = data[: err.start].count(b"\n") + 1
            raise ScriptFileError(
                f"the script is not UTF-8 text (byte {data[err.start]:#04x} at offset "
                f"{err.start})", Span.point(line, 1)) from None
    else:
        text = data
    return Source(name, text, python_path)


def _read_file(path: str) -> bytes:
    """The bytes of a regular file, opened without blocking (a FIFO's open waits for a
    writer) and read up to one byte past the size cap."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ScriptFileError("no such file") from None
    except IsADirectoryError:
        raise ScriptFileError("is a directory, not a script") from None
    except OSError as err:
        raise ScriptFileError(f"cannot read ({err.strerror})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ScriptFileError("is a directory, not a script")
        if not stat.S_ISREG(mode):
            raise ScriptFileError("not a regular file (a device, FIFO or socket); "
                                  "pass a script file, or pipe it into `-`")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_SCRIPT_BYTES + 1)
    except OSError as err:
        raise ScriptFileError(f"cannot read ({err.strerror})") from None
    finally:
        os.close(fd)


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
    status: int | None = None  # the status an uncaught sys.exit() ended the run with

    @property
    def exit_code(self) -> int:
        if self.status is not None:
            return self.status
        if self.error is None:
            return EXIT_OK
        if isinstance(self.error, LimitExceeded):
            return EXIT_LIMIT
        if isinstance(self.error, ScriptFileError):
            return EXIT_USAGE
        return EXIT_SCRIPT_ERROR

    @property
    def uncaught(self) -> bool:
        return isinstance(self.error, ScriptError)


class ScriptOutput:
    """The script's stdout: forwarded live to `forward` (when given), and kept for the
    result (when `keep`) up to `limit` characters, so a script that prints without end
    streams in bounded memory, and one whose output is captured stops at --max-sequence."""

    def __init__(self, forward: TextIO | None, keep: bool, limit: int):
        self.forward = forward
        self.keep = keep
        self.limit = limit
        self.size = 0
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        if self.keep:
            self.size += len(text)
            if self.size > self.limit:
                raise LimitExceeded(
                    f"the script printed more than {self.limit:,} characters, and its output "
                    "is kept for the result (raise the limit with --max-sequence)")
            self.parts.append(text)
        if self.forward is not None:
            self.forward.write(text)
        return len(text)

    def flush(self) -> None:
        if self.forward is not None:
            self.forward.flush()

    def getvalue(self) -> str:
        return "".join(self.parts)


def run_source(source: Source, *, stdout: TextIO | None = None, stderr: TextIO | None = None,
               limits: Limits | None = None, trace: bool = False,
               capture: bool = True, trace_values: bool = True) -> RunResult:
    """Parse and run a script. Output is forwarded to `stdout` if given, and captured in
    the result unless `capture` is False (at most --max-sequence characters).

    With `trace`, the result carries a Tracer holding everything the engine did;
    `trace_values=False` leaves out the values only explain, the page and JSON read
    (`Tracer(values=False)`: the report's tables).
    """
    from .parser import parse

    limits = limits or Limits()
    configure_allocation(limits.max_elements, limits.max_memory, limits.max_sequence)
    keep_freed_memory()
    out = ScriptOutput(stdout, capture, limits.max_sequence)
    err_stream = stderr if stderr is not None else io.StringIO()
    interpreter = Interpreter(source, out, err_stream, limits)
    error: GradtraceError | None = None
    grad_mode = set_grad_enabled(True)  # every run starts in grad mode, like a new process
    _collect_earlier_runs()
    # Graphs are acyclic, yet every op allocates a few objects: Python's default collector
    # thresholds rescan a large graph over and over (30% of the time for 10^5+ nodes).
    gc_thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    tracer = None
    if trace:
        from .tracing import Tracer

        tracer = Tracer(interpreter, trace_values)
    module = None
    exactness.reset()
    levels.reset()
    try:
        progress.set_phase(progress.PARSING)
        module = parse(source)
        progress.set_phase(progress.RUNNING)
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
    except BrokenPipeError:  # the reader of stdout went away (`| head`): the command ends
        raise
    except Exception as exc:  # a gradtrace bug: report it at the script's location
        error = InternalError(f"{type(exc).__name__}: {exc} (please report this bug)",
                              interpreter.current_span)
    finally:
        progress.set_phase(progress.REPORTING)
        grad_mode.__exit__()
        _restore_gc(gc_thresholds)
    status = None
    if isinstance(error, ScriptError) and error.kind == "SystemExit":  # sys.exit(): the run
        status = exit_status(error, err_stream)  # ends as Python's does, without an error
        error = None
    return RunResult(source, out.getvalue(), error, named(interpreter.globals.vars), tracer,
                     module, exactness.causes(), status)


# Objects `_restore_gc` moved into the oldest generation since the last full collection
# `_collect_earlier_runs` made, and how many objects that collection left there.
_UNCOUNTED = [0, 0]
# a full collection once the spliced objects are this many times those survivors
GARBAGE_FACTOR = 4


def _restore_gc(thresholds: tuple[int, ...]) -> None:
    """Put the collector's thresholds back without it scanning the whole run at once.

    The run leaves up to 100,000 objects in the youngest generation (its raised
    threshold); with the default back, the next allocation would scan them all, and a
    traced run's trace with them (10-80 ms on the benchmark's workloads). They are aged
    into the oldest generation instead (`collector.age_young_objects`), and counted.
    """
    if gc.get_freeze_count() == 0:
        _UNCOUNTED[0] += len(gc.get_objects(0)) + len(gc.get_objects(1))
    age_young_objects()
    gc.set_threshold(*thresholds)


def _collect_earlier_runs() -> None:
    """A full collection before a run when earlier runs in this process left enough behind.

    Objects `_restore_gc` splices into the oldest generation are not counted by CPython's
    rule for full collections (one runs when the oldest generation has grown by a quarter
    since the last), so in a process that runs script after script (a notebook, a test
    suite) the cycles of finished runs were never collected: 2.6 GB after 700 of the test
    suite's scripts. Here a full collection runs before a run once what was spliced is
    four times what the last one left (at a quarter, as CPython's rule, one ran every four
    small scripts, each ~0.25 s with the engine's tables: twice the scripts' own time). It
    runs before a run rather than after it: a command runs one script, and never pays."""
    spliced, survivors = _UNCOUNTED
    if spliced > GARBAGE_FACTOR * survivors:
        gc.collect()
        _UNCOUNTED[:] = [0, len(gc.get_objects(2))]


def run_text(text: str, name: str = "<script>", **kwargs: Any) -> RunResult:
    return run_source(Source(name, text), **kwargs)
