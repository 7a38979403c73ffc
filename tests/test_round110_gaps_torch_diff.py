"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 110
(torch.func research code) found: the tangents of a jvp run inside vmap whose function is
a grad transform (dattri's hvp_at_x in "rev-fwd" mode, jvp of grad under a vmapped conjugate
gradient) kept the physical tensor's history of the leaves the grad made of the duals, so
they printed with torch's absent grad_fn; a convolution under vmap with a batched weight
(MRA_signalrecovery's score model convolves each example with its own kernels by
torch.vmap(conv1d)) ran once per example where torch's batch rule runs one grouped
convolution, so the sums' order and the last bits differed; nll_loss and cross_entropy under
vmap (functorch's parallel_train example trains an ensemble by vmap over grad_and_value of
an NLLLoss) ran once per example where torch runs nll_loss's decomposition (gather, where,
sum, div) op by op, and gather had no batching rule, so the losses' grad_fn was
StackBackward0 instead of torch's DivBackward0; squeeze(dim) under vmap is torch's
squeeze.dims (SqueezeBackward2) with the batch dim kept. The torch.func "UX limitations"
page's examples found three more: diagonal under vmap ran per example and returned a copy,
so `result.diagonal().copy_(vec)` on a batched new_zeros never reached result; an in-place op
other than add_ on an unbatched tensor with a batched operand raised add_'s broadcast
message where torch's in-place batch rules raise "vmap: inplace arithmetic(...)"; and a
scalar randn served from the cached Box-Muller normal skipped vmap's randomness="error"
check.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


JVP_OF_GRAD_IN_VMAP = """import torch
from torch.func import grad, jvp, vmap
torch.manual_seed(0)
def f(y):
    return torch.sin(y).sum()
def g(x, y):
    return torch.sin(x + y).sum()
y = torch.randn(2)
x = torch.tensor([1.0])
out = vmap(lambda v: jvp(grad(f), (y,), (v,)))(torch.randn(3, 2))
print(out, out[1].requires_grad, out[1].grad_fn)
print(vmap(lambda yy, v: jvp(grad(f), (yy,), (v,))[1])(torch.randn(3, 2), torch.randn(3, 2)))
hv = vmap(lambda v: jvp(grad(g, argnums=1), (x, y), (torch.zeros(1), v))[1] + 0.5 * v)
print(hv(torch.randn(4, 2)))
print(vmap(lambda v: jvp(torch.sin, (y,), (v,))[1])(torch.randn(3, 2)))
w = torch.randn(2, requires_grad=True)
def h(y):
    return torch.sin(y * w).sum()
t = vmap(lambda v: jvp(grad(h), (y,), (v,))[1])(torch.randn(3, 2))
print(t)
t.sum().backward()
print(w.grad)
"""


def test_jvp_of_grad_inside_vmap_returns_tangents_without_history() -> None:
    """vmap(jvp(grad(f))): the tangents carry no history of the grad's own leaves (torch's
    have no grad_fn), and keep the one to a closed-over tensor that requires grad."""
    assert gradtrace_output(JVP_OF_GRAD_IN_VMAP) == torch_output(JVP_OF_GRAD_IN_VMAP)


CONV_BATCH_RULE = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
B = 3
x1 = torch.randn(B, 2, 7)
xn = torch.randn(B, 4, 2, 7)
xu = torch.randn(4, 2, 7)
w1 = torch.randn(B, 4, 2, 3)
wu = torch.randn(4, 2, 3)
bb = torch.randn(B, 4)
bu = torch.randn(4)
w2 = torch.randn(B, 4, 1, 3)
def show(t):
    print(tuple(t.shape), t.tolist())
show(torch.vmap(F.conv1d)(x1, w1))
show(torch.vmap(F.conv1d)(xn, w1))
show(torch.vmap(F.conv1d, in_dims=(0, 0, None))(x1, w1, bu))
show(torch.vmap(F.conv1d)(xn, w1, bb))
show(torch.vmap(F.conv1d, in_dims=(0, None, 0))(xn, wu, bb))
show(torch.vmap(F.conv1d, in_dims=(None, 0, 0))(xu, w1, bb))
show(torch.vmap(F.conv1d, in_dims=(None, 0))(xu, w1))
show(torch.vmap(lambda x, w: F.conv1d(x, w, padding=1, stride=2))(xn, w1))
show(torch.vmap(lambda x, w: F.conv1d(x, w, groups=2))(xn, w2))
show(torch.vmap(lambda w: F.conv1d(xu, w, groups=2))(w2))
show(torch.vmap(F.conv1d, in_dims=(1, 2))(xn.movedim(0, 1), w1.movedim(0, 2)))
w = w1.clone().requires_grad_()
x = xn.clone().requires_grad_()
out = torch.vmap(F.conv1d)(x, w, bb)
out.pow(2).sum().backward()
show(w.grad)
show(x.grad)
show(torch.func.grad(lambda w: torch.vmap(F.conv1d)(xn, w).tanh().sum())(w1))
"""


def test_conv_under_vmap_follows_torchs_convolution_batch_rule() -> None:
    """vmap(conv1d) with a batched weight: one convolution as torch's batch rule runs it (the
    batch in the weight's out-channels, or in the input's channels with the groups
    multiplied), a batched or weight-batched bias added after, so the bits and the
    gradients are torch's."""
    assert gradtrace_output(CONV_BATCH_RULE) == torch_output(CONV_BATCH_RULE)


