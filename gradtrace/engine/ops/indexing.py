"""Indexing ops that are not views: index_select, index_copy/index_add/index_fill,
gather, scatter (src, value, reduce), scatter_add, masked_fill, masked_select and
masked_scatter, with their in-place forms."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchTypeError
from .. import dtypes
from ..dtypes import C_TYPE_NAMES
from ..formulas import local, undefined, vjp
from ..forward_ad import auto_linear, linear_in_all, maybe_multiply
from ..node import Function
from ..shapes import broadcast_shapes, wrap_dim
from ..tensor import Tensor, type_name
from ._util import apply_inplace, write_where
from .gather_checks import _check_gather, _flat, _gather_key, _src_values
from .views import expanded_shape, saved_int, signed, warn


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    return IndexSelectBackward0.call(a, dim=dim, index=index)


class IndexSelectBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros({self_sym_sizes}).index_add({dim}, {index}, {grad})"),)

    def forward(self, a: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = wrap_dim(dim, a.array.ndim)
        if index.array.ndim > 1:
            raise TorchIndexError("index_select(): Index is supposed to be a vector")
        if index.dtype not in (dtypes.int64, dtypes.int32):
            raise TorchRuntimeError(
                "index_select(): Expected dtype int32 or int64 for index")
        size = a.array.shape[d] if a.array.ndim else 1
        bad = index.array[(index.array < 0) | (index.array >= size)]
        if bad.size:
            if a.array.ndim == 2 and d == 1:  # torch's 2-D dim-1 kernel says it this way
                raise TorchRuntimeError(
                    f"INDICES element is out of DATA bounds, id={int(bad.reshape(-1)[0])} "
                    f"axis_dim={size}")
            raise TorchIndexError("index out of range in self")
        self.save("index", index)
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape)
        return np.take(a.array, index.array.reshape(-1), axis=d if a.array.ndim else None)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        a = self.attrs
        sizes = a["self_sym_sizes"]
        d = signed(a["dim"]) % max(len(sizes), 1)
        # torch: zeros(self_sizes).index_add_(dim, index, grad)
        return index_add(zeros(sizes, dtype=grad.dtype), d, self.unpack("index"), grad)


EXPANDED_WRITE = (
    "Use of {op} on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. {example} "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "TensorAdvancedIndexing.cpp:{line}.)")
# torch's masked_fill_, index_fill_ and index_put_ kernels write into an expand, warning
MASKED_FILL_EXPANDED = EXPANDED_WRITE.format(op="masked_fill_",
                                             example="tensor[mask] = scalar", line=2450)
INDEX_FILL_EXPANDED = EXPANDED_WRITE.format(op="index_fill_",
                                            example="tensor[mask] = scalar", line=1913)
INDEX_PUT_EXPANDED = EXPANDED_WRITE.format(op="index_put_",
                                           example="tensor[indices] = tensor", line=976)


def write_masked(mask: np.ndarray) -> Any:
    """The writer of the elements a (broadcast) bool mask picks."""
    return lambda window, out: write_where(np.broadcast_to(mask, window.shape))(window, out)


def _masked_fill_overlap(inputs: tuple, params: dict[str, Any]) -> Any:
    """masked_fill_ into an expand: torch's warning (once its mask is a bool one), then a
    write of the masked elements only."""
    mask = params["mask"]
    if mask.dtype is dtypes.bool_:
        warn(MASKED_FILL_EXPANDED)
    return write_masked(mask.array)


class MaskedFillBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "0 if {mask} else 1"),)
    overlap_write = staticmethod(_masked_fill_overlap)

    def forward(self, a: Tensor, mask: Tensor, value: Any) -> np.ndarray:
        _check_mask(a, mask, value)
        self.save("mask", mask)
        # (torch fills a contiguous clone: masked_fill's result is row-major)
        return np.asarray(np.where(mask.array, dtypes.checked_scalar(value, a.dtype), a.array),
                          order="C")

    def backward(self, grad: Tensor) -> Tensor:
        return masked_fill(grad, self.unpack("mask"), 0)  # torch: grad.masked_fill(mask, 0)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return masked_fill(t[0], params["mask"], 0)  # self_t.masked_fill(mask, 0)


class MaskedFillBackward1(Function):
    """masked_fill with a 0-dim tensor value: the value gets the masked gradient's sum."""

    __slots__ = ()
    formulas = (local("self", "0 if {mask} else 1"),
                local("value", "1 if {mask} else 0"))
    overlap_write = MaskedFillBackward0.overlap_write

    def forward(self, a: Tensor, value: Tensor, mask: Tensor) -> np.ndarray:
        _check_mask(a, mask, value)
        if value.array.ndim:
            raise TorchRuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.array.ndim} dimension(s).")
        self.save("mask", mask)
        return np.asarray(np.where(mask.array, dtypes.checked_scalar(value.array.item(), a.dtype),
                                   a.array), order="C")

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .reductions import where

        mask = self.unpack("mask")
        g_self = masked_fill(grad, mask, 0) if self.needs_input_grad(0) else None
        g_value = (where(mask, grad, Tensor.scalar(0.0)).sum() if self.needs_input_grad(1)
                   else None)
        return g_self, g_value

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return MaskedFillBackward1.call(t[0], t[1], mask=params["mask"])  # masked_fill(.., value_t)




