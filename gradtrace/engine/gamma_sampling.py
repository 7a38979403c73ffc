"""torch's CPU samplers of the gamma family (ATen's Distributions.h/.cpp), drawing from the
generator exactly as they do: one element after another (cpu_serial_kernel), each taking
uniforms from uniform_real_distribution<double> (one random64() each) and normals from
normal_distribution<double> (Box-Muller pairs, the second cached in the generator).

- sample_gamma: Marsaglia and Tsang's rejection method, alpha < 1 boosted by u^(1/alpha);
  the float literals of the C++ (1.0f / 3.0f, 0.0331f) kept as floats.
- dirichlet: gammas in double, each row divided by its sum.
"""
from __future__ import annotations

import math

import numpy as np

from . import distributions as dist
from . import glibc
from .gamma_kernels import c_pow
from .generator import Generator

_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # 1.0f / 3.0f
_C0331_F = float(np.float32(0.0331))
_F09, _F11 = float(np.float32(0.9)), float(np.float32(1.1))  # 0.9f, 1.1f


class _Draws:
    """The two standard samplers sample_gamma takes, over one generator."""

    __slots__ = ("gen",)

    def __init__(self, gen: Generator) -> None:
        self.gen = gen

    def uniform(self) -> float:
        return float(dist.unit_float64(self.gen.draw64(1))[0])

    def normal(self) -> float:
        return dist.standard_normal_double(self.gen)


def sample_gamma(alpha: float, draws: _Draws, single: bool) -> float:
    """sample_gamma<scalar_t, double>: `single` when scalar_t is float (alpha's own
    arithmetic, before the double accumulator, in float32)."""
    f = np.float32 if single else float
    alpha_s = f(alpha)
    scale = 1.0
    if alpha_s < 1.0:
        if alpha_s == 0:
            return 0.0
        scale *= c_pow(1 - draws.uniform(), float(f(1.0) / alpha_s))
        alpha_s = f(alpha_s + f(1.0))
    d = float(f(alpha_s - f(_THIRD_F))) if single else alpha_s - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = draws.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - draws.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(alpha: np.ndarray, gen: Generator) -> np.ndarray:
    """_s_gamma_cpu: a sample per element in memory order, at least the dtype's tiny."""
    draws = _Draws(gen)
    single = alpha.dtype == np.float32
    tiny = np.finfo(alpha.dtype).tiny
    flat = np.ascontiguousarray(alpha).ravel()
    out = np.array([sample_gamma(float(a), draws, single) for a in flat], dtype=np.float64)
    return np.maximum(tiny, out.astype(alpha.dtype)).reshape(alpha.shape)


def dirichlet(alpha: np.ndarray, gen: Generator) -> np.ndarray:
    """_s_dirichlet_cpu: double gammas (at least double's tiny), divided by their row's sum,
    clamped to [tiny, the float below 1] in alpha's dtype."""
    from .dtypes import float64 as _float64
    from .ops.reductions import sum_array

    draws = _Draws(gen)
    flat = np.ascontiguousarray(alpha).ravel()
    gammas = np.array([sample_gamma(float(a), draws, False) for a in flat], dtype=np.float64)
    gammas = np.maximum(np.finfo(np.float64).tiny, gammas).reshape(alpha.shape)
    total = sum_array(gammas, (gammas.ndim - 1,), True, _float64)
    ratio = (gammas / total).astype(alpha.dtype)
    top = np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0))
    return np.minimum(top, np.maximum(np.finfo(alpha.dtype).tiny, ratio))



def _digamma_one(x: float, single: bool = False) -> float:
    """Distributions.h's digamma_one<scalar_t, double>: its argument stays scalar_t (float
    steps, logf and 0.5f / x for float), the sum is a double, the reflection term is added
    at the end."""
    t = np.float32 if single else float
    x = t(x)
    if x == 0:
        return math.inf
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        extra = -math.pi / math.tan(math.pi * float(x))
        x = t(1) - x
    result = 0.0
    while x < 10:
        result -= float(t(1) / x)
        x = x + t(1)
    if x == 10:
        return result + 2.25175258906672110764 + extra
    y = 0.0
    if x < 1.0e17:
        xd = float(x)
        z = 1.0 / (xd * xd)
        poly = 0.0
        for a in (8.33333333333333333333E-2, -2.10927960927960927961E-2,
                  7.57575757575757575758E-3, -4.16666666666666666667E-3,
                  3.96825396825396825397E-3, -8.33333333333333333333E-3,
                  8.33333333333333333333E-2):
            poly = poly * z + a
        y = z * poly
    if single:
        log = float(glibc.logf(np.asarray([x], np.float32))[0])
        return result + log - float(t(0.5) / x) - y + extra
    return result + math.log(x) - (0.5 / x) - y + extra


