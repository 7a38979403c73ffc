"""`t[index]` and `t[index] = value` exactly as torch runs them (THPVariable_getitem /
setitem): basic indices become view ops, advanced ones IndexBackward0 / IndexPutBackward0;
and index_put(_)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .. import dtypes, unsigned
from ..dtypes import INT64_MAX
from ..formulas import local, vjp
from ..forward_ad import auto_linear, linear_in_all
from ..jit import JIT
from ..limits import reserve
from ..node import Function
from ..shapes import iterator_order
from ..tensor import Tensor, type_name
from ._util import apply_inplace, iterator_layout, write_where
from .select_views import SelectBackward0, SliceBackward0
from .view_inplace import copy_
from .views import ExpandBackward0, UnsqueezeBackward0, ViewBackward0, alias, warn


def _np_index(indices: tuple[Tensor | None, ...]) -> tuple:
    return tuple(slice(None) if i is None else i.array for i in indices)


class IndexBackward0(Function):
    """Advanced indexing (lists, integer or bool tensors): a copy, not a view."""

    __slots__ = ()
    saved_lists = ("indices",)
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros({self_sym_sizes}).index_put({indices}, {grad}, "
                    "accumulate=True)"),)

    def forward(self, a: Tensor, indices: tuple[Tensor | None, ...]) -> np.ndarray:
        key = _check_indices(a, indices)
        self.save_attr(indices=indices, self_sym_sizes=a.array.shape)
        return _index_layout(a.array[key], a.array, key)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        self.check_saved_lists()
        a = self.attrs
        base = zeros(a["self_sym_sizes"], dtype=grad.dtype)
        # torch: at::_index_put_impl_(zeros, indices, grad, accumulate=true, unsafe=true)
        return IndexPutImplBackward0.call(base, grad, indices=a["indices"], accumulate=True)


def _adjacent_indices(key: tuple) -> tuple[list[int], list[np.ndarray]] | None:
    """The dims an advanced-index key's index arrays consume (a mask as its nonzero()
    indices) and those arrays, when the dims are adjacent; else None (no index, indices
    split by a slice, or a 0-d bool, which adds a dim: `x[True]`)."""
    dims: list[int] = []
    arrays: list[np.ndarray] = []
    d = 0
    for k in key:
        if not isinstance(k, np.ndarray):
            d += 1
            continue
        if k.dtype == np.bool_ and not k.ndim:
            return None
        parts = np.nonzero(k) if k.dtype == np.bool_ else (k,)
        dims += range(d, d + len(parts))
        arrays += parts
        d += len(parts)
    if not dims or dims != list(range(dims[0], dims[-1] + 1)):
        return None
    return dims, list(arrays)


def _index_layout(out: np.ndarray, x: np.ndarray, key: tuple) -> np.ndarray:
    """`x[key]` laid out as torch's index kernel lays it out: TensorIterator over x
    restrided to the result's shape (stride 0 along the indexed dims) and the index
    tensors (a mask as its nonzero() indices), where numpy puts the indexed dims outermost.
    Indices split by a slice keep numpy's layout (both move the indexed dims first)."""
    if out.ndim < 2 or type(out) is not np.ndarray or type(x) is not np.ndarray:
        return out
    found = _adjacent_indices(key)
    if found is None:
        return out
    dims, arrays = found
    before, after = dims[0], x.ndim - dims[-1] - 1
    indexed = out.shape[before:out.ndim - after]
    src = np.lib.stride_tricks.as_strided(
        x, out.shape, x.strides[:before] + (0,) * len(indexed) + x.strides[dims[-1] + 1:])
    lead, trail = (1,) * before, (1,) * after
    return iterator_layout(out, src, *(np.broadcast_to(i, indexed).reshape(lead + indexed + trail)
                                       for i in arrays))


