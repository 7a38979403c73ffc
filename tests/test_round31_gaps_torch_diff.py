"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 31
found: torch.spmm (pytorch/examples' GCN multiplies its normalised adjacency matrix with it),
which torch binds as mm under a second name, so with strided tensors it is mm: MmBackward0,
`out=`, and mm's argument messages; the memory order of elementwise results whose inputs
are laid out differently (TensorIterator's, not numpy's), and the (1, m) strides of a
one-column LAPACK result (swyoon's minimal Gaussian process was 1 ulp off through both).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SPMM = """import torch
torch.manual_seed(0)
a = torch.rand(3, 3)
b = torch.rand(3, 2, requires_grad=True)
c = torch.spmm(a, b)
print(c, c.grad_fn.name())
c.sum().backward()
print(b.grad)
print(torch.spmm(input=a, mat2=a).shape, torch.spmm(a, a, out=torch.empty(3, 3)).shape)
print(repr(torch.spmm).split(" at ")[0], torch.spmm.__name__, type(torch.spmm).__name__)
for args in [(torch.rand(3), a), (a, torch.rand(4, 2)), (a, 3), (a,), (a, a.double())]:
    try:
        torch.spmm(*args)
    except Exception as e:
        print(type(e).__name__, e)
try:
    torch.spmm(a, b=a)
except Exception as e:
    print(type(e).__name__, e)
"""


def test_spmm_of_strided_tensors_is_mm_as_in_torch() -> None:
    """torch.spmm's messages name mm(): it is the same binding, and with no sparse layout in
    gradtrace it multiplies as mm does."""
    assert gradtrace_output(SPMM) == torch_output(SPMM)


MIXED_LAYOUTS = """import torch
torch.manual_seed(0)
e = torch.rand(4, 5)
g = torch.rand(5, 4).t()
c = torch.rand(3, 4, 5).permute(2, 0, 1)
d = torch.rand(5, 3, 4)
for out in (g * e, e * g, g + e, e - g, g / e, g > e, torch.maximum(g, e), g * e[:1],
            e[:, :1] * g, c * d, d + c, c.sum(1, keepdim=True) * d):
    print(tuple(out.shape), out.stride())
a = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
x = torch.rand(12, 12)
w = torch.rand(12, 12)
(a * x).backward((w @ w.t()).t().contiguous().t())
print(a.grad.item().hex(), (torch.rand(12, 12).t() * x).sum().item().hex())
"""


def test_elementwise_results_follow_the_first_input_s_memory_order_as_in_torch() -> None:
    """TensorIterator orders an elementwise result's dims by the first input whose strides
    tell them apart (numpy lets any row-major input win), and a sum of it adds in that
    memory order."""
    assert gradtrace_output(MIXED_LAYOUTS) == torch_output(MIXED_LAYOUTS)


GP_STEPS = """import numpy as np
import torch
torch.manual_seed(0)
X = torch.rand(12, 1) * 6 - 3
y = torch.sin(X) + 0.1 * torch.randn(12, 1)
params = [torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64)) for _ in range(3)]
opt = torch.optim.Adam(params, lr=0.1)
for i in range(7):
    length, noise, amplitude = (torch.exp(p) for p in params)
    sq = (X ** 2).sum(dim=1, keepdim=True)
    K = amplitude * torch.exp(-0.5 * (sq + sq.T - 2 * X.mm(X.T)) / length) + noise * torch.eye(12)
    L = torch.linalg.cholesky(K)
    alpha = torch.linalg.solve(L.T, torch.linalg.solve(L, y))
    nll = -(-0.5 * y.T.mm(alpha) - torch.log(torch.diag(L)).sum() - 0.5 * np.log(2 * np.pi)).sum()
    opt.zero_grad()
    nll.backward()
    opt.step()
    print(i, nll.item().hex(), [p.grad.item().hex() for p in params])
"""


def test_a_gaussian_process_s_steps_are_torch_s_bits() -> None:
    """swyoon's minimal GP: the amplitude's gradient sums `grad * other` with the
    Cholesky backward's column-major gradient first (its memory order), and y.T @ alpha
    multiplies a (12, 1) solution whose column-major strides are (1, 12), which decides
    the BLAS order."""
    assert gradtrace_output(GP_STEPS) == torch_output(GP_STEPS)
