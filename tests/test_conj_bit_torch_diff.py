"""Differential tests against live PyTorch 2.13: the conjugate bit (engine/conj_bit.py).

`x.conj()` of a complex tensor, `mH`, `H` and `adjoint()` are lazily conjugated views:
`is_conj()` True, sharing x's storage (data_ptr, storage_offset, strides, `_base`, the
version counter), writes through them landing conjugated in x and x's writes seen through
them; their views keep the bit, `.real` reads the storage's real parts, and clone,
contiguous, resolve_conj, conj_physical and every computing op resolve it. Matrix products
hand BLAS the storage with the conjugate as a flag (bit for bit: `a @ b.mH` rounds otherwise
than the written-out conjugate); autograd records ConjBackward0, whose gradient is itself a
conj view (`x.grad.is_conj()` True). torch's errors: numpy(), view_as_real and view(dtype)
of a conj view. `.imag` of one is a view with torch's negative bit (is_neg() True).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import address_free, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


def _same(script: str) -> None:
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


def test_conj_is_a_view_sharing_storage_like_torch() -> None:
    _same("""import torch
x = torch.tensor([1+2j, 3-4j, 5+0.5j])
y = x.conj()
print(y, y.is_conj(), x.is_conj(), y.data_ptr() == x.data_ptr(), y._base is x, y.grad_fn)
print(y.stride(), y.storage_offset(), y[1:].storage_offset(), y._version)
print(y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
print(x.conj().conj().is_conj(), x.conj().conj() is x, x.conj().conj()._base is x)
print(torch.conj(torch.tensor([1., 2.])).is_conj(), torch.is_conj(y), y.is_neg())
print(repr(x.conj()), str(y), y.tolist(), torch.tensor(1+2j).conj().item())
m = torch.tensor([[1+1j, 2-1j, 0.5j], [3, 4-1j, -2j]], dtype=torch.complex128)
print(m.conj(), m.conj().stride(), m.t().conj().stride(), m.mH, m.mH.stride(), m.mH.is_conj())
print(m.H, m.adjoint(), m.adjoint().is_conj(), m.mT.is_conj())
""")


def test_writes_go_through_a_conj_view_conjugated_like_torch() -> None:
    _same("""import torch
x = torch.tensor([1+2j, 3-4j, 5+0.5j])
y = x.conj()
y[0] = 1+2j
print(x, y, x._version, y._version)
y.add_(1)
print(x, y)
x.mul_(2)
print(y)
x[1] = 7j
z = y[1:]
print(y, z, z.is_conj(), z._base is x)
z.mul_(1j)
print(x, y, z)
d = y.data
print(d.is_conj(), y.detach().is_conj())
d[0] = 9
print(x)
r = y.real
print(r, r.is_conj(), r._base is x)
r[2] = -3.
print(x, y)
m = torch.zeros(2, 3, dtype=torch.complex128)
h = m.mH
h[0, 1] = 1+1j
h[2] += 2j
print(m, h)
""")


def test_views_and_ops_of_a_conj_view_like_torch() -> None:
    _same("""import torch
x = torch.tensor([[1+2j, 3-4j, 5+0.5j], [0.5-1j, 2, 0.25-3j]])
y = x.conj()
for v in (y[1], y[:, 1:], y.t(), y.reshape(3, 2), y.view(6), y.unsqueeze(0), y.expand(2, 2, 3),
          y.transpose(0, 1), y.flatten(), y.mT, y.unbind()[1], y.split(1)[0]):
    print(v, v.is_conj(), v._base is x, v.stride())
for v in (y.resolve_conj(), y.conj_physical(), y.clone(), y.contiguous(), y + 1, y * y,
          y.to(torch.complex128), y[[1, 0]], torch.cat([x, y], -1), torch.stack([y, y]),
          y.sum(), y.abs(), y.exp(), y.cumsum(1), y / (x + 1), y - x, -y):
    print(v, v.is_conj())
print(y.clone().stride(), y.t().clone().stride(), y.t().contiguous().stride())
print(torch.equal(y, x.conj_physical()), (y == x).tolist())
""")


def test_conj_view_errors_like_torch() -> None:
    for call in ("y.numpy()", "torch.view_as_real(y)", "y.view(torch.float32)",
                 "y.view(torch.complex64)"):
        _same(f"""import torch
y = torch.tensor([1+2j, 3-4j]).conj()
{call}
""")


NEGATIVE_BIT = """import torch
torch.manual_seed(0)
x = torch.tensor([1+2j, 3-4j, 5+0.5j])
c = x.conj()
y = c.imag
print(y, y.is_neg(), y.dtype, y.stride(), y.storage_offset(), y._base is x,
      y.data_ptr() - x.data_ptr(), y._version, y.is_conj())
y[0] = 7.
print(x, y, x._version, y._version)
y.add_(1)
print(x, y)
x.imag.mul_(2)
print(y)
r = y.resolve_neg(); print(r, r.is_neg(), r._base is None, r.stride())
print(y.clone().is_neg(), (y + 1), (y + 1).is_neg(), y.neg(), y.neg().is_neg(), (-y).is_neg(),
      y * 2, y.sum(), y[1:], y[1:].is_neg(), y.view(3, 1).is_neg(), y.tolist())
print(torch.is_neg(y), y.contiguous().is_neg(), y.detach().is_neg(), y.data.is_neg(), y.abs())
m = torch.randn(2, 3, dtype=torch.complex64)
print(m.mH.imag, m.mH.imag.is_neg(), m.mH.imag.stride(), m.conj().real.is_neg())
xr = torch.tensor([1+2j, 3-4j], requires_grad=True)
yi = xr.conj().imag
print(yi, yi.is_neg())
f = yi.grad_fn
while f is not None:
    print(type(f).__name__, end=' <- ')
    f = f.next_functions[0][0] if f.next_functions else None
print()
(yi * torch.tensor([1., 2.])).sum().backward()
print(xr.grad, xr.grad.is_neg(), xr.grad.is_conj())
try:
    y.numpy()
except Exception as e:
    print(type(e).__name__, e)
y = xr.detach().conj().imag
print(y + torch.ones(2), torch.ones(2) - y, y @ torch.ones(2), y.exp(), y.mean(), y.max(), y.sort())
z = y.unsqueeze(0).expand(3, 2)
print(z.is_neg(), y.t().is_neg(), y[0].is_neg(), y.unbind()[0].is_neg(),
      y.reshape(2, 1).is_neg(), y.flip(0).is_neg())
w = xr.detach().clone()
v = w.conj().imag
w.imag.zero_()
print(v)
v2 = w.conj().imag
v2.fill_(3.)
print(w, v2, v2._version)
v2.copy_(torch.tensor([1., 2.]))
print(w)
v3 = w.conj()
i3 = v3.imag
i3[1] = 9.
print(w, v3)
print(w.conj().imag.neg().is_neg(), torch.neg(w.conj().imag),
      w.conj().imag.resolve_neg().is_neg(), w.imag.is_neg())
n = torch._neg_view(torch.tensor([1., 2.]))
print(n, n.is_neg(), n._neg_view().is_neg(), torch._neg_view(n).tolist())
q = torch.randn(3, 4, dtype=torch.complex128, requires_grad=True)
qi = q.conj().imag
(qi.t() * torch.arange(12.).double().reshape(4, 3)).sum().backward()
print(q.grad, qi.t().is_neg(), qi.t().stride())
x = torch.tensor([1+2j, 3-4j])
y = x.conj().imag
for f in (lambda: y.view(torch.int32), lambda: y.view(torch.float32),
          lambda: torch.view_as_complex(torch.stack([y, y], -1)), lambda: y.to(torch.float64),
          lambda: y.double().is_neg(), lambda: y.unsqueeze(-1).expand(2, 2).contiguous(),
          lambda: y.storage_offset(),
          lambda: y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_imag_of_a_conj_view_is_a_neg_view_like_torch() -> None:
    """torch's `.imag` of a conj view is view_as_real(self._conj())._neg_view().select(-1,
    1): a view of the storage's imaginary parts with the negative bit (is_neg() True) that
    reads and writes them negated, whose views keep the bit and whose ops, resolve_neg and
    clone read the negated values; its graph SelectBackward0 <- NegViewBackward0 <-
    ViewAsRealBackward0 <- ConjBackward0 <- ConjBackward0; numpy()'s error."""
    _same(NEGATIVE_BIT)


PRODUCTS = """import torch
torch.manual_seed(0)
for dt in (torch.complex64, torch.complex128):
    for (m, k, n) in [(3, 4, 5), (8, 8, 8), (17, 33, 9), (1, 7, 2), (5, 1, 6), (2, 40, 3)]:
        A = torch.randn(m, k, dtype=dt); B = torch.randn(k, n, dtype=dt)
        Bt = torch.randn(n, k, dtype=dt); At = torch.randn(k, m, dtype=dt)
        cases = {
            'A@Bc': A @ B.conj(), 'Ac@B': A.conj() @ B, 'A@BtmH': A @ Bt.mH,
            'AtmH@B': At.mH @ B, 'AtmH@BtmH': At.mH @ Bt.mH, 'mm': torch.mm(A, Bt.mH),
            'mmc': torch.mm(A.conj(), B),
            'bmm': torch.bmm(A[None], Bt.mH[None]), 'bmmc': torch.bmm(A[None].conj(), B[None]),
            'bmmH': torch.bmm(At.mH[None], B[None].conj()),
            'batched': torch.stack([A, A]).conj() @ B, 'batchedH': torch.stack([At, At]).mH @ B,
            'mul': A * A.conj(), 'mulH': At.mH * A, 'add': A.conj() + A,
            'div': A.conj() / (A + 1), 'dot': torch.dot(B[:, 0].conj(), B[:, 1]),
            'vdot': torch.vdot(B[:, 0].conj(), B[:, 1]),
            'einsum': torch.einsum('ij,jk->ik', A, B.conj()), 'sum': A.conj().sum(),
            'cat': torch.cat([A, A.conj()], -1).sum(0),
        }
        for name, r in cases.items():
            print(name, dt, (m, k, n), r.is_conj(),
                  torch.view_as_real(r.resolve_conj()).flatten().tolist())
"""


def test_products_of_conj_views_round_like_torch() -> None:
    """mm/matmul hand BLAS the storage with the conjugate as a flag: `A @ Bt.mH`
    (complex128, (17, 33, 9)) and `At.mH @ Bt.mH` ((8, 8, 8)) round otherwise than with
    the conjugate written out (measured in torch 2.13), gradtrace as torch."""
    _same(PRODUCTS)


AUTOGRAD = """import torch
torch.manual_seed(0)
for dt in (torch.complex64, torch.complex128):
    for (m, k, n) in [(3, 4, 5), (8, 8, 8), (17, 33, 9), (1, 7, 2), (2, 40, 3)]:
        A = torch.randn(m, k, dtype=dt, requires_grad=True)
        B = torch.randn(k, n, dtype=dt, requires_grad=True)
        Bt = torch.randn(n, k, dtype=dt, requires_grad=True)
        At = torch.randn(k, m, dtype=dt, requires_grad=True)
        G = torch.randn(m, n, dtype=dt)
        for name, f in [('A@BtmH', lambda: A @ Bt.mH), ('Ac@B', lambda: A.conj() @ B),
                        ('AtmH@B', lambda: At.mH @ B), ('AtmH@BtmH', lambda: At.mH @ Bt.mH),
                        ('A@Bc', lambda: A @ B.conj()),
                        ('bmm', lambda: torch.bmm(A[None].conj(), Bt.mH[None])[0]),
                        ('mul', lambda: (A.conj() * A) @ B)]:
            for t in (A, B, At, Bt):
                t.grad = None
            f().backward(G)
            print(name, dt, (m, k, n), [None if t.grad is None else (
                t.grad.is_conj(), torch.view_as_real(t.grad.resolve_conj()).flatten().tolist())
                for t in (A, B, At, Bt)])
"""


def test_gradients_through_conj_views_like_torch() -> None:
    """ConjBackward0's gradient is the conj view of the incoming one, and the products'
    backward formulas multiply by conj views of conj views (plain storage): bit for bit."""
    _same(AUTOGRAD)


def test_conj_autograd_graph_like_torch() -> None:
    _same("""import torch
a = torch.tensor([1+2j, 3-4j], requires_grad=True)
b = a.conj()
print(b, b.grad_fn, b.grad_fn.next_functions, b.is_leaf, b._base is a, b.requires_grad)
c = b * torch.tensor([2+1j, 1-1j])
print(c.grad_fn.next_functions)
c.sum().abs().backward()
print(a.grad, a.grad.is_conj())
r = a.conj().resolve_conj()
print(r.grad_fn, r.grad_fn.next_functions, r.is_conj())
p = a.conj().conj_physical()
print(p.grad_fn, p.grad_fn.next_functions, p.is_conj())
cc = a.conj().conj()
print(cc.grad_fn, cc.grad_fn.next_functions, cc.grad_fn.next_functions[0][0].next_functions)
re = a.conj().real
print(re, re.grad_fn, re.grad_fn.next_functions, re.grad_fn.next_functions[0][0].next_functions)
m = torch.tensor([[1+1j, 2], [3, 4-1j]], requires_grad=True)
print(m.mH, m.mH.grad_fn, m.mH.grad_fn.next_functions)
print(m.H.grad_fn, m.adjoint().grad_fn, m.adjoint().grad_fn.next_functions)
k = torch.cat([a, a.conj()])
print(k, k.grad_fn.next_functions)
k.abs().sum().backward()
print(a.grad, a.grad.is_conj())
q = torch.tensor([1+1j, 2-3j], requires_grad=True)
q.conj().backward(torch.tensor([1+1j, 2-1j]))
print(q.grad, q.grad.is_conj(), q.grad.stride())
with torch.no_grad():
    n = a.conj()
print(n.requires_grad, n.grad_fn, n.is_conj())
print(a.detach().conj().requires_grad, a.conj().detach().is_conj())
""")


def test_conj_under_vmap_and_forward_ad_like_torch() -> None:
    """vmap's conj is the batched value's conj view (functorch forwards the bit); a
    tangent through ConjBackward0 is conjugated."""
    _same("""import torch
import torch.autograd.forward_ad as fwAD
torch.manual_seed(0)
z = torch.randn(3, 4, dtype=torch.cfloat)
def f(v):
    c = v.conj()
    print(c.is_conj(), v.is_conj())
    return c
o = torch.vmap(f)(z)
print(o.is_conj(), o._base is z, o)
print(torch.vmap(lambda v: v.conj() * v)(z))
print(torch.vmap(lambda v: v.conj().resolve_conj())(z).is_conj())
with fwAD.dual_level():
    p = fwAD.make_dual(z, torch.ones_like(z) * (1+2j))
    q = p.conj()
    print(q.is_conj(), fwAD.unpack_dual(q).tangent, fwAD.unpack_dual(q).tangent.is_conj())
""")


def test_data_assignment_takes_the_conjugate_bit_like_torch() -> None:
    _same("""import torch
x = torch.tensor([1+1j, 2+2j])
y = x.conj()
y.data = torch.tensor([5+5j, 6j])
print(y.is_conj(), y, x)
y.mul_(2)
print(x, y)
a = torch.tensor([1+1j, 2+2j])
b = torch.tensor([3j, 4+0j])
a.data = b.conj()
print(a.is_conj(), a)
a.add_(1)
print(b, a)
""")


MEGA = """import torch
from torch.fft import rfft, irfft
torch.manual_seed(0)
def conv1d_fft(x, weights, dim=-2, weight_dim=-1):
    N, M = x.shape[dim], weights.shape[weight_dim]
    fast_len = N + M - 1
    f_x = rfft(x, n=fast_len, dim=dim)
    f_weight = rfft(weights, n=fast_len, dim=weight_dim)
    out = irfft(f_x * f_weight.conj().t(), fast_len, dim=dim).roll(-1, dims=(dim,))
    return out.index_select(dim, torch.arange(fast_len - N, fast_len))
x = torch.randn(16, 8, requires_grad=True)
w = torch.randn(8, 16, requires_grad=True)
out = conv1d_fft(x, w)
print(out.sum(), out.grad_fn)
out.pow(2).mean().backward()
print(x.grad.flatten().tolist(), w.grad.flatten().tolist())
alpha = torch.randn(4, 2, dtype=torch.cfloat, requires_grad=True)
q = (alpha * alpha.conj()).real
print(q, q.grad_fn)
q.sum().backward()
print(alpha.grad, alpha.grad.is_conj())
"""


def test_an_fft_convolution_by_a_conjugated_kernel_like_torch() -> None:
    """Mega's (lucidrains) conv1d_fft multiplies by `f_weight.conj()`: bit for bit, with
    its gradients."""
    _same(MEGA)


def test_conj_views_keep_the_storage_strides_like_torch() -> None:
    """The shadow is the conjugated memory the storage view spans, seen with its very
    strides: an expanded conj view reports zero strides and refuses an in-place write as
    torch does; a strided one keeps its offset; clone/contiguous lay out as torch."""
    _same("""import torch
x = torch.tensor([1+1j, 2-1j, 3j])
e = x.expand(2, 3).conj()
print(e, e.stride(), e.is_conj(), e[:, 1:].stride())
try:
    e.add_(1)
except RuntimeError as err:
    print(err)
print(x)
s = x.unsqueeze(1).conj()
print(s.stride(), s.t().stride())
m = torch.arange(12.).reshape(3, 4).to(torch.cfloat)[:, ::2].conj()
print(m.stride(), m.storage_offset(), m.contiguous().stride(), m.clone().stride())
m.mul_(1j)
print(m, m._base)
print(torch.zeros(0, 3, dtype=torch.cfloat).conj().stride())
""")


BATCHED_PRODUCTS = """import torch
torch.manual_seed(1)
for dt in (torch.complex64, torch.complex128):
    for (b, m, k, n) in [(2, 3, 4, 5), (3, 17, 33, 9), (4, 30, 40, 20), (2, 1, 50, 7),
                         (2, 64, 64, 64), (5, 9, 1, 9), (2, 40, 3, 1)]:
        A = torch.randn(b, m, k, dtype=dt, requires_grad=True)
        B = torch.randn(b, k, n, dtype=dt, requires_grad=True)
        At = torch.randn(b, k, m, dtype=dt, requires_grad=True)
        Bt = torch.randn(b, n, k, dtype=dt, requires_grad=True)
        for name, f in [('c@', lambda: A.conj() @ B), ('@c', lambda: A @ B.conj()),
                        ('H@', lambda: At.mH @ B), ('@H', lambda: A @ Bt.mH),
                        ('H@H', lambda: torch.bmm(At.mH, Bt.mH)),
                        ('bc', lambda: torch.bmm(A.conj(), B.conj())),
                        ('bcast', lambda: A @ Bt[0].mH), ('2d', lambda: A[0].conj() @ B[0])]:
            for t in (A, B, At, Bt):
                t.grad = None
            r = f()
            r.abs().sum().backward()
            v = torch.view_as_real(r.detach().resolve_conj())
            print(name, dt, (b, m, k, n), r.is_conj(), v.sum().item(), v.flatten()[::5].tolist(),
                  [None if t.grad is None else (t.grad.is_conj(), torch.view_as_real(
                      t.grad.resolve_conj()).flatten()[::5].tolist()) for t in (A, B, At, Bt)])
"""


def test_batched_products_of_conj_views_and_their_gradients_like_torch() -> None:
    _same(BATCHED_PRODUCTS)


def test_in_place_ops_and_saved_tensors_of_conj_views_like_torch() -> None:
    _same("""import torch, copy
torch.manual_seed(0)
w = torch.randn(2, 2, dtype=torch.cdouble, requires_grad=True)
y = w.conj()
m = y * w
print(m.grad_fn._saved_self.is_conj(), m.grad_fn._saved_other.is_conj(), m.grad_fn._saved_self)
x = torch.tensor([1+1j, 2+2j])
y = x.conj()
y.zero_(); print(x)
y.fill_(3+1j); print(x)
y.copy_(torch.tensor([5j, 6])); print(x, y)
y.neg_(); print(x)
y.div_(2j); print(x)
y.exp_(); print(x)
y.mul_(y); print(x)
y += 1; print(x)
y[y.real > 0] = 2j; print(x, x._version, y._version)
print(y.to(torch.complex64).is_conj(), y.cpu().is_conj(), y.to(torch.complex64) is y)
c = copy.deepcopy(y); print(c.is_conj(), c)
z = torch.zeros(3, dtype=torch.cfloat)
z.conj().copy_(torch.tensor([1j, 2j, 3j])); print(z)
q = torch.tensor([1+1j, 2-1j], requires_grad=True)
(q.conj() * 2).sum().abs().backward()
print(q.grad, q.grad.is_conj())
q.grad.zero_(); print(q.grad, q.grad.is_conj())
""")


def test_gradients_summed_with_a_conj_view_are_plain_like_torch() -> None:
    """ConjBackward0's gradient (a conj view) arriving first in a buffer is not added into
    in place: the sum is a plain tensor, as torch's."""
    _same("""import torch
c1 = torch.tensor([1+2j, 3-1j])
c2 = torch.tensor([2-1j, 1j])
for k in range(4):
    a = torch.tensor([1+1j, 2-1j], requires_grad=True)
    if k == 0: out = torch.view_as_real(a.conj() * c1).sum() + torch.view_as_real(a * c2).sum()
    if k == 1: out = torch.view_as_real(a * c2).sum() + torch.view_as_real(a.conj() * c1).sum()
    r = torch.view_as_real(a.conj().resolve_conj()).sum()
    if k == 2: out = r + torch.view_as_real(a * c2).sum()
    if k == 3: out = torch.view_as_real(a * c2).sum() + r
    out.backward()
    print(k, a.grad.is_conj(), a.grad)
for k in range(3):
    a = torch.tensor([1+1j, 2-1j], requires_grad=True)
    b = a * 1
    if k == 0: out = torch.view_as_real(b * c2).sum() + torch.view_as_real(b.conj() * c1).sum()
    if k == 1:
        out = torch.view_as_real(b.conj() * c2).sum() + torch.view_as_real(b.conj() * c1).sum()
    if k == 2: out = torch.view_as_real((b.conj() * c2) + b.conj() * c1).sum()
    b.retain_grad()
    out.backward()
    print(k, a.grad.is_conj(), b.grad.is_conj(), a.grad, b.grad)
""")