_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
             1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
             0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
             0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def standard_gamma_grad_one(alpha: float, x: float) -> float:
    """-(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for a Gamma(alpha) sample x, in double:
    a Taylor series for small x, Rice's saddle point for large alpha, else a bivariate
    rational approximation."""
    with np.errstate(all="ignore"):
        if x < 0.8:
            numer, denom = 1.0, alpha
            series1, series2 = numer / denom, numer / (denom * denom)
            for i in range(1, 6):
                numer *= -x / i
                denom += 1
                series1 += numer / denom
                series2 += numer / (denom * denom)
            pow_x_alpha = c_pow(x, alpha)
            gamma_pdf = c_pow(x, alpha - 1) * math.exp(-x)
            gamma_cdf = pow_x_alpha * series1
            log_x = math.log(x) if x > 0 else -math.inf
            gamma_cdf_alpha = (log_x - _digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
            result = float(np.float64(-gamma_cdf_alpha) / np.float64(gamma_pdf))
            return 0.0 if math.isnan(result) else result
        if alpha > 8.0:
            if _F09 * alpha <= x <= _F11 * alpha:
                numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
                numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x)
                           - 65 * x * x / alpha + alpha * (107 + 3600 * x))
                denom = 1244160 * (alpha * alpha) * (alpha * alpha)
                return numer_1 * numer_2 / denom
            denom = math.sqrt(8 * alpha)
            term2 = denom / (alpha - x)
            term3 = c_pow(x - alpha - alpha * math.log(x / alpha), -1.5)
            term23 = term2 - term3 if x < alpha else term2 + term3
            term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / (
                (alpha - x) * (alpha - x))
            stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
            numer = x * term1
            return -stirling * numer / denom
        u = math.log(x / alpha)
        v = math.log(alpha)
        coef_v = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
        p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
        q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
        return math.exp(p / q)


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """_standard_gamma_grad: standard_gamma_grad_one elementwise, rounded to alpha's dtype."""
    alpha, x = np.broadcast_arrays(alpha, x)
    flat = [standard_gamma_grad_one(float(a), float(v)) for a, v in zip(alpha.ravel(), x.ravel())]
    return np.asarray(flat, np.float64).astype(alpha.dtype).reshape(alpha.shape)


def sample_poisson(lam: float, draws: _Draws) -> int:
    """sample_poisson: Hoermann's transformed rejection for lambda >= 10, else multiplying
    uniforms until the product falls to exp(-lambda)."""
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = draws.uniform() - 0.5
            v = draws.uniform()
            us = 0.5 - abs(u)
            k = int(math.floor((2 * a / us + b) * u + lam + 0.43))
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    count, prod = 0, 1.0
    while True:
        prod *= draws.uniform()
        if prod > enlam:
            count += 1
        else:
            return count


def poisson(rates: np.ndarray, gen: Generator) -> np.ndarray:
    """_s_poisson_cpu: a sample per element in memory order, in the rates' dtype."""
    draws = _Draws(gen)
    flat = np.ascontiguousarray(rates).ravel()
    out = [sample_poisson(float(r), draws) for r in flat]
    return np.asarray(out, np.float64).astype(rates.dtype).reshape(rates.shape)


# -- the Dirichlet's reparameterised gradient (Distributions.h's dirichlet_grad_one) --------


class _Scalar:
    """scalar_t's arithmetic: numpy float32 scalars with glibc's logf/powf, or doubles."""

    def __init__(self, single: bool) -> None:
        self.single = single
        self.t = np.float32 if single else float

    def log(self, x):
        if self.single:
            with np.errstate(all="ignore"):
                return np.float32(glibc.logf(np.asarray([x], np.float32))[0])
        return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)

    def pow(self, x, y):
        if self.single:
            with np.errstate(all="ignore"):
                return np.float32(glibc.powf(np.asarray([x], np.float32), np.float32(y))[0])
        return c_pow(x, y)


def _beta_grad_alpha_small(s: _Scalar, x, alpha, beta):
    t = s.t
    factor = (t(_digamma_one(alpha, s.single)) - t(_digamma_one(alpha + beta, s.single))
              - s.log(x))
    numer = t(1)
    series = numer / alpha * (factor + t(1) / alpha)
    for i in range(1, 11):
        ci = t(i)
        numer *= (ci - beta) * x / ci
        denom = alpha + ci
        series += numer / denom * (factor + t(1) / denom)
    result = x * s.pow(t(1) - x, -beta) * series
    return t(0) if math.isnan(result) else result


def _beta_grad_beta_small(s: _Scalar, x, alpha, beta):
    t = s.t
    factor = t(_digamma_one(alpha + beta, s.single)) - t(_digamma_one(beta, s.single))
    numer, betas, dbetas, series = t(1), t(1), t(0), factor / alpha
    for i in range(1, 9):
        ci = t(i)
        numer *= -x / ci
        dbetas = dbetas * (beta - ci) + betas
        betas = betas * (beta - ci)
        series += numer / (alpha + ci) * (dbetas + factor * betas)
    result = -s.pow(t(1) - x, t(1) - beta) * series
    return t(0) if math.isnan(result) else result


def _beta_grad_alpha_mid(x: float, alpha: float, beta: float) -> float:
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # the singularity at x = mean
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                        8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * c_pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * math.log(beta / (total * (1 - x)))
                  + alpha * math.log(alpha / (total * x)))
    term4 = c_pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))))


