"""torch.histogram and torch.histogramdd (named tuples hist, bin_edges) as ATen's CPU
histogramdd kernel computes them: edges from linspace over the (given or observed) range in
the input's dtype; an element's bin by binary search of tensor edges, or, for a bin count,
by (elt - left) * bins / (right - left) in the input's dtype corrected by a search of the
neighbouring edges; the last bin includes its right edge; values outside or NaN skipped.
A floating input or weight that requires grad gives outputs of torch's NotImplemented node."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..dtypes import C_TYPE_NAMES
from ..formulas import undefined
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor
from ._util import not_implemented
from .creation import linspace
from .reductions import ReturnTypes


class HistogramReturn(ReturnTypes):
    __slots__ = ()
    type_name = "histogram"
    fields = ("hist", "bin_edges")


class HistogramddReturn(ReturnTypes):
    __slots__ = ()
    type_name = "histogramdd"
    fields = ("hist", "bin_edges")


class HistogramNotImplemented(Function):
    """The outputs of a histogram whose input requires grad: torch::autograd::NotImplemented,
    whose backward raises (`op` names the aten function)."""

    __slots__ = ()
    multi_output = True
    formulas = (undefined("self"),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, *inputs: Any, arrays: list[np.ndarray], op: str) -> list[np.ndarray]:
        self.save_attr(op=op)
        return arrays

    def backward(self, *grads: Tensor) -> Any:
        raise TorchRuntimeError(f"derivative for aten::{self.attrs['op']} is not implemented")


HistogramNotImplemented.__name__ = "NotImplemented"


def _fmt(value: float) -> str:
    """A double as C++'s ostream prints it (6 significant digits)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def _outer_edges(x: np.ndarray, range: Any) -> tuple[list[float], list[float]]:  # noqa: A002
    """select_outer_bin_edges: the given range, else each column's min and max."""
    dims = x.shape[1]
    if range is not None:
        values = [float(v) for v in range]
        if len(values) != 2 * dims:
            raise TorchRuntimeError(
                f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
                f"{2 * dims} elements, but got {len(values)}")
        left, right = values[0::2], values[1::2]
    elif x.shape[0]:
        left = [float(v) for v in x.min(axis=0)]
        right = [float(v) for v in x.max(axis=0)]
        with np.errstate(invalid="ignore"):
            nan = np.isnan(x).any(axis=0)
        left = [math.nan if n else v for v, n in zip(left, nan, strict=True)]
        right = [math.nan if n else v for v, n in zip(right, nan, strict=True)]
    else:
        left, right = [0.0] * dims, [1.0] * dims
    for d in builtin_range(dims):
        lo, hi = left[d], right[d]
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise TorchRuntimeError(f"torch.histogramdd: dimension {d}'s range [{_fmt(lo)}, "
                                    f"{_fmt(hi)}] is not finite")
        if lo > hi:
            raise TorchRuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                                    f"{_fmt(lo)} max {_fmt(hi)} for dimension {d}")
        if lo == hi:
            left[d], right[d] = lo - 0.5, hi + 0.5
    return left, right


builtin_range = range


def _bin_positions(col: np.ndarray, edges: np.ndarray, search: str) -> np.ndarray:
    """Each in-range element's bin: "binary" (tensor edges), "local" (a bin count: the
    linear estimate corrected against the neighbouring edges) or "linear" (histc)."""
    n = edges.size
    if search == "binary":
        pos = np.searchsorted(edges, col, side="right") - 1
    else:
        left, right = edges[0], edges[-1]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            scaled = (col - left) * col.dtype.type(n - 1) / (right - left)
        pos = scaled.astype(np.int64)
        if search == "local":
            lo = np.maximum(pos - 1, 0)
            hi = np.minimum(pos + 2, n)
            count = np.zeros_like(pos)
            for k in builtin_range(3):
                idx = lo + k
                inside = idx < hi
                count += inside & (edges[np.minimum(idx, n - 1)] <= col)
            pos = lo + count - 1
    return np.where(pos == n - 1, pos - 1, pos)


def _histogram_counts(x: np.ndarray, edges: list[np.ndarray], weight: np.ndarray | None,
                      search: str) -> np.ndarray:
    """histogramdd_cpu_contiguous: x is (N, D); one bin per element, summed in x's dtype."""
    shape = tuple(e.size - 1 for e in edges)
    hist = np.zeros(shape, dtype=x.dtype)
    keep = np.ones(x.shape[0], dtype=bool)
    flat = np.zeros(x.shape[0], dtype=np.int64)
    with np.errstate(invalid="ignore"):
        for d, e in enumerate(edges):
            col = x[:, d]
            keep &= (col >= e[0]) & (col <= e[-1])
    for d, e in enumerate(edges):
        pos = _bin_positions(x[keep, d], e, search)
        flat[keep] = flat[keep] * shape[d] + pos
    wt = np.ones(x.shape[0], dtype=x.dtype) if weight is None else weight.astype(x.dtype)
    np.add.at(hist.reshape(-1), flat[keep], wt[keep])
    return hist


