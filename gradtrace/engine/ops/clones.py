"""Ops that copy a tensor into new memory: clone, contiguous, `.to` (dtype and device),
repeat and flip, and the layout a copy takes (torch's memory_format=preserve: a dense
tensor's own strides, else infer_dense_strides of them). Views, which share memory, are
views.py's."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ScriptError, TorchRuntimeError, TorchTypeError
from .. import bfloat16, dtypes, layouts
from .. import complex as complex_dtypes
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..limits import reserve
from ..meta import NO_DATA, MetaArray, is_c_contiguous, is_meta, meta_array
from ..node import Function
from ..shapes import contiguous_strides, dense_strides_like
from ..tensor import Tensor, type_name
from .views import (
    _sizes,
    _wrap,
    keep_exact_strides,
    saved_ints,
    signed,
    tensor_strides,
    torch_strides,
)


def preserved_strides(array: np.ndarray, strides: tuple[int, ...] | None = None
                      ) -> tuple[int, ...] | None:
    """The strides torch's memory_format=preserve gives a copy of `array` (empty_like, clone,
    .to), from the strides it reports (`strides`, tensor_strides of its tensor: a view's
    size-1 dims keep theirs): a non-overlapping and dense tensor's own, a size-1 dim's
    included, else infer_dense_strides of them; None for torch's row-major ones."""
    shape = array.shape
    if strides is None:
        if is_c_contiguous(array):
            return None
        strides = torch_strides(array)
    if not dense_layout(shape, strides):
        strides = dense_strides_like(shape, strides)
    return None if strides == contiguous_strides(shape) else strides


def dense_layout(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """TensorImpl's compute_non_overlapping_and_dense: the dims of size 2 or more, by
    stride, pack memory with no gap (size-0 and size-1 dims say nothing)."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    require = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d]):
        if strides[d] != require:
            return False
        require *= shape[d]
    return True


def empty_laid_out(shape: tuple[int, ...], strides: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An array it owns of `shape` whose strides (in elements) are exactly the dense
    `strides`, a size-1 dimension's included, as torch's empty_strided sets them (numpy
    allocates the shape's bytes, all that dense strides reach); reported as they are."""
    dtype = np.dtype(dtype)
    array = np.ndarray(shape, dtype, strides=tuple(s * dtype.itemsize for s in strides))
    # (numpy keeps no strides for an empty array: its zeros would be reported)
    if 1 in shape and array.size and array.flags.c_contiguous and \
            strides != contiguous_strides(shape):
        keep_exact_strides(array)
    return array


def copy_laid_out_as(values: np.ndarray, like: np.ndarray, dtype: Any = None,
                     like_strides: tuple[int, ...] | None = None) -> np.ndarray:
    """A copy of `values` (of `like`'s shape, as `dtype`) in memory it owns, laid out as a
    copy of `like` (reporting `like_strides`, when given) with preserve_format is (an op
    writing into `empty_like(self)`)."""
    strides = preserved_strides(like, like_strides)
    if strides is None:
        return np.array(values, dtype=dtype, order="C")
    out = empty_laid_out(like.shape, strides, dtype or values.dtype)
    np.copyto(out, values, casting="unsafe")
    return out


def copy_preserving_layout(array: np.ndarray, dtype: Any = None,
                           strides: tuple[int, ...] | None = None) -> np.ndarray:
    """A copy of `array` (as `dtype`) with preserved_strides (of `strides`, its tensor's,
    when given), in memory it owns."""
    if type(array) is MetaArray:
        return meta_array(array.shape, array.dtype if dtype is None else dtype,
                          preserved_strides(array, strides))
    return copy_laid_out_as(array, array, dtype, strides)



class CloneBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, memory_format: layouts.MemoryFormat = layouts.PRESERVE
                ) -> np.ndarray:
        if type(a.array) is not MetaArray:  # (a meta copy owns nothing)
            reserve(a.array.shape, a.array.itemsize)  # a broadcast view copies to its size
        if memory_format is layouts.PRESERVE:
            return copy_preserving_layout(a.array, strides=tensor_strides(a))
        return layouts.copy_in_format(a.array, memory_format)

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def clone(a: Tensor, *, memory_format: Any = None) -> Tensor:
    return CloneBackward0.call(a, memory_format=layouts.copy_format(memory_format,
                                                                      a.array.ndim))


def contiguous(a: Tensor, memory_format: Any = None) -> Tensor:
    if memory_format is layouts.PRESERVE:
        raise TorchRuntimeError("preserve memory format is unsupported by the contiguous "
                                "operator")
    fmt = layouts.copy_format(memory_format or layouts.CONTIGUOUS, a.array.ndim)
    if layouts.is_contiguous_as(a.array, fmt):
        return a
    return CloneBackward0.call(a, memory_format=fmt)


class ToCopyBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, dtype: Any, meta: bool = False,
                memory_format: layouts.MemoryFormat = layouts.PRESERVE) -> np.ndarray:
        if meta:  # .to("meta"): the shape, dtype and strides, not the values
            return meta_array(a.array.shape, dtype.np,
                              preserved_strides(a.array) if memory_format is layouts.PRESERVE
                              else layouts.format_strides(a.array.shape, memory_format))
        source = bfloat16.through_float32(a.array, dtype.np)  # (as torch converts bfloat16)
        if source.dtype.kind == "c" and not dtype.is_complex:
            source = complex_dtypes.to_real(source, dtype)
        if memory_format is layouts.PRESERVE:
            return copy_preserving_layout(source, dtype.np, tensor_strides(a))
        return layouts.copy_in_format(source, memory_format, dtype.np)

    def backward(self, grad: Tensor) -> Tensor:
        # torch's _to_copy_backward: a complex gradient of a real input is its real part
        return complex_dtypes.handle_r_to_c(self.input_meta[0][1], grad).to(
            self.input_meta[0][1])


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")


