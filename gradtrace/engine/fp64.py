"""Exact float64 fused multiply-add in numpy: glibc's float functions run in double and,
in their FMA builds (the ifunc chosen on any AVX2 CPU), contract `a * b + c` into one
rounding. Used for the few scalar elements of a kernel (vector tails) and the `default`
capability, so it favours exactness over speed.
"""
from __future__ import annotations

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for 53-bit significands


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _add_round_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s, e = two_sum(a, b)
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0)
    return np.where(fix, np.nextafter(s, s + e), s)


def fma(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """float64 fma(a, b, c), correctly rounded (Boldo and Melquiond's sum of three
    numbers through round-to-odd, over an exact product); finite, non-overflowing
    operands, as in the kernels that use it. Non-finite results fall back to a*b + c."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        p, pe = two_prod(a, b)
        uh, ul = two_sum(pe, c)
        th, tl = two_sum(p, uh)
        out = th + _add_round_odd(tl, ul)
        plain = a * b + c
    return np.where(np.isfinite(out), out, plain)
