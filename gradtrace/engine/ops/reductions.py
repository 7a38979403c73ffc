"""Reductions (sum, mean, ...) and selection (where)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..dtypes import DType, int64
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor, as_tensor_operand
from ._util import binary_operands, cast, float_dtype


def dims_arg(dim: Any, ndim: int) -> tuple[int, ...]:
    """A dim, or a list/tuple of dims, wrapped and in order."""
    if isinstance(dim, (list, tuple)):
        return tuple(wrap_dim(d, ndim) for d in dim)
    return (wrap_dim(dim, ndim),)


def unsqueeze_dims(grad: Tensor, dims: tuple[int, ...], ndim: int) -> Tensor:
    """Undo a reduction without keepdim (torch's unsqueeze_multiple)."""
    for d in sorted(dims):
        if grad.array.ndim < ndim:
            grad = grad.unsqueeze(d)
    return grad


def sum_backward(grad: Tensor, sizes: tuple[int, ...], dims: tuple[int, ...],
                 keepdim: bool) -> Tensor:
    if not keepdim and sizes:
        grad = unsqueeze_dims(grad, dims, len(sizes))
    return grad.expand(sizes)


def _sum_dtype(a: Tensor, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return a.dtype if a.dtype.is_floating_point else int64


class SumBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        out_dtype = _sum_dtype(a, dtype)
        return np.asarray(np.sum(a.array, dtype=out_dtype.np))

    def backward(self, grad: Tensor) -> Tensor:
        return grad.expand(self.attrs["self_sym_sizes"])


class SumBackward1(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False,
                dtype: DType | None = None) -> np.ndarray:
        self.save_attr(dim=dim, keepdim=keepdim, self_sym_sizes=a.array.shape)
        out_dtype = _sum_dtype(a, dtype)
        return np.asarray(np.sum(a.array, axis=dim, keepdims=keepdim, dtype=out_dtype.np))

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return sum_backward(grad, a["self_sym_sizes"], a["dim"], a["keepdim"])


class MeanBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        _check_mean_dtype(a, dtype)
        self.save_attr(self_sym_numel=a.array.size, self_sym_sizes=a.array.shape)
        out = dtype or a.dtype
        with np.errstate(invalid="ignore"):
            return np.asarray(np.mean(a.array, dtype=np.float64 if out.np == np.float64
                                      else None), dtype=out.np)

    def backward(self, grad: Tensor) -> Tensor:
        return grad.expand(self.attrs["self_sym_sizes"]) / self.attrs["self_sym_numel"]


class MeanBackward1(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False,
                dtype: DType | None = None) -> np.ndarray:
        _check_mean_dtype(a, dtype)
        self.save_attr(dim=dim, keepdim=keepdim, self_sym_numel=a.array.size,
                       self_sym_sizes=a.array.shape)
        out = dtype or a.dtype
        with np.errstate(invalid="ignore"):
            return np.asarray(np.mean(a.array, axis=dim, keepdims=keepdim), dtype=out.np)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        sizes = a["self_sym_sizes"]
        count = int(np.prod([sizes[d] for d in a["dim"]])) if sizes else 1
        return sum_backward(grad, sizes, a["dim"], a["keepdim"]) / count


def _check_mean_dtype(a: Tensor, dtype: DType | None) -> None:
    if not (dtype or a.dtype).is_floating_point:
        name = (dtype or a.dtype).tensor_type[:-6]
        raise TorchRuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {name}")


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A001
        dtype: DType | None = None) -> Tensor:
    if dim is None:
        return SumBackward0.call(a, dtype=dtype)
    return SumBackward1.call(a, dim=dims_arg(dim, a.array.ndim), keepdim=keepdim, dtype=dtype)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, *,
         dtype: DType | None = None) -> Tensor:
    if dim is None:
        return MeanBackward0.call(a, dtype=dtype)
    return MeanBackward1.call(a, dim=dims_arg(dim, a.array.ndim), keepdim=keepdim, dtype=dtype)


class WhereBackward0(Function):
    """torch.where(condition, x, y): inputs are (x, y); the condition is saved."""

    __slots__ = ()

    def forward(self, x: Tensor, y: Tensor, condition: Tensor) -> np.ndarray:
        _, _, dtype = binary_operands(x, y)
        self.save("condition", condition)
        return np.where(condition.array, cast(x.array, dtype), cast(y.array, dtype))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        cond = self.unpack("condition")
        zero = Tensor.scalar(0.0)
        gx = where(cond, grad, zero) if self.needs_input_grad(0) else None
        gy = where(cond, zero, grad) if self.needs_input_grad(1) else None
        return gx, gy


def where(condition: Tensor, x: Any, y: Any) -> Tensor:
    if condition.dtype.name != "bool":
        raise TorchRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.tensor_type[:-6]}")
    return WhereBackward0.call(as_tensor_operand(x), as_tensor_operand(y), condition=condition)


__all__ = ["sum", "mean", "where", "float_dtype"]
