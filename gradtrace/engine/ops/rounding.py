"""Rounding divisions as torch records them.

`a // b` (floor_divide) has no derivative in torch: with an input that requires grad it
records a `NotImplemented` node whose backward raises.  `torch.div(a, b,
rounding_mode=...)` records `DivBackward2`, whose gradients are zeros.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import bfloat16, dtypes, unsigned
from ..formulas import local, undefined
from ..forward_ad import auto_element_wise
from ..node import Function
from ..tensor import Tensor, as_tensor_operand
from ._util import binary_operands, cast, common_dtype, not_implemented


def _rounded_divide(a: Tensor, b: Tensor, rounding_mode: str) -> np.ndarray:
    ta, tb, dtype = binary_operands(a, b)
    if dtype is dtypes.bool_ or dtype.is_complex:  # (torch's kernels have no version)
        raise not_implemented(f"div_{rounding_mode}_cpu", dtype)
    if dtype.barebones:
        raise unsigned.not_implemented(f"div_{rounding_mode}_cpu", dtype)
    bfloat16.check_dtype(f"div(rounding_mode='{rounding_mode}')", dtype)
    x, y = cast(ta.array, dtype), cast(tb.array, dtype)
    if dtype is dtypes.float16 and not tb.array.ndim:  # torch's reduced-float kernels: a
        # 0-dim divisor read as a float32 (a number not rounded to float16 first), the
        # quotient in float32, rounded once
        x, y = x.astype(np.float32), np.float32(tb.array.item())
    with np.errstate(divide="ignore", invalid="ignore"):
        if rounding_mode == "floor":
            out = np.floor_divide(x, y)
        else:
            out = np.trunc(np.true_divide(x, y))
    return np.asarray(out).astype(dtype.np)


def torch_remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """torch's remainder: fmod, shifted by the divisor when the signs differ (so an exact
    multiple of a negative dividend stays -0.0, where numpy's remainder gives 0.0)."""
    if x.dtype.kind == "u" and x.dtype.itemsize > 1:  # torch has no kernel for these
        raise unsigned.not_implemented("remainder_cpu", dtypes.from_numpy(x.dtype))
    bfloat16.check_dtype("remainder", dtypes.from_numpy(x.dtype))
    if x.dtype.kind != "f" and np.asarray(y).dtype.kind != "f":
        return np.remainder(x, y)
    mod = np.fmod(x, y)
    return np.where((mod != 0) & ((np.asarray(y) < 0) != (mod < 0)), mod + y, mod).astype(
        mod.dtype)


def rounded_floor(a: Tensor, b: Tensor) -> np.ndarray:
    return _rounded_divide(a, b, "floor")


class NotImplementedFloorDivide(Function):
    """floor_divide's node: torch::autograd::NotImplemented over the tensor operands."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (undefined("self", each=True),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, *tensors: Tensor, a: Tensor, b: Tensor) -> np.ndarray:
        return rounded_floor(a, b)

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::floor_divide is not implemented")


NotImplementedFloorDivide.__name__ = "NotImplemented"  # how a tensor's repr shows it


class RemainderBackward0(Function):
    """`tensor % number` (remainder.Scalar): one input; the gradient passes through."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, other: Tensor) -> np.ndarray:
        dtype = common_dtype(a, other)
        with np.errstate(divide="ignore", invalid="ignore"):
            return torch_remainder(cast(a.array, dtype), cast(other.array, dtype))

    def backward(self, grad: Tensor) -> Tensor:
        return grad


class NotImplementedRemainder(Function):
    """`number % tensor` (remainder.Scalar_Tensor): torch has no derivative for it."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (undefined("other"),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, b: Tensor, a: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            return torch_remainder(cast(a.array, dtype), cast(b.array, dtype))

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::remainder is not implemented")


NotImplementedRemainder.__name__ = "NotImplemented"


def remainder_number(a: Any, b: Any) -> Tensor:
    """`tensor % number` or `number % tensor`."""
    if isinstance(a, Tensor):
        return RemainderBackward0.call(a, other=as_tensor_operand(b))
    return NotImplementedRemainder.call(b, a=as_tensor_operand(a))


class DivBackward2(Function):
    """div(self, other, rounding_mode=...): differentiable in form, with zero gradients."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "0"),
                local("other", "0"))

    def forward(self, a: Tensor, b: Tensor, rounding_mode: str) -> np.ndarray:
        if rounding_mode not in ("floor", "trunc"):
            raise TorchRuntimeError(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                f"'{rounding_mode}'")
        self.save("other", b)
        self.save("self", a)
        self.save_attr(rounding_mode=rounding_mode)
        return _rounded_divide(a, b, rounding_mode)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # result.new_zeros(result.sizes()): a rounded quotient is piecewise constant
        from .creation import zeros_like

        return zeros_like(outs[0])

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_a = zeros_like(grad) if self.needs_input_grad(0) else None
        g_b = zeros_like(grad) if self.needs_input_grad(1) else None
        return g_a, g_b


def floor_divide(a: Any, b: Any) -> Tensor:
    ta, tb = as_tensor_operand(a), as_tensor_operand(b)
    tensors = [t for t in (ta, tb) if not t._wrapped]
    return NotImplementedFloorDivide.call(*tensors, a=ta, b=tb)


def rounded_div(a: Tensor, b: Any, rounding_mode: str) -> Tensor:
    return DivBackward2.call(a, as_tensor_operand(b), rounding_mode=rounding_mode)


class FmodBackward0(Function):
    """fmod(tensor, number): C's fmod (the sign of the dividend); the gradient passes."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, other: Tensor) -> np.ndarray:
        dtype = common_dtype(a, other)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(np.fmod(cast(a.array, dtype), cast(other.array, dtype)))

    def backward(self, grad: Tensor) -> Tensor:
        return grad


class FmodBackward1(Function):
    """fmod(tensor, tensor): other's gradient is -grad * self.div(other, 'trunc')."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "1"), local("other", "-trunc({self} / {other})"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        self.save("other", b if b.requires_grad else None)
        self.save("self", a if b.requires_grad else None)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(np.fmod(cast(a.array, dtype), cast(b.array, dtype)))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t - other_t * self_p.div(other_p, rounding_mode="trunc")
        a, b = inputs
        return t[0] - t[1] * DivBackward2.call(a, b, rounding_mode="trunc")

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        g_b = None
        if self.needs_input_grad(1):
            g_b = -grad * rounded_div(self.unpack("self"), self.unpack("other"), "trunc")
        g_a = grad if self.needs_input_grad(0) else None
        return g_a, g_b


def fmod(a: Tensor, b: Any) -> Tensor:
    if isinstance(b, Tensor):
        return FmodBackward1.call(a, b)
    return FmodBackward0.call(a, other=as_tensor_operand(b))
