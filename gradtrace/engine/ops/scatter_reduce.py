"""scatter_reduce and index_reduce (sum, prod, mean, amax, amin; include_self), with their
in-place forms. The forward folds the sources into each target one at a time in index
order, as ATen's CPU kernel does (so float sums and products round as torch's do); the
backward is torch's scatter_reduce_backward/index_reduce_backward, built of recorded ops."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from ..formulas import vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import apply_inplace
from .arithmetic import bitwise_and, div, eq, mul
from .clones import to
from .creation import WARNINGS, OnceWarning, ones_like, zeros_like
from .indexing import (
    IndexFillBackward0,
    ScatterBackward1,
    _check_gather,
    _flat,
    _gather_key,
    _src_values,
    gather,
    index_add,
    index_select,
    masked_fill,
    scatter_add,
)
from .reductions import where
from .views import saved_int, signed

# ATen's reductions; amax/amin let a NaN on either side win, as np.maximum/minimum do
_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}


def _identity(reduce: str, dtype: np.dtype) -> Any:
    """The value a target starts from when include_self=False."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _fold(out: np.ndarray, key: tuple, values: np.ndarray, reduce: str,
          include_self: bool) -> np.ndarray:
    """Reduce `values` into `out[key]` in order; mean divides by the count (floor for
    integers, as ATen's div_ with rounding 'floor')."""
    if not include_self:
        out[key] = _identity(reduce, out.dtype)
    _UFUNCS[reduce].at(out, key, values)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, key, 1)
        count[count == 0] = 1
        if out.dtype.kind == "f":
            out = (out / count.astype(out.dtype)).astype(out.dtype)
        else:
            out = np.floor_divide(out, count).astype(out.dtype)
    return out


def _check_reduce(reduce: str) -> None:
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise TorchRuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")


class ScatterReduceBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("self", "{grad}", when=(("reduce", "sum"), ("include_self", True))),
        vjp("self", "{grad}.scatter({dim}, {index}, 0)", when=(("reduce", "sum"),)),
        vjp("self", "{grad} / ({include_self} + zeros_like({self}).scatter_add({dim}, "
                    "{index}, 1)).clamp(min=1)", when=(("reduce", "mean"),)),
        vjp("self", "{grad} · {result} / {self}", when=(("reduce", "prod"),)),
        vjp("self", "({self} == {result}) · {grad} / ({self} == {result}).scatter_add({dim}, "
                    "{index}, {src} == {result}.gather({dim}, {index}))"),
        vjp("src", "{grad}.gather({dim}, {index})", when=(("reduce", "sum"),)),
        vjp("src", "{grad}.gather({dim}, {index}) / ({include_self} + zeros_like({self})"
                   ".scatter_add({dim}, {index}, 1)).clamp(min=1).gather({dim}, {index})",
            when=(("reduce", "mean"),)),
        vjp("src", "({grad} · {result}).gather({dim}, {index}) / {src}",
            when=(("reduce", "prod"),)),
        vjp("src", "({src} == {result}.gather({dim}, {index})) · ({grad} / ({self} == "
                   "{result}).scatter_add({dim}, {index}, {src} == {result}.gather({dim}, "
                   "{index}))).gather({dim}, {index})"),
    )

    def forward(self, a: Tensor, src: Tensor, dim: int, index: Tensor, reduce: str,
                include_self: bool = True) -> np.ndarray:
        _check_reduce(reduce)
        d = _check_gather(a, dim, index, "scatter", src, has_src=True)
        self.save("index", index)
        self.save("self", a)
        self.save("src", src)
        self.save_attr(dim=saved_int(dim), include_self=bool(include_self), reduce=reduce)
        if index.array.size == 0:
            return a.array.copy()
        out = _fold(_flat(a.array.copy()), _gather_key(index.array, d),
                    _src_values(src.array, index.array), reduce, bool(include_self))
        return out.reshape(a.array.shape)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        dim, reduce, include_self = signed(at["dim"]), at["reduce"], at["include_self"]
        index = self.unpack("index")
        ops = _ScatterOps(dim, index, include_self)
        g_self, g_src = _reduce_backward(ops, grad, self.unpack("self"), self.unpack("src"),
                                         self.unpack("result"), reduce, include_self, "scatter")
        return (g_self if self.needs_input_grad(0) else None,
                g_src if self.needs_input_grad(1) else None)


