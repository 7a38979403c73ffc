"""Differential tests against live PyTorch 2.13: complex mv, addmv, addmm, inner and
where (complex64 and complex128).

torch's gemv_use_fast_path is false for complex types, so mv/addmv/`matrix @ vector` run
BlasKernel.cpp's own loop (no FMA: each c10::complex product and sum rounded), 'n' for a
column-major matrix (y += (alpha x[j]) a[:, j] column by column) and 't' otherwise (each
row's sum from 0, then alpha sum or beta y + alpha sum); addmm is MKL's cgemm/zgemm with
torch's conjugate flags for conj views; the gradients follow derivatives.yaml's conjugate
Wirtinger formulas (grad.ger(vec.conj()), mat.conj().t().mv(grad), alpha.conj(),
beta.conj()). Values bit for bit, gradients, node names, the gradients' strides.

Skipped unless torch is importable.
"""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import TORCH as gt_torch
from ops_helpers import finite_difference_tests
from script_runs import address_free, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


PRODUCTS = """import torch
torch.manual_seed(3)
def bits(t):
    t = t.detach().resolve_conj()
    r = torch.view_as_real(t.contiguous()) if t.is_complex() else t
    r = r.contiguous()
    return r.view(torch.int32 if r.dtype == torch.float32 else torch.int64).flatten().tolist()
for dt in (torch.complex64, torch.complex128):
    for (r, c) in [(1, 1), (3, 5), (17, 9), (1, 40), (40, 1), (33, 64)]:
        base = torch.randn(c, r, dtype=dt) * 3
        mats = {'c': torch.randn(r, c, dtype=dt), 't': base.t(),
                's': torch.randn(r, 2 * c, dtype=dt)[:, ::2],
                'conj': torch.randn(r, c, dtype=dt).conj(), 'tconj': base.conj().t(),
                'ts': torch.randn(2 * c, r, dtype=dt)[::2].t(),
                'tsconj': torch.randn(2 * c, r, dtype=dt)[::2].conj().t()}
        vecs = {'c': torch.randn(c, dtype=dt), 's': torch.randn(3 * c, dtype=dt)[::3],
                'e': torch.randn(1, dtype=dt).expand(c), 'conj': torch.randn(c, dtype=dt).conj()}
        bias = torch.randn(r, dtype=dt)
        for mk, m in mats.items():
            for vk, v in vecs.items():
                print(r, c, mk, vk, bits(torch.mv(m, v)), bits(m @ v))
                print(bits(torch.addmv(bias, m, v)),
                      bits(torch.addmv(bias, m, v, beta=0.5, alpha=2)))
                print(bits(torch.addmv(bias, m, v, beta=1-2j, alpha=0.25+1j)),
                      bits(torch.addmv(bias, m, v, beta=0)))
                print(bits(torch.addmv(bias[:1], m, v, beta=3)))
        # gradients
        m = torch.randn(r, c, dtype=dt, requires_grad=True)
        v = torch.randn(c, dtype=dt, requires_grad=True)
        b = torch.randn(r, dtype=dt, requires_grad=True)
        w = torch.randn(r, dtype=dt)
        for alpha, beta in ((1, 1), (2, 0.5), (1+1j, 2-1j)):
            y = torch.addmv(b, m, v, beta=beta, alpha=alpha)
            (y * w).sum().abs().backward()
            print(type(y.grad_fn).__name__, bits(m.grad), bits(v.grad), bits(b.grad))
            m.grad = v.grad = b.grad = None
        y = torch.mv(m.t().conj().t(), v.conj())
        torch.view_as_real(y).pow(2).sum().backward()
        print(type(y.grad_fn).__name__, bits(m.grad), bits(v.grad))
        mt = torch.randn(c, r, dtype=dt).t().requires_grad_()
        y = mt @ v
        (y * w).sum().abs().backward()
        print(bits(mt.grad), mt.grad.stride(), bits(v.grad))
        for k in (1, 7, 20):
            A = torch.randn(r, k, dtype=dt, requires_grad=True)
            B = torch.randn(c, k, dtype=dt).t().requires_grad_()
            bias = torch.randn(c, dtype=dt, requires_grad=True)
            for alpha, beta in ((1, 1), (2, 0.5), (1+1j, 2-1j), (1, 0)):
                y = torch.addmm(bias, A, B, beta=beta, alpha=alpha)
                (y * torch.randn(r, c, dtype=dt)).sum().abs().backward()
                print(k, type(y.grad_fn).__name__, bits(y), bits(A.grad), bits(B.grad),
                      bits(bias.grad), bias.grad.stride(), B.grad.stride() if alpha == 1 else '')
                A.grad = B.grad = bias.grad = None
            a_, b_, bias_ = A.detach(), B.detach(), bias.detach()
            print(bits(torch.addmm(bias_, a_.conj(), b_)),
                  bits(torch.addmm(bias_.conj(), a_, b_.conj(), alpha=3j)))
            if r * c > 1:
                print(bits(torch.inner(A, B.t())), bits(torch.inner(A[0], B[:, 0])),
                      bits(torch.inner(A.conj(), B.t())))
            x = torch.randn(2, 3, k, dtype=dt, requires_grad=True)
            y = torch.inner(x, A)
            (y * torch.randn(y.shape, dtype=dt)).sum().abs().backward()
            print(y.shape, type(y.grad_fn).__name__, y.grad_fn.next_functions[0][0].name(),
                  bits(y), bits(x.grad), bits(A.grad))
            A.grad = None
"""


