"""ATen's CPU sampling kernels on a Generator: the numbers, and how many draws each consumes.

One function per kernel of ATen's cpu/DistributionTemplates.h, DistributionsHelper.h and
TransformationHelper.h (uniform_real, normal_fill and normal_distribution, bernoulli,
random_from_to / random / random_full_64_bits_range, exponential, cauchy), plus randperm's
Fisher-Yates shuffle and multinomial with replacement. Each returns a flat numpy array in
TensorIterator order; callers reshape and cast. Where ATen's float results depend on the
CPU capability (FMA fusion in the AVX2 build, normal_fill_AVX2), `capability` decides.
"""
from __future__ import annotations

import math

import numpy as np

from . import boxmuller, capability, fp64, glibc
from .fp32 import fma as fma32
from .generator import Generator

TWO_PI = 2.0 * math.pi  # 2.0f * c10::pi<double>: exact doubling of the double pi
_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)
RANDPERM_SMALL = (2**32 - 1) // 20  # below this randperm shuffles with 32-bit draws


def unit_float32(raw: np.ndarray) -> np.ndarray:
    """uniform_real<float>'s x: the low 24 bits of a 32-bit draw times 2**-24."""
    return (raw & _MASK24).astype(np.float32) * np.float32(2.0 ** -24)


def unit_float64(raw64: np.ndarray) -> np.ndarray:
    """uniform_real<double>'s x: the low 53 bits of a random64() times 2**-53."""
    return (raw64 & _MASK53).astype(np.float64) * 2.0 ** -53


def uniform(gen: Generator, n: int, dtype: np.dtype, low: float, high: float,
            cap: str | None = None) -> np.ndarray:
    """uniform_real_distribution<scalar_t>(from, to): x * (to - from) + from; a float16
    tensor gets the float32 draw rounded (torch 2.13 samples it in float, from and to
    unrounded: measured for uniform_(-2.3, 5.1) and rand, avx2 and default)."""
    if dtype == np.float64:
        x = unit_float64(gen.draw64(n))
        return fp64.fma(x, high - low, low) if capability.fma_build(cap) else x * (high - low) + low
    lo, hi = np.float32(low), np.float32(high)
    x = unit_float32(gen.draw32(n))
    out = fma32(x, hi - lo, lo) if capability.fma_build(cap) else x * (hi - lo) + lo
    return out.astype(np.float16) if dtype == np.float16 else out


# ------------------------------------------------------------------ normal


def normal(gen: Generator, n: int, dtype: np.dtype, mean: float, std: float,
           contiguous: bool = True, cap: str | None = None) -> np.ndarray:
    """normal_kernel: normal_fill for 16+ contiguous elements, else normal_distribution.

    A float16 tensor's normal_fill works block by block in float (mean and std unrounded):
    each 16 elements draw their own 16 uniforms, so a ragged tail's fresh block follows the
    last full block's draws instead of all n (torch 2.13: randn(20, dtype=half) takes 32
    draws, its first 4 values are randn(20)'s and its last 16 randn(32)[16:] rounded)."""
    cap = cap or capability.CAPABILITY
    if n >= 16 and contiguous and dtype in (np.float32, np.float64):
        return _normal_fill(gen, n, np.dtype(dtype), mean, std, cap)
    if n >= 16 and contiguous and dtype == np.float16:
        full = n // 16 * 16
        out = np.empty(n, dtype=np.float32)
        out[:full] = _normal_fill(gen, full, np.dtype(np.float32), mean, std, cap)
        if n % 16:
            out[n - 16:] = _normal_fill(gen, 16, np.dtype(np.float32), mean, std, cap)
        return out.astype(np.float16)
    return _normal_scalar(gen, n, mean, std, cap).astype(dtype)


def _normal_fill(gen: Generator, n: int, dtype: np.dtype, mean: float, std: float,
                 cap: str) -> np.ndarray:
    """Uniforms for every element, Box-Muller in blocks of 16 (u[:8] radius, u[8:] angle);
    a ragged tail redraws 16 fresh uniforms for the last 16 elements."""
    if dtype == np.float64:
        def unit(k: int) -> np.ndarray:
            return unit_float64(gen.draw64(k))
        block = _fill16_float64
    else:
        def unit(k: int) -> np.ndarray:
            return unit_float32(gen.draw32(k))
        block = _fill16_avx2 if cap in ("avx2", "avx512") else _fill16_scalar_float32
    out = unit(n)
    full = n // 16 * 16
    out[:full] = block(out[:full], mean, std)
    if n % 16:
        out[n - 16:] = block(unit(16), mean, std)
    return out