class _ScatterOps:
    """The gather-like (scatter_reduce) or index-like (index_reduce) op pair the backward
    formula is written with."""

    def __init__(self, dim: int, index: Tensor, include_self: bool) -> None:
        self.dim, self.index, self.include_self = dim, index, include_self

    def select(self, t: Tensor) -> Tensor:
        return gather(t, self.dim, self.index)

    def add(self, t: Tensor, src: Tensor) -> Tensor:
        return scatter_add(t, self.dim, self.index, src)

    def clear(self, t: Tensor) -> Tensor:
        return ScatterBackward1.call(t, dim=self.dim, index=self.index, value=0)

    def reduce(self, t: Tensor, src: Tensor, reduce: str) -> Tensor:
        return scatter_reduce(t, self.dim, self.index, src, reduce,
                              include_self=self.include_self)


class _IndexOps(_ScatterOps):
    def select(self, t: Tensor) -> Tensor:
        return index_select(t, self.dim, self.index)

    def add(self, t: Tensor, src: Tensor) -> Tensor:
        return index_add(t, self.dim, self.index, src)

    def clear(self, t: Tensor) -> Tensor:
        return IndexFillBackward0.call(t, dim=self.dim, index=self.index, value=0)

    def reduce(self, t: Tensor, src: Tensor, reduce: str) -> Tensor:
        return index_reduce(t, self.dim, self.index, src, reduce,
                            include_self=self.include_self)


def _reduce_backward(ops: _ScatterOps, grad: Tensor, a: Tensor, src: Tensor, result: Tensor,
                     reduce: str, include_self: bool, name: str
                     ) -> tuple[Tensor, Tensor]:
    """torch's scatter_reduce_backward / index_reduce_backward, op for op."""
    if reduce == "sum":
        g_self, g_src = grad, ops.select(grad)
    elif reduce == "prod":
        masked_self = masked_fill(a, eq(a, 0), 1)
        masked_self_result = ops.reduce(masked_self, src, reduce)
        g_self = div(mul(grad, masked_self_result), masked_self)
        src_zero = eq(src, 0)
        src_num_zeros = ops.select(ops.add(zeros_like(a), to(src_zero, a.dtype)))
        src_single_zero = bitwise_and(src_zero, eq(src_num_zeros, 1))
        masked_src = masked_fill(src, src_single_zero, 1)
        masked_src_result = ops.reduce(a, masked_src, reduce)
        g_src = where(src_single_zero, ops.select(mul(grad, masked_src_result)),
                      div(ops.select(mul(grad, result)), masked_fill(src, src_zero, 1)))
    elif reduce == "mean":
        n = ones_like(grad) if include_self else zeros_like(grad)
        n = ops.add(n, ones_like(src))
        n = masked_fill(n, eq(n, 0), 1)
        g_self = div(grad, n)
        g_src = div(ops.select(grad), ops.select(n))
    else:
        value = ops.select(result)
        self_is_result = to(eq(a, result), a.dtype)
        src_is_result = to(eq(src, value), a.dtype)
        n = ops.add(self_is_result, src_is_result)
        distributed = div(grad, n)
        if name == "scatter":
            g_self = mul(eq(a, result), distributed)
            g_src = mul(eq(src, value), ops.select(distributed))
        else:
            g_self = mul(self_is_result, distributed)
            g_src = mul(src_is_result, ops.select(distributed))
    if not include_self:
        g_self = ops.clear(g_self)
    return g_self, g_src


