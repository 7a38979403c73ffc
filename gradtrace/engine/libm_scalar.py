"""C's math library one element at a time, in the element's own type, for torch's scalar
CPU kernels (ATen's Math.h: the Bessel functions, the orthogonal polynomials, igamma).

Those kernels branch and loop per element, so they are ported as scalar code over `Libm`:
`t` makes a value of the kernel's type T (numpy float32, or float64), arithmetic on
those values rounds as C's does, and the functions are glibc's where gradtrace has them
(float32: its ports of expf, logf, sinf, cosf, log1pf, powf, acosf, erfcf, lgammaf;
float64: CPython's math module, which calls the C library, and glibc_lgamma's lgamma) or a
float64 evaluation rounded once (noted as inexact).
`fma` is a * b + c rounded once: torch's AVX2 kernel files are built with -mfma, and GCC
contracts a product whose only use is an addition into one.
"""
from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from . import exactness, fp64, glibc, glibc_lgamma

F32 = np.float32
F64 = np.float64


def _vector(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[Any], Any]:
    def one(v: Any) -> Any:
        return F32(fn(np.asarray([v], F32))[0])
    return one


def _rounded(name: str) -> Callable[[Any], Any]:
    """A float32 function glibc computes on its own, as float64 rounded once (noted)."""
    fn = getattr(math, name)

    def one(v: Any) -> Any:
        exactness.note(f"{name}f: glibc's float function is not ported (a float64 {name} "
                       "rounded once)")
        return F32(_safe(fn, name)(float(v)))
    return one


def _safe(fn: Callable[[float], float], name: str) -> Callable[[Any], Any]:
    """CPython's math function with C's answers where CPython raises (poles, overflow,
    arguments outside the domain)."""
    fallback = getattr(np, {"lgamma": "log", "erfc": "exp"}.get(name, name))

    def one(v: Any) -> Any:
        try:
            return F64(fn(float(v)))
        except (ValueError, OverflowError):
            if name == "lgamma":
                return F64(math.inf)
            with np.errstate(all="ignore"):
                return F64(fallback(F64(v)))
    return one


