"""Tensor constructors: tensor, zeros, ones, full, arange, linspace, eye, *_like.

The random constructors (rand, randn, randint, ...) are in `sampling`.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np

from ...errors import (
    NotSupportedError,
    ScriptError,
    TorchRuntimeError,
    TorchTypeError,
    TorchValueError,
)
from .. import capability, dtypes, layouts, unreproducible
from ..device import check_device
from ..dtypes import DType, checked_scalar
from ..formulas import local
from ..forward_ad import auto_linear
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..meta import is_meta, meta_array
from ..node import Function
from ..shapes import size_args
from ..tensor import Tensor, bump_version, type_name
from ._util import internal_overlap, not_implemented, write_every

WARNINGS: list[str] = []  # UserWarnings torch would print; the interpreter sends them to stderr


class OnceWarning(str):
    """A warning whose location is torch's own code (`where` names the place): Python's
    filter shows it once per run for each place, not once per line of the script."""

    where: str = ""

    def __new__(cls, message: str, where: str) -> OnceWarning:
        self = super().__new__(cls, message)
        self.where = where
        return self
class PlacedWarning(str):
    """A warning Python attributes to a line of torch's own Python (`module`, `line`): it
    is shown at the script's line, and filtered and remembered as from that place (once
    there under the default filter, whichever script line made the call)."""

    module: str = ""
    line: int = 0

    def __new__(cls, message: str, module: str, line: int) -> PlacedWarning:
        self = super().__new__(cls, message)
        self.module, self.line = module, line
        return self


COPY_CONSTRUCT_WARNING = (
    "UserWarning: To copy construct from a tensor, it is recommended to use "
    "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
    "rather than torch.tensor(sourceTensor).")


LIST_OF_ARRAYS_WARNING = (
    "UserWarning: Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
    "consider converting the list to a single numpy.ndarray with numpy.array() before "
    "converting to a tensor. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/"
    "tensor_new.cpp:252.)")
MAX_DIMS = 128  # the nesting torch.tensor reads (torch/csrc/utils/tensor_new.cpp)
# what torch's PySequence_Check takes as a dimension of the data: `torch.tensor(range(100))`,
# a deque of returns (`torch.tensor(returns)` after `returns.appendleft(...)`)
SEQUENCES = (list, tuple, range, deque)


def _sequence_name(data: Any) -> str:
    """A sequence's type as torch's messages name it (its tp_name: `collections.deque`)."""
    return "collections.deque" if isinstance(data, deque) else type_name(data)


def _infer(data: Any, depth: int = 0, inferring: bool = True, ndim: int = 0
           ) -> tuple[list[int], DType | None]:
    """Shape and dtype of nested Python data, with torch's messages for ragged input
    (`inferring`: no dtype was given, so torch's dtype inference walks it first; `ndim`:
    the dimensions torch's compute_sizes found along the first items, where a dtype was
    given and torch's store expects a sequence)."""
    if isinstance(data, Tensor):  # (torch's compute_sizes does not descend into a tensor:
        return [], data.dtype  # it is one scalar of the data, see _tensor_scalar)
    if isinstance(data, np.generic):  # numpy's scalars keep their dtype (np.float64(1.5))
        from ..ndarray import torch_dtype

        return [], torch_dtype(data.dtype)
    if type(data).__name__ == "ndarray" and type(data).__module__ == "gradtrace.engine.ndarray":
        from ..ndarray import torch_dtype

        if depth:  # TORCH_WARN_ONCE: once per run, whichever line makes the next one
            WARNINGS.append(OnceWarning(LIST_OF_ARRAYS_WARNING, "tensor_new"))
        return list(data.a.shape), torch_dtype(data.a.dtype)
    if isinstance(data, bool):
        return [], dtypes.bool_
    if isinstance(data, int):
        return [], dtypes.int64
    if isinstance(data, float):
        return [], dtypes.DEFAULT_FLOAT
    if isinstance(data, complex):
        return [], dtypes.scalar_dtype(data)  # (the default complex dtype)
    if isinstance(data, SEQUENCES):
        if isinstance(data, range):  # (its length is not yet memory: check it first)
            reserve((len(data),), 8)
        if inferring and any(item is data for item in data):
            raise TorchTypeError("new(): self-referential lists are incompatible")
        if depth >= MAX_DIMS:  # (torch's check, before any item's)
            raise TorchValueError(f"too many dimensions '{_sequence_name(data)}'")
        if not data:
            return [0], None
        shapes_dtypes = [_infer(item, depth + 1, inferring, ndim) for item in data]
        first = shapes_dtypes[0][0]
        dtype = None
        for shape, dt in shapes_dtypes:
            if shape != first:
                got = shape[0] if shape else 0
                raise TorchValueError(
                    f"expected sequence of length {first[0] if first else 0} at dim "
                    f"{depth + 1} (got {got})")
            if dt is not None:
                dtype = dt if dtype is None else _promote_infer(dtype, dt)
        return [len(data)] + first, dtype
    if not inferring:  # torch's store of each item, at the sizes of the first items
        if depth < ndim:
            raise TorchTypeError("not a sequence")
        raise TorchTypeError(f"must be real number, not {type_name(data)}")
    if isinstance(data, str):  # (a str along the first items is torch.tensor's ValueError)
        raise TorchTypeError("new(): invalid data type 'str'")
    raise TorchRuntimeError(f"Could not infer dtype of {type_name(data)}")


def _promote_infer(a: DType, b: DType) -> DType:
    if a.is_complex or b.is_complex:
        return a if a.is_complex else b
    if a.is_floating_point or b.is_floating_point:
        if a.is_floating_point and b.is_floating_point:
            return dtypes.promote(a, b)
        return a if a.is_floating_point else b
    return dtypes.promote(a, b)


def _tensor_scalar(t: Tensor, target: DType) -> Any:
    """torch's store_scalar of a tensor inside torch.tensor's data: `float(t)` for a
    floating target, `t.__index__()` for an integer or bool one (so a tensor of more than
    one element, or a float one stored as an integer, raises as torch's does)."""
    if target.is_floating_point:
        return float(t)
    if target.is_complex:
        return t.item()
    return t.__index__()


def _flatten(data: Any, out: list, target: DType) -> None:
    if isinstance(data, Tensor):
        out.append(_tensor_scalar(data, target))
    elif isinstance(data, np.generic):
        out.append(data.item())
    elif hasattr(data, "a") and type(data).__module__ == "gradtrace.engine.ndarray":
        out.extend(data.a.reshape(-1).tolist())
    elif isinstance(data, SEQUENCES):
        for item in data:
            _flatten(item, out, target)
    else:
        out.append(data)




def _check_python_ints(flat: list, target: DType) -> None:
    """What torch's tensor_new.cpp does with a Python int: unpack it as int64 (ValueError
    past that), then convert it to the dtype with c10's overflow check, which lets an
    unsigned dtype take -max..-1 (wrapping them, as `-1` becomes 255 in uint8); a float
    dtype takes it through double (Python's OverflowError past that). A uint64 tensor's items
    are unpacked as unsigned 64-bit ints (PyLong_AsUnsignedLongLong), each in turn."""
    if target is dtypes.uint64:
        for v in flat:
            if type(v) is float:
                raise ScriptError("an integer is required", kind="TypeError")
            if type(v) is int and v < 0:
                raise ScriptError("can't convert negative int to unsigned", kind="OverflowError")
            if type(v) is int and v >> 64:
                raise ScriptError("int too big to convert", kind="OverflowError")
        return
    ints = [v for v in flat if type(v) is int]
    if not ints or target is dtypes.bool_:
        return
    low, high = min(ints), max(ints)
    if not (dtypes.fits_int64(low) and dtypes.fits_int64(high)):
        if target.is_floating_point:
            try:
                float(low), float(high)
            except OverflowError:
                raise ScriptError("int too large to convert to float",
                                  kind="OverflowError") from None
            return
        raise TorchValueError("Overflow when unpacking long long")
    if target.is_floating_point or target.is_complex:
        return
    info = np.iinfo(target.np)
    floor = -int(info.max) if info.min == 0 else int(info.min)
    if low < floor or high > info.max:
        raise TorchRuntimeError(
            f"value cannot be converted to type {target.name} without overflow")
    if info.min == 0 and low < 0:
        for i, v in enumerate(flat):
            if type(v) is int and v < 0:
                flat[i] = v % (int(info.max) + 1)


def tensor(data: Any, *, dtype: DType | None = None, requires_grad: bool = False,
           device: Any = None) -> Tensor:
    """torch.tensor: always copies; infers float32 / int64 / bool like torch."""
    if check_device(device):
        return placed(tensor(data, dtype=dtype, requires_grad=requires_grad, device="cpu"))
    from ..ndarray import ndarray, tensor_copy

    if type(data) is ndarray:
        made = tensor_copy(data, dtype)
        if requires_grad:
            made.requires_grad_(True)
        return made
    if isinstance(data, Tensor):
        WARNINGS.append(COPY_CONSTRUCT_WARNING)
        array = data.array.copy()
        if dtype is not None:
            array = array.astype(dtype.np)
        return Tensor(array, requires_grad=requires_grad)
    if isinstance(data, str):
        raise TorchTypeError("new(): invalid data type 'str'")
    first, ndim = data, 0
    while isinstance(first, SEQUENCES):  # torch's compute_sizes walks the first items
        ndim += 1  # (a str is a sequence of itself: without end)
        if ndim > MAX_DIMS:  # (a list holding itself: without end too)
            raise TorchValueError(f"too many dimensions '{_sequence_name(first)}'")
        if not first:
            break
        first = first[0]
    if isinstance(first, str):
        raise TorchValueError("too many dimensions 'str'")
    shape, inferred = _infer(data, inferring=dtype is None, ndim=ndim)
    reserve(tuple(shape), 8)
    target = dtype or inferred or dtypes.DEFAULT_FLOAT
    flat: list = []
    _flatten(data, flat, target)
    if not target.is_complex and any(type(v) is complex for v in flat):
        from .. import complex as complex_dtypes

        raise complex_dtypes.refuse(f"a complex number in torch.tensor(dtype=torch."
                                    f"{target.name})")
    _check_python_ints(flat, target)
    try:
        if target is dtypes.bfloat16:  # torch stores a number as a float, then bfloat16
            array = np.array(flat, dtype=np.float32).astype(target.np).reshape(shape)
        else:
            array = np.array(flat, dtype=target.np).reshape(shape)
    except OverflowError:
        raise TorchRuntimeError(
            f"value cannot be converted to type {target.name} without overflow") from None
    if requires_grad and not (target.is_floating_point or target.is_complex):
        raise TorchRuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients")
    return Tensor(array, requires_grad=requires_grad)


def as_tensor(data: Any, dtype: DType | None = None, device: Any = None) -> Tensor:
    """torch.as_tensor: a tensor is returned as it is (or converted to `dtype`, recorded
    like .to), other data is read as torch.tensor reads it."""
    if check_device(device) and not isinstance(data, Tensor):
        return placed(as_tensor(data, dtype, "cpu"))
    from ..ndarray import as_tensor as from_array
    from ..ndarray import ndarray

    if type(data) is ndarray:
        return from_array(data, dtype)
    if isinstance(data, Tensor):
        if dtype is None or dtype is data.dtype:
            return data
        from .clones import to

        return to(data, dtype)
    return tensor(data, dtype=dtype)


def _filled(shape: tuple[int, ...], value: Any, dtype: DType | None,
            requires_grad: bool, meta: bool = False) -> Tensor:
    for s in shape:
        if s < 0:
            raise TorchRuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    if dtype is None:  # (a Python int is an int64 Scalar: 2**63 overflows it)
        dtype = dtypes.DEFAULT_FLOAT if isinstance(value, float) else dtypes.int64 \
            if type(value) is int else dtypes.scalar_dtype(value)
    if not isinstance(value, Tensor) and dtype is not dtypes.float64:
        value = dtypes.fill_scalar(value, dtype, math.prod(shape))  # as fill_: -1 wraps,
        # past the range raises
    if meta:  # a shape and a dtype, whatever the size
        return Tensor(meta_array(shape, dtype.np), requires_grad=requires_grad)
    reserve(shape, 8)
    return Tensor(np.full(shape, value, dtype=dtype.np), requires_grad=requires_grad)


def placed(t: Tensor) -> Tensor:
    """A factory's CPU result made a meta tensor (device="meta"): its shape and dtype."""
    meta = Tensor(meta_array(t.shape, t.dtype.np))
    meta.requires_grad = t.requires_grad
    return meta


def _keyword_size(name: str, sizes: tuple[Any, ...], size: Any) -> tuple[Any, ...]:
    """The factories' `size=` keyword (torch.zeros(size=(2, 3))), exclusive with sizes
    given by position; torch's messages (measured)."""
    if size is None:
        return sizes
    if sizes:
        raise TorchTypeError(f"{name}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise TorchTypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                             f"{type_name(size)}")
    return (size,)


def zeros(*sizes: Any, size: Any = None, dtype: DType | None = None,
          requires_grad: bool = False, device: Any = None) -> Tensor:
    size = _keyword_size("zeros", sizes, size)
    meta = check_device(device)
    if any(s < 0 for s in size_args(size)):
        raise TorchRuntimeError("zeros: Dimension size must be non-negative.")
    return _filled(size_args(size), 0.0, dtype or dtypes.DEFAULT_FLOAT, requires_grad, meta)


def ones(*sizes: Any, size: Any = None, dtype: DType | None = None,
         requires_grad: bool = False, device: Any = None) -> Tensor:
    size = _keyword_size("ones", sizes, size)
    return _filled(size_args(size), 1.0, dtype or dtypes.DEFAULT_FLOAT, requires_grad,
                   check_device(device))


def empty(*sizes: Any, size: Any = None, dtype: DType | None = None,
          requires_grad: bool = False, device: Any = None, memory_format: Any = None
          ) -> Tensor:
    """Uninitialised in torch; `unreproducible.fill()` (zeros) here, so runs are reproducible.
    Contiguous, or laid out in the channels-last `memory_format`."""
    size = _keyword_size("empty", sizes, size)
    result = _filled(size_args(size), unreproducible.fill(), dtype or dtypes.DEFAULT_FLOAT,
                     requires_grad, check_device(device))
    if memory_format is layouts.PRESERVE:
        raise TorchRuntimeError("unsupported memory format Preserve")
    fmt = layouts.copy_format(memory_format, result.array.ndim)
    if fmt is not layouts.PRESERVE and fmt is not layouts.CONTIGUOUS:
        result.array = layouts.copy_in_format(result.array, fmt)
    return result


def empty_strided(size: Any, stride: Any, *, dtype: DType | None = None,
                  requires_grad: bool = False, device: Any = None) -> Tensor:
    """torch.empty_strided: uninitialised memory seen through the given strides (a
    storage of the size they reach, as at::empty_strided allocates)."""
    meta = check_device(device)
    shape, strides = size_args((size,)), size_args((stride,))
    if len(shape) != len(strides):
        raise TorchRuntimeError(f"dimensionality of sizes ({len(shape)}) must match "
                                f"dimensionality of strides ({len(strides)})")
    if any(s < 0 for s in strides):
        raise TorchRuntimeError(f"Storage size calculation overflowed with sizes="
                                f"{list(shape)} and strides={list(strides)}")
    dense = empty(*shape, dtype=dtype, requires_grad=requires_grad, device=device)
    if meta:
        dense.array.torch_strides = strides
        return dense
    if 0 in shape:
        return dense
    storage = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    reserve((storage,), dense.array.itemsize)
    buffer = np.full(storage, unreproducible.fill(), dtype=dense.array.dtype)
    itemsize = buffer.itemsize
    dense.array = np.lib.stride_tricks.as_strided(
        buffer, shape, tuple(s * itemsize for s in strides))
    return dense


def full(size: Any, fill_value: Any, *, dtype: DType | None = None,
         requires_grad: bool = False, device: Any = None) -> Tensor:
    meta = check_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (bool, int, float, complex)):
        raise TorchTypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not "
            f"{type_name(fill_value)}")
    return _filled(size_args((size,)), fill_value, dtype, requires_grad, meta)


