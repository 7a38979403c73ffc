"""torch.nn.functional: softmax/log_softmax, activations and losses, recording torch's nodes.

Composite functions (l1_loss, cross_entropy) are built from the ops torch builds them
from, so their graphs show the same chain of nodes.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchIndexError, TorchRuntimeError, TorchValueError
from .. import dtypes, kernels
from ..formulas import PRESENT, Formula, local, vjp
from ..kernels import precise
from ..node import FREED_MESSAGE, Function
from ..shapes import Size, broadcast_shapes, wrap_dim
from ..tensor import Tensor
from ._util import apply_inplace, cast
from .scalar import DivBackward1, add_scalar, div_scalar, mul_scalar
from .views import ExpandBackward0, saved_int, signed, warn

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_MEAN = (("reduction", REDUCTIONS["mean"]),)


def _weighted(formula: Formula) -> tuple[Formula, ...]:
    """A loss's local derivative as torch applies it: times `weight` when one is given,
    divided by the number of elements for reduction='mean' (most specific first)."""
    out = []
    for weighted in (True, False):
        for mean in (True, False):
            math = f"{{weight}} × ({formula.math})" if weighted else f"({formula.math})"
            if mean:
                math += " / {self}.numel()"
            elif not weighted:
                math = formula.math
            when = formula.when + ((("weight", PRESENT if weighted else None),)
                                   + (_MEAN if mean else ()))
            out.append(replace(formula, math=math, when=when))
    return tuple(out)

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _reduction(reduction: str) -> int:
    if reduction not in REDUCTIONS:
        raise TorchValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def _not_implemented(kernel: str, dtype: dtypes.DType) -> Exception:
    from ...errors import ScriptError

    return ScriptError(f"\"{kernel}\" not implemented for '{dtype.tensor_type[:-6]}'",
                       kind="NotImplementedError")


# -- softmax ---------------------------------------------------------------------------


class SoftmaxBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{result} × ({grad} - ({grad} × {result}).sum({dim}, keepdim=True))"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        if not a.dtype.is_floating_point:
            last = a.array.ndim == 0 or wrap_dim(dim, a.array.ndim) == a.array.ndim - 1
            raise _not_implemented(f"softmax_{'lastdim_' if last else ''}kernel_impl", a.dtype)
        d = wrap_dim(dim, a.array.ndim)
        self.save_attr(dim=saved_int(dim))
        x = a.array
        if x.ndim == 0:
            return np.ones_like(x)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            e = precise(np.exp, x - np.max(x, axis=d, keepdims=True))
            # torch multiplies by the reciprocal of the sum
            return (e * (np.asarray(1, x.dtype) / np.sum(e, axis=d, keepdims=True))).astype(
                x.dtype)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        result = self.unpack("result")
        if result.array.ndim == 0:
            return grad * 0.0
        return SoftmaxBackwardDataBackward0.call(grad, result, dim=self.attrs["dim"])


class SoftmaxBackwardDataBackward0(Function):
    """_softmax_backward_data(grad_output, output, dim) as an op, for create_graph."""

    __slots__ = ()
    formulas = (vjp("grad_output", "{output} × ({grad} - ({grad} × {output}).sum({dim}, "
                    "keepdim=True))"),
                vjp("output", "{grad_output} × {grad} - ({output} × {grad_output}).sum({dim}, "
                    "keepdim=True) × {grad} - {grad_output} × ({output} × {grad}).sum({dim}, "
                    "keepdim=True)"))

    def forward(self, grad: Tensor, output: Tensor, dim: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", output)
        self.save_attr(dim=dim)
        d = signed(dim)
        y, g = output.array, grad.array
        return (y * (g - np.sum(g * y, axis=d, keepdims=True))).astype(y.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, output = self.unpack("grad_output"), self.unpack("output")
        dim = self.attrs["dim"]
        d = signed(dim)
        g_grad = g_out = None
        if self.needs_input_grad(0):
            g_grad = SoftmaxBackwardDataBackward0.call(gg, output, dim=dim)
        if self.needs_input_grad(1):  # torch's softmax_double_backward
            g_out = (grad * gg - (output * grad).sum(d, True) * gg
                     - grad * (output * gg).sum(d, True))
        return g_grad, g_out


class LogSoftmaxBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad} - exp({result}) × {grad}.sum({dim}, keepdim=True)"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        if not a.dtype.is_floating_point:
            last = a.array.ndim == 0 or wrap_dim(dim, a.array.ndim) == a.array.ndim - 1
            raise _not_implemented(f"log_softmax_{'lastdim_' if last else ''}kernel_impl", a.dtype)
        d = wrap_dim(dim, a.array.ndim)
        self.save_attr(dim=saved_int(dim))
        x = a.array
        if x.ndim == 0:
            return np.zeros_like(x)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            shifted = x - np.max(x, axis=d, keepdims=True)
            total = np.sum(precise(np.exp, shifted), axis=d, keepdims=True)
            return (shifted - precise(np.log, total)).astype(x.dtype)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        result = self.unpack("result")
        if result.array.ndim == 0:
            return grad * 0.0
        return LogSoftmaxBackwardDataBackward0.call(grad, result, dim=self.attrs["dim"])


class LogSoftmaxBackwardDataBackward0(Function):
    """_log_softmax_backward_data(grad_output, output, dim) as an op, for create_graph."""

    __slots__ = ()
    formulas = (vjp("grad_output", "{grad} - ({grad} × exp({output})).sum({dim}, keepdim=True)"),
                vjp("output", "-{grad_output}.sum({dim}, keepdim=True) × exp({output}) × {grad}"))

    def forward(self, grad: Tensor, output: Tensor, dim: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", output)
        self.save_attr(dim=dim)
        d = signed(dim)
        y, g = output.array, grad.array
        with np.errstate(over="ignore", invalid="ignore"):
            return (g - np.exp(y) * np.sum(g, axis=d, keepdims=True)).astype(y.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, output = self.unpack("grad_output"), self.unpack("output")
        dim = self.attrs["dim"]
        g_grad = g_out = None
        if self.needs_input_grad(0):  # torch: grad - (grad * output.exp()).sum(dim, true)
            g_grad = gg - (gg * output.exp()).sum(signed(dim), True)
        if self.needs_input_grad(1):  # torch: -grad_output.sum(dim, true) * output.exp() * grad
            g_out = (-grad.sum(signed(dim), True) * output.exp()) * gg
        return g_grad, g_out


def _softmax_dim(name: str, ndim: int) -> int:
    warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
         "dim=X as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def _with_dtype(a: Tensor, dtype: Any) -> Tensor:
    from .views import to

    return a if dtype is None else to(a, dtype)


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,  # noqa: A002
            dtype: Any = None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmax", input.array.ndim)
    return SoftmaxBackward0.call(_with_dtype(input, dtype), dim=dim)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3,  # noqa: A002
                dtype: Any = None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("log_softmax", input.array.ndim)
    return LogSoftmaxBackward0.call(_with_dtype(input, dtype), dim=dim)


def tensor_softmax(a: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """torch.softmax / Tensor.softmax: dim is required."""
    return SoftmaxBackward0.call(_with_dtype(a, dtype), dim=dim)


def tensor_log_softmax(a: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return LogSoftmaxBackward0.call(_with_dtype(a, dtype), dim=dim)


# -- activations --------------------------------------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    from .unary import relu as relu_op
    from .unary import relu_

    return relu_(input) if inplace else relu_op(input)


class LeakyReluBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 if {self} > 0 else {negative_slope}"),)

    def forward(self, a: Tensor, negative_slope: float) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise _not_implemented("leaky_relu_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(negative_slope=negative_slope)
        x = a.array
        return np.where(x > 0, x, x * negative_slope).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return leaky_relu_backward(grad, self.unpack("self"), self.attrs["negative_slope"])


class LeakyReluBackwardBackward0(Function):
    """leaky_relu_backward(grad_output, self, negative_slope) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "1 if {self} > 0 else {negative_slope}"),
                local("self", "0"))

    def forward(self, grad: Tensor, x: Tensor, negative_slope: Any) -> np.ndarray:
        self.save("self", x)
        self.save_attr(negative_slope=negative_slope)
        g = grad.array
        return np.where(x.array > 0, g, g * negative_slope).astype(g.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        x = self.unpack("self")
        g_grad = (leaky_relu_backward(gg, x, self.attrs["negative_slope"])
                  if self.needs_input_grad(0) else None)
        return g_grad, (zeros_like(gg) if self.needs_input_grad(1) else None)


def leaky_relu_backward(grad: Tensor, x: Tensor, negative_slope: Any) -> Tensor:
    return LeakyReluBackwardBackward0.call(grad, x, negative_slope=negative_slope)


def leaky_relu(input: Tensor, negative_slope: float = 0.01,  # noqa: A002
               inplace: bool = False) -> Tensor:
    if inplace:
        return apply_inplace(LeakyReluBackward0, input, negative_slope=negative_slope)
    return LeakyReluBackward0.call(input, negative_slope=negative_slope)


_SQRT2 = math.sqrt(2.0)
_BETA = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715
_GELU_PDF_BETA = 2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5


def _gelu_parts(x: np.ndarray, approximate: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """gelu(x), gelu'(x) and gelu''(x), computed in float64."""
    x = x.astype(np.float64)
    if approximate == "tanh":
        u = _BETA * (x + _KAPPA * x ** 3)
        th = np.tanh(u)
        du = _BETA * (1 + 3 * _KAPPA * x * x)
        sech2 = 1 - th * th
        value = 0.5 * x * (1 + th)
        first = 0.5 * (1 + th) + 0.5 * x * sech2 * du
        second = sech2 * du + 0.5 * x * sech2 * (-2 * th * du * du + 6 * _BETA * _KAPPA * x)
        return value, first, second
    cdf = 0.5 * (1 + _erf(x / _SQRT2))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return x * cdf, cdf + x * pdf, pdf * (2 - x * x)


class GeluBackwardBackward0(Function):
    """gelu's backward as an op of its own (inputs grad, self), for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "gelu′({self})"),
                local("self", "{grad_output} × gelu″({self})"))

    def forward(self, grad: Tensor, x: Tensor, approximate: str) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save_attr(approximate=approximate)
        _, first, _ = _gelu_parts(x.array, approximate)
        return (grad.array * first).astype(grad.array.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, x = self.unpack("grad_output"), self.unpack("self")
        approximate = self.attrs["approximate"]
        g_grad = GeluBackwardBackward0.call(gg, x, approximate=approximate) \
            if self.needs_input_grad(0) else None
        g_x = None
        if self.needs_input_grad(1):
            if approximate == "none":  # torch's gelu_double_backward, op for op
                input_sq = x * x
                pdf = mul_scalar(mul_scalar(input_sq, -0.5).exp(), _GELU_PDF_BETA)
                g_x = gg * grad * (mul_scalar(pdf, 2) - input_sq * pdf)
            else:
                _, _, second = _gelu_parts(x.array, approximate)
                g_x = gg * grad * Tensor._wrap(second.astype(x.array.dtype))
        return g_grad, g_x


class GeluBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "Φ({self}) + {self} × φ({self})", when=(("approximate", "none"),)),
                local("self", "gelu′({self})"))

    def forward(self, a: Tensor, approximate: str = "none") -> np.ndarray:
        if approximate not in ("none", "tanh"):
            raise TorchRuntimeError("approximate argument must be either none or tanh.")
        if not a.dtype.is_floating_point:
            raise _not_implemented("GeluKernelImpl", a.dtype)
        self.save("self", a)
        self.save_attr(approximate=approximate)
        if a.array.dtype == np.float32:
            return kernels.gelu(a.array, approximate)
        value, _, _ = _gelu_parts(a.array, approximate)
        return value.astype(a.array.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return GeluBackwardBackward0.call(grad, self.unpack("self"),
                                          approximate=self.attrs["approximate"])


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    return GeluBackward0.call(input, approximate=approximate)


class SiluBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "σ({self}) × (1 + {self} × (1 - σ({self})))"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise _not_implemented("silu_cpu", a.dtype)
        self.save("self", a)
        x = a.array
        if x.dtype == np.float32:
            return kernels.silu(x)
        with np.errstate(over="ignore"):
            return (x / (np.asarray(1, x.dtype) + precise(np.exp, -x))).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        """torch: grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid))."""
        from .creation import full_like

        x = self.unpack("self")
        s = x.sigmoid()
        right = add_scalar(x * (full_like(s, 1.0) - s), 1.0)  # C++ evaluates this operand first
        return grad * s * right


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return apply_inplace(SiluBackward0, input)
    return SiluBackward0.call(input)


class SoftplusBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "σ({beta} × {self}) if {beta} × {self} ≤ {threshold} else 1"),)

    def forward(self, a: Tensor, beta: Any = 1, threshold: Any = 20) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise _not_implemented("softplus_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(beta=beta, threshold=threshold)
        x = a.array
        if x.dtype == np.float32:
            return kernels.softplus(x, beta, threshold)
        with np.errstate(over="ignore"):
            soft = precise(np.log1p, precise(np.exp, x * beta)) / beta
        return np.where(x * beta > threshold, x, soft).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return SoftplusBackwardBackward0.call(grad, self.unpack("self"), beta=self.attrs["beta"],
                                              threshold=self.attrs["threshold"])


class SoftplusBackwardBackward0(Function):
    """softplus_backward(grad_output, self, beta, threshold) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "σ({beta} × {self}) if {beta} × {self} ≤ {threshold} else 1"),
                local("self", "{beta} × {grad_output} × σ′({beta} × {self}) if {beta} × {self} < "
                      "{threshold} else 0"))

    def forward(self, grad: Tensor, x: Tensor, beta: Any, threshold: Any) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save_attr(beta=beta, threshold=threshold)
        xb = x.array * beta
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.exp(xb)
            return np.where(xb > threshold, grad.array, grad.array * z / (z + 1)).astype(
                grad.array.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .unary import sigmoid_backward

        grad, x = self.unpack("grad_output"), self.unpack("self")
        beta, threshold = self.attrs["beta"], self.attrs["threshold"]
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = SoftplusBackwardBackward0.call(gg, x, beta=beta, threshold=threshold)
        if self.needs_input_grad(1):  # torch's softplus_double_backward(gg * grad_output, ...)
            xb = mul_scalar(x, beta)
            mask = Tensor._wrap((xb.array < threshold).astype(gg.array.dtype))
            g_x = mul_scalar(sigmoid_backward(gg * grad, xb.sigmoid()) * mask, beta)
        return g_grad, g_x


def softplus(input: Tensor, beta: Any = 1, threshold: Any = 20) -> Tensor:  # noqa: A002
    return SoftplusBackward0.call(input, beta=beta, threshold=threshold)


class EluBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "{scale} if {self} > 0 else {scale} × {alpha} × {input_scale} × "
                      "exp({input_scale} × {self})"),)

    def forward(self, a: Tensor, alpha: Any = 1.0, scale: Any = 1,
                input_scale: Any = 1) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise _not_implemented("elu_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(alpha=alpha, input_scale=input_scale, scale=scale)
        x = a.array
        if x.dtype == np.float32:
            return kernels.elu(x, alpha, scale, input_scale)
        with np.errstate(over="ignore"):
            neg = scale * alpha * precise(np.expm1, x * input_scale)
        return np.where(x > 0, scale * x, neg).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return EluBackwardBackward0.call(grad, self.unpack("self"), alpha=a["alpha"],
                                         scale=a["scale"], input_scale=a["input_scale"])


class EluBackwardBackward0(Function):
    """elu_backward(grad_output, ..., self_or_result) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "{scale} if {self_or_result} > 0 else {scale} × {alpha} × "
                      "{input_scale} × exp({input_scale} × {self_or_result})"),
                local("self_or_result", "0 if {self_or_result} > 0 else {grad_output} × {scale} "
                      "× {alpha} × {input_scale}² × exp({input_scale} × {self_or_result})"))

    def forward(self, grad: Tensor, x: Tensor, alpha: Any, scale: Any,
                input_scale: Any) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self_or_result", x)
        self.save_attr(alpha=alpha, input_scale=input_scale, is_result=False, scale=scale)
        g, v = grad.array, x.array
        with np.errstate(over="ignore"):
            neg = g * (input_scale * scale * alpha) * np.exp(v * input_scale)
        return np.where(v > 0, g * scale, neg).astype(g.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, x = self.unpack("grad_output"), self.unpack("self_or_result")
        a = self.attrs
        params = dict(alpha=a["alpha"], scale=a["scale"], input_scale=a["input_scale"])
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = EluBackwardBackward0.call(gg, x, **params)
        if self.needs_input_grad(1):  # torch's elu_double_backward (is_result false)
            mask = Tensor._wrap((x.array < 0).astype(gg.array.dtype))
            inner = mul_scalar(gg * grad, a["input_scale"])
            g_x = EluBackwardBackward0.call(inner, x, **params) * mask
        return g_grad, g_x


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return apply_inplace(EluBackward0, input, alpha=alpha)
    return EluBackward0.call(input, alpha=alpha)


# -- losses ------------------------------------------------------------------------------


def _size_warning(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if target.shape != input.shape:
        warn(f"Using a target size ({Size(target.shape)!r}) that is different to the input size "
             f"({Size(input.shape)!r}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.")


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    shape = broadcast_shapes(a.shape, b.shape)
    if a.shape != shape:
        a = ExpandBackward0.call(a, shape=shape)
    if b.shape != shape:
        b = ExpandBackward0.call(b, shape=shape)
    return a, b


def _reduce(loss: np.ndarray, reduction: int) -> np.ndarray:
    if reduction == 1:
        return np.asarray(np.mean(loss), dtype=loss.dtype)
    if reduction == 2:
        return np.asarray(np.sum(loss), dtype=loss.dtype)
    return loss


def _scale_grad(grad: Tensor, reduction: int, numel: int) -> Tensor:
    return div_scalar(grad, numel) if reduction == 1 else grad  # torch: grad_input.div_(numel)


class MseLossBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "2 × ({self} - {target}) / {self}.numel()", when=_MEAN),
                local("self", "2 × ({self} - {target})"),
                local("target", "-2 × ({self} - {target}) / {self}.numel()", when=_MEAN),
                local("target", "-2 × ({self} - {target})"))

    def forward(self, a: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        dtype = dtypes.promote(a.dtype, target.dtype)
        if not dtype.is_floating_point:
            raise _not_implemented("mse_cpu", dtype)
        self.save("self", a)
        self.save("target", target)
        self.save_attr(reduction=reduction)
        diff = cast(a.array, dtype) - cast(target.array, dtype)
        return _reduce(diff * diff, reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, target = self.unpack("self"), self.unpack("target")
        reduction = self.attrs["reduction"]
        g_x = g_t = None
        if self.needs_input_grad(0):
            g_x = MseLossBackwardBackward0.call(grad, x, target, reduction=reduction)
        if self.needs_input_grad(1):  # torch: mse_loss_backward(grad, target, self, reduction)
            g_t = MseLossBackwardBackward0.call(grad, target, x, reduction=reduction)
        return g_x, g_t


class MseLossBackwardBackward0(Function):
    """mse_loss_backward(grad_output, self, target, reduction) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "2 × ({self} - {target}) / {self}.numel()", when=_MEAN),
                local("grad_output", "2 × ({self} - {target})"),
                local("self", "2 × {grad_output} / {self}.numel()", when=_MEAN),
                local("self", "2 × {grad_output}"),
                local("target", "-2 × {grad_output} / {self}.numel()", when=_MEAN),
                local("target", "-2 × {grad_output}"))

    def forward(self, grad: Tensor, x: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("target", target)
        self.save_attr(reduction=reduction)
        dtype = x.array.dtype
        out = 2 * (x.array - target.array) * grad.array
        if reduction == 1:
            out = out / x.array.size
        return np.asarray(out, dtype=dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        grad, x, target = (self.unpack("grad_output"), self.unpack("self"),
                           self.unpack("target"))
        reduction = self.attrs["reduction"]
        g_grad = g_x = g_t = None
        if self.needs_input_grad(0):  # torch's mse_loss_double_backward_grad_output
            if reduction == 0:
                g_grad = MseLossBackwardBackward0.call(gg, x, target, reduction=reduction)
            else:
                from .creation import ones_like

                r = MseLossBackwardBackward0.call(ones_like(grad), x, target, reduction=reduction)
                g_grad = (r * gg).sum()
        if self.needs_input_grad(1) or self.needs_input_grad(2):
            both = mul_scalar(gg * grad, 2)  # torch's mse_loss_double_backward
            if reduction == 1:
                both = div_scalar(both, x.array.size)
            g_x = both if self.needs_input_grad(1) else None
            g_t = -both if self.needs_input_grad(2) else None
        return g_grad, g_x, g_t


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
             reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    _size_warning(input, target)
    code = _reduction(reduction)
    a, b = _broadcast_pair(input, target)
    return MseLossBackward0.call(a, b, reduction=code)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
            reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Composite in torch: (input - target).abs() then mean / sum."""
    _size_warning(input, target)
    code = _reduction(reduction)
    a, b = _broadcast_pair(input, target)
    loss = (a - b).abs()
    if code == 1:
        return loss.mean()
    if code == 2:
        return loss.sum()
    return loss


class NllLossBackward0(Function):
    """nll_loss for (N, C) or (C,) input; `total_weight` is saved as torch does."""

    __slots__ = ()
    formulas = (local("self", "-1 / {total_weight} if class == {target} else 0",
                      when=_MEAN + (('weight', None),)),
                local("self", "-{weight}[{target}] / {total_weight} if class == {target} else 0",
                      when=_MEAN),
                local("self", "-1 if class == {target} else 0", when=(("weight", None),)),
                local("self", "-{weight}[{target}] if class == {target} else 0"))

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                ignore_index: int) -> np.ndarray:
        x = a.array
        t_ = target.array
        classes = x.shape[-1] if x.ndim == 1 else x.shape[1]
        if weight is not None and weight.array.shape != (classes,):
            raise TorchRuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no "
                f"classes but got weight tensor of shape: "
                f"[{', '.join(map(str, weight.array.shape))}]")
        rows = x.reshape(1, -1) if x.ndim == 1 else x
        tflat = t_.reshape(-1)
        valid = tflat != ignore_index
        bad = tflat[valid & ((tflat < 0) | (tflat >= classes))]
        if bad.size:
            raise TorchIndexError(f"Target {int(bad[0])} is out of bounds.")
        safe = np.where(valid, tflat, 0)
        w = np.ones(classes, dtype=x.dtype) if weight is None else weight.array
        wi = np.where(valid, w[safe], 0).astype(x.dtype)
        picked = rows[np.arange(rows.shape[0]), safe]
        losses = -wi * picked
        total = np.asarray(wi.sum(), dtype=x.dtype) if reduction != 0 else np.zeros((), x.dtype)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save("total_weight", Tensor._wrap(total))
        self.save_attr(ignore_index=saved_int(ignore_index), reduction=reduction)
        if reduction == 0:
            return losses.reshape(t_.shape).astype(x.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = losses.sum() / total if reduction == 1 else losses.sum()
        return np.asarray(out, dtype=x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        x, target = self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        ignore = signed(self.attrs["ignore_index"])
        arr = x.array
        classes = arr.shape[-1] if arr.ndim == 1 else arr.shape[1]
        tflat = target.array.reshape(-1)
        valid = tflat != ignore
        safe = np.where(valid, tflat, 0)
        w = np.ones(classes, dtype=arr.dtype) if weight is None else weight.array
        coeff = np.zeros((tflat.size, classes), dtype=arr.dtype)
        coeff[np.arange(tflat.size), safe] = np.where(valid, -w[safe], 0)
        if reduction == 1:
            with np.errstate(invalid="ignore", divide="ignore"):
                coeff = coeff / self.unpack("total_weight").array
        coeff_t = Tensor._wrap(coeff.reshape(arr.shape).astype(arr.dtype))
        return NllLossBackwardBackward0.call(grad, x, coeff=coeff_t, target=target, weight=weight,
                                             reduction=reduction,
                                             ignore_index=self.attrs["ignore_index"])


class NllLossBackwardBackward0(Function):
    """nll_loss's backward as an op (inputs grad_output, self), for create_graph: linear in
    grad_output, and zero towards self (which still makes the result require grad).
    Saves what torch shows (ignore_index, reduction, target, weight); the per-element
    coefficients it multiplies by are kept aside."""

    __slots__ = ("coeff",)
    formulas = (vjp("grad_output", "({grad} × ∂nll/∂{self}).sum(-1)"),
                local("self", "0"))

    def forward(self, grad: Tensor, x: Tensor, coeff: Tensor, target: Tensor,
                weight: Tensor | None, reduction: int, ignore_index: int) -> np.ndarray:
        self.coeff = coeff
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(ignore_index=ignore_index, reduction=reduction)
        g = grad.array
        if reduction == 0 and x.array.ndim == 2:
            g = g[:, None]
        return (g * coeff.array).astype(x.array.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        if self.released:
            raise TorchRuntimeError(FREED_MESSAGE)
        coeff = self.coeff
        g_grad = None
        if self.needs_input_grad(0):
            prod = gg * coeff
            g_grad = prod.sum(1) if tuple(self.input_meta[0][0]) and prod.ndim == 2 else prod.sum()
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    code = _reduction(reduction)
    if input.array.ndim < 1:
        raise TorchValueError(f"Expected 1 or more dimensions (got {input.array.ndim})")
    if input.array.ndim > 2:
        raise NotSupportedError("nll_loss / cross_entropy on inputs of more than 2 dimensions "
                                "is not supported by gradtrace")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise TorchRuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.tensor_type[:-6]}")
    if target.array.ndim > 1 and input.array.ndim == 1:
        raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.array.ndim == 1 and target.array.ndim == 1 and target.array.shape[0] != 1:
        raise TorchValueError(
            f"For 1D input, 1D target must have size 1, but got target size: "
            f"{target.array.shape[0]}")
    if input.array.ndim == 2 and (target.array.ndim != 1
                                  or target.array.shape[0] != input.array.shape[0]):
        got = target.array.shape[0] if target.array.ndim else 0
        raise TorchValueError(
            f"Expected input batch_size ({input.array.shape[0]}) to match target batch_size "
            f"({got}).")
    return NllLossBackward0.call(input, target=target, weight=weight, reduction=code,
                                 ignore_index=ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    code = _reduction(reduction)
    if label_smoothing:
        raise NotSupportedError("cross_entropy with label_smoothing is not supported by gradtrace")
    class_dim = 0 if input.array.ndim == 1 else 1
    logp = LogSoftmaxBackward0.call(input, dim=class_dim)
    if target.shape == input.shape:  # torch: same shapes mean class probabilities
        if not target.dtype.is_floating_point:
            raise TorchRuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target.dtype.tensor_type[:-6]}")
        prod = logp * target if weight is None else logp * target * weight.view(
            (-1,) + (1,) * (input.array.ndim - 2))
        if code == 0:
            return -prod.sum(class_dim)
        total = -prod.sum()
        if code == 2:
            return total
        batch = input.array.shape[0] if input.array.ndim > 1 else 1
        return DivBackward1.call(total, other=batch)
    return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)


_BCE_EPS = 1e-12


class BinaryCrossEntropyBackward0(Function):
    __slots__ = ()
    formulas = (*_weighted(local('self', '({self} - {target}) / ({self} × (1 - {self}))')),
                *_weighted(local('target', 'ln(1 - {self}) - ln({self})')))

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None,
                reduction: int) -> np.ndarray:
        x, t_ = a.array, target.array
        if a.dtype is not target.dtype:
            raise TorchRuntimeError(
                f"Found dtype {target.dtype.tensor_type[:-6]} but expected "
                f"{a.dtype.tensor_type[:-6]}")
        if ((x < 0) | (x > 1)).any():
            raise TorchRuntimeError("all elements of input should be between 0 and 1")
        if ((t_ < 0) | (t_ > 1)).any():
            raise TorchRuntimeError("all elements of target should be between 0 and 1")
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_x = np.maximum(np.log(x), -100)
            log_1mx = np.maximum(np.log1p(-x), -100)
        loss = (t_ - 1) * log_1mx - t_ * log_x
        if weight is not None:
            loss = loss * weight.array
        return _reduce(loss.astype(x.dtype), reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:

        x, t_ = self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        g_x = g_t = None
        if self.needs_input_grad(0):
            g_x = BinaryCrossEntropyBackwardBackward0.call(grad, x, t_, weight=weight,
                                                           reduction=reduction)
        if self.needs_input_grad(1):
            g_t = grad * ((1 - x).log() - x.log())
            if weight is not None:
                g_t = g_t * weight
            g_t = _scale_grad(g_t, reduction, t_.numel())
        return g_x, g_t


class BinaryCrossEntropyBackwardBackward0(Function):
    """binary_cross_entropy_backward(grad_output, self, target, weight) as an op."""

    __slots__ = ()
    formulas = (*_weighted(local('grad_output', '({self} - {target}) / ({self} × (1 - {self}))')),
                *_weighted(local("self", "{grad_output} × ({self}² - 2 × {self} × {target} + "
                                "{target}) / ({self}² × (1 - {self})²)")),
                *_weighted(local('target', '-{grad_output} / ({self} × (1 - {self}))')))

    def forward(self, grad: Tensor, x: Tensor, target: Tensor, weight: Tensor | None,
                reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        v, t_ = x.array, target.array
        out = grad.array * (v - t_) / np.maximum((1 - v) * v, _BCE_EPS)
        if weight is not None:
            out = out * weight.array
        if reduction == 1:
            out = out / v.size
        return np.asarray(out, dtype=v.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        from .creation import full_like

        grad, x, t_ = self.unpack("grad_output"), self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = BinaryCrossEntropyBackwardBackward0.call(gg, x, t_, weight=weight,
                                                              reduction=reduction)
        if self.needs_input_grad(1):  # torch's binary_cross_entropy_double_backward
            inp_pl_eps = add_scalar(x, _BCE_EPS)
            one_m_inp_pl_eps = add_scalar(full_like(x, 1) - x, _BCE_EPS)
            g_x = (x * x - mul_scalar(x, 2) * t_ + t_) / (inp_pl_eps.pow(2)
                                                           * one_m_inp_pl_eps.pow(2))
            g_x = g_x * (gg * grad)
            if weight is not None:
                g_x = g_x * weight
            if reduction == 1:
                g_x = div_scalar(g_x, x.array.size)
        g_t = None
        if self.needs_input_grad(2):  # torch's binary_cross_entropy_double_backward_target
            g_t = -gg * grad
            if weight is not None:
                g_t = g_t * weight
            denom = (full_like(x, 1) - x) * x
            np.maximum(denom.array, _BCE_EPS, out=denom.array)  # clamp_min_ under no_grad
            denom._version_counter.value += 1
            g_t = g_t / denom
            if reduction == 1:
                g_t = div_scalar(g_t, t_.array.size)
        return g_grad, g_x, g_t


def binary_cross_entropy(input: Tensor, target: Tensor,  # noqa: A002
                         weight: Tensor | None = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    code = _reduction(reduction)
    if target.shape != input.shape:
        raise TorchValueError(
            f"Using a target size ({Size(target.shape)!r}) that is different to the input size "
            f"({Size(input.shape)!r}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        shape = broadcast_shapes(target.shape, weight.shape)
        if weight.shape != shape:
            weight = ExpandBackward0.call(weight, shape=shape)
    return BinaryCrossEntropyBackward0.call(input, target, weight=weight, reduction=code)


class BinaryCrossEntropyWithLogitsBackward0(Function):
    __slots__ = ()
    formulas = (*_weighted(local("self", "(1 + ({pos_weight} - 1) × {target}) × σ({self}) - "
                                "{pos_weight} × {target}",
                                when=(("pos_weight", PRESENT),))),
                *_weighted(local('self', 'σ({self}) - {target}')),
                *_weighted(local("target", "-{self} - ({pos_weight} - 1) × ln(σ({self}))",
                                when=(("pos_weight", PRESENT),))),
                *_weighted(local('target', '-{self}')))

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None,
                pos_weight: Tensor | None, reduction: int) -> np.ndarray:
        x, t_ = a.array, target.array
        self.save("pos_weight", pos_weight)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        with np.errstate(over="ignore"):
            softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
        if pos_weight is not None:
            log_weight = (pos_weight.array - 1) * t_ + 1
            loss = (1 - t_) * x + log_weight * softplus_neg
        else:
            loss = (1 - t_) * x + softplus_neg
        if weight is not None:
            loss = loss * weight.array
        return _reduce(np.asarray(loss, dtype=x.dtype), reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, t_ = self.unpack("self"), self.unpack("target")
        weight, pos_weight = self.unpack("weight"), self.unpack("pos_weight")
        reduction = self.attrs["reduction"]
        s = x.sigmoid()
        g_x = g_t = None
        if self.needs_input_grad(0):
            if pos_weight is not None:
                pt = pos_weight * t_
                g_x = (add_scalar(pt, 1) - t_) * s - pt
            else:
                g_x = s - t_
            g_x = g_x * grad
            if weight is not None:
                g_x = g_x * weight
            g_x = _scale_grad(g_x, reduction, x.numel())
        if self.needs_input_grad(1):
            if pos_weight is not None:
                g_t = -x - (pos_weight - 1) * s.log()
            else:
                g_t = -x
            g_t = g_t * grad
            if weight is not None:
                g_t = g_t * weight
            g_t = _scale_grad(g_t, reduction, t_.numel())
        return g_x, g_t


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    code = _reduction(reduction)
    if target.shape != input.shape:
        raise TorchValueError(
            f"Target size ({Size(target.shape)!r}) must be the same as input size "
            f"({Size(input.shape)!r})")
    return BinaryCrossEntropyWithLogitsBackward0.call(input, target, weight=weight,
                                                      pos_weight=pos_weight, reduction=code)


__all__ = [
    "softmax", "log_softmax", "relu", "leaky_relu", "gelu", "silu", "softplus", "elu",
    "mse_loss", "l1_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]
