"""Composite tensor functions built op by op as ATen builds them (so their graphs have
torch's nodes): combinations, trapezoid/trapz, cumulative_trapezoid, vander and
linalg.vander; and the non-differentiable helpers isin, unique_consecutive and torch.range."""
from __future__ import annotations

import math
from itertools import combinations as _index_combinations
from itertools import combinations_with_replacement
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..shapes import wrap_dim
from ..tensor import Tensor
from .clones import flip
from .creation import WARNINGS
from .indexing import masked_select
from .joins import cat, stack
from .scalar import div_scalar, mul_scalar
from .select_views import SliceBackward0, select
from .sorting import _UniqueValues
from .stacking import meshgrid
from .views import unsqueeze, view


def combinations(a: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """meshgrid of r copies, each masked to the index tuples in order, stacked as columns."""
    if a.array.ndim != 1:
        raise TorchRuntimeError(
            f"Expect a 1D vector, but got shape [{', '.join(map(str, a.array.shape))}]")
    if r < 0:
        raise TorchRuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._wrap(np.zeros(0, a.array.dtype))
    n = a.array.size
    pick = combinations_with_replacement if with_replacement else _index_combinations
    mask = np.zeros((n,) * r, dtype=bool)
    for index in pick(range(n), r):
        mask[index] = True
    grids = meshgrid(*([a] * r), indexing="ij")
    mask_t = Tensor._wrap(mask)
    return stack([masked_select(g, mask_t) for g in grids], 1)


def _trapezoid_x(y: Tensor, x: Tensor, d: int, name: str) -> Tensor:
    """dx = x[1:] - x[:-1] along dim, x first viewed to y's number of dims."""
    if y.dtype is dtypes.bool_ or x.dtype is dtypes.bool_:
        raise TorchRuntimeError(
            f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if x.array.ndim == 1:
        if x.array.shape[0] != y.array.shape[d]:
            raise TorchRuntimeError(
                f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.array.ndim
        sizes[d] = x.array.shape[0]
        x = view(x, *sizes)
    elif x.array.ndim < y.array.ndim:
        x = view(x, *([1] * (y.array.ndim - x.array.ndim) + list(x.array.shape)))
    return _tail(x, d) - _head(x, d)


def _tail(t: Tensor, dim: int) -> Tensor:
    """ATen's t.slice(dim, 1): its end stays None."""
    return SliceBackward0.call(t, dim=dim, start=1, end=None, step=1)


def _head(t: Tensor, dim: int) -> Tensor:
    return SliceBackward0.call(t, dim=dim, start=0, end=-1, step=1)


def _zeros_except(y: Tensor, d: int) -> Tensor:
    shape = y.array.shape[:d] + y.array.shape[d + 1:]
    dtype = y.dtype if y.dtype.is_floating_point else dtypes.get_default_dtype()
    out = Tensor._wrap(np.zeros(shape, dtype.np))
    out._version_counter.value = 1  # torch: zeros(...) filled in place
    return out


def _check_dx(dx: Any, name: str) -> None:
    if isinstance(dx, bool) or isinstance(dx, complex):
        raise TorchRuntimeError(f"{name}: Currently, we only support dx as a real number.")


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    d = wrap_dim(dim, y.array.ndim)
    if isinstance(x, Tensor):
        if dx is not None:
            raise TorchRuntimeError("trapezoid: received both x and dx")  # torch's parser
        if y.array.shape[d] == 0:
            return _zeros_except(y, d)
        step = _trapezoid_x(y, x, d, "trapezoid")
        return div_scalar(((_head(y, d) + _tail(y, d)) * step).sum(d), 2.0)
    spacing = 1.0 if x is None and dx is None else float(dx if dx is not None else x)
    _check_dx(dx, "trapezoid")
    if y.array.shape[d] == 0:
        return _zeros_except(y, d)
    if y.dtype is dtypes.bool_:
        raise TorchRuntimeError(
            "trapezoid: received a bool input for `y`, but bool is not supported")
    return mul_scalar(y.sum(dim) - mul_scalar(select(y, dim, 0) + select(y, dim, -1), 0.5),
                      spacing)


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    d = wrap_dim(dim, y.array.ndim)
    if isinstance(x, Tensor):  # ATen wraps dim on this path only
        step = _trapezoid_x(y, x, d, "cumulative_trapezoid")
        return div_scalar(((_head(y, d) + _tail(y, d)) * step).cumsum(d), 2.0)
    left, right = _head(y, dim), _tail(y, dim)
    spacing = 1.0 if x is None and dx is None else float(dx if dx is not None else x)
    _check_dx(dx, "cumulative_trapezoid")
    if y.dtype is dtypes.bool_:
        raise TorchRuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool "
                                "is not supported")
    return mul_scalar(left + right, spacing / 2.0).cumsum(dim)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """ATen: ones, then x and the cumulative products written into columns 1.. (copy_ into
    slices: CopySlices), flipped unless increasing."""
    if x.array.ndim != 1:
        raise TorchRuntimeError("x must be a one-dimensional tensor.")
    n = x.array.shape[0] if N is None else N
    if n < 0:
        raise TorchRuntimeError("N must be non-negative.")
    dtype = dtypes.promote(x.dtype, dtypes.int64)
    result = Tensor._wrap(np.ones((x.array.shape[0], n), dtype.np))
    result._version_counter.value = int(n > 0)  # empty(...).fill_(1)
    if n > 1:
        _tail(result, 1).copy_(unsqueeze(x, 1))
        _tail(result, 1).copy_(_tail(result, 1).cumprod(1))
    return result if increasing else flip(result, (1,))


def linalg_vander(x: Tensor, *, N: int | None = None) -> Tensor:  # noqa: N803
    if x.dtype is dtypes.bool_:
        raise TorchRuntimeError("linalg.vander supports floating point, complex, and integer "
                                "tensors, but got Bool")
    x_ = unsqueeze(x, -1) if x.array.ndim == 0 else x
    shape = list(x_.array.shape)
    n = shape[-1] if N is None else N
    if n <= 1:
        raise TorchRuntimeError("N must be greater than 1.")
    shape.append(n - 1)
    result = unsqueeze(x_, -1).expand(*shape).cumprod(-1)
    shape[-1] = 1
    ones = Tensor._wrap(np.ones(shape, result.array.dtype))
    return cat([ones, result], -1)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    a = elements.array if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements.array if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return Tensor._wrap(np.asarray(np.isin(a, b, invert=invert)))


class UniqueConsecutiveBackward0(_UniqueValues):
    """unique_consecutive: the values of each run of equal elements."""

    __slots__ = ()
    no_forward_ad = "unique_consecutive"  # torch has no forward-mode formula (measured)


def unique_consecutive(a: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    if dim is None:
        flat = a.array.reshape(-1)
        starts = np.ones(flat.size, dtype=bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(a.array.shape)
    else:
        d = wrap_dim(dim, a.array.ndim)
        moved = np.moveaxis(a.array, d, 0)
        rows = moved.reshape(moved.shape[0], -1)
        starts = np.ones(rows.shape[0], dtype=bool)
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        values = np.moveaxis(moved[starts], 0, d)
        inverse = np.cumsum(starts) - 1
    positions = np.flatnonzero(starts)
    counts = np.diff(np.append(positions, starts.size))
    out = UniqueConsecutiveBackward0.call(a, values=np.ascontiguousarray(values))
    extra = []
    if return_inverse:
        extra.append(Tensor._wrap(inverse.astype(np.int64)))
    if return_counts:
        extra.append(Tensor._wrap(counts.astype(np.int64)))
    return (out, *extra) if extra else out


RANGE_WARNING = ("UserWarning: torch.range is deprecated and will be removed in a future "
                 "release because its behavior is inconsistent with Python's range builtin. "
                 "Instead, use torch.arange, which produces values in [start, end).")


def torch_range(start: Any, end: Any, step: Any = 1, *, dtype: dtypes.DType | None = None,
                requires_grad: bool = False, device: Any = None, **_: Any) -> Tensor:
    """torch.range (deprecated): end included; each value start + step * i in double."""
    WARNINGS.append(RANGE_WARNING)
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise TorchRuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise TorchRuntimeError("upper bound and lower bound inconsistent with step sign")
    dtype = dtype or dtypes.get_default_dtype()
    count = math.floor((float(end) - float(start)) / float(step)) + 1
    array = float(start) + float(step) * np.arange(count, dtype=np.float64)
    out = Tensor._wrap(array.astype(dtype.np))
    if requires_grad:
        out.requires_grad_()
    return out


TENSOR_METHODS = {"unique_consecutive": unique_consecutive}
TORCH_FUNCTIONS = {
    "combinations": combinations, "trapezoid": trapezoid, "trapz": trapz,
    "cumulative_trapezoid": cumulative_trapezoid, "vander": vander, "isin": isin,
    "range": torch_range,
}
LINALG_FUNCTIONS = {"vander": linalg_vander}
