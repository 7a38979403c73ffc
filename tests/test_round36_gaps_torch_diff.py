"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 36
(graph networks, recommenders, tabular and time-series models) found.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SPARSE_IN_FUNCTION = """import torch
class Spmm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, indices, values, shape, b):
        a = torch.sparse_coo_tensor(indices, values, shape)
        print(a.requires_grad, a.is_leaf)
        ctx.save_for_backward(a, b)
        ctx.N = shape[0]
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a_dense = grad_output.matmul(b.t())
        edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
        return None, grad_a_dense.view(-1)[edge_idx], None, a.t().matmul(grad_output)

torch.manual_seed(0)
edge = torch.tensor([[0, 0, 1, 2, 2], [0, 2, 1, 0, 1]])
values = torch.rand(5, requires_grad=True)
b = torch.randn(3, 2, requires_grad=True)
out = Spmm.apply(edge, values, torch.Size([3, 3]), b)
print(out)
out.pow(2).sum().backward()
print(values.grad, b.grad)
with torch.no_grad():
    s = torch.sparse_coo_tensor(edge, values, (3, 3))
print(s.requires_grad, s.grad_fn)
"""


def test_sparse_coo_tensor_of_grad_values_in_no_grad_does_not_require_grad() -> None:
    """pyGAT's SpecialSpmmFunction builds torch.sparse_coo_tensor from values that require
    grad inside Function.forward, where grad mode is off: torch's result then does not
    require grad (a leaf without a graph), so gradtrace must not refuse it as autograd
    through a sparse tensor."""
    assert gradtrace_output(SPARSE_IN_FUNCTION) == torch_output(SPARSE_IN_FUNCTION)


NUMPY_LONG = """import numpy as np
import torch
field_dims = [4, 3, 5]
offsets = np.array((0, *np.cumsum(field_dims)[:-1]), dtype=np.long)
print(offsets, offsets.dtype, np.long is np.int64, np.ulong is np.uint64)
x = torch.tensor([[1, 2, 0], [3, 0, 4]])
print(x + x.new_tensor(offsets).unsqueeze(0))
print(np.zeros(2, dtype=np.ulong), np.long(7) + 1)
"""


def test_numpy_long_names_int64_as_numpy_2_does() -> None:
    """numpy 2 brought back np.long (C's long: int64 on Linux) and np.ulong; pytorch-fm's
    FeaturesEmbedding builds its field offsets with dtype=np.long."""
    assert gradtrace_output(NUMPY_LONG) == torch_output(NUMPY_LONG)


MSE_PERMUTED = """import torch
torch.manual_seed(0)
series = torch.randn(200, 3)
windows = series.unfold(0, 48, 8).permute(0, 2, 1)
target = windows[:, 36:]
out = (torch.randn(20, 3, 12) * 0.3).permute(0, 2, 1).requires_grad_()
loss = torch.nn.functional.mse_loss(out, target)
print(loss.item())
print(torch.nn.functional.mse_loss(target, out, reduction='sum').item())
none = torch.nn.functional.mse_loss(out, target, reduction='none')
print(none.stride(), none.sum().item())
loss.backward()
print(out.grad.stride(), out.grad.sum().item())
"""


def test_mse_loss_reduces_in_the_layout_tensoriterator_gives_the_loss() -> None:
    """mse_loss's kernel writes the squared differences through a TensorIterator over
    (input, target), laid out by their strides (a permuted prediction against a window
    view: DLinear's loss), and mean/sum walk that memory: the float32 sum's order, so its
    last bits, follow the layout, not the logical order."""
    assert gradtrace_output(MSE_PERMUTED) == torch_output(MSE_PERMUTED)


SPARSE_SUM = """import torch
torch.manual_seed(0)
i = torch.tensor([[0, 1, 1, 2, 1], [2, 0, 2, 1, 0]])
s = torch.sparse_coo_tensor(i, torch.randn(5), (3, 3))
print(torch.sparse.sum(s).item(), torch.sparse.sum(s, dtype=torch.float64))
deg = torch.sparse.sum(s, dim=1)
print(deg, deg.is_coalesced(), deg.to_dense().clamp(min=1.0))
print(torch.sparse.sum(s, dim=0), torch.sparse.sum(s, dim=(0, 1)), torch.sparse.sum(s, dim=-1))
s2 = torch.sparse_coo_tensor(i, torch.randn(5, 2), (3, 3, 2))
print(torch.sparse.sum(s2), torch.sparse.sum(s2, dim=2), torch.sparse.sum(s2, dim=(0, 1)))
counts = torch.sparse_coo_tensor(i, torch.arange(5), (3, 3))
print(torch.sparse.sum(s2, dim=(1, 2)), torch.sparse.sum(counts, dim=0))
for bad in [lambda: torch.sparse.sum(torch.ones(2, 2)), lambda: torch.sparse.sum(s, dim=2),
            lambda: torch.sparse.sum(s, dim=(1, 1))]:
    try:
        bad()
    except Exception as err:
        print(type(err).__name__, err)
"""


def test_sparse_sum_reduces_a_sparse_tensor_as_torch() -> None:
    """torch.sparse.sum (GCN code's `torch.sparse.sum(adj, dim=1).to_dense()` degrees): over
    every dim the coalesced values' sum, over some the values summed over the dense dims,
    then a dense result when every sparse dim goes, else the kept indices coalesced; the
    dim errors and a dense input's coalesce error as torch words them."""
    assert gradtrace_output(SPARSE_SUM) == torch_output(SPARSE_SUM)
