"""ATen's reduction kernels transcribed element by element (SumKernel.cpp's multi_row_sum /
row_sum / vectorized_inner_sum / vectorized_outer_sum, functional_base.h's reduce_all and
the shuffle tree of vec_reduce_all) with 8- and 16-lane vectors, against gradtrace's
vectorised numpy. The 8-lane transcription must agree with torch's AVX2 recordings, which
ties it to torch. Under AVX-512 the sums still run the AVX2 kernel (REGISTER_DISPATCH
registers no AVX-512 build; capability.py), while softmax's kernels, registered for
AVX-512, sum with 16 lanes; tests/data/numerics/avx512 (recorded on an AVX-512 CPU)
checks both against torch directly in test_numerics_reductions and test_numerics_softmax."""
from __future__ import annotations

import numpy as np
import pytest
from numerics_data import floats, load

from gradtrace.engine import capability
from gradtrace.engine.reduction_order import cascade_sum, reduce_all_sum

F = np.float32


def ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def multi_row_sum(load, size: int, nrows: int, zero):
    """SumKernel.cpp's multi_row_sum, line by line: load(i, k) is row i, column k."""
    power = max(4, ceil_log2(size) // 4)
    step = 1 << power
    mask = step - 1
    acc = [[zero for _ in range(nrows)] for _ in range(4)]
    i = 0
    while i + step <= size:
        for _ in range(step):
            for k in range(nrows):
                acc[0][k] = acc[0][k] + load(i, k)
            i += 1
        for j in range(1, 4):
            for k in range(nrows):
                acc[j][k] = acc[j][k] + acc[j - 1][k]
                acc[j - 1][k] = zero
            if i & (mask << (j * power)):
                break
    while i < size:
        for k in range(nrows):
            acc[0][k] = acc[0][k] + load(i, k)
        i += 1
    for j in range(1, 4):
        for k in range(nrows):
            acc[0][k] = acc[0][k] + acc[j][k]
    return acc[0]


def row_sum(load, size: int, zero):
    ilp = size // 4
    partial = multi_row_sum(lambda i, k: load(4 * i + k), ilp, 4, zero)
    for i in range(ilp * 4, size):
        partial[0] = partial[0] + load(i)
    for k in range(1, 4):
        partial[0] = partial[0] + partial[k]
    return partial[0]


def inner_sum(row: np.ndarray, width: int) -> np.float32:
    """vectorized_inner_sum of one contiguous row (size >= width)."""
    nvec = row.size // width
    vec = row_sum(lambda i: row[i * width:(i + 1) * width], nvec, np.zeros(width, F))
    total = F(0)
    for k in range(nvec * width, row.size):
        total = F(total + row[k])
    for lane in vec:
        total = F(total + lane)
    return total


def outer_sum(x: np.ndarray, width: int) -> np.ndarray:
    """vectorized_outer_sum down the rows of a C-contiguous (rows, cols) array."""
    rows, cols = x.shape
    out = np.zeros(cols, F)
    j = 0
    while j + 4 * width <= cols:
        block = x[:, j:j + 4 * width]
        sums = multi_row_sum(lambda i, k, b=block: b[i, k * width:(k + 1) * width], rows, 4,
                             np.zeros(width, F))
        for k in range(4):
            out[j + k * width:j + (k + 1) * width] += sums[k]
        j += 4 * width
    while j + width <= cols:
        block = x[:, j:j + width]
        out[j:j + width] += row_sum(lambda i, b=block: b[i], rows, np.zeros(width, F))
        j += width
    for c in range(j, cols):
        column = x[:, c]
        out[c] += row_sum(lambda i, v=column: v[i], rows, F(0))
    return out


def tree(v: np.ndarray) -> np.float32:
    """AVX-512 vec_reduce_all(+): 256-bit halves, then 128, 64 and 32-bit shuffles."""
    while v.size > 1:
        v = v[:v.size // 2] + v[v.size // 2:]
    return v[0]


def reduce_all(row: np.ndarray, width: int) -> np.float32:
    """functional_base.h reduce_all(+) of one row."""
    if row.size < width:
        total = row[0]
        for v in row[1:]:
            total = F(total + v)
        return total
    acc = row[:width].copy()
    d = width
    while d + width <= row.size:
        acc = acc + row[d:d + width]
        d += width
    if d < row.size:
        acc[:row.size - d] += row[d:]
    return tree(acc)


@pytest.mark.parametrize("cap,width", [("avx512", 8), ("avx2", 8)])
def test_cascade_sum_follows_the_transcribed_avx2_kernel(cap, width, monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    for n in (16, 17, 31, 64, 65, 100, 255, 256, 257, 1000, 2100):
        x = floats(5000 + n, (n,))
        assert cascade_sum(x, (), False) == F(0) + inner_sum(x, width), n
    for rows, cols in ((3, 64), (70, 65), (33, 17), (9, 130), (257, 16)):
        x = floats(6000 + rows * cols, (rows, cols))
        got = cascade_sum(x, (0,), False)
        assert np.array_equal(got, outer_sum(x, width)), (rows, cols)
        got = cascade_sum(x, (1,), False)
        if cols >= width:
            want = np.array([inner_sum(r, width) for r in x], F)
            assert np.array_equal(got, want), (rows, cols)


@pytest.mark.parametrize("cap,width", [("avx512", 16), ("avx2", 8)])
def test_softmax_row_sums_follow_the_transcribed_kernel(cap, width, monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    for n in (1, 5, 8, 15, 16, 17, 31, 32, 33, 100, 257):
        x = floats(7000 + n, (4, n))
        want = np.array([reduce_all(r, width) for r in x], F)
        softmax_width = capability.lanes(4, capability.kernel(capability.AVX512_KERNEL))
        assert np.array_equal(reduce_all_sum(x, softmax_width), want), n


def test_the_transcription_agrees_with_torchs_avx2_recordings():
    """The 8-lane transcription against torch itself: 1-D contiguous sums of the recorded
    reduction cases of 8 or more elements."""
    from numerics_data import base_shape, view

    checked = 0
    for case in load("avx2", "reductions"):
        shape = tuple(case["shape"])
        if (case["op"] != "sum" or len(shape) != 1 or case["layout"] != "contiguous"
                or case["dims"] is not None or shape[0] < 8):
            continue
        x = view(floats(case["seed"], base_shape(shape, "contiguous")), "contiguous", shape)
        assert F(0) + inner_sum(x, 8) == case["out"], shape
        checked += 1
    assert checked >= 40
