"""SLEEF's float64 vector functions (the `Sleef_*d4_u10` torch's AVX2 kernels call for
Vectorized<double>: exp, expm1, log1p, pow, tanh), step for step in numpy.

SLEEF's AVX2 build has FMA: every `vmla`/`vfma` is a fused multiply-add (`fp64.fma`, exact
emulation), its double-double (`dd.h`) products take their exact errors with an fma
(`fp64.two_prod`), and every other operation is a plain float64 numpy operation, which
rounds as the vector instruction does; `vrec` is a true division. Polynomials follow
SLEEF's estrin.h (`POLYn` over x, x^2, x^4, x^8). Algorithms: SLEEF 3.6 `sleefsimddp.c`,
`dd.h`, `commonfuncs.h` (Boost licence). Functions take and return 1-D float64 arrays;
out-of-range lanes compute garbage that the final selects replace, as the vector code does.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .fp64 import fma, two_prod

DD = tuple[np.ndarray, np.ndarray]  # (high, low) float64 pair: SLEEF's vdouble2

_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = 0.69314718055966295651160180568695068359375
_L2L = 0.28235290563031577122588448175013436025525412068e-12
_LN2_DD = (0.693147180559945286226764, 2.319046813846299558417771e-17)
_DBL_MIN = float.fromhex("0x1p-1022")
_TWO64 = 2.0 ** 64


def poly(powers: Sequence[np.ndarray], coeffs: Sequence[float | np.ndarray]) -> np.ndarray:
    """estrin.h's POLYn(x, x2, x4, x8, c[n-1] .. c0) with fmas: the high coefficients
    times the largest power below n, plus the low ones' polynomial. A coefficient may be
    an array (a per-lane vsel of two)."""
    n = len(coeffs)
    if n == 1:
        return np.broadcast_to(coeffs[0], powers[0].shape).astype(np.float64)
    if n == 2:
        return fma(powers[0], coeffs[0], coeffs[1])
    k = 1 << ((n - 1).bit_length() - 1)  # largest power of two below n
    level = k.bit_length() - 1
    return fma(powers[level], poly(powers, coeffs[:n - k]), poly(powers, coeffs[n - k:]))


def _pow2i(q: np.ndarray) -> np.ndarray:
    """vpow2i_vd_vi: 2**q from its exponent bits (q in [-1023, 1024])."""
    return ((q.astype(np.int64) + 0x3FF) << 52).view(np.float64)


def ldexp2(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp2_vd_vd_vi: d * 2**(q>>1) * 2**(q - (q>>1))."""
    half = q >> 1
    return d * _pow2i(half) * _pow2i(q - half)


