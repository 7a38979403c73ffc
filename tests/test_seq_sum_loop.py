"""seq_sum's loop of whole-array adds (many sums, or few terms) gives accumulate's bits:
the same left-to-right additions in the same dtype, from +0.0 (reduction_order.seq_sum)."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import reduction_order
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


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(16, 300), (64, 8, 16), (3, 40, 17), (2, 9, 5)])
def test_seq_sum_by_reduce_over_a_strided_axis_adds_in_term_order(dtype, shape):
    # the terms' axis strided, a kept axis contiguous: numpy's add.reduce adds term by term
    # (reduction_order._sums_inner), never pairwise; checked against accumulate's order
    rng = np.random.default_rng(sum(shape) + 7)
    x = (rng.standard_normal(shape) * rng.choice([1e-4, 1.0, 1e4], shape)).astype(dtype)
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, 4)] = np.array([np.inf, np.nan, -0.0, 1e30],
                                                   dtype=np.float64).astype(dtype)
    for view in (np.swapaxes(x, -1, -2), np.moveaxis(x, 0, -1), np.swapaxes(x, -1, -2)[..., ::3]):
        assert reduction_order._sums_inner(view) or view.shape[-1] < 3
        got = seq_sum(view)
        assert got.tobytes() == _by_accumulate(view).tobytes()
    negative_zeros = np.full(shape, -0.0, dtype)
    assert seq_sum(np.swapaxes(negative_zeros, -1, -2)).tobytes() == _by_accumulate(
        np.swapaxes(negative_zeros, -1, -2)).tobytes()


def _column_sum_by_layout(a: np.ndarray) -> np.ndarray:
    layout = reduction_order.reduction_layout(a, (0,))
    q, off = reduction_order._partials(reduction_order.iteration_view(a, layout), layout)
    return reduction_order._accumulate(q, off).reshape(a.shape[1:])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(512, 128), (512, 2), (2, 512), (33, 7), (700, 37), (17, 8),
                                   (512, 1), (5, 1), (8, 1)])
def test_column_sums_shortcut_matches_torchs_layout_path(dtype, shape):
    rng = np.random.default_rng(shape[0] * 1000 + shape[1])
    a = (rng.standard_normal(shape) * rng.choice([1e-4, 1.0, 1e4], shape)).astype(dtype)
    a.reshape(-1)[rng.integers(0, a.size, 3)] = np.array([np.inf, -np.inf, np.nan]).astype(dtype)
    want = _column_sum_by_layout(a)  # also the one-column case, coalesced to one row
    assert cascade_sum(a, (0,), False).tobytes() == want.tobytes()
    assert cascade_sum(a, (0,), True).shape == (1, shape[1])
    zeros = np.full(shape, -0.0, dtype)
    assert cascade_sum(zeros, (0,), False).tobytes() == _column_sum_by_layout(zeros).tobytes()


def _four_levels(x: np.ndarray) -> np.ndarray:
    """multi_row_sum as SumKernel.cpp writes it: every level's leftovers added into a
    running sum that starts at zero, even the levels with none left."""
    size = x.shape[-1]
    step = 1 << max(4, reduction_order._ceil_log2(size) // 4)
    if size < step:
        return seq_sum(x)
    lead = x.shape[:-1]
    nb = size // step
    blocks = seq_sum(x[..., :nb * step].reshape(lead + (nb, step)))
    ng = nb // step
    groups = seq_sum(blocks[..., :ng * step].reshape(lead + (ng, step)))
    nh = ng // step
    supers = seq_sum(groups[..., :nh * step].reshape(lead + (nh, step)))
    acc = np.zeros(lead, x.dtype)
    for rest in (x[..., nb * step:], blocks[..., ng * step:], groups[..., nh * step:], supers):
        acc += seq_sum(rest)
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("size", [16, 17, 255, 256, 257, 512, 4096, 4111, 65536, 65552])
def test_multi_row_sum_without_empty_levels_keeps_every_bit(dtype, size):
    # levels with nothing left over are skipped: adding their +0.0 never changes a sum
    rng = np.random.default_rng(size)
    x = (rng.standard_normal((3, size)) * 1e3).astype(dtype)
    x[0] = -0.0  # an all -0.0 row sums to +0.0 either way
    x[1, ::5] = -0.0
    if dtype != np.complex64:
        x[2, 7] = np.nan
    got = reduction_order.multi_row_sum(x)
    want = _four_levels(x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
