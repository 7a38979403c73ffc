"""Shape and view ops: view/reshape, expand, unsqueeze, squeeze, ...

Views share storage and the version counter with their base, like torch.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..node import Function
from ..shapes import size_args, wrap_dim
from ..tensor import Tensor


def infer_size(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Resolve one -1 in a requested shape; torch's message when sizes disagree."""
    if shape.count(-1) > 1:
        raise TorchRuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise TorchRuntimeError(
                f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise TorchRuntimeError(
            f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


class ViewBackward0(Function):
    __slots__ = ()
    returns_view = True

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        shape = infer_size(shape, a.array.size)
        self.save_attr(self_sym_sizes=a.array.shape)
        out = a.array.view()
        try:
            out.shape = shape  # raises instead of copying when strides do not allow a view
        except AttributeError:
            raise TorchRuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return out

    def backward(self, grad: Tensor) -> Tensor:
        return grad.reshape(self.attrs["self_sym_sizes"])


def view(a: Tensor, *shape: Any) -> Tensor:
    return ViewBackward0.call(a, shape=size_args(shape))


def reshape(a: Tensor, *shape: Any) -> Tensor:
    shape = infer_size(size_args(shape), a.array.size)
    if a.array.shape == shape:
        return alias(a)
    return ViewBackward0.call(a if _viewable(a.array, shape) else clone(a), shape=shape)


def _viewable(array: np.ndarray, shape: tuple[int, ...]) -> bool:
    probe = array.view()
    try:
        probe.shape = shape
    except AttributeError:
        return False
    return True


class AliasBackward0(Function):
    __slots__ = ()
    returns_view = True

    def forward(self, a: Tensor) -> np.ndarray:
        return a.array.view()

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def alias(a: Tensor) -> Tensor:
    return AliasBackward0.call(a)


class ExpandBackward0(Function):
    __slots__ = ()
    returns_view = True

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        src = a.array.shape
        if len(shape) < len(src):
            raise TorchRuntimeError(
                f"expand(torch.{a.dtype.tensor_type}{{[{', '.join(map(str, src))}]}}, "
                f"size=[{', '.join(map(str, shape))}]): the number of sizes provided "
                f"({len(shape)}) must be greater or equal to the number of dimensions in the "
                f"tensor ({len(src)})")
        lead = len(shape) - len(src)
        target = list(shape)
        for i, s in enumerate(shape):
            if s == -1:
                if i < lead:
                    raise TorchRuntimeError(
                        f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                        f"non-existing dimension {i}")
                target[i] = src[i - lead]
            elif i >= lead and src[i - lead] != s and src[i - lead] != 1:
                raise TorchRuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size "
                    f"({src[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                    f"[{', '.join(map(str, shape))}].  Tensor sizes: "
                    f"[{', '.join(map(str, src))}]")
        return np.broadcast_to(a.array, tuple(target))

    def backward(self, grad: Tensor) -> Tensor:
        from ..shapes import sum_to_dims

        sizes = self.attrs["self_sym_sizes"]
        dims = sum_to_dims(grad.array.shape, sizes)
        if dims:
            grad = grad.sum(dim=dims, keepdim=True)
        if grad.array.shape != sizes:
            grad = grad.view(sizes)
        return grad


def expand(a: Tensor, *shape: Any) -> Tensor:
    return ExpandBackward0.call(a, shape=size_args(shape))


def expand_as(a: Tensor, other: Tensor) -> Tensor:
    return expand(a, other.shape)


class UnsqueezeBackward0(Function):
    __slots__ = ()
    returns_view = True

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=dim)
        return np.expand_dims(a.array, dim)

    def backward(self, grad: Tensor) -> Tensor:
        return grad.squeeze(self.attrs["dim"])


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    return UnsqueezeBackward0.call(a, dim=wrap_dim(dim, a.array.ndim + 1))


class SqueezeBackward0(Function):
    """squeeze(): every size-1 dim."""

    __slots__ = ()
    returns_view = True

    def forward(self, a: Tensor) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        return a.array.reshape(tuple(s for s in a.array.shape if s != 1))

    def backward(self, grad: Tensor) -> Tensor:
        return grad.reshape(self.attrs["self_sym_sizes"])


class SqueezeBackward1(Function):
    """squeeze(dim): that dim, if it has size 1."""

    __slots__ = ()
    returns_view = True

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=dim, self_sym_sizes=a.array.shape)
        if a.array.ndim and a.array.shape[dim] == 1:
            return np.squeeze(a.array, dim)
        return a.array.view()

    def backward(self, grad: Tensor) -> Tensor:
        return grad.reshape(self.attrs["self_sym_sizes"])


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return SqueezeBackward0.call(a)
    return SqueezeBackward1.call(a, dim=wrap_dim(dim, a.array.ndim))


class CloneBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        return a.array.copy()

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def clone(a: Tensor) -> Tensor:
    return CloneBackward0.call(a)


class ToCopyBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dtype: Any) -> np.ndarray:
        return a.array.astype(dtype.np)

    def backward(self, grad: Tensor) -> Tensor:
        return grad.to(self.input_meta[0][1])


def to(a: Tensor, dtype: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    """Tensor.to(dtype): a copy in that dtype (the same tensor when nothing changes)."""
    if dtype is None:
        dtype = kwargs.get("dtype")
    if dtype is None or not hasattr(dtype, "np") or dtype is a.dtype:
        return a
    if not dtype.is_floating_point and a.requires_grad:
        return Tensor._wrap(a.array.astype(dtype.np))
    return ToCopyBackward0.call(a, dtype=dtype)
