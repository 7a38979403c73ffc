"""Norms (vector_norm, norm, linalg.norm), variance and standard deviation, logsumexp:
the reductions whose backward divides by what they computed."""
from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError
from .. import bfloat16, dtypes
from .. import reduction_kernels as kernels
from ..dtypes import DType
from ..formulas import local, vjp
from ..kernels import unary as unary_kernel
from ..node import Function
from ..reduction_order import cascade_sum
from ..tensor import Tensor
from ._util import cast, common_dtype, float_dtype
from .reductions import (
    _MISSING,
    mean_array,
    raw_dims,
    reduced,
    unsqueeze_multiple,
    where,
)
from .scalar import mul_scalar
from .views import saved_ints, signed, warn


class LinalgVectorNormBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "sgn({self}) × (|{self}| == {result}) / (|{self}| == "
                      "{result}).sum()",
                      when=(("ord", math.inf), ("dim", None))),
                local("self", "sgn({self}) × |{self}|^({ord} - 1) / {result}^({ord} - 1)",
                      when=(("dim", None),)),
                vjp("self", "{grad} × sgn({self}) × |{self}|^({ord} - 1) / {result}^({ord} - 1)",
                    when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × sgn({self}) × |{self}|^({ord} - 1) / "
                    "{result}.unsqueeze({dim})^({ord} - 1)"))

    def forward(self, a: Tensor, ord: Any, dim: tuple[int, ...] | None,  # noqa: A002
                keepdim: bool) -> np.ndarray:
        if not (a.dtype.is_floating_point or a.dtype.is_complex):
            raise TorchRuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                f"{a.dtype.scalar_type}")
        self.save("self", a)
        self.save_attr(dim=None if dim is None else saved_ints(dim), keepdim=keepdim, ord=ord)
        axes = tuple(range(a.array.ndim)) if dim is None else reduced(dim, a.array.ndim)
        return _norm_array(a.array, axes, keepdim, float(ord))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor | None:
        a = self.attrs
        p = float(a["ord"] if "ord" in a else a["p"])  # NormBackward1 calls it p
        return norm_backward(grad, self.unpack("self"), self.unpack("result"), p,
                             a["dim"] or (), a["keepdim"])

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        p = float(params["ord"] if "ord" in params else params["p"])
        dims = params.get("dim") or ()
        return norm_jvp(inputs[0], t[0], p, outs[0], dims, params.get("keepdim", False))