def dirichlet_grad_one(x, alpha, total, single: bool) -> float:
    """The scaled reparameterised gradient of a Beta(alpha, total - alpha) sample x: Taylor
    series near 0 and 1 (in scalar_t), Rice's saddle point for large parameters, else a
    rational correction of an analytic approximation (in double)."""
    s = _Scalar(single)
    t = s.t
    x, alpha, total = t(x), t(alpha), t(total)
    x_, alpha_, total_ = float(x), float(alpha), float(total)
    beta = total - alpha
    beta_ = total_ - alpha_
    boundary = total * x * (t(1) - x)
    with np.errstate(all="ignore"):
        if x <= 0.5 and boundary < 2.5:
            return float(_beta_grad_alpha_small(s, x, alpha, beta))
        if x >= 0.5 and boundary < 0.75:
            return -float(_beta_grad_beta_small(s, t(1) - x, beta, alpha))
        if alpha > 6 and beta > 6:
            return _beta_grad_alpha_mid(x_, alpha_, beta_)
        u = math.log(x_)
        a = math.log(alpha_) - u
        b = math.log(total_) - a
        pow_u, pow_a = (1, u, u * u), (1, a, a * a)
        p = q = 0.0
        for i in range(3):
            for j in range(3):
                ua = pow_u[i] * pow_a[j]
                cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
                p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
                q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
        # digamma_one returns scalar_t: the difference is taken in scalar_t
        digammas = float(t(_digamma_one(total_, single)) - t(_digamma_one(alpha_, single)))
        approx = x_ * digammas / beta_
        return p / q * approx


def dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """_dirichlet_grad: dirichlet_grad_one elementwise (in memory order), in x's dtype."""
    x, alpha, total = np.broadcast_arrays(x, alpha, total)
    single = x.dtype == np.float32
    flat = [dirichlet_grad_one(a, b, c, single)
            for a, b, c in zip(x.ravel(), alpha.ravel(), total.ravel())]
    return np.asarray(flat, np.float64).astype(x.dtype).reshape(x.shape)


# -- binomial (sample_binomial: BTRS, or inversion for small means) --------------------------

_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k: float) -> float:
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _log(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _binomial_inversion(count, prob, s: _Scalar, draws: _Draws):
    """Geometric jumps until they pass count (logprob is log1p(-prob) in scalar_t)."""
    t = s.t
    if s.single:
        logprob = float(glibc.log1pf(np.asarray([-prob], np.float32))[0])
    else:
        logprob = math.log1p(-prob)
    geom_sum, num_geom = 0.0, t(0)
    while True:
        geom = math.ceil(_log(draws.uniform()) / logprob)
        geom_sum += geom
        if geom_sum > float(count):
            return num_geom
        num_geom = num_geom + t(1)


def _btrs(count, prob, s: _Scalar, draws: _Draws):
    """Hoermann's BTRS transformed rejection; count and prob stay scalar_t, the rest double."""
    t = s.t
    one = t(1)
    spq = count * prob * (one - prob)
    stddev = float(np.sqrt(spq)) if s.single else math.sqrt(spq)
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (one - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float((count + one) * prob))
    count_d = float(count)
    while True:
        u = draws.uniform() - 0.5
        v = draws.uniform()
        us = 0.5 - abs(u)
        k = t(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (a / (us * us) + b))
        n_k = float(count - k + one)
        upperbound = ((m + 0.5) * _log((m + 1) / (r * (count_d - m + 1)))
                      + (count_d + 1) * _log((count_d - m + 1) / n_k)
                      + (float(k) + 0.5) * _log(r * n_k / float(k + one))
                      + _stirling_approx_tail(m) + _stirling_approx_tail(count_d - m)
                      - _stirling_approx_tail(float(k)) - _stirling_approx_tail(float(count - k)))
        if v <= upperbound:
            return k


def sample_binomial(count, prob, s: _Scalar, draws: _Draws):
    t = s.t
    count, prob = t(count), t(prob)
    if count <= 0.0 or prob <= 0.0:
        return t(0)
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(count * prob) >= 10.0:
            return _btrs(count, prob, s, draws)
        return _binomial_inversion(count, prob, s, draws)
    if prob > 0.5:
        qprob = t(1.0 - float(prob))
        if float(count * qprob) >= 10.0:
            return count - _btrs(count, qprob, s, draws)
        return count - _binomial_inversion(count, qprob, s, draws)
    return t(math.nan)


def binomial(count: np.ndarray, prob: np.ndarray, gen: Generator) -> np.ndarray:
    """_s_binomial_cpu: a sample per element in memory order, in count's dtype."""
    draws = _Draws(gen)
    s = _Scalar(count.dtype == np.float32)
    count, prob = np.broadcast_arrays(count, prob)
    out = [float(sample_binomial(n, p, s, draws)) for n, p in zip(count.ravel(), prob.ravel())]
    return np.asarray(out, np.float64).astype(count.dtype).reshape(count.shape)
