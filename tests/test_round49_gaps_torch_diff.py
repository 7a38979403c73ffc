"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 49
(self-supervised and contrastive learning) found: solo-learn's Whitening2d and IterNorm are
decorated with `torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)`, which could not be
imported, and IterNorm's backward calls `g_P.baddbmm_(beta=1.5, alpha=-0.5, batch1=...,
batch2=...)`, whose keywords the in-place add-products refused; its make_contiguous
calls `param.set_(param.contiguous())`, and Tensor.set_ was not supported; its swav_loss_func
calls np.delete, which was not supported.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


INPLACE_PRODUCT_KEYWORDS = """import torch
torch.manual_seed(0)
b1, b2 = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
t = torch.randn(2, 3, 5)
print(t.baddbmm_(batch1=b1, batch2=b2, beta=1.5, alpha=-0.5))
print(t.baddbmm_(b1, batch2=b2))
u = torch.randn(3, 5)
print(u.addbmm_(batch1=b1, batch2=b2, alpha=2))
m, v = torch.randn(3, 4), torch.randn(4)
w = torch.randn(3)
print(w.addmv_(mat=m, vec=v, beta=0.5))
x = torch.randn(3, 4)
print(x.addr_(vec1=w, vec2=v))
leaf = torch.randn(2, 3, 5, requires_grad=True)
y = leaf.clone()
y.baddbmm_(beta=1, alpha=-0.5, batch1=b1, batch2=b2)
print(y.grad_fn.name())
y.sum().backward()
print(leaf.grad)
"""


def test_inplace_add_products_take_torch_keyword_names() -> None:
    """Tensor.baddbmm_/addbmm_ name their operands batch1/batch2 and addmv_ mat/vec, as
    torch's signatures do (IterNorm's backward passes them by keyword)."""
    assert gradtrace_output(INPLACE_PRODUCT_KEYWORDS) == torch_output(INPLACE_PRODUCT_KEYWORDS)


CUSTOM_FWD_BWD = """import torch
from torch import nn
from torch.cuda.amp import custom_fwd, custom_bwd


class MyMM(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type='cuda')
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.mm(b)

    @staticmethod
    @torch.amp.custom_bwd(device_type='cuda')
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        print('backward', ctx._fwd_used_autocast, ctx._dtype)
        return grad.mm(b.t()), a.t().mm(grad)


class Scale(torch.autograd.Function):
    @staticmethod
    @custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x, k):
        ctx.k = k
        print('forward', ctx._fwd_used_autocast, ctx._dtype)
        return x * k

    @staticmethod
    @custom_bwd
    def backward(ctx, g):
        return g * ctx.k, None


class Whiten(nn.Module):
    @custom_fwd(cast_inputs=torch.float32)
    def forward(self, x):
        return x - x.mean(0)


torch.manual_seed(0)
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(4, 2, requires_grad=True)
MyMM.apply(a, b).sum().backward()
print(a.grad, b.grad)
x = torch.randn(4, dtype=torch.float64, requires_grad=True)
y = Scale.apply(x, 3.0)
y.sum().backward()
print(y.dtype, x.grad)
w = Whiten()
print(w(torch.ones(2, 3)), w._fwd_used_autocast, w._dtype, Whiten.forward.__name__)
print(torch.amp.custom_fwd(device_type='cpu')(lambda m: m)(w), w._dtype)
with torch.autocast('cuda', enabled=False):
    print(w(torch.zeros(1, 2)), w._fwd_used_autocast)
from torch.amp.autocast_mode import custom_fwd as f2
print(f2 is torch.amp.custom_fwd)
for call in [lambda: torch.amp.custom_fwd(device_type=1),
             lambda: torch.amp.custom_bwd(device_type=None)]:
    try:
        call()
    except ValueError as e:
        print(e)
"""


def test_amp_custom_fwd_and_custom_bwd() -> None:
    """torch.amp.custom_fwd/custom_bwd and torch.cuda.amp's deprecated forms decorate a
    Function's forward and backward or a module's forward: they record the autocast state
    (`_fwd_used_autocast`, `_dtype`) on the first argument and otherwise call through, as
    autocast is never enabled on torch's CPU build."""
    assert gradtrace_output(CUSTOM_FWD_BWD) == torch_output(CUSTOM_FWD_BWD)


SET_ = """import torch
torch.manual_seed(0)
p = torch.nn.Parameter(torch.randn(2, 3))
s = torch.zeros(3, 2)
for f in [lambda: p.set_(s), lambda: p.set_(s.double()),
          lambda: torch.zeros(2).set_(torch.zeros(2, dtype=torch.float64)),
          lambda: torch.zeros(2, dtype=torch.int64).set_(torch.ones(2, dtype=torch.bool))]:
    try:
        print(f())
    except RuntimeError as e:
        print(e)
v0 = p._version
with torch.no_grad():
    r = p.set_(s)
print(r is p, p.shape, p._version - v0, p.requires_grad, p.is_leaf, type(p).__name__)
s.add_(1)
print(p)
z = torch.arange(6.).view(2, 3)
b = torch.zeros(1)
print(b.set_(z[:, 1]), b.stride(), b._base is None, b.is_contiguous(), b._version)
z.mul_(10)
print(b)
q = torch.ones(2)
print(q.set_(), q.shape, q.dtype)
t = torch.ones(3)
print(t.set_(t.contiguous()) is t, torch.zeros(2, dtype=torch.int64).set_(torch.arange(3)))
lin = torch.nn.Linear(2, 2)
with torch.no_grad():
    for param in lin.parameters():
        param.set_(param.contiguous())
out = lin(torch.ones(1, 2))
out.sum().backward()
print(lin.weight._version, lin.weight.grad, lin.bias.grad)
"""


def test_tensor_set_takes_the_source_storage() -> None:
    """Tensor.set_(source) shares the source's storage, size and strides (writes to the
    source show through), moves the version on, refuses another dtype and a leaf requiring
    grad under grad mode; set_() empties the tensor (solo-learn's make_contiguous)."""
    assert gradtrace_output(SET_) == torch_output(SET_)


NUMPY_DELETE = """import numpy as np
import torch
a = np.arange(5)
print(np.delete(a, 1), np.delete(a, [0, 2]), np.delete(a, slice(1, 3)))
print(np.delete(np.arange(6).reshape(2, 3), 1, axis=1), np.delete(a, -1))
preds = ['a', 'b', 'c']
for v1 in range(3):
    print([preds[v2] for v2 in np.delete(np.arange(3), v1)])
print(np.delete(a, np.array([True, False, True, False, False])))
try:
    np.delete(a, 7)
except IndexError as e:
    print(e)
print(np.delete(torch.arange(4), 1), np.delete(torch.tensor([True, False, True]), 0))
print(np.delete(torch.ones(2, 3, dtype=torch.float64), 1, axis=1))
print(np.isnan(torch.tensor([1.0, float('nan')])), np.greater(torch.arange(3), 1))
print(np.add(torch.arange(3), 1))
try:
    np.delete(torch.ones(2, requires_grad=True), 0)
except RuntimeError as e:
    print(e)
"""


def test_numpy_delete_and_tensor_array_wrap() -> None:
    """np.delete (solo-learn's swav_loss_func pairs views with
    `np.delete(np.arange(len(preds)), v1)`); given a tensor it, like the ufuncs, returns
    the tensor torch's __array_wrap__ makes, a bool result as uint8."""
    assert gradtrace_output(NUMPY_DELETE) == torch_output(NUMPY_DELETE)