def _like(t: Tensor, value: Any, dtype: DType | None, requires_grad: bool,
          device: Any = None, memory_format: Any = None) -> Tensor:
    """A `*_like` factory: t's device unless `device` says another, and t's layout
    (memory_format=preserve, the default: a transposed weight's empty_like is transposed
    too, so samplers fill it in the same memory order), or contiguous."""
    if not isinstance(t, Tensor):
        raise TorchTypeError(f"expected Tensor as argument 1, but got {type_name(t)}")
    meta = check_device(device, moving=True) if device is not None else is_meta(t.array)
    result = _filled(t.shape, value, dtype or t.dtype, requires_grad, meta)
    from .clones import empty_laid_out, preserved_strides
    from .views import tensor_strides

    fmt = layouts.copy_format(memory_format, t.array.ndim)
    if fmt is layouts.CONTIGUOUS:
        return result
    strides = preserved_strides(t.array, tensor_strides(t)) if fmt is layouts.PRESERVE else \
        layouts.format_strides(t.shape, fmt)
    if strides is None:
        return result
    if meta:
        result.array.torch_strides = strides
        return result
    array = empty_laid_out(t.shape, strides, result.array.dtype)
    np.copyto(array, value, casting="unsafe")
    result.array = array
    return result


def zeros_like(t: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
               device: Any = None, memory_format: Any = None) -> Tensor:
    return _like(t, 0, dtype, requires_grad, device, memory_format)