def _check_mask(a: Tensor, mask: Tensor, value: Any) -> None:
    if not isinstance(value, (Tensor, bool, int, float)):
        raise TorchTypeError(
            "masked_fill() received an invalid combination of arguments - got (Tensor, "
            f"{type_name(value)}), but expected one of:\n * (Tensor mask, Tensor value)\n      "
            "didn't match because some of the arguments have invalid types: (Tensor, "
            f"!{type_name(value)}!)\n * (Tensor mask, Number value)\n      didn't match because "
            f"some of the arguments have invalid types: (Tensor, !{type_name(value)}!)\n")
    broadcast_shapes(mask.array.shape, a.array.shape)  # torch names the mask "a"
    if mask.dtype is not dtypes.bool_:
        raise TorchRuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{C_TYPE_NAMES[mask.dtype.name]}")


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return MaskedFillBackward1.call(a, value, mask=mask)
    return MaskedFillBackward0.call(a, mask=mask, value=value)


def masked_fill_(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return apply_inplace(MaskedFillBackward1, a, value, mask=mask)
    return apply_inplace(MaskedFillBackward0, a, mask=mask, value=value)


class GatherBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros_like({self}).scatter_add({dim}, {index}, {grad})"),)

    def forward(self, a: Tensor, dim: int, index: Tensor, sparse_grad: bool = False
                ) -> np.ndarray:
        d = _check_gather(a, dim, index, "gather")
        self.save("index", index)
        self.save("self", a)
        self.save_attr(dim=saved_int(dim), sparse_grad=sparse_grad)
        if index.array.size == 0:  # torch returns before any check: an empty result
            return np.empty(index.array.shape, dtype=a.array.dtype)
        return _flat(a.array)[_gather_key(index.array, d)].reshape(index.array.shape)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        a = self.unpack("self")
        return ScatterAddBackward0.call(zeros(a.shape, dtype=grad.dtype), grad,
                                        dim=signed(self.attrs["dim"]), index=self.unpack("index"))


class ScatterAddBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    formulas = (local("self", "1"),
                vjp("src", "{grad}.gather({dim}, {index})"))

    def forward(self, a: Tensor, src: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = _check_gather(a, dim, index, "scatter", src, has_src=True)
        self.save("index", index)
        self.save_attr(dim=saved_int(dim))
        out = a.array.copy()
        if index.array.size == 0:
            return out
        np.add.at(_flat(out), _gather_key(index.array, d), _src_values(src.array, index.array))
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), self.unpack("index")
        g_src = gather(grad, dim, index) if self.needs_input_grad(1) else None
        return (grad if self.needs_input_grad(0) else None), g_src


class ScatterBackward0(Function):
    """scatter(self, dim, index, src): what max(dim)/min(dim) record in their backward."""

    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    formulas = (vjp("self", "{grad}.scatter({dim}, {index}, 0)"),
                vjp("src", "{grad}.gather({dim}, {index})"))

    def forward(self, a: Tensor, src: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = _check_gather(a, dim, index, "scatter", src, has_src=True)
        self.save("index", index)
        self.save_attr(dim=saved_int(dim))
        out = a.array.copy()
        if index.array.size == 0:
            return out
        _flat(out)[_gather_key(index.array, d)] = _src_values(src.array, index.array)
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), self.unpack("index")
        g_src = gather(grad, dim, index) if self.needs_input_grad(1) else None
        g_self = None
        if self.needs_input_grad(0):  # torch: grad.scatter(dim, index, 0)
            g_self = ScatterBackward1.call(grad, dim=dim, index=index, value=0)
        return g_self, g_src


class ScatterBackward1(Function):
    """scatter(self, dim, index, value): value written at index; its gradient is zero."""

    __slots__ = ()
    formulas = (vjp("self", "{grad}.scatter({dim}, {index}, 0)"),)

    def forward(self, a: Tensor, dim: int, index: Tensor, value: Any) -> np.ndarray:
        d = _check_gather(a, dim, index, "scatter")
        self.save("index", index)
        self.save_attr(dim=saved_int(dim))
        out = a.array.copy()
        if index.array.size == 0:
            return out
        _flat(out)[_gather_key(index.array, d)] = np.asarray(value).astype(out.dtype)
        return out

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return ScatterBackward1.call(t[0], **{**params, "value": 0})  # self_t.scatter(.., 0)

    def backward(self, grad: Tensor) -> Tensor:
        return ScatterBackward1.call(grad, dim=signed(self.attrs["dim"]),
                                     index=self.unpack("index"), value=0)


class NotImplementedScatterReduce(Function):
    """scatter(..., reduce=...): torch records torch::autograd::NotImplemented."""

    __slots__ = ()
    formulas = (undefined("self"), undefined("src"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, a: Tensor, src: Tensor | None = None, *, dim: int, index: Tensor,
                value: Any, reduce: str) -> np.ndarray:
        d = _check_gather(a, dim, index, "scatter", src, has_src=src is not None)
        out = a.array.copy()
        if index.array.size == 0:
            return out
        key = _gather_key(index.array, d)
        values = (np.asarray(value).astype(out.dtype) if src is None else
                  _src_values(src.array, index.array))
        values = np.broadcast_to(values, _flat(index.array).shape)
        if reduce == "add":
            np.add.at(_flat(out), key, values)
        else:
            np.multiply.at(_flat(out), key, values)
        return out

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::scatter is not implemented")


NotImplementedScatterReduce.__name__ = "NotImplemented"

SCATTER_REDUCE_WARNING = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
    "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
    "options. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "TensorAdvancedIndexing.cpp:225.)")


def _scatter_node(a: Tensor, dim: int, index: Tensor, src: Any, value: Any,
                  reduce: str | None) -> tuple[type[Function], tuple, dict[str, Any]]:
    if src is None:
        src = value
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise TorchRuntimeError(
                f"reduce argument must be either add or multiply. Got {reduce}")
        if isinstance(src, Tensor):  # TORCH_WARN_ONCE: once per run, scatter and scatter_
            from .creation import WARNINGS, OnceWarning

            WARNINGS.append(OnceWarning(f"UserWarning: {SCATTER_REDUCE_WARNING}", "scatter"))
            return NotImplementedScatterReduce, (a, src), dict(dim=dim, index=index, value=None,
                                                                reduce=reduce)
        return NotImplementedScatterReduce, (a,), dict(dim=dim, index=index, value=src,
                                                        reduce=reduce)
    if isinstance(src, Tensor):
        return ScatterBackward0, (a, src), dict(dim=dim, index=index)
    return ScatterBackward1, (a,), dict(dim=dim, index=index, value=src)


def scatter(a: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:
    node, inputs, params = _scatter_node(a, dim, index, src, value, reduce)
    return node.call(*inputs, **params)


def scatter_(a: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    node, inputs, params = _scatter_node(a, dim, index, src, value, reduce)
    return apply_inplace(node, a, *inputs[1:], **params)


def scatter_add_(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return apply_inplace(ScatterAddBackward0, a, src, dim=dim, index=index)


def gather(a: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    return GatherBackward0.call(a, dim=dim, index=index, sparse_grad=sparse_grad)


def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return ScatterAddBackward0.call(a, src, dim=dim, index=index)


# -- index_copy, index_add, index_fill ----------------------------------------------------


def _dim_size(a: Tensor, dim: int) -> tuple[int, int]:
    d = wrap_dim(dim, a.array.ndim) if a.array.ndim else 0
    return d, (a.array.shape[d] if a.array.ndim else 1)


def _first_out_of_bounds(index: Tensor, size: int) -> int | None:
    arr = index.array
    bad = arr[(arr < -size) | (arr >= size)]
    return int(bad.reshape(-1)[0]) if bad.size else None


def _source_size(source: Tensor, d: int) -> int:
    return source.array.shape[d] if source.array.ndim else 1


def _check_index_copy(a: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """torch's index_copy_ checks and messages, in its order."""
    d, size = _dim_size(a, dim)
    if index.array.ndim > 1:
        raise TorchIndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                              f"{index.array.ndim})")
    if source.array.ndim == 0 and index.array.size != 1:
        raise TorchIndexError("index_copy_(): When source is scalar, index should have one "
                              f"element (got {index.array.size})")
    if source.array.ndim != a.array.ndim and source.array.ndim and a.array.ndim:
        raise TorchIndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({source.array.ndim}), destination "
            f"dimensionality ({a.array.ndim})")
    if index.dtype is not dtypes.int64:
        raise TorchRuntimeError("index_copy_(): Expected a long tensor for index, but got "
                                f"{index.dtype.scalar_type}")
    if source.dtype is not a.dtype:
        raise TorchRuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{a.dtype.scalar_type} and (source) {source.dtype.scalar_type}")
    self_slice, source_slice = list(a.array.shape), list(source.array.shape)
    for sizes in (self_slice, source_slice):
        if sizes:
            del sizes[d]
    if self_slice != source_slice:
        raise TorchRuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {' '.join(map(str, self_slice))} at dimension {d} and source slice "
            f"shape: {' '.join(map(str, source_slice))} at dimension 0.")
    if source.array.ndim and index.array.size != _source_size(source, d):
        raise TorchIndexError(
            f"index_copy_(): Number of indices ({index.array.size}) should be equal to "
            f"source.size(dim) ({_source_size(source, d)})")
    bad = _first_out_of_bounds(index, size)
    if bad is not None:
        raise TorchIndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    return d


def _check_index_add(a: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """torch's index_add_ checks (index_func_meta_impl, then the kernel's bounds), in order."""
    d, size = _dim_size(a, dim)
    if index.array.ndim > 1:
        raise TorchIndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {index.array.ndim} "
            f"with type: {index.dtype.scalar_type} and size: {list(index.array.shape)}")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise TorchRuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                                f"{index.dtype.scalar_type}")
    if source.dtype is not a.dtype:
        raise TorchRuntimeError(
            f"index_add_(): self ({a.dtype.scalar_type}) and source ({source.dtype.scalar_type}) "
            "must have the same scalar type")
    if d != 0 and d >= source.array.ndim:
        raise TorchRuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source "
                                f"tensor with dim {source.array.ndim}")
    if index.array.size != _source_size(source, d):
        raise TorchRuntimeError(
            f"index_add_(): Number of indices ({index.array.size}) should be equal to "
            f"source.size(dim): ({_source_size(source, d)}), for dim: {d}")
    self_sizes, source_sizes = list(a.array.shape), list(source.array.shape)
    if self_sizes and source_sizes:
        del self_sizes[d], source_sizes[d]
    if self_sizes != source_sizes:
        raise TorchRuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(a.array.shape)} source.shape = "
            f"{list(source.array.shape)}")
    bad = _first_out_of_bounds(index, size)
    if bad is not None:
        raise TorchRuntimeError(f"index {bad} is out of bounds for dimension {d} with size "
                                f"{size}")
    return d


