"""Similarities and distances: F.normalize, F.cosine_similarity, F.pairwise_distance, and
the losses built on them (F.margin_ranking_loss, F.cosine_embedding_loss), each composed
of the ops ATen composes it of, so the graphs match."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..grad_mode import GRAD_MODE
from ..shapes import broadcast_shapes, wrap_dim
from ..tensor import Tensor, bump_version
from .clones import clone, to
from .losses import legacy_reduction, reduction_code
from .norms import LinalgVectorNormBackward0, vector_norm
from .pointwise import clamp_min
from .reductions import where
from .scalar import add_scalar, scalar_sub, sub_scalar
from .views import ExpandBackward0


class NormBackward1(LinalgVectorNormBackward0):
    """at::norm(self, p, dim, keepdim): what pairwise_distance records."""

    __slots__ = ()
    # the vector norm's formulas, with the order saved as `p`
    formulas = tuple(replace(f, math=f.math.replace("{ord}", "{p}"),
                             when=tuple(("p" if k == "ord" else k, v) for k, v in f.when))
                     for f in LinalgVectorNormBackward0.formulas)

    def forward(self, a: Tensor, p: Any, dim: tuple[int, ...], keepdim: bool) -> np.ndarray:
        out = super().forward(a, ord=p, dim=dim, keepdim=keepdim)
        if self.recording:  # a node that records nothing was never set up
            self.attrs["p"] = float(self.attrs.pop("ord"))
        return out


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,  # noqa: A002
              out: Any = None) -> Tensor:
    """torch: input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input); with
    `out`, torch.div into it (what spectral_norm's power iteration updates its u and v by)."""
    from .arithmetic import div
    from .inplace import clamp_min_
    from .out import call_with_out

    norm = vector_norm(input, p, dim, True)
    denom = clamp_min(norm, eps) if out is None else clamp_min_(norm, eps)
    if denom.shape != input.shape:
        denom = ExpandBackward0.call(denom, shape=input.shape)
    if out is None:
        return input / denom
    return call_with_out("div", div, (input, denom), {}, out)


def clamp_min_quietly(t: Tensor, eps: float) -> None:
    """`t.clamp_min_(eps)` under no_grad: the data changes and the version moves on."""
    previous = GRAD_MODE.enabled
    GRAD_MODE.enabled = False
    try:
        np.maximum(t.array, np.asarray(eps, t.array.dtype), out=t.array)
        bump_version(t)
    finally:
        GRAD_MODE.enabled = previous


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """ATen's cosine_similarity: each input divided by its (cloned, clamped) norm, then the
    sum of their product."""
    common = dtypes.result_type([(x1.dtype, x1.ndim), (x2.dtype, x2.ndim)], [])
    if not common.is_floating_point:
        raise TorchRuntimeError("expected common dtype to be floating point, yet common dtype "
                                f"is {common.scalar_type}")
    # integral (and bool) inputs are cast to the common dtype, which vector_norm takes
    x1, x2 = (x if x.dtype.is_floating_point else to(x, dtype=common) for x in (x1, x2))
    if x1.shape != x2.shape:  # expand_outplace: both, unless they already agree
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1 = ExpandBackward0.call(x1, shape=shape)
        x2 = ExpandBackward0.call(x2, shape=shape)
    n1 = clone(vector_norm(x1, 2, dim, True))
    n2 = clone(vector_norm(x2, 2, dim, True))
    clamp_min_quietly(n1, eps)
    clamp_min_quietly(n2, eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """ATen: at::norm(x1 - x2 + eps, p, innermost dim, keepdim) (NormBackward1)."""
    ndim = max(x1.ndim, x2.ndim)
    diff = add_scalar(x1 - x2, eps)
    return NormBackward1.call(diff, p=p, dim=(ndim - 1,), keepdim=keepdim)


def apply_loss_reduction(t: Tensor, code: int) -> Tensor:
    """ATen's apply_loss_reduction: the loss's mean() (1), sum() (2) or the loss itself."""
    if code == 1:
        return t.mean()
    if code == 2:
        return t.sum()
    return t


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "margin_ranking_loss")
    return torch_margin_ranking_loss(input1, input2, target, margin,
                                     reduction_code(reduction))


def torch_margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor,
                              margin: float = 0.0, reduction: int = 0) -> Tensor:
    """ATen: (-target * (input1 - input2) + margin).clamp_min_(0), reduced (torch.*'s
    parser reads the default reduction, at::Reduction::Mean, as 0: measured)."""
    from .inplace import clamp_min_

    if not (input1.ndim == input2.ndim == target.ndim):
        raise TorchRuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {list(input1.shape)}, input2: {list(input2.shape)}, target: "
            f"{list(target.shape)} ")
    out = clamp_min_(add_scalar(-target * (input1 - input2), margin), 0)
    return apply_loss_reduction(out, reduction)


_EPSILON = 1e-12


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                          margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "cosine_embedding_loss")
    return torch_cosine_embedding_loss(input1, input2, target, margin,
                                       reduction_code(reduction))


def torch_cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                                margin: float = 0.0, reduction: int = 0) -> Tensor:
    """ATen's cosine_embedding_loss, op for op (torch.*'s default reduction reads as 0)."""
    from .creation import zeros_like
    from .inplace import INPLACE_METHODS, clamp_min_

    d = target.ndim
    if input1.ndim != d + 1 or input2.ndim != d + 1:
        raise TorchRuntimeError(
            f"{d + 1}D target tensor expects {d + 1}D input tensors, but found inputs with "
            f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    dim = wrap_dim(d, input1.ndim)
    prod_sum = (input1 * input2).sum(dim)
    mag1 = add_scalar((input1 * input1).sum(dim), _EPSILON)
    mag2 = add_scalar((input2 * input2).sum(dim), _EPSILON)
    denom = INPLACE_METHODS["sqrt_"](mag1 * mag2)
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = scalar_sub(1, cos)
    neg = clamp_min_(sub_scalar(cos, margin), 0)
    out = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return apply_loss_reduction(out, reduction)


__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "margin_ranking_loss",
           "cosine_embedding_loss", "torch_margin_ranking_loss", "torch_cosine_embedding_loss",
           "apply_loss_reduction", "clamp_min_quietly"]
