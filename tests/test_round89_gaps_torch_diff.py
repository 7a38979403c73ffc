"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 89
(pytorch/pytorch GitHub issues' autograd repros) found:

- advanced indexing's nodes (IndexBackward0, IndexPutBackward0 and the _index_put_impl_
  node of index's backward) save their index tensors as SavedVariables: a second backward
  through one without retain_graph, or reading `grad_fn._saved_indices` after the first,
  raises torch's "Trying to backward through the graph a second time" (issue 21469's
  `c[[1,2]] = b[[1,1]]`); gradtrace kept the indices as plain values and ran it again.
- torch.autograd.grad and torch.autograd.backward of an output that is not a tensor (None:
  issue 44189's third derivative of a*x, whose second derivative is None) raise
  `_make_grads`' AssertionError "Expected output to be a torch.Tensor", not the old
  argument parser's TypeError.
- prod's backward over zeros under create_graph is torch's prod_safe_zeros_backward, recorded
  (issue 106789: the gradient of prod([2, 3, 0, 0]) requires grad, its grad_fn is
  ViewBackward0, and differentiates again); gradtrace's was a constant.
- a view of a multi-output view op's output (unbind, split, chunk) or of a custom Function's
  output view inherits its CreationMeta (propagate_creation_meta), so modifying it in place
  raises (issue 36608's `x.unbind()[0].narrow(0, 0, 2).mul_(2)`).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

pytest.importorskip("torch")

FREED_INDICES = """import torch
torch.manual_seed(0)
b = torch.randn(3, requires_grad=True)
for make in (lambda: b[[1, 1]], lambda: b[torch.tensor([True, False, True])] * 2,
             lambda: b[None, [0, 2]].exp()):
    y = make()
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    try:
        y.sum().backward()
    except RuntimeError as e:
        print("again:", str(e)[:50])
    print(b.grad)
node = b[[1, 1]].grad_fn
z = b[[2, 0]]
print(z.grad_fn._saved_indices)
torch.autograd.grad(z.sum(), b)
try:
    print(z.grad_fn._saved_indices)
except RuntimeError as e:
    print("read:", str(e)[:50])
c = torch.zeros(3)
c[[1, 2]] = b[[1, 1]]
c.sum().backward()
try:
    c.sum().backward()
except RuntimeError as e:
    print("put:", str(e)[:50])
c = torch.zeros(3)
c.index_put_((torch.tensor([0, 0]),), b[:2], accumulate=True)
g, = torch.autograd.grad(c.sum(), b, create_graph=True)
print(g, torch.autograd.grad(g.sum(), b, allow_unused=True))
x = torch.randn(4, requires_grad=True)
h, = torch.autograd.grad(x[[0, 0, 3]].pow(2).sum(), x, create_graph=True)
h.sum().backward()
try:
    h.sum().backward()
except RuntimeError as e:
    print("double:", str(e)[:50])
print(x.grad)
"""


def test_index_nodes_free_their_indices_like_torch() -> None:
    assert gradtrace_output(FREED_INDICES) == torch_output(FREED_INDICES)


NOT_A_TENSOR = """import torch
x = torch.ones(2, requires_grad=True)
calls = [lambda: torch.autograd.grad((None,), x),
         lambda: torch.autograd.grad([x.sum(), None], x),
         lambda: torch.autograd.backward([None]),
         lambda: torch.autograd.grad((1.0,), x),
         lambda: torch.autograd.grad((None,), x, grad_outputs=(torch.ones(()),)),
         lambda: torch.autograd.backward([x.sum(), 3]),
         lambda: torch.autograd.grad((None,), x, is_grads_batched=True,
                                     grad_outputs=(torch.ones(2),))]
for call in calls:
    try:
        print(call())
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_non_tensor_outputs_raise_make_grads_assertion() -> None:
    assert gradtrace_output(NOT_A_TENSOR) == torch_output(NOT_A_TENSOR)


PROD_ZEROS = """import torch
for vals in ([2., 3, 0, 0], [2., -3, 0, 0], [2., 3, 0, 5], [1.5, 2, 4]):
    x = torch.tensor(vals, requires_grad=True)
    gx, = torch.autograd.grad(torch.prod(x), x, create_graph=True)
    print(gx, gx.requires_grad)
    print(torch.autograd.grad(gx[2], x, retain_graph=True), torch.autograd.grad(gx.sum(), x)[0])
    gx, = torch.autograd.grad(torch.prod(x), x)
    print(gx)
m = torch.tensor([[2., 0, 3], [0., 0, 4], [1., 2, 3]], requires_grad=True)
for dim, keep in ((0, False), (1, True), (-1, False)):
    g, = torch.autograd.grad(m.prod(dim, keep).sum(), m, create_graph=True)
    print(g, g.grad_fn.name())
    print(torch.autograd.grad((g * torch.arange(9.).view(3, 3)).sum(), m, allow_unused=True))
    print(torch.autograd.grad(m.prod(dim, keep).sum(), m))
t = m.t()
g, = torch.autograd.grad(t.prod(), t, create_graph=True)
print(g, g.grad_fn.name(), g.stride(), torch.autograd.grad(g.sum(), m))
s = torch.tensor([0.], requires_grad=True)
g, = torch.autograd.grad(s.prod(), s, create_graph=True)
print(g, g.grad_fn)
"""


def test_prod_backward_with_zeros_is_differentiable_like_torch() -> None:
    """prod's backward over zeros under create_graph is torch's prod_safe_zeros_backward
    (exclusive cumprods from both sides, `.view_as(input)` for a full reduction), so its
    gradient requires grad and differentiates again (issue 106789); without grad mode, two
    or more zeros in a full reduction give zeros_like (no -0)."""
    assert gradtrace_output(PROD_ZEROS) == torch_output(PROD_ZEROS)


CHAINED_VIEWS = """import torch
root = torch.arange(9.).reshape(3, 3).requires_grad_()
x = root.clone()
v1 = x.unbind()
v2 = v1[0].narrow(0, 0, 2)
v3 = v1[1][1:]
print(v2.grad_fn.name(), v3.grad_fn.name())
for v in (v2, v3, v1[2].view(3), v1[2].t(), v1[0][0], v1[1][1:][0], x[0].narrow(0, 0, 2)):
    try:
        print(v.mul_(2))
    except RuntimeError as e:
        print(e)
a, b = x.split(2)
for w in (a[0], b.view(3), x.chunk(3)[1][None]):
    try:
        w.add_(1)
    except RuntimeError as e:
        print(e)

class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t.view_as(t)

    @staticmethod
    def backward(ctx, g):
        return g

y = Id.apply(root.clone())
try:
    y[0].mul_(2)
except RuntimeError as e:
    print(e)
z = root.clone()[0]
z.mul_(2)
print(z, z.grad_fn.name())
"""


def test_views_of_multi_output_views_inherit_their_creation_meta() -> None:
    """torch's propagate_creation_meta: a view of unbind's, split's or chunk's output (or of
    a custom Function's output view) may not be modified in place either, and the error
    names the new view's own grad_fn (issue 36608)."""
    assert gradtrace_output(CHAINED_VIEWS) == torch_output(CHAINED_VIEWS)
