"""What a trace keeps of an array: the whole array when it is small, a `Summary` when not.

A traced training loop sees a gradient, an op result and a saved tensor many times per
step. Keeping each whole would make the trace grow by megabytes per step, so arrays with
more than `FULL_LIMIT` (1000) elements are kept as a `Summary`: their shape and dtype,
their first `HEAD` values in order, the corner values torch prints for a large tensor
(the first and last three along each dimension longer than six), and whether all values
are equal. That is what the views show of a large array: `array_cell` prints it exactly
as it prints the whole array, `explain` shows its first values, and the JSON document
writes it in the summarised value form (docs/json.md).

What a summary cannot give: `explain` shows the local derivative of a large elementwise
op as one number only when every value it uses is known to be equal, it compares large
gradients (a hook's change, a `.data` change) by their kept values only, and it does not
replay a backward pass through large saved values to say what a gradient should have been.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .engine.meta import MetaArray
from .engine.tensor_str import EDGEITEMS, THRESHOLD

# Arrays with at most this many elements are kept whole: torch prints such a tensor whole
# and summarises larger ones (from their corners, which is why a Summary prints exactly
# like its array: it must not be smaller than THRESHOLD).
FULL_LIMIT = THRESHOLD
HEAD = 8  # first values a summary keeps, in row-major order

_CORNER_INDEX: dict[tuple[int, ...], tuple[np.ndarray, ...]] = {}


def _flat_corners(shape: tuple[int, ...]) -> tuple[np.ndarray, int, tuple[int, ...]]:
    """The flat (row-major) positions of the head's values followed by those of
    `_corner_index(shape)`'s values, the head's length, and the corners' shape: one `take`
    from a contiguous array gives the same values, in the same order, as a slice of its
    flat view and the fancy index (and is several times cheaper for a small corner set)."""
    known = _FLAT_CORNERS.get(shape)
    if known is None:
        index = _corner_index(shape)
        corners = np.ravel_multi_index(np.broadcast_arrays(*index), shape).reshape(-1)
        head = min(HEAD, math.prod(shape))
        known = (np.concatenate([np.arange(head, dtype=corners.dtype), corners]), head,
                 tuple(len(i.reshape(-1)) for i in index))
        if len(_FLAT_CORNERS) < 1024:
            _FLAT_CORNERS[shape] = known
    return known


_FLAT_CORNERS: dict[tuple[int, ...], tuple[np.ndarray, int, tuple[int, ...]]] = {}


def _corner_index(shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """np.ix_ indexes of the values torch prints for a summarised tensor of `shape`."""
    index = _CORNER_INDEX.get(shape)
    if index is None:
        index = np.ix_(*[
            np.r_[0:EDGEITEMS, n - EDGEITEMS:n] if n > 2 * EDGEITEMS else np.arange(n)
            for n in shape])
        if len(_CORNER_INDEX) < 1024:
            _CORNER_INDEX[shape] = index
    return index


class Summary:
    """A large array as the views show it (see the module docstring).

    `corners` is None for summaries computed by a view (e.g. a derivative shown by its
    first values only); `uniform` is None when it is not known.
    """

    __slots__ = ("shape", "dtype", "size", "head", "corners", "uniform")
    no_data = False  # a meta tensor's (MetaSummary): a shape and a dtype, no values

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, head: np.ndarray,
                 corners: np.ndarray | None, uniform: bool | None):
        self.shape = tuple(shape)
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.head = head
        self.corners = corners
        self.uniform = uniform

    @classmethod
    def of(cls, array: np.ndarray) -> Summary:
        if type(array) is MetaArray:
            return MetaSummary.of(array)
        shape = array.shape
        if array.size and array.ndim and array.flags.c_contiguous:
            # the tracer's case (a summary per large gradient and result, ~17 a training
            # step): the head and the corners are read by one `take` of the flat positions
            # (`take` without an axis reads the array in row-major order)
            positions, head_size, corner_shape = _flat_corners(shape)
            values = array.take(positions)
            head = values[:head_size]
            corners = values[head_size:].reshape(corner_shape)
            return cls._made(shape, array.dtype, array.size, head, corners, array)
        if array.flags.c_contiguous:
            head = array.reshape(-1)[:HEAD].copy()
        else:
            head = array[np.unravel_index(np.arange(min(HEAD, array.size)), shape)]
        if len(shape) == 2:  # (two takes copy less than one fancy index: same values)
            rows, columns = _corner_index(shape)
            corners = array.take(rows.reshape(-1), 0).take(columns.reshape(-1), 1)
        elif array.ndim:
            corners = array[_corner_index(shape)]
        else:
            corners = array.reshape(1)
        return cls._made(shape, array.dtype, array.size, head, corners, array)

    @classmethod
    def _made(cls, shape: tuple[int, ...], dtype: np.dtype, size: int, head: np.ndarray,
              corners: np.ndarray, array: np.ndarray) -> Summary:
        """The summary of `array` from its head and corners (the fields `__init__` would
        normalise are already a tuple, a dtype and the size)."""
        uniform = False
        values = head.tolist()
        # cheap checks first: most arrays differ within their first or corner values
        # (list.count also counts the first value itself, even a NaN: the last check
        # is numpy's, where NaN is never equal)
        if values and values.count(values[0]) == len(values):
            corner_values = corners.reshape(-1).tolist()
            if corner_values.count(values[0]) == len(corner_values):
                uniform = bool((array == head[0]).all())
        summary = _new_summary(cls)
        summary.shape = shape
        summary.dtype = dtype
        summary.size = size
        summary.head = head
        summary.corners = corners
        summary.uniform = uniform
        return summary

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Summary(shape={self.shape}, dtype={self.dtype}, head={self.head.tolist()})"

    def same(self, other: Summary) -> bool:
        """Whether two summaries show the same values (a summary cannot tell more)."""
        return (self.shape == other.shape and self.dtype == other.dtype
                and self.uniform == other.uniform
                and _equal(self.head, other.head)
                and (self.corners is None or other.corners is None
                     or _equal(self.corners, other.corners)))


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    """`np.array_equal(a, b, equal_nan=both float)` of arrays of one shape.

    Equal bytes of one bool, integer or float dtype are equal values (a NaN equals a NaN
    here), and comparing bytes is several times quicker: explain compares every saved
    value a backward step used with the value saved, ~1,600 pairs for a 200-step loop.
    """
    if a.dtype == b.dtype and a.dtype.kind in "biuf" and a.tobytes() == b.tobytes():
        return True
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f"))


_new_summary = object.__new__  # (Summary._made: the fields without __init__'s checks)


class MetaSummary(Summary):
    """What a trace keeps of a meta tensor's array: its shape and dtype; no values (its
    head is empty, and neither corners nor uniformity are known)."""

    __slots__ = ()
    no_data = True

    @classmethod
    def of(cls, array: np.ndarray) -> Summary:
        return cls(array.shape, array.dtype, np.empty(0, array.dtype), None, None)

    def __repr__(self) -> str:
        return f"MetaSummary(shape={self.shape}, dtype={self.dtype})"

    def same(self, other: Summary) -> bool:
        return other.no_data and self.shape == other.shape and self.dtype == other.dtype


def keep(array: np.ndarray | None) -> np.ndarray | Summary | None:
    """A copy of a small array, a Summary of a large one (None stays None)."""
    if array is None:
        return None
    if type(array) is MetaArray:
        return MetaSummary.of(array)
    if array.size <= FULL_LIMIT:
        return np.array(array, copy=True)
    return Summary.of(array)


def keep_tensor(t: Any) -> np.ndarray | Summary | None:
    """`keep` of a tensor's values (None for None)."""
    return None if t is None else keep(t.array)


def is_summary(value: Any) -> bool:
    return isinstance(value, Summary)


def head_of(value: Any, n: int) -> np.ndarray:
    """The first `n` values of an array or a summary, in row-major order."""
    if isinstance(value, Summary):
        return value.head[:n]
    a = np.asarray(value)
    return a.reshape(-1)[:n]


def same_values(a: Any, b: Any) -> bool:
    """Whether two kept values (arrays or summaries) hold the same values (NaN equals NaN).
    Meta tensors hold none: two of one shape and dtype are the same."""
    if type(a) is MetaArray:
        a = keep(a)
    if type(b) is MetaArray:
        b = keep(b)
    if isinstance(a, Summary) or isinstance(b, Summary):
        if not isinstance(a, Summary):
            a = Summary.of(np.asarray(a)) if np.size(a) > FULL_LIMIT else None
        if not isinstance(b, Summary):
            b = Summary.of(np.asarray(b)) if np.size(b) > FULL_LIMIT else None
        return a is not None and b is not None and a.same(b)
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    return _equal(a, b)