def ones_like(t: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
              device: Any = None, memory_format: Any = None) -> Tensor:
    return _like(t, 1, dtype, requires_grad, device, memory_format)


def empty_like(t: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
               device: Any = None, memory_format: Any = None) -> Tensor:
    return _like(t, unreproducible.fill(), dtype, requires_grad, device, memory_format)


def full_like(t: Tensor, fill_value: Any, *, dtype: DType | None = None,
              requires_grad: bool = False, device: Any = None,
              memory_format: Any = None) -> Tensor:
    return _like(t, fill_value, dtype, requires_grad, device, memory_format)


def _number(value: Any) -> Any:
    """A range factory's start, end or step as a Python number (a 0-d tensor's value)."""
    return value.item() if isinstance(value, Tensor) else value


def arange(start: Any = None, end: Any = None, step: Any = 1, *, out: Tensor | None = None,
           dtype: DType | None = None, requires_grad: bool = False, device: Any = None
           ) -> Tensor:
    """torch.arange(end), (start, end) and (start, end, step), `end` also by keyword
    (ultralytics' make_anchors: `torch.arange(end=w, ...)`)."""
    if start is None:
        if end is None:
            raise TorchTypeError('arange() missing 1 required positional arguments: "end"')
        start = 0
    if out is not None:
        return _arange_into(out, start, end, step, dtype, requires_grad)
    meta = check_device(device)
    if end is None:
        start, end = 0, start
    values = [_number(v) for v in (start, end, step)]
    if step == 0:
        raise TorchRuntimeError("step must be nonzero")
    if dtype is None:
        dtype = dtypes.DEFAULT_FLOAT if any(isinstance(v, float) for v in values) \
            else dtypes.int64
    start, end, step = values
    count = math.ceil((end - start) / step)
    if count < 0 or (step > 0 and start > end) or (step < 0 and start < end):
        raise TorchRuntimeError("upper bound and larger bound inconsistent with step sign")
    if meta:
        return _filled((count,), 0, dtype, requires_grad, meta)
    reserve((count,), 8)
    if dtype.is_floating_point:
        array = _float_arange(start, step, count, dtype.np)
    else:
        array = np.arange(start, end, step, dtype=dtype.np)
    return Tensor(array, requires_grad=requires_grad)


