"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 54
(detection and segmentation building blocks) found: ssd.pytorch's nms resizes its scratch
tensors with `w.resize_as_(xx2)`, which was refused.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


RESIZE_AS = """import torch
w = torch.tensor([1., 2., 3.])
print(w.resize_as_(torch.zeros(2, 2)).shape, w._version)
print(w.resize_as_(torch.zeros(1, dtype=torch.long)), w.dtype, w._version)
y = torch.ones(5)
print(torch.resize_as_(y, torch.zeros(3)), y._version)
print(type(torch.resize_as_).__name__, repr(torch.resize_as_)[:30])
print(y.resize_as_(torch.empty(0)).numel())
with torch.no_grad():
    z = torch.ones(3, requires_grad=True)
    try:
        z.resize_as_(torch.zeros(1, 3))
    except RuntimeError as err:
        print("under no_grad:", err)
    print(z.detach().resize_as_(torch.zeros(1, 3)).shape, z.shape)
try:
    torch.ones(3, requires_grad=True).resize_as_(y)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    y.resize_as_(3)
except TypeError as err:
    print("TypeError:", err)
"""


def test_resize_as_takes_the_template_s_shape() -> None:
    """Tensor.resize_as_ and torch.resize_as_: resize_ to the template's shape (its dtype not
    taken), a version bump, and resize_'s refusal of a tensor that requires grad, under
    no_grad too."""
    assert gradtrace_output(RESIZE_AS) == torch_output(RESIZE_AS)
