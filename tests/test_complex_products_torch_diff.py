"""Differential tests against live PyTorch 2.13: complex mv, addmv, addmm, inner, where,
reciprocal, var, std, sqrt, log and `**` (complex64 and complex128).

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

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")


# each script's start: torch, forward AD, and `bits`, a tensor's values as integers (a
# complex one's real and imaginary parts in turn) for comparing them bit for bit
PRELUDE = """import torch
import torch.autograd.forward_ad as fwAD
def bits(t):
    t = t.detach().resolve_conj()
    r = torch.view_as_real(t.contiguous()) if t.is_complex() else t
    r = r.contiguous()
    return r.view(torch.int32 if r.dtype == torch.float32 else torch.int64).flatten().tolist()
"""


PRODUCTS = PRELUDE + """torch.manual_seed(3)
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


RECIPROCALS = PRELUDE + """torch.manual_seed(5)
for dt in (torch.complex64, torch.complex128):
    for n in (1, 3, 4, 5, 8, 9, 17, 33):
        z = (torch.randn(n, dtype=dt) * torch.exp(torch.randn(n) * 4).to(dt)).requires_grad_()
        y = z.reciprocal()
        w = torch.randn(n, dtype=dt)
        (y * w).sum().abs().backward()
        with fwAD.dual_level():
            jvp = fwAD.unpack_dual(fwAD.make_dual(z.detach(), w).reciprocal()).tangent
        print(n, y.grad_fn.name(), bits(y), bits(z.grad), bits(jvp), bits(1 / z), bits(2.5 / z),
              bits((1 - 2j) / z), type((1 / z).grad_fn).__name__)
    big = torch.randn(20000, dtype=dt) * 1e3
    print(torch.view_as_real(big.reciprocal()).view(
        torch.int32 if dt == torch.complex64 else torch.int64).sum().item())
    m = torch.randn(9, 6, dtype=dt)
    for v in (m.t(), m[:, ::2], m[:1].expand(5, 6), m.conj()):
        r = v.reciprocal()
        print(r.stride(), r.is_conj(), bits(r), bits(torch.reciprocal(v)))
    x = m.clone()
    x.reciprocal_()
    print(bits(x))
    sp = [0., -0., float('inf'), -float('inf'), float('nan'), 1e-40, 1e38, 3e-39, 1., -2.]
    z = torch.complex(torch.tensor([a for a in sp for b in sp]),
                      torch.tensor([b for a in sp for b in sp])).to(dt)
    print(bits(z.reciprocal()), bits(z[:7].reciprocal()))
"""


def test_complex_reciprocal_and_number_over_tensor_bit_for_bit_like_torch() -> None:
    """reciprocal_kernel's 1 / a is c10::complex's operator/ in the vector body too (the
    numerator's products exact, the denominator's FMA everywhere); 1 / (0 + 0i) is
    inf + nan i with torch's positive nan; `number / z` is z.reciprocal() * number; the
    gradient -grad * (result * result).conj() and the forward derivative."""
    assert gradtrace_output(RECIPROCALS) == torch_output(RECIPROCALS)


VARIANCES = PRELUDE + """torch.manual_seed(7)
for dt in (torch.complex64, torch.complex128):
    for shape in ((1,), (5,), (17,), (300,), (30000,), (3, 4), (6, 33), (2, 3, 5)):
        z = (torch.randn(shape, dtype=dt) * 3 + (1 - 2j)).requires_grad_()
        for fn in ("var", "std"):
            f = getattr(torch, fn)
            outs = [f(z), f(z, correction=0), f(z, dim=0), f(z, dim=-1, keepdim=True)]
            if len(shape) > 1:
                outs += [f(z, dim=(0, 1)), f(z.transpose(0, 1), dim=1), f(z, dim=1, correction=2)]
            for y in outs:
                w = torch.rand(y.shape, dtype=y.dtype)
                z.grad = None
                (y * w).sum().backward()
                print(shape, fn, y.dtype, y.grad_fn.name(),
                      bits(y) if y.numel() < 50 else bits(y.sum()),
                      bits(z.grad) if z.numel() < 100 else bits(z.grad.sum()))
        m = torch.randn(7, 6, dtype=dt)
        for v in (m.t(), m[:, ::2], m.conj(), m[1:, 1:]):
            print(bits(v.var()), bits(v.std(dim=0)), bits(v.var(1, keepdim=True)))
    with fwAD.dual_level():
        z = torch.randn(4, 5, dtype=dt)
        t = torch.randn(4, 5, dtype=dt)
        d = fwAD.make_dual(z, t)
        print(bits(fwAD.unpack_dual(d.var()).tangent),
              bits(fwAD.unpack_dual(d.std(dim=1)).tangent))
    one = torch.randn(1, dtype=dt, requires_grad=True)
    y = one.var()
    y.backward()
    print(bits(y), bits(one.grad))
"""


