"""Exactly rounded fused multiply-adds, which numpy lacks (float32 and float64).

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


_MIDPOINT_MASK = np.int64((1 << 29) - 1)
_MIDPOINT = np.int64(1 << 28)


def float32_of_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y (float64 arrays whose exact sum float32 should round) rounded once to float32.
    The float64 sum rounds to the same float32 unless it fell exactly on a float32
    midpoint (low 29 bits 1000...0) without being exact: only those go through
    `round_to_odd_sum`."""
    total = x + y
    out = total.astype(np.float32)
    tie = (np.asarray(total).view(np.int64) & _MIDPOINT_MASK) == _MIDPOINT
    if tie.any():
        out = np.asarray(out)
        out[tie] = round_to_odd_sum(x[tie], y[tie]).astype(np.float32)
    return out


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c for float32 operands (arrays or numbers that broadcast), rounded once."""
    a64, b64, c64 = np.broadcast_arrays(np.asarray(a, np.float32).astype(np.float64),
                                        np.asarray(b, np.float32).astype(np.float64),
                                        np.asarray(c, np.float32).astype(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        return float32_of_sum(a64 * b64, c64)


_SPLIT = np.float64(134217729.0)  # 2**27 + 1: Veltkamp's splitter for float64


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b = p + e exactly (Dekker), for float64 arrays away from overflow."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c for float64 arrays, rounded once: the exact product as two doubles, its
    high part added to c exactly (TwoSum), the two low parts added rounding to odd, and the
    whole rounded to nearest (Boldo and Melquiond's emulated FMA)."""
    with np.errstate(over="ignore", invalid="ignore"):
        uh, ul = _two_product(a, b)
        th = c + uh
        cc = th - uh
        tl = (c - cc) + (uh - (th - cc))
        out = th + round_to_odd_sum(tl, ul)
        exact = np.isfinite(out) & np.isfinite(uh)
        return np.where(exact, out, a * b + c)
