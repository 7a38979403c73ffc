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


def df_add2_fd(x: np.ndarray, y: DF) -> DF:
    """dfadd2_vf2_vf_vf2 (any order)."""
    rx = x + y[0]
    v = rx - x
    return rx, ((x - (rx - v)) + (y[0] - v)) + y[1]


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


def df_abs(x: DF) -> DF:
    """dfabs_vf2_vf2: |x.x|, and x.y with its sign flipped where x.x is negative."""
    return np.abs(x[0]), mulsign(x[1], x[0])


def df_const(d: float) -> DF:
    """vcast_vf2_d: a double as float32 (high, low)."""
    hi = F(d)
    return hi, F(d - float(hi))


def _where(o: np.ndarray, a: DF, b: DF) -> DF:
    """vsel_vf2_vo_vf2_vf2."""
    return np.where(o, a[0], b[0]).astype(F, copy=False), np.where(o, a[1], b[1]).astype(
        F, copy=False)


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


def ilogbk(d: np.ndarray) -> np.ndarray:
    """vilogbk_vi2_vf: the exponent of a positive d, subnormals scaled up first (the
    AVX-512 build's getexp gives the same for every positive finite d)."""
    tiny = d < F(5.421010862427522e-20)
    d = np.where(tiny, F(1.8446744073709552e19) * d, d).astype(F, copy=False)
    q = (d.view(np.int32) >> 23) & 0xFF
    return q - np.where(tiny, np.int32(64 + 0x7F), np.int32(0x7F))


_LOGK2_POLY = (0.2392828464508056640625, 0.28518211841583251953125,
               0.400005877017974853515625, 0.666666686534881591796875)


def logk2f(d: DF) -> DF:
    """logk2f: log of a positive double-float, as a double-float."""
    e = ilogbk(d[0] * F(1.0 / 0.75))
    m = df_scale(d, pow2i(-e))
    x = df_div(df_add2_df(m, F(-1)), df_add2_df(m, _ONE))
    x2 = df_squ(x)
    t = _poly(x2[0], _LOGK2_POLY)
    s = df_mul_df(_LN2_DF, e.astype(F))
    s = df_add_dd(s, df_scale(x, _TWO))
    return df_add_dd(s, df_mul_df(df_mul_dd(x2, x), t))


def _sel(o: np.ndarray, a: float, b: float) -> np.ndarray:
    """vsel_vf_vo_f_f: float32 constants by lane."""
    return np.where(o, F(a), F(b))


def _sinpifk(d: np.ndarray) -> DF:
    """sinpifk: sin(pi d) as a double-float."""
    u = d * F(4)
    q = np.trunc(u).astype(np.int32)  # (|d| < 4096 here: no overflow)
    q = (q + (((q >> 31) & 1) ^ 1)) & ~1
    o = (q & 2) == 2
    s = u - q.astype(F)
    t = s
    s = s * s
    s2 = two_prod(t, t)
    u = _sel(o, -0.2430611801e-7, +0.3093842054e-6)
    u = fma(u, s, _sel(o, +0.3590577080e-5, -0.3657307388e-4))
    u = fma(u, s, _sel(o, -0.3259917721e-3, +0.2490393585e-2))
    x = df_add2_fd(u * s, (_sel(o, 0.015854343771934509277, -0.080745510756969451904),
                           _sel(o, 4.4940051354032242811e-10, -1.3373665339076936258e-09)))
    x = df_add2_dd(df_mul_dd(s2, x),
                   (_sel(o, -0.30842512845993041992, 0.78539818525314331055),
                    _sel(o, -9.0728339030733922277e-09, -2.1857338617566484855e-08)))
    x = df_mul_dd(x, _where(o, s2, (t, np.zeros_like(t))))
    x = _where(o, df_add2_df(x, _ONE), x)
    flip = (q & 4) == 4
    return np.where(flip, -x[0], x[0]), np.where(flip, -x[1], x[1])


# gammafk's polynomial: per lane the Stirling series (x >= 2.3), or the expansions about 1
# (0.5 <= x <= 1.2) and about 2
_GAMMA_U = ((+0.000839498720672087279971000786, +0.9435157776e+0, +0.1102489550e-3),
            (-5.17179090826059219329394422e-05, +0.8670063615e+0, +0.8160019934e-4),
            (-0.000592166437353693882857342347, +0.4826702476e+0, +0.1528468856e-3),
            (+6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3),
            (+0.000784039221720066627493314301, +0.1013825238e+0, +0.4962242092e-3),
            (-0.000229472093621399176949318732, -0.1493408978e+0, -0.1193488017e-2),
            (-0.002681327160493827160473958490, +0.1697509140e+0, +0.2891599433e-2),
            (+0.003472222222222222222175164840, -0.2072454542e+0, -0.7385451812e-2),
            (+0.083333333333333333335592087900, +0.2705872357e+0, +0.2058077045e-1))
_GAMMA_Z = ((-0.400686534596170958447352690395e+0, -0.673523028297382446749257758235e-1),
            (+0.822466960142643054450325495997e+0, +0.322467033928981157743538726901e+0),
            (-0.577215665946766039837398973297e+0, +0.422784335087484338986941629852e+0))


