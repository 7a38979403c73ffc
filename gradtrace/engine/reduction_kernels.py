"""torch's CPU kernels for the reductions other than sum, as array functions in torch's order.

Each follows the ATen kernel named in its docstring: which values it accumulates in which
type (float32, or float64 for var/std and cumsum) and in which order (vectors of `lanes()`
lanes, or one element after another in TensorIterator's visiting order). Welford's
`m2 + delta * new_delta` and NormTwoOps's `acc + x * x` round twice even in the AVX2 build
(measured: with float64 inputs a fused step shows in the result); only the scalar tail of
the float32 2-norm is fused (see `norm2`). Python loops run over a reduced length only
where torch's own recurrence is sequential (Welford), vectorised over outputs.
"""
from __future__ import annotations

import numpy as np

from . import capability, glibc
from .fp32 import fma
from .fp64 import fma as fma64
from .meta import META, reduced_result, stands_on_meta
from .reduction_order import (
    Layout,
    lanes,
    place,
    reduced_rows,
    reduction_layout,
    seq_sum,
)

# -- var / std (ReduceOps.cpp std_var_out) -----------------------------------------------


def _iteration_order(array: np.ndarray) -> np.ndarray:
    """All elements in the order a one-input TensorIterator visits them (memory order)."""
    layout = reduction_layout(array, tuple(range(array.ndim)))
    view = np.lib.stride_tricks.as_strided(array, layout.shape[::-1], layout.in_strides[::-1],
                                           writeable=False)
    return view.reshape(-1)


