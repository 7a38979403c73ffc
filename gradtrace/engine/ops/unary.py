"""Elementwise functions of one tensor (exp, log, tanh, relu, clamp, ...)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..node import Function
from ..tensor import Tensor
from ._util import apply_inplace, cast, float_dtype


def _floating(a: Tensor) -> np.ndarray:
    return cast(a.array, float_dtype(a.dtype))


class ExpBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * self.unpack("result")


class LogBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(_floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad / self.unpack("self")


class Log1PBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log1p(_floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad / (self.unpack("self") + 1)


class Expm1Backward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.expm1(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * (self.unpack("result") + 1)


class SinBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return np.sin(_floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * self.unpack("self").cos()


class CosBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return np.cos(_floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * -self.unpack("self").sin()


class TanhBackwardBackward0(Function):
    """tanh's backward as an op of its own, so create_graph records torch's node."""

    __slots__ = ()

    def forward(self, grad: Tensor, result: Tensor) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", result)
        return grad.array * (1 - result.array * result.array)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, result = self.unpack("grad_output"), self.unpack("output")
        g_grad = tanh_backward(gg, result) if self.needs_input_grad(0) else None
        g_result = -2 * result * gg * grad if self.needs_input_grad(1) else None
        return g_grad, g_result


def tanh_backward(grad: Tensor, result: Tensor) -> Tensor:
    return TanhBackwardBackward0.call(grad, result)


class TanhBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        return np.tanh(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return tanh_backward(grad, self.unpack("result"))


class SigmoidBackwardBackward0(Function):
    __slots__ = ()

    def forward(self, grad: Tensor, result: Tensor) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", result)
        return grad.array * result.array * (1 - result.array)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, result = self.unpack("grad_output"), self.unpack("output")
        g_grad = sigmoid_backward(gg, result) if self.needs_input_grad(0) else None
        g_result = gg * grad * (1 - 2 * result) if self.needs_input_grad(1) else None
        return g_grad, g_result


def sigmoid_backward(grad: Tensor, result: Tensor) -> Tensor:
    return SigmoidBackwardBackward0.call(grad, result)


class SigmoidBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        x = _floating(a)
        with np.errstate(over="ignore"):
            return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return sigmoid_backward(grad, self.unpack("result"))


class ThresholdBackwardBackward0(Function):
    """relu's backward (threshold_backward) as an op, for create_graph."""

    __slots__ = ()

    def forward(self, grad: Tensor, result: Tensor, threshold: float = 0.0) -> np.ndarray:
        self.save("self", result)
        self.save_attr(threshold=threshold)
        return np.where(result.array > threshold, grad.array, 0).astype(grad.array.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, None]:
        result = self.unpack("self")
        return threshold_backward(gg, result, self.attrs["threshold"]), None


def threshold_backward(grad: Tensor, result: Tensor, threshold: float = 0.0) -> Tensor:
    return ThresholdBackwardBackward0.call(grad, result, threshold=threshold)


class ReluBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype.name == "bool":
            raise TorchRuntimeError("\"clamp_min_cpu\" not implemented for 'Bool'")
        return np.maximum(a.array, 0).astype(a.array.dtype, copy=False)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return threshold_backward(grad, self.unpack("result"), 0.0)


class SqrtBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return grad / (2 * self.unpack("result"))


class AbsBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return np.abs(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * sgn(self.unpack("self"))


class ReciprocalBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.reciprocal(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        result = self.unpack("result")
        return -grad * (result * result)


class ClampBackward1(Function):
    __slots__ = ()

    def forward(self, a: Tensor, min: Any = None, max: Any = None) -> np.ndarray:  # noqa: A002
        if min is None and max is None:
            raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.save("self", a)
        self.save_attr(min=min, max=max)
        out = a.array
        if min is not None:
            out = np.maximum(out, min)
        if max is not None:
            out = np.minimum(out, max)
        dtype = a.dtype
        if not dtype.is_floating_point and (isinstance(min, float) or isinstance(max, float)):
            from ..dtypes import DEFAULT_FLOAT

            dtype = DEFAULT_FLOAT
        return np.asarray(out).astype(dtype.np, copy=False)

    def backward(self, grad: Tensor) -> Tensor:
        from .reductions import where

        x = self.unpack("self")
        lo, hi = self.attrs["min"], self.attrs["max"]
        if lo is not None and hi is not None:
            mask = (x >= lo) & (x <= hi)
        elif lo is not None:
            mask = x >= lo
        else:
            mask = x <= hi
        return where(mask, grad, Tensor.scalar(0.0))


class _ZeroGrad(Function):
    """Piecewise-constant functions: their gradient is zero everywhere."""

    __slots__ = ()
    ufunc: np.ufunc

    def forward(self, a: Tensor) -> np.ndarray:
        return type(self).ufunc(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros_like

        return zeros_like(grad)


class FloorBackward0(_ZeroGrad):
    __slots__ = ()
    ufunc = np.floor


class CeilBackward0(_ZeroGrad):
    __slots__ = ()
    ufunc = np.ceil


class RoundBackward0(_ZeroGrad):
    __slots__ = ()
    ufunc = np.round


class RoundBackward1(_ZeroGrad):
    __slots__ = ()

    def forward(self, a: Tensor, decimals: int = 0) -> np.ndarray:
        self.save_attr(decimals=decimals)
        return np.round(a.array, decimals)


class TruncBackward0(_ZeroGrad):
    __slots__ = ()
    ufunc = np.trunc


class SignBackward0(_ZeroGrad):
    __slots__ = ()
    ufunc = np.sign


class SgnBackward0(_ZeroGrad):
    __slots__ = ()
    ufunc = np.sign


def exp(a: Tensor) -> Tensor:
    return ExpBackward0.call(a)


def log(a: Tensor) -> Tensor:
    return LogBackward0.call(a)


def log1p(a: Tensor) -> Tensor:
    return Log1PBackward0.call(a)


def expm1(a: Tensor) -> Tensor:
    return Expm1Backward0.call(a)


def sin(a: Tensor) -> Tensor:
    return SinBackward0.call(a)


def cos(a: Tensor) -> Tensor:
    return CosBackward0.call(a)


def tanh(a: Tensor) -> Tensor:
    return TanhBackward0.call(a)


def sigmoid(a: Tensor) -> Tensor:
    return SigmoidBackward0.call(a)


def relu(a: Tensor) -> Tensor:
    return ReluBackward0.call(a)


def sqrt(a: Tensor) -> Tensor:
    return SqrtBackward0.call(a)


def abs(a: Tensor) -> Tensor:  # noqa: A001 - torch's name
    return AbsBackward0.call(a)


def reciprocal(a: Tensor) -> Tensor:
    return ReciprocalBackward0.call(a)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return ClampBackward1.call(a, min=min, max=max)


def clamp_min(a: Tensor, min: Any) -> Tensor:  # noqa: A002
    return ClampBackward1.call(a, min=min)


def clamp_max(a: Tensor, max: Any) -> Tensor:  # noqa: A002
    return ClampBackward1.call(a, max=max)


def floor(a: Tensor) -> Tensor:
    return FloorBackward0.call(a)


def ceil(a: Tensor) -> Tensor:
    return CeilBackward0.call(a)


def round(a: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001
    if decimals:
        return RoundBackward1.call(a, decimals=decimals)
    return RoundBackward0.call(a)


def trunc(a: Tensor) -> Tensor:
    return TruncBackward0.call(a)


def sign(a: Tensor) -> Tensor:
    return SignBackward0.call(a)


def sgn(a: Tensor) -> Tensor:
    return SgnBackward0.call(a)


def exp_(a: Tensor) -> Tensor:
    return apply_inplace(ExpBackward0, a)


def sigmoid_(a: Tensor) -> Tensor:
    return apply_inplace(SigmoidBackward0, a)


def tanh_(a: Tensor) -> Tensor:
    return apply_inplace(TanhBackward0, a)


def relu_(a: Tensor) -> Tensor:
    return apply_inplace(ReluBackward0, a)


def clamp_(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return apply_inplace(ClampBackward1, a, min=min, max=max)
