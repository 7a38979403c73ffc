"""In-place shape changes: t_, transpose_/swapaxes_/swapdims_, squeeze_, unsqueeze_,
resize_, resize_as_ and set_. They change the tensor's metadata, not its data: the tensor
keeps its storage, its version moves on, and its history gets torch's node for the in-place form
(TBackward1, TransposeBackward1, SqueezeBackward3/4/5, UnsqueezeBackward1)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError, TorchTypeError
from .. import forward_ad, unreproducible
from ..dtypes import C_TYPE_NAMES
from ..events import OBSERVERS, emit
from ..forward_ad import auto_linear
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..meta import memory_owner
from ..node import Function
from ..shapes import size_args, wrap_dim
from ..tensor import Tensor, bump_version
from ._util import check_inplace
from .view_inplace import refresh_views
from .views import (
    SqueezeBackward0,
    SqueezeBackward1,
    SqueezeBackward2,
    TBackward0,
    TransposeBackward0,
    UnsqueezeBackward0,
)


class TBackward1(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear (the tangent reshaped alike)
    formulas = TBackward0.formulas
    forward = TBackward0.forward
    backward = TBackward0.backward


class TransposeBackward1(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear (the tangent reshaped alike)
    formulas = TransposeBackward0.formulas
    forward = TransposeBackward0.forward
    backward = TransposeBackward0.backward


class UnsqueezeBackward1(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear (the tangent reshaped alike)
    formulas = UnsqueezeBackward0.formulas
    forward = UnsqueezeBackward0.forward
    backward = UnsqueezeBackward0.backward


class SqueezeBackward3(Function):
    """squeeze_(): every size-1 dim."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear (the tangent reshaped alike)
    formulas = SqueezeBackward0.formulas
    forward = SqueezeBackward0.forward
    backward = SqueezeBackward0.backward


class SqueezeBackward4(Function):
    """squeeze_(dim)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear (the tangent reshaped alike)
    formulas = SqueezeBackward1.formulas
    forward = SqueezeBackward1.forward
    backward = SqueezeBackward1.backward


class SqueezeBackward5(Function):
    """squeeze_(dims)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear (the tangent reshaped alike)
    formulas = SqueezeBackward2.formulas
    forward = SqueezeBackward2.forward
    backward = SqueezeBackward2.backward


def _shape_inplace(node: type[Function], t: Tensor, **params: Any) -> Tensor:
    """Give `t` the op's shape in place: same storage, version + 1, the node as history."""
    check_inplace(t)
    recording = GRAD_MODE.enabled and t.requires_grad
    source = t
    if recording:  # the op reads the tensor as it was (shape and history)
        source = Tensor._wrap(t.array)
        source.requires_grad = True
        source.grad_fn = t.grad_fn
        source.output_nr = t.output_nr
        source._accumulator = t._accumulator
        source._fw_grad = t._fw_grad
    out = node.call(source, **params)
    t.array = out.array
    bump_version(t)
    tangent = forward_ad.tangent_of(out)
    if tangent is not None:  # torch reshapes the tangent in place alike (self_t.squeeze_())
        forward_ad.set_tangent(t, tangent)
    if out.grad_fn is not None:
        t.grad_fn = out.grad_fn
        t.output_nr = 0
        refresh_views(t)
    if OBSERVERS:
        emit("inplace", tensor=t, version=t._version_counter.value, node=out.grad_fn,
             name=node.__name__)
    return t


def t_(a: Tensor) -> Tensor:
    return _shape_inplace(TBackward1, a)


def transpose_(a: Tensor, dim0: int, dim1: int) -> Tensor:
    return _shape_inplace(TransposeBackward1, a, dim0=dim0, dim1=dim1)


def unsqueeze_(a: Tensor, dim: int) -> Tensor:
    wrap_dim(dim, a.array.ndim + 1)
    return _shape_inplace(UnsqueezeBackward1, a, dim=dim)


