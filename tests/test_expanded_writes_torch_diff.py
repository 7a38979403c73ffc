"""Differential tests against live PyTorch 2.13: in-place writes into a tensor with an
expanded (stride-0) dimension, whose elements share memory. torch refuses the
TensorIterator kernels (add_, copy_, normal_, out=, `e[...] = v`: "unsupported operation:
more than one element of the written-to tensor refers to a single memory location"), but
runs fill_ with a number, zero_, tril_/triu_ and, with a deprecation warning, index_put_,
masked_fill_ and index_fill_ (so `e[mask] = v` and `e[idx] = v`), each writing the shared
memory (the expanded base changes); a CopySlices over such a view refuses in backward. A
meta tensor's kernels check nothing.
gradtrace raised the overlap error for all of them (or numpy's "assignment destination is
read-only" for a view of an expand, `e[0] = v`).

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import each_expression, file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SETUP = """
def w(f, base=None, shape=(2, 3)):
    x = torch.arange(1., 4.) if base is None else base
    f(x.expand(*shape))
    return x
def put(e, index, value):
    e[index] = value
def put_cols(e):
    e[:, torch.tensor([0, 0, 2])] = torch.tensor([[9., 8., 7.], [1., 2., 3.], [4., 4., 4.]])
"""

WRITES = [
    # allowed: the shared memory takes the write
    "w(lambda e: e.fill_(5.))", "w(lambda e: e.zero_())", "w(lambda e: e.fill_(2))",
    "w(lambda e: torch.nn.init.constant_(e, 3.))", "w(lambda e: torch.nn.init.zeros_(e))",
    "w(lambda e: torch.nn.init.ones_(e))", "w(lambda e: e.tril_(), shape=(3, 3))",
    "w(lambda e: e.triu_(1), shape=(3, 3))", "w(lambda e: e.fill_diagonal_(0.), shape=(3, 3))",
    "w(lambda e: e.index_fill_(1, torch.tensor([0, 2]), -1.))",
    "w(lambda e: e.index_fill_(0, torch.tensor([1]), torch.tensor(-3.)))",
    "w(lambda e: e.masked_fill_(torch.tensor([True, False, True]), 7.))",
    "w(lambda e: e.masked_fill_(torch.eye(3, dtype=torch.bool), torch.tensor(-2.)), "
    "shape=(3, 3))",
    "w(lambda e: e.index_put_((torch.tensor([0]),), torch.tensor(3.)))",
    "w(lambda e: e.index_put_((torch.tensor([0, 1]),), torch.tensor(1.), accumulate=True))",
    "w(lambda e: put(e, 0, 5.))", "w(lambda e: put(e, (0, 1), 7.))",
    "w(lambda e: put(e, 0, torch.tensor([4., 5., 6.])))", "w(lambda e: put(e, slice(1, None), 4.))",
    "w(lambda e: put(e, torch.tensor([True, False]), 7.))",
    "w(lambda e: put(e, torch.tensor([0]), 7.))",
    "w(lambda e: put(e, torch.tensor([0, 1]), torch.tensor([[5., 6., 7.], [1., 2., 3.]])))",
    "w(lambda e: put(e, torch.tensor([1, 0]), torch.tensor([[5., 6., 7.], [1., 2., 8.]])))",
    "w(put_cols, shape=(3, 3))", "w(lambda e: put(e, (slice(None), torch.tensor([0, 1])), 2.))",
    "w(lambda e: put(e, False, 2.))", "w(lambda e: e[0].fill_(9.))",
    "w(lambda e: e.t().zero_())", "w(lambda e: put(e, (slice(None), 0), torch.tensor([3., 4.])),"
    " base=torch.zeros(2, 1))",
    "w(lambda e: e.add_(1), shape=(1, 3))", "w(lambda e: e.add_(1), shape=(2, 0, 3))",
    # refused: torch's overlap error, the base unchanged
    "w(lambda e: e.fill_(torch.tensor(1.)))", "w(lambda e: e.add_(1))", "w(lambda e: e.mul_(2))",
    "w(lambda e: e.copy_(torch.ones(2, 3)))", "w(lambda e: e.copy_(torch.ones(3)))",
    "w(lambda e: e.normal_())", "w(lambda e: e.uniform_())", "w(lambda e: e.relu_())",
    "w(lambda e: e.clamp_(0, 1))", "w(lambda e: e.index_copy_(0, torch.tensor([0]), "
    "torch.ones(1, 3)))", "w(lambda e: e.scatter_(1, torch.tensor([[0], [1]]), 3.))",
    "w(lambda e: e.masked_scatter_(torch.tensor([True, False, True]), torch.ones(6)))",
    "w(lambda e: torch.nn.init.normal_(e))", "w(lambda e: torch.nn.init.xavier_uniform_(e))",
    "w(lambda e: torch.nn.functional.relu(e, inplace=True))",
    "w(lambda e: put(e, Ellipsis, 5.))", "w(lambda e: put(e, slice(None), torch.ones(3)))",
    "w(lambda e: put(e, (slice(None), 1), 7.))", "w(lambda e: put(e, None, 2.))",
    "w(lambda e: put(e, True, 2.))", "w(lambda e: put(e, (Ellipsis, 0), 2.))",
    "w(lambda e: e.zero_().add_(1))", "w(lambda e: torch.add(torch.ones(3), 1, out=e))",
    "w(lambda e: torch.mm(torch.ones(2, 2), torch.ones(2, 3), out=e))",
    "w(lambda e: torch.randn(2, 3, out=e))", "w(lambda e: put(e, 0, torch.ones(3)), "
    "base=torch.zeros(2, 1))",
    # a meta tensor's kernels check no overlap (and warn of none)
    "torch.zeros(3, device='meta').expand(2, 3).add_(1)",
    "torch.zeros(3, device='meta').expand(2, 3).index_fill_(1, torch.tensor([0], device='meta'), "
    "1.)",
    "torch.add(torch.ones(2, 3, device='meta'), 1, "
    "out=torch.zeros(3, device='meta').expand(2, 3))",
]


def test_writes_into_an_expand_run_or_refuse_like_torch() -> None:
    """Each write's effect on the expanded base, or torch's error."""
    script = each_expression(WRITES, SETUP)
    assert gradtrace_output(script) == torch_output(script)


GRAD = """import torch
def run(f):
    try:
        f()
    except Exception as ex:
        print(type(ex).__name__, ex)
