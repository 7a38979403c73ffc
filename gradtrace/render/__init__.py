"""Renderers: turn a run's results into tables, stories, graph files and JSON."""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def trace_frozen() -> Iterator[None]:
    """Render a finished run without the cycle collector rescanning its trace.

    A trace holds many thousands of objects. Rendering allocates many short-lived ones,
    and every collection of the oldest generation would walk the whole trace again
    (a tenth of a second for a 200-step training loop). `gc.freeze()` sets what exists
    now aside until the block ends; objects made while rendering are collected as usual.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