def norm_backward(grad: Tensor, self_: Tensor, norm: Tensor, p: float, dims: tuple[int, ...],
                  keepdim: bool) -> Tensor | None:
    """torch's norm_backward, op for op (so create_graph records the same nodes)."""
    from .arithmetic import pow_
    from .indexing import masked_fill_
    from .unary import sgn

    ndim = self_.array.ndim
    if not keepdim and ndim:
        grad = unsqueeze_multiple(grad, dims, ndim)
        norm = unsqueeze_multiple(norm, dims, ndim)
    if p == 0:
        return None  # torch returns an undefined gradient
    if p == 1:
        return sgn(self_) * grad
    if p == 2:
        return grad * masked_fill_(self_ / norm, norm == 0, 0)
    if math.isinf(p):
        self_abs = self_.abs()
        mask = (self_abs == norm) | Tensor._wrap(np.isnan(self_abs.array))
        count = mask.sum(dim=tuple(signed(d) for d in dims), keepdim=True)
        return sgn(self_) * ((grad / count) * mask)
    if p < 1:
        scaled = sgn(self_) * masked_fill_(pow_(self_.abs(), p - 1), self_ == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    if p < 2:
        scaled = sgn(self_) * pow_(self_.abs(), p - 1)
    else:
        scaled = self_ * pow_(self_.abs(), p - 2)
    scale_v = grad / norm.pow(p - 1)
    masked_fill_(scale_v, norm == 0, 0)
    return scaled * scale_v


def norm_jvp(self_p: Tensor, self_t: Tensor, p: float, norm: Tensor, dims: tuple[int, ...],
             keepdim: bool) -> Tensor:
    """torch's norm_jvp (FunctionsManual.cpp), op for op."""
    from .arithmetic import div_, mul_, pow_
    from .indexing import masked_fill_
    from .reductions import sum as sum_
    from .unary import sgn

    dims = tuple(signed(d) for d in dims)
    if p == 0:
        from .creation import zeros_like

        return zeros_like(norm)
    if p == 1:
        return sum_(mul_(sgn(self_p), self_t), dims, keepdim)
    if p == 2:
        result = sum_(self_p.mul(self_t), dims, keepdim)
        return masked_fill_(div_(result, norm), norm == 0, 0)
    if math.isinf(p):
        ndim = self_p.array.ndim
        if not keepdim and ndim:
            norm = unsqueeze_multiple(norm, dims, ndim)
        both_nan = Tensor._wrap(np.isnan(self_p.array) & np.isnan(norm.array))
        from .statistics import count_nonzero

        is_eq_max = Tensor._wrap(((self_p.abs() == norm) | both_nan).array.astype(
            norm.array.dtype))
        nb_max = count_nonzero(is_eq_max, dims)
        if ndim:
            nb_max = unsqueeze_multiple(nb_max, dims, ndim)
        return sum_(sgn(self_p) * self_t * is_eq_max / nb_max, dims, keepdim)
    if p < 1:
        sumpow_t = sum_(masked_fill_(pow_(self_p.abs(), p - 1), self_p == 0, 0)
                        * (sgn(self_p) * self_t), dims, keepdim)
        return sumpow_t * norm.pow(1 - p)
    if p < 2:
        sumpow_t = sum_(pow_(self_p.abs(), p - 1) * (sgn(self_p) * self_t), dims, keepdim)
    else:
        sumpow_t = sum_(pow_(self_p.abs(), p - 2) * (self_p * self_t), dims, keepdim)
    return masked_fill_(sumpow_t / norm.pow(p - 1), norm == 0, 0)


class DistBackward0(Function):
    """torch.dist(self, other, p): the p-norm of self - other, broadcast; each side's gradient
    is norm_backward of the difference (negated for other), summed to its shape."""

    __slots__ = ()
    formulas = (vjp("self", "{grad} × sgn({self} - {other}) × |{self} - {other}|^({p} - 1) / "
                    "{result}^({p} - 1)"),
                vjp("other", "-{grad} × sgn({self} - {other}) × |{self} - {other}|^({p} - 1) / "
                    "{result}^({p} - 1)"))

    def forward(self, a: Tensor, b: Tensor, p: float) -> np.ndarray:
        dtype = common_dtype(a, b)
        if not dtype.is_floating_point:
            raise TorchRuntimeError("norm(): input dtype should be either floating point or "
                                    f"complex. Got {dtype.scalar_type} instead.")
        self.save("self", a)
        self.save("other", b)
        self.save_attr(p=p)
        diff = cast(a.array, dtype) - cast(b.array, dtype)
        return _norm_array(diff, tuple(range(diff.ndim)), False, float(p))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # norm_jvp(self_p - other_p, self_t - other_t, p, result, {}, false)
        a, b = inputs
        return norm_jvp(a - b, t[0] - t[1], float(params["p"]), outs[0], (), False)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .views import sum_to

        a, b = self.unpack("self"), self.unpack("other")
        diff = a - b
        g = norm_backward(grad, diff, self.unpack("result"), float(self.attrs["p"]),
                          tuple(range(diff.array.ndim)), False)
        if g is None:
            return None, None
        return sum_to(g, a.array.shape), sum_to(-g, b.array.shape)


def dist(a: Tensor, other: Any, p: Any = 2) -> Tensor:
    return DistBackward0.call(a, other, p=p)


def _norm_array(x: np.ndarray, axes: tuple[int, ...], keepdim: bool, p: float) -> np.ndarray:
    """linalg_vector_norm's values: |x| where every reduced dim has size 1, else ATen's
    norm kernel (engine/reduction_kernels.py)."""
    if np.iscomplexobj(x):
        return _complex_norm_array(x, axes, keepdim, p)
    if not x.ndim:
        return np.asarray(np.abs(x) if p != 0 else (x != 0).astype(x.dtype))
    if builtins.all(x.shape[d] == 1 for d in axes):
        out = np.abs(x) if p != 0 else (x != 0).astype(x.dtype)
        return out if keepdim else np.squeeze(out, axes)
    if dtypes.is_bfloat16(x.dtype):
        if p != 2:
            raise NotSupportedError(f"norm(p={p:g}) of a torch.bfloat16 tensor is not "
                                    "supported by gradtrace")
        return bfloat16.norm2(x, axes, keepdim)
    if x.dtype == np.float16:  # the kernels accumulate a Half input in float (opmath_t)
        return _norm_array(x.astype(np.float32), axes, keepdim, p).astype(np.float16)
    if p == 2:
        return kernels.norm2(x, axes, keepdim)
    return kernels.norm_p(x, axes, keepdim, p)


def _complex_norm_array(x: np.ndarray, axes: tuple[int, ...], keepdim: bool,
                        p: float) -> np.ndarray:
    """linalg_vector_norm of a complex array: where every reduced dim has size 1, at::abs
    into the real result (abs_kernel's moduli, engine/complex.py); else the norm kernel's
    complex ops (engine/reduction_kernels.py). The 0-norm (at::ne into a real result, with
    a cast warning) was not measured."""
    from .. import complex as complex_kernels

    if p == 0:
        raise NotSupportedError("vector_norm(ord=0) of a complex tensor is not supported by "
                                "gradtrace")
    if builtins.all(x.shape[d] == 1 for d in axes):
        return complex_kernels.absolute(x if keepdim else np.squeeze(x, axes))
    return kernels.norm_complex(x, axes, keepdim, p)


def vector_norm(a: Tensor, ord: Any = 2, dim: Any = None,  # noqa: A002
                keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:
    raw = None if dim is None else raw_dims(dim, a.array.ndim)
    return LinalgVectorNormBackward0.call(a, ord=ord, dim=raw, keepdim=keepdim)


def norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: DType | None = None) -> Tensor:
    """Tensor.norm / torch.norm: the vector norm (Frobenius is the 2-norm)."""
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise TorchRuntimeError(f"linalg.vector_norm: unsupported norm type {p!r}")
    return vector_norm(a, p, dim, keepdim)


def linalg_norm(a: Tensor, ord: Any = None, dim: Any = None,  # noqa: A002
                keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:
    """torch.linalg.norm for vectors (and the Frobenius norm of a matrix)."""
    if ord is None or ord == "fro":
        ord = 2.0  # noqa: A001
    return vector_norm(a, ord, dim, keepdim)


def _var_correction(dim: Any, unbiased: Any, correction: Any) -> Any:
    if correction is not _MISSING and correction is not None:
        return correction
    if unbiased is not _MISSING and unbiased is not None:
        return 1 if unbiased else 0
    if dim is not _MISSING:
        return 1
    return None


def _variance(x: np.ndarray, axes: tuple[int, ...], ddof: Any, n: int, take_sqrt: bool,
              keepdim: bool, dtype: DType) -> np.ndarray:
    """A floating array's var (std) over `axes`: std_var_all_cpu for one output, else the
    dims' reduction kernel."""
    if x.size == 0:
        return np.full(_reduced_shape(x.shape, axes, keepdim), np.nan, x.dtype)
    if n == x.size:  # one output: std_var_all_cpu
        mean_ = float(mean_array(x, (), False, dtype))
        out = kernels.var_all(x, mean_, float(ddof), take_sqrt)
        return out.reshape(_reduced_shape(x.shape, axes, keepdim))
    return kernels.var_dims(x, axes, float(ddof), take_sqrt, keepdim)


class VarBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "2 × ({self} - {self}.mean()) / ({self}.numel() - 1)",
                      when=(("dim", None), ("correction", None))),
                local("self", "2 × ({self} - {self}.mean()) / ({self}.numel() - {correction})",
                      when=(("dim", None),)),
                vjp("self", "2 × {grad} × ({self} - {self}.mean({dim}, keepdim=True)) / "
                    "({self}.numel() / {grad}.numel() - {correction})",
                    when=(("keepdim", True),)),
                vjp("self", "2 × {grad}.unsqueeze({dim}) × ({self} - {self}.mean({dim}, "
                    "keepdim=True)) / ({self}.numel() / {grad}.numel() - {correction})"))
    label = "var"
    takes_sqrt = False  # std: the square root of the variance

    def forward(self, a: Tensor, dim: tuple[int, ...] | None, correction: Any,
                keepdim: bool) -> np.ndarray:
        if not (a.dtype.is_floating_point or a.dtype.is_complex):
            raise TorchRuntimeError("std and var only support floating point and complex dtypes")
        self.save("self", a)
        self.save_attr(correction=correction, dim=None if dim is None else saved_ints(dim),
                       keepdim=keepdim)
        axes = tuple(range(a.array.ndim)) if dim is None else reduced(dim, a.array.ndim)
        ddof = 1 if correction is None else correction
        n = int(np.prod([a.array.shape[d] for d in axes])) if axes else 1
        if n - ddof <= 0:
            warn(f"{self.label}(): degrees of freedom is <= 0. Correction should be strictly "
                 "less than the reduction factor (input numel divided by output numel). "
                 "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                 "ReduceOps.cpp:1861.)")
        x = a.array
        if a.dtype.is_complex:
            # std_var_out: the variances of the real and imaginary parts (views of x, read
            # with its strides), added, then the square root taken
            part = dtypes.float32 if x.dtype == np.complex64 else dtypes.float64
            with np.errstate(all="ignore"):
                out = _variance(x.real, axes, ddof, n, False, keepdim, part) + \
                    _variance(x.imag, axes, ddof, n, False, keepdim, part)
                # (at::sqrt_out: torch's float sqrt kernel, not numpy's)
                return unary_kernel("sqrt", out) if self.takes_sqrt else out
        return _variance(x, axes, ddof, n, self.takes_sqrt, keepdim, a.dtype)

    def _var_backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return var_backward(grad, self.unpack("self"), a["dim"], a["correction"], a["keepdim"])

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::real(var_backward(self_t, self_p, dim, correction, true).sum(dim or {}, keepdim))
        return _var_jvp(t[0], inputs[0], params)

    def backward(self, grad: Tensor) -> Tensor:
        return self._var_backward(grad)


