"""Pointwise ops torch computes with a fused multiply-add: add/sub with `alpha`, addcmul,
lerp (and addcdiv, which divides last and so rounds like plain arithmetic).

With AVX2 and AVX-512 torch's vector loops call `vec::fmadd`, and its scalar tails are
compiled with FMA contraction, so every element is rounded once (measured on torch 2.13:
`add(x, y, alpha=a)` is `fma(y, a, x)` at every position of a 100-element tensor, vector
body and tail alike; float64 likewise). The `default` build has no FMA: two roundings,
as numpy does.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import bfloat16, capability, dtypes, fp64
from ..dtypes import C_TYPE_NAMES, DType
from ..formulas import local
from ..forward_ad import linear_in_all, maybe_multiply
from ..fp32 import fma
from ..node import Function
from ..shapes import broadcast_shapes
from ..tensor import Tensor, as_tensor_operand
from ._util import apply_inplace, cast, iterator_layout, not_implemented, result_dtype
from .scalar import mul_scalar, scalar_div, scalar_sub


def fused(dtype: np.dtype) -> bool:
    """Whether torch's kernels round `a * b + c` once for this dtype here."""
    return dtype in (np.float32, np.float64) and capability.fma_build()


def multiply_add(a: Any, b: Any, c: Any, dtype: np.dtype) -> np.ndarray:
    """`a * b + c` in `dtype` as torch's kernels round it (operands broadcast)."""
    if fused(dtype):
        if dtype == np.float64:
            a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
            return fp64.fma(a, b, c)
        return fma(a, b, c)
    if dtype == np.float16:  # opmath: the float16 operands in float32, rounded once at the
        # end (a product of two float16 values is exact in float32, so fused or not agree)
        a, b, c = (np.asarray(np.asarray(v, np.float16), np.float32) for v in (a, b, c))
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(a * b + c, np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(np.asarray(a, dtype) * np.asarray(b, dtype) + np.asarray(c, dtype),
                          dtype)


def scalar_in(value: Any, dtype: np.dtype) -> Any:
    """A Python number as torch's kernels hold it: converted to the op's math type."""
    return dtype.type(value) if np.issubdtype(dtype, np.floating) else value


def add_alpha(a: np.ndarray, b: np.ndarray, alpha: Any, dtype: np.dtype) -> np.ndarray:
    """add(a, b, alpha=...): ufunc::add's `vec::fmadd(b, alpha, a)` (`a + alpha * b`),
    laid out by TensorIterator over a then b."""
    bfloat16.check_dtype("add(alpha=...)", dtypes.from_numpy(dtype))
    if not np.issubdtype(dtype, np.floating):  # (complex: `a + b * alpha`, two roundings,
        out = np.asarray(a + b * alpha, dtype)  # as torch's complex add rounds: measured)
    else:
        out = multiply_add(b, checked_in(alpha, dtypes.from_numpy(dtype)), a, dtype)
    return iterator_layout(out, a, b)


def check_alpha(alpha: Any, dtype: DType) -> None:
    """torch's alpha_check for add/sub (before anything is computed, an alpha of 1 too)."""
    if type(alpha) is bool and dtype is not dtypes.bool_:
        raise TorchRuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not (dtype.is_floating_point or dtype.is_complex):
        raise TorchRuntimeError("For integral input tensors, argument alpha must not be a "
                                "floating point number.")


def checked_in(value: Any, dtype: DType) -> Any:
    """A Python number as a float16/float32 kernel holds it (Scalar::to<scalar_t>): torch's
    overflow error past the type's range (`alpha=1e5` for float16), else the number in the
    type (float64 and bfloat16 kept as scalar_in has them)."""
    if dtype is dtypes.float16 or dtype is dtypes.float32:
        return dtypes.checked_scalar(value, dtype)[()]
    return scalar_in(value, dtype.np)


# -- addcmul / addcdiv ------------------------------------------------------------------


def _operands(a: Tensor, t1: Any, t2: Any) -> tuple[Tensor, Tensor]:
    """tensor1 and tensor2 as tensors, checked to broadcast with self."""
    t1, t2 = as_tensor_operand(t1), as_tensor_operand(t2)
    broadcast_shapes(broadcast_shapes(a.array.shape, t1.array.shape), t2.array.shape)
    return t1, t2


class AddcmulBackward0(Function):
    """self + value * tensor1 * tensor2 (PointwiseOpsKernel: `self + (value * t1) * t2`)."""

    __slots__ = ()
    formulas = (local("self", "1"), local("tensor1", "{value} × {tensor2}"),
                local("tensor2", "{value} × {tensor1}"))

    def forward(self, a: Tensor, t1: Tensor, t2: Tensor, value: Any = 1) -> np.ndarray:
        dt = result_dtype(a, t1, t2)
        dtype = dt.np
        self.save("tensor1", t1 if t2.requires_grad else None)
        self.save("tensor2", t2 if t1.requires_grad else None)
        self.save_attr(value=value)
        return iterator_layout(_addcmul_values(*(cast(t.array, dt) for t in (a, t1, t2)),
                                               value, dtype), a.array, t1.array, t2.array)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t + maybe_multiply(tensor1_t * tensor2_p, value)
        #   + maybe_multiply(tensor2_t * tensor1_p, value)
        _, t1, t2 = inputs
        value = params.get("value", 1)
        return t[0] + maybe_multiply(t[1] * t2, value) + maybe_multiply(t[2] * t1, value)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        value = self.attrs["value"]
        g2 = grad * mul_scalar(self.unpack("tensor1"), value) if self.needs_input_grad(2) \
            else None
        g1 = grad * mul_scalar(self.unpack("tensor2"), value) if self.needs_input_grad(1) \
            else None
        return (grad if self.needs_input_grad(0) else None), g1, g2


def _addcmul_values(x: np.ndarray, y: np.ndarray, z: np.ndarray, value: Any,
                    dtype: np.dtype) -> np.ndarray:
    """PointwiseOpsKernel's addcmul: `self + (value * t1) * t2`, the operands cast."""
    v = scalar_in(value, dtype)
    if dtype == np.float16:  # opmath: `self + (value * t1) * t2` in float32 (the value a
        # float32), fused as float32's is, rounded once (measured on all float16 values)
        x, y, z = (np.asarray(t, np.float32) for t in (x, y, z))
        with np.errstate(over="ignore", invalid="ignore"):
            return multiply_add(y * np.float32(value), z, x, np.dtype(np.float32)).astype(
                np.float16)
    if np.issubdtype(dtype, np.floating):
        with np.errstate(over="ignore", invalid="ignore"):
            return multiply_add(np.asarray(y * v, dtype), z, x, dtype)
    return np.asarray(x + v * y * z, dtype)


class AddcdivBackward0(Function):
    """self + value * tensor1 / tensor2 (`self + (value * t1) / t2`: no fusing)."""

    __slots__ = ()
    formulas = (local("self", "1"), local("tensor1", "{value} / {tensor2}"),
                local("tensor2", "-{value} × {tensor1} / {tensor2}²"))

    def forward(self, a: Tensor, t1: Tensor, t2: Tensor, value: Any = 1) -> np.ndarray:
        dt = result_dtype(a, t1, t2)
        dtype = dt.np
        if not np.issubdtype(dtype, np.floating):
            raise TorchRuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
        self.save("tensor1", t1 if t2.requires_grad else None)
        self.save("tensor2", t2 if (t1.requires_grad or t2.requires_grad) else None)
        self.save_attr(value=value)
        x, y, z = (cast(t.array, dt) for t in (a, t1, t2))
        v = scalar_in(value, dtype)
        if dtype == np.float16:  # opmath: in float32 (the value a float32), rounded once
            x, y, z = (np.asarray(t, np.float32) for t in (x, y, z))
            v = np.float32(value)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = np.asarray(x + (y * v) / z, dtype)
        return iterator_layout(out, a.array, t1.array, t2.array)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t + maybe_multiply(tensor1_t / tensor2_p, value)
        #   - maybe_multiply(tensor2_t * (tensor1_p / tensor2_p) / tensor2_p, value)
        _, t1, t2 = inputs
        value = params.get("value", 1)
        return (t[0] + maybe_multiply(t[1] / t2, value)
                - maybe_multiply(t[2] * (t1 / t2) / t2, value))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        value = self.attrs["value"]
        t2 = self.unpack("tensor2")
        g1 = grad * scalar_div(value, t2) if self.needs_input_grad(1) else None  # value / t2
        g2 = None
        if self.needs_input_grad(2):  # torch: -grad * (value * tensor1 / (tensor2 * tensor2))
            g2 = -grad * (mul_scalar(self.unpack("tensor1"), value) / (t2 * t2))
        return (grad if self.needs_input_grad(0) else None), g1, g2


def addcmul(a: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    t1, t2 = _operands(a, tensor1, tensor2)
    return AddcmulBackward0.call(a, t1, t2, value=value)


def addcmul_(a: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    t1, t2 = _operands(a, tensor1, tensor2)
    return apply_inplace(AddcmulBackward0, a, t1, t2, value=value)


def addcdiv(a: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    t1, t2 = _operands(a, tensor1, tensor2)
    return AddcdivBackward0.call(a, t1, t2, value=value)


def addcdiv_(a: Tensor, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    t1, t2 = _operands(a, tensor1, tensor2)
    return apply_inplace(AddcdivBackward0, a, t1, t2, value=value)


# -- lerp -----------------------------------------------------------------------------


def lerp_values(start: np.ndarray, end: np.ndarray, weight: Any, dtype: np.dtype) -> np.ndarray:
    """ATen's lerp: `fmadd(coeff, end - start, base)`, with coeff = weight and base = start
    where |weight| < 0.5, else coeff = weight - 1 and base = end."""
    if dtype == np.float16 and not np.ndim(weight):  # opmath: all in float32 (the weight a
        # float32, not rounded to float16; `end - start` not rounded either), rounded once
        return lerp_values(np.asarray(start, np.float32), np.asarray(end, np.float32),
                           np.float32(weight), np.dtype(np.float32)).astype(np.float16)
    w = np.asarray(weight, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        small = np.abs(w) < 0.5
        coeff = np.where(small, w, w - dtype.type(1))
        base = np.where(small, start, end)
        return multiply_add(coeff, np.asarray(end - start, dtype), base, dtype)


def _lerp_check(a: Tensor, end: Tensor, weight: Tensor | None) -> np.dtype:
    for other, what in ((end, "end"), (weight, "weight")):
        if other is not None and other.dtype is not a.dtype:
            raise TorchRuntimeError(  # (C++ type names, as TypeMeta prints them)
                f"expected dtype {C_TYPE_NAMES[a.dtype.name]} for `{what}` but got dtype "
                f"{C_TYPE_NAMES[other.dtype.name]}")
    if not a.dtype.is_floating_point:
        raise not_implemented("lerp_kernel_scalar", a.dtype)
    shape = broadcast_shapes(a.array.shape, end.array.shape)  # TensorIterator's words
    if weight is not None:
        broadcast_shapes(shape, weight.array.shape)
    return a.dtype.np


class LerpBackward0(Function):
    """lerp(self, end, weight: number)."""

    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: lerp(self_t, end_t, weight)
    formulas = (local("self", "1 - {weight}"), local("end", "{weight}"))

    def forward(self, a: Tensor, end: Tensor, weight: Any) -> np.ndarray:
        dtype = _lerp_check(a, end, None)
        self.save_attr(weight=weight)
        return iterator_layout(lerp_values(a.array, end.array, weight if dtype == np.float16
                                           else scalar_in(weight, dtype), dtype),
                               a.array, end.array)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        weight = self.attrs["weight"]
        g_self = mul_scalar(grad, 1 - float(weight)) if self.needs_input_grad(0) else None
        g_end = mul_scalar(grad, weight) if self.needs_input_grad(1) else None
        return g_self, g_end


class LerpBackward1(Function):
    """lerp(self, end, weight: Tensor)."""

    __slots__ = ()
    formulas = (local("self", "1 - {weight}"), local("end", "{weight}"),
                local("weight", "{end} - {self}"))

    def forward(self, a: Tensor, end: Tensor, weight: Tensor) -> np.ndarray:
        dtype = _lerp_check(a, end, weight)
        self.save("end", end if weight.requires_grad else None)
        self.save("self", a if weight.requires_grad else None)
        self.save("weight", weight if (a.requires_grad or end.requires_grad) else None)
        return iterator_layout(lerp_values(a.array, end.array, weight.array, dtype),
                               a.array, end.array, weight.array)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::lerp(self_t, end_t, weight_p) + weight_t * (end_p - self_p)
        a, end, weight = inputs
        return LerpBackward1.call(t[0], t[1], weight) + t[2] * (end - a)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        g_self = g_end = g_w = None
        if self.needs_input_grad(2):  # the last input's gradient first, like torch
            g_w = grad * (self.unpack("end") - self.unpack("self"))
        if self.needs_input_grad(1):
            g_end = grad * self.unpack("weight")
        if self.needs_input_grad(0):  # torch: grad * (1 - weight)
            g_self = grad * scalar_sub(1, self.unpack("weight"))
        return g_self, g_end, g_w


def lerp(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    if isinstance(weight, Tensor):
        return LerpBackward1.call(a, end, weight)
    return LerpBackward0.call(a, end, weight=weight)


def lerp_(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    if isinstance(weight, Tensor):
        return apply_inplace(LerpBackward1, a, end, weight)
    return apply_inplace(LerpBackward0, a, end, weight=weight)


__all__ = ["addcmul", "addcmul_", "addcdiv", "addcdiv_", "lerp", "lerp_", "add_alpha",
           "multiply_add", "lerp_values"]
