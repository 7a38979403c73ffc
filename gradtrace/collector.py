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

# set once this process is known to end after its one run (the command line's supervised
# child): what exists then is set aside for good, and what ages later joins it
_FOR_GOOD = [False]


def freeze_for_good() -> None:
    """Everything that exists now leaves the collector's reach for the rest of the
    process (`gc.freeze`): start-up's modules and tables in a child that runs one script,
    renders it and exits. Objects that age later join them (`age_young_objects`)."""
    gc.freeze()
    _FOR_GOOD[0] = True


def age_young_objects() -> None:
    """Every generation's objects join the oldest one without a scan (`freeze` then
    `unfreeze`), as survivors of the young generations would; they wait for the next full
    collection. If the caller froze objects of its own, unfreeze would release them: they
    are then frozen too when the process froze for good (a run's graph and trace, about to
    be rendered: the first allocations after a run would scan them all, 30-90 ms after a
    traced training loop), else left where they are."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
    elif _FOR_GOOD[0]:
        gc.freeze()


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
