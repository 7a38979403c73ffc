"""Exactly rounded float32 arithmetic that numpy lacks: the fused multiply-add.

torch's vectorised loops compute `a * b + c` with one rounding (`vec::fmadd`, an FMA
instruction with AVX2 and AVX-512) where numpy rounds twice. In float64 the product of two
float32 numbers is exact; the sum is then rounded to float64 and its error recovered
exactly (TwoSum); rounding that float64 "to odd" (keeping a sticky last bit when the sum
was inexact) and then to float32 gives the correctly rounded float32 result, because 53
bits are at least 24 + 2 (Boldo and Melquiond, "When double rounding is odd", 2005).
"""
from __future__ import annotations

import numpy as np

_INF = np.float64(np.inf)


def round_to_odd_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y (float64 arrays) rounded to odd: exact sums as they are; an inexact sum's
    two float64 neighbours, the one with an odd last bit."""
    s = x + y
    yy = s - x
    err = (x - (s - yy)) + (y - yy)
    inexact = (err != 0) & np.isfinite(s)
    if not inexact.any():
        return s
    even = (s.view(np.int64) & 1) == 0
    fix = inexact & even
    if fix.any():
        s = np.where(fix, np.nextafter(s, np.where(err > 0, _INF, -_INF)), s)
    return s


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c for float32 operands (arrays or numbers that broadcast), rounded once."""
    a64 = np.asarray(a, np.float32).astype(np.float64)
    b64 = np.asarray(b, np.float32).astype(np.float64)
    c64 = np.asarray(c, np.float32).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return round_to_odd_sum(a64 * b64, c64).astype(np.float32)