def _check_index_fill(a: Tensor, dim: int, index: Tensor) -> int:
    d, size = _dim_size(a, dim)
    if index.dtype is not dtypes.int64:
        raise TorchIndexError("index_fill_(): Expected dtype int64 for index.")
    if index.array.ndim > 1:
        raise TorchRuntimeError("Index has to be a vector/scalar")
    bad = _first_out_of_bounds(index, size)
    if bad is not None:
        raise TorchIndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    return d


def _index_key(ndim: int, d: int, index: np.ndarray) -> tuple:
    return (slice(None),) * d + (index.reshape(-1),)


class IndexCopyBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    formulas = (vjp("self", "{grad}.index_fill({dim}, {index}, 0)"),
                vjp("source", "{grad}.index_select({dim}, {index})"))

    def forward(self, a: Tensor, source: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = _check_index_copy(a, dim, index, source)
        self.save_attr(dim=saved_int(dim))
        self.save("index", index)
        self.save("source", source)
        self.save_attr(source_dim=source.array.ndim)
        out = a.array.copy()
        if out.ndim == 0:
            return source.array.reshape(()).astype(out.dtype)
        out[_index_key(out.ndim, d, index.array)] = source.array
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), self.unpack("index")
        g_src = _index_source_grad(grad, dim, index, self.unpack("source"), 1) \
            if self.needs_input_grad(1) else None
        g_self = index_fill(grad, dim, index, 0) if self.needs_input_grad(0) else None
        return g_self, g_src


