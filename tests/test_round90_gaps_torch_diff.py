"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 90
(Kaggle-style training notebooks) found: np.squeeze given a tensor, which numpy hands to the
tensor's own squeeze method (a Kaggle digit-recognizer loop counts per-class hits with
`np.squeeze(pred.eq(target.data.view_as(pred)))`).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SQUEEZE = """import numpy as np
import torch
t = torch.zeros(1, 3, 1)
print(np.squeeze(t).shape, np.squeeze(t, 0).shape, np.squeeze(t, axis=(0, 2)).shape)
print(np.squeeze(t, axis=1).shape, np.squeeze(t, None).shape)
pred = torch.tensor([[1], [0], [2]])
target = torch.tensor([1, 1, 2])
correct = np.squeeze(pred.eq(target.data.view_as(pred)))
print(correct, type(correct).__name__, correct[0].item(), correct.dtype)
x = torch.ones(1, 2, requires_grad=True)
y = np.squeeze(x * 2)
print(y, y.grad_fn.name())
y.sum().backward()
print(x.grad)
print(np.squeeze(torch.tensor([[5.0]])), np.squeeze(np.ones((1, 2))))
"""


def test_numpy_squeeze_of_a_tensor_calls_its_squeeze_method() -> None:
    """np.squeeze(t) is t.squeeze() and np.squeeze(t, axis) t.squeeze(axis=axis): a tensor
    back, with its grad_fn; an array still squeezes as numpy's."""
    assert gradtrace_output(SQUEEZE) == torch_output(SQUEEZE)
