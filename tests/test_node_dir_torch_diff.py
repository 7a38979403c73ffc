"""Differential tests against live PyTorch 2.13 for dir() of autograd nodes: the names torch
lists (its C++ node class's, a custom Function's BackwardCFunction's), with `_saved_<key>`
and `_raw_saved_<key>` per saved value and tensor. torchviz's `show_saved` and autograd
blog posts walk `dir(grad_fn)` for the saved tensors; the realworld corpus's rounds met it
three times.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


COMMON_NODES = """import torch
import torch.nn.functional as F
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.randn(3, 3, requires_grad=True)
outs = [x.sin(), x * x, x * 2, x + x, x[torch.tensor([0, 1])], torch.stack([x, x]),
        torch.cat([x, x]), x.max(dim=0)[0], F.layer_norm(x.view(1, 3), (3,)), x.sum(),
        x.mean(), (x @ w), torch.tanh(x), x.pow(2), x ** x, x.exp(), x.view(3, 1), x.t(),
        x.expand(2, 3), F.relu(x), torch.softmax(x, 0),
        F.cross_entropy(x.view(1, 3), torch.tensor([1])),
        x.clamp(0, 1), torch.where(x > 1, x, x * 3), x.norm(), x.unsqueeze(0).mm(w),
        F.linear(x, w), x.sigmoid(), x.log_softmax(0), x.var(), x.cumsum(0), x.sort()[0],
        x.topk(2)[0], F.mse_loss(x, x.detach() * 2), x.abs(), x / 3, x.div(x), x[1:],
        x.repeat(2)]
for y in outs:
    fn = y.grad_fn
    common = dir(x.sin().grad_fn)
    print(fn.name(), [a for a in dir(fn) if not a.startswith("__") and a not in common])
print(dir(x.sin().grad_fn))
acc = (x * 2).grad_fn.next_functions[0][0]
print(dir(acc))
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i, k):
        result = i.exp()
        ctx.save_for_backward(result)
        ctx.k = k
        print(dir(ctx) == dir(ctx))
        return result
    @staticmethod
    def backward(ctx, g):
        result, = ctx.saved_tensors
        return g * result, None
y = Exp.apply(x, 3)
print(dir(y.grad_fn))
for attr in dir((x * x).grad_fn):
    if attr.startswith("_saved_"):
        print(attr, getattr((x * x).grad_fn, attr))
try:
    dir(1, 2)
except TypeError as e:
    print("TypeError", e)
"""

LAYERS_AND_LOSSES = """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(2, 3, 5, 5, requires_grad=True)
conv = nn.Conv2d(3, 4, 3)
bn = nn.BatchNorm2d(3)
emb = nn.Embedding(10, 4)
v = torch.randn(6, requires_grad=True)
outs = [conv(x), bn(x), F.max_pool2d(x, 2), F.avg_pool2d(x, 2), emb(torch.tensor([1, 2])),
        F.dropout(x, 0.5), v.gather(0, torch.tensor([1, 2])), v.masked_fill(v > 0, 0.0),
        v.scatter(0, torch.tensor([0]), 1.0), v.index_select(0, torch.tensor([1, 3])),
        torch.index_put(v, (torch.tensor([0]),), torch.tensor([1.0])), F.gelu(v),
        F.leaky_relu(v),
        F.embedding(torch.tensor([0]), v.view(2, 3)), v.reshape(2, 3).transpose(0, 1),
        F.group_norm(x, 3), F.interpolate(x, scale_factor=2), v.unfold(0, 2, 1), v.flip(0),
        torch.einsum("i,i->", v, v), F.binary_cross_entropy_with_logits(v, torch.ones(6)),
        F.nll_loss(v.view(2, 3), torch.tensor([0, 1])), F.smooth_l1_loss(v, torch.zeros(6)),
        torch.bmm(x.view(2, 3, 25), x.view(2, 25, 3)), v.prod(), v.std(), v.logsumexp(0),
        v.min(), v.median()]
for y in outs:
    fn = y.grad_fn
    print(fn.name(), dir(fn))
"""

AFTER_BACKWARD = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sin()
z = x[torch.tensor([0])]
w = torch.cat([x, x]).max(dim=0)[0]
y.sum().backward()
z.sum().backward()
w.backward()
print(dir(y.grad_fn))
print(dir(y.grad_fn.next_functions[0][0]))
print(dir(z.grad_fn))
print(dir(w.grad_fn))
"""


def test_dir_of_nodes_lists_saved_attributes_as_torch() -> None:
    """39 kinds of node, AccumulateGrad (`variable`) and a custom Function's node (with what
    the script stored on ctx); reading back each `_saved_` name dir gave."""
    assert gradtrace_output(COMMON_NODES) == torch_output(COMMON_NODES)


def test_dir_of_layer_and_loss_nodes_matches_torch() -> None:
    """Convolution, normalisation, pooling, embedding, scatter/gather, losses: their saved
    sizes, scalars and tensor lists (`_raw_saved_indices` of a saved list of tensors)."""
    assert gradtrace_output(LAYERS_AND_LOSSES) == torch_output(LAYERS_AND_LOSSES)


def test_dir_of_a_node_after_backward_still_lists_freed_saved_names() -> None:
    """The saved tensors are freed by backward; their properties stay on the class, so dir
    lists them still."""
    assert gradtrace_output(AFTER_BACKWARD) == torch_output(AFTER_BACKWARD)
