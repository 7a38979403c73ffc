"""Where each output element of F.interpolate reads from: ATen's UpSample.h index math
(compute_scales_value, area_pixel_compute_scale, area_pixel_compute_source_index,
guard_index_and_lambda, nearest_idx, nearest_exact_idx) and the per-dimension helpers of
cpu/UpSampleKernel.cpp (HelperInterpNearest, HelperInterpNearestExact, HelperInterpLinear).

The math runs in the op math type (float for float32 tensors, double for float64), except
where ATen fixes it: nearest_idx/nearest_exact_idx always use a float scale, and every
`floorf` rounds a double source index to float before flooring. Built for AVX2, the
compiler fuses `scale * (dst + 0.5) - 0.5` into one fma (measured against torch 2.13).
Also here: which of ATen's kernels a layout selects (its channels-last tests)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import fp32, fp64


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """a·b + c rounded once, in the dtype of the operands (float32 or float64)."""
    if all(np.ndim(v) == 0 for v in (a, b, c)):
        return fma(np.atleast_1d(a), b, c)[0]
    if np.result_type(a, b, c) == np.float64:
        return fp64.fma(a, b, c)
    return fp32.fma(np.asarray(a, np.float32), b, c)


def op_type(dtype: np.dtype) -> type:
    """at::opmath_type of a float32 or float64 tensor."""
    return np.float64 if np.dtype(dtype) == np.float64 else np.float32


def scales_value(scale: float | None, in_size: int, out_size: int, t: type) -> Any:
    """compute_scales_value: 1/scale when a positive scale was given, else in/out."""
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(in_size) / t(out_size)


def area_scale(in_size: int, out_size: int, align_corners: bool, scale: float | None,
               t: type) -> Any:
    """area_pixel_compute_scale."""
    if align_corners:
        return t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    return scales_value(scale, in_size, out_size, t)


def source_index(scale: Any, out_size: int, align_corners: bool, cubic: bool,
                 t: type) -> np.ndarray:
    """area_pixel_compute_source_index for every output position (the non-aligned formula
    one fma, as the AVX2 build computes it)."""
    dst = np.arange(out_size).astype(t)
    if align_corners:
        return (t(scale) * dst).astype(t)
    real = fma(np.full(out_size, scale, t), dst + t(0.5), np.full(out_size, -0.5, t))
    real = np.asarray(real, t)
    return real if cubic else np.where(real < 0, t(0), real).astype(t)


def floorf(real: np.ndarray) -> np.ndarray:
    """static_cast<int64_t>(floorf(x)): a double is rounded to float first."""
    return np.floor(real.astype(np.float32)).astype(np.int64)


def linear_taps(in_size: int, out_size: int, align_corners: bool, scale: float | None,
                dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """compute_source_index_and_lambda per output position: (index0, index1, lambda0,
    lambda1), the weights in the tensor's dtype."""
    t = op_type(dtype)
    if in_size == out_size:
        dst = np.arange(out_size)
        return dst, dst, np.ones(out_size, t), np.zeros(out_size, t)
    ratio = area_scale(in_size, out_size, align_corners, scale, t)
    real = source_index(ratio, out_size, align_corners, False, t)
    i0 = np.minimum(floorf(real), in_size - 1)
    lambda1 = np.minimum(np.maximum(real - i0.astype(t), t(0)), t(1)).astype(t)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, (t(1) - lambda1).astype(t), lambda1


def nearest_idx(out_size: int, in_size: int, scale: float | None, exact: bool) -> np.ndarray:
    """nearest_idx / nearest_exact_idx (a float scale; the legacy mode's shortcuts for equal
    and doubled sizes): the channels-last forward kernel and every backward use them."""
    dst = np.arange(out_size)
    if not exact and out_size == in_size:
        return dst
    if not exact and out_size == 2 * in_size:
        return dst >> 1
    s = scales_value(scale, in_size, out_size, np.float32)
    offset = np.float32(0.5) if exact else np.float32(0)
    return np.minimum(np.floor((dst.astype(np.float32) + offset) * s).astype(np.int64),
                      in_size - 1)


def nearest_generic_idx(out_size: int, in_size: int, scale: float | None, exact: bool,
                        dtype: np.dtype) -> np.ndarray:
    """HelperInterpNearest(Exact)::compute_indices_weights, the generic forward kernel's:
    the scale and source index in the op math type, no shortcuts."""
    t = op_type(dtype)
    ratio = scales_value(scale, in_size, out_size, t)
    if exact:
        real = source_index(ratio, out_size, False, False, t)
        index = floorf((real + t(0.5)).astype(t))
    else:
        index = floorf(source_index(ratio, out_size, True, False, t))
    return np.minimum(index, in_size - 1)
