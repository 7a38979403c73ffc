"""The float32 log/sin/cos that torch's Box-Muller kernels call, bit for bit, in numpy.

- `avx_mathfun_log`/`avx_mathfun_sincos`: ATen's avx_mathfun.h (Cephes polynomials on 8
  float lanes) as normal_fill_AVX2 runs them. ATen's AVX2 kernels are compiled with FMA
  and GCC fuses each multiply whose only use is an add into one `vfmadd`, so the port
  fuses exactly those.
- `glibc_logf`/`glibc_sinf`/`glibc_cosf`: glibc's (ARM optimized-routines) float
  functions, which the scalar normal_fill calls through libm. glibc picks an FMA build of
  them on CPUs with FMA and AVX2 (its ifunc), and then the same fusions apply.

FMA is emulated exactly: float32 in float64 with round-to-odd, float64 with
error-free transformations and round-to-odd (Boldo and Melquiond's algorithm).
"""
from __future__ import annotations

import numpy as np

from . import fp64
from .capability import _cpu_flags
from .fp32 import fma

F32 = np.float32
_U32 = np.uint32
HAS_FMA = {"fma", "avx2"} <= _cpu_flags()


# ------------------------------------------------------------------ avx_mathfun.h

_LOG_P = [F32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                           -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                           2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = F32(-2.12194440e-4), F32(0.693359375)
_SQRTHF = F32(0.707106781186547524)
_MIN_NORM = np.array(0x00800000, np.int32).view(F32)
_DP = [F32(-0.78515625), F32(-2.4187564849853515625e-4), F32(-3.77489497744594108e-8)]
_SIN = [F32(-1.9515295891E-4), F32(8.3321608736E-3), F32(-1.6666654611E-1)]
_COS = [F32(2.443315711809948E-005), F32(-1.388731625493765E-003),
        F32(4.166664568298827E-002)]
_FOPI = F32(1.27323954473516)


def avx_mathfun_log(x: np.ndarray) -> np.ndarray:
    """log256_ps (NaN for x <= 0)."""
    x = np.asarray(x, F32)
    invalid = x <= 0
    x = np.maximum(x, _MIN_NORM)
    e = ((x.view(_U32) >> _U32(23)).astype(np.int32) - 0x7F).astype(F32) + F32(1)
    x = ((x.view(np.int32) & ~0x7F800000) | 0x3F000000).view(F32)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, F32(0))
    x = x - F32(1)
    e = e - np.where(mask, F32(1), F32(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for coefficient in _LOG_P[1:]:
        y = fma(y, x, coefficient)
    y = y * x
    y = fma(y, z, e * _LOG_Q1)
    y = y - z * F32(0.5)  # a fused z*0.5 is the same: halving is exact
    x = fma(e, _LOG_Q2, x + y)
    return np.where(invalid, F32(np.nan), x)


def avx_mathfun_sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps: (sin(x), cos(x))."""
    x = np.asarray(x, F32)
    sign_sin = x.view(_U32) & _U32(0x80000000)
    x = np.abs(x)
    j = ((x * _FOPI).astype(np.int32) + 1) & ~1  # cvttps: truncation
    y = j.astype(F32)
    sign_sin = sign_sin ^ ((j & 4) << 29).astype(_U32)
    sign_cos = ((~(j - 2) & 4) << 29).astype(_U32)
    poly = (j & 2) == 0
    for dp in _DP:
        x = fma(y, dp, x)
    z = x * x
    yc = fma(fma(np.full_like(z, _COS[0]), z, _COS[1]), z, _COS[2]) * z
    yc = fma(yc, z, -(z * F32(0.5))) + F32(1)
    ys = fma(fma(np.full_like(z, _SIN[0]), z, _SIN[1]), z, _SIN[2]) * z
    ys = fma(ys, x, x)
    sin_part = np.where(poly, ys, F32(0)) + np.where(poly, F32(0), yc)
    cos_part = np.where(poly, yc, F32(0)) + np.where(poly, F32(0), ys)
    # the kernel forms y - (masked y) + (masked other); adding 0 where masked is exact
    return ((sin_part.view(_U32) ^ sign_sin).view(F32),
            (cos_part.view(_U32) ^ sign_cos).view(F32))


# ------------------------------------------------------------------ glibc logf/sinf/cosf

_LOGF_INVC = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
    "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
    "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
    "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array([float.fromhex(h) for h in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
    "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
    "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
    "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
    "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LOGF_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_A = [float.fromhex(h) for h in
           ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]


def _mad(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float,
         fused: bool) -> np.ndarray:
    return fp64.fma(a, b, c) if fused else a * b + c


def glibc_logf(x: np.ndarray, fused: bool = HAS_FMA) -> np.ndarray:
    """logf for normal positive floats (Box-Muller's 1-u lies in [2**-24, 1])."""
    x = np.asarray(x, F32)
    ix = x.view(_U32).astype(np.int64)
    tmp = ix - 0x3F330000
    i = (tmp >> 19) % 16
    k = tmp >> 23  # arithmetic shift of the signed difference
    iz = (ix - (tmp & (0x1FF << 23))).astype(_U32)
    z = iz.view(F32).astype(np.float64)
    invc, logc = _LOGF_INVC[i], _LOGF_LOGC[i]
    r = _mad(z, invc, -1.0, fused)
    y0 = _mad(k.astype(np.float64), _LOGF_LN2, logc, fused)
    r2 = r * r
    y = _mad(_LOGF_A[1], r, _LOGF_A[2], fused)
    y = _mad(_LOGF_A[0], r2, y, fused)
    y = _mad(y, r2, y0 + r, fused)
    return np.where(x == 1, F32(0), y.astype(F32))


_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")
_HPI = float.fromhex("0x1.921FB54442D18p0")
_SC_C = [float.fromhex(h) for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                     "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")]
_SC_S = [float.fromhex(h) for h in
         ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")]
_SIGN = np.array([1.0, -1.0, -1.0, 1.0])


def _abstop12(x: np.ndarray) -> np.ndarray:
    return (x.view(_U32) >> _U32(20)) & _U32(0x7FF)


_TOP_PIO4 = _abstop12(np.array([float.fromhex("0x1.921FB6p-1")], F32))[0]
_TOP_TINY = _abstop12(np.array([2.0 ** -12], F32))[0]
_TOP_120 = _abstop12(np.array([120.0], F32))[0]


def _sincosf(y: np.ndarray, want_cos: bool, fused: bool) -> np.ndarray:
    """glibc sinf/cosf for |y| < 120 (Box-Muller's angles lie in [0, 2*pi))."""
    y = np.asarray(y, F32)
    top = _abstop12(y)
    if (top >= _TOP_120).any():
        raise ValueError("glibc sinf/cosf port covers |x| < 120 only")
    x = y.astype(np.float64)
    small = top < _TOP_PIO4
    r = x * _HPI_INV
    n = np.where(small, 0, (r.astype(np.int32) + 0x800000) >> 24)
    xr = np.where(small, x, _mad(-n.astype(np.float64), _HPI, x, fused))
    sign = np.where(small, 1.0, _SIGN[n & 3])
    negate = (n & 2) != 0  # the 2nd table entry holds the negated cosine polynomial
    quadrant = n ^ 1 if want_cos else n
    xs = xr * sign
    x2 = xr * xr
    x3 = xs * x2
    s1 = _mad(x2, _SC_S[2], _SC_S[1], fused)
    sin_poly = _mad(x3 * x2, s1, _mad(x3, _SC_S[0], xs, fused), fused)
    c = [-v for v in _SC_C]
    x4 = x2 * x2
    cos_pos = _mad(x4 * x2, _mad(x2, _SC_C[4], _SC_C[3], fused),
                   _mad(x4, _SC_C[2], _mad(x2, _SC_C[1], _SC_C[0], fused), fused), fused)
    cos_neg = _mad(x4 * x2, _mad(x2, c[4], c[3], fused),
                   _mad(x4, c[2], _mad(x2, c[1], c[0], fused), fused), fused)
    result = np.where((quadrant & 1) == 0, sin_poly, np.where(negate, cos_neg, cos_pos))
    out = result.astype(F32)
    tiny = top < _TOP_TINY
    if tiny.any():
        out = np.where(tiny, F32(1) if want_cos else y, out)
    return out


def glibc_sinf(y: np.ndarray, fused: bool = HAS_FMA) -> np.ndarray:
    return _sincosf(y, False, fused)


def glibc_cosf(y: np.ndarray, fused: bool = HAS_FMA) -> np.ndarray:
    return _sincosf(y, True, fused)
