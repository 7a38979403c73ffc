"""The gamma family's CPU kernels as torch computes them (ATen's native/Math.h, Cephes'
algorithms), elementwise in numpy with torch's operation order:

- digamma: calc_digamma (push x up to 10 by recurrence, then the asymptotic series), in
  float32 with float operations and glibc's logf, in float64 with double ones.
- trigamma: torch's own recurrence (polygamma n = 1).
- zeta: Cephes' Hurwitz zeta (Euler-Maclaurin), in double for float64 and float32 alike
  (acc_type of float is double on CPU).
- polygamma n >= 2: (-1)^(n+1) n! zeta(n + 1, x) with n! as exp(lgamma(n + 1)).
- i0: calc_i0, Cephes' two Chebyshev expansions (|x| <= 8 and beyond).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from . import exactness, fp64, glibc

_F32 = np.float32
_F64 = np.float64

_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2,
              7.57575757575757575758E-3, -4.16666666666666666667E-3,
              3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def flat(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """`fn` evaluated on a contiguous 1-d copy of its argument and given its shape back (the
    glibc ports index their arrays, which 0-d arrays do not allow)."""
    @functools.wraps(fn)
    def run(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        return np.asarray(fn(np.ascontiguousarray(x).reshape(-1))).reshape(x.shape)
    return run


def _log(x: np.ndarray) -> np.ndarray:
    return glibc.logf(x) if x.dtype == _F32 else np.log(x)


@flat
def digamma(x: np.ndarray) -> np.ndarray:
    """calc_digamma elementwise; float32 in float operations (its reflection term in double,
    rounded to float), float64 in double."""
    t = x.dtype.type
    x = np.asarray(x)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        zero = x == 0
        negative = x < 0
        neg_int = negative & (x == np.trunc(x))
        reflect = negative & ~neg_int
        # x < 0: calc_digamma(1 - x) - pi / tan(pi * r), r = modf(x) (a double tan)
        r = np.fmod(x.astype(_F64), 1.0)
        pi_over_tan = (math.pi / np.tan(math.pi * r)).astype(x.dtype)
        v = np.where(reflect, t(1) - x, x)
        v = np.where(zero | neg_int | np.isnan(v), t(10), v)  # answered below, not iterated
        result = np.zeros_like(x)
        below = v < 10
        while below.any():
            result = np.where(below, result - t(1) / v, result)
            v = np.where(below, v + t(1), v)
            below = v < 10
        y = np.zeros_like(x)
        z = t(1) / (v * v)
        poly = np.zeros_like(x)
        for a in _DIGAMMA_A:
            poly = poly * z + t(a)
        y = np.where(v < t(1.0e17), z * poly, y)
        series = result + _log(v) - (t(0.5) / v) - y
        value = np.where(v == 10, result + t(_PSI_10), series)
        value = np.where(reflect, value - pi_over_tan, value)
        out[...] = value
        out[zero] = np.copysign(np.inf, -x[zero])
        out[neg_int | np.isnan(x)] = np.nan
    return out


@flat
def sinf(x: np.ndarray) -> np.ndarray:
    """glibc's sinf where gradtrace has its port (|x| < 120); beyond, a float64 sin rounded
    once (glibc's large-argument reduction is not ported)."""
    x = np.ascontiguousarray(x)
    near = np.abs(x) < 120
    out = np.sin(x.astype(_F64)).astype(_F32)
    if not near.all():
        exactness.note("sinf beyond |x| >= 120: a float64 sin rounded once, not glibc's")
    if near.any():
        out[near] = glibc.sinf(x[near])
    return out


@flat
def trigamma(x: np.ndarray) -> np.ndarray:
    """torch's trigamma: reflection below 1/2, six recurrence steps, then the series."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        low = x < t(0.5)
        pi = t(math.pi)
        sin_pi_x = sinf(pi * x) if x.dtype == _F32 else np.sin(pi * x)
        result = np.where(low, t(0) - (pi * pi) / (sin_pi_x * sin_pi_x), t(0)).astype(x.dtype)
        sign = np.where(low, t(-1), t(1)).astype(x.dtype)
        v = np.where(low, t(1) - x, x)
        for _ in range(6):
            result = result + t(1) / (v * v)
            v = v + t(1)
        ixx = t(1) / (v * v)
        # contracted like torch's AVX2 build: each `c - ixx * (...)` and the final `+ ixx * ...`
        # is one fused multiply-add
        inner = _fma(-ixx, np.full_like(v, t(1.0 / 42)), np.full_like(v, t(1.0 / 30)))
        inner = _fma(-ixx, inner, np.full_like(v, t(1.0 / 6)))
        result = result + _fma(ixx, inner, t(1) + t(1) / (t(2) * v)) / v
        return (sign * result).astype(x.dtype)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042E-16


def _zeta_scalar(x: float, q: float, first_pow=None) -> float:
    """Cephes' Hurwitz zeta(x, q) in double, step for step; `first_pow` is the pow of its
    first term, q^-x, which C++ takes in the scalar type (powf for float)."""
    if x == 1:
        return math.inf
    if x < 1 or math.isnan(x) or math.isnan(q):
        return math.nan
    if q <= 0:
        if math.isinf(q) or q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s = first_pow(q, -x) if first_pow is not None else c_pow(q, -x)
    a, i, b = q, 0, 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = c_pow(a, -x)
        s += b
        if -_MACHEP * s < b < _MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a, k = 1.0, 0.0
    for coefficient in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / coefficient
        s = s + t
        if s and abs(t / s) < _MACHEP:  # (C: t / 0 is ±inf or NaN, never small)
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


def c_pow(a: float, b: float) -> float:
    """C's pow: inf where Python's ** raises on overflow or a zero base."""
    try:
        return a ** b
    except (OverflowError, ZeroDivisionError):
        return math.inf


def _powf(a: float, b: float) -> float:
    with np.errstate(all="ignore"):
        return float(glibc.powf(np.asarray(a, _F32), _F32(b)))


def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta elementwise on broadcast arrays of one float dtype (computed in double)."""
    x, q = np.broadcast_arrays(x, q)
    first = _powf if x.dtype == _F32 else None
    flat = [_zeta_scalar(float(a), float(b), first) for a, b in zip(x.ravel(), q.ravel())]
    return np.asarray(flat, _F64).reshape(x.shape).astype(x.dtype)


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """calc_polygamma for n >= 2: sign × exp(lgamma(n + 1)) × zeta(n + 1, x), in x's dtype."""
    t = x.dtype.type
    sign = t(1) if n % 2 else t(-1)
    # glibc's lgamma at the integer n + 1 is log(n!) correctly rounded (CPython's is not)
    factorial = t(math.exp(t(math.log(math.factorial(n)))))
    return (sign * factorial * zeta(np.asarray(t(n + 1), x.dtype), x)).astype(x.dtype)


# Cephes' Chebyshev coefficients of exp(-|x|) I0(x): on [0, 8] in (x/2 - 2), beyond 8 in
# (32/x - 2), divided by sqrt(x) there.
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17,
         -2.43127984654795469359E-16, 1.71539128555513303061E-15,
         -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12,
         -1.72682629144155570723E-11, 9.67580903537323691224E-11,
         -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8,
         -2.67079385394061173391E-7, 1.11738753912010371815E-6,
         -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4,
         -5.76375574538582365885E-4, 1.63947561694133579842E-3,
         -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2,
         -9.49010970480476444210E-2, 1.71620901522208775349E-1,
         -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18,
         4.46562142029675999901E-17, 3.46122286769746109310E-17,
         -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15,
         -9.55484669882830764870E-15, -4.15056934728722208663E-14,
         1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12,
         -1.32158118404477131188E-11, -3.14991652796324136454E-11,
         1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8,
         2.04891858946906374183E-7, 2.89137052083475648297E-6,
         6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c with one rounding: GCC contracts it into an fma in torch's AVX2 build."""
    if a.dtype == _F32:  # the float product is exact in double; one double rounding
        return (a.astype(_F64) * b.astype(_F64) + c.astype(_F64)).astype(_F32)
    return fp64.fma(a, b, c)


def _chbevl(y: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """Clenshaw's sum of a Chebyshev series, in y's dtype."""
    t = y.dtype.type
    b0 = np.full_like(y, t(coefficients[0]))
    b1 = np.zeros_like(y)
    b2 = np.zeros_like(y)
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = _fma(y, b1, -b2) + t(c)
    return t(0.5) * (b0 - b2)


@flat
def i0e(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I0(x): calc_i0e."""
    t = x.dtype.type
    a = np.abs(x)
    with np.errstate(all="ignore"):
        near = _chbevl(a / t(2) - t(2), _I0_A)
        far = _chbevl(t(32) / a - t(2), _I0_B) / np.sqrt(a)
    return np.where(a <= t(8), near, far).astype(x.dtype)


@flat
def i0(x: np.ndarray) -> np.ndarray:
    """I0(x): calc_i0, exp(|x|) times the same expansions."""
    t = x.dtype.type
    a = np.abs(x)
    with np.errstate(all="ignore"):
        e = glibc.expf(a) if x.dtype == _F32 else glibc.exp(a)
        near = e * _chbevl(a / t(2) - t(2), _I0_A)
        far = e * _chbevl(t(32) / a - t(2), _I0_B) / np.sqrt(a)
    return np.where(a <= t(8), near, far).astype(x.dtype)


# exp(-|x|) I1(x) / x on [0, 8] and exp(-|x|) sqrt(x) I1(x) beyond; float32 drops the
# leading terms below its precision
_I1_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17,
         1.55363195773620046921E-16, -1.10559694773538630805E-15,
         7.60068429473540693410E-15, -5.04218550472791168711E-14,
         3.22379336594557470981E-13, -1.98397439776494371520E-12,
         1.17361862988909016308E-11, -6.66348972350202774223E-11,
         3.62559028155211703701E-10, -1.88724975172282928790E-9,
         9.38153738649577178388E-9, -4.44505912879632808065E-8,
         2.00329475355213526229E-7, -8.56872026469545474066E-7,
         3.47025130813767847674E-6, -1.32731636560394358279E-5,
         4.78156510755005422638E-5, -1.61760815825896745588E-4,
         5.12285956168575772895E-4, -1.51357245063125314899E-3,
         4.15642294431288815669E-3, -1.05640848946261981558E-2,
         2.47264490306265168283E-2, -5.29459812080949914269E-2,
         1.02643658689847095384E-1, -1.76416518357834055153E-1,
         2.52587186443633654823E-1)
_I1_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18,
         -4.65030536848935832153E-17, -3.20952592199342395980E-17,
         2.96262899764595013876E-16, 3.30820231092092828324E-16,
         -1.88035477551078244854E-15, -3.81440307243700780478E-15,
         1.04202769841288027642E-14, 4.27244001671195135429E-14,
         -2.10154184277266431302E-14, -4.08355111109219731823E-13,
         -7.19855177624590851209E-13, 2.03562854414708950722E-12,
         1.41258074366137813316E-11, 3.25260358301548823856E-11,
         -1.89749581235054123450E-11, -5.58974346219658380687E-10,
         -3.83538038596423702205E-9, -2.63146884688951950684E-8,
         -2.51223623787020892529E-7, -3.88256480887769039346E-6,
         -1.10588938762623716291E-4, -9.76109749136146840777E-3,
         7.78576235018280120474E-1)
_I1_A_FLOAT = _I1_A[12:]
_I1_B_FLOAT = _I1_B[18:]


def _i1_series(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|x|, and calc_i1e's two expansions before the sign: chbevl(A) |x| and
    chbevl(B) / sqrt|x|."""
    t = x.dtype.type
    single = x.dtype == _F32
    a = np.abs(x)
    near = _chbevl(a / t(2) - t(2), _I1_A_FLOAT if single else _I1_A)
    far = _chbevl(t(32) / a - t(2), _I1_B_FLOAT if single else _I1_B)
    return a, near, far


@flat
def i1e(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I1(x): calc_i1e."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        a, near, far = _i1_series(x)
        out = np.where(a <= t(8), near * a, far / np.sqrt(a))
        return np.where(x < 0, -out, out).astype(x.dtype)


@flat
def i1(x: np.ndarray) -> np.ndarray:
    """I1(x): calc_i1, exp(|x|) times the same expansions."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        a, near, far = _i1_series(x)
        e = glibc.expf(a) if x.dtype == _F32 else np.exp(a)
        out = np.where(a <= t(8), e * a * near, (e * far) / np.sqrt(a))
        return np.where(x < 0, -out, out).astype(x.dtype)


_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834E0, 4.67627912898881538453E0,
             8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
             -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0)
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4)
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9)
_EXP_MINUS_2 = 0.13533528323661269189


def _polevl(x: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    t = x.dtype.type
    result = np.zeros_like(x)
    for c in coefficients:
        result = _fma(result, x, np.full_like(x, t(c)))
    return result


@flat
def ndtri(p: np.ndarray) -> np.ndarray:
    """The normal quantile: calc_ndtri (Cephes' three rational approximations)."""
    t = p.dtype.type
    one = t(1)
    with np.errstate(all="ignore"):
        upper = p > one - t(_EXP_MINUS_2)
        y = np.where(upper, one - p, p)
        # the centre: |y - 1/2| <= 3/8
        c = y - t(0.5)
        c2 = c * c
        ratio = c2 * _polevl(c2, _NDTRI_P0) / _polevl(c2, _NDTRI_Q0)
        centre = _fma(c, ratio, c) * t(2.50662827463100050242E0)
        # the tails, in z = 1 / sqrt(-2 log y)
        # `::log` and `::sqrt` are C's double functions, whatever T: float rounds after them
        y64 = y.astype(_F64)
        x = np.sqrt(-2.0 * np.log(y64)).astype(p.dtype)
        x0 = (x - np.log(x.astype(_F64)) / x).astype(p.dtype)
        z = one / x
        x1 = np.where(x < t(8), z * _polevl(z, _NDTRI_P1) / _polevl(z, _NDTRI_Q1),
                      z * _polevl(z, _NDTRI_P2) / _polevl(z, _NDTRI_Q2))
        tail = x0 - x1
        tail = np.where(upper, tail, -tail)
        out = np.where(y > t(_EXP_MINUS_2), centre, tail)
        out = np.where(p == 0, -np.inf, np.where(p == one, np.inf, out))
        return np.where((p < 0) | (p > one) | np.isnan(p), np.nan, out).astype(p.dtype)
