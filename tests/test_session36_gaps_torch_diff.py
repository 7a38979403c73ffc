"""Differential tests against live PyTorch 2.13 for gaps found by probing as a user would
(session 36): what `detach()` of a view is.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


def test_detach_of_a_view_is_no_view_and_may_be_changed_in_place() -> None:
    script = """import torch
x = torch.arange(6.).requires_grad_()
v = x.view(2, 3)
d = v.detach()
print(d._base is None, x.detach()._base is None, d.is_leaf, d.requires_grad)
v.detach().add_(1)
print(x, x._version, v._version)
y = x * 2
dd = y[1:].detach()
dd.mul_(2)
print(y, y._version, dd._version, y.grad_fn.name())
w = x.detach()[:3]
print(w._base is None, w._base.requires_grad)
y.sum().backward()
print(x.grad)
"""
    assert gradtrace_output(script) == torch_output(script)
