"""Tensor.as_strided / torch.as_strided: a view of the tensor's storage (its base's memory)
with any sizes, strides and offset, recorded as AsStridedBackward0 like torch; and
as_strided_scatter, a copy of the tensor with src written through such a window."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError
from ..formulas import vjp
from ..forward_ad import linear_in_all
from ..meta import is_c_contiguous
from ..node import Function
from ..tensor import Tensor
from .view_inplace import _geometry, _region_extent, _strided
from .views import ViewFunction, torch_strides


def _storage(a: Tensor) -> np.ndarray:
    """The memory `a` lives in, flat: its base's array (torch's storage)."""
    base = a._base.array if a._base is not None else a.array
    if not base.flags.c_contiguous:
        raise NotSupportedError("as_strided of a tensor whose storage is not contiguous memory "
                                "is not supported by gradtrace")
    return base.reshape(-1)


def _self_geometry(a: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    if a._base is None:
        return a.array.shape, torch_strides(a.array), 0
    return _geometry(a)


def _indices(size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> np.ndarray:
    """The storage index of every element of a strided window."""
    index = np.full(size, offset, dtype=np.int64)
    for dim, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[dim] = n
        index = index + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return index


class AsStridedBackward0(ViewFunction):
    """`self.as_strided(size, stride, storage_offset)`: a window onto self's storage."""

    __slots__ = ("geometry",)
    meta_layout_only = False  # it reads its base's storage
    formulas = (vjp("self", "as_strided_backward({grad}, {size}, {stride}, {storage_offset})"),)

    def forward(self, a: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int | None) -> np.ndarray:
        self.save_attr(size=size, stride=stride, storage_offset=storage_offset)
        self.geometry = _self_geometry(a)
        offset = self.geometry[2] if storage_offset is None else storage_offset
        return _strided(_storage(a), size, stride, offset)

    def backward(self, grad: Tensor) -> Tensor:
        """torch's as_strided_backward: the gradient scattered (summed where the window
        overlaps itself) into a zero storage, read back through self's geometry."""
        from .creation import zeros
        from .indexing import index_add

        shape, strides, in_offset = self.geometry
        a = self.attrs
        out_offset = in_offset if a["storage_offset"] is None else a["storage_offset"]
        shared = min(in_offset, out_offset)
        out_index = _indices(a["size"], a["stride"], out_offset - shared)
        in_index = _indices(shape, strides, in_offset - shared)
        extent = max(_region_extent(shape, strides, in_offset - shared),
                     _region_extent(a["size"], a["stride"], out_offset - shared))
        storage = zeros(extent, dtype=grad.dtype)
        storage = index_add(storage, 0, Tensor._wrap(out_index.reshape(-1)), grad.reshape(-1))
        return storage.take(Tensor._wrap(in_index))


def as_strided(a: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """torch.as_strided: torch's checks, then the view."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise TorchRuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise TorchRuntimeError("as_strided: Negative strides are not supported at the moment, "
                                f"got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise TorchRuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                                f"{list(size)}")
    offset = _self_geometry(a)[2] if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise TorchRuntimeError(
            f"Tensor: invalid storage offset {offset}")
    item = a.dtype.itemsize
    storage = _storage(a)
    need = _region_extent(size, stride, offset)
    if need > storage.size:
        raise TorchRuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
            f"for storage of size {storage.size * item}")
    return AsStridedBackward0.call(a, size=size, stride=stride,
                                   storage_offset=None if storage_offset is None else offset)


def _window_check(size: tuple[int, ...], stride: tuple[int, ...], offset: int, storage: int,
                  item: int) -> None:
    need = _region_extent(size, stride, offset)
    if need > storage:
        raise TorchRuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
            f"for storage of size {storage * item}")


class AsStridedScatterBackward0(Function):
    """`self.as_strided_scatter(src, size, stride, storage_offset)`: self's clone (its layout
    kept) with src copied into the window of the clone's storage."""

    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros_like({grad}).as_strided_scatter({grad}.as_strided({size}, "
                            "{stride}, {storage_offset}), {size}, {stride}, {storage_offset})"),
                vjp("src", "{grad}.contiguous().as_strided({size}, {stride}, "
                           "{storage_offset})"))

    def forward(self, a: Tensor, src: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int | None) -> np.ndarray:
        from .scatters import _check_src

        self.save_attr(size=size, stride=stride, storage_offset=storage_offset)
        out = a.array.copy(order="K")  # clone(): a dense layout is preserved
        strides = torch_strides(out)
        storage = np.zeros(max(out.size, 1), dtype=out.dtype)
        _strided(storage, out.shape, strides, 0)[...] = out
        offset = 0 if storage_offset is None else storage_offset
        _window_check(size, stride, offset, out.size, out.itemsize)
        window = _strided(storage, size, stride, offset)
        _check_src(src.array, window)
        storage[_indices(size, stride, offset)] = src.array.astype(out.dtype, copy=False)
        return _strided(storage, out.shape, strides, 0).copy(order="K")

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """torch's as_strided_scatter_backward, op for op (measured): src's gradient is the
        window of the contiguous gradient, a view; self's a zero tensor with only that
        window copied in (torch's formula, which zeroes the rest rather than the window)."""
        from ..shapes import contiguous_strides
        from .creation import zeros

        at = self.attrs
        size, stride, offset = at["size"], at["stride"], at["storage_offset"]
        grad_slice = as_strided(grad.contiguous(), size, stride, offset)
        g_self = g_src = None
        if self.needs_input_grad(0):  # self requires grad, so it was contiguous
            shape = tuple(self.input_meta[0][0])
            buffer = zeros(shape, dtype=grad.dtype)
            g_self = as_strided(buffer, shape, contiguous_strides(shape))
            as_strided(buffer, size, stride, offset).copy_(grad_slice)
        if self.needs_input_grad(1):
            g_src = grad_slice
        return g_self, g_src


def as_strided_scatter(a: Tensor, src: Tensor, size: Any, stride: Any,
                       storage_offset: Any = None) -> Tensor:
    """torch.as_strided_scatter: torch's contiguity assertion for inputs that require grad,
    then the copy."""
    if a.requires_grad and not is_c_contiguous(a.array):
        raise TorchRuntimeError(
            '!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at '
            '"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp":4754, please report '
            'a bug to PyTorch. as_strided_scatter is currently only supported for contiguous '
            'inputs')
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = None if storage_offset is None else int(storage_offset)
    return AsStridedScatterBackward0.call(a, src, size=size, stride=stride,
                                          storage_offset=offset)


TENSOR_METHODS = {"as_strided": as_strided, "as_strided_scatter": as_strided_scatter}
