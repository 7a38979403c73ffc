"""torch 2.13's CPU kernels for elementwise float functions (the x86-64 wheel), by name:
the one place that knows which library computes what, so every op gets torch's bits.

- MKL VML (`mkl.VML_FUNCTIONS`: exp, log, log2, log10, sin, cos, tan, tanh, asin, acos,
  atan, erf, erfc, erfinv, sqrt, trunc), float32 and float64, every element and layout.
  Without the `mkl` wheel: float64 evaluation rounded once (`precise`), which matches
  torch on 95-99.9% of float32 elements.
- vml.h's SLEEF `map` (expm1, log1p, lgamma): SLEEF's u10 function on every element under
  avx2/avx512, glibc's under `default`.
- `cpu_kernel_vec` kernels (sigmoid, silu, gelu, softplus, elu, sinh, cosh, atanh, exp2,
  atan2): SLEEF or torch's own polynomials in each row's vector body, glibc in its scalar
  tail (`pointwise.apply`); exact GELU of a contiguous tensor through oneDNN.
- asinh, acosh: libm's own function in the tensor's dtype (Vectorized maps std::).

float64 outside MKL's list runs the same split: SLEEF's double functions (`sleef64`:
exp, expm1, log, log1p, tanh, pow, erf, sinh, cosh, atanh, exp2, atan2, lgamma) in the FMA
builds' vector bodies, libm's double ones (`LIBM64`) in scalar tails and per lane in the
default build.

Usage for an op: `kernels.unary("tan", x)` with x a float32 or float64 array.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import aten, capability, fp32, fp64, glibc, onednn, pointwise, sleef, sleef64

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


def _libm_tanh(x: np.ndarray) -> np.ndarray:
    """libm's double tanh (std::tanh): numpy's own SIMD tanh rounds otherwise."""
    if not x.size:
        return x.copy()
    return np.frompyfunc(math.tanh, 1, 1)(x).astype(np.float64)


def _libm_pow(x: np.ndarray, y: np.ndarray | float) -> np.ndarray:
    return np.power(x, y)


# std:: double functions (glibc's libm; numpy's float64 exp, expm1, log1p and power call it
# on AVX2 CPUs), and SLEEF's u10 double functions of the FMA builds' Vectorized<double>
LIBM64: dict[str, Callable[..., np.ndarray]] = {
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "tanh": _libm_tanh,
    "pow": _libm_pow, "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "lgamma": glibc.lgamma, "exp2": np.exp2}
_SLEEF64_FUNCTIONS = {
    "exp": sleef64.exp, "expm1": sleef64.expm1, "log": sleef64.log, "log1p": sleef64.log1p,
    "tanh": sleef64.tanh, "pow": sleef64.pow, "erf": sleef64.erf, "lgamma": sleef64.lgamma,
    "exp2": sleef64.exp2}
# (Vectorized<float>::erf is ATen's own polynomial, not SLEEF's)
_SLEEF32: dict[str, Callable[..., np.ndarray]] = {
    "exp": sleef.expf, "expm1": sleef.expm1f, "log": sleef.logf_u1, "log1p": sleef.log1pf,
    "tanh": sleef.tanhf, "pow": sleef.powf, "lgamma": sleef.lgammaf, "exp2": sleef.exp2f,
    "erf": aten.erf}
_GLIBC32: dict[str, Callable[..., np.ndarray]] = {
    "exp": glibc.expf, "expm1": glibc.expm1f, "log": glibc.logf, "log1p": glibc.log1pf,
    "tanh": glibc.tanhf, "pow": glibc.powf, "lgamma": glibc.lgammaf, "exp2": np.exp2,
    "erf": glibc.erff}


def _lib(fused: bool, dtype: Any = _F32) -> dict[str, Callable[..., np.ndarray]]:
    """The exp/expm1/log1p/tanh/pow a kernel's lambda calls for float32 or float64: SLEEF in
    the FMA builds' vector bodies, libm in scalar code (and per lane in the default build)."""
    if np.dtype(dtype) == _F64:
        return _SLEEF64 if fused else LIBM64
    return _SLEEF32 if fused else _GLIBC32


