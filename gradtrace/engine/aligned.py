"""Fresh result buffers where torch's allocator puts them: at a 64-byte boundary (c10's
alloc_cpu aligns every CPU tensor's storage so).

numpy aligns its buffers to 16 bytes only, and on an Intel CPU that changes MKL's bits: its
kernels there treat a result's first elements apart until the next 64-byte boundary, so the
address a product is written to decides part of its summation order (measured: a float32
1x128 @ 128x185 product differs from torch's in 5 to 16 of its 185 elements when written 4 to
48 bytes past a boundary, in none when written at one; moving the operands to five offsets
changed none of 72 products: 12 shapes, 3 layouts, float32 and float64). MKL's generic
kernels on an AMD CPU do not depend on it.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from .mkl import address

ALIGNMENT = 64  # c10::gAlignment

# the arrays `empty` made, which own their buffers as an array numpy allocated does (their
# views, whose `base` is the same raw buffer, do not)
_OWNERS: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()


def empty(shape: tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    """np.empty(shape, dtype), C-contiguous, starting at a 64-byte boundary."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    start = -address(raw) % ALIGNMENT
    out = raw[start:start + nbytes].view(dtype).reshape(shape)
    _OWNERS[id(out)] = out
    return out


def zeros(shape: tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    out = empty(shape, dtype)
    out.fill(0)
    return out


def owns_data(array: np.ndarray) -> bool:
    """Whether `array` is a buffer of its own (numpy's, or one of `empty`'s), not a view."""
    return array.base is None or _OWNERS.get(id(array)) is array