def add_at_in_iterator_order(out: np.ndarray, self_strides: tuple[int, ...], key: tuple,
                             src: np.ndarray) -> None:
    """`np.add.at(out, key, src)` (src broadcast to `out[key]`'s shape) in the order torch's
    index_put_(accumulate=True) adds on the CPU: serially, in TensorIterator's order over
    self restrided to the result's shape (stride 0 along the indexed dims, `self_strides`
    elsewhere), the values and the index tensors, the innermost dim the first operand's
    strides tell apart (index's backward: a gradient that arrives permuted adds the
    duplicates of an index in another order than C order, and float sums differ). Indices
    split by a slice keep numpy's order (both move the indexed dims first)."""
    found = _adjacent_indices(key)
    shape = src.shape
    if len(shape) < 2 or found is None or not src.size:
        np.add.at(out, key, src)
        return
    dims, arrays = found
    before, after = dims[0], out.ndim - dims[-1] - 1
    indexed = shape[before:len(shape) - after]
    lead, trail = (1,) * before, (1,) * after
    index_views = [np.broadcast_to(np.broadcast_to(i, indexed).reshape(lead + indexed + trail),
                                   shape) for i in arrays]
    restrided = (tuple(self_strides[:before]) + (0,) * len(indexed)
                 + tuple(self_strides[dims[-1] + 1:]))
    order = iterator_order(shape, restrided, src.strides,
                           *(v.strides for v in index_views))[::-1]  # outermost first
    if order == list(range(len(shape))):
        np.add.at(out, key, src)
        return

    def along(r: int) -> np.ndarray:  # the coordinate of dim r at every position
        return np.broadcast_to(
            np.arange(shape[r]).reshape((1,) * r + (-1,) + (1,) * (len(shape) - r - 1)), shape)

    coords = ([along(r) for r in range(before)] + index_views
              + [along(r) for r in range(len(shape) - after, len(shape))])
    flat = tuple(np.ascontiguousarray(c.transpose(order)).reshape(-1) for c in coords)
    np.add.at(out, flat, np.ascontiguousarray(src.transpose(order)).reshape(-1))


def _check_indices(a: Tensor, indices: tuple[Tensor | None, ...]) -> tuple:
    """torch's checks on advanced indices (dtype, mask shape, bounds, broadcast)."""
    shape = a.array.shape
    dim = 0
    index_shapes = []
    kept = []  # the dimensions no index consumes
    for idx in indices:  # checkIndexTensorTypes, before any index is expanded
        if idx is not None and (idx.dtype.is_floating_point or idx.dtype.barebones):
            raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
    for idx in indices:
        if idx is None:
            kept.append(shape[dim] if dim < len(shape) else 1)
            dim += 1
            continue
        if idx.dtype in (dtypes.bool_, dtypes.uint8):
            if idx.dtype is dtypes.uint8:  # expandTensors warns before it checks the mask
                warn(UINT8_INDEX_WARNING)
            for j, s in enumerate(idx.array.shape):
                if dim + j >= len(shape):
                    raise TorchIndexError(
                        f"too many indices for tensor of dimension {len(shape)} "
                        f"(got {dim + idx.array.ndim})")
                if s != shape[dim + j]:
                    raise _mask_mismatch(idx.array.shape, j, shape, dim + j)
            index_shapes += [(int(idx.array.sum()),)] * idx.array.ndim
            dim += idx.array.ndim
            continue
        if dim >= len(shape):
            raise TorchIndexError(f"too many indices for tensor of dimension {len(shape)}")
        size = shape[dim]
        arr = idx.array
        if arr.size:
            bad = arr[(arr < -size) | (arr >= size)]
            if bad.size:
                raise TorchIndexError(
                    f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {dim} with "
                    f"size {size}")
        index_shapes.append(arr.shape)
        dim += 1
    try:
        indexed = np.broadcast_shapes(*index_shapes)
    except ValueError:
        listed = ", ".join(f"[{', '.join(map(str, s))}]" for s in index_shapes)
        raise TorchIndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes "
            f"{listed}") from None
    reserve(tuple(indexed) + tuple(kept) + tuple(shape[dim:]), a.array.itemsize)
    key = _np_index(indices)
    return tuple(k.astype(np.bool_) if isinstance(k, np.ndarray) and k.dtype == np.uint8 else k
                 for k in key)


