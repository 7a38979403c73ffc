"""Differential tests against live PyTorch 2.13: Tensor.view(dtype) reinterprets the bits
(gradtrace refused a dtype as a size): not differentiable, sharing memory and version
counter, the last dim rescaled when element sizes differ, after torch's checks; and the
in-place add-products: Tensor.addmm_ (gradtrace had none) records AddmmBackward0 as torch
does, addmm_/addmv_/baddbmm_ word a broadcast self as structured kernels do ("Bad in-place
call"), addr_ takes only a 2-D self of the outer product's size.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

VIEW_SETUP = """
x = torch.tensor([1.0, -2.5, 3.25, 0.0])
w = torch.tensor([1.0, 2.0], requires_grad=True)
def shared():
    a = torch.zeros(2)
    b = a.view(torch.int32)
    b[0] = 1065353216
    first = (a.tolist(), b._base is None, b._version, a._version)
    a.add_(1)
    return first, b, b._version
def through_int(t):
    b = t.view(torch.int32)
    b.add_(1)
    return t, b.requires_grad, b.is_leaf
"""

VIEWS = [
    "x.view(torch.int32)", "x.view(torch.int16)", "x.view(torch.uint8)", "x.view(torch.float16)",
    "x.view(torch.bfloat16)", "x.view(torch.float64)", "x.view(torch.int64)",
    "x.view(torch.bool)", "x.view(dtype=torch.int32)", "x.view(torch.int32).view(torch.float32)",
    "torch.tensor([1065353216, 0], dtype=torch.int32).view(torch.float32)",
    "torch.arange(8, dtype=torch.uint8).view(torch.float32)",
    "torch.arange(3, dtype=torch.uint8).view(torch.int16)",
    "torch.arange(6, dtype=torch.int32).view(2, 3).view(torch.int16)",
    "torch.arange(6, dtype=torch.int16).view(2, 3).view(torch.int64)",
    "torch.arange(6.).view(2, 3).t().view(torch.int32)",
    "torch.arange(6.).view(2, 3).t().view(torch.int16)",
    "torch.arange(6.).view(2, 3).t().view(torch.float64)",
    "torch.tensor(1.0).view(torch.int32)", "torch.tensor(1.0).view(torch.int16)",
    "torch.tensor(1.0).view(torch.float64)",
    "torch.arange(8, dtype=torch.int16)[1:5].view(torch.int32)",
    "torch.arange(8, dtype=torch.int16)[2:6].view(torch.int32)",
    "torch.arange(12, dtype=torch.int16).view(3, 4)[:, :2].view(torch.int32)",
    "torch.arange(18, dtype=torch.int16).view(3, 6)[:, :2].view(torch.int32)",
    "torch.arange(6.).view(3, 2)[:, :1].view(torch.int16)",
    "torch.tensor([1.5, -2.0], dtype=torch.bfloat16).view(torch.int16)",
    "torch.zeros(2, 4, device='meta').view(torch.int16)",
    "w.view(torch.int32)", "(w * 1).view(torch.float32)", "(w * 1).view(torch.float16)",
    "(w * 1).view(torch.float32).grad_fn", "(w * 1).view(torch.float32).requires_grad",
    "shared()", "through_int(torch.ones(3, requires_grad=True))",
    "x.view(-1, torch.int32)", "x.view(torch.int32, 2)", "x.view('float')",
]


def test_view_dtype_reinterprets_like_torch() -> None:
    script = each_expression(VIEWS, VIEW_SETUP, dtype=True)
    assert gradtrace_output(script) == torch_output(script)


PRODUCT_SETUP = """
torch.manual_seed(0)
M = torch.randn(2, 3, requires_grad=True)
A = torch.randn(2, 4, requires_grad=True)
B = torch.randn(4, 3, requires_grad=True)
V = torch.randn(4, requires_grad=True)
def node(r):
    fn = r.grad_fn
    return (r, fn.name(), [type(n).__name__ for n, _ in fn.next_functions], fn._saved_alpha,
            fn._saved_beta, tuple(fn._saved_mat1.shape), tuple(fn._saved_mat2.shape))
def grads(beta, alpha):
    M.grad = A.grad = B.grad = None
    (M * 1).addmm_(A, B, beta=beta, alpha=alpha).sum().backward()
    return M.grad, A.grad, B.grad
"""

PRODUCTS = [
    "node((M * 1).addmm_(A, B))", "node((M * 1).addmm_(A, B, beta=0.5, alpha=2))",
    "node((M * 1).addmm_(A, B, beta=0))", "M.addmm_(A, B)",
    "M.detach().clone().addmm_(A.detach(), B.detach())",
    "(M * 1).addmm_(A, B).tolist() == torch.addmm(M, A, B).tolist()", "grads(0.5, 2)",
    "torch.ones(3).addmm_(torch.ones(2, 4), torch.ones(4, 3))",
    "torch.ones(1, 3).addmm_(torch.ones(2, 4), torch.ones(4, 3))",
    "torch.ones(()).addmm_(torch.ones(2, 4), torch.ones(4, 3))",
    "torch.ones(1).addmv_(torch.ones(2, 4), torch.ones(4))",
    "torch.ones(2, 3).baddbmm_(torch.ones(2, 2, 4), torch.ones(2, 4, 3))",
    "torch.ones(3).addr_(torch.ones(2), torch.ones(3))",
    "torch.ones(1, 3).addr_(torch.ones(2), torch.ones(3))",
    "torch.ones(3, 2).addr_(torch.ones(2), torch.ones(3))",
    "torch.ones(1, 2, 3).addr_(torch.ones(2), torch.ones(3))",
    "torch.ones(2, 3).addr_(torch.ones(2), torch.arange(3.), beta=2)",
    "torch.ones(3).add_(torch.ones(2, 3))",
]


def test_inplace_add_products_like_torch() -> None:
    script = each_expression(PRODUCTS, PRODUCT_SETUP)
    assert gradtrace_output(script) == torch_output(script)
