"""Values torch does not fix from one run to the next, and which of them a run used.

- Uninitialised memory: torch.empty, empty_like, new_empty, empty_strided,
  torch.Tensor(2, 3) and the elements a `resize_` grows hold whatever the allocator held
  before. gradtrace fills them with `FILL` (zeros) so that a run is reproducible.
- torch's default generator before the script seeds it: torch 2.13 seeds it from the OS
  in every process (`torch.initial_seed()` differs from run to run); gradtrace starts it
  from c10's default seed.
- Python's `random` before the script seeds it: seeded from the OS in both.

`gradtrace check` cannot compare such values with torch's: it runs a script that used
any of them once more with another fill, another default seed and another `random`
seed, and what changed between the two runs (values, printed lines, errors) came from
them.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

FILL = 0  # what a normal run puts in uninitialised memory
CHECK_FILL = 7  # check's second run: a value that no dtype maps onto FILL (bool: True)

UNINITIALISED = "uninitialised memory"
UNSEEDED_TORCH = "torch's unseeded generator"
UNSEEDED_RANDOM = "Python's unseeded random"

_state: dict = {"fill": FILL, "used": {}}


def fill() -> int:
    """The value to put in memory torch would leave uninitialised; notes that it was used."""
    note(UNINITIALISED)
    return _state["fill"]


def note(source: str) -> None:
    """A value came from `source` (one of the names above)."""
    _state["used"][source] = True


def reset() -> None:
    _state["used"] = {}


def used() -> tuple[str, ...]:
    """What the run so far used that torch does not reproduce, in the order first used."""
    return tuple(_state["used"])


@contextmanager
def filled_with(value: int) -> Iterator[None]:
    """Runs inside the block fill uninitialised memory with `value`."""
    before = _state["fill"]
    _state["fill"] = value
    try:
        yield
    finally:
        _state["fill"] = before