def _density(hist: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    """hist / hist.sum(), then / each dim's bin lengths, in the dtype."""
    total = hist.dtype.type(float(hist.sum(dtype=hist.dtype)))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = hist / total
        for d, e in enumerate(edges):
            shape = [1] * hist.ndim
            shape[d] = e.size - 1
            out = out / np.diff(e).reshape(shape)
    return out.astype(hist.dtype)


def _check_bins(bins: list[Any], x: Tensor, name: str) -> None:
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            if b.array.ndim != 1:
                raise TorchRuntimeError(
                    "torch.histogramdd: bins tensor should have one dimension, but got "
                    f"{b.array.ndim} dimensions in the bins tensor for dimension {d}")
            if b.dtype is not x.dtype:
                raise TorchRuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {C_TYPE_NAMES[x.dtype.name]} and bins for "
                    f"dimension {d} with dtype {C_TYPE_NAMES[b.dtype.name]}")
            if b.array.size < 2:
                raise TorchRuntimeError(
                    f"{name}: bins must be > 0, but got {b.array.size - 1} for dimension {d}")
        elif int(b) <= 0:
            raise TorchRuntimeError(f"{name}: bins must be > 0, but got {int(b)} for dimension "
                                    f"{d}")


def _histogramdd(x: Tensor, bins: list[Any], range: Any, weight: Tensor | None,  # noqa: A002
                 density: bool, name: str, search: str) -> tuple[np.ndarray, list[np.ndarray]]:
    if not x.dtype.is_floating_point:
        raise not_implemented("histogramdd", x.dtype)
    if x.array.ndim < 2:
        raise TorchRuntimeError("torch.histogramdd: input tensor should have at least 2 "
                                "dimensions")
    flat = x.array.reshape(-1, x.array.shape[-1])
    _check_bins(bins, x, name)
    if weight is not None and weight.array.shape != x.array.shape[:-1]:
        raise TorchRuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"[{', '.join(map(str, x.array.shape))}] and weight with shape "
            f"[{', '.join(map(str, weight.array.shape))}]")
    if all(isinstance(b, Tensor) for b in bins):
        edges = [b.array for b in bins]
    else:
        left, right = _outer_edges(flat, range)
        cells = 1
        for b in bins:
            cells *= int(b) + 1
        reserve((cells,), 8)
        edges = [linspace(left[d], right[d], int(b) + 1, dtype=x.dtype).array
                 for d, b in enumerate(bins)]
    reserve(tuple(e.size for e in edges), x.array.itemsize)
    w = None if weight is None else weight.array.reshape(-1)
    hist = _histogram_counts(flat, edges, w, search)
    if density:
        hist = _density(hist, edges)
    return hist, edges


def _wrap_outputs(op: str, inputs: list[Tensor | None], arrays: list[np.ndarray]
                  ) -> list[Tensor]:
    given = [t for t in inputs if t is not None]
    if GRAD_MODE.enabled and any(t.requires_grad for t in given):
        return list(HistogramNotImplemented.call(*given, arrays=arrays, op=op))
    return [Tensor._wrap(a) for a in arrays]


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> HistogramReturn:
    x = input.reshape(-1, 1) if input.array.ndim != 2 or input.array.shape[1] != 1 else input
    w = None if weight is None else weight.reshape(-1)
    if isinstance(bins, Tensor):
        hist, edges = _histogramdd(x, [bins], None, w, density, "torch.histogram()", "binary")
    else:
        hist, edges = _histogramdd(x, [bins], range, w, density, "torch.histogram()", "local")
    # torch's NotImplemented node has edges to input and weight, not to a bins tensor
    # (measured: one edge for histogram(x, bins_tensor))
    out = _wrap_outputs("histogram", [input, weight], [hist, edges[0].copy()])
    return HistogramReturn(*out)


def histogramdd(input: Tensor, bins: Any = 10, range: Any = None,  # noqa: A002
                weight: Tensor | None = None, density: bool = False) -> HistogramddReturn:
    dims = input.array.shape[-1] if input.array.ndim else 0
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        bin_list, op, search = list(bins), "_histogramdd_from_bin_tensors", "binary"
    else:
        bin_list = [bins] * dims if not isinstance(bins, (list, tuple)) else list(bins)
        op, search = "_histogramdd_from_bin_cts", "local"
    if input.array.ndim >= 2 and len(bin_list) != dims:
        raise TorchRuntimeError("histogramdd: The size of bins must be equal to the innermost "
                                "dimension of the input.")
    hist, edges = _histogramdd(input, bin_list, range, weight, density, "torch.histogramdd",
                               search)
    inputs = [input] + [b for b in bin_list if isinstance(b, Tensor)] + [weight]
    out = _wrap_outputs(op, inputs, [hist] + [e.copy() for e in edges])
    return HistogramddReturn(out[0], tuple(out[1:]))


def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    """histogram_histc_out: the range given, else the input's min and max (widened by 1 each
    way when they are equal); bins by the plain linear estimate."""
    x = input.array
    if not input.dtype.is_floating_point:
        raise not_implemented("histogram_cpu", input.dtype)
    if int(bins) <= 0:
        raise TorchRuntimeError(f"torch.histogram(): bins must be > 0, but got {int(bins)} for "
                                "dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        shown = ["-nan" if math.isnan(v) else _fmt(v) for v in (lo, hi)]
        raise TorchRuntimeError(f"torch.histc: range of [{shown[0]}, {shown[1]}] is not finite")
    if lo > hi:
        raise TorchRuntimeError("torch.histc: max must be larger than min")
    reserve((int(bins) + 1,), 8)
    edges = linspace(lo, hi, int(bins) + 1, dtype=input.dtype).array
    return Tensor._wrap(_histogram_counts(x.reshape(-1, 1), [edges], None, "linear"))


TENSOR_METHODS: dict[str, Any] = {"histogram": histogram, "histc": histc}
TORCH_FUNCTIONS: dict[str, Any] = {"histogram": histogram, "histogramdd": histogramdd,
                                   "histc": histc}