def test_complex_var_and_std_bit_for_bit_with_gradients_like_torch() -> None:
    """std_var_out: the variances of the real and imaginary parts (strided views of the
    input) added, the square root by torch's float sqrt kernel (not numpy's: it differs in
    17% of float32 values); var_backward's (2 / dof) * grad * (self - self.mean()) in
    complex arithmetic; one element's gradient is nan (where(self == mean, nan, inf)); the
    forward derivative real(var_backward(t.conj(), ...).sum())."""
    assert gradtrace_output(VARIANCES) == torch_output(VARIANCES)


POWERS = PRELUDE + """torch.manual_seed(9)
for dt in (torch.complex64, torch.complex128):
    for n in (1, 2, 3, 5, 8, 9, 11, 16, 17, 23, 39, 100):
        z = torch.randn(n, dtype=dt, requires_grad=True)
        w = torch.randn(n, dtype=dt)
        for e in (0, 1, 2, 3, -1, 2.0, 3.0, -1.0):
            y = z ** e
            z.grad = None
            (y * w).sum().abs().backward()
            with fwAD.dual_level():
                jvp = fwAD.unpack_dual(fwAD.make_dual(z.detach(), w) ** e).tangent
            print(n, e, y.grad_fn.name(), bits(y), bits(z.grad), bits(jvp), bits(torch.pow(z, e)))
        print(bits(z.detach() ** -2), bits(z.detach().pow(-2.0)))
    m = torch.randn(9, 13, dtype=dt)
    for v in (m.t(), m[:, ::2], m[1:, 1:], m.conj(), m.t()[::3]):
        print([bits(v ** e) for e in (2, 3, -1, -2)], (v ** 2).stride(), (v ** 3).stride())
    big = torch.randn(50000, dtype=dt)
    print([torch.view_as_real(big ** e).double().sum().item() for e in (2, 3, -2)])
    sp = [0., -0., float('inf'), float('nan'), 1e-30, 1e30, 1.]
    z = torch.complex(torch.tensor([a for a in sp for b in sp]),
                      torch.tensor([b for a in sp for b in sp])).to(dt)
    print([bits(z ** e) for e in (2, 3, -2)])
"""


def test_complex_powers_by_small_integers_bit_for_bit_like_torch() -> None:
    """pow_tensor_scalar_optimized_kernel: ** 2 and ** 3 are products (the scalar code's
    FMAs as GCC contracted them, the cube's odd last one unfused for complex64), ** -1
    reciprocal_kernel, ** -2 the reciprocal of the square, ** 0 a fill, ** 1 a copy; the
    gradient grad * (exp * self.pow(exp - 1)).conj() and the forward derivative."""
    assert gradtrace_output(POWERS) == torch_output(POWERS)


GENERAL_POWERS = PRELUDE + """torch.manual_seed(11)
for dt in (torch.complex64, torch.complex128):
    for n in (1, 5, 9, 17):
        z = torch.randn(n, dtype=dt, requires_grad=True)
        w = torch.randn(n, dtype=dt)
        for e in (0.5, -0.5, 1.5, 4, -3, 0.3, 1+1j, 2-0.5j, 2.5):
            y = z ** e
            z.grad = None
            (y * w).sum().abs().backward()
            with fwAD.dual_level():
                jvp = fwAD.unpack_dual(fwAD.make_dual(z.detach(), w) ** e).tangent
            print(n, e, y.grad_fn.name(), bits(y), bits(z.grad), bits(jvp), bits(torch.pow(z, e)))
    m = torch.randn(5, 7, dtype=dt)
    for v in (m.t(), m[:, ::2], m.conj(), m[:1].expand(4, 7)):
        print([bits(v ** e) for e in (0.5, -0.5, 4, 1j)], (v ** 4).stride(), (v ** 0.5).stride())
    x = torch.randn(6)
    print(bits(x ** (1 + 1j)), bits(x.double() ** 2j), bits(torch.sqrt(m)), (x ** 1j).dtype)
    sp = [0., -0., float('inf'), float('nan'), 1e-30, 1.]
    z = torch.complex(torch.tensor([a for a in sp for b in sp]),
                      torch.tensor([b for a in sp for b in sp])).to(dt)
    print([bits(z ** e) for e in (0.5, -0.5, 4, 1.5, 1j)])
"""


