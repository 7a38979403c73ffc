"""torch.special's orthogonal polynomials as torch's CPU kernels compute them (ATen's
Math.h): Chebyshev T/U/V/W and their shifted forms, Hermite H and He, Laguerre L and
Legendre P, each `f(x, n)` with n taken as an int64 (C's truncating cast; NaN and the
infinities become INT64_MIN, a negative degree).

Scalar code over `libm_scalar.Libm`, Math.h's recurrences step for step; a product that
feeds only an addition is one fused multiply-add (GCC's contraction in torch's AVX2 build).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .libm_scalar import Libm, elementwise

_INT64_MIN = -(2 ** 63)


def degree(n: Any) -> int:
    """static_cast<int64_t>(n) as x86 computes it: out-of-range and NaN give INT64_MIN."""
    value = float(n)
    if not np.isfinite(value) or not -2.0 ** 63 <= value < 2.0 ** 63:
        return _INT64_MIN
    return int(value)


def _three_term(m: Libm, two_x: Any, p: Any, q: Any, n: int) -> Any:
    """r = 2x q - p for k = 2 .. n, stopping once q is NaN."""
    r = q
    k = 2
    while k <= n and not np.isnan(q):
        r = m.fma(two_x, q, -p)
        p, q = q, r
        k += 1
    return r


def _chebyshev_t(m: Libm, x: Any, n: Any, shifted: bool = False) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    if shifted:
        if x == t(1):
            return t(1)
        if x == t(0):
            return t(1) if n % 2 == 0 else t(-1)
        y = x + x - t(1)
    else:
        if abs(x) == t(1):
            return t(1) if x > t(0) or n % 2 == 0 else t(-1)
        y = x
    if n > 6 and abs(y) < t(1):
        return m.cos(t(n) * m.acos(y))
    if n == 0:
        return t(1)
    if n == 1:
        return y
    return _three_term(m, y + y, t(1), y, n)


def _chebyshev_u(m: Libm, x: Any, n: Any, shifted: bool = False) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    if shifted:
        if x == t(1):
            return t(n + 1)
        if x == t(0):
            return t(n + 1) if n % 2 == 0 else t(-(n + 1))
        y = x + x - t(1)
    else:
        if abs(x) == t(1):
            return t(n + 1) if x > t(0) or n % 2 == 0 else t(-(n + 1))
        y = x
    if n > (6 if shifted else 8) and abs(y) < t(1):
        if m.sin(m.acos(y)) != t(0):
            return m.sin(t(n + 1) * m.acos(y)) / m.sin(m.acos(y))
        return t(n + 1) * m.cos(t(n + 1) * m.acos(y)) / y
    if n == 0:
        return t(1)
    if n == 1:
        return y + y
    return _three_term(m, y + y, t(1), y + y, n)


def _chebyshev_v(m: Libm, x: Any, n: Any, shifted: bool = False) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    odd = t(n + n + 1) if n % 2 == 0 else t(-(n + n + 1))
    if shifted:
        if x == t(1):
            return t(1)
        if x == t(0):
            return odd
        y = x + x - t(1)
    else:
        if abs(x) == t(1):
            return t(1) if x > t(0) else odd
        y = x
    if n > (6 if shifted else 8) and abs(y) < t(1):
        if m.sin(m.acos(y) / t(2)) != t(1):
            return m.cos((t(n) + t(0.5)) * m.acos(y)) / m.cos(m.acos(y) / t(2))
        return odd
    if n == 0:
        return t(1)
    if n == 1:
        return y + y - t(1)
    return _three_term(m, y + y, t(1), y + y - t(1), n)


def _chebyshev_w(m: Libm, x: Any, n: Any, shifted: bool = False) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    sign = t(1) if n % 2 == 0 else t(-1)
    if shifted:
        if x == t(1):
            return t(n + n + 1)
        if x == t(0):
            return sign
        y = x + x - t(1)
    else:
        if abs(x) == t(1):
            return t(n + n + 1) if x > t(0) else sign
        y = x
    if n > (4 if shifted else 8) and abs(y) < t(1):
        if m.cos(m.acos(y) / t(2)) != t(1):
            return m.sin((t(n) + t(0.5)) * m.acos(y)) / m.sin(m.acos(y) / t(2))
        if not shifted and x > t(0):
            return t(n + n + 1)
        return sign
    if n == 0:
        return t(1)
    if n == 1:
        return y + y + t(1)
    return _three_term(m, y + y, t(1), y + y + t(1), n)


def _hermite_limit(m: Libm) -> int:
    return 128 if m.dtype == np.float32 else 512


def _hermite_h(m: Libm, x: Any, n: Any) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    if n == 0:
        return t(1)
    if n == 1:
        return x + x
    if n > _hermite_limit(m):
        return t(np.nan)
    p, q, r = t(1), x + x, t(0)
    for k in range(2, n + n, 2):
        r = m.fma(x + x, q, -(t(k) * p))
        p, q = q, r
    return r


def _hermite_he(m: Libm, x: Any, n: Any) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    if n == 0:
        return t(1)
    if n == 1:
        return x
    if n > _hermite_limit(m):
        return t(np.nan)
    p, q, r = t(1), x, x
    for k in range(1, n):
        r = m.fma(x, q, -(t(k) * p))
        p, q = q, r
    return r


def _laguerre_l(m: Libm, x: Any, n: Any) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    if abs(x) == t(0) or n == 0:
        return t(1)
    if n == 1:
        return t(1) - x
    p, q = t(1), t(1) - x
    r = q
    k = 1
    while k < n and not np.isnan(q):
        r = m.fma(t(k + k) + (t(1) - x), q, -(t(k) * p)) / t(k + 1)
        p, q = q, r
        k += 1
    return r


def _legendre_p(m: Libm, x: Any, n: Any) -> Any:
    t = m.t
    n = degree(n)
    if n < 0:
        return t(0)
    if abs(x) == t(1):
        return t(1) if x > t(0) or n % 2 == 0 else t(-1)
    if n == 0:
        return t(1)
    if n == 1:
        return x
    p, q = t(1), x
    r = q
    k = 1
    while k < n and not np.isnan(q):
        r = m.fma(t(k + k + 1) * x, q, -(t(k) * p)) / t(k + 1)
        p, q = q, r
        k += 1
    return r


def _shifted(kernel):
    def run(m: Libm, x: Any, n: Any) -> Any:
        return kernel(m, x, n, shifted=True)
    return run


KERNELS = {
    "chebyshev_polynomial_t": _chebyshev_t, "chebyshev_polynomial_u": _chebyshev_u,
    "chebyshev_polynomial_v": _chebyshev_v, "chebyshev_polynomial_w": _chebyshev_w,
    "shifted_chebyshev_polynomial_t": _shifted(_chebyshev_t),
    "shifted_chebyshev_polynomial_u": _shifted(_chebyshev_u),
    "shifted_chebyshev_polynomial_v": _shifted(_chebyshev_v),
    "shifted_chebyshev_polynomial_w": _shifted(_chebyshev_w),
    "hermite_polynomial_h": _hermite_h, "hermite_polynomial_he": _hermite_he,
    "laguerre_polynomial_l": _laguerre_l, "legendre_polynomial_p": _legendre_p,
}


def polynomial(name: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """torch.special.<name>(x, n) on broadcast arrays of one float dtype."""
    return elementwise(KERNELS[name], x, n)
