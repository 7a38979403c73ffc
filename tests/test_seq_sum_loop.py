"""seq_sum's loop of whole-array adds (many sums, or few terms) gives accumulate's bits:
the same left-to-right additions in the same dtype, from +0.0 (reduction_order.seq_sum)."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine.reduction_order import cascade_sum, seq_sum


def _by_accumulate(x: np.ndarray) -> np.ndarray:
    return np.add.accumulate(x, axis=-1)[..., -1] + x.dtype.type(0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(300, 16), (16, 300), (2, 3), (64, 8, 4), (512, 2), (3, 40, 17)])
def test_seq_sum_loop_matches_accumulate_bit_for_bit(dtype, shape):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * rng.choice([1e-4, 1.0, 1e4], shape)).astype(dtype)
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, 6)] = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e30],
                                                   dtype=np.float64).astype(dtype)
    for view in (x, np.swapaxes(x, -1, -2), x[..., ::2]):
        got = seq_sum(view)
        want = _by_accumulate(view)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()


def test_integer_sums_keep_accumulates_int64():
    x = np.arange(4 * 300, dtype=np.int32).reshape(300, 4)
    assert seq_sum(x).dtype == _by_accumulate(x).dtype == np.int64


def test_column_sum_of_a_bias_gradient_adds_in_torchs_chunks():
    # 512 rows summed over dim 0: chunks of 16 rows per column, then the chunk sums
    x = np.random.default_rng(0).standard_normal((512, 128)).astype(np.float32)
    got = cascade_sum(x, (0,), True)
    chunks = np.add.accumulate(x.reshape(32, 16, 128), axis=1)[:, -1]
    groups = np.add.accumulate(chunks.reshape(2, 16, 128), axis=1)[:, -1]
    want = (np.float32(0) + groups[0] + groups[1] + np.float32(0))[None]
    assert got.tobytes() == want.tobytes()
