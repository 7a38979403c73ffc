"""Tensor-and-Python-number arithmetic as torch's C++ backward formulas record it.

A script's `x * 2` wraps 2 in a tensor and records `MulBackward0`; torch's own
backward formulas call the `Scalar` overloads instead (`grad * 2.0`, `result + 1`,
`grad / numel`), which record `MulBackward1`, `AddBackward1`, `SubBackward1` and
`DivBackward1`.  Under `create_graph=True` those are the nodes a second
derivative goes through, so the backward formulas use these helpers.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import complex as complex_dtypes
from ..formulas import local
from ..forward_ad import auto_linear
from ..node import Function
from ..tensor import Tensor
from ._util import binary_apply, binary_operands, float_dtype


def _apply(ufunc: np.ufunc, a: Tensor, other: Any, *, floating: bool = False) -> np.ndarray:
    ta, tb, dtype = binary_operands(a, Tensor.scalar(other))
    if floating:
        dtype = float_dtype(dtype)
    return binary_apply(ufunc, ta, tb, dtype)


class AddBackward1(Function):
    """`tensor + number` (add.Scalar): the gradient passes through."""

    __slots__ = ()
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, other: Any) -> np.ndarray:
        return _apply(np.add, a, other)

    def backward(self, grad: Tensor) -> Tensor:
        return grad

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0]  # auto_element_wise of `grad`


class SubBackward1(Function):
    """`tensor - number` (sub.Scalar): the gradient passes through."""

    __slots__ = ()
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, other: Any) -> np.ndarray:
        return _apply(np.subtract, a, other)

    def backward(self, grad: Tensor) -> Tensor:
        return grad

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0]  # auto_element_wise of `grad`


class MulBackward1(Function):
    """`tensor * number` (mul.Scalar), saving the number as `other`."""

    __slots__ = ()
    formulas = (local("self", "{other}"),)
    jvp = auto_linear  # self_t * other

    def forward(self, a: Tensor, other: Any) -> np.ndarray:
        self.save_attr(other=other)
        return _apply(np.multiply, a, other)

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(grad, self.attrs["other"])


class DivBackward1(Function):
    """`tensor / number` (div.Scalar), saving the number as `other`."""

    __slots__ = ()
    formulas = (local("self", "1 / {other}"),)
    jvp = auto_linear  # self_t / other

    def forward(self, a: Tensor, other: Any) -> np.ndarray:
        self.save_attr(other=other)
        with np.errstate(divide="ignore", invalid="ignore"):
            if a.dtype.is_complex:  # (mean's backward: a complex gradient over the count)
                return complex_dtypes.divide(a.array, np.asarray(other, a.array.dtype))
            return _apply(np.true_divide, a, other, floating=True)

    def backward(self, grad: Tensor) -> Tensor:
        return div_scalar(grad, self.attrs["other"])


def add_scalar(a: Tensor, other: Any) -> Tensor:
    return AddBackward1.call(a, other=other)


def sub_scalar(a: Tensor, other: Any) -> Tensor:
    return SubBackward1.call(a, other=other)


def mul_scalar(a: Tensor, other: Any) -> Tensor:
    return MulBackward1.call(a, other=other)


def div_scalar(a: Tensor, other: Any) -> Tensor:
    return DivBackward1.call(a, other=other)


def scalar_sub(number: Any, t: Tensor) -> Tensor:
    """C++ `number - t`: `empty_like(t).fill_(number).sub_(t)`, a SubBackward0 whose first
    input needs no gradient (not the RsubBackward1 of Python's `number - t`)."""
    from ._util import apply_inplace
    from .arithmetic import SubBackward0

    filled = Tensor._wrap(np.full(t.array.shape, number, dtype=t.array.dtype))
    return apply_inplace(SubBackward0, filled, t)


def scalar_div(number: Any, t: Tensor) -> Tensor:
    """C++ `number / t`: `empty_like(t).fill_(number).div_(t)` (DivBackward0)."""
    from ._util import apply_inplace
    from .arithmetic import DivBackward0

    filled = Tensor._wrap(np.full(t.array.shape, number, dtype=t.array.dtype))
    return apply_inplace(DivBackward0, filled, t)
