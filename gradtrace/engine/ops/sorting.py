"""sort, argsort, msort, topk, kthvalue, median, mode and unique.

The values record torch's nodes (SortBackward0, TopkBackward0, ...), whose backward
scatters the gradient to the selected positions; indices never require grad. Ties:
sort is stable (as torch's CPU sort); topk picks among equal values as libstdc++'s
partial_sort or nth_element leaves them and kthvalue as aten's quickselect leaves them
(std_sort.py); median picks by (value, index) order, as torch's nth_element with an index
tie-break does.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ScriptError, TorchRuntimeError
from .. import dtypes
from ..formulas import undefined, vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from .clones import copy_laid_out_as
from .reductions import (
    EVENLY_DISTRIBUTED,
    KEEPDIM_SCATTER,
    ReturnTypes,
    _evenly_distribute,
    evenly_read_jvp,
    gather_with_keepdimed_indices,
    value_selecting_backward,
)
from .std_sort import quick_select_index, std_sort_order, std_topk_order
from .views import saved_int, signed


def _named(name: str) -> type[ReturnTypes]:
    return type(f"{name.capitalize()}Return", (ReturnTypes,), {"__slots__": (),
                                                               "type_name": name})


SortReturn, TopkReturn, KthvalueReturn = _named("sort"), _named("topk"), _named("kthvalue")
MedianReturn, ModeReturn = _named("median"), _named("mode")


# torch's CPU sort of a 1-d integer tensor this long, ascending, is fbgemm's radix sort
# (stable); every other unstable sort is std::sort (measured: n = 32767 vs 32768)
_RADIX_SORT_NUMEL = 32768


def sort_order(x: np.ndarray, axis: int, descending: bool, stable: bool) -> np.ndarray:
    """The permutation torch's CPU sort gives along `axis`. Unless asked to be stable it
    sorts with libstdc++'s std::sort, which moves equal values around once there are more
    than 16 of them (std_sort.py); NaN sorts as the largest value."""
    if stable or x.shape[axis] <= 16 or (
            not descending and x.ndim == 1 and x.size >= _RADIX_SORT_NUMEL
            and x.dtype.kind in "iu"):
        return stable_argsort(x, axis, descending)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    order = stable_argsort(rows, 1, descending)
    for r, row in enumerate(rows):
        ranked = row[order[r]]
        if np.count_nonzero(ranked != ranked) <= 1 and not (ranked[1:] == ranked[:-1]).any():
            continue  # no equal values: every sort gives this order
        order[r] = std_sort_order(_comparison_keys(row, descending))
    return np.moveaxis(order.reshape(moved.shape), -1, axis)


def _comparison_keys(row: np.ndarray, descending: bool) -> list[Any]:
    """Keys whose `<` is torch's comparator: NaN after every number (before, descending)."""
    values = row.astype(np.float64 if row.dtype.kind in "fc" else np.int64).tolist()
    nan = row != row
    if not nan.any():
        return [-v for v in values] if descending else values
    if descending:
        return [(0, 0) if n else (1, -v) for v, n in zip(values, nan.tolist(), strict=True)]
    return [(1, 0) if n else (0, v) for v, n in zip(values, nan.tolist(), strict=True)]


def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable order along `axis` (NaN largest); descending keeps equal values in order."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.flip(x, axis)
    order = np.argsort(rev, axis=axis, kind="stable")
    return (n - 1 - np.flip(order, axis)).astype(np.int64)


class _Selecting(Function):
    """A values output picked at `indices` along dim; saves dim, indices, self_sym_sizes."""

    __slots__ = ()
    # the values go back to where they were picked from (derivatives.yaml's
    # value_selecting_reduction_backward)
    formulas = (vjp("self", "zeros({self_sym_sizes}).scatter({dim}, {indices}, {grad})"),)
    keepdim_saved = False
    laid_out_as_self = False  # sort's values (and indices) fill empty_like(self)

    def forward(self, a: Tensor, dim: int, indices: Tensor, keepdim: bool = True) -> np.ndarray:
        self.save_attr(dim=saved_int(dim))
        self.save("indices", indices)
        if self.keepdim_saved:
            self.save_attr(keepdim=keepdim)
        self.save_attr(self_sym_sizes=a.array.shape)
        if a.array.ndim == 0:
            return a.array.copy()
        d = wrap_dim(dim, a.array.ndim)
        idx = indices.array if keepdim else np.expand_dims(indices.array, d)
        out = np.take_along_axis(a.array, idx, axis=d)
        if self.laid_out_as_self:
            return copy_laid_out_as(out, a.array)
        return out if keepdim else np.squeeze(out, d)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return value_selecting_backward(grad, signed(a["dim"]), self.unpack("indices"),
                                        a["self_sym_sizes"], a.get("keepdim", True))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # values: gather_with_keepdimed_indices(self_t, dim, indices, keepdim)
        return gather_with_keepdimed_indices(t[0], params["dim"], params["indices"],
                                             params.get("keepdim", True))


