"""torch.nn.functional's softmax and log_softmax, recording torch's nodes.

Activations live in activations.py, losses in losses.py, and so on by concern; api.py
assembles the `F` namespace.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..formulas import vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import not_implemented
from .unary import precise
from .views import saved_int, signed, warn

# -- softmax ---------------------------------------------------------------------------


class SoftmaxBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{result} × ({grad} - ({grad} × {result}).sum({dim}, keepdim=True))"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        if not a.dtype.is_floating_point:
            last = a.array.ndim == 0 or wrap_dim(dim, a.array.ndim) == a.array.ndim - 1
            raise not_implemented(f"softmax_{'lastdim_' if last else ''}kernel_impl", a.dtype)
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
            raise not_implemented(f"log_softmax_{'lastdim_' if last else ''}kernel_impl", a.dtype)
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


__all__ = ["softmax", "log_softmax", "tensor_softmax", "tensor_log_softmax"]
