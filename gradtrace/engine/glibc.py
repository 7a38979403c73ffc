"""glibc's float32 libm functions, step for step in numpy: what torch's scalar code (vector
tails, the `default` build's per-lane Vectorized<float>) calls through `std::exp` and
friends on a float.

- expf, logf, sinf, cosf: glibc 2.28+'s algorithms (Arm optimized-routines), evaluated
  in double. On an x86-64 CPU with FMA and AVX2, glibc's ifunc selects its `-mfma` build
  (whatever torch's ATEN_CPU_CAPABILITY), in which GCC contracts `a * b + c` into a fused
  multiply-add: `fp64.fma` reproduces it (`HAS_FMA`).
- expm1f, log1pf, tanhf, erff: fdlibm's float code (glibc up to 2.40), compiled for
  baseline x86-64: plain float32 operations.
- powf: numpy's float32 power, which is the C library's powf.

Functions take float32 arrays and return float32 arrays.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import fp64
from .capability import _cpu_flags

HAS_FMA = {"fma", "avx2"} <= _cpu_flags()  # glibc's ifunc: the -mfma builds
F32 = np.float32
_U32 = np.uint32
_EXP2F_BITS = 5
_LOW29 = np.int64((1 << 29) - 1)
_MID29 = np.int64(1 << 28)
_NEAR = 1 << 10  # units of the double's last place: far more than fma changes
_N = 1 << _EXP2F_BITS


# __exp2f_data.tab (glibc's sysdeps/ieee754/flt-32/e_exp2f_data.c): 2**(i/N) as float64
# bits, less i << (52 - 5)
_T = np.array([
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
], np.uint64)
_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * _N
_SHIFT = float.fromhex("0x1.8p+52")
_C = (float.fromhex("0x1.c6af84b912394p-5") / _N / _N / _N,
      float.fromhex("0x1.ebfce50fac4f3p-3") / _N / _N,
      float.fromhex("0x1.62e42ff0c52d6p-1") / _N)


def _expf_double(x: np.ndarray, fma: Callable[..., np.ndarray]) -> np.ndarray:
    """e_expf.c's double evaluation, with `fma` for its three contracted `a * b + c`."""
    xd = x.astype(np.float64)
    z = _INVLN2N * xd
    with np.errstate(invalid="ignore", over="ignore"):
        kd = z + _SHIFT
        ki = kd.view(np.uint64)
        kd = kd - _SHIFT
        r = z - kd
        t = _T[(ki % np.uint64(_N)).astype(np.intp)] + (ki << np.uint64(52 - _EXP2F_BITS))
        s = t.view(np.float64)
        zz = fma(_C[0], r, _C[1])
        y = fma(zz, r * r, fma(_C[2], r, 1.0))
        return y * s


def _plain_fma(a: Any, b: Any, c: Any) -> Any:
    return a * b + c


def expf(x: np.ndarray) -> np.ndarray:
    """glibc __expf (sysdeps/ieee754/flt-32/e_expf.c, FMA build).

    The double result is computed without fused multiply-adds first: it differs from the
    FMA build's by a few units in its last place, which changes the float32 rounding only
    where it lies that close to a float32 midpoint. Those few elements are redone with
    the exact double fma."""
    y = _expf_double(x, _plain_fma)
    out = y.astype(np.float32)
    near = np.abs((y.view(np.int64) & _LOW29) - _MID29) <= _NEAR
    if near.any():
        out[near] = _expf_double(x[near], fp64.fma).astype(np.float32)
    big = ~(np.abs(x) < 88.0)  # |x| >= 88 or nan: the special cases
    if big.any():
        xb = x[big]
        with np.errstate(over="ignore"):
            res = np.where(xb > np.float32(float.fromhex("0x1.62e42ep6")), np.inf,
                           np.where(xb < np.float32(float.fromhex("-0x1.9fe368p6")), 0.0,
                                    out[big]))
        res = np.where(np.isnan(xb), xb, res)
        out[big] = res.astype(np.float32)
    return out


