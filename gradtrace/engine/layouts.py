"""torch.memory_format and torch.layout values: `torch.contiguous_format`,
`torch.preserve_format`, `torch.channels_last(_3d)` and `torch.strided`, and what a memory
format asks of a tensor's strides (TensorImpl's contiguity flags).

gradtrace lays tensors out as torch does for the contiguous and preserve formats. It does
not make channels-last layouts: torch then picks other kernels (oneDNN's nhwc convolutions)
whose results are not reproduced, so asking for one is refused (a 4-D or 5-D tensor) or gets
torch's own error (any other rank)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotSupportedError, TorchRuntimeError


class _TorchConstant:
    """A named torch constant, printed as torch prints it (`torch.channels_last`)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class MemoryFormat(_TorchConstant):
    """One of torch's memory formats."""

    __slots__ = ()
    python_type_name = "torch.memory_format"  # the name Python's messages give the type


class Layout(_TorchConstant):
    """torch.strided (a dense tensor's layout) or torch.sparse_coo (engine/sparse.py)."""

    __slots__ = ()
    python_type_name = "torch.layout"


CONTIGUOUS = MemoryFormat("contiguous_format")
PRESERVE = MemoryFormat("preserve_format")
CHANNELS_LAST = MemoryFormat("channels_last")
CHANNELS_LAST_3D = MemoryFormat("channels_last_3d")
STRIDED = Layout("strided")
SPARSE_COO = Layout("sparse_coo")

TORCH_NAMES: dict[str, Any] = {
    f.name: f for f in (CONTIGUOUS, PRESERVE, CHANNELS_LAST, CHANNELS_LAST_3D, STRIDED,
                        SPARSE_COO)}

# the dims a channels-last tensor walks fastest first (c10's is_channels_last_strides order)
_CHANNELS_LAST_ORDER = {CHANNELS_LAST: (4, (1, 3, 2, 0)), CHANNELS_LAST_3D: (5, (1, 4, 3, 2, 0))}


def is_contiguous_as(array: np.ndarray, fmt: MemoryFormat | None) -> bool:
    """Tensor.is_contiguous(memory_format): the channels-last flags for those formats (False
    for other ranks), else plain contiguity (also for preserve_format, as TensorImpl's)."""
    from .meta import is_c_contiguous

    order = _CHANNELS_LAST_ORDER.get(fmt)  # type: ignore[arg-type]
    if order is None:
        return is_c_contiguous(array)
    rank, dims = order
    if array.ndim != rank:
        return False
    expected = 1
    item = array.itemsize
    for d in dims:  # c10's compute_channels_last_contiguous_2d/_3d; size-1 dims are free
        size = array.shape[d]
        if size != 1:
            if array.strides[d] != expected * item:
                return False
            expected *= size
    return True


def copy_format(fmt: Any, ndim: int) -> MemoryFormat:
    """The format a copy takes (clone, *_like, to): preserve (the default) or contiguous;
    a channels-last one is torch's error for the wrong rank, else refused (module doc)."""
    if fmt is None or fmt is PRESERVE or fmt is CONTIGUOUS:
        return fmt or PRESERVE
    refuse_channels_last(fmt, ndim)
    return fmt


def refuse_channels_last(fmt: MemoryFormat, ndim: int) -> None:
    """torch's rank error for a channels-last format, else gradtrace's refusal."""
    rank = _CHANNELS_LAST_ORDER[fmt][0]
    if ndim != rank:
        raise TorchRuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    raise NotSupportedError(f"memory_format=torch.{fmt.name} is not supported by gradtrace "
                            "(channels-last layouts change which of torch's kernels run)")
