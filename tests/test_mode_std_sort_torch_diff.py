"""torch.mode's index against live PyTorch: its CPU kernel sorts (value, index) pairs by
value with libstdc++'s std::sort, which above 16 elements is not stable, so the index it
reports among the mode's copies is the one that sort leaves last (gradtrace/engine/ops/
std_sort.py), not simply the last occurrence. Skipped unless torch is importable."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradtrace.engine.ops.sorting import mode  # noqa: E402
from gradtrace.engine.ops.std_sort import std_sort_order  # noqa: E402
from gradtrace.engine.tensor import Tensor  # noqa: E402


@pytest.mark.parametrize("size", [5, 16, 17, 20, 33, 64, 100, 257, 1000])
@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64])
def test_mode_reports_the_index_torchs_unstable_sort_leaves_last(size, dtype):
    rng = np.random.default_rng(size)
    for distinct in (1, 2, 3, 7):
        rows = rng.integers(0, distinct, (4, size)).astype(dtype)
        rows[1, rng.permutation(size)[: size // 4]] = np.nan if dtype != np.int64 else 0
        values, indices = torch.mode(torch.from_numpy(rows), dim=1)
        ours = mode(Tensor(rows), dim=1)
        assert np.array_equal(ours[0].array, values.numpy(), equal_nan=True)
        assert ours[1].array.tolist() == indices.tolist()


def test_std_sort_order_sorts_and_keeps_ties_in_libstdcxx_order():
    keys = [1, 0] * 20
    order = std_sort_order(keys)
    assert sorted(order) == list(range(40))
    assert [keys[i] for i in order] == sorted(keys)
    assert order[19] == int(torch.mode(torch.tensor(keys))[1])  # the last of the 0s
    assert std_sort_order([3, 1, 2]) == [1, 2, 0] and std_sort_order([]) == []
