"""The float32 log/sin/cos that torch's Box-Muller kernels call, bit for bit, in numpy.

- `avx_mathfun_log`/`avx_mathfun_sincos`: ATen's avx_mathfun.h (Cephes polynomials on 8
  float lanes) as normal_fill_AVX2 runs them. ATen's AVX2 kernels are compiled with FMA
  and GCC fuses each multiply whose only use is an add into one `vfmadd`, so the port
  fuses exactly those.
- the scalar normal_fill calls glibc's logf/sinf/cosf through libm: `glibc.logf`,
  `glibc.sinf`, `glibc.cosf`.

FMA is emulated exactly: float32 in float64 with round-to-odd, float64 with
error-free transformations and round-to-odd (Boldo and Melquiond's algorithm).
"""
from __future__ import annotations

import numpy as np

from .fp32 import fma

F32 = np.float32
_U32 = np.uint32


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