class SortBackward0(_Selecting):
    __slots__ = ()
    laid_out_as_self = True


class SortBackward1(_Selecting):
    """sort(stable=...)."""

    __slots__ = ()
    laid_out_as_self = True


class TopkBackward0(_Selecting):
    __slots__ = ()


class KthvalueBackward0(_Selecting):
    __slots__ = ()
    formulas = KEEPDIM_SCATTER
    keepdim_saved = True


class MedianBackward1(_Selecting):
    __slots__ = ()
    formulas = KEEPDIM_SCATTER
    keepdim_saved = True


class ModeBackward0(_Selecting):
    __slots__ = ()
    formulas = KEEPDIM_SCATTER
    keepdim_saved = True


def _indices(values: np.ndarray) -> Tensor:
    return Tensor._wrap(np.asarray(values, dtype=np.int64))


def sort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: Any = None) -> Any:
    indices = _indices(_sort_indices(a.array, dim, descending, bool(stable)))
    node = SortBackward0 if stable is None else SortBackward1
    values = node.call(a, dim=dim, indices=indices)
    return SortReturn(values, indices)


def argsort(a: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
            ) -> Tensor:
    return _indices(_sort_indices(a.array, dim, descending, stable))


def _sort_indices(x: np.ndarray, dim: int, descending: bool, stable: bool) -> np.ndarray:
    """sort's indices, laid out as `x` (sort_stable_out fills empty_like(self))."""
    if not x.ndim:
        return np.zeros((), np.int64)
    return copy_laid_out_as(sort_order(x, wrap_dim(dim, x.ndim), descending, stable), x)


def msort(a: Tensor) -> Tensor:
    return sort(a, 0)[0]


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    d = wrap_dim(dim, a.array.ndim)
    size = a.array.shape[d] if a.array.ndim else 1
    if not 0 <= k <= size:
        raise TorchRuntimeError("selected index k out of range")
    if a.dtype is dtypes.bool_:
        raise TorchRuntimeError("topk does not support bool dtypes on CPU")
    idx = topk_order(a.array, d, k, largest, sorted) if a.array.ndim \
        else np.zeros((), np.int64)
    indices = _indices(idx)
    return TopkReturn(TopkBackward0.call(a, dim=dim, indices=indices), indices)


def topk_order(x: np.ndarray, axis: int, k: int, largest: bool, sort: bool) -> np.ndarray:
    """The k positions along `axis` torch's CPU topk reports: the best k in order when a
    row's values are distinct, else (equal values, or an unsorted result of its
    nth_element path) the positions libstdc++'s partial_sort or nth_element + sort leave
    first (std_sort.py), comparing values only, NaN the largest."""
    order = np.take(stable_argsort(x, axis, largest), np.arange(k), axis=axis)
    n = x.shape[axis]
    if k == 0 or n <= 1 or x.dtype.kind not in "fiu":
        return order
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, n)
    picked = np.moveaxis(order, axis, -1).reshape(-1, k).copy()
    unsorted_path = not sort and k * 64 > n
    changed = False
    for r, row in enumerate(rows):
        if not unsorted_path:
            ranked = np.sort(row)
            if np.count_nonzero(ranked != ranked) <= 1 and \
                    not (ranked[1:] == ranked[:-1]).any():
                continue  # distinct values: every selection reports this order
        keys = _comparison_keys(row, largest)
        picked[r] = std_topk_order(keys, k, sort)
        changed = True
    if not changed:
        return order
    shape = moved.shape[:-1] + (k,)
    return np.moveaxis(picked.reshape(shape), -1, axis)


