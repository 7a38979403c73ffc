"""Python's cycle collector around work that makes many objects and no garbage.

Start-up's imports (numpy's, then the runner's, interpreter's and engine's) make ~10^5
objects that live as long as the process; a run makes a graph that is acyclic. The
collector's passes over them find nothing, and the first allocation after a long pause
would scan everything made during it at once.
"""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


def age_young_objects() -> None:
    """Every generation's objects join the oldest one without a scan (`freeze` then
    `unfreeze`), as survivors of the young generations would; they wait for the next full
    collection. Skipped if the caller froze objects of its own: unfreeze would release
    them."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector paused for the block (as it was after), what the block made aged
    into the oldest generation (~12 ms of scanning for the start-up's imports)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            age_young_objects()
            gc.enable()