ARANGE_RESIZE_WARNING = (
    "UserWarning: The number of elements in the out tensor of shape [{shape}] is {numel} "
    "which does not match the computed number of elements {size}. Note that this may occur "
    "as a result of rounding error. The out tensor will be resized to a tensor of shape "
    "({size},). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "RangeFactories.cpp:199.)")


def _check_factory_out(name: str, out: Any, dtype: DType | None) -> None:
    """The checks of a factory's out= (arange, eye) in torch's order (measured): not a
    tensor (torch's TypeError lists the signatures and the call's), a dtype other than
    out's, out computed by autograd (torch writes it and leaves a NotImplemented grad_fn),
    out= under autograd, a meta out."""
    if not isinstance(out, Tensor):
        raise NotSupportedError(f"torch.{name}(out=) of a {type_name(out)} is not supported "
                                "by gradtrace (torch raises a TypeError)")
    if dtype is not None and dtype is not out.dtype:
        raise TorchRuntimeError(f"dtype {dtype.scalar_type} does not match dtype of out "
                                f"parameter ({out.dtype.scalar_type})")
    if out.grad_fn is not None:
        raise NotSupportedError(f"torch.{name}(out=) into a tensor computed by autograd is "
                                "not supported by gradtrace")
    if out.requires_grad and GRAD_MODE.enabled:
        raise TorchRuntimeError(
            f"aten::{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    if is_meta(out.array):
        raise NotSupportedError(f"torch.{name}(out=) into a meta tensor is not supported by "
                                "gradtrace")


def _arange_into(out: Tensor, start: Any, end: Any, step: Any, dtype: DType | None,
                 requires_grad: bool) -> Tensor:
    """`torch.arange(end, out=t)` (fairseq's buffered_arange and convert_padding_direction):
    the range computed in t's dtype and written into t, one version bump; t keeps its shape
    where its number of elements is the range's, else it is resized to 1-D, with torch's
    warning if it had elements (RangeFactories.cpp's arange_out); its requires_grad set to
    the keyword's, as eye's out= is. torch's order (measured): a dtype other than t's, then
    out= under autograd."""
    _check_factory_out("arange", out, dtype)
    if internal_overlap(out.array):
        raise NotSupportedError("torch.arange(out=) into a tensor whose elements overlap (an "
                                "expand) is not supported by gradtrace")
    values = arange(start, end, step, dtype=out.dtype).array \
        if out.dtype.is_floating_point else _integer_range_out(start, end, step, out.dtype)
    if requires_grad and not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise TorchRuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients")
    if out.array.size != values.size:
        if out.array.size:
            WARNINGS.append(ARANGE_RESIZE_WARNING.format(
                shape=", ".join(map(str, out.array.shape)), numel=out.array.size,
                size=values.size))
        out.array = values
    else:
        np.copyto(out.array, values.reshape(out.array.shape))
    bump_version(out)
    out.requires_grad = bool(requires_grad)
    return out


def _integer_range_out(start: Any, end: Any, step: Any, dtype: DType) -> np.ndarray:
    """arange_out's values in an integer dtype (measured): start and step truncated to
    int64 (its accumulate type), each value `start + i * step` wrapped into the dtype; the
    count from the truncated bounds for int64, from the unrounded ones (in double) for the
    narrower types."""
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v) for v in (start, end, step))
    first, last, stride = int(start), int(end), int(step)
    if dtype is dtypes.int64:
        if stride == 0:
            raise ScriptError("step must be nonzero", kind="ValueError")
        count = math.ceil((last - first) / stride)
    else:
        if step == 0:
            raise TorchRuntimeError("step must be nonzero")
        count = math.ceil((end - start) / step)
    if count < 0:
        raise TorchRuntimeError("upper bound and larger bound inconsistent with step sign")
    reserve((count,), 8)
    return (first + np.arange(count, dtype=np.int64) * stride).astype(dtype.np)


