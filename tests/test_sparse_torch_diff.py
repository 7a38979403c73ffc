"""Sparse COO tensors (engine/sparse.py) against live PyTorch 2.13: what nn.Embedding(
sparse=True) gives as a gradient, the optimizers that take it, torch.sparse_coo_tensor and
its printing, coalesce, dense + sparse, and the sparse-dense products, bit for bit.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import address_free, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

EMBEDDING_TRAINING = """import torch
import torch.nn as nn
torch.manual_seed(0)
emb = nn.Embedding(6, 3, sparse=True)
print(emb)
idx = torch.tensor([[1, 2, 4], [4, 3, 1]])
out = emb(idx)
print(out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
(out * torch.arange(3.)).sum().backward()
g = emb.weight.grad
print(g)
print(g.is_sparse, g.layout, g.is_coalesced(), g._nnz(), g.shape, g.dtype, g.sparse_dim(),
      g.dense_dim(), g.requires_grad, g.is_leaf, g.grad_fn, type(g) is torch.Tensor)
print(g._indices(), g._values())
emb(torch.tensor([0, 1])).sum().backward()   # an expanded gradient: its entries appended
print(emb.weight.grad)
c = emb.weight.grad.coalesce()
print(c, c.indices(), c.values(), c.is_coalesced(), c.coalesce() is c)
print(c.to_dense())
try:
    print(g.indices())
except RuntimeError as e:
    print("RuntimeError", e)
torch.optim.SparseAdam(emb.parameters(), lr=0.1).step()
print(emb.weight)
torch.optim.SGD(emb.parameters(), lr=0.1).step()
print(emb.weight)
try:
    torch.optim.Adam(emb.parameters(), lr=0.1).step()
except RuntimeError as e:
    print("RuntimeError", e)
torch.optim.Adagrad(emb.parameters(), lr=0.1).step()
print(emb.weight)
print(emb.weight.grad * 2, -emb.weight.grad, emb.weight.grad + emb.weight.grad)
"""

PADDING_MOMENTUM_AND_ZERO_GRAD = """import torch
import torch.nn as nn
torch.manual_seed(0)
e = nn.Embedding(5, 2, sparse=True, padding_idx=0)
e(torch.tensor([0, 1, 0, 3])).sum().backward()
print(e.weight.grad)
e.weight.grad.zero_()
print(e.weight.grad)
e2 = nn.Embedding(5, 2, sparse=True)
e2(torch.tensor([1, 3, 1])).pow(2).sum().backward()
try:
    torch.nn.utils.clip_grad_norm_(e2.parameters(), 0.5)
except NotImplementedError:
    print("NotImplementedError")
print(e2.weight.grad)
opt = torch.optim.SGD(e2.parameters(), lr=0.1, momentum=0.9)
opt.step()
opt.step()
print(e2.weight)
opt.zero_grad(set_to_none=False)
print(e2.weight.grad)
e3 = nn.Embedding(5, 2, sparse=True, scale_grad_by_freq=True)
e3(torch.tensor([1, 1])).sum().backward()
"""

CONSTRUCTION_AND_PRODUCTS = """import torch
i = torch.tensor([[0, 1, 1], [2, 0, 2]])
s = torch.sparse_coo_tensor(i, torch.tensor([3., 4., 5.]), (2, 3))
print(s)
print(s.to_dense(), s.coalesce(), s.t(), s.t().is_coalesced())
d = torch.arange(6.).reshape(3, 2).requires_grad_()
y = torch.sparse.mm(s, d)
print(y, y.grad_fn.name(), [n is None for n, _ in y.grad_fn.next_functions])
y2 = s @ d
print(y2, y2.grad_fn.name(), len(y2.grad_fn.next_functions), torch.mm(s, d).grad_fn.name())
y.sum().backward()
print(d.grad)
print(torch.tensor([[0., 1.5], [2., 0.]]).to_sparse())
print(torch.tensor([[0., 1.5], [0., 0.]]).to_sparse(1))
print(torch.sparse_coo_tensor(i, torch.tensor([1, 2, 3]), (2, 3)))
print(torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 3)))
print(torch.sparse_coo_tensor([[0, 4]], [[1., 2.], [3., 4.]]).shape)
print(torch.ones(2, 3) + s, torch.ones(2, 3).sparse_mask(s.coalesce()))
x = torch.ones(2, 3)
x.add_(s, alpha=0.5)
print(x, s.is_sparse, x.is_sparse, s.layout, x.layout, torch.sparse_coo)
"""

BITS = """import torch
torch.manual_seed(3)
idx = torch.randint(0, 12, (2, 300))
vals = torch.randn(300) * torch.exp(torch.randn(300) * 2)
s = torch.sparse_coo_tensor(idx, vals, (12, 12))
c = s.coalesce()
print(c._nnz(), c.values().tolist())
print(s.to_dense().tolist())
d = torch.randn(12, 7, requires_grad=True)
y = torch.sparse.mm(s, d)
print(y.tolist())
g = torch.randn(12, 7)
y.backward(g)
print(d.grad.tolist())
d.grad = None
(s @ d).backward(g)
print(d.grad.tolist())
x = torch.randn(12, 12)
for alpha in (1, 0.3, -2.5):
    r = x.clone()
    r.add_(s, alpha=alpha)
    print(alpha, r.tolist(), torch.add(x, s, alpha=alpha).tolist())
h = torch.sparse_coo_tensor(torch.randint(0, 9, (1, 50)), torch.randn(50, 5), (9, 5))
xh = torch.randn(9, 5)
for alpha in (1, 0.3):
    r = xh.clone()
    r.add_(h, alpha=alpha)
    print(r.tolist())