def exp(x: np.ndarray) -> np.ndarray:
    """glibc's double exp itself (std::exp of a double in torch's scalar kernels), element
    by element through CPython's math.exp, which calls it; numpy's float64 exp is its own
    SIMD code and differs in the last bit (4648 of 100001 values in [0, 40], measured).
    Overflow gives inf, as exp does, where math.exp raises."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    flat, res = x.reshape(-1), out.reshape(-1)
    for i in range(res.size):
        try:
            res[i] = math.exp(float(flat[i]))
        except OverflowError:
            res[i] = math.inf
    return out


# -- fdlibm's float code (glibc 2.36: s_expm1f.c, s_log1pf.c, s_tanhf.c). Compiled for
# baseline x86-64, so every operation is a plain float32 one; branches become selects.

_F = np.float32
_I = np.int32


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.int32)


def _from_bits(i: np.ndarray) -> np.ndarray:
    return i.astype(np.int32).view(np.float32)


_LN2_HI = _F(6.9313812256e-01)
_LN2_LO = _F(9.0580006145e-06)
_INVLN2 = _F(1.4426950216e+00)
_Q = [_F(v) for v in (-3.3333335072e-02, 1.5873016091e-03, -7.9365076090e-05,
                      4.0082177293e-06, -2.0109921195e-07)]
_ONE, _HALF, _TWO = _F(1), _F(0.5), _F(2)


def expm1f(x: np.ndarray) -> np.ndarray:
    """glibc __expm1f."""
    with np.errstate(all="ignore"):
        hx = _bits(x) & 0x7FFFFFFF
        neg = x < 0
        mid = hx > 0x3EB17218  # |x| > 0.5 ln2
        near1 = mid & (hx < 0x3F851592)  # |x| < 1.5 ln2
        kf = (_INVLN2 * x + np.where(neg, -_HALF, _HALF))
        k = np.where(near1, np.where(neg, -1, 1), np.where(mid, np.trunc(kf), 0)).astype(_I)
        t = k.astype(np.float32)
        hi = np.where(near1, np.where(neg, x + _LN2_HI, x - _LN2_HI), x - t * _LN2_HI)
        lo = np.where(near1, np.where(neg, -_LN2_LO, _LN2_LO), t * _LN2_LO)
        xr = np.where(mid, hi - lo, x)
        c = np.where(mid, (hi - xr) - lo, _F(0))
        hfx = _HALF * xr
        hxs = xr * hfx
        r1 = _ONE + hxs * (_Q[0] + hxs * (_Q[1] + hxs * (_Q[2] + hxs * (_Q[3] + hxs * _Q[4]))))
        t3 = _F(3) - r1 * hfx
        e = hxs * ((r1 - t3) / (_F(6) - xr * t3))
        out = xr - (xr * e - hxs)  # k == 0
        e = (xr * (e - c) - c) - hxs
        km1 = _HALF * (xr - e) - _HALF
        k1 = np.where(xr < _F(-0.25), -_TWO * (e - (xr + _HALF)), _ONE + _TWO * (xr - e))
        far = _from_bits(_bits(_ONE - (e - xr)) + (k << 23)) - _ONE  # k <= -2 or k > 56
        kk = np.clip(k, 2, 22)
        y_small = _from_bits(_bits(_from_bits(0x3F800000 - (0x1000000 >> kk)) - (e - xr))
                             + (k << 23))
        y_big = _from_bits(_bits((xr - (e + _from_bits((0x7F - np.clip(k, 23, 56)) << 23)))
                                 + _ONE) + (k << 23))
        out = np.where(k == -1, km1, out)
        out = np.where(k == 1, k1, out)
        out = np.where((k <= -2) | (k > 56), far, out)
        out = np.where((k >= 2) & (k < 23), y_small, out)
        out = np.where((k >= 23) & (k <= 56), y_big, out)
        out = np.where(hx < 0x33000000, x, out)  # |x| < 2**-25
        big = hx >= 0x4195B844  # |x| >= 27 ln2
        out = np.where(big & neg, _F(-1), out)
        out = np.where((hx >= 0x42B17218) & (x > _F(8.8721679688e+01)), _F(np.inf), out)
        out = np.where(np.isnan(x), x, out)
    return out.astype(np.float32)


_LP = [_F(v) for v in (6.6666668653e-01, 4.0000000596e-01, 2.8571429849e-01,
                       2.2222198546e-01, 1.8183572590e-01, 1.5313838422e-01,
                       1.4798198640e-01)]


def log1pf(x: np.ndarray) -> np.ndarray:
    """glibc __log1pf."""
    with np.errstate(all="ignore"):
        hx = _bits(x)
        ax = hx & 0x7FFFFFFF
        low = hx < 0x3ED413D7  # x < 0.41422
        k0 = low & ((hx > 0) | (hx <= _I(-0x416A09E1)))  # -0.2929 < x < 0.41422
        u = np.where(hx < 0x5A000000, _ONE + x, x)
        hu = _bits(u)
        k = (hu >> 23) - 127
        c = np.where(hx < 0x5A000000,
                     np.where(k > 0, _ONE - (u - x), x - (u - _ONE)) / u, _F(0))
        hu = hu & 0x007FFFFF
        up = hu >= 0x3504F7
        k = np.where(up, k + 1, k)
        u = np.where(up, _from_bits(hu | 0x3F000000), _from_bits(hu | 0x3F800000))
        hu = np.where(up, (0x00800000 - hu) >> 2, hu)
        f = np.where(k0, x, u - _ONE)
        k = np.where(k0, 0, k)
        hu = np.where(k0, 1, hu)
        kf = k.astype(np.float32)
        hfsq = _HALF * f * f
        # |f| < 2**-20
        r_tiny = hfsq * (_ONE - _F(0.66666666666666666) * f)
        tiny = np.where(k == 0, f - r_tiny, kf * _LN2_HI - ((r_tiny - (kf * _LN2_LO + c)) - f))
        tiny = np.where(f == 0, np.where(k == 0, _F(0), kf * _LN2_HI + (c + kf * _LN2_LO)),
                        tiny)
        s = f / (_TWO + f)
        z = s * s
        r = _LP[6]
        for lp in _LP[5::-1]:
            r = lp + z * r
        r = z * r
        out = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                       kf * _LN2_HI - ((hfsq - (s * (hfsq + r) + (kf * _LN2_LO + c))) - f))
        out = np.where(hu == 0, tiny, out)
        small = low & (ax < 0x31000000)  # |x| < 2**-29
        out = np.where(small, np.where(ax < 0x24800000, x, x - x * x * _HALF), out)
        out = np.where(low & (ax >= 0x3F800000),
                       np.where(x == _F(-1), _F(-np.inf), _F(np.nan)), out)
        out = np.where(hx >= 0x7F800000, x + x, out)
    return out.astype(np.float32)


def tanhf(x: np.ndarray) -> np.ndarray:
    """glibc __tanhf."""
    with np.errstate(all="ignore"):
        ix = _bits(x) & 0x7FFFFFFF
        ax = np.abs(x)
        t_big = expm1f(_TWO * ax)
        t_small = expm1f(-_TWO * ax)
        z = np.where(ix >= 0x3F800000, _ONE - _TWO / (t_big + _TWO), -t_small / (t_small + _TWO))
        z = np.where(ix < 0x24000000, x * (_ONE + x), z)  # |x| < 2**-55 (sign kept below)
        z = np.where(ix >= 0x41B00000, _ONE - _F(1e-30), z)  # |x| >= 22
        out = np.where((ix < 0x24000000) | (x >= 0), z, -z)
        out = np.where(x == 0, x, out)
        out = np.where(ix >= 0x7F800000, np.where(x >= 0, _ONE / x + _ONE, _ONE / x - _ONE), out)
    return out.astype(np.float32)


_ERX = _F(8.4506291151e-01)
_EFX = _F(1.2837916613e-01)
_PP = [_F(v) for v in (1.2837916613e-01, -3.2504209876e-01, -2.8481749818e-02,
                       -5.7702702470e-03, -2.3763017452e-05)]
_QQ = [_F(v) for v in (3.9791721106e-01, 6.5022252500e-02, 5.0813062117e-03,
                       1.3249473704e-04, -3.9602282413e-06)]
_PA = [_F(v) for v in (-2.3621185683e-03, 4.1485610604e-01, -3.7220788002e-01,
                       3.1834661961e-01, -1.1089469492e-01, 3.5478305072e-02,
                       -2.1663755178e-03)]
_QA = [_F(v) for v in (1.0642088205e-01, 5.4039794207e-01, 7.1828655899e-02,
                       1.2617121637e-01, 1.3637083583e-02, 1.1984500103e-02)]
_RA = [_F(v) for v in (-9.8649440333e-03, -6.9385856390e-01, -1.0558626175e+01,
                       -6.2375331879e+01, -1.6239666748e+02, -1.8460508728e+02,
                       -8.1287437439e+01, -9.8143291473e+00)]
_SA = [_F(v) for v in (1.9651271820e+01, 1.3765776062e+02, 4.3456588745e+02,
                       6.4538726807e+02, 4.2900814819e+02, 1.0863500214e+02,
                       6.5702495575e+00, -6.0424413532e-02)]
_RB = [_F(v) for v in (-9.8649431020e-03, -7.9928326607e-01, -1.7757955551e+01,
                       -1.6063638306e+02, -6.3756646729e+02, -1.0250950928e+03,
                       -4.8351919556e+02)]
_SB = [_F(v) for v in (3.0338060379e+01, 3.2579251099e+02, 1.5367296143e+03,
                       3.1998581543e+03, 2.5530502930e+03, 4.7452853394e+02,
                       -2.2440952301e+01)]


def _horner(z: np.ndarray, coeffs: list[np.float32]) -> np.ndarray:
    """c0 + z*(c1 + z*(c2 + ...)) in float32, innermost first."""
    r = coeffs[-1]
    for c in coeffs[-2::-1]:
        r = c + z * r
    return r


def erff(x: np.ndarray) -> np.ndarray:
    """glibc __erff (fdlibm's s_erff.c); its two expf calls are glibc's expf."""
    with np.errstate(all="ignore"):
        hx = _bits(x)
        ix = hx & 0x7FFFFFFF
        neg = hx < 0
        z = x * x
        tiny = np.where(ix < 0x04000000, _F(0.0625) * (_F(16) * x + (_F(16) * _EFX) * x),
                        x + _EFX * x)
        y = _horner(z, _PP) / (_ONE + z * _horner(z, _QQ))
        out = np.where(ix < 0x31800000, tiny, x + x * y)  # |x| < 0.84375
        s = np.abs(x) - _ONE
        pq = _horner(s, _PA) / (_ONE + s * _horner(s, _QA))
        mid = np.where(neg, -_ERX - pq, _ERX + pq)  # 0.84375 <= |x| < 1.25
        ax = np.abs(x)
        s = _ONE / (ax * ax)
        near = ix < 0x4036DB6E  # |x| < 1/0.35
        r_ = np.where(near, _horner(s, _RA), _horner(s, _RB))
        s_ = np.where(near, _ONE + s * _horner(s, _SA), _ONE + s * _horner(s, _SB))
        zz = _from_bits(_bits(ax) & _I(-4096))  # & 0xfffff000
        r = expf(-zz * zz - _F(0.5625)) * expf((zz - ax) * (zz + ax) + r_ / s_)
        far = np.where(neg, r / ax - _ONE, _ONE - r / ax)
        out = np.where(ix < 0x3F580000, out, np.where(ix < 0x3FA00000, mid, far))
        out = np.where(ix >= 0x40C00000, np.where(neg, _F(-1), _ONE), out)  # |x| >= 6
        out = np.where(ix >= 0x7F800000, np.where(neg, _F(-1), _ONE) + _ONE / x, out)
    return out.astype(np.float32)


def powf(x: np.ndarray, y: np.ndarray | np.float32) -> np.ndarray:
    """glibc __powf. numpy's float32 power loop calls the C library's powf itself (it has
    no SIMD power below AVX-512; tests/test_glibc.py checks the two agree)."""
    with np.errstate(all="ignore"):
        return np.power(x, np.asarray(y, np.float32))


def lgammaf(x: np.ndarray) -> np.ndarray:
    """glibc's lgammaf itself, element by element: what torch's `default` build computes
    per lane (numpy has no lgamma). Slow, and only that build calls it."""
    return _per_element(_libm("lgammaf", ctypes_type="c_float"), x)


def lgamma(x: np.ndarray) -> np.ndarray:
    """glibc's double lgamma itself, element by element (CPython's math.lgamma is its own
    Lanczos sum, not the C library's)."""
    return _per_element(_libm("lgamma", ctypes_type="c_double"), x)


def _per_element(fn: Callable[..., float], x: np.ndarray, *more: np.ndarray) -> np.ndarray:
    """fn of each element of x (and the same element of each of `more`), in x's shape."""
    out = np.empty_like(x)
    flats = [a.reshape(-1) for a in (x, *more)]
    res = out.reshape(-1)
    for i in range(res.size):
        res[i] = fn(*[float(f[i]) for f in flats])
    return out


def atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The C library's atan2f (float32) or atan2 (float64) itself, element by element
    (numpy's float32 arctan2 differs from glibc's in 4 of 10 values, measured)."""
    kind = "c_float" if y.dtype == np.float32 else "c_double"
    fn = _libm("atan2f" if kind == "c_float" else "atan2", ctypes_type=kind, arity=2)
    return _per_element(fn, y, x)


@functools.cache
def _libm(name: str, ctypes_type: str, arity: int = 1) -> Callable[..., float]:
    """A C library function of one float or double, through ctypes (the library the
    process runs with: the one torch's std:: functions call)."""
    import ctypes

    fn = getattr(ctypes.CDLL(None), name)  # (a fixed name, from this module)
    kind = getattr(ctypes, ctypes_type)
    fn.restype, fn.argtypes = kind, [kind] * arity
    return fn


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


def logf(x: np.ndarray, fused: bool = HAS_FMA) -> np.ndarray:
    """glibc __logf (sysdeps/ieee754/flt-32/e_logf.c, Arm optimized-routines): the scalar
    log of torch's float32 kernels (binary_cross_entropy, vector tails, Box-Muller)."""
    x = np.asarray(x, F32)
    ix = x.view(_U32).astype(np.int64)
    special = (ix - 0x00800000) % (1 << 32) >= 0x7F800000 - 0x00800000
    if special.any():  # subnormals are normalised (x * 2**23, exponent less 23)
        sub = special & (ix > 0) & (ix < 0x00800000)
        ix = np.where(sub, (x * F32(2.0**23)).view(_U32).astype(np.int64) - (23 << 23), ix)
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
    out = np.where(x == 1, F32(0), y.astype(F32))
    if special.any():
        out = np.where(ix % (1 << 31) == 0, F32(-np.inf), out)  # +-0
        out = np.where(x == np.inf, x, out)
        out = np.where(np.signbit(x) & (x != 0) | np.isnan(x), F32(np.nan), out)
    return out


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


def sinf(y: np.ndarray, fused: bool = HAS_FMA) -> np.ndarray:
    """glibc __sinf for |y| < 120 (Box-Muller's angles)."""
    return _sincosf(y, False, fused)


def cosf(y: np.ndarray, fused: bool = HAS_FMA) -> np.ndarray:
    """glibc __cosf for |y| < 120."""
    return _sincosf(y, True, fused)
