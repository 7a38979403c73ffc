"""Where a run knowingly leaves torch's float bits, and why.

Kernels whose order gradtrace reproduces need no note. A kernel that computes a value
whose last bits may differ from torch's (a BLAS order not reproduced for that shape, a
platform whose order was never measured) notes the cause here; the runner hands the
causes to the run's result, so `gradtrace check` can label a float difference with
them instead of a bare "differs".
"""
from __future__ import annotations

_CAUSES: dict[str, None] = {}
# element-steps (accumulator elements x chained fused multiply-adds) of kernel-order
# emulation one run may spend, so that a script of many large convolutions stays within
# its time limit; past it, values round through float64 (noted). An element-step costs
# 0.6-2 ns of numpy (measured on convolution training scripts: more where a step's
# arrays are small), so this is about 10-35 s
EMULATION_BUDGET = 1 << 34
_SPENT = [0]


def note(cause: str) -> None:
    """Record that values computed from now on may differ from torch's for `cause`."""
    _CAUSES[cause] = None


def reset() -> None:
    _CAUSES.clear()
    _SPENT[0] = 0


def afford(steps: int, what: str) -> bool:
    """Spend `steps` of the run's emulation budget on `what` if it has them; if not, note
    that `what` (and what follows) rounds through float64 instead."""
    if _SPENT[0] + steps <= EMULATION_BUDGET:
        _SPENT[0] += steps
        return True
    note(f"{what}: past the run's budget for reproducing kernel orders step by step "
         f"({EMULATION_BUDGET:,} multiply-adds), accumulated in float64")
    return False


def causes() -> tuple[str, ...]:
    """The causes noted since the last reset, first noted first."""
    return tuple(_CAUSES)
