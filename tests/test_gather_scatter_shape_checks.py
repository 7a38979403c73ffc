"""gather and the scatter family check the index's shape against self (and a scatter's
src) before the bounds check, as ATen's ScatterGatherChecks.h does; an empty index skips
every check; a 0-d self, index or src counts as one element (differential, against torch).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest

pytest.importorskip("torch")
from test_ops_torch_diff import check_case  # noqa: E402

CASES = [
    # an index wider than self outside `dim`, or larger than src anywhere
    "x.scatter_add(0, torch.tensor([[1, 5, 1, 0]]), torch.ones(1, 4))",
    "x.scatter_add(0, torch.tensor([[0, 1], [1, 0]]), torch.ones(1, 2))",
    "x.scatter(0, torch.tensor([[0, 1], [1, 0]]), y[:1, :2])",
    "x.scatter(0, torch.tensor([[0, 1, 1, 1]]), 1.0)",
    "x.scatter_reduce(0, torch.tensor([[0, 1, 1, 1]]), torch.ones(1, 4), 'sum')",
    "x.scatter(0, torch.tensor([[0, 1, 1, 1]]), y, reduce='add')",
    "x.gather(0, torch.tensor([[0, 1, 1, 1]]))",
    "x.gather(1, torch.tensor([[0, 1, 1, 1], [0, 0, 0, 0]]))",
    # the number of dimensions: self's, input's (gather), src's
    "x.scatter_add(0, torch.tensor([0, 1]), torch.ones(2))",
    "x.gather(0, torch.tensor([0, 1]))",
    "x.scatter_add(0, torch.tensor([[0]]), torch.ones(1, 1, 1))",
    "x.scatter_add(0, torch.tensor([[0]]), torch.ones(1))",
    # bounds checked after shapes; index dtypes
    "x.scatter_add(0, torch.tensor([[0, 9, 1]]), torch.ones(1, 3))",
    "x.scatter_add(1, torch.tensor([[0, 9, 1, 1]]), torch.ones(1, 4))",
    "x.gather(0, torch.tensor([[0.0]]))",
    "x.scatter(0, torch.tensor([[0.0]]), 1.0)",
    "x.gather(0, torch.tensor([[1, 0, 1]], dtype=torch.int32))",
    # empty indices return before any check
    "x.gather(0, torch.zeros(0, dtype=torch.long))",
    "x.gather(0, torch.zeros(0, 3))",
    "x.scatter_add(0, torch.zeros(0, 7, dtype=torch.long), y)",
    "x.scatter_reduce(1, torch.zeros(0, 2, dtype=torch.long), y, 'mean')",
    # 0-d tensors: one element along one dimension
    "x.sum().gather(0, torch.tensor(0))",
    "x.sum().gather(0, torch.tensor([0, 0]))",
    "x.sum().scatter_add(0, torch.tensor([0]), v.sum().reshape(1))",
    "x.sum().scatter(0, torch.tensor(0), 7.0)",
    "x.sum().scatter_reduce(0, torch.tensor([0]), torch.tensor([5.0]), 'mean', "
    "include_self=False)",
]


@pytest.mark.parametrize("code", CASES)
def test_gather_scatter_shapes_checked_like_torch(code: str) -> None:
    check_case(code)