def _fill16_avx2(data: np.ndarray, mean: float, std: float) -> np.ndarray:
    d = data.reshape(-1, 16)
    radius = np.sqrt(np.float32(-2) * boxmuller.avx_mathfun_log(np.float32(1) - d[:, :8]))
    sin, cos = boxmuller.avx_mathfun_sincos(np.float32(TWO_PI) * d[:, 8:])
    m, s = np.float32(mean), np.float32(std)
    return np.concatenate([fma32(radius * cos, s, m), fma32(radius * sin, s, m)],
                          axis=1).reshape(-1)


def _fill16_scalar_float32(data: np.ndarray, mean: float, std: float) -> np.ndarray:
    d = data.reshape(-1, 16)
    radius = np.sqrt(np.float32(-2) * glibc.logf(np.float32(1) - d[:, :8]))
    theta = (TWO_PI * d[:, 8:].astype(np.float64)).astype(np.float32)
    m, s = np.float32(mean), np.float32(std)
    return np.concatenate([fma32(radius * glibc.cosf(theta), s, m),
                           fma32(radius * glibc.sinf(theta), s, m)],
                          axis=1).reshape(-1)


def _fill16_float64(data: np.ndarray, mean: float, std: float) -> np.ndarray:
    d = data.reshape(-1, 16)
    radius = np.sqrt(-2.0 * np.log(1.0 - d[:, :8]))
    theta = TWO_PI * d[:, 8:]
    return np.concatenate([fp64.fma(radius * np.cos(theta), std, mean),
                           fp64.fma(radius * np.sin(theta), std, mean)], axis=1).reshape(-1)


def _normal_scalar(gen: Generator, n: int, mean: float, std: float, cap: str) -> np.ndarray:
    """normal_distribution<double>: pairs of uniforms give r*cos (returned) and r*sin
    (cached in the generator for the next sample)."""
    values = []
    if n and gen.next_double_normal is not None:
        gen._drawn()  # (a sample from the cache is a draw too: vmap's randomness check)
        values.append(np.array([gen.next_double_normal]))
        gen.next_double_normal = None
        n -= 1
    if n:
        pairs = (n + 1) // 2
        u = unit_float64(gen.draw64(2 * pairs))
        r = np.sqrt(-2.0 * np.log1p(-u[1::2]))
        theta = TWO_PI * u[0::2]
        both = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1).reshape(-1)
        if n % 2:
            gen.next_double_normal = float(both[-1])
        values.append(both[:n])
    z = np.concatenate(values) if values else np.empty(0)
    return fp64.fma(z, std, mean) if capability.fma_build(cap) else z * std + mean


def standard_normal_double(gen: Generator) -> float:
    """One normal_distribution<double>(0, 1) sample (the cached half of a pair if any)."""
    return float(_normal_scalar(gen, 1, 0.0, 1.0, "default")[0])


# ------------------------------------------------------------------ discrete


def bernoulli_scalar(gen: Generator, n: int, p: float) -> np.ndarray:
    """bernoulli_distribution<double>(p): one random64() per element, x < p."""
    return unit_float64(gen.draw64(n)) < p


def bernoulli_tensor(gen: Generator, p: np.ndarray) -> np.ndarray:
    """bernoulli_(Tensor p): float32 p draws 32 bits and compares in float; float64 p 64."""
    if p.dtype == np.float64:
        return unit_float64(gen.draw64(p.size)) < p
    return unit_float32(gen.draw32(p.size)) < p.astype(np.float32)


def random_from_to(gen: Generator, n: int, span: int, base: int, wide: bool) -> np.ndarray:
    """uniform_int_from_to: (draw % range) + base, 64-bit draws when range >= 2**32 (for
    int64/uint64/float/double/bfloat16 tensors, `wide`)."""
    if span >= 1 << 32 and wide:
        raw = gen.draw64(n)
    else:
        raw = gen.draw32(n)
    # static_cast<int64_t>((val % range) + base): unsigned arithmetic, wrapping
    return ((raw % np.uint64(span)) + np.uint64(base % (1 << 64))).view(np.int64)


def random_full_range(gen: Generator, n: int) -> np.ndarray:
    """random_(from=int64 min, to=None): a random64() as int64."""
    return gen.draw64(n).view(np.int64)