def _index_source_grad(grad: Tensor, dim: int, index: Tensor, source: Tensor,
                       alpha: Any) -> Tensor:
    """grad.index_select(dim, index).expand_as(source) (times alpha unless it is one)."""
    from .scalar import mul_scalar
    from .views import ExpandBackward0

    if source.ndim > 0:
        out = ExpandBackward0.call(index_select(grad, dim, index), shape=source.shape)
    else:
        out = index_select(grad, dim, index.squeeze(0))
    return out if alpha == 1 else mul_scalar(out, alpha)


class IndexAddBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1"),
                vjp("source", "{alpha} × {grad}.index_select({dim}, {index})"))

    def forward(self, a: Tensor, source: Tensor, dim: int, index: Tensor,
                alpha: Any = 1) -> np.ndarray:
        d = _check_index_add(a, dim, index, source)
        self.save_attr(alpha=alpha, dim=saved_int(dim))
        self.save("index", index)
        self.save("source", source)
        self.save_attr(source_dim=source.array.ndim)
        out = a.array.copy()
        values = source.array if alpha == 1 else source.array * np.asarray(alpha, out.dtype)
        if out.ndim == 0:  # one index (checked), so the one element gets the source added
            return out + values.reshape(()).astype(out.dtype)
        np.add.at(out, _index_key(out.ndim, d, index.array), values.astype(out.dtype))
        return out

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::index_add(self_t, dim, index, maybe_multiply(source_t, alpha))
        source_t = maybe_multiply(t[1], params.get("alpha", 1))
        return IndexAddBackward0.call(t[0], source_t, **{**params, "alpha": 1})

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a = self.attrs
        g_src = _index_source_grad(grad, signed(a["dim"]), self.unpack("index"),
                                   self.unpack("source"), a["alpha"]) \
            if self.needs_input_grad(1) else None
        return (grad if self.needs_input_grad(0) else None), g_src