NLL_UNDER_VMAP = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 5, 3, requires_grad=True)
t = torch.randint(0, 3, (5,))
def show(r):
    print(r, r.grad_fn.name())
    fn = r.grad_fn
    for _ in range(8):
        if fn is None:
            break
        print("  ", fn.name(), [n[0].name() if n[0] is not None else None
                                for n in fn.next_functions])
        fn = fn.next_functions[0][0] if fn.next_functions else None
show(torch.vmap(F.nll_loss, in_dims=(0, None))(x, t))
show(torch.vmap(lambda a: F.nll_loss(a, t, reduction='sum'))(x))
show(torch.vmap(lambda a: F.nll_loss(a, t, reduction='none'))(x))
show(torch.vmap(lambda a: F.nll_loss(a, t, ignore_index=1))(x))
show(torch.vmap(lambda a: F.nll_loss(a, t, weight=torch.tensor([1., 2., 3.])))(x))
show(torch.vmap(lambda a: F.cross_entropy(a, t))(x))
show(torch.vmap(lambda a, tt: F.nll_loss(a, tt))(x, torch.randint(0, 3, (2, 5))))
show(torch.vmap(lambda a: F.nll_loss(a[0], t[0]))(x))
show(torch.vmap(lambda a: torch.nn.NLLLoss()(F.log_softmax(a, -1), t))(x))
y = torch.randn(4, 3, requires_grad=True)
r = torch.vmap(lambda j: y.gather(1, j))(torch.randint(0, 3, (2, 4, 2)))
show(r)
r.sum().backward()
print(y.grad)
show(torch.vmap(lambda a, j: a.gather(0, j))(y[:2], torch.tensor([1, 2])))
z = torch.randn(2, 1, 3, requires_grad=True)
show(torch.vmap(lambda a: a.squeeze(0))(z))
show(torch.vmap(lambda a: a.squeeze((0,)))(z))
show(torch.vmap(lambda a: a.squeeze(-2), in_dims=1)(z.transpose(0, 1)))
g = torch.func.grad(lambda w: torch.vmap(F.cross_entropy, in_dims=(0, None))(x * w, t).sum())(
    torch.ones(3))
print(g)
"""


def test_nll_loss_gather_and_squeeze_under_vmap_follow_torchs_decomposition() -> None:
    """vmap(nll_loss) (and cross_entropy's log_softmax + nll_loss) runs torch's
    decomposition op by op, gather has torch's batching rule and squeeze(dim) is
    squeeze.dims, so values and graphs (DivBackward0, WhereBackward0, SqueezeBackward2,
    GatherBackward0) are torch's."""
    assert gradtrace_output(NLL_UNDER_VMAP) == torch_output(NLL_UNDER_VMAP)


UX_LIMITATIONS = """import torch
from torch.func import vmap
torch.manual_seed(0)
vecs = torch.tensor([[0., 1, 2], [3., 4, 5]])
def diag_embed(vec):
    result = vec.new_zeros(vec.shape[0], vec.shape[0])
    result.diagonal().copy_(vec)
    return result
print(vmap(diag_embed)(vecs))
def off(vec):
    result = vec.new_zeros(3, 3)
    torch.diagonal(result, 1).add_(vec[:2])
    result.diagonal(offset=-1, dim1=1, dim2=0).mul_(2)
    return result
print(vmap(off)(vecs))
w = vecs.clone().requires_grad_()
d = vmap(lambda m: (m.outer(m)).diagonal(0, -1, -2))(w)
print(d, d.grad_fn.name())
d.sum().backward()
print(w.grad)
y = torch.randn(3, 1)
for name in ["add_", "mul_", "sub_", "copy_", "div_", "clamp_min_"]:
    for (s, v) in [((3,), vecs), ((1,), y)]:
        def g(vec):
            r = torch.ones(s)
            getattr(r, name)(vec)
            return r
        try:
            vmap(g)(v)
            print(name, s, "ok")
        except Exception as e:
            print(name, s, type(e).__name__, e)
def add_noise(x):
    return x + torch.randn(())
x = torch.ones(3)
for mode in ["error", "different", "error", "same", "error"]:
    try:
        print(vmap(add_noise, randomness=mode)(x))
    except Exception as e:
        print(mode, type(e).__name__, e)
"""


def test_func_ux_limitations_diagonal_inplace_and_randomness() -> None:
    """diagonal under vmap is a view (writes reach the batched base), in-place ops other
    than add_ on an unbatched self refuse with torch's inplace-arithmetic message, and a
    cached scalar normal is still a random op under randomness="error"."""
    assert gradtrace_output(UX_LIMITATIONS) == torch_output(UX_LIMITATIONS)