def _float_arange(start: float, step: float, count: int, ftype: np.dtype) -> np.ndarray:
    """torch's CPU arange kernel: each value is `start + step * i` in double, except that
    whole pairs of vectors are made by `Vectorized::arange`, whose base `start + step * i`
    is first rounded to the element type and then stepped (`base + j * step`, in double)
    across the vector; the tail past the last pair is scalar. The vector holds 32 bytes (64
    with AVX-512); the AVX builds fuse each multiply-add (measured)."""
    from .fused import multiply_add

    f64 = np.dtype(np.float64)
    start, step = float(start), float(step)
    idx = np.arange(count, dtype=np.float64)
    array = multiply_add(step, idx, start, f64).astype(ftype)
    lanes = capability.lanes(np.dtype(ftype).itemsize)
    vectorized = count - count % (2 * lanes)
    if vectorized:
        base = multiply_add(step, idx[:vectorized:lanes], start, f64).astype(ftype)
        lane = np.arange(lanes, dtype=np.float64)
        values = multiply_add(lane[None, :], step, base.astype(np.float64)[:, None], f64)
        array[:vectorized] = values.reshape(-1).astype(ftype)
    return array


def _range_ends(start: Any, end: Any, dtype: DType) -> tuple[Any, Any]:
    """`start.to<scalar_t>()` and `end.to<scalar_t>()` of a range factory, converted as a
    C++ Scalar is (an int dtype truncates and checks overflow)."""
    start, end = _number(start), _number(end)
    if dtype.is_floating_point:
        return dtype.np.type(start), dtype.np.type(end)
    return checked_scalar(start, dtype)[()], checked_scalar(end, dtype)[()]


