"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 42
(Stack Overflow and blog answers on loss targets, None gradients and freezing) found:
F.binary_cross_entropy_with_logits computes its loss in place on `1 - target`, so the loss
has the target's dtype (a float64 target gives a float64 loss, a float16 one a float16 loss)
and an integral or bool target is refused with the in-place step's error (the classic
"Long labels to BCEWithLogitsLoss" question), where gradtrace computed in the input's dtype
and took any target.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


BCE_LOGITS_TARGET_DTYPES = """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
def show(f):
    try:
        r = f()
        print(r, r.dtype)
    except RuntimeError as e:
        print(type(e).__name__, e)
targets = [torch.tensor([1, 0, 1, 1]), torch.tensor([1, 0, 1, 1], dtype=torch.int32),
           torch.tensor([True, False, True, True]), torch.tensor([1, 0, 1, 1], dtype=torch.uint8),
           torch.tensor([0., 1., 1., 0.5], dtype=torch.float64),
           torch.tensor([0., 1., 1., 0.5], dtype=torch.float16)]
for tg in targets:
    show(lambda: nn.BCEWithLogitsLoss()(x, tg))
    show(lambda: F.binary_cross_entropy_with_logits(x.double(), tg, reduction="sum"))
    for pw in [torch.tensor([1., 2., 3., 4.], dtype=torch.float64), torch.tensor(3.0),
               torch.tensor([2, 3, 1, 1])]:
        show(lambda: F.binary_cross_entropy_with_logits(x, tg, pos_weight=pw,
                                                        weight=torch.tensor([1, 2, 3, 4])))
        show(lambda: F.binary_cross_entropy_with_logits(x, tg, pos_weight=pw, reduction="none"))
loss = F.binary_cross_entropy_with_logits(x, targets[4], pos_weight=torch.tensor(2.0))
loss.backward()
print(loss, x.grad, x.grad.dtype)
"""


def test_bce_with_logits_loss_takes_the_targets_dtype_as_torch() -> None:
    """The loss is `(1 - target).mul_(input).sub_(log_sigmoid(input) * log_weight)` then
    `.mul_(weight)`, each step computed in its operands' result type and kept in the
    target's: Long, Int and Byte targets fail the multiplication's cast, a bool target the
    subtraction; the input's gradient stays in the input's dtype."""
    assert gradtrace_output(BCE_LOGITS_TARGET_DTYPES) == torch_output(BCE_LOGITS_TARGET_DTYPES)