def _mask_mismatch(mask_shape: tuple[int, ...], j: int, shape: tuple[int, ...],
                   at: int) -> TorchIndexError:
    """torch's error for a bool/byte mask whose dim j is not the indexed tensor's dim `at`."""
    return TorchIndexError(
        f"The shape of the mask [{', '.join(map(str, mask_shape))}] at index {j} does not "
        f"match the shape of the indexed tensor [{', '.join(map(str, shape))}] at index {at}")


def _masked_fill_mask(a: Tensor, indices: tuple[Tensor | None, ...], values: Tensor
                      ) -> Tensor | None:
    """torch's canDispatchToMaskedFill: a one-element value put through a single bool (or
    byte) mask is a masked_fill_ of its item, converted to the destination's dtype rather
    than required to match it; the mask, its trailing dims added, broadcasts over `a`."""
    if values.array.size != 1:
        return None
    shape = a.array.shape
    dim = 0
    mask = None
    for idx in indices:
        if idx is None:
            dim += 1
            continue
        if idx.dtype not in (dtypes.bool_, dtypes.uint8) or mask is not None:
            return None
        mask = idx
        for j, s in enumerate(idx.array.shape):
            if dim + j >= len(shape):  # torch reads self.size(dim + j)
                n = max(len(shape), 1)
                raise TorchIndexError(f"Dimension out of range (expected to be in range of "
                                      f"[{-n}, {n - 1}], but got {dim + j})")
            if s != shape[dim + j]:
                raise _mask_mismatch(idx.array.shape, j, shape, dim + j)
        dim += idx.array.ndim
    if mask is None:
        return None
    trailing = len(shape) - dim
    return Tensor._wrap(mask.array.reshape(mask.array.shape + (1,) * trailing))


def _index_put_overlap(inputs: tuple, params: dict[str, Any]) -> Any:
    """index_put_ into an expand: torch's warning; a one-value put through a bool mask is
    masked_fill_'s (its warning too), any other writes the indexed elements only, in
    order (accumulate: one addition per index, each seeing the ones before)."""
    from .indexing import INDEX_PUT_EXPANDED, MASKED_FILL_EXPANDED, write_masked

    a, values = inputs
    indices, accumulate = params["indices"], params.get("accumulate", False)
    warn(INDEX_PUT_EXPANDED)
    mask = None if accumulate else _masked_fill_mask(a, indices, values)
    if mask is not None:
        if mask.dtype is dtypes.bool_:
            warn(MASKED_FILL_EXPANDED)
        return write_masked(mask.array)

    def write(window: np.ndarray, out: np.ndarray) -> None:
        key = _check_indices(Tensor._wrap(window), indices)
        if accumulate:
            np.add.at(window, key, np.broadcast_to(values.array, out[key].shape))
        else:
            write_where(key)(window, out)
    return write


def _laid_out_as(out: np.ndarray, a: Tensor) -> np.ndarray:
    """index_put's result as torch makes it, `self.clone(preserve_format).index_put_(...)`:
    laid out as `a` when `a` is dense in another order (a transposed gradient stays
    transposed, and so does the mm its backward then runs: measured)."""
    from .clones import empty_laid_out, preserved_strides
    from .views import tensor_strides

    if type(a.array) is not np.ndarray or type(out) is not np.ndarray:
        return out
    strides = preserved_strides(a.array, tensor_strides(a))
    if strides is None:
        return out
    laid = empty_laid_out(a.array.shape, strides, out.dtype)
    np.copyto(laid, out)
    return laid


