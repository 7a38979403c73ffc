"""quantile, nanquantile and nanmedian.

quantile is composite in ATen (Sorting.cpp's quantile_compute): sort, view to (*, n),
gather the values below and above each rank, lerp_ between them, then squeeze_ (or
unsqueeze_/transpose_/squeeze_ for a q tensor). The same ops run here, so the graph has
torch's nodes; the ranks carry no gradient and are computed as ATen computes them, in q's
dtype. nanmedian records its own nodes (NanmedianBackward0/1)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import not_implemented
from .fused import lerp_
from .indexing import gather
from .reductions import EVENLY_DISTRIBUTED, KEEPDIM_SCATTER, _evenly_distribute
from .shape_inplace import squeeze_, transpose_, unsqueeze_
from .sorting import _indices, _named, _Selecting, median_dim, sort
from .std_sort import nth_element_order
from .views import flatten, transpose, unsqueeze, view

NanmedianReturn = _named("nanmedian")
_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _check(a: Tensor, q: Tensor, name: str) -> None:
    if a.array.size == 0:
        raise TorchRuntimeError(f"{name}() input tensor must be non-empty")
    if q.array.ndim > 1:
        raise TorchRuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if a.dtype not in (dtypes.float32, dtypes.float64):
        raise TorchRuntimeError(f"{name}() input tensor must be either float or double dtype")
    if a.dtype is not q.dtype:
        raise TorchRuntimeError(f"{name}() q tensor must be same dtype as the input tensor")


def _output_shape(a: Tensor, q: Tensor, dim: int | None, keepdim: bool, d: int) -> list[int]:
    shape: list[int] = []
    if dim is not None and a.array.ndim > 0:
        shape = list(a.array.shape)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    elif keepdim:
        shape = [1] * a.array.ndim
    if q.array.ndim > 0:
        shape.insert(0, q.array.size)
    return shape


def _quantile(a: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    name = "nanquantile" if ignore_nan else "quantile"
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise TorchRuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        q = Tensor._wrap(np.asarray(q, dtype=a.dtype.np))
    _check(a, q, name)
    if interpolation not in _MODES:
        raise TorchRuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}")
    d = wrap_dim(0 if dim is None else dim, a.array.ndim)
    out_shape = _output_shape(a, q, dim, keepdim, d)
    qa = q.array
    if ((qa < 0) | (qa > 1)).any() or np.isnan(qa).any():
        raise TorchRuntimeError(f"{name}() q values must be in the range [0, 1]")
    if dim is None:
        ordered = sort(flatten(a))[0]
    elif d == a.array.ndim - 1:
        ordered = sort(a)[0]
    else:
        ordered = sort(transpose(unsqueeze(a, -1), d, -1))[0]
    if q.array.ndim == 0:
        out_shape.insert(0, 1)
    in_shape = out_shape[1:] + [0]
    in_shape[-1] = ordered.array.shape[-1]
    ordered = view(ordered, *in_shape)
    values = ordered.array
    last = values.shape[-1] - 1
    if ignore_nan:
        valid = (~np.isnan(values)).sum(-1, keepdims=True) - 1
        ranks = qa * valid.astype(qa.dtype)
        ranks = np.where(ranks < 0, np.zeros((), qa.dtype), ranks)
    else:
        ranks = qa * qa.dtype.type(last)
        ranks, nan = np.broadcast_arrays(ranks, np.isnan(values).any(-1, keepdims=True))
        ranks = np.where(nan, qa.dtype.type(last), ranks)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # round half to even, as ATen's round_
    below = ranks.astype(np.int64)
    result = gather(ordered, -1, Tensor._wrap(below))
    if interpolation in ("linear", "midpoint"):
        weights = (np.full_like(ranks, 0.5) if interpolation == "midpoint"
                   else ranks - below.astype(ranks.dtype))
        above = gather(ordered, -1, Tensor._wrap(np.ceil(ranks).astype(np.int64)))
        result = lerp_(result, above, Tensor._wrap(np.asarray(weights, dtype=qa.dtype)))
    if q.array.ndim == 0:
        return squeeze_(result, -1)
    return squeeze_(transpose_(unsqueeze_(result, 0), 0, -1), -1)


def quantile(a: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    return _quantile(a, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(a: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    return _quantile(a, q, dim, keepdim, interpolation, ignore_nan=True)


class NanmedianBackward0(Function):
    """nanmedian() of all elements: the lower median of the non-NaN values (NaN when all
    are NaN); ties share the gradient evenly."""

    __slots__ = ()
    formulas = EVENLY_DISTRIBUTED

    def forward(self, a: Tensor) -> np.ndarray:
        if a.array.dtype == np.bool_ and a.array.size:
            raise not_implemented("median_cpu", a.dtype)
        self.save("self", a)
        flat = a.array.reshape(-1)
        flat = np.sort(flat[~np.isnan(flat)], kind="stable")
        if flat.size == 0:
            return np.asarray(np.nan, dtype=a.array.dtype)
        return np.asarray(flat[(flat.size - 1) // 2])

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        from .reductions import evenly_read_jvp

        return evenly_read_jvp(t[0], inputs[0], outs[0])

    def backward(self, grad: Tensor) -> Tensor:
        return _evenly_distribute(grad, self.unpack("self"), self.unpack("result"))


class NanmedianBackward1(_Selecting):
    __slots__ = ()
    formulas = KEEPDIM_SCATTER
    keepdim_saved = True


def nanmedian(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        return NanmedianBackward0.call(a)
    d = median_dim(a, dim)
    if a.array.ndim == 0:
        indices = _indices(0)
    else:
        x = a.array
        order = np.argsort(x, axis=d, kind="stable")  # NaNs sort last
        valid = (~np.isnan(x)).sum(axis=d, keepdims=True)
        position = np.maximum(valid - 1, 0) // 2
        idx = np.take_along_axis(order, position, axis=d)
        if (valid == 0).any():
            # its std::nth_element ties non-NaN values by index, so only a row of NaNs (all
            # equivalent) leaves at position 0 an index that depends on the partitions
            idx = np.where(valid == 0, nth_element_order([0] * x.shape[d], 0)[0], idx)
        indices = _indices(idx if keepdim else np.squeeze(idx, d))
    return NanmedianReturn(NanmedianBackward1.call(a, dim=dim, indices=indices, keepdim=keepdim),
                        indices)


TENSOR_METHODS = {"quantile": quantile, "nanquantile": nanquantile, "nanmedian": nanmedian}