def _index_fill_overlap(inputs: tuple, params: dict[str, Any]) -> Any:
    """index_fill_ into an expand: torch's warning (once its index is int64), then a write
    of the indexed slices only."""
    index = params["index"]
    if index.dtype is dtypes.int64:
        warn(INDEX_FILL_EXPANDED)

    def write(window: np.ndarray, out: np.ndarray) -> None:
        d = wrap_dim(params["dim"], window.ndim)
        write_where(_index_key(window.ndim, d, index.array))(window, out)
    return write


class IndexFillBackward0(Function):
    """index_fill(self, dim, index, number)."""

    __slots__ = ()
    formulas = (vjp("self", "{grad}.index_fill({dim}, {index}, 0)"),)
    overlap_write = staticmethod(_index_fill_overlap)

    def forward(self, a: Tensor, dim: int, index: Tensor, value: Any) -> np.ndarray:
        d = _check_index_fill(a, dim, index)
        self.save_attr(dim=saved_int(dim))
        self.save("index", index)
        out = a.array.copy()
        out[_index_key(out.ndim, d, index.array)] = np.asarray(value).astype(out.dtype)
        return out

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return IndexFillBackward0.call(t[0], **{**params, "value": 0})  # index_fill(.., 0)

    def backward(self, grad: Tensor) -> Tensor:
        return index_fill(grad, signed(self.attrs["dim"]), self.unpack("index"), 0)