class IndexPutBackward0(Function):
    """index_put_ (advanced-index assignment) and index backward (accumulate=True)."""

    __slots__ = ()
    saved_lists = ("indices",)
    overlap_write = staticmethod(_index_put_overlap)
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    formulas = (local("self", "1", when=(("accumulate", True),)),
                vjp("self", "{grad}.index_put({indices}, 0)"),
                vjp("values", "{grad}[{indices}]"))

    def forward(self, a: Tensor, values: Tensor, indices: tuple[Tensor | None, ...],
                accumulate: bool = False) -> np.ndarray:
        mask = None if accumulate else _masked_fill_mask(a, indices, values)
        self.save_attr(accumulate=accumulate, indices=indices)
        if mask is not None:  # torch: self.masked_fill_(mask, value.item())
            if mask.dtype is not dtypes.bool_:
                raise TorchRuntimeError(
                    "masked_fill_ only supports boolean masks, but got mask with dtype "
                    f"{dtypes.C_TYPE_NAMES[mask.dtype.name]}")
            fill = dtypes.checked_scalar(values.array.item(), a.dtype)
            return _laid_out_as(np.where(mask.array, fill, a.array), a)
        key = _check_indices(a, indices)
        if values.dtype is not a.dtype:
            raise TorchRuntimeError(
                f"Index put requires the source and destination dtypes match, got "
                f"{a.dtype.scalar_type} for the destination and {values.dtype.scalar_type} for "
                "the source.")
        target = a.array[key].shape
        try:
            src = np.broadcast_to(values.array, target)
        except ValueError:
            raise TorchRuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, values.shape))}] "
                f"cannot be broadcast to indexing result of shape "
                f"[{', '.join(map(str, target))}]") from None
        out = a.array.copy()
        if accumulate:
            add_at_in_iterator_order(out, a.array.strides, key, src)
        else:
            out[key] = src
        return _laid_out_as(out, a)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        self.check_saved_lists()
        indices = self.attrs["indices"]
        g_self = g_values = None
        if self.needs_input_grad(0):
            if self.attrs["accumulate"]:
                g_self = grad
            else:
                zero = Tensor._wrap(np.zeros((), dtype=grad.array.dtype))
                g_self = IndexPutBackward0.call(grad, zero, indices=indices)
        if self.needs_input_grad(1):
            g_values = IndexBackward0.call(grad, indices=indices)
        return g_self, g_values


class IndexPutImplBackward0(IndexPutBackward0):
    """_index_put_impl_: what index's backward (x[idx] under create_graph) records."""

    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent


def _sequence_to_tensor(seq: Any) -> Tensor:
    from .creation import tensor

    out = tensor(seq)
    if out.dtype.is_floating_point:
        out = Tensor._wrap(out.array.astype(np.int64))
    return out


def _treat_as_tuple(index: list) -> bool:
    """torch's treatSequenceAsTuple for a list index."""
    if len(index) >= 32:
        return False
    return any(isinstance(i, (Tensor, list, tuple, slice)) or i is None or i is Ellipsis
               for i in index)


UINT8_INDEX_WARNING = (
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)")

SEQUENCE_INDEX_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
    "python_variable_indexing.cpp:349.)")


def _is_int(obj: Any) -> bool:
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)


def _count_specified(index: tuple) -> int:
    count = 0
    for obj in index:
        if isinstance(obj, Tensor):
            count += obj.array.ndim if obj.dtype in (dtypes.bool_, dtypes.uint8) else 1
        elif obj is None or obj is Ellipsis or isinstance(obj, bool):
            continue
        else:
            count += 1
    return count


def _select_index(t: Tensor, dim: int, index: int) -> Tensor:
    """applySelect: indexing's bounds checks and messages, after THPUtils_unpackLong."""
    if not dtypes.fits_int64(index):
        raise TorchValueError("Overflow when unpacking long long")
    shape = t.array.shape
    if index == 0 and dim == 0 and not shape:
        raise TorchIndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = shape[dim] if dim < len(shape) else 0
    if not (size >= -index and size > index):
        raise TorchIndexError(
            f"index {index} is out of bounds for dimension {dim} with size {size}")
    return SelectBackward0.call(t, dim=dim, index=index)


