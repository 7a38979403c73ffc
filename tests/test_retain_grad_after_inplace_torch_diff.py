"""Differential tests against live PyTorch: retain_grad follows a tensor to the grad_fn an
in-place op gives it (torch's update_tensor_hooks_on_new_gradfn), so `.grad` is the gradient
of its latest value, while hooks registered before the in-place op stay on the old node;
for a tensor modified through a view (its CopySlices), for the view itself (AsStrided), for
other views whose history is regenerated, and for a custom Function's mark_dirty.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SCRIPTS = {
    "non_leaf_mul_": """
a = torch.tensor([1., 3.], requires_grad=True).clone()
a.retain_grad()
a.mul_(2)
(a * torch.tensor([5., 7.])).sum().backward()
print(a.grad, a.grad_fn.name())
""",
    "hook_before_stays_retain_moves": """
a = torch.tensor([1.], requires_grad=True).clone()
seen = []
a.register_hook(lambda g: seen.append(g))
a.retain_grad()
a.mul_(2)
a.add_(1)
(a * 3).sum().backward()
print(seen, a.grad)
""",
    "base_modified_through_view": """
x = torch.tensor([1., 2., 3., 4.], requires_grad=True).clone()
x.retain_grad()
x[1:3].mul_(10)
(x * torch.arange(4.)).sum().backward()
print(x.grad, x.grad_fn.name())
""",
    "view_modified_in_place": """
x = torch.ones(4, requires_grad=True).clone()
v = x[1:3]
v.retain_grad()
v.mul_(3)
(x * torch.arange(4.)).sum().backward()
print(v.grad, v.grad_fn.name())
""",
    "other_view_regenerated": """
x = torch.ones(4, requires_grad=True).clone()
xx = x[2:]
y = xx[1]
xx.retain_grad()
x[0] += 0
y.backward()
print(xx.grad)
""",
    "retain_grad_after_the_inplace_op": """
a = torch.tensor([2.], requires_grad=True).clone()
a.mul_(2)
a.retain_grad()
(a ** 2).sum().backward()
print(a.grad)
""",
    "mark_dirty": """
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2

a = torch.tensor([1., 2.], requires_grad=True).clone()
a.retain_grad()
b = Double.apply(a)
(b * torch.tensor([3., 4.])).sum().backward()
print(b is a, a.grad)
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_retain_grad_moves_to_the_grad_fn_an_inplace_op_gives(name: str) -> None:
    script = "import torch\n" + SCRIPTS[name]
    assert gradtrace_output(script) == torch_output(script)