class StdBackward0(VarBackward0):
    __slots__ = ()
    formulas = (local("self", "({self} - {self}.mean()) / (({self}.numel() - 1) × {result})",
                      when=(("dim", None), ("correction", None))),
                local("self", "({self} - {self}.mean()) / (({self}.numel() - {correction}) × "
                      "{result})",
                      when=(("dim", None),)),
                vjp("self", "{grad} × ({self} - {self}.mean({dim}, keepdim=True)) / "
                    "(({self}.numel() / {grad}.numel() - {correction}) × {result})",
                    when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × ({self} - {self}.mean({dim}, "
                    "keepdim=True)) / (({self}.numel() / {grad}.numel() - {correction}) × "
                    "{result}.unsqueeze({dim}))"))
    label = "std"
    takes_sqrt = True

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        """torch: var_backward((grad / (result * 2)).masked_fill_(result == 0, 0), ...)."""
        from .indexing import masked_fill_

        result = self.unpack("result")
        return self._var_backward(masked_fill_(grad / mul_scalar(result, 2), result == 0, 0))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # (var's tangent / (2. * result)).masked_fill_(result == 0, 0)
        from .indexing import masked_fill_

        result = outs[0]
        return masked_fill_(_var_jvp(t[0], inputs[0], params) / mul_scalar(result, 2.0),
                            result == 0, 0)


def var_backward(grad: Tensor, self_: Tensor, dims: Any, correction: Any,
                 keepdim: bool) -> Tensor:
    """torch's var_backward: (2.0 / dof) * grad * (self - self.mean(...))."""
    ndim = self_.array.ndim
    correction = 1 if correction is None else correction
    if ndim == 0 or dims is None:
        dof = float(self_.array.size) - correction
        if dof <= 0:
            inf = Tensor.scalar(math.inf)
            return grad * where(self_ == self_.mean(), Tensor.scalar(math.nan), inf)
        return mul_scalar(grad, 2.0 / dof) * (self_ - self_.mean())
    if not keepdim and ndim > 1:
        grad = unsqueeze_multiple(grad, dims, ndim)
    axes = reduced(dims, ndim)
    rnumel = float(np.prod([self_.array.shape[d] for d in axes]))
    with np.errstate(divide="ignore"):
        scale = float(np.float64(2.0) / np.float64(rnumel - correction))
    return mul_scalar(grad, scale) * (self_ - self_.mean(dim=tuple(signed(d) for d in dims),
                                                         keepdim=True))


def _var_jvp(self_t: Tensor, self_p: Tensor, params: dict) -> Tensor:
    # at::real(var_backward(self_t.conj(), self_p, ...).sum(...))
    from .complex_ops import conj_physical, real
    from .reductions import sum as sum_

    dims = params["dim"]
    out = var_backward(conj_physical(self_t), self_p, dims, params["correction"], True)
    out = sum_(out, tuple(signed(d) for d in dims) if dims else (), params["keepdim"])
    return real(out) if out.dtype.is_complex else out


def _reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...],
                   keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _var_std(node: type[VarBackward0], a: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any) -> Tensor:
    if isinstance(dim, bool) and unbiased is _MISSING:  # var(unbiased) overload
        dim, unbiased = _MISSING, dim
    corr = _var_correction(dim, unbiased, correction)
    raw = None if dim is _MISSING or dim is None else raw_dims(dim, a.array.ndim)
    return node.call(a, dim=raw, correction=corr, keepdim=keepdim)


def var(a: Tensor, dim: Any = _MISSING, unbiased: Any = _MISSING, keepdim: bool = False, *,
        correction: Any = _MISSING) -> Tensor:
    return _var_std(VarBackward0, a, dim, unbiased, keepdim, correction)


def std(a: Tensor, dim: Any = _MISSING, unbiased: Any = _MISSING, keepdim: bool = False, *,
        correction: Any = _MISSING) -> Tensor:
    return _var_std(StdBackward0, a, dim, unbiased, keepdim, correction)


class LogsumexpBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad} × exp({self} - {result})", when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × exp({self} - {result}.unsqueeze({dim}))"))

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False) -> np.ndarray:
        self.save("self", a)
        self.save_attr(dim=saved_ints(dim), keepdim=keepdim)
        x = cast(a.array, float_dtype(a.dtype))
        axes = reduced(dim, x.ndim)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # logsumexp_out_impl: amax, infinite maxima set to 0 (masked_fill_), then
            # sum((self - maxes).exp_()).log_().add_(maxes): torch's exp and log kernels
            m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim,
                                                                             x.dtype)
            m = np.where(np.abs(m) == np.inf, 0, m).astype(x.dtype)
            total = cascade_sum(unary_kernel("exp", x - m), axes, True)
            out = unary_kernel("log", total) + m
        if not keepdim:
            out = np.squeeze(out, axis=axes)
        return np.asarray(out, dtype=x.dtype)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        self_, result = self.unpack("self"), self.unpack("result")
        ndim = self_.array.ndim
        if not self.attrs["keepdim"] and ndim:
            grad = unsqueeze_multiple(grad, self.attrs["dim"], ndim)
            result = unsqueeze_multiple(result, self.attrs["dim"], ndim)
        return grad * (self_ - result).exp()

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        from .softmax import logsumexp_jvp

        return logsumexp_jvp(inputs[0], t[0], params["dim"], params["keepdim"])


def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return LogsumexpBackward0.call(a, dim=raw_dims(dim, a.array.ndim), keepdim=keepdim)