def _chunk(fn: Callable[..., np.ndarray], size: int = 4096) -> Callable[..., np.ndarray]:
    """fn over 1-D arrays (a scalar second operand or one array per element) in pieces."""
    def run(x: np.ndarray, *args: Any) -> np.ndarray:
        if x.size <= size:
            return fn(x, *args)
        out = np.empty_like(x)
        for i in range(0, x.size, size):
            out[i:i + size] = fn(x[i:i + size], *(a[i:i + size] if np.ndim(a) else a
                                                    for a in args))
        return out
    return run


# in cache-sized pieces: SLEEF's double functions keep many temporaries
_SLEEF64 = {name: _chunk(fn) for name, fn in _SLEEF64_FUNCTIONS.items()}


def vector_lib(dtype: Any) -> dict[str, Callable[..., np.ndarray]]:
    """Vectorized<T>'s functions in this capability's build."""
    return _lib(capability.fma_build(), dtype)


def scalar_lib(dtype: Any) -> dict[str, Callable[..., np.ndarray]]:
    """The std:: functions of a kernel's scalar code (libm's)."""
    return _lib(False, dtype)


# vml.h's `map` over Vectorized<T>: SLEEF on every element, libm under `default`
_MAPPED = ("expm1", "log1p", "lgamma")
# cpu_kernel_vec(std::f, Vectorized::f): SLEEF's u10 function in the vector body (float32,
# float64), libm's in the scalar code, which numpy's float32 and float64 ufuncs call once
# its AVX-512 loops are off (measured equal to torch's tails on 24,000 inputs)
_SLEEF_BODY = {"sinh": (sleef.sinhf, sleef64.sinh, np.sinh),
               "cosh": (sleef.coshf, sleef64.cosh, np.cosh),
               "atanh": (sleef.atanhf, sleef64.atanh, np.arctanh),
               "exp2": (sleef.exp2f, sleef64.exp2, np.exp2)}
# libm's own function in the tensor's dtype on every element (Vectorized::asinh/acosh map
# std::asinh/acosh; numpy's ufuncs call them with their AVX-512 loops off; measured)
_LIBM = {"asinh": np.arcsinh, "acosh": np.arccosh}


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
        if name == "sigmoid":  # sigmoid_kernel: 1 / (1 + exp(-x))
            return _split(_sigmoid(_lib(True, x.dtype)["exp"]),
                          _sigmoid(_lib(False, x.dtype)["exp"]), x)
        if name in _LIBM:
            return _LIBM[name](x)
        if name in _SLEEF_BODY:
            body32, body64, libm = _SLEEF_BODY[name]
            return _split(body32 if x.dtype == _F32 else _chunk(body64), libm, x)
        if name not in _MAPPED:
            return _FLOAT64[name](x)
        fn = vector_lib(x.dtype)[name]
        return pointwise.elementwise(x, lambda flat: pointwise.chunked(fn, flat))


def logit(x: np.ndarray) -> np.ndarray:
    """logit_kernel without eps: a dense tensor (TensorIterator's is_contiguous) goes to
    LogitMKLKernel (x / (1 - x), inf at 1, then VML's log); other layouts to
    cpu_kernel_vec, log(x / (1 - x)) with SLEEF's log in the vector body, libm's in the
    scalar code."""
    one, inf = x.dtype.type(1), x.dtype.type(np.inf)

    def ratio(v: np.ndarray) -> np.ndarray:
        return np.where(v == one, inf, v / (one - v))

    with np.errstate(all="ignore"):
        if pointwise.is_dense(x):
            y = vml("log", pointwise.elementwise(x, ratio))
            if y is not None:
                return y
        vector, scalar = _lib(True, x.dtype)["log"], _lib(False, x.dtype)["log"]
        return _split(lambda v: vector(ratio(v)), lambda v: scalar(ratio(v)), x)


