"""torch.nn.functional's activations, recording torch's nodes (their backward as ops of
their own, `*BackwardBackward0`, so create_graph records what torch records)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..node import Function
from ..tensor import Tensor
from ._util import apply_inplace, not_implemented
from .scalar import add_scalar, mul_scalar
from .transcendental import erf64
from .unary import precise

# -- relu, leaky_relu, gelu, silu, softplus, elu ------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    from .unary import relu as relu_op
    from .unary import relu_

    return relu_(input) if inplace else relu_op(input)


class LeakyReluBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, negative_slope: float) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("leaky_relu_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(negative_slope=negative_slope)
        x = a.array
        return np.where(x > 0, x, x * negative_slope).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return leaky_relu_backward(grad, self.unpack("self"), self.attrs["negative_slope"])


class LeakyReluBackwardBackward0(Function):
    """leaky_relu_backward(grad_output, self, negative_slope) as an op, for create_graph."""

    __slots__ = ()

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
    cdf = 0.5 * (1 + erf64(x / _SQRT2))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return x * cdf, cdf + x * pdf, pdf * (2 - x * x)


class GeluBackwardBackward0(Function):
    """gelu's backward as an op of its own (inputs grad, self), for create_graph."""

    __slots__ = ()

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

    def forward(self, a: Tensor, approximate: str = "none") -> np.ndarray:
        if approximate not in ("none", "tanh"):
            raise TorchRuntimeError("approximate argument must be either none or tanh.")
        if not a.dtype.is_floating_point:
            raise not_implemented("GeluKernelImpl", a.dtype)
        self.save("self", a)
        self.save_attr(approximate=approximate)
        value, _, _ = _gelu_parts(a.array, approximate)
        return value.astype(a.array.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return GeluBackwardBackward0.call(grad, self.unpack("self"),
                                          approximate=self.attrs["approximate"])


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    return GeluBackward0.call(input, approximate=approximate)


class SiluBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("silu_cpu", a.dtype)
        self.save("self", a)
        x = a.array
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

    def forward(self, a: Tensor, beta: Any = 1, threshold: Any = 20) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("softplus_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(beta=beta, threshold=threshold)
        x = a.array
        with np.errstate(over="ignore"):
            soft = precise(np.log1p, precise(np.exp, x * beta)) / beta
        return np.where(x * beta > threshold, x, soft).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return SoftplusBackwardBackward0.call(grad, self.unpack("self"), beta=self.attrs["beta"],
                                              threshold=self.attrs["threshold"])


class SoftplusBackwardBackward0(Function):
    """softplus_backward(grad_output, self, beta, threshold) as an op, for create_graph."""

    __slots__ = ()

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

    def forward(self, a: Tensor, alpha: Any = 1.0, scale: Any = 1,
                input_scale: Any = 1) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("elu_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(alpha=alpha, input_scale=input_scale, scale=scale)
        x = a.array
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
