"""torch's margin losses: hinge embedding, multi-class and multi-label margins, multi-label
soft margin and the triplet losses.

multi_margin_loss and multilabel_margin_loss are native kernels (LossMultiMargin.cpp,
LossMultiLabelMargin.cpp), reproduced loop for loop since float32 sums depend on the
order; their backward has no derivative in torch (a NotImplemented node under
create_graph). The others are composites, built from the ops torch builds them from so
their graphs show the same nodes.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchValueError
from .. import dtypes
from ..formulas import undefined, vjp
from ..node import Function
from ..tensor import Tensor
from ._util import not_differentiable, not_implemented
from .activations import logsigmoid
from .creation import zeros_like
from .distance import apply_loss_reduction as _reduce
from .distance import pairwise_distance
from .inplace import clamp_min_
from .losses import check_reduction, legacy_reduction, reduction_code
from .pointwise import clamp_min
from .reductions import minimum, where
from .scalar import add_scalar, scalar_sub


def _expect_dtype(t: Tensor, dtype: dtypes.DType) -> None:
    if t.dtype is not dtype:
        raise TorchRuntimeError(f"expected scalar type {dtype.scalar_type} but found "
                                f"{t.dtype.scalar_type}")


def _frames(input: Tensor) -> tuple[int, int]:  # noqa: A002
    """LossMulti.h's shape check: (nframe, dim) of a vector or a matrix of rows."""
    shape = input.shape
    if not ((len(shape) == 2 and shape[1] != 0) or (len(shape) == 1 and shape[0] != 0)
            or len(shape) == 0):
        raise TorchRuntimeError("Expected non-empty vector or matrix with optional 0-dim "
                                f"batch size, but got: {list(shape)}")
    if len(shape) <= 1:
        return 1, 1 if len(shape) == 0 else shape[0]
    return shape[0], shape[1]


# -- hinge_embedding_loss ------------------------------------------------------------------


