"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 40
(model compression) found: np.resize, which network-slimming's vggprune.py calls on the
index arrays of the kept channels; and torch.fake_quantize_per_tensor_affine /
fake_quantize_per_channel_affine, the fake quantisation quantisation-aware training written
by hand calls (its straight-through mask as the backward, torch's checks and messages);
torch's in-place foreach ops (timm's ModelEmaV3 lerps its EMA weights with
torch._foreach_lerp_); lerp's broadcast check, which let numpy's ValueError through; and
torch.svd_lowrank / torch.pca_lowrank (low-rank factorisation), torch's Python functions
bundled as the library module torch._lowrank; and nn.Module.set_submodule, how adapter
and LoRA code swaps a layer in.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


RESIZE = """import numpy as np
import torch
idx = np.squeeze(np.argwhere(np.asarray(torch.tensor([0., 1., 0.]).numpy())))
print(idx, idx.size, idx.shape)
if idx.size == 1:
    idx = np.resize(idx, (1,))
print(idx, idx.tolist(), idx.dtype)
print(np.resize(np.arange(5), (2, 4)), np.resize([1, 2], 5), np.resize(np.ones((2, 2)), 3))
print(np.resize(np.arange(3.), new_shape=(2, 2)), np.resize(np.array([]), (0,)))
w = torch.arange(12.).view(3, 4)
print(w[:, np.resize(np.array(2), (1,)).tolist()])
"""


def test_numpy_resize_repeats_its_input_to_the_new_shape() -> None:
    """np.resize fills the new shape by repeating the flattened input (a 0-d index array
    becomes a 1-element one, as vggprune.py uses it)."""
    assert gradtrace_output(RESIZE) == torch_output(RESIZE)


FAKE_QUANTIZE = """import torch
torch.manual_seed(0)
x = (torch.randn(6, 4) * 3).requires_grad_()
y = torch.fake_quantize_per_tensor_affine(x, 0.1, 0, -128, 127)
print(y, y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions])
print(y.grad_fn._saved_mask)
(y * torch.arange(4.)).sum().backward()
print(x.grad)
print(torch.fake_quantize_per_tensor_affine(x, 0.0371, 3, 0, 15))
print(torch.fake_quantize_per_tensor_affine(x, 1 / 3, -2, -8, 7))
print(torch.fake_quantize_per_tensor_affine(x.detach().double(), 0.25, 1, -4, 3))
print(torch.fake_quantize_per_tensor_affine(x, -0.5, 0, -4, 3))
t = torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.2),
                                          torch.tensor(1, dtype=torch.int32), 0, 255)
print(t, t.grad_fn.name())
scale = torch.tensor([0.1, 0.2, 0.3, 0.7])
c = torch.fake_quantize_per_channel_affine(
    x, scale, torch.tensor([0, 1, -2, 3], dtype=torch.int32), 1, -8, 7)
print(c, c.grad_fn.name(), [f.name() for f, _ in c.grad_fn.next_functions])
c.sum().backward()
print(x.grad)
print(torch.fake_quantize_per_channel_affine(x, torch.tensor([0.5, 0.25, 0.1, 1., 2., 0.3]),
                                             torch.tensor([0.5, 1., 2., 0., 0., 1.]), 0, 0, 15))
with torch.no_grad():
    print(torch.fake_quantize_per_tensor_affine(x, 0.1, 0, -8, 7).requires_grad)
zp = torch.zeros(4, dtype=torch.int32)
for call in [lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 3),
             lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 9, 0, 7),
             lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 0.5, 0, 7),
             lambda: torch.fake_quantize_per_tensor_affine(torch.arange(3), 0.1, 0, 0, 7),
             lambda: torch.fake_quantize_per_tensor_affine(x, torch.ones(2), zp[:2], 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale.double(), zp, 1, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp.long(), 1, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp[:3], 1, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, 0, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, 2, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, -1, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp + 9, 1, 0, 7),
             lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, 1, 7, 0),
             lambda: torch.fake_quantize_per_channel_affine(x, scale.view(2, 2), zp.view(2, 2), 1,
                                                            0, 7),
             lambda: torch.fake_quantize_per_channel_affine(torch.arange(8).view(2, 4), scale, zp,
                                                            1, 0, 7)]:
    try:
        call()
    except Exception as err:
        print(type(err).__name__, err)
"""


