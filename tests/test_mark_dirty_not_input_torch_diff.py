"""Differential test against live PyTorch 2.13: ctx.mark_dirty() on a tensor that is not an
input is an error when that tensor is a view of an intermediate (repeat_interleave's result,
`(x * 2).view(...)`: torch's TORCH_CHECK(!var.is_view())) and still only a warning when it is
not a view; a view of the input itself is the leaf in-place error.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

FORWARDS = {
    "view_of_intermediate": "y = (x * 2).view(2, 1)",
    "repeat_interleave": "y = x.repeat_interleave(2)",
    "plain_intermediate": "y = x * 2",
    "view_of_input": "y = x.view(2, 1)",
}


@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_mark_dirty_on_a_tensor_that_is_not_an_input_like_torch(name: str) -> None:
    script = f"""import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        {FORWARDS[name]}
        ctx.mark_dirty(y)
        return y

    @staticmethod
    def backward(ctx, g):
        return g.reshape(-1)[:2] * 2

for rg in (True, False):
    x = torch.ones(2, requires_grad=rg)
    try:
        r = F.apply(x)
        print(rg, 'ok', r)
    except RuntimeError as e:
        print(rg, 'RuntimeError', e)
"""
    assert gradtrace_output(script) == torch_output(script)