def log_sigmoid(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log_sigmoid_cpu_kernel: (min(x, 0) - log1p(buffer), buffer = exp(-|x|)), every
    element (a partial vector too) through Vectorized's exp and log1p: SLEEF's in the FMA
    builds, libm's per lane in the default build."""
    with np.errstate(all="ignore"):
        lib = vector_lib(x.dtype)
        flat = np.ascontiguousarray(x).reshape(-1)
        buffer = pointwise.chunked(lambda v: lib["exp"](-np.abs(v)), flat)
        out = np.minimum(flat, x.dtype.type(0)) - pointwise.chunked(lib["log1p"], buffer)
        return out.reshape(x.shape), buffer.reshape(x.shape)


def logaddexp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """logaddexp_kernel: max(a, b) + log1p(exp(-|a - b|)), and a itself for equal infinities;
    SLEEF's exp and log1p in the vector body, libm's in the scalar code."""
    def formula(exp: Callable[[np.ndarray], np.ndarray],
                log1p: Callable[[np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
        def f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            out = np.maximum(a, b) + log1p(exp(-np.abs(a - b)))
            return np.where(np.isinf(a) & (a == b), a, out)
        return f

    with np.errstate(all="ignore"):
        dtype = np.result_type(x, y)
        scalar = formula(_lib(False, dtype)["exp"], _lib(False, dtype)["log1p"])
        vector = formula(*(vector_lib(dtype)[f] for f in ("exp", "log1p")))
        return pointwise.apply_many([x, y], vector, scalar)


def logaddexp2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """logaddexp2_kernel: max(a, b) + log1p(exp2(-|a - b|)) * (1 / ln 2), and a itself for
    equal infinities; SLEEF's exp2 and log1p in the vector body, libm's in the scalar code.
    The FMA builds contract the multiply-add, vector and scalar code alike (measured); half
    types compute in float32."""
    dtype = np.result_type(x, y)
    if dtype not in (_F32, _F64):
        return logaddexp2(x.astype(np.float32), y.astype(np.float32)).astype(dtype)
    inv_log_2 = dtype.type(1.0 / math.log(2.0))
    fused = capability.fma_build()
    fma = fp32.fma if dtype == _F32 else fp64.fma

    def formula(lib: dict[str, Callable[..., np.ndarray]]) -> Callable[..., np.ndarray]:
        def f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            log = lib["log1p"](lib["exp2"](-np.abs(a - b)))
            out = fma(log, inv_log_2, np.maximum(a, b)) if fused else \
                np.maximum(a, b) + log * inv_log_2
            return np.where(np.isinf(a) & (a == b), a, out)
        return f

    with np.errstate(all="ignore"):
        return pointwise.apply_many([x, y], formula(vector_lib(dtype)),
                                    formula(_lib(False, dtype)))


def atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """atan2_kernel: SLEEF's atan2 (u10) in the FMA builds' vector body, libm's (numpy's
    arctan2, its AVX-512 loops off) in the scalar code; half types in float32."""
    if y.dtype not in (_F32, _F64):
        return atan2(y.astype(np.float32), x.astype(np.float32)).astype(y.dtype)
    with np.errstate(all="ignore"):
        vector = np.arctan2
        if capability.fma_build():
            vector = sleef.atan2f if y.dtype == _F32 else _chunk(sleef64.atan2)
        return pointwise.apply_many([y, x], vector, np.arctan2)


# -- activation kernels (ATen/native/cpu/Activation.cpp), float32 and float64 ---------------

_M_SQRT2 = 1.41421356237309504880
_M_2_SQRTPI = 1.12837916709551257390
_M_SQRT1_2 = 0.70710678118654752440


class _Constants:
    """A kernel's constants as scalar_t (float32 or float64), as the C++ casts them."""

    def __init__(self, dtype: Any) -> None:
        c = np.dtype(dtype).type
        self.one, self.half = c(1), c(0.5)
        self.k_alpha = c(_M_SQRT1_2)
        self.k_beta = c(_M_SQRT2 * _M_2_SQRTPI * 0.5)
        self.k_kappa = c(0.044715)


_CONSTANTS = {_F32: _Constants(_F32), _F64: _Constants(_F64)}


def _fma(dtype: Any) -> Callable[..., np.ndarray]:
    return fp64.fma if np.dtype(dtype) == _F64 else fp32.fma


def silu(x: np.ndarray) -> np.ndarray:
    """silu_kernel: x / (1 + exp(-x))."""
    one = _CONSTANTS[x.dtype].one
    with np.errstate(all="ignore"):
        return _split(lambda v: v / (one + _lib(True, x.dtype)["exp"](-v)),
                      lambda v: v / (one + _lib(False, x.dtype)["exp"](-v)), x)


def _gelu_tanh(tanh: Callable[[np.ndarray], np.ndarray], fused: bool,
               dtype: Any) -> Callable[[np.ndarray], np.ndarray]:
    k, fma = _CONSTANTS[np.dtype(dtype)], _fma(dtype)

    def formula(v: np.ndarray) -> np.ndarray:
        cube = v * v * v
        inner = fma(k.k_kappa, cube, v) if fused else v + k.k_kappa * cube
        return k.half * v * (k.one + tanh(k.k_beta * inner))
    return formula


def _gelu_erf(erf: Callable[[np.ndarray], np.ndarray],
              dtype: Any = _F32) -> Callable[[np.ndarray], np.ndarray]:
    k = _CONSTANTS[np.dtype(dtype)]
    return lambda v: v * k.half * (k.one + erf(v * k.k_alpha))


def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    """GELU as torch computes it: the exact form of a contiguous tensor of more than one
    element through oneDNN; otherwise GeluKernel, whose vector body uses torch's erf
    polynomial (or SLEEF's tanhf) and whose scalar code glibc's erff (tanhf). GCC fuses
    `x + kappa * x^3` into an fma in the FMA builds, in both paths. float64 has no oneDNN
    path: SLEEF's erf (tanh) in the vector body, libm's in the scalar code."""
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            return _split(_gelu_tanh(_lib(True, x.dtype)["tanh"], True, x.dtype),
                          _gelu_tanh(_lib(False, x.dtype)["tanh"], capability.fma_build(),
                                     x.dtype), x)
        if x.dtype == _F64:
            return _split(_gelu_erf(_lib(True, x.dtype)["erf"], x.dtype),
                          _gelu_erf(_lib(False, x.dtype)["erf"], x.dtype), x)
        if x.flags.c_contiguous and x.size > 1:
            kernel = onednn.gelu_erf_avx512 if onednn.AVX512_CORE else onednn.gelu_erf
            return pointwise.elementwise(x, lambda flat: pointwise.chunked(kernel, flat))
        return _split(_gelu_erf(aten.erf), _gelu_erf(glibc.erff), x)


def gelu_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """gelu_backward (exact form) as oneDNN's eltwise_gelu_erf backward computes it for a
    contiguous float32 input of more than one element (the forward's path): its derivative
    times dy (the same Abramowitz-Stegun form with AVX-512, measured); float64, and float32
    off that path (a strided input, one element), through GeluBackwardKernel
    (`gelu_erf_backward`). None for other dtypes."""
    if x.dtype == _F64:
        return gelu_erf_backward(dy, x)
    if x.dtype != _F32:
        return None
    if not x.flags.c_contiguous or x.size <= 1:
        return gelu_erf_backward(dy, x)
    derivative = onednn.gelu_erf_backward(x.reshape(-1)).reshape(x.shape)
    with np.errstate(all="ignore"):
        return (derivative * dy.astype(_F32, copy=False)).astype(dy.dtype)


def softplus(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """softplus_kernel: x where x * beta > threshold, else log1p(exp(x * beta)) / beta,
    with beta and threshold as scalar_t."""
    b, th = x.dtype.type(beta), x.dtype.type(threshold)

    def formula(lib: dict[str, Callable[..., np.ndarray]]) -> Callable[[np.ndarray], np.ndarray]:
        def f(v: np.ndarray) -> np.ndarray:
            vb = v * b
            return np.where(vb > th, v, lib["log1p"](lib["exp"](vb)) / b)
        return f

    with np.errstate(all="ignore"):
        return _split(formula(_lib(True, x.dtype)), formula(_lib(False, x.dtype)), x)


def _elu_coefficients(dtype: Any, alpha: float, scale: float,
                      input_scale: float) -> tuple[Any, Any, Any]:
    """(negcoef, poscoef, negiptcoef): alpha * scale, scale, input_scale as scalar_t."""
    c = np.dtype(dtype).type
    return c(alpha) * c(scale), c(scale), c(input_scale)


def elu(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """elu_kernel: x * scale where x > 0, else expm1(x * input_scale) * (alpha * scale),
    every coefficient a scalar_t."""
    negcoef, poscoef, negiptcoef = _elu_coefficients(x.dtype, alpha, scale, input_scale)

    def formula(expm1: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
        return lambda v: np.where(v > 0, v * poscoef, expm1(v * negiptcoef) * negcoef)

    with np.errstate(all="ignore"):
        return _split(formula(_lib(True, x.dtype)["expm1"]),
                      formula(_lib(False, x.dtype)["expm1"]), x)


def _mad(fused: bool, dtype: Any = _F32) -> Callable[..., np.ndarray]:
    return _fma(dtype) if fused else (lambda a, b, c: a * b + c)


def _backward_kernel(formula: Callable[..., np.ndarray], dy: np.ndarray,
                     x: np.ndarray) -> np.ndarray:
    """A cpu_kernel_vec(dy, x) backward kernel: `formula(dy, x, lib, mad, vector)` with the
    vector body's functions and contractions (vector=True; the default build's Vectorized
    runs libm per lane, unfused), or the scalar code's (vector=False)."""
    fused = capability.fma_build()  # GCC contracts the scalar lambda in the FMA builds too
    with np.errstate(all="ignore"):
        return pointwise.apply_many(
            [dy.astype(x.dtype, copy=False), x],
            lambda d, v: formula(d, v, _lib(fused, x.dtype), _mad(fused, x.dtype), True),
            lambda d, v: formula(d, v, _lib(False, x.dtype), _mad(fused, x.dtype), False))


def mish(x: np.ndarray) -> np.ndarray:
    """mish_kernel: x * tanh(log1p(exp(x)))."""
    with np.errstate(all="ignore"):
        def formula(lib: dict[str, Callable[[np.ndarray], np.ndarray]]
                    ) -> Callable[[np.ndarray], np.ndarray]:
            return lambda v: v * lib["tanh"](lib["log1p"](lib["exp"](v)))
        return _split(formula(_lib(True, x.dtype)), formula(_lib(False, x.dtype)), x)


def mish_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """mish_backward_kernel: dy * (t + x * sigmoid * (1 - t * t)), t = tanh(softplus(x))."""
    one = _CONSTANTS[x.dtype].one

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        sig = one / (one + lib["exp"](-v))
        t = lib["tanh"](lib["log1p"](lib["exp"](v)))
        return d * mad(v * sig, mad(-t, t, one), t)
    return _backward_kernel(formula, dy, x)


def silu_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """silu_backward_kernel: dy * sigmoid * (1 + x * (1 - sigmoid))."""
    one = _CONSTANTS[x.dtype].one

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        sig = one / (one + lib["exp"](-v))
        return d * sig * mad(v, one - sig, one)
    return _backward_kernel(formula, dy, x)


def softplus_backward(dy: np.ndarray, x: np.ndarray, beta: float,
                      threshold: float) -> np.ndarray:
    """softplus_backward_kernel: dy * z / (z + 1), z = exp(x * beta), or dy past the
    threshold (beta and threshold as scalar_t)."""
    b, th, one = x.dtype.type(beta), x.dtype.type(threshold), _CONSTANTS[x.dtype].one

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        z = lib["exp"](v * b)
        return np.where(v * b > th, d, d * z / (z + one))
    return _backward_kernel(formula, dy, x)


def elu_backward(dy: np.ndarray, x: np.ndarray, alpha: float, scale: float,
                 input_scale: float) -> np.ndarray:
    """elu_backward_kernel (is_result false): dy * negiptcoef * negcoef * exp(x *
    negiptcoef) where x <= 0, else dy * poscoef (coefficients as scalar_t). The vector body
    blends on x > 0 and the scalar code tests x <= 0, so a NaN x takes the exp branch (NaN)
    in the first and dy * poscoef in the second."""
    negcoef, poscoef, negiptcoef = _elu_coefficients(x.dtype, alpha, scale, input_scale)

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        negative = d * negiptcoef * negcoef * lib["exp"](v * negiptcoef)
        if vector:
            return np.where(v > 0, d * poscoef, negative)
        return np.where(v <= 0, negative, d * poscoef)
    return _backward_kernel(formula, dy, x)


def gelu_erf_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """GeluBackwardKernel, exact form: dy * (cdf + x * pdf), cdf = 0.5 (1 + erf(x / sqrt 2)),
    pdf = beta exp(-x^2 / 2). The FMA builds' vector body fuses `cdf + x * pdf`, the scalar
    code does not (measured on float64; the tanh form is the other way round)."""
    k = _CONSTANTS[x.dtype]
    beta = x.dtype.type(_M_2_SQRTPI * _M_SQRT1_2 * 0.5)
    minus_half = x.dtype.type(-0.5)

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        cdf = k.half * (k.one + lib["erf"](v * k.k_alpha))
        pdf = beta * lib["exp"](v * v * minus_half)
        return d * (mad(v, pdf, cdf) if vector else cdf + v * pdf)
    return _backward_kernel(formula, dy, x)


def gelu_tanh_backward(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    """GeluBackwardKernel, tanh form: dy * (0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa
    x^2)), t = tanh(beta (x + kappa x^3))."""
    k = _CONSTANTS[x.dtype]
    three_kappa = x.dtype.type(3) * k.k_kappa

    def formula(d: np.ndarray, v: np.ndarray, lib: dict, mad: Callable,
                vector: bool) -> np.ndarray:
        sq = v * v
        t = lib["tanh"](k.k_beta * mad(k.k_kappa, sq * v, v))
        left = k.half * v
        left_derivative = k.half * (k.one + t)
        inner_derivative = k.k_beta * mad(three_kappa, sq, k.one)
        right_derivative = left * mad(-t, t, k.one)
        if vector:  # the vector body adds the two derivatives unfused (measured)
            return d * (left_derivative + right_derivative * inner_derivative)
        # GCC fuses the scalar sum into 0.5 * (1 + t), the left derivative's product
        return d * mad(k.half, k.one + t, right_derivative * inner_derivative)
    return _backward_kernel(formula, dy, x)


def pow_scalar(x: np.ndarray, exponent: float) -> np.ndarray:
    """pow_tensor_scalar_optimized_kernel for a float32 or float64 tensor and an exponent
    without a special case (not 2, 3, -2, 0.5, -0.5, -1): the vector body computes
    `pow(x, (scalar_t)e)` (SLEEF's; libm's per lane in the default build), the scalar code
    `std::pow(x, e)` with e a double, i.e. libm's double pow (rounded to float32)."""
    e = x.dtype.type(exponent)

    def scalar(v: np.ndarray) -> np.ndarray:
        return np.power(v.astype(np.float64), exponent).astype(x.dtype)

    power = vector_lib(x.dtype)["pow"]
    with np.errstate(all="ignore"):
        return pointwise.apply(x, lambda v: power(v, e), scalar)


def pow_scalar_half(x: np.ndarray, exponent: float) -> np.ndarray:
    """pow_tensor_scalar_kernel for a float16 tensor (no special exponents there): the
    exponent converted to float16 (Scalar::to<Half>), every element computed in float32,
    by Vectorized<Half>::pow in the vector body (SLEEF's powf on its float32 halves) and
    std::pow(float, float) (glibc's powf) in scalar code, then rounded to float16."""
    e = np.float32(np.float16(exponent))
    vector, scalar = vector_lib(_F32)["pow"], _lib(False, _F32)["pow"]
    with np.errstate(all="ignore"):
        return pointwise.apply(x, lambda v: vector(v.astype(_F32), e).astype(np.float16),
                               lambda v: scalar(v.astype(_F32), e).astype(np.float16))


def pow_tensor_half(base: np.ndarray, exponent: np.ndarray,
                    contiguous_out: bool = False) -> np.ndarray:
    """pow_tensor_tensor_kernel for float16 arrays: each pair in float32, SLEEF's powf in
    the vector body (Vectorized<Half>::pow), glibc's powf in scalar code, rounded to
    float16 (`contiguous_out`: see pointwise.apply_many)."""
    vector, scalar = vector_lib(_F32)["pow"], _lib(False, _F32)["pow"]
    with np.errstate(all="ignore"):
        return pointwise.apply_many(
            [base, exponent], lambda b, e: vector(b.astype(_F32), e.astype(_F32)).astype(
                np.float16),
            lambda b, e: scalar(b.astype(_F32), e.astype(_F32)).astype(np.float16),
            contiguous_out=contiguous_out)


def pow_tensor(base: np.ndarray, exponent: np.ndarray,
               contiguous_out: bool = False) -> np.ndarray:
    """pow_tensor_tensor_kernel for float32 or float64 arrays of one dtype: `base.pow(exp)`
    (SLEEF's powf/powd u10; libm's per lane in the default build) in the vector body,
    std::pow in the scalar code (glibc's powf or pow). `contiguous_out`: the output was
    allocated C-contiguous first (pow(Scalar, Tensor)), see pointwise.apply_many."""
    with np.errstate(all="ignore"):
        return pointwise.apply_many([base, exponent], vector_lib(base.dtype)["pow"],
                                    _lib(False, base.dtype)["pow"],
                                    contiguous_out=contiguous_out)

