"""SLEEF's float32 vector functions (the `Sleef_*f8_u10` torch's AVX2/AVX-512 kernels call),
step for step in numpy.

SLEEF is built with FMA on these targets: every `vmla`/`vfma` is a float32 fused
multiply-add (`fp32.fma`), its double-float (`df`) arithmetic takes exact product errors
with an fma (`fp32.two_prod`), and every other operation is a plain float32 numpy
operation, which rounds as the vector instruction does; `vrec` is a true division.
Algorithms: SLEEF 3.x `sleefsimdsp.c` and `df.h` (Boost licence). Functions take and
return 1-D float32 arrays; out-of-range lanes compute garbage that the final selects
replace, exactly as the vector code does.
"""
from __future__ import annotations

import math

import numpy as np

from .fp32 import fma, two_prod

F = np.float32
DF = tuple[np.ndarray, np.ndarray]  # (high, low) float32 pair: SLEEF's vfloat2

_R_LN2 = F(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F(0.693145751953125)
_L2L = F(1.428606765330187045e-06)
_LN2_DF = (F(0.69314718246459960938), F(-1.904654323148236017e-09))
_FLT_MIN = F(float.fromhex("0x1p-126"))
_ONE = F(1)
_TWO = F(2)
_HALF = F(0.5)


def _poly(s: np.ndarray, coeffs: tuple[float, ...]) -> np.ndarray:
    """Horner with fmas from the highest coefficient: u = fma(u, s, c)."""
    u = fma(s, F(coeffs[0]), F(coeffs[1]))
    for c in coeffs[2:]:
        u = fma(u, s, F(c))
    return u


# -- SLEEF's helpers -------------------------------------------------------------------


def pow2i(q: np.ndarray) -> np.ndarray:
    """vpow2i_vf_vi2: 2**q as float32 for int32 q in [-126, 127], built from its bits."""
    return ((q + 127) << 23).view(np.float32)


def ldexp2(u: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp2_vf_vf_vi2: u * 2**(q>>1) * 2**(q - (q>>1)), two float32 products."""
    half = q >> 1
    return u * pow2i(half) * pow2i(q - half)


def ldexp(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp_vf_vf_vi2: x * 2**q in five products, saturating the scale factors."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = m + 127
    m = np.where(m > 0, m, 0)
    m = np.where(m > 255, 255, m)
    u = (m << 23).view(np.float32)
    x = x * u * u * u * u
    return x * ((q + 127) << 23).view(np.float32)


def rint_i32(x: np.ndarray) -> np.ndarray:
    """vrint_vi2_vf (cvtps2dq): round half to even; NaN and out-of-range give INT_MIN."""
    with np.errstate(invalid="ignore"):
        r = np.rint(x)
        bad = ~(np.abs(r) < 2.0 ** 31)
        q = r.astype(np.int32)
    if bad.any():
        q[bad] = np.iinfo(np.int32).min
    return q


def ilogb2k(d: np.ndarray) -> np.ndarray:
    """vilogb2k_vi2_vf: the biased exponent field less 127 (d normal and positive)."""
    return ((d.view(np.int32) >> 23) & 0xFF) - 127


def ldexp3(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp3_vf_vf_vi2: add q to d's exponent field directly."""
    return (d.view(np.int32) + (q << 23)).view(np.float32)


def mulsign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """vmulsign_vf_vf_vf: x with its sign flipped where y's sign bit is set."""
    return (x.view(np.int32) ^ (y.view(np.int32) & np.int32(-2**31))).view(np.float32)


# -- double-float arithmetic (df.h, FMA build) -------------------------------------------


def df_add_ff(x: np.ndarray, y: np.ndarray) -> DF:
    """dfadd_vf2_vf_vf (|x| >= |y|)."""
    rx = x + y
    return rx, (x - rx) + y


def df_add2_ff(x: np.ndarray, y: np.ndarray) -> DF:
    """dfadd2_vf2_vf_vf (any order)."""
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


def df_add_fd(x: np.ndarray, y: DF) -> DF:
    """dfadd_vf2_vf_vf2 (|x| >= |y|)."""
    rx = x + y[0]
    return rx, ((x - rx) + y[0]) + y[1]


def df_add_df(x: DF, y: np.ndarray) -> DF:
    """dfadd_vf2_vf2_vf (|x| >= |y|)."""
    rx = x[0] + y
    return rx, ((x[0] - rx) + y) + x[1]


def df_add2_df(x: DF, y: np.ndarray) -> DF:
    """dfadd2_vf2_vf2_vf (any order)."""
    rx = x[0] + y
    v = rx - x[0]
    return rx, ((x[0] - (rx - v)) + (y - v)) + x[1]


def df_add_dd(x: DF, y: DF) -> DF:
    """dfadd_vf2_vf2_vf2 (|x| >= |y|)."""
    rx = x[0] + y[0]
    return rx, (((x[0] - rx) + y[0]) + x[1]) + y[1]


def df_add2_dd(x: DF, y: DF) -> DF:
    """dfadd2_vf2_vf2_vf2 (any order)."""
    rx = x[0] + y[0]
    v = rx - x[0]
    return rx, ((x[0] - (rx - v)) + (y[0] - v)) + (x[1] + y[1])


def df_neg(x: DF) -> DF:
    return -x[0], -x[1]


def df_normalize(x: DF) -> DF:
    sx = x[0] + x[1]
    return sx, (x[0] - sx) + x[1]


def df_scale(x: DF, s: np.ndarray | np.float32) -> DF:
    return x[0] * s, x[1] * s


def df_mul_df(x: DF, y: np.ndarray) -> DF:
    """dfmul_vf2_vf2_vf: rx = x.x*y, ry = fma(x.y, y, fma(x.x, y, -rx))."""
    rx, err = two_prod(x[0], y)
    return rx, fma(x[1], y, err)


def df_mul_dd(x: DF, y: DF) -> DF:
    """dfmul_vf2_vf2_vf2: ry = fma(x.x, y.y, fma(x.y, y.x, fma(x.x, y.x, -rx)))."""
    rx, err = two_prod(x[0], y[0])
    return rx, fma(x[0], y[1], fma(x[1], y[0], err))


def df_squ(x: DF) -> DF:
    """dfsqu_vf2_vf2: ry = fma(x.x + x.x, x.y, fma(x.x, x.x, -rx))."""
    rx, err = two_prod(x[0], x[0])
    return rx, fma(x[0] + x[0], x[1], err)


def df_rec_d(d: DF) -> DF:
    """dfrec_vf2_vf2: qx = 1/d.x, qy = qx * fma(-d.y, qx, fma(-d.x, qx, 1))."""
    qx = _ONE / d[0]
    return qx, qx * fma(-d[1], qx, fma(-d[0], qx, _ONE))


def df_div(n: DF, d: DF) -> DF:
    """dfdiv_vf2_vf2_vf2 (FMA build)."""
    t = _ONE / d[0]
    qx, u = two_prod(n[0], t)  # u = fma(t, n.x, -qx)
    qy = fma(-d[1], t, fma(-d[0], t, _ONE))
    return qx, fma(qx, qy, fma(n[1], t, u))


# -- functions -------------------------------------------------------------------------

_EXP_POLY = (0.000198527617612853646278381, 0.00139304355252534151077271,
             0.00833336077630519866943359, 0.0416664853692054748535156,
             0.166666671633720397949219, 0.5)


def expf(d: np.ndarray) -> np.ndarray:
    """Sleef_expf8_u10 (xexpf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        q = rint_i32(d * _R_LN2)
        qf = q.astype(np.float32)
        s = fma(qf, -_L2U, d)
        s = fma(qf, -_L2L, s)
        u = _poly(s, _EXP_POLY)
        u = _ONE + fma(s * s, u, s)
        # |q| > 150 only where d is out of range and replaced below
        u = ldexp2(u, np.clip(q, -150, 150))
        u[d < -104] = 0
        u[d > 100] = np.inf
    return u


_EXPK2_POLY = (+0.1980960224e-3, +0.1394256484e-2, +0.8333456703e-2, +0.4166637361e-1)


def expk2f(d: DF) -> DF:
    """expk2f: exp of a double-float, as a double-float (sinhf, coshf, tanhf, expm1f)."""
    q = rint_i32((d[0] + d[1]) * _R_LN2)
    qf = q.astype(np.float32)
    s = df_add2_df(d, qf * -_L2U)
    s = df_add2_df(s, qf * -_L2L)
    u = _poly(s[0], _EXPK2_POLY)
    t = df_add2_df(df_mul_df(s, u), F(0.166666659414234244790680580464e+0))
    t = df_add2_df(df_mul_dd(s, t), _HALF)
    t = df_add2_dd(s, df_mul_dd(df_squ(s), t))
    tx, ty = df_add_fd(_ONE, t)
    tx, ty = ldexp2(tx, q), ldexp2(ty, q)
    small = d[0] < -104
    tx[small] = 0
    ty[small] = 0
    return tx, ty


def expm1f(a: np.ndarray) -> np.ndarray:
    """Sleef_expm1f8_u10 (xexpm1f)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        dx, dy = df_add2_df(expk2f((a, np.zeros_like(a))), F(-1.0))
        x = dx + dy
        x[a > F(88.72283172607421875)] = np.inf
        x[a < F(-16.635532333438687426013570)] = -1
        x[(a == 0) & np.signbit(a)] = F(-0.0)
    return x


def tanhf(x: np.ndarray) -> np.ndarray:
    """Sleef_tanhf8_u10 (xtanhf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = np.abs(x)
        d = expk2f((y, np.zeros_like(y)))
        e = df_rec_d(d)
        d = df_div(df_add_dd(d, df_neg(e)), df_add_dd(d, e))
        y = d[0] + d[1]
        y[(np.abs(x) > F(8.664339742)) | np.isnan(y)] = 1
        y = mulsign(y, x)
        y[np.isnan(x)] = np.nan
    return y


def _hyperbolic(x: np.ndarray, sign: float) -> np.ndarray:
    """(e^|x| + sign * e^-|x|) / 2 in double-float (xsinhf: dfsub, xcoshf: dfadd)."""
    y = np.abs(x)
    d = expk2f((y, np.zeros_like(y)))
    e = df_rec_d(d)
    d = df_add_dd(d, e if sign > 0 else df_neg(e))  # (dfsub is dfadd of the negation)
    y = (d[0] + d[1]) * _HALF
    y[(np.abs(x) > F(89)) | np.isnan(y)] = np.inf
    return y


def sinhf(x: np.ndarray) -> np.ndarray:
    """Sleef_sinhf8_u10 (xsinhf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = mulsign(_hyperbolic(x, -1), x)
        y[np.isnan(x)] = np.nan
    return y


def coshf(x: np.ndarray) -> np.ndarray:
    """Sleef_coshf8_u10 (xcoshf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = _hyperbolic(x, 1)
        y[np.isnan(x)] = np.nan
    return y


_ATAN2_POLY = (-0.00176397908944636583328247, 0.0107900900766253471374512,
               -0.0309564601629972457885742, 0.0577365085482597351074219,
               -0.0838950723409652709960938, 0.109463557600975036621094,
               -0.142626821994781494140625, 0.199983194470405578613281)
_HALF_PI_DF = (F(1.5707963705062866211), F(-4.3711388286737928865e-08))


def _atan2kf_u1(y: DF, x: DF) -> DF:
    """atan2kf_u1: atan(y / x) for y >= 0 in double-float, folded into [0, pi/4] by the
    quadrant count q (x < 0: -2, then +1 where x < y)."""
    negative = x[0] < 0
    q = np.where(negative, np.int32(-2), np.int32(0))
    x = (np.where(negative, -x[0], x[0]), np.where(negative, -x[1], x[1]))
    p = x[0] < y[0]
    q = np.where(p, q + 1, q)
    s = (np.where(p, -x[0], y[0]), np.where(p, -x[1], y[1]))
    t = (np.where(p, y[0], x[0]), np.where(p, y[1], x[1]))
    s = df_div(s, t)
    t = df_normalize(df_squ(s))
    u = _poly(t[0], _ATAN2_POLY)
    t = df_mul_dd(t, df_add_ff(F(-0.333332866430282592773438), u * t[0]))
    t = df_mul_dd(s, df_add_fd(_ONE, t))
    return df_add_dd(df_mul_df(_HALF_PI_DF, q.astype(np.float32)), t)


def atan2f(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Sleef_atan2f8_u10 (xatan2f_u1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        tiny = np.abs(x) < F(2.9387372783541830947e-39)  # (nexttowardf(1 / FLT_MAX, 1))
        x = np.where(tiny, x * F(1 << 24), x)
        y = np.where(tiny, y * F(1 << 24), y)
        zero = np.zeros_like(x)
        d = _atan2kf_u1((np.abs(y), zero), (x, zero))
        r = mulsign(d[0] + d[1], x)
        half_pi, quarter_pi = F(math.pi / 2), F(math.pi / 4)
        x_inf = np.isinf(x)
        r = np.where(x_inf | (x == 0),
                     half_pi - np.where(x_inf, mulsign(np.full_like(x, half_pi), x), 0), r)
        r = np.where(np.isinf(y),
                     half_pi - np.where(x_inf, mulsign(np.full_like(x, quarter_pi), x), 0), r)
        r = np.where(y == 0, np.where(np.signbit(x), F(math.pi), F(0)), r)
        r = np.where(np.isnan(x) | np.isnan(y), np.float32(np.nan), mulsign(r, y))
    return r.astype(np.float32, copy=False)


_LOG_U1_POLY = (+0.3027294874e+0, +0.3996108174e+0, +0.6666694880e+0)
_LOG1PF_BOUND = F(1e38)


def logf_u1(d: np.ndarray) -> np.ndarray:
    """Sleef_logf8_u10 (xlogf_u1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        o = d < _FLT_MIN
        d1 = np.where(o, d * F(2.0**64), d)
        e = ilogb2k(d1 * F(1.0 / 0.75))
        m = ldexp3(d1, -e)
        e = np.where(o, e - 64, e)
        s = df_mul_df(_LN2_DF, e.astype(np.float32))
        x = df_div(df_add2_ff(np.full_like(m, -_ONE), m), df_add2_ff(np.full_like(m, _ONE), m))
        x2 = x[0] * x[0]
        t = _poly(x2, _LOG_U1_POLY)
        s = df_add_dd(s, df_scale(x, _TWO))
        s = df_add_df(s, x2 * x[0] * t)
        r = s[0] + s[1]
        r[d == np.inf] = np.inf
        r[(d < 0) | np.isnan(d)] = np.nan
        r[d == 0] = -np.inf
    return r


def log1pf(d: np.ndarray) -> np.ndarray:
    """Sleef_log1pf8_u10 (xlog1pf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        dp1 = d + _ONE
        o = dp1 < _FLT_MIN
        dp1 = np.where(o, dp1 * F(2.0**64), dp1)
        e = ilogb2k(dp1 * F(1.0 / 0.75))
        t = ldexp3(np.full_like(d, _ONE), -e)
        m = fma(d, t, t - _ONE)
        e = np.where(o, e - 64, e)
        s = df_mul_df(_LN2_DF, e.astype(np.float32))
        x = df_div((m, np.zeros_like(m)), df_add_ff(np.full_like(m, _TWO), m))
        x2 = x[0] * x[0]
        t = _poly(x2, _LOG_U1_POLY)
        s = df_add_dd(s, df_scale(x, _TWO))
        s = df_add_df(s, x2 * x[0] * t)
        r = s[0] + s[1]
        big = d > _LOG1PF_BOUND  # past it the core approximation is replaced by log
        if big.any():
            r[big] = logf_u1(d[big])
        r[F(-1) > d] = np.nan
        r[d == F(-1)] = -np.inf
        r[(d == 0) & np.signbit(d)] = F(-0.0)
    return r


_LOGK_POLY = (0.240320354700088500976562, 0.285112679004669189453125,
              0.400007992982864379882812)
_LOGK_C = (F(0.66666662693023681640625), F(3.69183861259614332084311e-09))
_EXPK_POLY = (0.00136324646882712841033936, 0.00836596917361021041870117,
              0.0416710823774337768554688, 0.166665524244308471679688,
              0.499999850988388061523438)


def logkf(d: np.ndarray) -> DF:
    """logkf: log of a positive float32 as a double-float (powf)."""
    o = d < _FLT_MIN
    d = np.where(o, d * F(2.0**64), d)
    e = ilogb2k(d * F(1.0 / 0.75))
    m = ldexp3(d, -e)
    e = np.where(o, e - 64, e)
    x = df_div(df_add2_ff(np.full_like(m, -_ONE), m), df_add2_ff(np.full_like(m, _ONE), m))
    x2 = df_squ(x)
    t = _poly(x2[0], _LOGK_POLY)
    s = df_mul_df(_LN2_DF, e.astype(np.float32))
    s = df_add_dd(s, df_scale(x, _TWO))
    return df_add_dd(s, df_mul_dd(df_mul_dd(x2, x), df_add2_dd(df_mul_df(x2, t), _LOGK_C)))


def expkf(d: DF) -> np.ndarray:
    """expkf: exp of a double-float, as a float32 (powf)."""
    q = rint_i32((d[0] + d[1]) * _R_LN2)
    qf = q.astype(np.float32)
    s = df_add2_df(d, qf * -_L2U)
    s = df_add2_df(s, qf * -_L2L)
    s = df_normalize(s)
    u = _poly(s[0], _EXPK_POLY)
    t = df_add_dd(s, df_mul_df(df_squ(s), u))
    t = df_add_fd(_ONE, t)
    u = ldexp(t[0] + t[1], q)
    u[d[0] < -104] = 0
    return u


def powf(x: np.ndarray, y: np.ndarray | np.float32) -> np.ndarray:
    """Sleef_powf8_u10 (xpowf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = np.broadcast_to(np.asarray(y, np.float32), x.shape)
        ay = np.abs(y)
        ty = np.trunc(y)
        yisint = (ty == y) | (ay > F(1 << 24))
        yint = np.where(ay < F(2.0**31), ty, 0).astype(np.int32)
        yisodd = ((yint & 1) == 1) & yisint & (ay < F(1 << 24))
        result = expkf(df_mul_df(logkf(np.abs(x)), y))
        result[np.isnan(result)] = np.inf
        result = result * np.where(x > 0, _ONE, np.where(yisint, np.where(yisodd, F(-1), _ONE),
                                                         F(np.nan)))
        efx = mulsign(np.abs(x) - _ONE, y)
        result = np.where(np.isinf(y), np.where(efx < 0, F(0), np.where(efx == 0, _ONE,
                                                                          F(np.inf))), result)
        sign_x = mulsign(np.full_like(x, _ONE), x)
        edge = np.where(yisodd, sign_x, _ONE) * np.where(np.where(x == 0, -y, y) < 0, F(0),
                                                         F(np.inf))
        result = np.where(np.isinf(x) | (x == 0), edge, result)
        result = np.where(np.isnan(x) | np.isnan(y), F(np.nan), result)
        result = np.where((y == 0) | (x == _ONE), _ONE, result)
    return result.astype(np.float32)
