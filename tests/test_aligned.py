"""MKL's results lie where torch's allocator puts them (engine/aligned.py): at a 64-byte
boundary, which MKL's kernels on an Intel CPU read as part of the summation order; and such
a result counts toward live memory as numpy's own arrays do, its views not again."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import aligned, blas, limits
from gradtrace.engine.tensor import Tensor


@pytest.mark.parametrize("shape", [(0,), (1,), (3, 5), (2, 0, 4), (7, 1, 9), (1 << 14,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_fresh_buffers_start_at_a_64_byte_boundary(shape, dtype):
    for _ in range(8):  # numpy's own allocations land 16 bytes past one as often as not
        out = aligned.zeros(shape, dtype)
        assert out.ctypes.data % aligned.ALIGNMENT == 0 or out.size == 0  # (no data at all)
        assert out.shape == shape and out.dtype == dtype and out.flags.c_contiguous
        assert not out.any()


def test_an_aligned_buffer_owns_its_data_and_its_views_do_not():
    out = aligned.empty((4, 6), np.float32)
    assert aligned.owns_data(out) and aligned.owns_data(np.zeros(3))
    assert not aligned.owns_data(out[1:]) and not aligned.owns_data(out.T)
    assert not aligned.owns_data(out.reshape(6, 4)) and not aligned.owns_data(np.zeros(3)[1:])


def test_products_are_written_at_torchs_alignment():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 128)).astype(np.float32)
    b = rng.standard_normal((128, 185)).astype(np.float32)
    for result in (blas.mm(a, b), blas.mv(b.T, a[0]), blas.bmm(a[None], b[None])):
        assert result.ctypes.data % aligned.ALIGNMENT == 0


def test_a_product_matches_torch_wherever_numpy_put_its_operands():
    """On an Intel CPU this product's result differed from torch's in 5-16 of 185 elements
    when written at numpy's 16-byte alignment (on an AMD CPU MKL's generic kernels do not
    depend on it)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 128)).astype(np.float32)
    b = rng.standard_normal((128, 185)).astype(np.float32)
    expected = torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    for _ in range(20):
        np.testing.assert_array_equal(blas.mm(a, b), expected, strict=True)


def test_a_large_product_counts_toward_live_memory_once():
    limits.LIMITS.run += 1  # a fresh count, as a new run starts one
    limits.LIMITS.live_bytes = 0
    x = Tensor(np.ones((256, 256), np.float32))
    before = limits.LIMITS.live_bytes
    y = x @ x
    grown = limits.LIMITS.live_bytes - before
    assert grown == y.array.nbytes
    views = [y.t(), y[1:], y.view(-1)]
    assert limits.LIMITS.live_bytes - before == grown
    del views