def _lgamma(positive: Callable[[Any], Any], other: Callable[[Any], Any],
            t: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """glibc's lgamma for x > 0 (and NaN); below, a stand-in noted as inexact."""
    def one(v: Any) -> Any:
        if not v <= 0:
            return t(positive(t(v) if t is F32 else float(v)))
        exactness.note("lgamma of a negative argument: glibc's is not ported")
        return t(other(v))
    return one


def _inv_pio4() -> tuple[int, ...]:
    """glibc's __inv_pio4: 32-bit windows of 2/pi's bits, 8 bits apart (the first three
    start before the point), from pi by Machin's formula in integers."""
    bits = 320
    one = 1 << bits

    def arctan_inv(k: int) -> int:
        total, term, n, sign = 0, one // k, 1, 1
        while term:
            total += sign * (term // n)
            term //= k * k
            n += 2
            sign = -sign
        return total

    pi = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    two_over_pi = (2 << (2 * bits)) // pi
    return tuple((two_over_pi >> (bits - 8 * k - 8)) & 0xFFFFFFFF for k in range(24))


_INV_PIO4 = _inv_pio4()
_PI63 = float.fromhex("0x1.921FB54442D18p-62")


def _sincosf_large(v: Any, want_cos: bool) -> Any:
    """glibc's sinf/cosf for 120 <= |x| < inf: reduce_large (x times 2/pi's bits in
    integers), then the same polynomials as below 120."""
    xi = int(np.asarray(F32(v)).view(np.uint32))
    sign = xi >> 31
    arr = (xi >> 26) & 15
    shift = (xi >> 23) & 7
    m = ((xi & 0xFFFFFF) | 0x800000) << shift
    res0 = (m * _INV_PIO4[arr]) & 0xFFFFFFFF
    res1 = m * _INV_PIO4[arr + 4]
    res2 = m * _INV_PIO4[arr + 8]
    res0 = ((res2 >> 32) | (res0 << 32)) & 0xFFFFFFFFFFFFFFFF
    res0 = (res0 + res1) & 0xFFFFFFFFFFFFFFFF
    n = ((res0 + (1 << 61)) & 0xFFFFFFFFFFFFFFFF) >> 62
    res0 = (res0 - (n << 62)) & 0xFFFFFFFFFFFFFFFF
    signed = res0 - (1 << 64) if res0 >> 63 else res0
    x = float(signed) * _PI63
    s = float(glibc._SIGN[(n + sign) & 3])
    negate = ((n + sign) & 2) != 0
    return F32(_sinf_poly(x * s, x * x, negate, n ^ 1 if want_cos else n))


def _sinf_poly(x: float, x2: float, negate: bool, n: int) -> float:
    """glibc's sinf_poly in double, fused as its FMA build is (glibc.HAS_FMA)."""
    mad = _mad
    if n & 1 == 0:
        s1, s2, s3 = glibc._SC_S
        x3 = x * x2
        return mad(x3 * x2, mad(x2, s3, s2), mad(x3, s1, x))
    c0, c1, c2, c3, c4 = (-c for c in glibc._SC_C) if negate else glibc._SC_C
    x4 = x2 * x2
    return mad(x4 * x2, mad(x2, c4, c3), mad(x4, c2, mad(x2, c1, c0)))


_PIO4_TOP = float.fromhex("0x1.921FB6p-1")


def _sincosf(v: Any, want_cos: bool) -> Any:
    """glibc's sinf/cosf one element at a time (its vector port costs ~0.2 ms an element):
    the polynomial near 0, reduce_fast below 120, reduce_large beyond."""
    a = abs(float(v))
    if not math.isfinite(a):
        return F32(math.nan)
    if a >= 120:
        return _sincosf_large(v, want_cos)
    x = float(v)
    if a < _PIO4_TOP:
        if a < 2.0 ** -12:
            return F32(1) if want_cos else F32(v)
        return F32(_sinf_poly(x, x * x, False, 1 if want_cos else 0))
    n = (int(x * glibc._HPI_INV) + 0x800000) >> 24
    xr = _mad(-float(n), glibc._HPI, x)
    s = float(glibc._SIGN[n & 3])
    return F32(_sinf_poly(xr * s, xr * xr, (n & 2) != 0, n ^ 1 if want_cos else n))


def _mad(a: float, b: float, c: float) -> float:
    """glibc's FMA build of sinf/cosf fuses its double products."""
    return float(_fma64(a, b, c)) if glibc.HAS_FMA else a * b + c


def _sinf(v: Any) -> Any:
    return _sincosf(v, False)


def _cosf(v: Any) -> Any:
    return _sincosf(v, True)


_ACOSF_P = tuple(F32(c) for c in (1.6666667163e-01, -3.2556581497e-01, 2.0121252537e-01,
                                  -4.0055535734e-02, 7.9153501429e-04, 3.4793309169e-05))
_ACOSF_Q = tuple(F32(c) for c in (-2.4033949375e+00, 2.0209457874e+00, -6.8828397989e-01,
                                  7.7038154006e-02))
_ACOSF_PI, _PIO2_HI, _PIO2_LO = F32(3.1415925026e+00), F32(1.5707962513e+00), F32(7.5497894159e-08)


def _acosf_ratio(z: Any) -> Any:
    p0, p1, p2, p3, p4, p5 = _ACOSF_P
    q1, q2, q3, q4 = _ACOSF_Q
    p = z * (p0 + z * (p1 + z * (p2 + z * (p3 + z * (p4 + z * p5)))))
    q = F32(1) + z * (q1 + z * (q2 + z * (q3 + z * q4)))
    return p / q


def _acosf(x: Any) -> Any:
    """glibc 2.36's __ieee754_acosf (sysdeps/ieee754/flt-32/e_acosf.c, fdlibm's), float
    operations without contraction as glibc is built."""
    x = F32(x)
    hx = int(np.asarray(x).view(np.int32))
    ix = hx & 0x7FFFFFFF
    if ix == 0x3F800000:
        return F32(0) if hx > 0 else _ACOSF_PI + F32(2) * _PIO2_LO
    if ix > 0x3F800000:
        return F32(np.nan)
    if ix < 0x3F000000:  # |x| < 0.5
        if ix <= 0x32800000:
            return _PIO2_HI + _PIO2_LO
        r = _acosf_ratio(x * x)
        return _PIO2_HI - (x - (_PIO2_LO - x * r))
    if hx < 0:
        z = (F32(1) + x) * F32(0.5)
        s = np.sqrt(z)
        w = _acosf_ratio(z) * s - _PIO2_LO
        return _ACOSF_PI - F32(2) * (s + w)
    z = (F32(1) - x) * F32(0.5)
    s = np.sqrt(z)
    df = np.asarray(np.asarray(s).view(np.int32) & np.int32(-4096)).view(F32)[()]
    c = (z - df * df) / (s + df)
    return F32(2) * (df + (_acosf_ratio(z) * s + c))


def _erfcf(x: Any) -> Any:
    """glibc 2.36's __erfcf (fdlibm's s_erff.c, erf's tables; its split of |x| keeps the
    top 19 bits, mask 0xffffe000), with glibc's expf."""
    g, one, half, two, tiny = glibc, F32(1), F32(0.5), F32(2), F32(1e-30)
    x = F32(x)
    hx = int(np.asarray(x).view(np.int32))
    ix = hx & 0x7FFFFFFF
    if ix >= 0x7F800000:  # erfc(nan) = nan, erfc(+-inf) = 0, 2
        return F32(2 if hx < 0 else 0) + one / x
    if ix < 0x3F580000:  # |x| < 0.84375
        if ix < 0x32800000:
            return one - x
        z = x * x
        y = g._horner(z, g._PP) / (one + z * g._horner(z, g._QQ))
        if hx < 0x3E800000:  # x < 1/4
            return one - (x + x * y)
        return half - (x * y + (x - half))
    if ix < 0x3FA00000:  # |x| < 1.25
        s = abs(x) - one
        ratio = g._horner(s, g._PA) / (one + s * g._horner(s, g._QA))
        return (one - g._ERX) - ratio if hx >= 0 else one + (g._ERX + ratio)
    if ix >= 0x41E00000:  # |x| >= 28
        return tiny * tiny if hx > 0 else two - tiny
    ax = abs(x)
    s = one / (ax * ax)
    if ix < 0x4036DB6D:  # |x| < 1/0.35
        r_, s_ = g._horner(s, g._RA), one + s * g._horner(s, g._SA)
    else:
        if hx < 0 and ix >= 0x40C00000:
            return two - tiny
        r_, s_ = g._horner(s, g._RB), one + s * g._horner(s, g._SB)
    z = np.asarray(np.asarray(ax).view(np.int32) & np.int32(-8192)).view(F32)[()]
    expf = _vector(glibc.expf)
    r = expf(-z * z - F32(0.5625)) * expf((z - ax) * (z + ax) + r_ / s_)
    return r / ax if hx > 0 else two - r / ax


def _unfused(a: Any, b: Any, c: Any) -> Any:
    return a * b + c


def _fma32(a: Any, b: Any, c: Any) -> Any:
    return F32(float(a) * float(b) + float(c))  # the float product is exact in double


_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter


def _two_sum(a: float, b: float) -> tuple[float, float]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: float, b: float) -> tuple[float, float]:
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma64(a: Any, b: Any, c: Any) -> Any:
    """a * b + c rounded once: Boldo and Melquiond's emulation (the product's and the sum's
    errors added in round-to-odd) where no step can overflow or underflow, else exact
    rationals (fp64._exact_fma)."""
    a, b, c = float(a), float(b), float(c)
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        with np.errstate(all="ignore"):
            return F64(a) * F64(b) + F64(c)
    p = a * b
    if (abs(p) < 1e280 and abs(c) < 1e280 and (p == 0 or abs(p) > 1e-250)
            and (c == 0 or abs(c) > 1e-250) and abs(a) < 1e280 and abs(b) < 1e280):
        p, pe = _two_prod(a, b)
        s, se = _two_sum(p, c)
        u, ue = _two_sum(pe, se)
        if ue != 0 and not struct.unpack("<Q", struct.pack("<d", u))[0] & 1:
            u = math.nextafter(u, math.inf if ue > 0 else -math.inf)
        r = s + u
        return F64(r if r else p + c)  # an exact zero: p = -c, and IEEE's sign of p + c
    try:
        return F64(fp64._exact_fma(a, b, c))
    except OverflowError:  # past the largest double: the infinity of the exact sum's sign
        with np.errstate(all="ignore"):
            return F64(math.copysign(math.inf, a * b + c if a * b + c else a * b))


class Libm:
    """The scalar type and math functions of one dtype (see the module note)."""

    def __init__(self, dtype: np.dtype, fused: bool = True) -> None:
        self.dtype = np.dtype(dtype)
        single = self.dtype == F32
        self.t: Callable[[Any], Any] = F32 if single else F64
        self.eps = self.t(np.finfo(self.dtype).eps)
        self.fma = (_fma32 if single else _fma64) if fused else _unfused
        names = ("exp", "log", "sin", "cos", "sqrt", "acos", "log1p", "erfc", "lgamma", "expm1")
        for name in names:
            setattr(self, name, _safe(getattr(math, name), name))
        if single:
            self.exp = _vector(glibc.expf)
            self.log = _vector(glibc.logf)
            self.log1p = _vector(glibc.log1pf)
            self.expm1 = _vector(glibc.expm1f)
            self.sin, self.cos = _sinf, _cosf
            self.sqrt = lambda v: F32(np.sqrt(F32(v)))
            self.acos = _acosf
            self.erfc = _erfcf
            self.lgamma = _lgamma(glibc_lgamma.lgammaf_positive, _rounded("lgamma"), F32)
        else:
            self.lgamma = _lgamma(glibc_lgamma.lgamma_positive, _safe(math.lgamma, "lgamma"),
                                  F64)

    def pow(self, a: Any, b: Any) -> Any:
        if self.dtype == F32:  # numpy's float32 power calls glibc's powf (gradtrace
            return F32(glibc.powf(np.asarray([a], F32), F32(b))[0])  # turns off AVX-512)
        return self._pow64(a, b)

    @staticmethod
    def _pow64(a: Any, b: Any) -> Any:
        try:
            return F64(math.pow(float(a), float(b)))
        except (ValueError, OverflowError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                return F64(np.power(F64(a), F64(b)))


LIBM = {np.dtype(F32): Libm(F32), np.dtype(F64): Libm(F64)}
_UNFUSED = {np.dtype(F32): Libm(F32, False), np.dtype(F64): Libm(F64, False)}


def elementwise(kernel: Callable[..., Any], *arrays: np.ndarray,
                fused: bool = True) -> np.ndarray:
    """`kernel(m, *values)` over broadcast arrays of one float dtype, element by element;
    `fused=False` for a kernel GCC did not contract."""
    arrays = np.broadcast_arrays(*arrays)
    dtype = arrays[0].dtype
    m = (LIBM if fused else _UNFUSED)[np.dtype(dtype)]
    out = np.empty(arrays[0].shape, dtype)
    flat = out.reshape(-1)
    with np.errstate(all="ignore"):
        for i, values in enumerate(zip(*(a.reshape(-1) for a in arrays))):
            flat[i] = kernel(m, *(m.t(v) for v in values))
    return out
