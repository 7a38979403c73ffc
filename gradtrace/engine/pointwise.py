"""Which elements of a pointwise float32 kernel torch computes with vector code, and which
with its scalar code (ATen's cpu_kernel_vec / vectorized_loop, TensorIterator's loops).

A kernel's vector body takes 2 x lanes elements at a time (16 with AVX2, 32 with AVX-512)
and leaves the remainder of each inner loop to the scalar function (libm's expf, ...),
which rounds differently. The inner loop is one row of the iteration: the whole tensor
when its memory is dense (any permutation of contiguous), else the last dimension (with
the dimensions that coalesce into it); rows whose input is strided run scalar only.
Tensors of 32,768 elements or more are also cut into one chunk per thread
(at::parallel_for), and each chunk's rows end in their own tail. Under the `default`
capability everything is scalar.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import capability

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE


def _is_dense(x: np.ndarray) -> bool:
    """Non-overlapping and dense: some permutation of the dims is C-contiguous."""
    dims = [(abs(st), n) for st, n in zip(x.strides, x.shape) if n != 1]
    if any(st == 0 for st, _ in dims):
        return False
    expected = x.itemsize
    for st, n in sorted(dims):
        if st != expected:
            return False
        expected *= n
    return True


def _iteration(x: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """(positions of x's elements in iteration order as flat C indices, inner row length,
    whether the row is contiguous for the vector loop)."""
    n = x.size
    if _is_dense(x):
        order = np.argsort(np.asarray(x.strides), kind="stable")[::-1]  # outer .. inner
        flat = np.arange(n).reshape(x.shape).transpose(order).ravel()
        return flat, n, True
    # the output is C-contiguous; coalesce trailing dims while the input's strides allow
    shape, strides = list(x.shape), list(x.strides)
    inner, stride = 1, None
    for size, st in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if stride is None:
            stride, inner, expect = st, size, st * size
        elif st == expect:
            inner *= size
            expect = st * size
        else:
            break
    vec_ok = stride in (None, 0, x.itemsize)
    return np.arange(n), max(inner, 1), vec_ok


def vector_mask(x: np.ndarray, cap: str | None = None) -> np.ndarray | None:
    """Boolean array in x's shape, True where torch's vector body computes the element;
    None when no element is vectorised."""
    cap = cap or capability.CAPABILITY
    if cap == "default" or x.size == 0:
        return None
    width = 2 * capability.float32_lanes(cap)
    flat, row, contiguous = _iteration(x)
    if not contiguous:
        return None
    n = x.size
    threads = capability.num_threads()
    it = np.arange(n)
    if n < GRAIN_SIZE or threads == 1:
        seg_start = it - it % row
        seg_end = np.minimum(seg_start + row, n)
    else:
        chunk = -(-n // min(threads, -(-n // GRAIN_SIZE)))
        c_start = it - it % chunk
        r_start = it - it % row
        seg_start = np.maximum(c_start, r_start)
        seg_end = np.minimum(np.minimum(c_start + chunk, r_start + row), n)
    body = (seg_end - seg_start) // width * width
    in_body = (it - seg_start) < body
    mask = np.empty(n, bool)
    mask[flat] = in_body
    return mask.reshape(x.shape)


def apply(x: np.ndarray, vector: Callable[[np.ndarray], np.ndarray],
          scalar: Callable[[np.ndarray], np.ndarray], cap: str | None = None) -> np.ndarray:
    """Evaluate a float32 pointwise kernel element by element as torch would: `vector`
    (the SIMD formula) on the vector body, `scalar` (the libm formula) elsewhere. Both
    take and return 1-D float32 arrays."""
    mask = vector_mask(x, cap)
    flat = np.ascontiguousarray(x).ravel()
    if mask is None:
        return scalar(flat).reshape(x.shape)
    m = mask.ravel()
    if m.all():
        return vector(flat).reshape(x.shape)
    out = np.empty_like(flat)
    out[m] = vector(flat[m])
    out[~m] = scalar(flat[~m])
    return out.reshape(x.shape)