def _gammafk(a: np.ndarray) -> tuple[DF, DF]:
    """gammafk: (log of the gamma function's main part, the factor it is divided by)."""
    zero, one = np.zeros_like(a), np.ones_like(a)
    otiny = np.abs(a) < F(1e-30)
    oref = a < F(0.5)
    x = _where(otiny, (zero, zero), _where(oref, df_add2_ff(one, -a), (a, zero)))
    o0 = (F(0.5) <= x[0]) & (x[0] <= F(1.2))
    o2 = F(2.3) <= x[0]
    y = df_normalize(df_mul_dd(df_add2_df(x, _ONE), x))
    y = df_normalize(df_mul_dd(df_add2_df(x, _TWO), y))
    o = o2 & (x[0] <= F(7))
    clln = _where(o, y, (one, zero))
    x = _where(o, df_add2_df(x, F(3)), x)
    t = np.where(o2, _ONE / x[0], df_normalize(df_add2_df(x, _sel(o0, -1, -2)))[0])
    u = np.where(o2, F(_GAMMA_U[0][0]), _sel(o0, _GAMMA_U[0][1], _GAMMA_U[0][2]))
    for c in _GAMMA_U[1:]:
        u = fma(u, t, np.where(o2, F(c[0]), _sel(o0, c[1], c[2])))
    y = df_mul_dd(df_add2_df(x, F(-0.5)), logk2f(x))
    y = df_add2_dd(y, df_neg(x))
    y = df_add2_dd(y, df_const(0.91893853320467278056))  # 0.5 log(2 pi)
    z = df_add2_df(two_prod(u, t), _sel(o0, *_GAMMA_Z[0]))
    z = df_add2_df(df_mul_df(z, t), _sel(o0, *_GAMMA_Z[1]))
    z = df_add2_df(df_mul_df(z, t), _sel(o0, *_GAMMA_Z[2]))
    z = df_mul_df(z, t)
    clc = _where(o2, y, z)
    clld = _where(o2, df_add2_df(two_prod(u, t), _ONE), (one, zero))
    y = clln
    clc = _where(otiny, df_const(41.58883083359671856503),  # log(2^60)
                 _where(oref, df_add2_dd(df_const(1.1447298858494001639), df_neg(clc)), clc))
    clln = _where(otiny, (one, zero), _where(oref, clln, clld))
    cut = np.trunc(a * F(1.0 / 4096))  # (vtruncate_vi2_vf: NaN and huge lanes are garbage)
    t = a - F(4096) * np.where(np.abs(cut) < 2.0 ** 31, cut, F(-2.0 ** 31))
    x = df_mul_dd(clld, _sinpifk(t))
    clld = _where(otiny, (a * F(2.0 ** 60), zero), _where(oref, x, y))
    return clc, df_div(clln, clld)


def lgammaf(a: np.ndarray) -> np.ndarray:
    """Sleef_lgammaf8_u10 (xlgammaf_u1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        clc, ratio = _gammafk(a)
        y = df_add2_dd(clc, logk2f(df_abs(ratio)))
        r = y[0] + y[1]
        number = np.isfinite(a)
        pole = np.isinf(a) | ((a <= 0) & (np.trunc(a) == a)) | (number & np.isnan(r))
        r[pole] = np.inf
    return r


_EXP2_POLY = (+0.1535920892e-3, +0.1339262701e-2, +0.9618384764e-2, +0.5550347269e-1,
              +0.2402264476e+0, +0.6931471825e+0)


def exp2f(d: np.ndarray) -> np.ndarray:
    """Sleef_exp2f8_u10 (xexp2f, FMA build)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        u = np.rint(d)
        q = rint_i32(u)
        s = d - u
        u = fma(_poly(s, _EXP2_POLY), s, _ONE)
        u = ldexp2(u, np.clip(q, -300, 300))  # (out-of-range lanes are replaced below)
        u[d >= 128] = np.inf
        u[d < -150] = 0
    return u


def atanhf(x: np.ndarray) -> np.ndarray:
    """Sleef_atanhf8_u10 (xatanhf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = np.abs(x)
        d = logk2f(df_div(df_add2_ff(np.ones_like(y), y), df_add2_ff(np.ones_like(y), -y)))
        y = np.where(y == 1, np.float32(np.inf), (d[0] + d[1]) * _HALF).astype(F, copy=False)
        y[(np.abs(x) > 1) | np.isinf(x) | np.isnan(y)] = np.nan
        y = mulsign(y, x)
        y[np.isnan(x)] = np.nan
    return y


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


def _df_sqrt(d: DF) -> DF:
    """dfsqrt_vf2_vf2 (no reciprocal square root): t = sqrt(d.x + d.y), then
    (d + t·t) · dfrec(t) / 2, dfrec(t) = (s, s · fma(-t, s, 1)) with s = 1/t."""
    t = np.sqrt(d[0] + d[1])
    s = _ONE / t
    return df_scale(df_mul_dd(df_add2_dd(d, two_prod(t, t)), (s, s * fma(-t, s, _ONE))), _HALF)


def hypotf(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sleef_hypotf8_u05 (xhypotf_u05): max · sqrt(1 + (min/max)²) in double-float."""
    x, y = np.abs(x), np.abs(y)
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    tiny = hi < _FLT_MIN
    n = np.where(tiny, lo * F(2.0 ** 24), lo)
    d = np.where(tiny, hi * F(2.0 ** 24), hi)
    zero = np.zeros_like(n)
    with np.errstate(all="ignore"):
        t = df_div((n, zero), (d, zero))
        t = df_mul_df(_df_sqrt(df_add2_df(df_squ(t), _ONE)), hi)
        ret = t[0] + t[1]
    ret = np.where(np.isnan(ret), F(np.inf), ret)
    ret = np.where(lo == 0, hi, ret)
    ret = np.where(np.isnan(x) | np.isnan(y), F(np.nan), ret)
    return np.where((x == np.inf) | (y == np.inf), F(np.inf), ret)
