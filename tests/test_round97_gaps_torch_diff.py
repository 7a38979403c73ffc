"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 97
(Stack Overflow / forum autograd questions: views, requires_grad on views, detach vs data)
found while probing how scripts inspect views: Tensor._is_view(), which graph walkers in
the torchviz style (`if var._is_view(): add_base_tensor(var._base)`) and view/contiguity
checks call.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


IS_VIEW = """import torch
x = torch.randn(3, 2)
cases = [x, x.view(6), x.t(), x[0], x.detach(), x.clone(), torch.arange(4)[1:], x.reshape(6),
         x.t().reshape(6), x.squeeze(0), x.unsqueeze(0), x.contiguous(), x.t().contiguous(),
         x.data, x.expand(2, 3, 2), x.unbind(0)[0], x.split(1)[0], x.view_as(x), x.T,
         x.diagonal(), x.flatten(), torch.ones(2, requires_grad=True)[0], x.to(torch.float64),
         x.view(torch.int32), x.narrow(0, 0, 1), x.chunk(2)[0], x.movedim(0, 1), x[:, None]]
print([c._is_view() for c in cases])
print(all(c._is_view() == (c._base is not None) for c in cases))
with torch.no_grad():
    v = x.view(6)
print(v._is_view(), hasattr(v, "_is_view"), callable(x._is_view))
w = torch.ones(3, requires_grad=True)
u = w[1:]
print(u._is_view(), u._base is w, u.grad_fn.name())
c = w.clone()
c[0] = 5.0
print(c._is_view(), c.grad_fn.name(), c[1:]._is_view())
"""


def test_tensor_is_view_is_whether_autograd_tracks_a_base() -> None:
    """t._is_view() is True exactly for the tensors whose `_base` is set (slices, view,
    t(), expand, unbind's outputs, a no_grad view), False for detach/.data/clone/copies."""
    assert gradtrace_output(IS_VIEW) == torch_output(IS_VIEW)
