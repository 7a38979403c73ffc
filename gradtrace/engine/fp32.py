"""Exact float32 fused multiply-add in numpy, for kernels that must round as a CPU does.

torch's vectorised kernels (SLEEF, its own polynomials) chain float32 fused
multiply-adds: `a * b + c` rounded once. numpy has none, so `fma` emulates it: the
product of two float32 values is exact in float64, and the float64 sum `p + c` rounds to
the right float32 unless it landed exactly on a float32 rounding boundary (a midpoint,
or anywhere in the float32 subnormal range) while the exact sum did not. Those rare
elements are found with a bit test and rounded through round-to-odd, using the exact
error of the float64 sum (an error-free transformation).

Plain float32 `+ - * /` and sqrt need no help: numpy's float32 loops are IEEE operations.
All functions take and return float32 arrays (scalars are accepted for b and c).
"""
from __future__ import annotations

import numpy as np

_LOW29 = np.int64((1 << 29) - 1)
_MID29 = np.int64(1 << 28)
_EXP_MASK = np.int64(0x7FF0000000000000)
_F32_SUBNORMAL = np.int64((1023 - 126) << 52)  # float64 exponent field of 2**-126


def _round_odd_to_f32(p: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """float32 rounding of the exact p + c, given s = fl64(p + c): round s to odd in
    float64 (exact-side neighbour when inexact), then to float32."""
    with np.errstate(invalid="ignore"):
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        inexact_even = np.isfinite(err) & (err != 0) & ((s.view(np.int64) & 1) == 0)
        odd = np.where(inexact_even, np.nextafter(s, s + err), s)
    return odd.astype(np.float32)


def fma(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """float32 fma(a, b, c), correctly rounded."""
    s = np.multiply(a, b, dtype=np.float64)
    s += c
    out = s.astype(np.float32)
    bits = s.view(np.int64)
    suspect = (bits & _LOW29) == _MID29
    suspect |= (bits & _EXP_MASK) < _F32_SUBNORMAL
    if suspect.any():
        idx = np.nonzero(suspect)
        p = np.multiply(np.broadcast_to(a, s.shape)[idx], np.broadcast_to(b, s.shape)[idx],
                        dtype=np.float64)
        cc = np.broadcast_to(np.asarray(c, np.float64), s.shape)[idx]
        out[idx] = _round_odd_to_f32(p, cc, s[idx])
    return out
