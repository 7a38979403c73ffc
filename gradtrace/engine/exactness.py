"""Where a run knowingly leaves torch's float bits, and why.

Kernels whose order gradtrace reproduces need no note. A kernel that computes a value
whose last bits may differ from torch's (a BLAS order not reproduced for that shape, a
platform whose order was never measured) notes the cause here; the runner hands the
causes to the run's result, so `gradtrace check` can label a float difference with
them instead of a bare "differs".
"""
from __future__ import annotations

_CAUSES: dict[str, None] = {}


def note(cause: str) -> None:
    """Record that values computed from now on may differ from torch's for `cause`."""
    _CAUSES[cause] = None


def reset() -> None:
    _CAUSES.clear()


def causes() -> tuple[str, ...]:
    """The causes noted since the last reset, first noted first."""
    return tuple(_CAUSES)