def torch_hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                               reduction: int = 0) -> Tensor:
    """ATen's composite: where(target != 1, (margin - self).clamp_min_(0), 0)
    + where(target != -1, self, 0), reduced (torch.*'s parser reads the default reduction,
    at::Reduction::Mean, as 0: measured)."""
    zeros = zeros_like(input)
    margin_clamp = clamp_min_(scalar_sub(margin, input), 0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    return torch_hinge_embedding_loss(input, target, margin, reduction_code(reduction))


# -- multi_margin_loss ---------------------------------------------------------------------


class MultiMarginLossBackward0(Function):
    __slots__ = ()
    no_forward_ad = "multi_margin_loss"  # torch has no forward-mode formula (measured)
    formulas = (vjp("self", "multi_margin_loss_backward({grad}, {self}, {target}, {p}, "
                            "{margin}, {weight}, {reduction})"),)

    def forward(self, a: Tensor, target: Tensor, p: int, margin: float,
                weight: Tensor | None, reduction: int) -> np.ndarray:
        self.save_attr(margin=margin, p=p, reduction=reduction)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        nframe, dim = _frames(a)
        x = a.array.reshape(nframe, dim)
        dtype = x.dtype.type
        rows = np.arange(nframe)
        idx = target.array.reshape(nframe)
        w = None if weight is None else weight.array.reshape(dim)[idx]
        # multi_margin_inner_sum_cpu: in the input's dtype, column by column
        start = dtype(margin) - x[rows, idx]
        total = np.zeros(nframe, x.dtype)
        for d in range(dim):
            z = start + x[:, d]
            h = z if p == 1 else z * z
            if w is not None:
                h = h * w
            total = np.where((z > 0) & (idx != d), total + h, total).astype(x.dtype)
        total = (total / dtype(dim)).astype(x.dtype)
        if reduction == 0 and target.ndim > 0:
            return total
        acc = 0.0  # accscalar_t (double on CPU), frame by frame
        for value in total:
            acc += float(value)
        if reduction == 1:
            acc /= nframe
        return np.asarray(acc, x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return MultiMarginLossBackwardNotImplemented.call(
            grad, self.unpack("self"), target=self.unpack("target"), p=a["p"],
            margin=a["margin"], weight=self.unpack("weight"), reduction=a["reduction"])


class MultiMarginLossBackwardNotImplemented(Function):
    """multi_margin_loss_backward has no derivative in torch: under create_graph it records
    torch::autograd::NotImplemented, whose backward raises."""

    __slots__ = ()
    formulas = (undefined("grad_output"), undefined("self"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, grad: Tensor, a: Tensor, target: Tensor, p: int, margin: float,
                weight: Tensor | None, reduction: int) -> np.ndarray:
        nframe, dim = _frames(a)
        x = a.array.reshape(nframe, dim)
        dtype = x.dtype.type
        rows = np.arange(nframe)
        idx = target.array.reshape(nframe)
        g = dtype(1.0 / (nframe * dim) if reduction == 1 else 1.0 / dim)
        w = None if weight is None else weight.array.reshape(dim)[idx]
        out = np.zeros((nframe, dim), x.dtype)
        at_target = np.zeros(nframe, x.dtype)
        start = dtype(margin) - x[rows, idx]
        for d in range(dim):
            z = start + x[:, d]
            h = np.full(nframe, g, x.dtype) if p == 1 else (dtype(2) * g) * z
            if w is not None:
                h = h * w
            live = (z > 0) & (idx != d)
            at_target = np.where(live, at_target - h, at_target).astype(x.dtype)
            out[:, d] = np.where(live, h, 0)
        out[rows, idx] = at_target
        go = grad.array.astype(x.dtype, copy=False)
        scale = go.reshape(-1)[0] if reduction != 0 or grad.ndim == 0 else go.reshape(nframe, 1)
        return (out * scale).astype(x.dtype).reshape(a.shape)

    def backward(self, gg: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::multi_margin_loss_backward is not "
                                "implemented")


MultiMarginLossBackwardNotImplemented.__name__ = "NotImplemented"


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1,  # noqa: A002
                      margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None,
                      reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "multi_margin_loss")
    code = reduction_code(reduction)
    if p not in (1, 2):
        raise TorchValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise TorchValueError("weight must be one-dimensional")
    not_differentiable("multi_margin_loss", "weight", weight)
    nframe, dim = _frames(input)
    if target.ndim > 1 or target.numel() != nframe:
        raise TorchRuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != dim:
        raise TorchRuntimeError(
            f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    if not input.dtype.is_floating_point:
        raise not_implemented("multi_margin_loss_cpu_kernel", input.dtype)
    _expect_dtype(target, dtypes.int64)
    if weight is not None:
        _expect_dtype(weight, input.dtype)
    t = target.array
    if ((t < 0) | (t >= dim)).any():
        raise TorchRuntimeError("target out of range")
    return MultiMarginLossBackward0.call(input, target=target, p=int(p), margin=float(margin),
                                         weight=weight, reduction=code)


# -- multilabel_margin_loss ----------------------------------------------------------------


def _is_target(target: np.ndarray, nframe: int, dim: int) -> tuple[np.ndarray, list[int]]:
    """Each row's targets (those before its first -1) as a 0/1 mask, and their count."""
    rows = target.reshape(nframe, dim)
    mask = np.zeros((nframe, dim), bool)
    counts = []
    for r in range(nframe):
        n = 0
        while n < dim and rows[r, n] >= 0:
            mask[r, rows[r, n]] = True
            n += 1
        counts.append(n)
    return mask, counts


class MultilabelMarginLossBackward0(Function):
    __slots__ = ()
    no_forward_ad = "multilabel_margin_loss_forward"  # torch has no forward-mode formula (measured)
    formulas = (vjp("self", "multilabel_margin_loss_backward({grad}, {self}, {target}, "
                            "{reduction}, {is_target})"),)

    def forward(self, a: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        nframe, dim = _frames(a)
        x = a.array.reshape(nframe, dim)
        mask, counts = _is_target(target.array, nframe, dim)
        is_target = Tensor._wrap(mask.astype(x.dtype).reshape(target.shape))
        self.save("is_target", is_target)
        self.save_attr(reduction=reduction)
        self.save("self", a)
        self.save("target", target)
        one = x.dtype.type(1)
        rows = target.array.reshape(nframe, dim)
        sums = []
        for r in range(nframe):  # multilabel_margin_loss_forward_inner_sum_cpu
            acc = 0.0  # accscalar_t: double
            for dt in range(counts[r]):
                start = one - x[r, rows[r, dt]]
                for d in range(dim):
                    if not mask[r, d]:
                        z = start + x[r, d]
                        if z > 0:
                            acc += float(z)
            sums.append(x.dtype.type(acc))  # returned as scalar_t
        if reduction != 0 or target.ndim <= 1:
            total = 0.0
            for value in sums:
                total += float(value)
            total /= dim
            if reduction == 1:
                total /= nframe
            return np.asarray(total, x.dtype)
        return (np.array(sums, x.dtype) / x.dtype.type(dim)).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return MultilabelMarginLossBackwardNotImplemented.call(
            grad, self.unpack("self"), target=self.unpack("target"),
            reduction=self.attrs["reduction"], is_target=self.unpack("is_target"))


class MultilabelMarginLossBackwardNotImplemented(Function):
    """multilabel_margin_loss_backward has no derivative in torch (NotImplemented)."""

    __slots__ = ()
    formulas = (undefined("grad_output"), undefined("self"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, grad: Tensor, a: Tensor, target: Tensor, reduction: int,
                is_target: Tensor) -> np.ndarray:
        nframe, dim = _frames(a)
        x = a.array.reshape(nframe, dim)
        dtype = x.dtype.type
        mask = is_target.array.reshape(nframe, dim) != 0
        rows = target.array.reshape(nframe, dim)
        g = dtype(1.0 / (nframe * dim) if reduction == 1 else 1.0 / dim)
        out = np.zeros((nframe, dim), x.dtype)
        for r in range(nframe):
            for dt in range(dim):
                k = rows[r, dt]
                if k < 0:
                    break
                start = dtype(1) - x[r, k]
                for d in range(dim):
                    if not mask[r, d] and start + x[r, d] > 0:
                        out[r, k] -= g
                        out[r, d] += g
        go = grad.array.astype(x.dtype, copy=False)
        scale = go.reshape(-1)[0] if reduction != 0 or grad.ndim == 0 else go.reshape(nframe, 1)
        return (out * scale).astype(x.dtype).reshape(a.shape)

    def backward(self, gg: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::multilabel_margin_loss_backward is not "
                                "implemented")


MultilabelMarginLossBackwardNotImplemented.__name__ = "NotImplemented"


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
                           reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "multilabel_margin_loss")
    code = reduction_code(reduction)
    nframe, dim = _frames(input)
    expected = (target.ndim <= 1 and target.numel() == dim) if input.ndim <= 1 else (
        target.ndim == 2 and tuple(target.shape) == (nframe, dim))
    if not expected:
        raise TorchRuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                                f"size: {list(input.shape)}")
    _expect_dtype(target, dtypes.int64)
    t = target.array
    if t.size and (t.min() < -1 or t.max() >= dim):
        raise TorchRuntimeError("argument #2 'target' is out of range")
    if not input.dtype.is_floating_point:
        raise not_implemented("multilabel_margin_loss_forward_out_frame", input.dtype)
    return MultilabelMarginLossBackward0.call(input, target=target, reduction=code)


# -- multilabel_soft_margin_loss -----------------------------------------------------------


def multilabel_soft_margin_loss(input: Tensor, target: Tensor,  # noqa: A002
                                weight: Tensor | None = None, size_average: Any = None,
                                reduce: Any = None, reduction: str = "mean") -> Tensor:
    """torch's Python: -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input)),
    times weight, summed over the class dim / C, then reduced."""
    reduction = legacy_reduction(size_average, reduce, reduction, "multilabel_soft_margin_loss")
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise TorchValueError(f"{reduction} is not valid")
    return _reduce(loss, reduction_code(reduction))


# -- triplet losses ------------------------------------------------------------------------


def _same_ndim(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise TorchRuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs")


def _check_margin(margin: float) -> None:
    if margin <= 0:
        raise TorchValueError(f"margin must be greater than 0, got {margin}")


def torch_triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                              margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                              swap: bool = False, reduction: int = 0) -> Tensor:
    """ATen's composite: clamp_min(margin + d(a, p) - d(a, n), 0) over pairwise distances,
    d(a, n) replaced by min(d(a, n), d(p, n)) with swap."""
    _same_ndim(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(clamp_min(add_scalar(dist_pos, margin) - dist_neg, 0), reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "triplet_margin_loss")
    code = reduction_code(reduction)
    _check_margin(margin)
    return torch_triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, code)


def triplet_margin_with_distance_loss(
        anchor: Tensor, positive: Tensor, negative: Tensor, *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """torch's Python: any distance (pairwise_distance by default), margin + d(a, p) - d(a, n)
    (a Python float added to a tensor), clamped at 0."""
    check_reduction(reduction)
    code = reduction_code(reduction)
    _check_margin(margin)
    _same_ndim(anchor, positive, negative)
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    return _reduce(clamp_min(margin + dist_pos - dist_neg, 0), code)


__all__ = ["hinge_embedding_loss", "torch_hinge_embedding_loss", "multi_margin_loss",
           "multilabel_margin_loss", "multilabel_soft_margin_loss", "triplet_margin_loss",
           "torch_triplet_margin_loss", "triplet_margin_with_distance_loss"]