def _slice_index(t: Tensor, dim: int, obj: slice, optimize: bool) -> Tensor:
    step = 1 if obj.step is None else _slice_int(obj.step)
    if step == 0:
        raise TorchValueError("slice step cannot be zero")
    if step < 0:
        raise TorchValueError("step must be greater than zero")
    start = 0 if obj.start is None else _slice_int(obj.start)
    end = INT64_MAX if obj.stop is None else _slice_int(obj.stop)
    if t.array.ndim == 0:
        raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
    if optimize and start == 0 and step == 1 and end >= t.array.shape[dim] \
            and JIT.mode is None:  # a jit graph keeps the full slice (aten::slice)
        return t
    return SliceBackward0.call(t, dim=dim, start=start, end=end, step=step)


def _slice_int(value: Any) -> int:
    if isinstance(value, Tensor):
        return value.__index__()
    if not _is_int(value):
        raise TorchTypeError(
            "slice indices must be integers or None or have an __index__ method")
    return int(value)


def _bool_index(value: bool) -> Tensor:
    return Tensor._wrap(np.zeros(1 if value else 0, dtype=np.int64))


def _apply_slicing(t: Tensor, index: tuple, optimize: bool = True
                   ) -> tuple[Tensor, list[Tensor | None]]:
    """torch's applySlicing: basic indices become view ops, advanced ones are collected."""
    specified = _count_specified(index)
    if specified > t.array.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {t.array.ndim}")
    result = t
    dim = 0
    out: list[Tensor | None] = []

    def record(tensor: Tensor) -> None:
        nonlocal dim
        out.extend([None] * (dim + 1 - len(out)))
        out[dim] = tensor
        dim += 1

    for obj in index:
        if _is_int(obj):
            result = _select_index(result, dim, int(obj))
        elif isinstance(obj, slice):
            result = _slice_index(result, dim, obj, optimize)
            dim += 1
        elif obj is Ellipsis:
            dim += t.array.ndim - specified
        elif obj is None:
            result = UnsqueezeBackward0.call(result, dim=dim)
            dim += 1
        elif isinstance(obj, bool):
            result = UnsqueezeBackward0.call(result, dim=dim)
            record(_bool_index(obj))
        elif isinstance(obj, Tensor):
            if obj.array.ndim == 0 and not obj.dtype.is_floating_point:
                if obj.dtype in (dtypes.bool_, dtypes.uint8):
                    result = UnsqueezeBackward0.call(result, dim=dim)
                    record(_bool_index(bool(obj.array)))
                else:
                    result = _select_index(result, dim, int(obj.array))
            else:
                record(obj)
        elif isinstance(obj, (list, tuple, range)):  # a sequence is a tensor index
            record(_sequence_to_tensor(list(obj)))
        else:
            raise TorchIndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type_name(obj)})")
    return result, out


def _index_tuple(index: Any) -> tuple:
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and _treat_as_tuple(index):
        warn(SEQUENCE_INDEX_WARNING)
        return tuple(index)
    return (index,)


def getitem(t: Tensor, index: Any) -> Tensor:
    """`t[index]` exactly as torch records it (THPVariable_getitem)."""
    if index is None:
        return UnsqueezeBackward0.call(t, dim=0)
    if index is Ellipsis:
        return alias(t)
    if _is_int(index):
        return _select_index(t, 0, int(index))
    if isinstance(index, slice):
        return _slice_index(t, 0, index, optimize=False)
    result, indices = _apply_slicing(t, _index_tuple(index))
    if indices:
        return IndexBackward0.call(result, indices=tuple(indices))
    if result is t:
        return alias(t)
    return result