def random_default(gen: Generator, n: int, dtype: np.dtype) -> np.ndarray:
    """random_() without bounds: uniform_int_distribution<scalar_t>."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return (gen.draw64(n) % np.uint64((1 << 53) + 1)).astype(np.float64)
    if dtype == np.int64:
        return (gen.draw64(n) % np.uint64(1 << 63)).astype(np.int64)
    raw = gen.draw32(n)
    if dtype == np.bool_:
        return (raw & np.uint64(1)).astype(np.bool_)
    if dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        return (raw % np.uint64((1 << digits) + 1)).astype(dtype)
    return (raw % np.uint64(int(np.iinfo(dtype).max) + 1)).astype(dtype)


def exponential(gen: Generator, n: int, lambd: float) -> np.ndarray:
    """exponential_distribution<double>: -1/lambda * log1p(-x)."""
    with np.errstate(divide="ignore"):
        return (-1.0 / lambd) * np.log1p(-unit_float64(gen.draw64(n)))


def geometric(gen: Generator, n: int, p: float) -> np.ndarray:
    """geometric_distribution<double>: ceil(log(x) / log1p(-p)), one random64() each."""
    with np.errstate(divide="ignore"):
        return np.ceil(np.log(unit_float64(gen.draw64(n))) / math.log1p(-p))


def log_normal(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """lognormal_distribution<double>: exp of normal_distribution<double>(mean, std),
    whose pairs and cached second half are _normal_scalar's."""
    with np.errstate(over="ignore"):
        return np.exp(_normal_scalar(gen, n, mean, std, capability.CAPABILITY))


def cauchy(gen: Generator, n: int, median: float, sigma: float,
           cap: str | None = None) -> np.ndarray:
    """cauchy_distribution<double>: median + sigma * tan(pi * (x - 0.5)), one random64()
    per element; the AVX2 build fuses the multiply-add."""
    tangent = np.tan(math.pi * (unit_float64(gen.draw64(n)) - 0.5))
    if capability.fma_build(cap or capability.CAPABILITY):
        return fp64.fma(tangent, sigma, median)
    return median + sigma * tangent


def randperm(gen: Generator, n: int) -> np.ndarray:
    """randperm_cpu for n below RANDPERM_SMALL: for i < n-1, swap r[i] with r[i + z_i],
    z_i = random() % (n - i).

    Vectorised: the element left at position i is the one at position j_i = i + z_i just
    before step i. That is j_i itself unless an earlier step m also targeted j_i (then it
    is whatever arrived at position m by step m, V(m)); V(m) is m unless an earlier step
    targeted m, in which case it is V of the latest such step. V follows a chain of strictly
    smaller indices, resolved by pointer doubling.
    """
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    steps = np.arange(n - 1, dtype=np.int64)
    j = steps + (gen.draw32(n - 1) % (n - steps).astype(np.uint64)).astype(np.int64)
    order = np.argsort(j, kind="stable")  # grouped by target, steps ascending in a group
    sorted_j = j[order]
    same = np.empty(n - 1, dtype=bool)
    same[0] = False
    same[1:] = sorted_j[1:] == sorted_j[:-1]
    prev_same_target = np.full(n - 1, -1, dtype=np.int64)
    prev_same_target[order[1:][same[1:]]] = order[:-1][same[1:]]
    last_step_at = np.full(n, -1, dtype=np.int64)  # latest step that targeted position q
    group_end = np.append(~same[1:], True)
    last_step_at[sorted_j[group_end]] = order[group_end]
    # p(i): the latest step before i that targeted position i
    parent = last_step_at.copy()
    own = np.zeros(n, dtype=bool)
    own[:n - 1] = j == steps  # step i targeted itself: the latest earlier one is its prev
    parent[:n - 1][own[:n - 1]] = prev_same_target[own[:n - 1]]
    root = np.where(parent >= 0, parent, np.arange(n))
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    out = np.empty(n, dtype=np.int64)
    out[:n - 1] = np.where(prev_same_target >= 0, root[np.maximum(prev_same_target, 0)], j)
    out[n - 1] = root[n - 1]
    return out


def multinomial_with_replacement(gen: Generator, probs: np.ndarray,
                                 n_sample: int) -> np.ndarray:
    """multinomial_with_replacement_apply: per row, a cumulative sum in the input dtype,
    divided by its total, the last bucket forced to 1; each sample is a random64() uniform
    placed by binary search (the first bucket whose cumulative value is >= it)."""
    rows = probs.reshape(-1, probs.shape[-1])
    out = np.empty((rows.shape[0], n_sample), dtype=np.int64)
    for i, row in enumerate(rows):
        cum = np.cumsum(row, dtype=row.dtype)
        cum = cum / cum[-1]
        cum[-1] = 1
        u = unit_float64(gen.draw64(n_sample))
        out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out