def test_complex_mv_addmv_addmm_inner_bit_for_bit_with_gradients_like_torch() -> None:
    """Every layout torch's addmv_out_cpu tells apart (column-major, row-major, strided,
    a conj view's written-out values, a broadcast vector, a broadcast bias) and real and
    complex alpha/beta."""
    assert address_free(gradtrace_output(PRODUCTS)) == address_free(torch_output(PRODUCTS))


NODES = """import torch
torch.manual_seed(0)
for dt in (torch.complex64, torch.complex128):
    A = torch.randn(3, 3, dtype=dt).requires_grad_()
    B = torch.randn(3, 3, dtype=dt).requires_grad_()
    v = torch.randn(3, dtype=dt).requires_grad_()
    w = torch.randn(3, dtype=dt).requires_grad_()
    for y in (torch.mv(A, v), A @ v, torch.addmm(B, A, A, beta=0.5, alpha=2), torch.addmv(v, A, w),
              torch.where(torch.tensor([True, False, True]), v, w), torch.inner(v, w),
              torch.inner(A, B), torch.where(v.real > 0, v, 0)):
        print(y.dtype, y.grad_fn.name(), y.grad_fn.next_functions)
        print(torch.view_as_real(y.detach()).flatten().tolist())
        torch.view_as_real(y).pow(2).sum().backward()
        for t in (A, B, v, w):
            print(None if t.grad is None else torch.view_as_real(t.grad).flatten().tolist())
            t.grad = None
"""


def test_complex_products_and_where_record_torchs_nodes() -> None:
    assert address_free(gradtrace_output(NODES)) == address_free(torch_output(NODES))


def _c(re: object, im: object) -> object:
    return gt_torch.complex(re, im)


GRADCHECK = {
    "mv": (lambda ar, ai, vr, vi: gt_torch.view_as_real(gt_torch.mv(_c(ar, ai), _c(vr, vi))),
           lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4)),
                      r.standard_normal(4), r.standard_normal(4)]),
    "addmv": (lambda br, ar, ai, vr: gt_torch.view_as_real(gt_torch.addmv(
        _c(br, br), _c(ar, ai), _c(vr, vr), beta=0.5 - 1j, alpha=2 + 1j)),
        lambda r: [r.standard_normal(3), r.standard_normal((3, 4)), r.standard_normal((3, 4)),
                   r.standard_normal(4)]),
    "addmm": (lambda br, ar, ai, mr: gt_torch.view_as_real(gt_torch.addmm(
        _c(br, ar[0]), _c(ar, ai), _c(mr, mr).t(), beta=1 + 1j, alpha=0.5 - 2j)),
        lambda r: [r.standard_normal(4), r.standard_normal((3, 4)), r.standard_normal((3, 4)),
                   r.standard_normal((4, 4))]),
    "inner": (lambda ar, ai, br: gt_torch.view_as_real(gt_torch.inner(_c(ar, ai), _c(br, ar))),
              lambda r: [r.standard_normal((2, 3)), r.standard_normal((2, 3)),
                         r.standard_normal((2, 3))]),
    "where": (lambda ar, ai, br: gt_torch.view_as_real(gt_torch.where(
        ar > 0, _c(ar, ai), _c(br, ar))), lambda r: [r.standard_normal(5),
                                                       r.standard_normal(5),
                                                       r.standard_normal(5)]),
}

test_complex_products_gradcheck, _ = finite_difference_tests(
    GRADCHECK, [], lambda name: np.random.default_rng([12, sum(map(ord, name))]))
