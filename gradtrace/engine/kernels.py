"""torch 2.13's CPU kernels for elementwise float functions (the x86-64 wheel), by name:
the one place that knows which library computes what, so every op gets torch's bits.

- MKL VML (`mkl.VML_FUNCTIONS`: exp, log, log2, log10, sin, cos, tan, tanh, asin, acos,
  atan, erf, erfc, erfinv, sqrt, trunc), float32 and float64, every element and layout.
  Without the `mkl` wheel: float64 evaluation rounded once (`precise`), which matches
  torch on 95-99.9% of float32 elements.
- vml.h's SLEEF `map` (expm1, log1p): SLEEF's u10 function on every element under
  avx2/avx512, glibc's under `default`.
- `cpu_kernel_vec` kernels (sigmoid, silu, gelu, softplus, elu): SLEEF or torch's own
  polynomials in each row's vector body, glibc in its scalar tail (`pointwise.apply`);
  exact GELU of a contiguous tensor through oneDNN.

float64 outside MKL's list runs numpy's float64 function (torch: SLEEF's d4 functions
and glibc's double ones; they differ in the last bit now and then).

Usage for an op: `kernels.unary("tan", x)` with x a float32 or float64 array.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import aten, capability, glibc, onednn, pointwise, sleef
from .fp32 import fma

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_ONE = np.float32(1)


def precise(ufunc: Callable[..., Any], x: np.ndarray) -> np.ndarray:
    """`ufunc(x)` for a float32 (or narrower) array, computed in float64 and rounded once:
    the fallback for MKL's functions, which are within a unit of the last place."""
    if x.dtype == np.float64:
        return ufunc(x)
    if x.dtype.kind == "f" and isinstance(ufunc, np.ufunc):  # no float64 copy of x
        return ufunc(x, dtype=np.float64, out=np.empty_like(x), casting="same_kind")
    return np.asarray(ufunc(x.astype(np.float64))).astype(x.dtype)


def _mkl() -> Any:
    """The loaded MKL, or None. Imported on first use: nothing loads it otherwise."""
    from . import mkl

    return mkl.load()


def mkl_unavailable_reason() -> str:
    """'' when torch's MKL is loaded; else why exactness falls back to float64."""
    from . import mkl

    return mkl.unavailable_reason()


def _erfinv64(y: np.ndarray) -> np.ndarray:
    """erfinv in float64: Giles' single-precision approximation polished by two Newton
    steps on math.erf (only used without MKL)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w < 5.0
        ws = w - 2.5
        wl = np.sqrt(w) - 3.0
        ps = np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                         0.00021858087, -0.00125372503, -0.00417768164, 0.246640727,
                         1.50140941], ws)
        pl = np.polyval([-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                         0.00573950773, -0.0076224613, 0.00943887047, 1.00167406,
                         2.83297682], wl)
        x = np.where(small, ps, pl) * y
        erf = np.vectorize(math.erf, otypes=[np.float64])
        for _ in range(2):
            x = x - (erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    x = np.where(np.abs(y) == 1, np.copysign(np.inf, y), x)
    return np.where(np.abs(y) > 1, np.nan, x)


_FLOAT64 = {
    "acos": np.arccos, "asin": np.arcsin, "atan": np.arctan, "cos": np.cos,
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "erfc": np.vectorize(math.erfc, otypes=[np.float64]), "erfinv": _erfinv64,
    "exp": np.exp, "log": np.log, "log10": np.log10, "log2": np.log2, "sin": np.sin,
    "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc,
    "expm1": np.expm1, "log1p": np.log1p,
}
_VML = frozenset(_FLOAT64) - {"expm1", "log1p"}


def vml(op: str, x: np.ndarray) -> np.ndarray | None:
    """MKL's VML `op` of x as torch computes it, or None without MKL."""
    lib = _mkl()
    if lib is None:
        return None
    return pointwise.elementwise(x, lambda flat: lib.vml(op, flat, np.empty_like(flat)))