a = torch.sparse_coo_tensor(torch.randint(0, 9, (1, 20)), torch.randn(20, 5), (9, 5))
for alpha in (1, 0.7):
    print(a.coalesce().add(h.coalesce(), alpha=alpha)._values().tolist())
    print(a.add(h, alpha=alpha)._values().tolist(), a.add(h, alpha=alpha)._indices().tolist())
print((h * 0.3)._values().tolist(), (h / 3)._values().tolist())
"""

GCN_LEGACY = """import torch
torch.manual_seed(0)
i = torch.LongTensor([[0, 1, 1, 2], [1, 0, 2, 1]])
v = torch.FloatTensor([1., 1., 1., 1.])
adj = torch.sparse.FloatTensor(i, v, torch.Size([3, 3]))
print(adj, adj.is_coalesced(), torch.sparse.FloatTensor(i, v).shape)
print(torch.sparse.DoubleTensor(i, v, torch.Size([3, 3])).dtype, torch.sparse.FloatTensor(2, 3))
w = torch.randn(4, 2, requires_grad=True)
x = torch.randn(3, 4)
y = torch.spmm(adj, x @ w)
print(y, y.grad_fn.name())
y.relu().pow(2).sum().backward()
print(w.grad)
print(adj.double(), adj.float() is adj, adj.to("cpu") is adj, adj.to(torch.float64).dtype)
"""

TRANSPOSE = """import torch
i = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])
a = torch.sparse_coo_tensor(i, torch.tensor([1., 2., 3., 4.]), (3, 4))
c = a.coalesce()
for m in (a, c):
    for d in [(0, 1), (1, 0), (0, 0), (-1, -2), (1, 1)]:
        t = m.transpose(*d)
        print(d, t.is_coalesced(), t.shape, t._indices().tolist(), t._values().tolist(),
              t is m)
print(torch.transpose(c, 0, 1), c.swapaxes(0, 1).is_coalesced(), c.swapdims(1, 0).shape)
one = torch.sparse_coo_tensor(torch.tensor([[0], [1]]), torch.tensor([5.]), (2, 2))
empty = torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 2))
print(one.t().is_coalesced(), one.coalesce().t().is_coalesced(), empty.t().is_coalesced())
s3 = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0], [2, 2]]), torch.tensor([1., 2.]),
                             (2, 2, 3))
print(s3.transpose(0, 2), s3.transpose(2, 1).to_dense())
h = torch.sparse_coo_tensor(i[:1], torch.ones(4, 2), (3, 2))
print(h.transpose(1, 1).shape)
x = torch.randn(4, 2, requires_grad=True)
y = torch.sparse.mm(a.t(), torch.sparse.mm(a, x))
y.sum().backward()
print(y, x.grad)
print(torch.tensor([[0., 1.], [2., 0.]]).to_sparse_coo(), torch.zeros(2, 3).to_sparse_coo(),
      c.to_sparse_coo() is c)
"""

ERRORS = [
    "torch.ones(2, 2).coalesce()", "torch.ones(2, 2).indices()", "torch.ones(2, 2).values()",
    "torch.ones(2, 2).is_coalesced()", "torch.ones(2, 2).sparse_dim()",
    "torch.ones(2, 2).dense_dim()",
    "torch.sparse_coo_tensor([[0, 1]], [1., 2., 3.], (3,))",
    "torch.sparse_coo_tensor([[0, 1]], [1., 2.], (3, 2))",
    "torch.sparse_coo_tensor([[0, 1]], [1., 2.], (3,)) + torch.ones(3)",
    "torch.ones(4) + torch.sparse_coo_tensor([[0, 1]], [1., 2.], (3,))",
    "torch.sparse_coo_tensor([[0, 1]], [1., 2.], (3,)).values()",
    "torch.sparse_coo_tensor([[0, 1]], [1., 2.], (3, 2)).transpose(0, 2)",
    "torch.sparse_coo_tensor([[0, 1]], [[1.], [2.]], (3, 1)).transpose(0, 1)",
]


@pytest.mark.parametrize("script", [EMBEDDING_TRAINING, PADDING_MOMENTUM_AND_ZERO_GRAD,
                                    CONSTRUCTION_AND_PRODUCTS, BITS, GCN_LEGACY, TRANSPOSE],
                         ids=["embedding_training", "padding_momentum_zero_grad",
                              "construction_and_products", "bits", "gcn_legacy", "transpose"])
def test_sparse_tensors_print_what_torch_prints(script: str) -> None:
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


@pytest.mark.parametrize("expression", ERRORS)
def test_sparse_errors_are_torchs(expression: str) -> None:
    script = f"import torch\ntry:\n    print({expression})\nexcept Exception as e:\n" \
             "    print(type(e).__name__, e)\n"
    assert gradtrace_output(script) == torch_output(script)


def test_ops_without_a_sparse_kernel_here_are_refused_by_name() -> None:
    script = "import torch\ns = torch.sparse_coo_tensor([[0, 1]], [1., 2.], (3,))\ns.exp()\n"
    out = gradtrace_output(script)
    assert out.startswith("NotSupportedError exp() of a sparse tensor is not supported")


def test_autograd_through_sparse_values_is_refused() -> None:
    script = ("import torch\nv = torch.tensor([1., 2.], requires_grad=True)\n"
              "torch.sparse_coo_tensor([[0, 1]], v, (3,))\n")
    assert gradtrace_output(script).startswith(
        "NotSupportedError a sparse tensor that requires grad is not supported")