def test_fake_quantize_per_tensor_and_per_channel_as_torch() -> None:
    """The cachemask kernels' arithmetic (float32 inverse scale, nearbyint, the clamp and
    the dequantisation in double), the zero point's truncation when it is a float, the
    nodes' names, single edge and saved mask, grad * mask as the backward, and torch's
    checks in its order with its messages."""
    assert gradtrace_output(FAKE_QUANTIZE) == torch_output(FAKE_QUANTIZE)


FAKE_QUANTIZE_FORWARD_AD = """import torch
import torch.autograd.forward_ad as fwAD
x = torch.tensor([0.31, -2.0, 0.77, 0.1])
t = torch.tensor([1., 2., 3., 4.])
sc = torch.tensor([0.5, 0.25])
zp = torch.zeros(2, dtype=torch.int32)
with fwAD.dual_level():
    d = fwAD.make_dual(x, t)
    for f in [lambda d: torch.fake_quantize_per_tensor_affine(d, 0.5, 0, -2, 1),
              lambda d: torch.fake_quantize_per_tensor_affine(d, torch.tensor(0.5), zp[0], -2, 1),
              lambda d: torch.fake_quantize_per_channel_affine(d.view(2, 2), sc, zp, 1, -2, 1)]:
        try:
            y = f(d)
            print(fwAD.unpack_dual(y).tangent)
        except Exception as e:
            print(type(e).__name__, e)
"""


def test_fake_quantize_refuses_forward_mode_ad_as_torch() -> None:
    """torch has no forward-mode formula for the three cachemask ops: its
    NotImplementedError, each op named."""
    assert gradtrace_output(FAKE_QUANTIZE_FORWARD_AD) == torch_output(FAKE_QUANTIZE_FORWARD_AD)


FOREACH = """import torch
a = torch.ones(2, requires_grad=True); b = torch.ones(3, requires_grad=True)
x, y = a * 2, b * 3
torch._foreach_mul_([x, y], 0.5)
print(x.grad_fn.name(), y.grad_fn.name(), x._version, x.grad_fn._saved_other)
torch._foreach_add_((x, y), [1, 2])
print(x.grad_fn.name(), x, y)
torch._foreach_sub_([x, y], 3)
torch._foreach_div_([x, y], [2., 4])
print(x.grad_fn.name(), x, y)
torch._foreach_add_([x, y], [torch.ones(2), torch.ones(3)], alpha=0.5)
print(x.grad_fn.name(), x, y)
torch._foreach_mul_([x, y], torch.tensor(3.))
print(x.grad_fn.name(), x, y)
(x.sum() + y.sum()).backward()
print(a.grad, b.grad)
try:
    torch._foreach_mul_([a, b], 0.5)
except Exception as e: print(type(e).__name__, e)
with torch.no_grad():
    r = torch._foreach_lerp_([a, b], [torch.zeros(2), torch.zeros(3)], weight=0.25)
print(a, b, r, hasattr(torch, '_foreach_lerp_'))
w = [torch.full((2,), 0.3), torch.full((3,), 0.7)]
p = [torch.ones(2), torch.ones(3)]
torch._foreach_lerp_(p, [torch.zeros(2), torch.zeros(3)], w)
print(p)
torch._foreach_zero_(p)
print(p)
for f in [lambda: torch._foreach_mul_([], 2.0),
          lambda: torch._foreach_mul_([torch.ones(2)], [1., 2.]),
          lambda: torch._foreach_lerp_([torch.ones(2)], [torch.ones(3)], 0.5),
          lambda: torch._foreach_lerp_([torch.ones(2)], [torch.ones(2), torch.ones(2)], 0.5),
          lambda: torch._foreach_add_([torch.ones(2)], [torch.ones(2), torch.ones(2)])]:
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
"""