def linspace(start: Any, end: Any, steps: int, *, dtype: DType | None = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    """torch's CPU kernel: the first half counts up from start, the second down from end,
    each value one multiply-add (fused in the AVX2/AVX-512 builds, measured); an integer
    dtype steps in double and truncates."""
    meta = check_device(device)
    dtype = dtype or dtypes.DEFAULT_FLOAT
    if steps < 0:
        raise TorchRuntimeError("number of steps must be non-negative")
    if meta:
        return _filled((steps,), 0, dtype, requires_grad, meta)
    reserve((steps,), 8)
    idx = np.arange(steps)
    halfway = steps // 2
    if steps == 1:
        array = np.array([_number(start)]).astype(dtype.np)
    elif dtype.is_floating_point:
        from .fused import multiply_add

        ftype = dtype.np
        lo, hi = _range_ends(start, end, dtype)
        step = (hi - lo) / ftype.type(steps - 1)
        up = multiply_add(step, idx.astype(ftype), lo, ftype)
        down = multiply_add(-step, (steps - idx - 1).astype(ftype), hi, ftype)
        array = np.where(idx < halfway, up, down).astype(ftype)
    else:  # step_t is double for integral types
        lo, hi = (float(v) for v in _range_ends(start, end, dtype))
        step = (hi - lo) / (steps - 1)
        array = np.where(idx < halfway, lo + step * idx, hi - step * (steps - idx - 1))
    return Tensor(_to_dtype(array, dtype), requires_grad=requires_grad)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *,
             dtype: DType | None = None, requires_grad: bool = False,
             device: Any = None) -> Tensor:
    """RangeFactories.cpp's logspace_out: std::pow(base, e) in double for exponents that
    count up from start (first half) and down from end, with a double step from the
    difference of start and end in the result's dtype; each value then converted."""
    meta = check_device(device)
    dtype = dtype or dtypes.DEFAULT_FLOAT
    if steps < 0:
        raise TorchRuntimeError("number of steps must be non-negative")
    if dtype is dtypes.bool_:
        raise not_implemented("logspace_cpu", dtype)
    if dtype.np.kind == "c":
        raise NotSupportedError("torch.logspace with a complex dtype is not supported by "
                                "gradtrace")
    if meta:
        return _filled((steps,), 0, dtype, requires_grad, meta)
    reserve((steps,), 8)
    base = float(base)
    with np.errstate(all="ignore"):
        if steps == 1:
            value = float(np.power(base, float(_number(start))))
            array = checked_scalar(value, dtype).reshape(1)
        else:
            lo, hi = _range_ends(start, end, dtype)
            step = float(hi - lo) / (steps - 1)
            idx = np.arange(steps)
            exponents = np.where(idx < steps // 2, float(lo) + step * idx,
                                 float(hi) - step * (steps - idx - 1))
            array = _to_dtype(np.power(base, exponents), dtype)
    return Tensor(array, requires_grad=requires_grad)