def ldexp3(d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp3_vd_vd_vi: q added to d's exponent field."""
    return (d.view(np.int64) + (q.astype(np.int64) << 52)).view(np.float64)


def ilogb2k(d: np.ndarray) -> np.ndarray:
    """vilogb2k_vi_vd: the biased exponent field less 1023."""
    return (((d.view(np.int64) >> 52) & 0x7FF) - 0x3FF).astype(np.int32)


def rint_i32(x: np.ndarray) -> np.ndarray:
    """vrint_vi_vd (cvtpd2dq): half to even; NaN and out-of-range lanes give INT_MIN."""
    with np.errstate(invalid="ignore"):
        r = np.rint(x)
        bad = ~(np.abs(r) < 2.0 ** 31)
        q = np.where(bad, 0, r).astype(np.int32)
    q[bad] = np.iinfo(np.int32).min
    return q


def mulsign(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """vmulsign_vd_vd_vd: x with its sign flipped where y's sign bit is set."""
    return (x.view(np.int64) ^ (y.view(np.int64) & np.int64(-2 ** 63))).view(np.float64)


# -- double-double arithmetic (dd.h, FMA build) -------------------------------------------


def dd_add_d2(x: np.ndarray, y: np.ndarray) -> DD:
    """ddadd_vd2_vd_vd (|x| >= |y|)."""
    s = x + y
    return s, (x - s) + y


def dd_add2_d2(x: np.ndarray, y: np.ndarray) -> DD:
    """ddadd2_vd2_vd_vd (any order)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def dd_add_dd_d(x: DD, y: np.ndarray) -> DD:
    """ddadd_vd2_vd2_vd."""
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def dd_add2_dd_d(x: DD, y: np.ndarray | float) -> DD:
    """ddadd2_vd2_vd2_vd."""
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def dd_add_d_dd(x: np.ndarray | float, y: DD) -> DD:
    """ddadd_vd2_vd_vd2."""
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def dd_add_dd(x: DD, y: DD) -> DD:
    """ddadd_vd2_vd2_vd2."""
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def dd_add2_dd(x: DD, y: DD) -> DD:
    """ddadd2_vd2_vd2_vd2."""
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def dd_mul_dd_d(x: DD, y: np.ndarray | float) -> DD:
    """ddmul_vd2_vd2_vd: ry = fma(x.y, y, fma(x.x, y, -rx))."""
    rx, err = two_prod(x[0], np.asarray(y, np.float64))
    return rx, fma(x[1], y, err)


def dd_mul_dd(x: DD, y: DD) -> DD:
    """ddmul_vd2_vd2_vd2: ry = fma(x.x, y.y, fma(x.y, y.x, fma(x.x, y.x, -rx)))."""
    rx, err = two_prod(x[0], y[0])
    return rx, fma(x[0], y[1], fma(x[1], y[0], err))


def dd_squ(x: DD) -> DD:
    """ddsqu_vd2_vd2."""
    rx, err = two_prod(x[0], x[0])
    return rx, fma(x[0] + x[0], x[1], err)


def dd_rec(d: DD) -> DD:
    """ddrec_vd2_vd2: s = 1/d.x, s * fma(-d.y, s, fma(-d.x, s, 1))."""
    s = 1.0 / d[0]
    return s, s * fma(-d[1], s, fma(-d[0], s, 1.0))


def dd_div(n: DD, d: DD) -> DD:
    """dddiv_vd2_vd2_vd2 (FMA build)."""
    t = 1.0 / d[0]
    s, u = two_prod(n[0], t)
    v = fma(-d[1], t, fma(-d[0], t, 1.0))
    return s, fma(s, v, fma(n[1], t, u))


def dd_normalize(x: DD) -> DD:
    s = x[0] + x[1]
    return s, (x[0] - s) + x[1]


# -- functions --------------------------------------------------------------------------

_EXP_POLY = (+0.2081276378237164457e-8, +0.2511210703042288022e-7,
             +0.2755762628169491192e-6, +0.2755723402025388239e-5,
             +0.2480158687479686264e-4, +0.1984126989855865850e-3,
             +0.1388888888914497797e-2, +0.8333333333314938210e-2,
             +0.4166666666666602598e-1, +0.1666666666666669072e+0)


def _powers(s: np.ndarray, n: int) -> list[np.ndarray]:
    out = [s]
    for _ in range(n - 1):
        out.append(out[-1] * out[-1])
    return out


def exp(d: np.ndarray) -> np.ndarray:
    """Sleef_expd4_u10 (xexp, FMA build)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        u = np.rint(d * _R_LN2)
        q = rint_i32(u)
        s = fma(u, -_L2U, d)
        s = fma(u, -_L2L, s)
        u = poly(_powers(s, 4), _EXP_POLY)
        u = fma(u, s, 0.5)
        u = fma(u, s, 1.0)
        u = fma(u, s, 1.0)
        u = ldexp2(u, np.clip(q, -2100, 2100))
        u[d > 709.78271114955742909217217426] = np.inf
        u[d < -1000] = 0
        u[np.isnan(d)] = np.nan
    return u


_EXPK2_POLY = (+0.1602472219709932072e-9, +0.2092255183563157007e-8,
               +0.2505230023782644465e-7, +0.2755724800902135303e-6,
               +0.2755731892386044373e-5, +0.2480158735605815065e-4,
               +0.1984126984148071858e-3, +0.1388888888886763255e-2,
               +0.8333333333333347095e-2, +0.4166666666666669905e-1)


def expk2(d: DD) -> DD:
    """expk2: exp of a double-double as a double-double (expm1, tanh)."""
    dq = np.rint((d[0] + d[1]) * _R_LN2)
    q = np.clip(rint_i32(dq), -2100, 2100)
    s = dd_add2_dd_d(d, dq * -_L2U)
    s = dd_add2_dd_d(s, dq * -_L2L)
    s2 = dd_squ(s)
    s4 = dd_squ(s2)
    s8 = s4[0] * s4[0]
    u = poly([s[0], s2[0], s4[0], s8], _EXPK2_POLY)
    t = dd_add_d_dd(0.5, dd_mul_dd_d(s, 0.1666666666666666574e+0))
    t = dd_add_d_dd(1.0, dd_mul_dd(t, s))
    t = dd_add_d_dd(1.0, dd_mul_dd(t, s))
    t = dd_add_dd(t, dd_mul_dd_d(s4, u))
    tx, ty = ldexp2(t[0], q), ldexp2(t[1], q)
    small = d[0] < -1000
    tx[small] = 0
    ty[small] = 0
    return tx, ty


def expm1(a: np.ndarray) -> np.ndarray:
    """Sleef_expm1d4_u10 (xexpm1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        dx, dy = dd_add2_dd_d(expk2((a, np.zeros_like(a))), -1.0)
        x = dx + dy
        x[a > 709.782712893383996732223] = np.inf
        x[a < -36.736800569677101399113302437] = -1
        x[(a == 0) & np.signbit(a)] = -0.0
    return x


def tanh(x: np.ndarray) -> np.ndarray:
    """Sleef_tanhd4_u10 (xtanh)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = np.abs(x)
        d = expk2((y, np.zeros_like(y)))
        e = dd_rec(d)
        d = dd_div(dd_add2_dd(d, (-e[0], -e[1])), dd_add2_dd(d, e))
        y = d[0] + d[1]
        y[(np.abs(x) > 18.714973875) | np.isnan(y)] = 1.0
        y = mulsign(y, x)
        y[np.isnan(x)] = np.nan
    return y


def _hyperbolic(x: np.ndarray, sign: float) -> np.ndarray:
    """(e^|x| + sign * e^-|x|) / 2 in double-double (xsinh: ddsub, xcosh: ddadd)."""
    y = np.abs(x)
    d = expk2((y, np.zeros_like(y)))
    e = dd_rec(d)
    d = dd_add_dd(d, e if sign > 0 else (-e[0], -e[1]))  # (ddsub is ddadd of the negation)
    y = (d[0] + d[1]) * 0.5
    y[(np.abs(x) > 710) | np.isnan(y)] = np.inf
    return y


def sinh(x: np.ndarray) -> np.ndarray:
    """Sleef_sinhd4_u10 (xsinh)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = mulsign(_hyperbolic(x, -1), x)
        y[np.isnan(x)] = np.nan
    return y


def cosh(x: np.ndarray) -> np.ndarray:
    """Sleef_coshd4_u10 (xcosh)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = _hyperbolic(x, 1)
        y[np.isnan(x)] = np.nan
    return y


_ATAN2_POLY = (1.06298484191448746607415e-05, -0.000125620649967286867384336,
               0.00070557664296393412389774, -0.00251865614498713360352999,
               0.00646262899036991172313504, -0.0128281333663399031014274,
               0.0208024799924145797902497, -0.0289002344784740315686289,
               0.0359785005035104590853656, -0.041848579703592507506027,
               0.0470843011653283988193763, -0.0524914210588448421068719,
               0.0587946590969581003860434, -0.0666620884778795497194182,
               0.0769225330296203768654095, -0.0909090442773387574781907)
_ATAN2_TAIL = (0.111111108376896236538123, -0.142857142756268568062339,
               0.199999999997977351284817, -0.333333333333317605173818)
_HALF_PI_DD = (1.570796326794896557998982, 6.12323399573676603586882e-17)


def _atan2k_u1(y: DD, x: DD) -> DD:
    """atan2k_u1: atan(y / x) for y >= 0 in double-double, folded into [0, pi/4] by the
    quadrant count q (x < 0: -2, then +1 where x < y)."""
    negative = x[0] < 0
    q = np.where(negative, -2, 0)
    x = (np.where(negative, -x[0], x[0]), np.where(negative, -x[1], x[1]))
    p = x[0] < y[0]
    q = np.where(p, q + 1, q)
    s = (np.where(p, -x[0], y[0]), np.where(p, -x[1], y[1]))
    t = (np.where(p, y[0], x[0]), np.where(p, y[1], x[1]))
    s = dd_div(s, t)
    t = dd_normalize(dd_squ(s))
    u = poly(_powers(t[0], 4), _ATAN2_POLY)
    for c in _ATAN2_TAIL:
        u = fma(u, t[0], c)
    t = dd_add_dd(s, dd_mul_dd_d(dd_mul_dd(s, t), u))
    return dd_add_dd(dd_mul_dd_d(_HALF_PI_DD, q.astype(np.float64)), t)


def atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Sleef_atan2d4_u10 (xatan2_u1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        tiny = np.abs(x) < 5.5626846462680083984e-309  # (nexttoward(1 / DBL_MAX, 1))
        x = np.where(tiny, x * float(1 << 53), x)
        y = np.where(tiny, y * float(1 << 53), y)
        zero = np.zeros_like(x)
        d = _atan2k_u1((np.abs(y), zero), (x, zero))
        r = mulsign(d[0] + d[1], x)
        x_inf = np.isinf(x)
        r = np.where(x_inf | (x == 0),
                     math.pi / 2 - np.where(x_inf, mulsign(np.full_like(x, math.pi / 2), x), 0),
                     r)
        r = np.where(np.isinf(y),
                     math.pi / 2 - np.where(x_inf, mulsign(np.full_like(x, math.pi / 4), x), 0),
                     r)
        r = np.where(y == 0, np.where(np.signbit(x), math.pi, 0.0), r)
        return np.where(np.isnan(x) | np.isnan(y), np.nan, mulsign(r, y))


def _dd_add2_d_dd(x: np.ndarray, y: DD) -> DD:
    """ddadd2_vd2_vd_vd2 (any order)."""
    s = x + y[0]
    v = s - x
    return s, ((x - (s - v)) + (y[0] - v)) + y[1]


def _dd_where(o: np.ndarray, a: DD | tuple[float, float], b: DD | tuple[float, float]) -> DD:
    """vsel_vd2_vo_vd2_vd2."""
    return np.where(o, a[0], b[0]), np.where(o, a[1], b[1])


def _ilogbk(d: np.ndarray) -> np.ndarray:
    """vilogbk_vi_vd: the exponent of a positive d, subnormals scaled up first."""
    tiny = d < 4.9090934652977266e-91
    d = np.where(tiny, 2.037035976334486e90 * d, d)
    q = (d.view(np.int64) >> 52) & 0x7FF
    return q - np.where(tiny, 300 + 0x3FF, 0x3FF)


_LOGK2_POLY = (0.13860436390467167910856, 0.131699838841615374240845,
               0.153914168346271945653214, 0.181816523941564611721589,
               0.22222224632662035403996, 0.285714285511134091777308,
               0.400000000000914013309483)


def _logk2(d: DD) -> DD:
    """logk2: log of a positive double-double, as a double-double."""
    e = _ilogbk(d[0] * (1.0 / 0.75))
    m = (ldexp2(d[0], -e), ldexp2(d[1], -e))
    x = dd_div(dd_add2_dd_d(m, -1.0), dd_add2_dd_d(m, 1.0))
    x2 = dd_squ(x)
    t = poly(_powers(x2[0], 3), _LOGK2_POLY)
    t = fma(t, x2[0], 0.666666666666664853302393)
    s = dd_mul_dd_d(_LN2_DD, e.astype(np.float64))
    s = dd_add_dd(s, (x[0] * 2, x[1] * 2))
    return dd_add_dd(s, dd_mul_dd_d(dd_mul_dd(x2, x), t))


_SINPI = ((9.94480387626843774090208e-16, -2.02461120785182399295868e-14),
          (-3.89796226062932799164047e-13, 6.948218305801794613277840e-12),
          (1.150115825399960352669010e-10, -1.75724749952853179952664e-09),
          (-2.46113695010446974953590e-08, 3.133616889668683928784220e-07),
          (3.590860448590527540050620e-06, -3.65762041821615519203610e-05),
          (-0.000325991886927389905997954, 0.0024903945701927185027435600))


def _sinpik(d: np.ndarray) -> DD:
    """sinpik: sin(pi d) as a double-double."""
    u = d * 4.0
    q = np.trunc(u).astype(np.int32)  # (|d| < 2^28 here)
    q = (q + (((q >> 31) & 1) ^ 1)) & ~1
    o = (q & 2) == 2
    s = u - q.astype(np.float64)
    t = s
    s = s * s
    s2 = two_prod(t, t)
    u = np.where(o, *_SINPI[0])
    for c in _SINPI[1:]:
        u = fma(u, s, np.where(o, *c))
    x = _dd_add2_d_dd(u * s, _dd_where(o, (0.0158543442438155018914259,
                                           -1.04693272280631521908845e-18),
                                       (-0.0807455121882807852484731,
                                        3.61852475067037104849987e-18)))
    x = dd_add2_dd(dd_mul_dd(s2, x), _dd_where(o, (-0.308425137534042437259529,
                                                   -1.95698492133633550338345e-17),
                                               (0.785398163397448278999491,
                                                3.06287113727155002607105e-17)))
    x = dd_mul_dd(x, _dd_where(o, s2, (t, np.zeros_like(t))))
    x = _dd_where(o, dd_add2_dd_d(x, 1.0), x)
    flip = (q & 4) == 4
    return np.where(flip, -x[0], x[0]), np.where(flip, -x[1], x[1])


# gammak's polynomial per lane: Stirling (x >= 2.3), about 1 (0.5 <= x <= 1.1), about 2
_GAMMA_U = ((-156.801412704022726379848862, +0.2947916772827614196e+2, +0.7074816000864609279e-7),
            (+1.120804464289911606838558160000, +0.1281459691827820109e+3,
             +0.4009244333008730443e-6),
            (+13.39798545514258921833306020000, +0.2617544025784515043e+3,
             +0.1040114641628246946e-5),
            (-0.116546276599463200848033357000, +0.3287022855685790432e+3,
             +0.1508349150733329167e-5),
            (-1.391801093265337481495562410000, +0.2818145867730348186e+3,
             +0.1288143074933901020e-5),
            (+0.015056113040026424412918973400, +0.1728670414673559605e+3,
             +0.4744167749884993937e-6),
            (+0.179540117061234856098844714000, +0.7748735764030416817e+2,
             -0.6554816306542489902e-7),
            (-0.002481743600264997730942489280, +0.2512856643080930752e+2,
             -0.3189252471452599844e-6),
            (-0.029527880945699120504851034100, +0.5766792106140076868e+1,
             +0.1358883821470355377e-6),
            (+0.000540164767892604515196325186, +0.7270275473996180571e+0,
             -0.4343931277157336040e-6),
            (+0.006403362833808069794787256200, +0.8396709124579147809e-1,
             +0.9724785897406779555e-6),
            (-0.000162516262783915816896611252, -0.8211558669746804595e-1,
             -0.2036886057225966011e-5),
            (-0.001914438498565477526465972390, +0.6828831828341884458e-1,
             +0.4373363141819725815e-5),
            (+7.20489541602001055898311517e-05, -0.7712481339961671511e-1,
             -0.9439951268304008677e-5),
            (+0.000839498720672087279971000786, +0.8337492023017314957e-1,
             +0.2050727030376389804e-4),
            (-5.17179090826059219329394422e-05, -0.9094964931456242518e-1,
             -0.4492620183431184018e-4),
            (-0.000592166437353693882857342347, +0.1000996313575929358e+0,
             +0.9945751236071875931e-4),
            (+6.97281375836585777403743539e-05, -0.1113342861544207724e+0,
             -0.2231547599034983196e-3),
            (+0.000784039221720066627493314301, +0.1255096673213020875e+0,
             +0.5096695247101967622e-3),
            (-0.000229472093621399176949318732, -0.1440498967843054368e+0,
             -0.1192753911667886971e-2),
            (-0.002681327160493827160473958490, +0.1695571770041949811e+0,
             +0.2890510330742210310e-2),
            (+0.003472222222222222222175164840, -0.2073855510284092762e+0,
             -0.7385551028674461858e-2),
            (+0.083333333333333333335592087900, +0.2705808084277815939e+0,
             +0.2058080842778455335e-1))
_GAMMA_Z = ((-0.4006856343865314862e+0, -0.6735230105319810201e-1),
            (+0.8224670334241132030e+0, +0.3224670334241132030e+0),
            (-0.5772156649015328655e+0, +0.4227843350984671345e+0))


def _gammak(a: np.ndarray) -> tuple[DD, DD]:
    """gammak: (log of the gamma function's main part, the factor it is divided by)."""
    zero, one = np.zeros_like(a), np.ones_like(a)
    otiny = np.abs(a) < 1e-306
    oref = a < 0.5
    x = _dd_where(otiny, (zero, zero), _dd_where(oref, dd_add2_d2(one, -a), (a, zero)))
    o0 = (0.5 <= x[0]) & (x[0] <= 1.1)
    o2 = 2.3 <= x[0]
    y = dd_normalize(dd_mul_dd(dd_add2_dd_d(x, 1.0), x))
    for k in (2.0, 3.0, 4.0):
        y = dd_normalize(dd_mul_dd(dd_add2_dd_d(x, k), y))
    o = o2 & (x[0] <= 7)
    clln = _dd_where(o, y, (one, zero))
    x = _dd_where(o, dd_add2_dd_d(x, 5.0), x)
    t = np.where(o2, 1.0 / x[0], dd_normalize(dd_add2_dd_d(x, np.where(o0, -1.0, -2.0)))[0])
    u = np.where(o2, _GAMMA_U[0][0], np.where(o0, _GAMMA_U[0][1], _GAMMA_U[0][2]))
    for c in _GAMMA_U[1:]:
        u = fma(u, t, np.where(o2, c[0], np.where(o0, c[1], c[2])))
    y = dd_mul_dd(dd_add2_dd_d(x, -0.5), _logk2(x))
    y = dd_add2_dd(y, (-x[0], -x[1]))
    y = dd_add2_dd(y, (0.91893853320467278056, -3.8782941580672414498e-17))  # log(2 pi) / 2
    z = dd_add2_dd_d(two_prod(u, t), np.where(o0, *_GAMMA_Z[0]))
    z = dd_add2_dd_d(dd_mul_dd_d(z, t), np.where(o0, *_GAMMA_Z[1]))
    z = dd_add2_dd_d(dd_mul_dd_d(z, t), np.where(o0, *_GAMMA_Z[2]))
    z = dd_mul_dd_d(z, t)
    clc = _dd_where(o2, y, z)
    clld = _dd_where(o2, dd_add2_dd_d(two_prod(u, t), 1.0), (one, zero))
    y = clln
    log_pi = dd_add2_dd((1.1447298858494001639, 1.026595116270782638e-17), (-clc[0], -clc[1]))
    clc = _dd_where(otiny, (83.1776616671934334590333, 3.67103459631568507221878e-15),  # 2^120
                    _dd_where(oref, log_pi, clc))
    clln = _dd_where(otiny, (one, zero), _dd_where(oref, clln, clld))
    cut = np.trunc(a * (1.0 / (1 << 28)))  # (vtruncate_vi_vd: huge and NaN lanes are garbage)
    t = a - float(1 << 28) * np.where(np.abs(cut) < 2.0 ** 31, cut, -2.0 ** 31)
    x = dd_mul_dd(clld, _sinpik(t))
    clld = _dd_where(otiny, (a * 2.0 ** 120, zero), _dd_where(oref, x, y))
    return clc, dd_div(clln, clld)


def lgamma(a: np.ndarray) -> np.ndarray:
    """Sleef_lgammad4_u10 (xlgamma_u1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        clc, ratio = _gammak(a)
        y = dd_add2_dd(clc, _logk2((np.abs(ratio[0]), mulsign(ratio[1], ratio[0]))))
        r = y[0] + y[1]
        pole = np.isinf(a) | ((a <= 0) & (np.trunc(a) == a)) | (np.isfinite(a) & np.isnan(r))
        r[pole] = np.inf
    return r


_EXP2_POLY = (+0.4434359082926529454e-9, +0.7073164598085707425e-8,
              +0.1017819260921760451e-6, +0.1321543872511327615e-5,
              +0.1525273353517584730e-4, +0.1540353045101147808e-3,
              +0.1333355814670499073e-2, +0.9618129107597600536e-2,
              +0.5550410866482046596e-1, +0.2402265069591012214e+0)


def exp2(d: np.ndarray) -> np.ndarray:
    """Sleef_exp2d4_u10 (xexp2, FMA build)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        u = np.rint(d)
        q = rint_i32(u)
        s = d - u
        u = poly(_powers(s, 4), _EXP2_POLY)
        u = fma(u, s, +0.6931471805599452862e+0)
        u = fma(u, s, 1.0)
        u = ldexp2(u, np.clip(q, -2100, 2100))  # (out-of-range lanes are replaced below)
        u[d >= 1024] = np.inf
        u[d < -2000] = 0
    return u


def atanh(x: np.ndarray) -> np.ndarray:
    """Sleef_atanhd4_u10 (xatanh)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = np.abs(x)
        one = np.ones_like(y)
        d = _logk2(dd_div(dd_add2_d2(one, y), dd_add2_d2(one, -y)))
        y = np.where(y == 1, np.inf, (d[0] + d[1]) * 0.5)
        y[np.abs(x) > 1] = np.nan
        y = mulsign(y, x)
        y[np.isinf(x) | np.isnan(y) | np.isnan(x)] = np.nan
    return y


def _ln2_dd(like: np.ndarray) -> DD:
    return np.full_like(like, _LN2_DD[0]), np.full_like(like, _LN2_DD[1])


_LOG1P_POLY = (0.1532076988502701353e+0, 0.1525629051003428716e+0,
               0.1818605932937785996e+0, 0.2222214519839380009e+0,
               0.2857142932794299317e+0, 0.3999999999635251990e+0,
               0.6666666666667333541e+0)


def log1p(d: np.ndarray) -> np.ndarray:
    """Sleef_log1pd4_u10 (xlog1p)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        dp1 = d + 1.0
        o = dp1 < _DBL_MIN
        dp1 = np.where(o, dp1 * _TWO64, dp1)
        e = ilogb2k(dp1 * (1.0 / 0.75))
        t = ldexp3(np.ones_like(d), -e)
        m = fma(d, t, t - 1.0)
        e = np.where(o, e - 64, e)
        s = dd_mul_dd_d(_ln2_dd(d), e.astype(np.float64))
        x = dd_div((m, np.zeros_like(m)), dd_add_d2(np.full_like(m, 2.0), m))
        x2 = x[0] * x[0]
        x4 = x2 * x2
        t = poly([x2, x4, x4 * x4], _LOG1P_POLY)
        s = dd_add_dd(s, (x[0] * 2.0, x[1] * 2.0))
        s = dd_add_dd_d(s, x2 * x[0] * t)
        r = s[0] + s[1]
        big = d > 1e+307  # past it the core approximation is replaced by log (measured)
        if big.any():
            r[big] = log(d[big])
        r[(d < -1) | np.isnan(d)] = np.nan
        r[d == -1] = -np.inf
        r[(d == 0) & np.signbit(d)] = -0.0
    return r


def _log_argument(d: np.ndarray) -> tuple[np.ndarray, DD]:
    """The reduction xlog_u1 and logk share: d = m 2^e with m in [0.75, 1.5) (subnormals
    scaled up by 2^64 first), and x = (m - 1) / (m + 1) as a double-double."""
    o = d < _DBL_MIN
    d = np.where(o, d * _TWO64, d)
    e = ilogb2k(d * (1.0 / 0.75))
    m = ldexp3(d, -e)
    e = np.where(o, e - 64, e)
    return e, dd_div(dd_add2_d2(np.full_like(m, -1.0), m), dd_add2_d2(np.full_like(m, 1.0), m))


def log(d: np.ndarray) -> np.ndarray:
    """Sleef_logd4_u10 (xlog_u1)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        e, x = _log_argument(d)
        x2 = x[0] * x[0]
        x4 = x2 * x2
        t = poly([x2, x4, x4 * x4], _LOG1P_POLY)
        s = dd_mul_dd_d(_ln2_dd(d), e.astype(np.float64))
        s = dd_add_dd(s, (x[0] * 2.0, x[1] * 2.0))
        s = dd_add_dd_d(s, x2 * x[0] * t)
        r = s[0] + s[1]
        r[d == np.inf] = np.inf
        r[(d < 0) | np.isnan(d)] = np.nan
        r[d == 0] = -np.inf
    return r


_LOGK_POLY = (0.116255524079935043668677, 0.103239680901072952701192,
              0.117754809412463995466069, 0.13332981086846273921509,
              0.153846227114512262845736, 0.181818180850050775676507,
              0.222222222230083560345903, 0.285714285714249172087875,
              0.400000000000000077715612)
_LOGK_C = (0.666666666666666629659233, 3.80554962542412056336616e-17)


def logk(d: np.ndarray) -> DD:
    """logk: log of a positive double as a double-double (pow)."""
    e, x = _log_argument(d)
    x2 = dd_squ(x)
    x4 = x2[0] * x2[0]
    x8 = x4 * x4
    t = poly([x2[0], x4, x8, x8 * x8], _LOGK_POLY)
    s = dd_mul_dd_d(_ln2_dd(d), e.astype(np.float64))
    s = dd_add_dd(s, (x[0] * 2.0, x[1] * 2.0))
    x = dd_mul_dd(x2, x)
    s = dd_add_dd(s, dd_mul_dd(x, (np.full_like(d, _LOGK_C[0]), np.full_like(d, _LOGK_C[1]))))
    x = dd_mul_dd(x2, x)
    return dd_add_dd(s, dd_mul_dd_d(x, t))


_EXPK_POLY = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
              2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
              0.000198412698809069797676111, 0.0013888888939977128960529,
              0.00833333333332371417601081, 0.0416666666665409524128449,
              0.166666666666666740681535, 0.500000000000000999200722)


def expk(d: DD) -> np.ndarray:
    """expk: exp of a double-double as a double (pow)."""
    dq = np.rint((d[0] + d[1]) * _R_LN2)
    q = np.clip(rint_i32(dq), -2100, 2100)
    s = dd_add2_dd_d(d, dq * -_L2U)
    s = dd_add2_dd_d(s, dq * -_L2L)
    s = dd_normalize(s)
    s2 = s[0] * s[0]
    s4 = s2 * s2
    u = poly([s[0], s2, s4, s4 * s4], _EXPK_POLY)
    t = dd_add_d_dd(1.0, s)
    t = dd_add_dd(t, dd_mul_dd_d(dd_squ(s), u))
    u = ldexp2(t[0] + t[1], q)
    u[d[0] < -1000] = 0
    return u


def _isint(y: np.ndarray) -> np.ndarray:
    return (np.trunc(y) == y) | (np.abs(y) > 2.0 ** 52)


def pow(x: np.ndarray, y: np.ndarray | float) -> np.ndarray:  # noqa: A001
    """Sleef_powd4_u10 (xpow)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        y = np.broadcast_to(np.asarray(y, np.float64), x.shape)
        yisint = _isint(y) | np.isinf(y)
        half = y * 0.5
        yisodd = ~_isint(half) & yisint & ~np.isinf(y)
        d = dd_mul_dd_d(logk(np.abs(x)), y)
        result = expk(d)
        result = np.where(d[0] > 709.78271114955742909217217426, np.inf, result)
        result = result * np.where(x > 0, 1.0, np.where(yisint, np.where(yisodd, -1.0, 1.0),
                                                        np.nan))
        efx = mulsign(np.abs(x) - 1.0, y)
        result = np.where(np.isinf(y), np.where(efx < 0, 0.0, np.where(efx == 0, 1.0, np.inf)),
                          result)
        edge = np.where(np.signbit(y) ^ (x == 0), 0.0, np.inf)
        edge = mulsign(edge, np.where(yisodd, x, 1.0))
        result = np.where(np.isinf(x) | (x == 0), edge, result)
        result = np.where(np.isnan(x) | np.isnan(y), np.nan, result)
        result = np.where((y == 0) | (x == 1), 1.0, result)
    return result


# xerf_u1's two polynomials (x <= 2.5 | x > 2.5), highest coefficient first, and the
# double-double coefficients of its poly4dd
_ERF_POLY = ((-0.2083271002525222097e-14, -0.4024015130752621932e-18),
             (+0.7151909970790897009e-13, +0.3847193332817048172e-16),
             (-0.1162238220110999364e-11, -0.1749316241455644088e-14),
             (+0.1186474230821585259e-10, +0.5029618322872872715e-13),
             (-0.8499973178354613440e-10, -0.1025221466851463164e-11),
             (+0.4507647462598841629e-9, +0.1573695559331945583e-10),
             (-0.1808044474288848915e-8, -0.1884658558040203709e-9),
             (+0.5435081826716212389e-8, +0.1798167853032159309e-8),
             (-0.1143939895758628484e-7, -0.1380745342355033142e-7),
             (+0.1215442362680889243e-7, +0.8525705726469103499e-7),
             (+0.1669878756181250355e-7, -0.4160448058101303405e-6),
             (-0.9808074602255194288e-7, +0.1517272660008588485e-5),
             (+0.1389000557865837204e-6, -0.3341634127317201697e-5),
             (+0.2945514529987331866e-6, -0.2515023395879724513e-5),
             (-0.1842918273003998283e-5, +0.6539731269664907554e-4),
             (+0.3417987836115362136e-5, -0.3551065097428388658e-3),
             (+0.3860236356493129101e-5, +0.1210736097958368864e-2),
             (-0.3309403072749947546e-4, -0.2605566912579998680e-2),
             (+0.1060862922597579532e-3, +0.1252823202436093193e-2),
             (+0.2323253155213076174e-3, +0.1820191395263313222e-1),
             (+0.1490149719145544729e-3, -0.1021557155453465954e+0))
_ERF_DD = (((0.0092877958392275604405, 7.9287559463961107493e-19),
            (-0.63691044383641748361, -2.4249477526539431839e-17)),
           ((0.042275531758784692937, 1.3785226620501016138e-19),
            (-1.1282926061803961737, -6.2970338860410996505e-17)),
           ((0.07052369794346953491, 9.5846628070792092842e-19),
            (-1.2261313785184804967e-05, -5.5329707514490107044e-22)))


def _select(o: np.ndarray, pair: tuple[float, float]) -> np.ndarray:
    return np.where(o, pair[0], pair[1])


def _dd_mla(x: np.ndarray, y: DD, z: DD) -> DD:
    """ddmla_vd2_vd_vd2_vd2: z + y * x."""
    return dd_add_dd(z, dd_mul_dd_d(y, x))


def erf(a: np.ndarray) -> np.ndarray:
    """Sleef_erfd4_u10 (xerf_u1): each lane takes the polynomial of its own range."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        x = np.abs(a)
        x2 = x * x
        x4 = x2 * x2
        x8 = x4 * x4
        o25 = x <= 2.5
        t = poly([x, x2, x4, x8, x8 * x8], [_select(o25, c) for c in _ERF_POLY])
        c2, c1, c0 = ((_select(o25, (near[0], far[0])), _select(o25, (near[1], far[1])))
                      for near, far in _ERF_DD)
        zero = np.zeros_like(x)
        t2 = _dd_mla(x2, _dd_mla(x, (t, zero), c2), _dd_mla(x, c1, c0))
        s2 = dd_add_d_dd(1.0, dd_mul_dd_d(t2, x))
        for _ in range(4):
            s2 = dd_squ(s2)
        s2 = dd_rec(s2)
        if not o25.all():
            far = ~o25
            s2[0][far] = expk((t2[0][far], t2[1][far]))
            s2[1][far] = 0.0
        t2 = dd_add2_dd_d(s2, -1.0)
        z = -(t2[0] + t2[1])
        z = np.where(x < 1e-8, x * 1.12837916709551262756245475959, z)
        z = np.where(x >= 6, 1.0, z)
        z = np.where(np.isinf(a), 1.0, z)
        z = np.where(a == 0, 0.0, z)
        return mulsign(z, a)


def _dd_sqrt(d: DD) -> DD:
    """ddsqrt_vd2_vd2: t = sqrt(d.x + d.y), then (d + t·t) · ddrec(t) / 2, ddrec(t) =
    (s, s · fma(-t, s, 1)) with s = 1/t."""
    t = np.sqrt(d[0] + d[1])
    s = 1.0 / t
    x, y = dd_mul_dd(dd_add2_dd(d, two_prod(t, t)), (s, s * fma(-t, s, 1.0)))
    return x * 0.5, y * 0.5


def hypot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sleef_hypotd4_u05 (xhypot_u05): max · sqrt(1 + (min/max)²) in double-double."""
    x, y = np.abs(x), np.abs(y)
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    tiny = hi < _DBL_MIN
    n = np.where(tiny, lo * 2.0 ** 54, lo)
    d = np.where(tiny, hi * 2.0 ** 54, hi)
    zero = np.zeros_like(n)
    with np.errstate(all="ignore"):
        t = dd_div((n, zero), (d, zero))
        t = dd_mul_dd_d(_dd_sqrt(dd_add2_dd_d(dd_squ(t), 1.0)), hi)
        ret = t[0] + t[1]
    ret = np.where(np.isnan(ret), np.inf, ret)
    ret = np.where(lo == 0, hi, ret)
    ret = np.where(np.isnan(x) | np.isnan(y), np.nan, ret)
    return np.where((x == np.inf) | (y == np.inf), np.inf, ret)