class IndexFillBackward1(Function):
    """index_fill(self, dim, index, 0-dim tensor value): the value gets a gradient too."""

    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    formulas = (vjp("self", "{grad}.index_fill({dim}, {index}, 0)"),
                vjp("value", "{grad}.index_select({dim}, {index}.unique()).sum()"))
    overlap_write = staticmethod(_index_fill_overlap)

    def forward(self, a: Tensor, value: Tensor, dim: int, index: Tensor) -> np.ndarray:
        if value.array.ndim:
            raise TorchRuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.array.ndim} dimension(s).")
        d = _check_index_fill(a, dim, index)
        self.save_attr(dim=saved_int(dim))
        self.save("index", index)
        out = a.array.copy()
        out[_index_key(out.ndim, d, index.array)] = value.array.astype(out.dtype)
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), self.unpack("index")
        g_value = None
        if self.needs_input_grad(1):  # grad.index_select(dim, unique(index)).sum()
            unique = Tensor._wrap(np.unique(index.array))
            g_value = index_select(grad, dim, unique).sum()
        g_self = index_fill(grad, dim, index, 0) if self.needs_input_grad(0) else None
        return g_self, g_value


def index_copy(a: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return IndexCopyBackward0.call(a, source, dim=dim, index=index)


def index_copy_(a: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return apply_inplace(IndexCopyBackward0, a, source, dim=dim, index=index)


def index_add(a: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return IndexAddBackward0.call(a, source, dim=dim, index=index, alpha=alpha)


def index_add_(a: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return apply_inplace(IndexAddBackward0, a, source, dim=dim, index=index, alpha=alpha)


def index_fill(a: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return IndexFillBackward1.call(a, value, dim=dim, index=index)
    return IndexFillBackward0.call(a, dim=dim, index=index, value=value)


def index_fill_(a: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return apply_inplace(IndexFillBackward1, a, value, dim=dim, index=index)
    return apply_inplace(IndexFillBackward0, a, dim=dim, index=index, value=value)


# -- masked_select, masked_scatter ----------------------------------------------------------


def _check_bool_mask(name: str, mask: Tensor) -> None:
    if mask.dtype is not dtypes.bool_:
        raise TorchRuntimeError(f"{name}: expected BoolTensor for mask")


class MaskedSelectBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros_like({self}).masked_scatter({mask}, {grad})"),)

    def forward(self, a: Tensor, mask: Tensor) -> np.ndarray:
        _check_bool_mask("masked_select", mask)
        shape = broadcast_shapes(a.array.shape, mask.array.shape)
        self.save("mask", mask)
        self.save("self", a)
        return np.broadcast_to(a.array, shape)[np.broadcast_to(mask.array, shape)]

    def backward(self, grad: Tensor) -> Tensor:
        """torch: zeros_like(input expanded to the mask's shape).masked_scatter_(mask, grad)."""
        x, mask = self.unpack("self"), self.unpack("mask")
        shape = broadcast_shapes(x.shape, mask.shape)
        zeros = Tensor._wrap(np.zeros(shape, dtype=grad.array.dtype))
        return apply_inplace(MaskedScatterBackward0, zeros, grad, mask=mask)


class MaskedScatterBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    # the source's first elements fill the mask's places, in order; the rest get 0
    formulas = (local("self", "0 if {mask} else 1"),
                vjp("source", "cat([{grad}[{mask}], zeros(…)]).view({source_sym_sizes})"))

    def forward(self, a: Tensor, source: Tensor, mask: Tensor,
                outplace: bool = False) -> np.ndarray:
        # masked_scatter__cpu's checks, in its order and words (its dtype message has no
        # space after "got"), the out-of-place op running it on a clone
        if source.dtype is not a.dtype:
            raise TorchRuntimeError(
                f"masked_scatter: expected self and source to have same dtypes but got"
                f"{a.dtype.scalar_type} and {source.dtype.scalar_type}")
        if mask.dtype is not dtypes.bool_:
            raise TorchRuntimeError("masked_scatter_ only supports boolean masks, but got mask "
                                    f"with dtype {mask.dtype.scalar_type}")
        self.save("mask", mask)
        self.save_attr(source_sym_sizes=source.array.shape)
        # the out-of-place op broadcasts self and mask together (expand_outplace); the
        # in-place one expands the mask to self (expand_inplace)
        shape = broadcast_shapes(mask.array.shape, a.array.shape) if outplace else \
            expanded_shape(mask.array.shape, a.array.shape,  # expand_inplace's words
                           f"CPU{mask.dtype.scalar_type}Type")
        m = np.broadcast_to(mask.array, shape)
        count = int(m.sum())
        if count > source.array.size:
            raise TorchRuntimeError("Number of elements of source < number of ones in mask")
        out = np.broadcast_to(a.array, shape).copy()
        out[m] = source.array.reshape(-1)[:count]
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        mask = self.unpack("mask")
        g_src = None
        if self.needs_input_grad(1):
            g_src = MaskedScatterBackwardBackward0.call(
                grad, mask=mask, sizes=self.attrs["source_sym_sizes"])
        # a broadcast self's gradient is summed back by the engine (validate_outputs)
        g_self = masked_fill(grad, mask, 0) if self.needs_input_grad(0) else None
        return g_self, g_src


class MaskedScatterBackwardBackward0(Function):
    """masked_scatter_backward(grad_output, mask, sizes) as an op: the masked elements in
    order, zero-padded to the source's size."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "zeros_like({grad_output}).masked_scatter({mask}, {grad})"),)

    def forward(self, grad: Tensor, mask: Tensor, sizes: tuple[int, ...]) -> np.ndarray:
        self.save("mask", mask)
        m = np.broadcast_to(mask.array, grad.array.shape)
        picked = grad.array[m]
        total = int(np.prod(sizes)) if sizes else 1
        out = np.zeros(total, dtype=grad.array.dtype)
        out[:min(total, picked.size)] = picked[:total]
        return out.reshape(sizes)

    def backward(self, gg: Tensor) -> Tensor:
        """torch: zeros_like(grad_output).masked_scatter(mask, grad)."""
        shape = self.input_meta[0][0]
        zeros = Tensor._wrap(np.zeros(shape, dtype=gg.array.dtype))
        return masked_scatter(zeros, self.unpack("mask"), gg)


def masked_select(a: Tensor, mask: Tensor) -> Tensor:
    return MaskedSelectBackward0.call(a, mask=mask)


def masked_scatter(a: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return MaskedScatterBackward0.call(a, source, mask=mask, outplace=True)


def masked_scatter_(a: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return apply_inplace(MaskedScatterBackward0, a, source, mask=mask)


def take(a: Tensor, index: Tensor) -> Tensor:
    return TakeBackward0.call(a, index=index)


class TakeBackward0(Function):
    """torch.take: the input read as 1-D at `index` (negative indices count from the end);
    the gradient adds each grad element back at its flat index."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros_like({self}).put_({index}, {grad}, accumulate=True)"),)

    def forward(self, a: Tensor, index: Tensor) -> np.ndarray:
        flat = _check_flat_index("take", index, a.array.size)
        self.save("self", a)
        self.save("index", index)
        return a.array.reshape(-1)[flat].reshape(index.array.shape)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        a, index = self.unpack("self"), self.unpack("index")
        numel = a.array.size
        flat = Tensor._wrap(index.array.reshape(-1) % numel)
        out = index_add(zeros(numel, dtype=grad.dtype), 0, flat, grad.reshape(-1))
        return out.view(a.array.shape)


def _check_flat_index(name: str, index: Tensor, numel: int) -> np.ndarray:
    """A flat (take/put) index: int64, each within [-numel, numel); returned wrapped."""
    if index.dtype is not dtypes.int64:
        raise TorchRuntimeError(
            f"{name}(): Expected a long tensor for index, but got {index.dtype.scalar_type}")
    flat = index.array.reshape(-1)
    bad = flat[(flat < -numel) | (flat >= numel)]
    if bad.size:
        raise TorchIndexError(f"out of range: tried to access index {int(bad[0])} on a "
                              f"tensor of {numel} elements.")
    return flat % numel if numel else flat


def put(a: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return PutBackward0.call(a, source, index=index, accumulate=accumulate)


def put_(a: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return apply_inplace(PutBackward0, a, source, index=index, accumulate=accumulate)


class PutBackward0(Function):
    """put(self, index, source, accumulate): source's elements written (or added) at the flat
    indices of self; self's gradient is grad with those places zeroed (all of it when
    accumulating), source's is grad taken at them."""

    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: the op on every input's tangent
    formulas = (vjp("self", "{grad}.put({index}, zeros_like({source}))",
                    when=(("accumulate", False),)),
                vjp("self", "{grad}"),
                vjp("source", "{grad}.take({index}).reshape_as({source})"))

    def forward(self, a: Tensor, source: Tensor, index: Tensor, accumulate: bool) -> np.ndarray:
        if index.dtype is not dtypes.int64:
            _check_flat_index("put_", index, a.array.size)
        if a.dtype is not source.dtype:
            raise TorchRuntimeError(
                "put_(): self and source expected to have the same dtype, but got self.dtype = "
                f"{a.dtype.scalar_type} and source.dtype = {source.dtype.scalar_type}")
        if source.array.size != index.array.size:
            raise TorchIndexError(
                "put_(): Expected source and index to have the same number of elements, but got "
                f"source.numel() = {source.array.size}, index.numel() = {index.array.size}")
        flat = _check_flat_index("put_", index, a.array.size)
        self.save("index", index)
        self.save("source", source)
        self.save_attr(accumulate=accumulate)
        out = a.array.copy()
        view = out.reshape(-1)
        values = source.array.reshape(-1)
        if accumulate:
            np.add.at(view, flat, values)
        else:
            view[flat] = values
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        index, source = self.unpack("index"), self.unpack("source")
        g_self = g_source = None
        if self.needs_input_grad(0):
            g_self = grad if self.attrs["accumulate"] else put(grad, index, zeros_like(source))
        if self.needs_input_grad(1):
            g_source = take(grad, index).reshape(source.array.shape)
        return g_self, g_source
