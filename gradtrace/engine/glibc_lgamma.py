"""glibc 2.36's lgamma and lgammaf (sysdeps/ieee754/{dbl-64,flt-32}/e_lgamma*_r.c,
fdlibm's) for positive arguments: IEEE operations without contraction, as glibc is built,
with glibc's log (CPython's math.log calls it) and logf (gradtrace's port). CPython's own
math.lgamma is a different algorithm; torch's scalar kernels (igamma, igammac) call these.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from . import glibc

_A = (7.72156649015328655494e-02, 3.22467033424113591611e-01, 6.73523010531292681824e-02,
      2.05808084325167332806e-02, 7.38555086081402883957e-03, 2.89051383673415629091e-03,
      1.19270763183362067845e-03, 5.10069792153511336608e-04, 2.20862790713908385557e-04,
      1.08011567247583939954e-04, 2.52144565451257326939e-05, 4.48640949618915160150e-05)
_TC = 1.46163214496836224576e+00
_TF = -1.21486290535849611461e-01
_TT = -3.63867699703950536541e-18
_T = (4.83836122723810047042e-01, -1.47587722994593911752e-01, 6.46249402391333854778e-02,
      -3.27885410759859649565e-02, 1.79706750811820387126e-02, -1.03142241298341437450e-02,
      6.10053870246291332635e-03, -3.68452016781138256760e-03, 2.25964780900612472250e-03,
      -1.40346469989232843813e-03, 8.81081882437654011382e-04, -5.38595305356740546715e-04,
      3.15632070903625950361e-04, -3.12754168375120860518e-04, 3.35529192635519073543e-04)
_U = (-7.72156649015328655494e-02, 6.32827064025093366517e-01, 1.45492250137234768737e+00,
      9.77717527963372745603e-01, 2.28963728064692451092e-01, 1.33810918536787660377e-02)
_V = (2.45597793713041134822e+00, 2.12848976379893395361e+00, 7.69285150456672783825e-01,
      1.04222645593369134254e-01, 3.21709242282423911810e-03)
_S = (-7.72156649015328655494e-02, 2.14982415960608852501e-01, 3.25778796408930981787e-01,
      1.46350472652464452805e-01, 2.66422703033638609560e-02, 1.84028451407337715652e-03,
      3.19475326584100867617e-05)
_R = (1.39200533467621045958e+00, 7.21935547567138069525e-01, 1.71933865632803078993e-01,
      1.86459191715652901344e-02, 7.77942496381893596434e-04, 7.32668430744625636189e-06)
_W = (4.18938533204672725052e-01, 8.33333333333329678849e-02, -2.77777777728775536470e-03,
      7.93650558643019558500e-04, -5.95187557450339963135e-04, 8.36339918996282139126e-04,
      -1.63092934096575273989e-03)


def _words(x: float) -> tuple[int, int]:
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    return bits >> 32, bits & 0xFFFFFFFF


def _nested(y: float, coefficients: tuple[float, ...]) -> float:
    """c0 + y*(c1 + y*(c2 + ...)), innermost first."""
    acc = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        acc = c + y * acc
    return acc


def lgamma_positive(x: float) -> float:
    """__ieee754_lgamma_r for 0 < x (finite or not); callers take negative x elsewhere."""
    hx, lx = _words(x)
    ix = hx & 0x7FFFFFFF
    if ix >= 0x7FF00000:
        return x * x
    if (ix | lx) == 0:
        return math.inf
    if ix < 0x3B900000:  # |x| < 2**-70
        return -math.log(x)
    if ((ix - 0x3FF00000) | lx) == 0 or ((ix - 0x40000000) | lx) == 0:
        return 0.0
    if ix < 0x40000000:  # x < 2
        if ix <= 0x3FECCCCC:  # lgamma(x) = lgamma(x + 1) - log(x)
            r = -math.log(x)
            if ix >= 0x3FE76944:
                y, i = 1.0 - x, 0
            elif ix >= 0x3FCDA661:
                y, i = x - (_TC - 1.0), 1
            else:
                y, i = x, 2
        else:
            r = 0.0
            if ix >= 0x3FFBB4C3:
                y, i = 2.0 - x, 0
            elif ix >= 0x3FF3B4C4:
                y, i = x - _TC, 1
            else:
                y, i = x - 1.0, 2
        if i == 0:
            z = y * y
            p1 = _nested(z, _A[0::2])
            p2 = z * _nested(z, _A[1::2])
            p = y * p1 + p2
            return r + (p - 0.5 * y)
        if i == 1:
            z = y * y
            w = z * y
            p1 = _nested(w, _T[0::3])
            p2 = _nested(w, _T[1::3])
            p3 = _nested(w, _T[2::3])
            p = z * p1 - (_TT - w * (p2 + y * p3))
            return r + (_TF + p)
        p1 = y * _nested(y, _U)
        p2 = 1.0 + y * _nested(y, _V)
        return r + (-0.5 * y + p1 / p2)
    if ix < 0x40200000:  # x < 8
        i = int(x)
        y = x - float(i)
        p = y * _nested(y, _S)
        q = 1.0 + y * _nested(y, _R)
        r = 0.5 * y + p / q
        z = 1.0
        for k in range(i - 1, 1, -1):  # case 7 .. 3, falling through
            z *= y + float(k)
        if i >= 3:
            r += math.log(z)
        return r
    if ix < 0x43900000:  # x < 2**58
        t = math.log(x)
        z = 1.0 / x
        y = z * z
        w = _W[0] + z * _nested(y, _W[1:])
        return (x - 0.5) * (t - 1.0) + w
    return x * (math.log(x) - 1.0)


# e_lgammaf_r.c: the same algorithm in float, with its own (float) constants
_F = np.float32
_AF = tuple(_F(c) for c in (
    7.7215664089e-02, 3.2246702909e-01, 6.7352302372e-02, 2.0580807701e-02, 7.3855509982e-03,
    2.8905137442e-03, 1.1927076848e-03, 5.1006977446e-04, 2.2086278477e-04, 1.0801156895e-04,
    2.5214456400e-05, 4.4864096708e-05))
_TCF, _TFF, _TTF = _F(1.4616321325e+00), _F(-1.2148628384e-01), _F(6.6971006518e-09)
_TF32 = tuple(_F(c) for c in (
    4.8383611441e-01, -1.4758771658e-01, 6.4624942839e-02, -3.2788541168e-02, 1.7970675603e-02,
    -1.0314224288e-02, 6.1005386524e-03, -3.6845202558e-03, 2.2596477065e-03, -1.4034647029e-03,
    8.8108185446e-04, -5.3859531181e-04, 3.1563205994e-04, -3.1275415677e-04, 3.3552918467e-04))
_UF = tuple(_F(c) for c in (-7.7215664089e-02, 6.3282704353e-01, 1.4549225569e+00,
                             9.7771751881e-01, 2.2896373272e-01, 1.3381091878e-02))
_VF = tuple(_F(c) for c in (2.4559779167e+00, 2.1284897327e+00, 7.6928514242e-01,
                             1.0422264785e-01, 3.2170924824e-03))
_SF = tuple(_F(c) for c in (-7.7215664089e-02, 2.1498242021e-01, 3.2577878237e-01,
                             1.4635047317e-01, 2.6642270386e-02, 1.8402845599e-03,
                             3.1947532989e-05))
_RF = tuple(_F(c) for c in (1.3920053244e+00, 7.2193557024e-01, 1.7193385959e-01,
                             1.8645919859e-02, 7.7794247773e-04, 7.3266842264e-06))
_WF = tuple(_F(c) for c in (4.1893854737e-01, 8.3333335817e-02, -2.7777778450e-03,
                             7.9365057172e-04, -5.9518753551e-04, 8.3633989561e-04,
                             -1.6309292987e-03))


def _logf(x: np.float32) -> np.float32:
    return _F(glibc.logf(np.asarray([x], _F))[0])


def lgammaf_positive(x: np.float32) -> np.float32:
    """__ieee754_lgammaf_r for 0 < x, in float operations and glibc's logf."""
    x = _F(x)
    one = _F(1)
    ix = int(np.asarray(x).view(np.int32)) & 0x7FFFFFFF
    with np.errstate(all="ignore"):
        if ix >= 0x7F800000:
            return x * x
        if ix == 0:
            return _F(np.inf)
        if ix < 0x30800000:  # x < 2**-30
            return -_logf(x)
        if ix in (0x3F800000, 0x40000000):
            return _F(0)
        if ix < 0x40000000:
            if ix <= 0x3F666666:
                r = -_logf(x)
                if ix >= 0x3F3B4A20:
                    y, i = one - x, 0
                elif ix >= 0x3E6D3308:
                    y, i = x - (_TCF - one), 1
                else:
                    y, i = x, 2
            else:
                r = _F(0)
                if ix >= 0x3FDDA618:
                    y, i = _F(2) - x, 0
                elif ix >= 0x3F9DA620:
                    y, i = x - _TCF, 1
                else:
                    y, i = x - one, 2
            if i == 0:
                z = y * y
                p = y * _nested(z, _AF[0::2]) + z * _nested(z, _AF[1::2])
                return r + (p - _F(0.5) * y)
            if i == 1:
                z = y * y
                w = z * y
                p1, p2, p3 = (_nested(w, _TF32[k::3]) for k in range(3))
                p = z * p1 - (_TTF - w * (p2 + y * p3))
                return r + (_TFF + p)
            p1 = y * _nested(y, _UF)
            p2 = one + y * _nested(y, _VF)
            return r + (-_F(0.5) * y + p1 / p2)
        if ix < 0x41000000:  # x < 8
            i = int(x)
            y = x - _F(i)
            r = _F(0.5) * y + (y * _nested(y, _SF)) / (one + y * _nested(y, _RF))
            z = one
            for k in range(i - 1, 1, -1):
                z = z * (y + _F(k))
            return r + _logf(z) if i >= 3 else r
        if ix < 0x4C800000:  # x < 2**26
            t = _logf(x)
            z = one / x
            y = z * z
            return (x - _F(0.5)) * (t - one) + (_WF[0] + z * _nested(y, _WF[1:]))
        return x * (_logf(x) - one)
