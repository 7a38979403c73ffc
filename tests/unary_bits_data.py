"""The format of tests/data/unary_bits/<capability>.npz (written by
tests/tools/record_unary_bits.py, read by tests/test_unary_bits.py).

To stay small, torch's output bits are stored XOR the bits of a float64 numpy evaluation
rounded to float32 (`reference`), which equals torch's result on 90-99.99% of points, so
the stored words are mostly zero and compress well. Decoding applies the same reference,
so a numpy whose float64 function differs in a float32 rounding decision (a float64
result within 1e-16 of a float32 midpoint) would misdecode that point: none has here.
"""
from __future__ import annotations

import math

import numpy as np

POINTS = 100_000
SIZES = [1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 23, 31, 32, 33, 47, 63, 64, 65, 100, 255, 1000,
         4099, 40_003]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 1.1754942e-38,
           88.72283, 88.72284, 89.0, -87.33654, -103.97207, -103.97208, -104.0, -104.1,
           100.0, 100.1, 1.0, -1.0, 0.5, 2.0, 20.0, 20.000002, 3.4028235e38, -3.4028235e38]

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _lgamma(x: np.ndarray) -> np.ndarray:
    def one(v: float) -> float:
        try:
            return math.lgamma(v)
        except (ValueError, OverflowError):  # poles
            return math.inf
    return np.array([one(v) for v in x.tolist()], np.float64)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


def _erfinv(y: np.ndarray) -> np.ndarray:
    """Winitzki's approximation polished by three Newton steps on erf."""
    log1my2 = np.log((1 - y) * (1 + y))
    t = 2 / (math.pi * 0.147) + log1my2 / 2
    x = np.sign(y) * np.sqrt(np.sqrt(t * t - log1my2 / 0.147) - t)
    for _ in range(3):
        x = x - (_erf(np.where(np.isfinite(x), x, 0)) - y) / (2 / math.sqrt(math.pi)
                                                              * np.exp(-x * x))
    return np.where(np.abs(y) == 1, np.copysign(np.inf, y), x)


REFERENCES = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
    "pow_1.7": lambda x: x ** 1.7, "pow_-1.3": lambda x: x ** -1.3,
    "silu": lambda x: x / (1 + np.exp(-x)), "softplus": _softplus,
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "gelu": lambda x: x * 0.5 * (1 + _erf(x / math.sqrt(2))),
    "erfinv": _erfinv, "sinh": np.sinh, "cosh": np.cosh,
    "atan2": lambda x: np.arctan2(x, x[::-1]),
    "lgamma": lambda x: _lgamma(x), "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "exp2": np.exp2,
    "logaddexp2": lambda x: np.logaddexp2(x, x[::-1]),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
}
DOMAINS = {"erfinv": "unit", "atanh": "unit", "acosh": "positive", "log": "positive",
           "sqrt": "positive", "rsqrt": "positive", "pow_1.7": "positive"}


def domain(kind: str) -> np.ndarray:
    """The 10^5 inputs of a domain ('real' or 'positive'), from a fixed seed."""
    rng = np.random.default_rng(13)
    n = POINTS - len(SPECIAL)
    if kind == "unit":  # (-1, 1): uniform, then crowding both ends, then the specials
        edge = 1 - 10.0 ** rng.uniform(-7.3, 0, n - n // 2)
        x = np.concatenate([rng.uniform(-1, 1, n // 2), edge * rng.choice([-1.0, 1.0], edge.size),
                            np.array(SPECIAL)]).astype(np.float32)
        rng.shuffle(x)
        return x
    parts = [rng.standard_normal(n // 4) * s for s in (0.3, 3.0, 30.0)]
    mags = 10.0 ** rng.uniform(-45, 38.5, n - 3 * (n // 4))
    parts.append(mags * rng.choice([-1.0, 1.0], mags.size))
    x = np.concatenate(parts + [np.array(SPECIAL)]).astype(np.float32)
    if kind == "positive":
        x = np.abs(x)
    rng.shuffle(x)
    return x


def reference_bits(name: str, x: np.ndarray) -> np.ndarray:
    """The reference per chunk, as the cases run (atan2 pairs each chunk with its flip)."""
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        for i, j in chunks(x.size):
            out[i:j] = np.asarray(REFERENCES[name](x[i:j].astype(np.float64)))
    return out.view(np.uint32)


def chunks(n: int):
    """(start, stop) of the contiguous tensors the points are cut into."""
    i = k = 0
    while i < n:
        m = min(SIZES[k % len(SIZES)], n - i)
        yield i, i + m
        i, k = i + m, k + 1