def leaf_view():
    w = torch.zeros(3, requires_grad=True)
    w.expand(2, 3).fill_(1.)
def no_grad():
    w = torch.zeros(3, requires_grad=True)
    with torch.no_grad():
        e = w.expand(2, 3)
        e.fill_(1.)
        e[0] = 4.
    print(w, w._version, e._version)
def nonleaf(write, needs_base):
    w = torch.ones(3, requires_grad=True)
    v = torch.ones(3, requires_grad=True)
    y = w * 2 if needs_base else torch.zeros(3)
    e = y.expand(2, 3)
    write(e, v)
    print(type(e.grad_fn).__name__, type(y.grad_fn).__name__, y)
    (e * torch.arange(6.).view(2, 3)).sum().backward()
    print(w.grad, v.grad)
def fill(e, v):
    e.fill_(1.)
def row(e, v):
    e[0] = 5.
def rows(e, v):
    e[torch.tensor([0, 1])] = v * torch.tensor([[1.], [2.]])
def base_written():
    x = torch.arange(3., requires_grad=True)
    z = x * 1
    e = z.expand(2, 3)
    z.mul_(2)
    (e * torch.arange(6.).view(2, 3)).sum().backward()
    print(type(e.grad_fn).__name__, x.grad)
run(leaf_view)
run(no_grad)
run(base_written)
for write in (fill, row, rows):
    for needs_base in (True, False):
        run(lambda: nonleaf(write, needs_base))
"""


def test_expand_writes_histories_and_backward_like_torch() -> None:
    """A leaf's expand refuses (a view of a leaf); under no_grad the leaf's memory changes;
    a non-leaf's base becomes CopySlices, whose backward into the base refuses the
    overlapping view (torch's grad_slice.copy_) but not through a row of it, nor when only
    the written values need a gradient. An expand's regenerated AsStridedBackward0 sums
    over the expanded dim (torch's as_strided_backward; gradtrace kept one row's)."""
    assert gradtrace_output(GRAD) == torch_output(GRAD)


WARNINGS = """import torch
x = torch.arange(1., 4.)
e = x.expand(3, 3)
e[torch.tensor([True, False, True])] = 0.
e[torch.tensor([0, 1])] = torch.tensor([7., 8., 9.])
for i in range(2):
    e.index_fill_(1, torch.tensor([0]), -1.)
e.masked_fill_(torch.eye(3, dtype=torch.bool), 2.)
e.index_put_((torch.tensor([0]),), torch.tensor(1.), accumulate=True)
e.fill_(3.)
print(x)
"""


def test_expand_write_warnings_like_torch(tmp_path: Path) -> None:
    """index_put_, masked_fill_ (also as index_put_'s one-value mask dispatch) and
    index_fill_ into an expand warn that it is deprecated, at the script's line."""
    torch_run, result, err = file_runs(WARNINGS, tmp_path, "expanded", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert err.replace("expanded.gt", str(tmp_path / "expanded.py")) == torch_run.stderr
    assert torch_run.stderr.count("UserWarning") == 6


TRUE_INDEX = """import torch
w = torch.zeros(3, requires_grad=True)
x = w.clone()
x[True] = 2.
print(x, x.grad_fn.name(), [type(n).__name__ for n, _ in x.grad_fn.next_functions])
v = torch.ones(3, requires_grad=True)
y = w.clone()
y[True] = v * 3
print(y, y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions])
y.sum().backward()
print(v.grad, w.grad)
z = torch.zeros(2, 3)
z[True] = torch.tensor([1., 2., 3.])
z[True] = torch.tensor([[[4., 5., 6.]]])
print(z, z._version)
"""


def test_true_index_assignment_is_unsqueeze_copy_like_torch() -> None:
    """`t[True] = v` is torch's copy_to(t.unsqueeze(0), v): v's history reaches CopySlices
    through ExpandBackward0 (gradtrace's index_put went straight to MulBackward0)."""
    assert gradtrace_output(TRUE_INDEX) == torch_output(TRUE_INDEX)