def scatter_reduce(a: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    return ScatterReduceBackward0.call(a, src, dim=dim, index=index, reduce=reduce,
                                       include_self=include_self)


def scatter_reduce_(a: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    return apply_inplace(ScatterReduceBackward0, a, src, dim=dim, index=index, reduce=reduce,
                         include_self=include_self)


INDEX_REDUCE_WARNING = (
    "index_reduce() is in beta and the API may change at any time. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)")


class IndexReduceBackward0(Function):
    __slots__ = ()
    no_forward_ad = "index_reduce"  # torch has no forward-mode formula (measured)
    formulas = (
        vjp("self", "{grad} / ({include_self} + zeros_like({self}).index_add({dim}, {index}, "
                    "1)).clamp(min=1)", when=(("reduce", "mean"),)),
        vjp("self", "{grad} · {result} / {self}", when=(("reduce", "prod"),)),
        vjp("self", "({self} == {result}) · {grad} / ({self} == {result}).index_add({dim}, "
                    "{index}, {source} == {result}.index_select({dim}, {index}))"),
        vjp("source", "{grad}.index_select({dim}, {index}) / ({include_self} + zeros_like("
                      "{self}).index_add({dim}, {index}, 1)).clamp(min=1).index_select({dim}, "
                      "{index})", when=(("reduce", "mean"),)),
        vjp("source", "({grad} · {result}).index_select({dim}, {index}) / {source}",
            when=(("reduce", "prod"),)),
        vjp("source", "({source} == {result}.index_select({dim}, {index})) · ({grad} / ("
                      "{self} == {result}).index_add({dim}, {index}, {source} == "
                      "{result}.index_select({dim}, {index}))).index_select({dim}, {index})"),
    )

    def forward(self, a: Tensor, source: Tensor, dim: int, index: Tensor, reduce: str,
                include_self: bool = True) -> np.ndarray:
        WARNINGS.append(OnceWarning(f"UserWarning: {INDEX_REDUCE_WARNING}", "index_reduce"))
        if reduce not in ("prod", "mean", "amax", "amin"):
            raise TorchRuntimeError("index_reduce(): Expected reduce to be one of prod, mean, "
                                    f"amax or amin but got {reduce}.")
        d = wrap_dim(dim, max(a.array.ndim, 1))
        n_src = source.array.shape[d] if source.array.ndim else 1
        if index.array.ndim > 1:
            raise TorchIndexError("index_reduce_(): Index is supposed to be a vector")
        if index.array.size != n_src:
            raise TorchRuntimeError(
                f"index_reduce_(): Number of indices ({index.array.size}) should be equal to "
                f"source.size(dim): ({n_src}), for dim: {signed(dim)}")
        size = a.array.shape[d] if a.array.ndim else 1
        flat = index.array.reshape(-1)
        if ((flat < -size) | (flat >= size)).any():
            raise TorchIndexError("index out of range in self")
        if a.dtype is not source.dtype:
            raise TorchRuntimeError("index_reduce_(): self and source must have the same "
                                    "scalar type")
        self.save("index", index)
        self.save("self", a)
        self.save("source", source)
        self.save_attr(dim=saved_int(dim), include_self=bool(include_self), reduce=reduce)
        out = a.array.copy()
        # one whole slice of source per index entry, in order: the key lists the targets
        shape = source.array.shape
        grids = list(np.indices(shape, sparse=True))
        grids[d] = np.where(flat < 0, flat + size, flat).reshape(
            [-1 if i == d else 1 for i in range(len(shape))])
        return _fold(out, tuple(grids), source.array, reduce, bool(include_self))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        dim, reduce, include_self = signed(at["dim"]), at["reduce"], at["include_self"]
        ops = _IndexOps(dim, self.unpack("index"), include_self)
        g_self, g_src = _reduce_backward(ops, grad, self.unpack("self"),
                                         self.unpack("source"), self.unpack("result"), reduce,
                                         include_self, "index")
        return (g_self if self.needs_input_grad(0) else None,
                g_src if self.needs_input_grad(1) else None)


def index_reduce(a: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    return IndexReduceBackward0.call(a, source, dim=dim, index=index, reduce=reduce,
                                     include_self=include_self)


def index_reduce_(a: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    return apply_inplace(IndexReduceBackward0, a, source, dim=dim, index=index, reduce=reduce,
                         include_self=include_self)


TENSOR_METHODS = {
    "scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_,
    "index_reduce": index_reduce, "index_reduce_": index_reduce_,
}