def test_complex_powers_by_other_numbers_and_sqrt_bit_for_bit_like_torch() -> None:
    """** 0.5 is sqrt_kernel (std::sqrt, the C library's csqrt), ** -0.5 rsqrt_kernel
    (1 / csqrt, c10::complex's division), any other number std::pow, the C library's cpow
    (numpy's power multiplies for integer exponents: not it); a real tensor to a complex
    power; the gradients grad * (exp * self.pow(exp - 1)).conj()."""
    assert gradtrace_output(GENERAL_POWERS) == torch_output(GENERAL_POWERS)


SQUARE_ROOTS = PRELUDE + """torch.manual_seed(12)
for dt in (torch.complex64, torch.complex128):
    for n in (1, 3, 8, 9, 17, 40):
        z = torch.randn(n, dtype=dt, requires_grad=True)
        w = torch.randn(n, dtype=dt)
        y = z.sqrt()
        (y * w).sum().abs().backward()
        with fwAD.dual_level():
            jvp = fwAD.unpack_dual(fwAD.make_dual(z.detach(), w).sqrt()).tangent
        print(n, y.grad_fn.name(), bits(y), bits(z.grad), bits(jvp), bits(torch.sqrt(z)))
    m = torch.randn(5, 7, dtype=dt)
    for v in (m.t(), m[:, ::2], m.conj(), m[:1].expand(4, 7)):
        print(bits(v.sqrt()), v.sqrt().stride())
"""


def test_complex_sqrt_and_its_gradients_like_torch() -> None:
    """csqrt everywhere; the gradient grad / (2 * result.conj()) as div rounds it."""
    assert gradtrace_output(SQUARE_ROOTS) == torch_output(SQUARE_ROOTS)


TENSOR_POWERS = PRELUDE + """torch.manual_seed(13)
for dt, rt in ((torch.complex64, torch.float32), (torch.complex128, torch.float64)):
    z = torch.randn(4, 3, dtype=dt)
    z[0, 0] = 0.5
    w = torch.randn(3, dtype=dt)
    w[1] = 0
    r = torch.randn(4, 3, dtype=rt).abs()
    r[1, 1] = 0
    e = torch.randn(3, dtype=rt)
    e[0] = 0
    for a, b in ((z, w), (z, e), (r, w), (z.t(), w[:, None]),
                 (z, torch.tensor(2.5, dtype=dt)), (z, torch.tensor(2, dtype=dt))):
        a = a.clone().requires_grad_()
        b = b.clone().requires_grad_()
        y = a ** b
        g = torch.randn(y.shape, dtype=dt)
        ga, gb = torch.autograd.grad(y, (a, b), g)
        print(y.grad_fn.name(), y.dtype, y.stride(), bits(y), bits(ga), bits(gb))
    for base in (2, 1, 1.5, -2.0, 1j):
        x = torch.randn(5, dtype=dt)
        x[0] = 0
        x = x.requires_grad_()
        y = base ** x
        y.backward(torch.randn(5, dtype=dt))
        print(base, y.grad_fn.name(), bits(y), bits(x.grad), bits(torch.pow(base, x)))
    xr = torch.randn(5, dtype=rt).requires_grad_()
    y = (1 + 1j) ** xr
    y.backward(torch.randn(5, dtype=dt))
    print(y.dtype, bits(y), bits(xr.grad))
    l = z.clone().requires_grad_()
    y = l.log()
    y.backward(torch.randn(4, 3, dtype=dt))
    print(bits(y), bits(l.grad), y.grad_fn.name())
"""


