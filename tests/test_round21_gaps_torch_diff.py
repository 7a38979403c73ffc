"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 21
found: index_add's and index_copy's argument checks (index_func_meta_impl's and
index_copy_'s, in torch's order: a source whose shape differs from self's outside `dim` was
broadcast by numpy, or failed with numpy's own error, where torch raises), index_add into a
0-dim self, scatter's source dtype check, and the deprecation warning torch gives for a
uint8 mask used as an index.

Skipped unless torch is importable.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from script_runs import each_expression, file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SETUP = "z = torch.zeros(4, 4)\ni = torch.tensor([0, 1, 2, 3])"

INDEX_ADD = [
    "z.index_add(0, i, torch.ones(4))", "z.index_add(1, i, torch.ones(4))",
    "z.index_add(-1, i, torch.ones(4))", "z.index_add(0, i.view(2, 2), torch.ones(3, 4))",
    "z.index_add(0, i.float().view(2, 2), torch.ones(4, 4))",
    "z.index_add(0, i.float(), torch.ones(4, 4, dtype=torch.float64))",
    "z.index_add(1, i, torch.ones(4, dtype=torch.float64))",
    "z.index_add(0, i, torch.ones(3, 4, dtype=torch.float64))",
    "torch.zeros(4, 4, 4).index_add(2, i, torch.ones(3, 3))",
    "z.index_add(0, i, torch.ones(3))", "z.index_add(0, i.int(), torch.ones(4))",
    "z.index_add(0, torch.tensor([9, 1, 2, 3]), torch.ones(4))",
    "z.index_add(0, i, torch.ones(4), alpha=2)", "z.clone().index_add_(0, i, torch.ones(4))",
    "torch.zeros(2, 3, 4).index_add(1, torch.tensor([0, 1]), torch.ones(2, 2, 5))",
    "z.index_add(1, torch.tensor([0, 1]), torch.ones(4, 2, 1))",
    "torch.zeros(4).index_add(0, i, torch.ones(4, 2))",
    "torch.zeros(4).index_add(0, torch.tensor(1), torch.tensor(2.))",
    "torch.zeros(4).index_add(0, torch.tensor(1), torch.ones(1))",
    "torch.zeros(()).index_add(0, torch.tensor([0]), torch.ones(1))",
    "torch.zeros(()).index_add(0, torch.tensor([0]), torch.tensor(1.5))",
    "z.index_add(1, torch.tensor([0, 2]), torch.ones(4, 2))",
]

INDEX_COPY = [
    "z.index_copy(0, i, torch.ones(4))", "z.index_copy(0, i, torch.ones(4, 3))",
    "z.index_copy(1, i, torch.ones(3, 4))", "z.index_copy(0, i, torch.tensor(1.))",
    "z.index_copy(0, torch.tensor([1]), torch.tensor(1.))",
    "z.index_copy(0, i.int().view(2, 2), torch.ones(4))", "z.index_copy(0, i.int(), torch.ones(4))",
    "z.index_copy(0, i, torch.ones(4, 3, dtype=torch.float64))",
    "z.index_copy(0, i, torch.ones(3, 3))", "z.index_copy(0, i, torch.ones(3, 4))",
    "z.index_copy(0, i.int(), torch.ones(4, 4, dtype=torch.float64))",
    "torch.zeros(()).index_copy(0, torch.tensor([0]), torch.ones(1))",
    "torch.zeros(()).index_copy(0, torch.tensor([0]), torch.tensor(3.))",
    "z.index_copy(0, torch.tensor([9, 0, 1, 2]), torch.ones(4, 3))",
    "torch.zeros(2, 3, 4).index_copy(0, torch.tensor([0, 1]), torch.ones(2, 3, 5))",
    "torch.zeros(2, 3, 4, 5).index_copy(1, torch.tensor([0, 1]), torch.ones(2, 3, 4, 6))",
    "z.index_copy(1, torch.tensor([3, 0]), torch.arange(8.).view(4, 2))",
]


@pytest.mark.parametrize("name, expressions", [("index_add", INDEX_ADD),
                                               ("index_copy", INDEX_COPY)])
def test_index_add_and_copy_argument_checks_like_torch(name: str,
                                                       expressions: list[str]) -> None:
    script = each_expression(expressions, SETUP)
    assert gradtrace_output(script) == torch_output(script)


def test_index_add_into_a_zero_dim_self_and_its_gradients_like_torch() -> None:
    script = """import torch
a = torch.tensor(1.5, requires_grad=True)
s = torch.tensor(2.25, requires_grad=True)
out = a.index_add(0, torch.tensor([0]), s, alpha=2)
print(out)
out.backward()
print(a.grad, s.grad)
s1 = torch.tensor([2.25], requires_grad=True)
b = torch.tensor([1.0, 2.0], requires_grad=True)
out = b.index_add(0, torch.tensor(1), s1)
print(out)
out.sum().backward()
print(b.grad, s1.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


SCATTERS = [
    "z.scatter(1, torch.zeros(3, 2).long(), torch.ones(3, 2, dtype=torch.float64))",
    "z.scatter_add(1, torch.zeros(3, 2).long(), torch.ones(3, 2, dtype=torch.float64))",
    "z.scatter(1, torch.zeros(3, 0).long(), torch.ones(3, 2, dtype=torch.float64))",
    "z.scatter(1, torch.zeros(3, 0), torch.ones(3, 2, dtype=torch.float64))",
    "z.scatter(1, torch.zeros(3, 2), torch.ones(3, 2, dtype=torch.float64))",
    "z.scatter_add(1, torch.zeros(5, 9).long(), torch.ones(3, 2, dtype=torch.float64))",
    "z.clone().scatter_(1, torch.zeros(3, 2).long(), torch.ones(3, 2, dtype=torch.float64))",
    "z.clone().scatter_add_(1, torch.zeros(3, 2).long(), torch.ones(3, 2, dtype=torch.int64))",
    "z.scatter_reduce(1, torch.zeros(3, 2).long(), torch.ones(3, 2).double(), reduce='sum')",
    "z.scatter(1, torch.zeros(3, 2).long(), 2.5)", "z.scatter(1, torch.zeros(3, 2).long(), 2)",
    "z.scatter_add(1, torch.tensor([[0, 0], [1, 3], [2, 2]]), torch.ones(3, 2))",
]


def test_scatter_source_dtype_checked_like_torch() -> None:
    """scatter and scatter_add took a source of another dtype and cast it; torch raises,
    even when the index is empty (its dtype check runs before the empty-index return)."""
    script = each_expression(SCATTERS, "z = torch.zeros(3, 4)")
    assert gradtrace_output(script) == torch_output(script)


UINT8_INDEXING = """import torch
x = torch.arange(6.).view(2, 3)
m = torch.tensor([[1, 0, 1], [0, 1, 1]], dtype=torch.uint8)
print(x[m])
print(x[:, m[0]])
print(x[m[:, 0], 1])
for k in range(2):
    print(x[m])
w = torch.ones(3, requires_grad=True)
print((w * 2)[torch.tensor([1, 0, 1], dtype=torch.uint8)].sum())
print(x.index_put((m,), torch.tensor([5., 6., 7., 8.])))
print(x[torch.tensor([True, False])])
try:
    print(x[torch.tensor([1, 0, 1], dtype=torch.uint8), torch.tensor([0.5])])
except Exception as e:
    print(type(e).__name__, e)
try:
    print(x[torch.tensor([1, 0, 1], dtype=torch.uint8)])
except Exception as e:
    print(type(e).__name__, e)
"""


def _warning_lines(stderr: str) -> list[str]:
    """Each warning's line number and message, whatever path names the script."""
    return [re.sub(r"^.*?:(\d+): ", r"\1: ", line) for line in stderr.splitlines()
            if "Warning: " in line]


def test_uint8_mask_index_warns_like_torch(tmp_path: Path) -> None:
    """torch's expandTensors warns for each uint8 index before checking its shape (and after
    rejecting a float index anywhere); gradtrace gave no warning."""
    torch_run, result, err = file_runs(UINT8_INDEXING, tmp_path, "uint8")
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert _warning_lines(err) == _warning_lines(torch_run.stderr)
    assert len(_warning_lines(torch_run.stderr)) == 7
