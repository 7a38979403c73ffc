"""Where a run is, for a supervisor that cannot ask it.

A process stuck in one long C call (a sum over a huge range, a 40-million-bit division)
runs no Python code, so no thread of it can tell where the script was. The run writes
its phase and the span of the statement running now into `STATE`, two int64 slots; under
the command line's supervisor (`gradtrace/supervisor.py`) they live in a page shared
with the parent, which reads them after it has stopped the child. In-process (the Python
API, tests) they are an ordinary array nobody reads.
"""
from __future__ import annotations

import mmap
from array import array

from .source import Span

PHASE, POSITION = 0, 1  # the slots
STARTING, PARSING, RUNNING, REPORTING = 0, 1, 2, 3  # the phases
PHASE_NAMES = {STARTING: "starting", PARSING: "parsing the script",
               RUNNING: "running the script", REPORTING: "writing the report"}

STATE: memoryview = memoryview(array("q", [STARTING, 0]))

# a position packs a statement's line (24 bits), column and end column (20 bits each)
_COLUMN_BITS = 20
_COLUMN_MAX = (1 << _COLUMN_BITS) - 1
_LINE_MAX = (1 << 23) - 1


def share() -> memoryview:
    """Put STATE in a shared anonymous page (before fork): the child writes, the parent
    reads."""
    global STATE
    page = mmap.mmap(-1, mmap.PAGESIZE)  # MAP_SHARED: forked children see the same page
    STATE = memoryview(page).cast("q")
    STATE[PHASE] = STARTING
    STATE[POSITION] = 0
    return STATE


def set_phase(phase: int) -> None:
    STATE[PHASE] = phase


def position_key(span: Span | None) -> int:
    """One int for a statement's span (0: none), written per statement at the cost of
    one store."""
    if span is None:
        return 0
    line = min(span.line, _LINE_MAX)
    column = min(span.column, _COLUMN_MAX)
    end = span.end_column if span.end_line == span.line else span.column + 1
    end = min(max(end, column + 1), _COLUMN_MAX)
    return (line << (2 * _COLUMN_BITS)) | (column << _COLUMN_BITS) | end


def span_of(key: int) -> Span | None:
    if key <= 0:
        return None
    line = key >> (2 * _COLUMN_BITS)
    column = (key >> _COLUMN_BITS) & _COLUMN_MAX
    end = key & _COLUMN_MAX
    return Span(line, column, line, end)