def test_complex_powers_by_tensors_numbers_to_tensors_and_log_like_torch() -> None:
    """pow_tensor_tensor_kernel is std::pow (cpow) for every pair, a 0-d exponent's too;
    a Scalar base: a fill for 1, else cpow; pow_backward_self and pow_backward_exponent
    (where(...), self.log() the C library's clog, the Scalar's log in complex double),
    log's gradient grad / self.conj(). (A base of 0 gives nans whose sign bits are not
    torch's in the gradients: not tested.)"""
    assert gradtrace_output(TENSOR_POWERS) == torch_output(TENSOR_POWERS)


POWER_TANGENTS = """import torch
import torch.autograd.forward_ad as fwAD
torch.manual_seed(14)
for dt in (torch.complex64, torch.complex128):
    z = torch.randn(4, dtype=dt); w = torch.randn(4, dtype=dt)
    tz = torch.randn(4, dtype=dt); tw = torch.randn(4, dtype=dt)
    with fwAD.dual_level():
        for f in (lambda a, b: a ** b, lambda a, b: 2 ** b, lambda a, b: a.log(),
                  lambda a, b: a.sqrt(), lambda a, b: a ** 1.5):
            try:
                y = f(fwAD.make_dual(z, tz), fwAD.make_dual(w, tw))
                print(torch.view_as_real(fwAD.unpack_dual(y).tangent).flatten().tolist())
            except Exception as e:
                print(type(e).__name__, str(e)[:80])
"""


def test_complex_power_log_and_sqrt_tangents_like_torch() -> None:
    """The forward derivatives: pow.Tensor_Tensor's (pow_backward_self(self_t.conj(), ...)
    + pow_backward_exponent(exponent_t.conj(), ...)).conj(), auto_element_wise's formula of
    the conjugated tangent, conjugated."""
    assert gradtrace_output(POWER_TANGENTS) == torch_output(POWER_TANGENTS)


@pytest.mark.parametrize("expression", ["z.expand(3, 4) ** 2", "z.expand(3, 4) ** -2"])
def test_complex_squares_of_broadcast_tensors_are_refused(expression: str) -> None:
    """A broadcast base's products round otherwise (not reproduced): NotSupportedError,
    not a guess."""
    result = run_text(f"import torch\nz = torch.complex(torch.ones(4), torch.ones(4))\n"
                      f"{expression}\n")
    assert result.error is not None
    assert result.error.kind == "NotSupportedError", result.error.message


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
    "reciprocal": (lambda ar, ai: gt_torch.view_as_real(gt_torch.reciprocal(_c(ar, ai))),
                   lambda r: [r.standard_normal(5) + 2, r.standard_normal(5)]),
    "var": (lambda ar, ai: gt_torch.var(_c(ar, ai), dim=1),
            lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4))]),
    "std": (lambda ar, ai: gt_torch.std(_c(ar, ai)),
            lambda r: [r.standard_normal(6), r.standard_normal(6)]),
    "pow3": (lambda ar, ai: gt_torch.view_as_real(_c(ar, ai) ** 3),
             lambda r: [r.standard_normal(5), r.standard_normal(5)]),
    "pow_general": (lambda ar, ai: gt_torch.view_as_real(_c(ar, ai) ** (1.5 - 0.5j)),
                    lambda r: [r.standard_normal(5) + 3, r.standard_normal(5)]),
    "sqrt": (lambda ar, ai: gt_torch.view_as_real(gt_torch.sqrt(_c(ar, ai))),
             lambda r: [r.standard_normal(5) + 3, r.standard_normal(5)]),
    "pow_tensors": (lambda ar, ai, br: gt_torch.view_as_real(_c(ar, ai) ** _c(br, ai)),
                    lambda r: [r.standard_normal(4) + 3, r.standard_normal(4),
                               r.standard_normal(4)]),
    "where": (lambda ar, ai, br: gt_torch.view_as_real(gt_torch.where(
        ar > 0, _c(ar, ai), _c(br, ar))), lambda r: [r.standard_normal(5),
                                                       r.standard_normal(5),
                                                       r.standard_normal(5)]),
}

test_complex_products_gradcheck, _ = finite_difference_tests(
    GRADCHECK, [], lambda name: np.random.default_rng([12, sum(map(ord, name))]))
