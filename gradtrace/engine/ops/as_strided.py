"""Tensor.as_strided / torch.as_strided: a view of the tensor's storage (its base's memory)
with any sizes, strides and offset, recorded as AsStridedBackward0 like torch."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError
from ..formulas import vjp
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


TENSOR_METHODS = {"as_strided": as_strided}
