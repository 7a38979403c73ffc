"""The in-place forms of comparisons, logic, bitwise ops and shifts, the shifts themselves,
and the in-place cumulative ops.

Out of place, a comparison records nothing (its bool result needs no gradient). In place,
into a tensor that requires grad, torch records EqBackward0 (a number) or EqBackward1 (a
tensor), whose gradients are zeros. The logical ops record nothing even in place (torch
skips the leaf check too); the bitwise ops and shifts check it, then fail on floats.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..events import OBSERVERS, emit
from ..formulas import local
from ..node import Function
from ..tensor import Tensor, as_tensor_operand, bump_version
from . import arithmetic, reductions, rounding, statistics
from ._util import apply_inplace, binary_operands, cast, check_inplace, not_implemented


class _CompareBackward(Function):
    """A comparison written into self: zeros for every input."""

    __slots__ = ()
    formulas: tuple = ()
    compare: Callable[[Any, Any], Tensor]

    def forward(self, a: Tensor, *others: Tensor, other: Any = None) -> np.ndarray:
        return type(self).compare(a, others[0] if others else other).array

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        from .creation import zeros_like

        out: list[Tensor | None] = [zeros_like(grad)]
        if len(self.input_meta) > 1:
            shape, dtype = self.input_meta[1]
            out.append(Tensor._wrap(np.zeros(shape, dtype=dtype.np))
                       if self.needs_input_grad(1) else None)
        return tuple(out)


def _compare_nodes(name: str, compare: Callable[[Any, Any], Tensor]) -> Callable[..., Tensor]:
    """The two nodes of `name`_ and the in-place method recording them."""
    title = name.capitalize()
    scalar_node = type(f"{title}Backward0", (_CompareBackward,), {
        "__slots__": (), "compare": staticmethod(compare),
        "formulas": (local("self", "0"),)})
    tensor_node = type(f"{title}Backward1", (_CompareBackward,), {
        "__slots__": (), "compare": staticmethod(compare),
        "formulas": (local("self", "0"), local("other", "0"))})
    globals()[scalar_node.__name__] = scalar_node
    globals()[tensor_node.__name__] = tensor_node

    def op(self: Tensor, other: Any) -> Tensor:
        if isinstance(other, Tensor) and not other._wrapped:
            return apply_inplace(tensor_node, self, other)
        return apply_inplace(scalar_node, self, other=other)

    op.__doc__ = f"Tensor.{name}_: the comparison written into self as 1 or 0"
    return op


_COMPARISONS = {"eq": arithmetic.eq, "ne": arithmetic.ne, "lt": arithmetic.lt,
                "le": arithmetic.le, "gt": arithmetic.gt, "ge": arithmetic.ge}
COMPARE_INPLACE = {f"{name}_": _compare_nodes(name, fn) for name, fn in _COMPARISONS.items()}


def _write(self: Tensor, result: np.ndarray, name: str) -> Tensor:
    """Write a result no gradient flows through into self (its history is kept)."""
    if result.shape != self.array.shape:
        raise TorchRuntimeError(
            f"output with shape [{', '.join(map(str, self.array.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, result.shape))}]")
    np.copyto(self.array, result, casting="unsafe")
    bump_version(self)
    if OBSERVERS:
        emit("inplace", tensor=self, version=self._version_counter.value,
             node=self.grad_fn, name=name)
    return self


def _logical_inplace(name: str, fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def op(self: Tensor, *other: Any) -> Tensor:
        return _write(self, fn(self, *other).array, f"{name}_")

    op.__doc__ = f"Tensor.{name}_: no node, like torch (not even the leaf check)"
    return op


def _shift(ufunc: np.ufunc, name: str) -> Callable[[Any, Any], Tensor]:
    def op(a: Any, b: Any) -> Tensor:
        ta, tb, dtype = binary_operands(a, b)
        if dtype.is_floating_point or dtype.name == "bool" or dtype.barebones:
            raise not_implemented(f"{name}_cpu", dtype)
        x, y = cast(ta.array, dtype), cast(tb.array, dtype)
        bits = dtype.itemsize * 8
        with np.errstate(all="ignore"):
            # torch: a shift by the width or more (or a negative one) gives 0 (or -1 for a
            # negative number shifted right)
            big = (y < 0) | (y >= bits)
            safe = np.where(big, 0, y)
            out = ufunc(x, safe.astype(x.dtype) if np.ndim(safe) else x.dtype.type(safe))
            if ufunc is np.right_shift:
                fill = np.where(x < 0, -1, 0) if dtype.is_signed else 0
            else:
                fill = 0
            out = np.where(big, fill, out)
        return Tensor._wrap(np.asarray(out, dtype=dtype.np))

    op.__doc__ = f"torch.{name}"
    return op


bitwise_left_shift = _shift(np.left_shift, "lshift")
bitwise_right_shift = _shift(np.right_shift, "rshift")


def _bitwise_inplace(name: str, fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def op(self: Tensor, *other: Any) -> Tensor:
        check_inplace(self)
        return _write(self, fn(self, *(as_tensor_operand(o) for o in other)).array,
                      f"{name}_")

    op.__doc__ = f"Tensor.{name}_"
    return op


def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return apply_inplace(reductions.CumsumBackward0, self, dim=dim, dtype=dtype)


def cumprod_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return apply_inplace(statistics.CumprodBackward0, self, dim=dim)


class _FloorDivideInPlace(rounding.NotImplementedFloorDivide):
    """floor_divide_'s node: self (as it was) first, then a tensor divisor."""

    __slots__ = ()

    def forward(self, a: Tensor, *tensors: Tensor, b: Tensor) -> np.ndarray:  # type: ignore[override]
        return rounding.rounded_floor(a, b)

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::floor_divide_ is not implemented")


_FloorDivideInPlace.__name__ = "NotImplemented"


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    other = as_tensor_operand(other)
    tensors = () if other._wrapped else (other,)
    return apply_inplace(_FloorDivideInPlace, self, *tensors, b=other)


INPLACE_LOGIC: dict[str, Callable[..., Any]] = {
    **COMPARE_INPLACE,
    **{f"{alias}_": COMPARE_INPLACE[f"{name}_"] for alias, name in (
        ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
        ("not_equal", "ne"))},
    **{f"{name}_": _logical_inplace(name, getattr(arithmetic, name)) for name in (
        "logical_and", "logical_or", "logical_xor", "logical_not")},
    **{f"{name}_": _bitwise_inplace(name, fn) for name, fn in (
        ("bitwise_and", arithmetic.bitwise_and), ("bitwise_or", arithmetic.bitwise_or),
        ("bitwise_xor", arithmetic.bitwise_xor), ("bitwise_not", arithmetic.bitwise_not),
        ("bitwise_left_shift", bitwise_left_shift),
        ("bitwise_right_shift", bitwise_right_shift))},
    "cumsum_": cumsum_, "cumprod_": cumprod_, "floor_divide_": floor_divide_,
}