def test_inplace_foreach_ops_run_the_tensor_op_on_each_element_as_torch() -> None:
    """_foreach_mul_/add_/sub_/div_/lerp_/zero_ over lists or tuples: a number takes the
    Scalar overload's node (MulBackward1), a tensor or a list of them the tensor op's; the
    in-place checks of each element, the list-length messages, and the list given back."""
    assert gradtrace_output(FOREACH) == torch_output(FOREACH)


LERP_SHAPES = """import torch
for call in [lambda: torch.ones(2).lerp_(torch.ones(3), 0.5),
             lambda: torch.lerp(torch.ones(2, 3), torch.ones(4, 1), 0.5),
             lambda: torch.lerp(torch.ones(2, 3), torch.ones(3), torch.ones(4, 1)),
             lambda: torch.ones(1).lerp_(torch.ones(3), 0.5),
             lambda: torch.ones(3).lerp_(torch.ones(1), torch.ones(2, 3))]:
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_lerp_checks_its_operands_broadcast_as_torch() -> None:
    """lerp and lerp_ refuse operands that do not broadcast with TensorIterator's message
    (and an in-place result of another shape with the in-place one)."""
    assert gradtrace_output(LERP_SHAPES) == torch_output(LERP_SHAPES)


LOWRANK = """import torch
torch.manual_seed(0)
A = torch.randn(8, 5) @ torch.randn(5, 7)
U, S, V = torch.svd_lowrank(A, q=3)
print(U, S, V)
print(torch.dist(U @ torch.diag(S) @ V.T, A))
U, S, V = torch.pca_lowrank(torch.randn(10, 4), q=2)
print(U.shape, S, V)
U, S, V = torch.pca_lowrank(torch.randn(6, 9), center=False)
print(S)
w = torch.randn(2, 6, 5, requires_grad=True)
U, S, V = torch.svd_lowrank(w, q=2, niter=1, M=torch.ones(5))
print(S, S.grad_fn.name())
S.sum().backward()
print(w.grad)
try:
    torch.pca_lowrank(torch.randn(3, 4), q=5)
except ValueError as e:
    print(e)
print(torch.svd_lowrank.__name__)
"""


def test_svd_lowrank_and_pca_lowrank_as_torch() -> None:
    """torch's randomized range finder: its torch.randn draw, qr and svd calls in torch's
    order give torch's numbers, for tall and wide matrices, batches, a mean M, centering,
    and the gradient through them; pca_lowrank's own ValueError."""
    assert gradtrace_output(LOWRANK) == torch_output(LOWRANK)


SET_SUBMODULE = """import torch
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 3)))
print(m.load_state_dict(m.state_dict()), type(m.load_state_dict(m.state_dict())))
r = m.load_state_dict({k: v for k, v in m.state_dict().items() if k != '0.bias'}, strict=False)
print(r, r.missing_keys, r == ([ '0.bias'], []))
m.set_submodule('1.1', nn.Linear(2, 4))
m.set_submodule('2', nn.Tanh())
m.set_submodule('1.1', nn.Identity(), strict=True)
print(m)
for args in [('', nn.ReLU()), ('0', 3), ('1.5', nn.ReLU(), True), ('0.weight', nn.ReLU()),
             ('9.x', nn.ReLU())]:
    try:
        m.set_submodule(*args)
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_module_set_submodule_as_torch() -> None:
    """set_submodule replaces or adds a submodule under an existing parent (strict: only
    replaces), with torch's ValueErrors and AttributeErrors; load_state_dict's result (now
    kept in its own library file) prints and compares as before."""
    assert gradtrace_output(SET_SUBMODULE) == torch_output(SET_SUBMODULE)