def _to_dtype(values: np.ndarray, dtype: DType) -> np.ndarray:
    """double values stored into a tensor of `dtype` as C++ converts them (an integer
    truncates toward zero; NaN and out-of-range values as x86 converts them)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype.is_floating_point:
            return values.astype(dtype.np)
        return np.trunc(values).astype(np.int64).astype(dtype.np)


def eye(n: int, m: int | None = None, *, out: Tensor | None = None, dtype: DType | None = None,
        requires_grad: bool = False, device: Any = None) -> Tensor:
    if out is not None:
        return _eye_into(out, n, m, dtype, requires_grad)
    meta = check_device(device)
    if n < 0:
        raise TorchRuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise TorchRuntimeError(f"m must be greater or equal to 0, got {m}")
    if meta:
        return _filled((n, n if m is None else m), 0, dtype or dtypes.DEFAULT_FLOAT,
                       requires_grad, meta)
    reserve((n, n if m is None else m), 8)
    return Tensor(np.eye(n, m, dtype=(dtype or dtypes.DEFAULT_FLOAT).np),
                  requires_grad=requires_grad)


def _eye_into(out: Tensor, n: int, m: int | None, dtype: DType | None,
              requires_grad: bool) -> Tensor:
    """`torch.eye(n, m, out=t)` (old optimizers' `torch.eye(dim, out=grad.new(dim, dim))`):
    t resized to n x m without a warning (eye_out resizes it itself) and written in its own
    dtype, one version bump; its requires_grad set to the keyword's, as torch's binding does
    (False for a leaf that required grad, under no_grad). torch's order (measured): a dtype
    other than t's, then out= under autograd, then n and m."""
    _check_factory_out("eye", out, dtype)
    if n < 0:
        raise TorchRuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise TorchRuntimeError(f"m must be greater or equal to 0, got {m}")
    if requires_grad and not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise TorchRuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients")
    shape = (n, n if m is None else m)
    if out.array.shape != shape:
        reserve(shape, out.array.itemsize)
        out.array = np.empty(shape, dtype=out.dtype.np)
    elif internal_overlap(out.array):  # torch writes an expand's shared elements in turn
        raise NotSupportedError("torch.eye(out=) into a tensor whose elements overlap (an "
                                "expand) is not supported by gradtrace")
    np.copyto(out.array, np.eye(*shape, dtype=out.dtype.np))
    bump_version(out)
    out.requires_grad = bool(requires_grad)
    return out


class ZeroBackward0(Function):
    """`t.zero_()`: the result does not depend on the old values."""

    __slots__ = ()
    overlap_write = staticmethod(write_every)  # fill_out runs into an expand (measured)
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "0"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return np.zeros_like(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        return zeros_like(grad)


class FillBackward0(Function):
    """torch.fill(t, value) (FillBackward2 is its in-place t.fill_(value))."""

    __slots__ = ()
    formulas = (local("self", "0"),)

    def forward(self, a: Tensor, value: Any) -> np.ndarray:
        return np.full_like(a.array, dtypes.fill_scalar(value, a.dtype, a.array.size))

    def backward(self, grad: Tensor) -> Tensor:
        return zeros_like(grad)


class FillBackward2(FillBackward0):
    """`t.fill_(value)` with a number."""

    __slots__ = ()
    overlap_write = staticmethod(write_every)  # (fill_ with a tensor is copy_: refused)
