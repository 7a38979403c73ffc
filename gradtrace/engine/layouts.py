"""torch.memory_format and torch.layout values: `torch.contiguous_format`,
`torch.preserve_format`, `torch.channels_last(_3d)` and `torch.strided`, and what a memory
format asks of a tensor's strides (TensorImpl's contiguity flags).

gradtrace lays tensors out as torch does for the contiguous, preserve and channels-last
formats; the ops whose kernels differ in channels-last memory (convolutions, batch norm,
pools) follow torch's choice of kernel and of their results' format."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TorchRuntimeError


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


def is_channels_last(array: np.ndarray) -> bool:
    """Tensor.is_contiguous(memory_format=channels_last / channels_last_3d) of a 4-d / 5-d
    tensor (False for other ranks)."""
    return array.ndim in (4, 5) and is_contiguous_as(
        array, CHANNELS_LAST if array.ndim == 4 else CHANNELS_LAST_3D)


def suggests_channels_last(array: np.ndarray) -> bool:
    """suggest_memory_format() == channels_last(_3d): is_channels_last_strides_{2,3}d_s{4,5}
    (strides ordered channels-first-smallest; ambiguous size-1 layouts stay contiguous), the
    format torch's convolutions, pools and upsampling give their results."""
    from .ops.views import torch_strides

    if array.ndim not in (4, 5) or array.size == 0:
        return False
    return channels_last_strides(array.shape, torch_strides(array))


def channels_last_strides(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """c10's is_channels_last_strides_{2,3}d_s{4,5} of a 4-d / 5-d tensor's sizes and
    strides (in elements)."""
    if 0 in shape or strides[1] == 0:
        return False
    low = 0
    for d in _CHANNELS_LAST_ORDER[CHANNELS_LAST if len(shape) == 4 else CHANNELS_LAST_3D][1]:
        if strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_memory_format(array: np.ndarray) -> MemoryFormat:
    """Tensor.suggest_memory_format(): channels-last(_3d) by the strides, else contiguous
    (a transposed matrix's too)."""
    if not suggests_channels_last(array):
        return CONTIGUOUS
    return CHANNELS_LAST if array.ndim == 4 else CHANNELS_LAST_3D


def dense_in_format(out: np.ndarray, channels_last: bool) -> np.ndarray:
    """`out` itself if it is laid out so, else a copy: channels-last when asked (a 4-d or
    5-d result), else row-major."""
    fmt = CONTIGUOUS if not channels_last else \
        CHANNELS_LAST if out.ndim == 4 else CHANNELS_LAST_3D
    return out if is_contiguous_as(out, fmt) else copy_in_format(out, fmt)


def copy_format(fmt: Any, ndim: int) -> MemoryFormat:
    """The format a copy takes (clone, contiguous, *_like, to): preserve (the default),
    contiguous or channels-last (torch's error for a tensor of another rank)."""
    if fmt is None or fmt is PRESERVE or fmt is CONTIGUOUS:
        return fmt or PRESERVE
    rank = _CHANNELS_LAST_ORDER[fmt][0]
    if ndim != rank:
        raise TorchRuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return fmt


def format_strides(shape: tuple[int, ...], fmt: MemoryFormat) -> tuple[int, ...]:
    """The strides torch gives a tensor of `shape` made in `fmt` (contiguous or
    channels-last), a size-1 dim's included."""
    dims = _CHANNELS_LAST_ORDER[fmt][1] if fmt in _CHANNELS_LAST_ORDER else \
        tuple(range(len(shape) - 1, -1, -1))
    strides = [0] * len(shape)
    step = 1
    for d in dims:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def copy_in_format(array: np.ndarray, fmt: MemoryFormat, dtype: Any = None) -> np.ndarray:
    """A copy of `array` (as `dtype`) in memory it owns, laid out in `fmt` (contiguous or
    channels-last)."""
    from .meta import MetaArray, meta_array

    dtype = np.dtype(dtype or array.dtype)
    if type(array) is MetaArray:
        return meta_array(array.shape, dtype, format_strides(array.shape, fmt))
    if fmt not in _CHANNELS_LAST_ORDER:
        return np.array(array, dtype=dtype, order="C")
    strides = format_strides(array.shape, fmt)
    out = np.ndarray(array.shape, dtype, strides=tuple(s * dtype.itemsize for s in strides))
    np.copyto(out, array, casting="unsafe")
    return out