def var_all(array: np.ndarray, mean: float, correction: float, take_sqrt: bool) -> np.ndarray:
    """std_var_all_cpu (one output): the float mean, then sum((x - mean)^2) in float64 one
    element after another (ReduceOps.cpp is built without FMA), / max(0, n - correction)."""
    dx = _iteration_order(array).astype(np.float64) - np.float64(mean)
    total = seq_sum(dx * dx) if dx.size else np.float64(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.float64(total) / np.float64(max(0.0, array.size - correction))
        out = np.sqrt(var) if take_sqrt else var
    return np.asarray(out, array.dtype)


def var_dims(array: np.ndarray, axes: tuple[int, ...], correction: float, take_sqrt: bool,
             keepdim: bool) -> np.ndarray:
    """std_var_kernel_impl: WelfordOps<float, double> per output, over its elements in
    visiting order."""
    return var_mean_dims(array, axes, correction, take_sqrt, keepdim)[0]


def var_mean_dims(array: np.ndarray, axes: tuple[int, ...], correction: float,
                  take_sqrt: bool, keepdim: bool) -> tuple[np.ndarray, np.ndarray]:
    """WelfordOps' two results per output (var_mean, std_mean): the variance (or its root)
    and Welford's running mean, both accumulated in double and rounded to the dtype."""
    rows, layout, nred = reduced_rows(array, axes)
    x = rows.astype(np.float64)
    mean = np.zeros(x.shape[:-1])
    m2 = np.zeros(x.shape[:-1])
    for i in range(x.shape[-1]):
        xi = x[..., i]
        delta = xi - mean
        mean = mean + delta / np.float64(i + 1)
        m2 = m2 + delta * (xi - mean)
    n = np.float64(x.shape[-1])
    divisor = n - correction if n > correction else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        var = m2 / np.float64(divisor)
        out = (np.sqrt(var) if take_sqrt else var).astype(array.dtype)
    return (place(out, array, axes, layout, nred, keepdim),
            place(mean.astype(array.dtype), array, axes, layout, nred, keepdim))


def cumprod(array: np.ndarray, axis: int) -> np.ndarray:
    """cumprod_cpu_kernel: a double running product along the dim, each step rounded to
    the dtype (acc_type<float> is double)."""
    return np.cumprod(array.astype(np.float64), axis=axis).astype(array.dtype)


# -- norm (ReduceOpsKernel.cpp norm_kernel_tensor_iterator_impl) ----------------------------


def _reduce_lastdim(layout: Layout, itemsize: int) -> bool:
    """binary_kernel_reduce_lastdim applies: one reduced dim, first, contiguous."""
    nred = sum(1 for s in layout.out_strides if s == 0)
    return nred == 1 and layout.out_strides[0] == 0 and layout.in_strides[0] == itemsize




def _fused_square_add(x: np.ndarray, total: np.ndarray) -> np.ndarray:
    """fma(x, x, total) in x's dtype (fp64's works on arrays of at least one dim)."""
    if x.dtype == np.float32:
        return fma(x, x, total)
    x1 = np.atleast_1d(x)
    return fma64(x1, x1, np.atleast_1d(total)).reshape(np.shape(x))


def norm2(array: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """The 2-norm: over one contiguous last dim, vectors of squares accumulated lane-wise,
    the lanes summed in order, then the tail one by one; otherwise one element after
    another (NormTwoOps). Then a square root. The AVX2 build compiled the float32 tail loop
    as groups of 4 squares (rounded, then added) and the last `tail % 4` as FMAs: measured
    exact on every length 1..19 and 40..1001 (the AVX-512 build is assumed alike). The
    float64 tail (under 4 lanes) is all FMAs: measured exact on lengths 1..40."""
    if META.used and stands_on_meta(array):
        return reduced_result(array, axes, keepdim)
    rows, layout, nred = reduced_rows(array, axes)
    if _reduce_lastdim(layout, array.itemsize):
        width = lanes(array.dtype)
        size = rows.shape[-1]
        nvec = size // width
        acc = np.zeros(rows.shape[:-1] + (width,), rows.dtype)
        for k in range(nvec):
            v = rows[..., k * width:(k + 1) * width]
            acc += v * v
        total = seq_sum(acc)
        fused_from = nvec * width + (size - nvec * width) // 4 * 4
        if not capability.fma_build():
            fused_from = size
        for i in range(nvec * width, size):
            x = rows[..., i]
            total = _fused_square_add(x, total) if i >= fused_from else total + x * x
    else:
        total = seq_sum(rows * rows)
    return place(np.sqrt(total), array, axes, layout, nred, keepdim)


def norm_p(array: np.ndarray, axes: tuple[int, ...], keepdim: bool, p: float) -> np.ndarray:
    """Other vector norms (NormOneOps, AbsMaxOps, AbsMinOps, NormZeroOps, NormOps), one
    element after another in visiting order."""
    if META.used and stands_on_meta(array):
        return reduced_result(array, axes, keepdim)
    rows, layout, nred = reduced_rows(array, axes)
    a = np.abs(rows)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if p == 1:
            out = seq_sum(a)
        elif p == np.inf:
            out = np.max(a, axis=-1) if a.shape[-1] else np.zeros(a.shape[:-1], a.dtype)
        elif p == -np.inf:
            out = np.min(a, axis=-1) if a.shape[-1] else np.full(a.shape[:-1], np.inf, a.dtype)
        elif p == 0:
            out = seq_sum((a != 0).astype(a.dtype))
        elif a.dtype == np.float32:  # NormOps in float: libm's powf, 1 / p in float too
            q = np.float32(p)
            out = glibc.powf(seq_sum(glibc.powf(a, q)), np.float32(1) / q)
        else:
            out = np.power(seq_sum(np.power(a, p)), 1.0 / p)
    return place(np.asarray(out, array.dtype), array, axes, layout, nred, keepdim)


def norm_complex(array: np.ndarray, axes: tuple[int, ...], keepdim: bool,
                 p: float) -> np.ndarray:
    """Vector norms of a complex array: the norm kernel's ops on c10::complex, which take
    each element's std::abs (glibc's hypotf/hypot, as np.hypot computes) and accumulate in
    the real type one element after another: NormTwoOps adds |z|*|z| rounded (no FMA, and
    no vectorised last-dim path, which is for real dtypes only), the others as norm_p.
    Measured against torch 2.13 on complex64 vectors of lengths 1..60 for orders 1 and 2."""
    magnitude = np.empty_like(array.real)  # in the input's layout: the same visiting order
    np.hypot(array.real, array.imag, out=magnitude)
    if p != 2:
        return norm_p(magnitude, axes, keepdim, p)
    rows, layout, nred = reduced_rows(magnitude, axes)
    return place(np.sqrt(seq_sum(rows * rows)), magnitude, axes, layout, nred, keepdim)


# -- prod (Reduce.h binary_kernel_reduce_vec) ------------------------------------------------


def prod(array: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """torch.prod of a float array (binary_kernel_reduce_vec). Where the fastest reduced
    dim is contiguous and holds at least 4 vectors, each of its rows is multiplied in
    blocks of 4 vectors (the block products combined, then the lanes) and the rest of the
    row one by one, row after row into the output; everything else is multiplied one
    element after another (the column-vectorised path keeps that order too)."""
    if META.used and stands_on_meta(array):
        return reduced_result(array, axes, keepdim)
    rows, layout, nred = reduced_rows(array, axes)
    width = lanes(array.dtype)
    size0 = layout.shape[0] if layout.shape else 1
    if (layout.out_strides and layout.out_strides[0] == 0
            and layout.in_strides[0] == array.itemsize and size0 >= 4 * width):
        chunks = rows.reshape(rows.shape[:-1] + (-1, size0))
        count = size0 // (4 * width)
        blocks = chunks[..., :count * 4 * width].reshape(chunks.shape[:-1] + (count, 4, width))
        acc = blocks[..., 0, :, :].copy()
        for i in range(1, count):
            acc *= blocks[..., i, :, :]
        vec = (acc[..., 0, :] * acc[..., 1, :]) * (acc[..., 2, :] * acc[..., 3, :])
        block = np.multiply.accumulate(vec, axis=-1)[..., -1:]
        rows = np.concatenate([block, chunks[..., count * 4 * width:]], axis=-1)
        rows = rows.reshape(rows.shape[:-2] + (-1,))
    total = (np.multiply.accumulate(rows, axis=-1)[..., -1] if rows.shape[-1]
             else np.ones(rows.shape[:-1], array.dtype))
    return place(np.asarray(total, array.dtype), array, axes, layout, nred, keepdim)


# -- cumsum (ReduceOpsKernel.cpp cumsum_cpu_kernel) -------------------------------------------


def cumsum(array: np.ndarray, axis: int) -> np.ndarray:
    """Prefix sums accumulated in at::acc_type<float, false> = double, each rounded to the
    tensor's dtype as it is stored (complex64's in complex<double>: a complex sum is the
    sums of its parts; float16's acc_type is float, measured)."""
    if array.dtype == np.float16:
        return np.cumsum(array.astype(np.float32), axis=axis).astype(np.float16)
    if array.dtype == np.float32:
        return np.cumsum(array.astype(np.float64), axis=axis).astype(np.float32)
    if array.dtype == np.complex64:
        return np.cumsum(array.astype(np.complex128), axis=axis).astype(np.complex64)
    return np.cumsum(array, axis=axis)


def trace(array: np.ndarray) -> np.ndarray:
    """trace_cpu: the diagonal of a matrix added in order from 0 in
    at::acc_type<scalar_t, false> (double for float32, float for float16, complex<double>
    for complex64, int64 for the integer types, which it returns), rounded once at the end."""
    acc = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float64,
           np.dtype(np.complex64): np.complex128}.get(array.dtype, None)
    out = array.dtype if acc is not None or array.dtype.kind in "fc" else np.dtype(np.int64)
    diagonal = np.diagonal(array).astype(acc or out)
    total = np.cumsum(diagonal)[-1] if diagonal.size else diagonal.dtype.type(0)
    return np.asarray(total).astype(out)


# -- nll_loss's own cascade (LossNLL.cpp nll_loss_out_frame) -----------------------------------


def _segment_sums(values: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """Left-to-right sums from 0 of the runs of `values` that close where `ends` is true:
    the closed runs' sums, the index of each closing value, and the sum of the open run."""
    closing = np.flatnonzero(ends)
    starts = np.concatenate([[0], closing + 1])
    bounds = np.concatenate([closing + 1, [values.size]])
    lengths = bounds - starts
    width = int(lengths.max()) if lengths.size else 0
    grid = np.zeros((lengths.size, width), values.dtype)
    cols = np.arange(values.size) - np.repeat(starts, lengths)
    grid[np.repeat(np.arange(lengths.size), lengths), cols] = values
    sums = seq_sum(grid) if width else np.zeros(lengths.size, values.dtype)
    return sums[:-1], closing, sums[-1]


def nll_cascade(terms: np.ndarray, index: np.ndarray, batch: int) -> np.ndarray:
    """nll_loss's sum of `terms` (added in order; the caller negates losses): 8 partial sums,
    sample `b`'s term added to the first, then each level passed up to the next while the
    corresponding 4-bit digit of `b` is 0 (level_power = max(4, CeilLog2(batch) / 8)), and
    at the end the 8 partials summed in order. `index` holds each term's sample number
    (ignored samples have no term and pass nothing up)."""
    levels = 8
    power = max(4, _ceil_log2(batch) // levels)
    mask = (1 << power) - 1
    passes = np.zeros(index.size, np.int64)  # levels passed up after each term
    still = np.ones(index.size, bool)
    for j in range(levels - 1):
        still &= (index & (mask << (j * power))) == 0
        passes += still
    residuals = []
    values, passing = terms, passes
    for level in range(levels - 1):
        if values.size and (passing >= levels - 1).all():  # each goes straight to the top
            residuals += [terms.dtype.type(0)] * (levels - 1 - level)
            break
        sums, closing, rest = _segment_sums(values, passing > level)
        residuals.append(rest)
        values, passing = sums, passing[closing]
    residuals.append(seq_sum(values[None, :])[0] if values.size else terms.dtype.type(0))
    return seq_sum(np.asarray(residuals, terms.dtype)[None, :])[0]


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()