class FillBackward3(Function):
    """`self.fill_(value)` with a 0-dim tensor value (what `t[i] = scalar` does)."""

    __slots__ = ()
    formulas = (local("self", "0"),
                local("value", "1"))

    def forward(self, a: Tensor, value: Tensor) -> np.ndarray:
        return np.full(a.array.shape, value.array, dtype=a.array.dtype)  # torch: copy_(value)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_self = zeros_like(grad) if self.needs_input_grad(0) else None
        return g_self, (grad.sum() if self.needs_input_grad(1) else None)


def _strip_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def _copy_to(dst: Tensor, src: Tensor) -> None:
    """torch's indexing copy_to: copy_, fill_ for a 0-dim source, else view + expand + copy_."""
    if dst.array.shape == src.array.shape:
        copy_(dst, src)
        return
    if src.array.ndim == 0:
        apply_inplace(FillBackward3, dst, src)
        return
    src = ViewBackward0.call(src, shape=_strip_leading_ones(src.array.shape))
    if src.array.shape != dst.array.shape:
        src = ExpandBackward0.call(src, shape=dst.array.shape)
    copy_(dst, src)


def _value_tensor(t: Tensor, value: Any) -> Tensor:
    """The value `t[index] = value` writes: a tensor as it is; a Python int unpacked as
    int64 (THPUtils_unpackLong's ValueError past that); a number converted to t's dtype as
    torch's scalar_tensor converts it: into an integer or complex dtype with c10's
    checked_convert (an overflow is its error), into a floating one unchecked (1e10 is a
    float16 inf; measured); a Python complex into a real dtype overflows when its imaginary
    part is not 0. Python's bool, int, float and complex (np.float64 and np.complex128 are
    their subclasses) and numpy's integers (index-like) are numbers; other numpy scalars
    (np.float32, np.bool_, np.complex64) are torch's TypeError (measured)."""
    if isinstance(value, Tensor):
        return value
    if type(value) is int and not dtypes.fits_int64(value):
        raise TorchValueError("Overflow when unpacking long long")
    if isinstance(value, complex) and t.dtype.is_floating_point and value.imag == 0:
        value = value.real
    if isinstance(value, (bool, int, float, complex, np.integer)):
        if t.dtype.is_floating_point and not isinstance(value, complex):
            return Tensor._wrap(np.asarray(value).astype(t.dtype.np))
        return Tensor._wrap(dtypes.checked_scalar(value, t.dtype))
    raise TorchTypeError(
        f"can't assign a {type_name(value)} to a torch.{t.dtype.tensor_type}")


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """`t[index] = value` exactly as torch runs it (THPVariable_setitem)."""
    src = _value_tensor(t, value)
    if index is False:
        return
    if index is True:  # torch's set_item: copy_to(self.unsqueeze(0), value)
        _copy_to(UnsqueezeBackward0.call(t, dim=0), src)
        return
    if isinstance(index, slice) or index is None or index is Ellipsis or isinstance(index, bool) \
            or _is_int(index):
        index = (index,)
    sliced, indices = _apply_slicing(t, _index_tuple(index))
    if not indices:
        _copy_to(sliced, src)
        return
    if t.dtype.barebones:  # torch's masked_fill (a mask and a number) or index_put kernel
        mask = isinstance(index, Tensor) and index.dtype in (dtypes.bool_, dtypes.uint8)
        raise unsigned.not_implemented(
            "masked_fill" if mask and not isinstance(value, Tensor) else "index_put", t.dtype)
    stripped = _strip_leading_ones(src.array.shape)
    if stripped != src.array.shape:
        src = ViewBackward0.call(src, shape=stripped)
    apply_inplace(IndexPutBackward0, sliced, src, indices=tuple(indices))


def index_put_(a: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    return apply_inplace(IndexPutBackward0, a, values, indices=tuple(indices),
                         accumulate=accumulate)


def index_put(a: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    return IndexPutBackward0.call(a, values, indices=tuple(indices), accumulate=accumulate)


