"""F.pdist / torch.pdist: the p-norm distance between every pair of rows (i < j) of a 2-D
input, one PdistBackward0 node (saves self, p and the result).

Values follow ATen's DistanceOpsKernel.cpp: each distance is map2_reduce_all over the row
(|a - b| mapped by p, whole vectors reduced lane-wise, the partial last vector into its lanes,
then the lanes' shuffle tree) and finished (sqrt for p = 2, the 1/p power in general);
the backward walks the columns, giving row i the pairs (i, j > i) in order after the
pairs (i' < i, i) subtracted from it before, as backward_down_column_pdist does.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import exactness
from ..formulas import undefined, vjp
from ..node import Function
from ..reduction_order import lane_sum, lanes, seq_sum
from ..tensor import Tensor
from ._util import no_derivative
from .clones import contiguous


def _map(diff: np.ndarray, p: float) -> np.ndarray:
    if p == 0:
        return (diff != 0).astype(diff.dtype)
    if p == 1:
        return diff
    if p == 2:
        return diff * diff
    if math.isinf(p):
        return diff
    return np.power(diff, diff.dtype.type(p))


def _reduce(acc: np.ndarray, up: np.ndarray, p: float) -> np.ndarray:
    return np.maximum(acc, up) if math.isinf(p) else acc + up


def _map_reduce_all(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    """vec::map2_reduce_all over the last axis of (pairs, m) rows."""
    size = a.shape[-1]
    width = lanes(a.dtype)
    mapped = _map(np.abs(a - b), p)
    if size < width:
        if math.isinf(p):
            return mapped.max(-1) if size else np.zeros(a.shape[:-1], a.dtype)
        return seq_sum(mapped) if size else np.zeros(a.shape[:-1], a.dtype)
    whole = size // width
    acc = mapped[..., :width].copy()
    for k in range(1, whole):
        acc = _reduce(acc, mapped[..., k * width:(k + 1) * width], p)
    tail = size - whole * width
    if tail:
        acc[..., :tail] = _reduce(acc[..., :tail], mapped[..., whole * width:], p)
    if math.isinf(p):
        return acc.max(-1)
    return lane_sum(acc)


def _finish(agg: np.ndarray, p: float) -> np.ndarray:
    if p == 2:
        return np.sqrt(agg)
    if p in (0, 1) or math.isinf(p):
        return agg
    exactness.note("pdist with p other than 0, 1, 2 or inf: numpy's pow, not glibc's")
    return np.power(agg, agg.dtype.type(1 / p))


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, 1)
    return i, j


class PdistBackward0(Function):
    """_pdist_forward(self, p)."""

    __slots__ = ()
    no_forward_ad = "_pdist_forward"  # torch has no forward-mode formula (measured)
    formulas = (vjp("self", "_pdist_backward({grad}, {self}, {p}, {result})"),)

    def forward(self, x: Tensor, p: float) -> np.ndarray:
        self.save_attr(p=float(p))
        self.save("self", x)
        a = x.array
        i, j = _pairs(a.shape[0])
        with np.errstate(all="ignore"):
            out = _finish(_map_reduce_all(a[i], a[j], p), p).astype(a.dtype)
        return out

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        """derivatives.yaml: self: _pdist_backward(grad, self, p, result)."""
        return PdistBackwardBackward0.call(grad, self.unpack("self"), self.unpack("result"),
                                           p=self.attrs["p"])


class PdistBackwardBackward0(Function):
    """_pdist_backward(grad, self, p, pdist): derivatives.yaml has
    `not_implemented("_pdist_backward")`, so the node is recorded under create_graph and its
    own backward raises."""

    __slots__ = ()
    no_forward_ad = "_pdist_backward"  # torch has no forward-mode formula (measured)
    formulas = (undefined("grad"), undefined("self"), undefined("pdist"))

    def forward(self, grad: Tensor, x_: Tensor, pdist: Tensor, p: float) -> np.ndarray:
        x, dist = x_.array, pdist.array
        g = np.asarray(grad.array, x.dtype)
        n = x.shape[0]
        res = np.zeros_like(x)
        if p == 0 or n <= 1:
            return res
        t = x.dtype.type
        k = 0
        with np.errstate(all="ignore"):
            for i in range(n - 1):
                acc = res[i].copy()
                for j in range(i + 1, n):
                    diff = x[i] - x[j]
                    gk, dk = g[k], dist[k]
                    if p == 1:
                        term = gk * np.sign(diff)
                    elif p == 2:
                        term = (gk * diff) / dk if dk != 0 else np.zeros_like(diff)
                    elif math.isinf(p):
                        term = gk * np.sign(diff) * (np.abs(diff) == dk)
                    elif p < 1:
                        term = np.where(diff == 0, t(0), np.sign(diff) * np.power(
                            np.abs(diff), t(p - 1)) * gk / np.power(dk, t(p - 1)))
                    else:
                        term = np.zeros_like(diff) if dk == 0 else diff * np.power(
                            np.abs(diff), t(p - 2)) * gk / np.power(dk, t(p - 1))
                    acc = acc + term.astype(x.dtype)
                    res[j] = res[j] - term.astype(x.dtype)
                    k += 1
                res[i] = acc
        if p not in (1, 2) and not math.isinf(p):
            exactness.note("pdist's backward with p other than 1, 2 or inf: numpy's pow")
        return res

    def backward(self, grad: Tensor) -> Tensor:
        raise no_derivative("_pdist_backward")


def pdist(input: Tensor, p: Any = 2) -> Tensor:  # noqa: A002
    """F.pdist / torch.pdist: (n * (n - 1) / 2,) distances, rows i < j in order."""
    if input.ndim != 2:
        raise TorchRuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise TorchRuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise TorchRuntimeError("pdist only supports non-negative p values")
    return PdistBackward0.call(contiguous(input), p=float(p))
