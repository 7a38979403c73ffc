"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 101
(object detection and segmentation losses) found: a loss's `weight` (or `pos_weight`) that
requires grad is refused as torch's autograd refuses it (kuangliu's RetinaNet focal_loss
passes `w = alpha*t + ... * (1-pt).pow(gamma)`, built from `x.sigmoid()`, as the weight of
binary_cross_entropy_with_logits).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


WEIGHT_SETUP = """import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
t = torch.rand(2, 3)
w = torch.rand(2, 3, requires_grad=True)
w3 = torch.rand(3, requires_grad=True)
x4 = torch.randn(2, 3, 2, 2, requires_grad=True)
lab = torch.tensor([0, 2])
"""

WEIGHT_EXPRESSIONS = [
    "F.binary_cross_entropy_with_logits(x, t, w)",
    "F.binary_cross_entropy_with_logits(x, t, w.detach())",
    "F.binary_cross_entropy_with_logits(x, t, pos_weight=w3)",
    "F.binary_cross_entropy_with_logits(x.detach(), t, w)",
    "F.binary_cross_entropy_with_logits(x, t[0], w)",
    "F.binary_cross_entropy_with_logits(x, t, torch.rand(2, requires_grad=True))",
    "torch.binary_cross_entropy_with_logits(x, t, w, None, 1)",
    "F.binary_cross_entropy(x.sigmoid(), t, w)",
    "F.binary_cross_entropy(x.sigmoid(), t, w3)",
    "F.binary_cross_entropy(x.sigmoid(), t, torch.rand(2, requires_grad=True))",
    "F.binary_cross_entropy(x.sigmoid(), w)",
    "F.nll_loss(x, lab, weight=w3)",
    "F.nll_loss(x, lab.float(), weight=w3)",
    "F.nll_loss(x, lab, weight=torch.rand(4, requires_grad=True))",
    "F.nll_loss(x, torch.tensor([0, 1, 2]), weight=w3)",
    "F.cross_entropy(x, lab, weight=w3)",
    "F.cross_entropy(x, lab, weight=w3, label_smoothing=0.1)",
    "F.cross_entropy(x, t, weight=w3)",
    "F.cross_entropy(x4, torch.zeros(2, 2, 2, dtype=torch.long), weight=w3)",
    "F.cross_entropy(x4, torch.zeros(2, 2, dtype=torch.long), weight=w3)",
    "F.cross_entropy(x4[:, :, 0], torch.zeros(2, 2, dtype=torch.long), weight=w3)",
    "F.nll_loss(x4[:, :, 0], torch.zeros(2, 3, dtype=torch.long), weight=w3)",
    "F.soft_margin_loss(x, w)",
    "F.multi_margin_loss(x, lab, weight=w3)",
    "torch.nn.BCEWithLogitsLoss(weight=w)(x, t)",
    "torch.nn.CrossEntropyLoss(weight=w3)(x, lab)",
]


def test_a_loss_weight_that_requires_grad_is_refused() -> None:
    """binary_cross_entropy(_with_logits)'s weight and pos_weight and nll_loss's weight
    (cross_entropy's too) have no derivative: torch refuses one that requires grad, naming
    the ATen function (nll_loss_forward, nll_loss2d_forward for spatial inputs), after the
    Python-level shape checks and before the kernel's own."""
    script = each_expression(WEIGHT_EXPRESSIONS, WEIGHT_SETUP)
    assert gradtrace_output(script) == torch_output(script)


NO_GRAD = """import torch
import torch.nn.functional as F
x = torch.randn(2, 3, requires_grad=True)
w = torch.rand(2, 3, requires_grad=True)
with torch.no_grad():
    print(F.binary_cross_entropy_with_logits(x, torch.ones(2, 3), w).requires_grad)
    print(F.nll_loss(x, torch.tensor([0, 1]), weight=w[0]).requires_grad)
loss = F.binary_cross_entropy_with_logits(x, torch.ones(2, 3), w.detach())
loss.backward()
print(loss.grad_fn.name(), x.grad.shape, w.grad)
"""


def test_a_weight_that_requires_grad_passes_under_no_grad() -> None:
    """The check only stands while grad mode records."""
    assert gradtrace_output(NO_GRAD) == torch_output(NO_GRAD)


NORM_SETUP = """import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
rm = torch.zeros(3, requires_grad=True)
rv = torch.ones(3, requires_grad=True)
bn = torch.nn.BatchNorm1d(3)
bn.running_mean.requires_grad_()
"""

NORM_EXPRESSIONS = [
    "F.batch_norm(x, rm, rv, training=True)",
    "F.batch_norm(x, rm, rv, training=False)",
    "F.batch_norm(x.detach(), rm.detach(), rv, training=True)",
    "F.batch_norm(x, rm, rv.detach(), training=False, momentum=0.2)",
    "F.batch_norm(x, torch.zeros(4, requires_grad=True), rv)",
    "F.batch_norm(x[:1], rm, rv, training=True)",
    "F.batch_norm(x.long(), rm, rv)",
    "F.batch_norm(x, rm.detach(), rv.detach(), training=True)",
    "F.instance_norm(x.view(2, 3, 2), rm, rv, use_input_stats=True)",
    "F.instance_norm(x.view(2, 3, 2), rm.detach(), rv.detach(), use_input_stats=True)",
    "bn(x)",
    "bn.eval()(x)",
]


def test_running_stats_that_require_grad_are_refused() -> None:
    """native_batch_norm has no derivative for running_mean/running_var: torch refuses
    either that requires grad (in training and eval, through F.batch_norm, instance_norm and
    a BatchNorm module whose buffer was made to require grad), after the size checks."""
    script = each_expression(NORM_EXPRESSIONS, NORM_SETUP)
    assert gradtrace_output(script) == torch_output(script)
