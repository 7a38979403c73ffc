"""Memory torch leaves uninitialised: what gradtrace fills it with, and whether a run used it.

torch.empty, empty_like, new_empty, empty_strided, torch.Tensor(2, 3) and the elements a
`resize_` grows hold whatever the allocator held before. gradtrace fills them with `FILL`
(zeros) so that a run is reproducible. `gradtrace check` cannot compare such values with
torch's: it runs a script that used uninitialised memory once more with another fill, and
what changed between the two runs (values, printed lines, errors) came from that memory.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

FILL = 0  # what a normal run puts in uninitialised memory
CHECK_FILL = 7  # check's second run: a value that no dtype maps onto FILL (bool: True)

_state = {"fill": FILL, "used": False}


def fill() -> int:
    """The value to put in memory torch would leave uninitialised; notes that it was used."""
    _state["used"] = True
    return _state["fill"]


def reset() -> None:
    _state["used"] = False


def used() -> bool:
    """Whether the run so far made a tensor from uninitialised memory."""
    return bool(_state["used"])


@contextmanager
def filled_with(value: int) -> Iterator[None]:
    """Runs inside the block fill uninitialised memory with `value`."""
    before = _state["fill"]
    _state["fill"] = value
    try:
        yield
    finally:
        _state["fill"] = before
