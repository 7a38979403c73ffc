"""The float64 elementwise cases of tests/data/f64_bits/<capability>.npz (written by
tests/tools/record_f64_bits.py, read by tests/test_f64_bits.py): torch 2.13's float64
results for functions it computes through SLEEF's double kernels (vector bodies) and libm
(scalar tails, and every element in the default build).

Stored as torch's bits XOR the bits of numpy's plain float64 evaluation of the same
formula (`FORMULAS`), which agrees on most points, so the stored words are mostly zero
and compress well; decoding applies the same formula.

Each case maps its input points to one float64 array; points are cut into contiguous
tensors of `SIZES` in turn, so vector bodies and scalar tails are both hit.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

POINTS = 6000
SIZES = [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 100, 1000, 4099]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, -1e-310,
           2.2250738585072014e-308, 1e-300, 1e-20, -1e-20, 1.0, -1.0, 0.5, -0.5, 2.0, 20.0,
           20.000000000000004, -20.0, 36.7, -36.7, -36.74, -36.8, -37.0, 18.7, 18.72, 709.78,
           709.79, 710.0, -708.0, -745.0, -745.2, -746.0, -1000.0, -1001.0, 1e300, -1e300,
           1.7976931348623157e308, -1.7976931348623157e308, 1e307, 2e307, -0.9999999999,
           -0.99999999999999989]


def domain(kind: str) -> np.ndarray:
    """The inputs of a domain ('real' or 'positive'), from a fixed seed."""
    rng = np.random.default_rng(64)
    n = POINTS - len(SPECIAL)
    parts = [rng.standard_normal(n // 4) * s for s in (0.3, 5.0, 60.0)]
    mags = 10.0 ** rng.uniform(-320, 308, n - 3 * (n // 4))
    parts.append(mags * rng.choice([-1.0, 1.0], mags.size))
    x = np.concatenate(parts + [np.array(SPECIAL)])
    if kind == "positive":
        x = np.abs(x)
    rng.shuffle(x)
    return x


def chunks(n: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of the contiguous tensors the points are cut into."""
    i = k = 0
    while i < n:
        m = min(SIZES[k % len(SIZES)], n - i)
        yield i, i + m
        i, k = i + m, k + 1


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


def _logsigmoid(x: np.ndarray) -> np.ndarray:
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _rows(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """softmax cases take each chunk as one row."""
    return lambda x: fn(x.reshape(1, -1)).reshape(-1)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    s = x - np.max(x, axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _lgamma(v: float) -> float:
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # poles
        return math.inf
_SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)
_K = 0.7978845608028654

# name -> (domain, numpy formula of the stored reference)
FORMULAS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "sigmoid": ("real", _sigmoid),
    "expm1": ("real", np.expm1),
    "log1p": ("positive", np.log1p),
    "pow_tensor": ("positive", lambda x: x ** (x[::-1] / 7)),
    "pow_1.7": ("positive", lambda x: x ** 1.7),
    "pow_-1.3": ("positive", lambda x: x ** -1.3),
    "silu": ("real", lambda x: x * _sigmoid(x)),
    "softplus": ("real", _softplus),
    "elu": ("real", lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "selu": ("real", lambda x: _SELU[1] * np.where(x > 0, x, _SELU[0] * np.expm1(
        np.minimum(x, 0)))),
    "gelu": ("real", lambda x: x * 0.5 * (1 + _erf(x / np.sqrt(2)))),
    "gelu_tanh": ("real", lambda x: 0.5 * x * (1 + np.tanh(_K * (x + 0.044715 * x ** 3)))),
    "mish": ("real", lambda x: x * np.tanh(_softplus(x))),
    "logsigmoid": ("real", _logsigmoid),
    "logaddexp": ("real", lambda x: np.logaddexp(x, x[::-1])),
    "atan2": ("real", lambda x: np.arctan2(x, x[::-1])),
    "sinh": ("real", np.sinh),
    "cosh": ("real", np.cosh),
    "lgamma": ("real", lambda x: np.array([_lgamma(v) for v in x.tolist()])),
    "asinh": ("real", np.arcsinh),
    "acosh": ("positive", np.arccosh),
    "atanh": ("real", np.arctanh),
    "exp2": ("real", np.exp2),
    "logaddexp2": ("real", lambda x: np.logaddexp2(x, x[::-1])),
    "softmax": ("real", _rows(_softmax)),
    "log_softmax": ("real", _rows(_log_softmax)),
    "bce_logits": ("real", lambda x: (x < 0) * x - _logsigmoid(x)),
    "soft_margin": ("real", lambda x: np.log1p(np.exp(-np.abs(x)))),
    # gradients of the input for an upstream gradient of GRAD everywhere
    "silu_backward": ("real", lambda x: GRAD * _sigmoid(x) * (1 + x * (1 - _sigmoid(x)))),
    "softplus_backward": ("real", lambda x: GRAD * _sigmoid(x)),
    "elu_backward": ("real", lambda x: GRAD * np.where(x > 0, 1.0, np.exp(np.minimum(x, 0)))),
    "mish_backward": ("real", lambda x: GRAD * np.tanh(_softplus(x))),
    "gelu_backward": ("real", lambda x: GRAD * 0.5 * (1 + _erf(x / np.sqrt(2)))),
    "gelu_tanh_backward": ("real", lambda x: GRAD * 0.5 * (1 + np.tanh(_K * x))),
}
GRAD = 0.7


def reference_bits(name: str, x: np.ndarray) -> np.ndarray:
    """The stored reference's bits: the formula per chunk, as the cases run."""
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        for i, j in chunks(x.size):
            out[i:j] = FORMULAS[name][1](x[i:j])
    return out.view(np.uint64)