def kthvalue(a: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    d = wrap_dim(dim, a.array.ndim)
    size = a.array.shape[d] if a.array.ndim else 1
    if not 1 <= k <= size:
        raise TorchRuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _pick(KthvalueReturn, KthvalueBackward0, a, dim, keepdim, k - 1, quick_select=True)


def _pick(ret: type[ReturnTypes], node: type[_Selecting], a: Tensor, dim: int,
          keepdim: bool, position: int, first_nan: bool = False,
          quick_select: bool = False) -> ReturnTypes:
    """The element at `position` of each sorted row along dim; with `first_nan`, a row
    holding a NaN picks its first NaN instead (median's kernel looks for one first); with
    `quick_select`, a row holding equal values reports the copy torch's quickselect
    (kthvalue's) leaves there."""
    d = wrap_dim(dim, a.array.ndim)
    if a.array.ndim == 0:
        indices = _indices(0)
    else:
        order = stable_argsort(a.array, d, False)
        idx = np.take(order, [position], axis=d)
        if quick_select and a.array.shape[d] > 1:
            idx = _quick_selected(a.array, d, position, order, idx)
        if first_nan and a.array.dtype.kind == "f":
            nans = np.isnan(a.array)
            idx = np.where(nans.any(d, keepdims=True), np.expand_dims(nans.argmax(d), d), idx)
        indices = _indices(idx if keepdim else np.squeeze(idx, d))
    return ret(node.call(a, dim=dim, indices=indices, keepdim=keepdim), indices)


def _quick_selected(x: np.ndarray, axis: int, position: int, order: np.ndarray,
                    idx: np.ndarray) -> np.ndarray:
    """`idx` (the stable order's pick along `axis`) with each row that holds equal values
    replaced by quick_select_index's pick: with distinct values every selection agrees."""
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    ranked = np.take_along_axis(rows, np.moveaxis(order, axis, -1).reshape(rows.shape), 1)
    ties = (ranked[:, 1:] == ranked[:, :-1]).any(1) | \
        (np.count_nonzero(ranked != ranked, axis=1) > 1)
    if not ties.any():
        return idx
    picked = np.moveaxis(idx, axis, -1).reshape(-1).copy()
    for r in np.flatnonzero(ties):
        picked[r] = quick_select_index(rows[r].tolist(), position)
    return np.moveaxis(picked.reshape(moved.shape[:-1] + (1,)), -1, axis)


class MedianBackward0(Function):
    """median() of all elements: the lower median; ties share the gradient evenly."""

    __slots__ = ()
    formulas = EVENLY_DISTRIBUTED

    def forward(self, a: Tensor) -> np.ndarray:
        if a.array.size == 0:
            raise TorchRuntimeError(
                "median() input tensor cannot be empty")
        self.save("self", a)
        flat = np.sort(a.array.reshape(-1), kind="stable")
        if np.isnan(flat).any():
            return np.asarray(np.nan, dtype=a.array.dtype)
        return np.asarray(flat[(flat.size - 1) // 2])

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return _evenly_distribute(grad, self.unpack("self"), self.unpack("result"))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return evenly_read_jvp(t[0], inputs[0], outs[0])


def median(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        return MedianBackward0.call(a)
    d = wrap_dim(dim, a.array.ndim)
    size = a.array.shape[d] if a.array.ndim else 1
    return _pick(MedianReturn, MedianBackward1, a, dim, keepdim, (size - 1) // 2,
                 first_nan=True)


def mode(a: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along dim (the smallest among equally frequent ones) and
    the index its copies' sort leaves last, as torch's CPU kernel finds them: it sorts
    (value, index) pairs by value with std::sort, which is not stable (std_sort.py)."""
    d = wrap_dim(dim, a.array.ndim)
    x = np.moveaxis(a.array, d, -1) if a.array.ndim else a.array.reshape(1)
    rows = x.reshape(-1, x.shape[-1])
    idx = np.zeros(rows.shape[0], dtype=np.int64)
    for r, row in enumerate(rows):
        order = np.asarray(std_sort_order(row.tolist()), dtype=np.int64)
        values = row[order]
        best, best_len, start = 0, 0, 0
        for i in range(1, values.size + 1):
            if i == values.size or values[i] != values[start]:
                if i - start > best_len:
                    best, best_len = i - 1, i - start
                start = i
        idx[r] = order[best]
    shape = x.shape[:-1]
    indices_arr = idx.reshape(shape)
    if keepdim and a.array.ndim:
        indices_arr = np.expand_dims(indices_arr, d)
    indices = _indices(indices_arr)
    return ModeReturn(ModeBackward0.call(a, dim=dim, indices=indices, keepdim=keepdim), indices)


class Unique2Backward0(Function):
    """_unique2: the values are differentiable in form; torch has no derivative for it."""

    __slots__ = ()
    no_forward_ad = "_unique2"  # torch has no forward-mode formula (measured)
    formulas = (undefined("self"),)

    def forward(self, a: Tensor, values: np.ndarray) -> np.ndarray:
        return values

    def backward(self, grad: Tensor) -> Tensor:
        raise ScriptError("the derivative for '_unique2' is not implemented.",
                          kind="NotImplementedError")


def unique(a: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    if dim is not None:
        from ...errors import NotSupportedError

        raise NotSupportedError("torch.unique(dim=...) is not supported by gradtrace")
    values, inverse, counts = np.unique(a.array, return_inverse=True, return_counts=True)
    out = Unique2Backward0.call(a, values=values.astype(a.array.dtype))
    extra = []
    if return_inverse:
        extra.append(_indices(inverse.reshape(a.array.shape)))
    if return_counts:
        extra.append(_indices(counts))
    return (out, *extra) if extra else out
