"""Differential tests against live PyTorch 2.13 for gaps found by probing as a user would
(session 39): softshrink's and hardshrink's backward as ops of their own.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("fn", ["F.softshrink", "F.hardshrink"])
def test_shrink_gradients_record_torchs_backward_node_under_create_graph(fn: str) -> None:
    """torch records <Soft|Hard>shrinkBackwardBackward0 (self saved, its gradient zero);
    gradtrace's `where` of a mask recorded nothing, so a second grad found no graph."""
    script = f"""import torch
import torch.nn.functional as F
x = torch.tensor([-1.0, -0.3, float('nan'), 0.0, 0.3, 0.31, 2.0], requires_grad=True)
y = {fn}(x, 0.3)
g, = torch.autograd.grad((y * torch.arange(7.)).sum(), x, create_graph=True)
print(g, g.grad_fn.name(), [type(n[0]).__name__ for n in g.grad_fn.next_functions])
print(g.grad_fn._saved_lambd, g.grad_fn._saved_self)
print(torch.autograd.grad(g.sum(), x, allow_unused=True))
a = torch.randn(5, 7).t().contiguous().t().requires_grad_()
seen = []
a.register_hook(lambda grad: seen.append(grad.stride()))
{fn}(a, 0.5).backward(torch.randn(5, 7))
print(seen)
"""
    assert gradtrace_output(script) == torch_output(script)