def to(a: Tensor, *args: Any, device: Any = None, dtype: Any = None,
       non_blocking: bool = False, copy: bool = False, memory_format: Any = None) -> Tensor:
    """Tensor.to(device, dtype) / to(dtype) / to(other): the same tensor when nothing changes
    (unless copy=True), else a ToCopyBackward0 copy. Only the CPU exists here."""
    from ..device import check_device, is_device_like

    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dtype = other.dtype
    elif rest and isinstance(rest[0], dtypes.DType):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or is_device_like(rest[0])):
        device = rest.pop(0)  # (`Device? device=None`: None stays on the tensor's device)
        if rest and (rest[0] is None or isinstance(rest[0], dtypes.DType)):
            dtype = rest.pop(0) or dtype  # (`ScalarType? dtype=None`)
    if rest and isinstance(rest[0], bool):
        rest.pop(0)  # non_blocking: a CPU copy is synchronous anyway
        if rest and isinstance(rest[0], bool):
            copy = rest.pop(0)
    if rest:
        got = ", ".join(_to_type_name(v) for v in args)
        raise TorchTypeError(
            f"to() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n{_TO_SIGNATURES}")
    to_meta = check_device(device, moving=True)
    if device is not None and not to_meta and is_meta(a.array):
        raise ScriptError(NO_DATA, kind="NotImplementedError")  # meta -> cpu: no values
    if dtype is None:
        dtype = a.dtype
    # a copy keeps the layout (preserve_format) or takes the format asked for; no copy is
    # made when the tensor suggests that format already (torch's to_will_alias: a
    # transposed matrix suggests contiguous_format)
    fmt = layouts.copy_format(memory_format, a.array.ndim)
    if to_meta and not is_meta(a.array):
        return ToCopyBackward0.call(a, dtype=dtype, meta=True, memory_format=fmt)
    if dtype is a.dtype and not copy and (
            fmt is layouts.PRESERVE or layouts.suggest_memory_format(a.array) is fmt):
        return a
    if not (dtype.is_floating_point or dtype.is_complex) and a.requires_grad:
        return Tensor._wrap(copy_preserving_layout(a.array, dtype.np) if fmt is
                            layouts.PRESERVE else layouts.copy_in_format(a.array, fmt,
                                                                         dtype.np))
    return ToCopyBackward0.call(a, dtype=dtype, memory_format=fmt)


def _to_type_name(value: Any) -> str:
    if isinstance(value, dtypes.DType):
        return "torch.dtype"
    return type_name(value)


class RepeatBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "Σ {grad}.tiles({repeats})"),)

    def forward(self, a: Tensor, repeats: tuple[int, ...]) -> np.ndarray:
        if len(repeats) < a.array.ndim:
            raise TorchRuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor")
        padded = (1,) * (len(repeats) - a.array.ndim) + a.array.shape
        target = [r * s for r, s in zip(repeats, padded, strict=True)]
        for t_ in target:
            if t_ < 0:
                raise TorchRuntimeError(
                    f"Trying to create tensor with negative dimension {t_}: "
                    f"[{', '.join(map(str, target))}]")
        self.save_attr(repeats=tuple(repeats), self_sym_sizes=a.array.shape)
        reserve(tuple(target), 8)
        return np.tile(a.array, repeats)

    def backward(self, grad: Tensor) -> Tensor:
        """torch's repeat_backward: sum away added dims, then one reshape and one sum."""
        repeats = self.attrs["repeats"]
        sizes = self.attrs["self_sym_sizes"]
        if 0 in repeats:
            from .creation import zeros

            return zeros(sizes, dtype=grad.dtype)
        extra = grad.array.ndim - len(sizes)
        for _ in range(extra):
            grad = grad.sum(0)
        grad_size: list[int] = []
        sum_dims: list[int] = []
        for d, size in enumerate(sizes):
            repeat = repeats[d + extra]
            if repeat != 1:
                grad_size.append(repeat)
                sum_dims.append(len(grad_size) - 1)
            grad_size.append(size)
        if sum_dims:
            grad = grad.reshape(tuple(grad_size)).sum(tuple(sum_dims))
        return grad


class FlipBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.flip({dims})"),)

    def forward(self, a: Tensor, dims: tuple[int, ...]) -> np.ndarray:
        wrapped = tuple(_wrap(d, a.array.ndim) for d in dims)
        for i, w in enumerate(wrapped):
            if w in wrapped[:i]:
                raise TorchRuntimeError(f"dim {w} appears multiple times in the list of dims")
        self.save_attr(dims=saved_ints(dims))
        # (into empty_like(self, preserve_format): a dense input's own layout)
        return copy_laid_out_as(np.flip(a.array, wrapped), a.array) if a.array.ndim else \
            a.array.copy()

    def backward(self, grad: Tensor) -> Tensor:
        return flip(grad, tuple(signed(d) for d in self.attrs["dims"]))


def flip(a: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    return FlipBackward0.call(a, dims=_sizes(dims, kwargs, "dims"))


def repeat(a: Tensor, *repeats: Any, **kwargs: Any) -> Tensor:
    return RepeatBackward0.call(a, repeats=_sizes(repeats, kwargs, "repeats"))