def squeeze_(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return _shape_inplace(SqueezeBackward3, a)
    if isinstance(dim, (tuple, list)):
        for d in dim:
            wrap_dim(d, a.array.ndim)
        return _shape_inplace(SqueezeBackward5, a, dim=tuple(dim))
    wrap_dim(dim, a.array.ndim)
    return _shape_inplace(SqueezeBackward4, a, dim=dim)


def squeeze_inplace_result(a: Tensor, dim: int) -> Tensor:
    """`a.squeeze_(dim)` on a fresh result inside an op (matmul's 1-D @ 2-D)."""
    return _shape_inplace(SqueezeBackward4, a, dim=dim)


def resize_(a: Tensor, *size: Any) -> Tensor:
    """Tensor.resize_: new shape over the old data; the elements it grows are uninitialised
    in torch (`unreproducible.fill()` here). A tensor that requires grad is refused, under
    no_grad too (VariableTypeManual.cpp's resize_ checks requires_grad alone)."""
    if a.requires_grad:
        raise TorchRuntimeError("cannot resize variables that require grad")
    shape = size_args(size)
    reserve(shape, 8)
    flat = a.array.reshape(-1)
    count = int(np.prod(shape)) if shape else 1
    in_storage = _storage_from(a.array)
    if count <= flat.size and a.array.flags.c_contiguous:
        a.array = flat[:count].reshape(shape)
    elif in_storage is not None and count <= in_storage.size:
        # a strided tensor keeps its storage and reads it in memory order from its offset
        # (a transposed [[1, 2], [3, 4]] resized to 4 is [1, 2, 3, 4], as torch gives)
        a.array = in_storage[:count].reshape(shape)
    else:
        kept = flat if in_storage is None else in_storage  # torch copies the storage
        data = np.full(count, unreproducible.fill() if count > kept.size else 0,
                       dtype=a.array.dtype)
        data[:min(count, kept.size)] = kept[:count]
        a.array = data.reshape(shape)
    bump_version(a)
    if OBSERVERS:
        emit("inplace", tensor=a, version=a._version_counter.value, node=None, name="resize_")
    return a


def _storage_from(array: np.ndarray) -> np.ndarray | None:
    """The elements of `array`'s storage from its first one on, in memory order (a view
    that shares it), when its owner is one dense buffer in some order; else None."""
    if type(array) is not np.ndarray or not array.size:
        return None
    owner = memory_owner(array)
    if type(owner) is not np.ndarray or not _dense(owner):
        return None
    memory = np.lib.stride_tricks.as_strided(owner, (owner.size,), (owner.itemsize,))
    start = array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    raw = memory.view(np.uint8)[start:]
    if start % array.itemsize or start < 0:
        return None
    return raw[:raw.size - raw.size % array.itemsize].view(array.dtype)


def _dense(array: np.ndarray) -> bool:
    """Whether `array` covers one block of memory from its first element (its axes, sorted
    by stride, nest without gaps), in whatever order (a transposed result owns such)."""
    expected = array.itemsize
    for stride, size in sorted((st, n) for st, n in zip(array.strides, array.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def resize_as_(a: Tensor, the_template: Any, memory_format: Any = None) -> Tensor:
    """Tensor.resize_as_(other): resize_ to other's shape (ssd.pytorch's nms resizes its
    scratch tensors so); a contiguous or absent memory_format only."""
    if not isinstance(the_template, Tensor):
        raise TorchTypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    if memory_format is not None and str(memory_format) not in (
            "torch.contiguous_format", "torch.preserve_format"):
        raise NotSupportedError(f"Tensor.resize_as_ with memory_format={memory_format} is not "
                                "supported by gradtrace")
    return resize_(a, *the_template.array.shape)


def set_(a: Tensor, source: Any = None) -> Tensor:
    """Tensor.set_(source): `a` takes the storage, size and strides of `source`, a tensor of
    its dtype (solo-learn's make_contiguous: `param.set_(param.contiguous())` under no_grad),
    or with no source an empty storage of size (0,); an in-place op, so its version moves on
    and, under grad mode, a leaf that requires grad is refused with torch's error. The storage
    overloads, and a non-leaf that requires grad (torch gives it a NotImplemented grad_fn),
    are not supported."""
    if source is None:
        array = np.empty((0,), dtype=a.array.dtype)
    elif not isinstance(source, Tensor):
        raise NotSupportedError("Tensor.set_ of a storage (or with a storage offset, size "
                                "and stride) is not supported by gradtrace: set_(source) "
                                "takes a tensor")
    else:
        if source.dtype is not a.dtype:
            raise TorchRuntimeError(
                f"Could not set tensor of type {C_TYPE_NAMES[source.dtype.name]} to a tensor "
                f"of type {C_TYPE_NAMES[a.dtype.name]}")
        array = source.array
    if GRAD_MODE.enabled and a.requires_grad and a.grad_fn is not None:
        raise NotSupportedError("Tensor.set_ on a tensor with autograd history (torch gives it "
                                "a NotImplemented grad_fn) is not supported by gradtrace")
    check_inplace(a)
    a.array = array
    bump_version(a)
    if OBSERVERS:
        emit("inplace", tensor=a, version=a._version_counter.value, node=None, name="set_")
    return a


__all__ = ["t_", "transpose_", "unsqueeze_", "squeeze_", "resize_", "resize_as_", "set_"]