def _sigmoid(exp: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: _ONE / (_ONE + exp(-x))


# vml.h's `map` over Vectorized<float>: SLEEF on every element, glibc under `default`
_MAPPED = {"expm1": (sleef.expm1f, glibc.expm1f), "log1p": (sleef.log1pf, glibc.log1pf)}


def _split(vector: Callable[[np.ndarray], np.ndarray], scalar: Callable[[np.ndarray], np.ndarray],
           x: np.ndarray) -> np.ndarray:
    """cpu_kernel_vec with `vector` as the FMA builds' body: the default build's
    Vectorized<float> calls libm per lane, i.e. runs the scalar formula."""
    return pointwise.apply(x, vector if capability.fma_build() else scalar, scalar)


def unary(name: str, x: np.ndarray) -> np.ndarray:
    """torch's result of the elementwise function `name` on a float32 or float64 array."""
    if x.dtype not in (_F32, _F64):  # half types compute in float32 and round
        return unary(name, x.astype(np.float32)).astype(x.dtype)
    with np.errstate(all="ignore"):
        if name in _VML:
            y = vml(name, x)
            return y if y is not None else precise(_FLOAT64[name], x)
        if x.dtype == _F64:
            if name == "sigmoid":
                return 1 / (1 + np.exp(-x))
            return _FLOAT64[name](x)
        if name == "sigmoid":  # sigmoid_kernel: 1 / (1 + exp(-x))
            return _split(_sigmoid(sleef.expf), _sigmoid(glibc.expf), x)
        vector, scalar = _MAPPED[name]
        fn = vector if capability.fma_build() else scalar
        return pointwise.elementwise(x, lambda flat: pointwise.chunked(fn, flat))


def logit(x: np.ndarray) -> np.ndarray:
    """logit_kernel without eps: a dense tensor (TensorIterator's is_contiguous) goes to
    LogitMKLKernel (x / (1 - x), inf at 1, then VML's log); other layouts to
    cpu_kernel_vec, log(x / (1 - x)) with SLEEF's log in the vector body, glibc's in the
    scalar code."""
    one, inf = x.dtype.type(1), x.dtype.type(np.inf)

    def ratio(v: np.ndarray) -> np.ndarray:
        return np.where(v == one, inf, v / (one - v))

    with np.errstate(all="ignore"):
        if pointwise.is_dense(x):
            y = vml("log", pointwise.elementwise(x, ratio))
            if y is not None:
                return y
        if x.dtype == _F64:
            return np.log(ratio(x))
        return _split(lambda v: sleef.logf_u1(ratio(v)), lambda v: glibc.logf(ratio(v)), x)


def log_sigmoid(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log_sigmoid_cpu_kernel: (min(x, 0) - log1p(buffer), buffer = exp(-|x|)), every
    element (a partial vector too) through Vectorized's exp and log1p: SLEEF's in the FMA
    builds, glibc's per lane in the default build. float64: numpy's exp and log1p."""
    with np.errstate(all="ignore"):
        if x.dtype == _F64:
            buffer = np.exp(-np.abs(x))
            return np.minimum(x, 0) - np.log1p(buffer), buffer
        exp, log1p = ((sleef.expf, sleef.log1pf) if capability.fma_build()
                      else (glibc.expf, glibc.log1pf))
        flat = np.ascontiguousarray(x).reshape(-1)
        buffer = pointwise.chunked(lambda v: exp(-np.abs(v)), flat)
        out = np.minimum(flat, np.float32(0)) - pointwise.chunked(log1p, buffer)
        return out.reshape(x.shape), buffer.reshape(x.shape)


def logaddexp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """logaddexp_kernel: max(a, b) + log1p(exp(-|a - b|)), and a itself for equal infinities;
    SLEEF's exp and log1p in the vector body, glibc's in the scalar code (float64: numpy)."""
    def formula(exp: Callable[[np.ndarray], np.ndarray],
                log1p: Callable[[np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
        def f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            out = np.maximum(a, b) + log1p(exp(-np.abs(a - b)))
            return np.where(np.isinf(a) & (a == b), a, out)
        return f

    with np.errstate(all="ignore"):
        if x.dtype == _F64:
            return formula(np.exp, np.log1p)(*np.broadcast_arrays(x, y))
        scalar = formula(glibc.expf, glibc.log1pf)
        vector = formula(sleef.expf, sleef.log1pf) if capability.fma_build() else scalar
        return pointwise.apply_many([x, y], vector, scalar)


# -- activation kernels (ATen/native/cpu/Activation.cpp), float32 -------------------------

_HALF = np.float32(0.5)
_K_ALPHA = np.float32(math.sqrt(0.5))  # M_SQRT1_2
_K_BETA = np.float32(math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5)  # M_SQRT2 * M_2_SQRTPI / 2
_K_KAPPA = np.float32(0.044715)


def silu(x: np.ndarray) -> np.ndarray:
    """silu_kernel: x / (1 + exp(-x))."""
    with np.errstate(all="ignore"):
        return _split(lambda v: v / (_ONE + sleef.expf(-v)),
                      lambda v: v / (_ONE + glibc.expf(-v)), x)


def _gelu_tanh(tanh: Callable[[np.ndarray], np.ndarray],
               fused: bool) -> Callable[[np.ndarray], np.ndarray]:
    def formula(v: np.ndarray) -> np.ndarray:
        cube = v * v * v
        inner = fma(_K_KAPPA, cube, v) if fused else v + _K_KAPPA * cube
        return _HALF * v * (_ONE + tanh(_K_BETA * inner))
    return formula


def _gelu_erf(erf: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda v: v * _HALF * (_ONE + erf(v * _K_ALPHA))


def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    """GELU as torch computes it: the exact form of a contiguous tensor of more than one
    element through oneDNN; otherwise GeluKernel, whose vector body uses torch's erf
    polynomial (or SLEEF's tanhf) and whose scalar code glibc's erff (tanhf). GCC fuses
    `x + kappa * x^3` into an fma in the FMA builds, in both paths."""
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            return _split(_gelu_tanh(sleef.tanhf, True),
                          _gelu_tanh(glibc.tanhf, capability.fma_build()), x)
        if x.flags.c_contiguous and x.size > 1:
            if onednn.AVX512_CORE:  # oneDNN's minimax erf: not reproduced, round float64
                x64 = x.astype(np.float64)
                return (x64 * 0.5 * (1 + _FLOAT64["erf"](x64 * math.sqrt(0.5)))).astype(_F32)
            return pointwise.elementwise(
                x, lambda flat: pointwise.chunked(onednn.gelu_erf, flat))
        return _split(_gelu_erf(aten.erf), _gelu_erf(glibc.erff), x)


def gelu_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """gelu_backward (exact form) as oneDNN's eltwise_gelu_erf backward computes it for a
    contiguous float32 input of more than one element (the forward's path): its derivative
    times dy. None elsewhere (torch's GeluBackwardKernel, not reproduced)."""
    if x.dtype != _F32 or not x.flags.c_contiguous or x.size <= 1 or onednn.AVX512_CORE:
        return None
    derivative = onednn.gelu_erf_backward(x.reshape(-1)).reshape(x.shape)
    with np.errstate(all="ignore"):
        return (derivative * dy.astype(_F32, copy=False)).astype(dy.dtype)


def softplus(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """softplus_kernel: x where x * beta > threshold, else log1p(exp(x * beta)) / beta,
    with beta and threshold as float32."""
    b, th = np.float32(beta), np.float32(threshold)

    def formula(exp: Callable[[np.ndarray], np.ndarray],
                log1p: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
        def f(v: np.ndarray) -> np.ndarray:
            vb = v * b
            return np.where(vb > th, v, log1p(exp(vb)) / b)
        return f

    with np.errstate(all="ignore"):
        return _split(formula(sleef.expf, sleef.log1pf), formula(glibc.expf, glibc.log1pf), x)


def elu(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """elu_kernel: x * scale where x > 0, else expm1(x * input_scale) * (alpha * scale),
    every coefficient a float32."""
    negcoef = np.float32(alpha) * np.float32(scale)
    poscoef, negiptcoef = np.float32(scale), np.float32(input_scale)

    def formula(expm1: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
        return lambda v: np.where(v > 0, v * poscoef, expm1(v * negiptcoef) * negcoef)

    with np.errstate(all="ignore"):
        return _split(formula(sleef.expm1f), formula(glibc.expm1f), x)


def _lib(fused: bool) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """The exp/log1p/tanh a kernel's lambda calls: SLEEF in the FMA builds' vector bodies,
    glibc in scalar code (and per lane in the default build)."""
    if fused:
        return {"exp": sleef.expf, "log1p": sleef.log1pf, "tanh": sleef.tanhf}
    return {"exp": glibc.expf, "log1p": glibc.log1pf, "tanh": glibc.tanhf}


def _mad(fused: bool) -> Callable[..., np.ndarray]:
    return fma if fused else (lambda a, b, c: a * b + c)


def _backward_kernel(formula: Callable[..., np.ndarray], dy: np.ndarray,
                     x: np.ndarray) -> np.ndarray:
    """A cpu_kernel_vec(dy, x) backward kernel: `formula(dy, x, lib, mad, vector)` with the
    FMA builds' vector body's functions and contractions, or the scalar code's."""
    fused = capability.fma_build()  # GCC contracts the scalar lambda in the FMA builds too
    with np.errstate(all="ignore"):
        return pointwise.apply_many(
            [dy.astype(_F32, copy=False), x],
            lambda d, v: formula(d, v, _lib(fused), _mad(fused), fused),
            lambda d, v: formula(d, v, _lib(False), _mad(fused), False))


def mish(x: np.ndarray) -> np.ndarray:
    """mish_kernel: x * tanh(log1p(exp(x)))."""
    with np.errstate(all="ignore"):
        def formula(lib: dict[str, Callable[[np.ndarray], np.ndarray]]
                    ) -> Callable[[np.ndarray], np.ndarray]:
            return lambda v: v * lib["tanh"](lib["log1p"](lib["exp"](v)))
        return _split(formula(_lib(True)), formula(_lib(False)), x)


def mish_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """mish_backward_kernel: dy * (t + x * sigmoid * (1 - t * t)), t = tanh(softplus(x))."""
    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        sig = _ONE / (_ONE + lib["exp"](-v))
        t = lib["tanh"](lib["log1p"](lib["exp"](v)))
        return d * mad(v * sig, mad(-t, t, _ONE), t)
    return _backward_kernel(formula, dy, x)


def silu_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """silu_backward_kernel: dy * sigmoid * (1 + x * (1 - sigmoid))."""
    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        sig = _ONE / (_ONE + lib["exp"](-v))
        return d * sig * mad(v, _ONE - sig, _ONE)
    return _backward_kernel(formula, dy, x)


def softplus_backward(dy: np.ndarray, x: np.ndarray, beta: float,
                      threshold: float) -> np.ndarray:
    """softplus_backward_kernel: dy * z / (z + 1), z = exp(x * beta), or dy past the
    threshold (beta and threshold as float32)."""
    b, th = np.float32(beta), np.float32(threshold)

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        z = lib["exp"](v * b)
        return np.where(v * b > th, d, d * z / (z + _ONE))
    return _backward_kernel(formula, dy, x)


def elu_backward(dy: np.ndarray, x: np.ndarray, alpha: float, scale: float,
                 input_scale: float) -> np.ndarray:
    """elu_backward_kernel (is_result false): dy * negiptcoef * negcoef * exp(x *
    negiptcoef) where x <= 0, else dy * poscoef (coefficients as float32)."""
    negcoef = np.float32(alpha) * np.float32(scale)
    poscoef, negiptcoef = np.float32(scale), np.float32(input_scale)

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        return np.where(v <= 0, d * negiptcoef * negcoef * lib["exp"](v * negiptcoef),
                        d * poscoef)
    return _backward_kernel(formula, dy, x)


def gelu_tanh_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """GeluBackwardKernel, tanh form: dy * (0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa
    x^2)), t = tanh(beta (x + kappa x^3))."""
    three_kappa = np.float32(3) * _K_KAPPA

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        sq = v * v
        t = lib["tanh"](_K_BETA * mad(_K_KAPPA, sq * v, v))
        left = _HALF * v
        left_derivative = _HALF * (_ONE + t)
        inner_derivative = _K_BETA * mad(three_kappa, sq, _ONE)
        right_derivative = left * mad(-t, t, _ONE)
        if vector:  # the vector body adds the two derivatives unfused (measured)
            return d * (left_derivative + right_derivative * inner_derivative)
        # GCC fuses the scalar sum into 0.5 * (1 + t), the left derivative's product
        return d * mad(_HALF, _ONE + t, right_derivative * inner_derivative)
    return _backward_kernel(formula, dy, x)


def pow_scalar(x: np.ndarray, exponent: float) -> np.ndarray:
    """pow_tensor_scalar_optimized_kernel for a float32 tensor and an exponent without a
    special case (not 2, 3, -2, 0.5, -0.5, -1): the vector body computes
    `powf(x, (float)e)` (SLEEF's; glibc's per lane in the default build), the scalar code
    `std::pow(x, e)` with e a double, i.e. libm's double pow rounded to float32."""
    e32 = np.float32(exponent)

    def scalar(v: np.ndarray) -> np.ndarray:
        return np.power(v.astype(np.float64), exponent).astype(np.float32)

    power = sleef.powf if capability.fma_build() else glibc.powf  # the default build: libm per lane
    with np.errstate(all="ignore"):
        return pointwise.apply(x, lambda v: power(v, e32), scalar)
