"""Exact float64 fused multiply-add in numpy: glibc's float functions run in double and,
in their FMA builds (the ifunc chosen on any AVX2 CPU), contract `a * b + c` into one
rounding. Used for the few scalar elements of a kernel (vector tails) and the `default`
capability, so it favours exactness over speed.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for 53-bit significands


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _dekker(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b and its exact rounding error (Dekker: a double unless the product is tiny)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b and fma(a, b, -a * b), as SLEEF's double-double products take the error: exact
    unless the product is so tiny that the error is below the subnormals, where the fma
    rounds it; Dekker's error serves where it is exact (no subnormal or huge operand)."""
    p, err = _dekker(a, b)
    with np.errstate(invalid="ignore"):
        edge = _inexact(a, b, p)
        if edge is not None:
            err = np.where(edge & np.isfinite(p), fma(a, b, -p), err)
    return p, err


def _inexact(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    """Where Dekker's product error is not exact: a product so tiny that its error is below
    the doubles, a subnormal operand (Veltkamp's split of it is not exact), an operand too
    large to split (it overflows). None where no element is, found by reductions first
    (one pass each, NaN-blind) on the common path."""
    if not (np.fmin.reduce(np.abs(p), axis=None, initial=np.inf) < _TINY
            or np.fmin.reduce(np.abs(a), axis=None, initial=np.inf) < _DBL_MIN
            or np.fmin.reduce(np.abs(b), axis=None, initial=np.inf) < _DBL_MIN
            or np.fmax.reduce(np.abs(a), axis=None, initial=0) > _HUGE
            or np.fmax.reduce(np.abs(b), axis=None, initial=0) > _HUGE):
        return None
    return (((np.abs(p) < _TINY) & (a != 0) & (b != 0))
            | ((np.abs(a) < _DBL_MIN) & (a != 0)) | ((np.abs(b) < _DBL_MIN) & (b != 0))
            | (np.abs(a) > _HUGE) | (np.abs(b) > _HUGE))


def _add_round_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s, e = two_sum(a, b)
    s = np.asarray(s)  # 0-d operands give a numpy scalar, which cannot be assigned into
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0)
    if fix.any():
        # towards the exact sum (s + e would round back to s: |e| <= half an ulp of s)
        s[fix] = np.nextafter(s[fix], np.copysign(np.inf, np.asarray(e)[fix]))
    return s


_TINY = 2.0 ** -969  # below it a product's rounding error is no longer a double
_DBL_MIN = 2.0 ** -1022
_HUGE = 2.0 ** 995  # above it Veltkamp's split overflows


def fma(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """float64 fma(a, b, c), correctly rounded (Boldo and Melquiond's sum of three
    numbers through round-to-odd, over an exact product). Non-finite results are
    a*b + c; the rare finite elements Dekker's product error cannot serve (`_inexact`) are
    evaluated exactly in rationals."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        p, pe = _dekker(a, b)
        uh, ul = two_sum(pe, c)
        th, tl = two_sum(p, uh)
        out = np.asarray(th + _add_round_odd(np.asarray(tl), np.asarray(ul)))
        # a non-finite result, or a zero (whose sign the error terms' sums lose: an exact
        # zero is a*b + c's, as a*b is then exact or both are zeros): a*b + c
        if not (np.isfinite(out) & (out != 0)).all():
            out = np.where(np.isfinite(out) & (out != 0), out, a * b + c)
        edge = _inexact(a, b, p)  # (the rare elements Dekker's error cannot serve)
        if edge is not None:
            edge = edge & np.isfinite(a * b + c)
            idx = np.flatnonzero(edge)  # (flat: np.nonzero refuses 0-d operands)
            if idx.size:
                out = np.array(np.broadcast_to(out, edge.shape))
                flat = out.reshape(-1)  # (a view of the new array)
                for i, x, y, z in zip(idx, *(np.broadcast_to(v, edge.shape).reshape(-1)[idx]
                                             for v in (a, b, c))):
                    flat[i] = _exact_fma(float(x), float(y), float(z))
    return out


def _exact_fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once (Fraction's float() rounds correctly, subnormals too)."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # the sign IEEE gives an exact zero sum
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(math.inf, exact)
