"""sort, argsort, msort, topk, kthvalue, median, mode and unique.

The values record torch's nodes (SortBackward0, TopkBackward0, ...), whose backward
scatters the gradient to the selected positions; indices never require grad. Ties: which
of equal values each kernel reports follows its algorithm's swaps (std_sort.py): sort
(unless stable) and mode libstdc++'s std::sort, topk std::partial_sort or std::nth_element,
kthvalue torch's quick_select_template; median with dim orders equal values by index
(nanmedian: quantiles.py).
Rows whose result no tie can change take a numpy path.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from ..formulas import undefined, vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import no_derivative, not_implemented
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
from .std_sort import (
    nth_element_order,
    partial_sort_order,
    quick_select_order,
    sort_range,
    std_sort_order,
)
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
    if a.array.dtype == np.bool_:
        raise TorchRuntimeError("topk does not support bool dtypes on CPU")
    if a.array.ndim == 0:
        idx = np.zeros((), np.int64)
    else:
        idx = _along_rows(a.array, d, lambda rows: _topk_rows(rows, k, largest, sorted))
    indices = _indices(idx)
    return TopkReturn(TopkBackward0.call(a, dim=dim, indices=indices), indices)


def _along_rows(x: np.ndarray, d: int, select: Any) -> np.ndarray:
    """`select` applied to the rows of `x` along `d` (a 2-d array, one row each), its
    columns put back along `d`, contiguous (as the kernels' outputs are)."""
    moved = np.moveaxis(x, d, -1)
    picked = select(moved.reshape(int(np.prod(moved.shape[:-1])), moved.shape[-1]))
    return np.ascontiguousarray(
        np.moveaxis(picked.reshape(*moved.shape[:-1], picked.shape[-1]), -1, d))


def _ties(ranked: np.ndarray) -> np.ndarray:
    """Per row of `ranked`, whether two neighbours are equal (NaNs equal each other, as in
    torch's comparators, and -0.0 equals 0.0)."""
    same = ranked[:, 1:] == ranked[:, :-1]
    if ranked.dtype.kind in "fc":
        same |= np.isnan(ranked[:, 1:]) & np.isnan(ranked[:, :-1])
    return same.any(axis=1)


def _leading(rows: np.ndarray, count: int, largest: bool) -> np.ndarray:
    """The first `count` columns of each row's stable order (largest first, or smallest),
    as far as `_topk_rows` reads them: where `count` is small against the row, numpy's
    argpartition and a sort of the `count` picked (rows of a vocabulary's logits need no
    full sort). Equal values among them may come in another order than the stable one, and
    the (count + 1)-th's copies may stand in for the count-th: `_ties` sees both and
    sends such rows to the emulation. Rows holding a NaN take the full stable sort."""
    n = rows.shape[1]
    if count * 4 > n or (rows.dtype.kind in "fc" and np.isnan(rows).any()):
        return stable_argsort(rows, 1, largest)[:, :count]
    picked = (np.argpartition(rows, n - count, axis=1)[:, n - count:] if largest
              else np.argpartition(rows, count - 1, axis=1)[:, :count])
    ranks = np.argsort(np.take_along_axis(rows, picked, 1), axis=1, kind="stable")
    if largest:
        ranks = ranks[:, ::-1]
    return np.take_along_axis(picked, ranks, 1).astype(np.int64)


def _topk_rows(rows: np.ndarray, k: int, largest: bool, sorted: bool) -> np.ndarray:
    """topk_impl_loop's indices: std::partial_sort of (value, index) pairs when
    k * 64 <= n, else std::nth_element at k - 1 and (sorted) std::sort of the k - 1 before.
    Without equal values among the first k + 1 in order the selected set and its sorted
    order are unique, so only unsorted nth_element results (their first k - 1 in whatever
    order the partitions leave) and rows with ties run the emulation."""
    ranked = _leading(rows, k + 1, largest)
    order = ranked[:, :k].copy()
    partial = k * 64 <= rows.shape[1]
    if partial or sorted or k <= 2:
        emulate = _ties(np.take_along_axis(rows, ranked, 1))
    else:
        emulate = np.ones(rows.shape[0], bool)
    for r in np.flatnonzero(emulate):
        keys = _comparison_keys(rows[r], largest)
        if partial:
            items = partial_sort_order(keys, k)
        else:
            items = nth_element_order(keys, k - 1)
            if sorted:
                sort_range(keys, items, 0, k - 1)
        order[r] = items[:k]
    return order


def kthvalue(a: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The k-th smallest along dim (NaN largest) at the index torch's quick_select_template
    leaves at k - 1: only a row where that value has equal copies runs the emulation."""
    d = wrap_dim(dim, a.array.ndim)
    size = a.array.shape[d] if a.array.ndim else 1
    _check_reduced_size("kthvalue", a, d)
    if not 1 <= k <= size:
        raise TorchRuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.array.ndim == 0:  # before the kernel's dtype dispatch
        idx = np.zeros((), np.int64)
    else:
        if a.array.dtype == np.bool_:
            raise not_implemented("kthvalue_cpu", a.dtype)
        idx = _along_rows(a.array, d, lambda rows: _kthvalue_rows(rows, k))
        if not keepdim:
            idx = np.squeeze(idx, d)
    indices = _indices(idx)
    return KthvalueReturn(KthvalueBackward0.call(a, dim=dim, indices=indices, keepdim=keepdim),
                          indices)


def _check_reduced_size(name: str, a: Tensor, d: int) -> None:
    if a.array.ndim and a.array.shape[d] == 0:
        raise TorchIndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def median_dim(a: Tensor, dim: Any) -> int:
    """median's and nanmedian's dim, wrapped, after their kernels' checks (an empty dim,
    a bool tensor)."""
    d = wrap_dim(dim, a.array.ndim)
    _check_reduced_size("median", a, d)
    if a.array.dtype == np.bool_:
        raise not_implemented("median_out", a.dtype)
    return d


def _kthvalue_rows(rows: np.ndarray, k: int) -> np.ndarray:
    order = stable_argsort(rows, 1, False)
    near = order[:, max(k - 2, 0):k + 1]
    emulate = _ties(np.take_along_axis(rows, near, 1))
    picked = order[:, k - 1:k].copy()
    for r in np.flatnonzero(emulate):
        picked[r, 0] = quick_select_order(_comparison_keys(rows[r], False), k - 1)[k - 1]
    return picked


class MedianBackward0(Function):
    """median() of all elements: the lower median; ties share the gradient evenly."""

    __slots__ = ()
    formulas = EVENLY_DISTRIBUTED

    def forward(self, a: Tensor) -> np.ndarray:
        if a.array.size == 0:
            raise TorchRuntimeError(
                "median() input tensor cannot be empty")
        if a.array.dtype == np.bool_:
            raise not_implemented("median_cpu", a.dtype)
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
    # its std::nth_element compares (value, index): the middle of the stable order, unless
    # the row holds a NaN (the kernel reports the first one)
    d = median_dim(a, dim)
    if a.array.ndim == 0:
        indices = _indices(0)
    else:
        order = stable_argsort(a.array, d, False)
        idx = np.take(order, [(a.array.shape[d] - 1) // 2], axis=d)
        if a.array.dtype.kind == "f":
            nans = np.isnan(a.array)
            idx = np.where(nans.any(d, keepdims=True), np.expand_dims(nans.argmax(d), d), idx)
        indices = _indices(idx if keepdim else np.squeeze(idx, d))
    return MedianReturn(MedianBackward1.call(a, dim=dim, indices=indices, keepdim=keepdim),
                        indices)


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


class _UniqueValues(Function):
    """The distinct values of a unique op: differentiable in form, but torch has no
    derivative for them; `no_forward_ad` names the op in both modes' errors."""

    __slots__ = ()
    formulas = (undefined("self"),)

    def forward(self, a: Tensor, values: np.ndarray) -> np.ndarray:
        return values

    def backward(self, grad: Tensor) -> Tensor:
        raise no_derivative(self.no_forward_ad)


class Unique2Backward0(_UniqueValues):
    """_unique2: torch.unique without dim."""

    __slots__ = ()
    no_forward_ad = "_unique2"  # torch has no forward-mode formula (measured)


class UniqueDimBackward0(_UniqueValues):
    """unique_dim: the distinct slices along a dim."""

    __slots__ = ()
    no_forward_ad = "unique_dim"  # torch has no forward-mode formula (measured)


def unique(a: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    if dim is not None:
        return _unique_dim(a, wrap_dim(dim, a.array.ndim), return_inverse, return_counts)
    values, inverse, counts = np.unique(a.array, return_inverse=True, return_counts=True)
    out = Unique2Backward0.call(a, values=values.astype(a.array.dtype))
    extra = []
    if return_inverse:
        extra.append(_indices(inverse.reshape(a.array.shape)))
    if return_counts:
        extra.append(_indices(counts))
    return (out, *extra) if extra else out


def _unique_dim(a: Tensor, d: int, return_inverse: bool, return_counts: bool) -> Any:
    """torch.unique(dim=d) (aten's unique_dim, sorted whatever `sorted` says): the distinct
    slices along d in lexicographic order of their elements, the index of each slice's
    distinct one and how often each occurs."""
    moved = np.moveaxis(a.array, d, 0)
    if moved.shape[0] == 0:
        values, inverse, counts = a.array, np.zeros(0, np.int64), np.zeros(0, np.int64)
    elif moved.size == 0:
        raise TorchRuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                                "unique cannot be applied")
    else:
        rows = moved.reshape(moved.shape[0], -1)
        order = np.lexsort(rows.T[::-1])
        sorted_rows = rows[order]
        new = np.ones(rows.shape[0], dtype=bool)
        new[1:] = np.any(sorted_rows[1:] != sorted_rows[:-1], axis=1)
        group = np.cumsum(new) - 1
        inverse = np.empty(rows.shape[0], dtype=np.int64)
        inverse[order] = group
        counts = np.bincount(group).astype(np.int64)
        values = np.ascontiguousarray(np.moveaxis(moved[order[new]], 0, d))
    out = UniqueDimBackward0.call(a, values=values)
    extra = []
    if return_inverse:
        extra.append(_indices(inverse))
    if return_counts:
        extra.append(_indices(counts))
    return (out, *extra) if extra else out
