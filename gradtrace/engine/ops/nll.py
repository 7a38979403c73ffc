"""nll_loss (1-D/2-D: NllLossBackward0; 4-D: NllLoss2DBackward0; 3-D and 5-D+ through a
view to 4-D, as torch's nll_loss_nd), cross_entropy (class indices or probabilities, with
label_smoothing, built from the ops torch builds it from) and kl_div."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchValueError
from .. import dtypes
from .. import reduction_kernels as kernels
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..node import FREED_MESSAGE, Function
from ..tensor import Tensor
from ._util import not_differentiable
from .losses import MEAN, legacy_reduction, reduction_code
from .scalar import DivBackward1, add_scalar, mul_scalar
from .softmax import LogSoftmaxBackward0
from .views import saved_int, signed, warn


def _rows(x: np.ndarray) -> np.ndarray:
    """Scores as (samples, classes): (C,) -> (1, C), (N, C), (N, C, H, W) -> (N*H*W, C)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim == 2:
        return x
    return np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])


def _unrows(rows: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if len(shape) <= 2:
        return rows.reshape(shape)
    moved = rows.reshape((shape[0],) + tuple(shape[2:]) + (shape[1],))
    return np.moveaxis(moved, -1, 1)


class NllLossBackward0(Function):
    """nll_loss for (N, C) or (C,) input; `total_weight` is saved as torch does."""

    __slots__ = ()
    jvp = auto_linear  # std::get<0>(nll_loss_forward(self_t, target, weight, ...))
    formulas = (local("self", "-1 / {total_weight} if class == {target} else 0",
                      when=MEAN + (('weight', None),)),
                local("self", "-{weight}[{target}] / {total_weight} if class == {target} else 0",
                      when=MEAN),
                local("self", "-1 if class == {target} else 0", when=(("weight", None),)),
                local("self", "-{weight}[{target}] if class == {target} else 0"))

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                ignore_index: int) -> np.ndarray:
        x = a.array
        t_ = target.array
        classes = x.shape[-1] if x.ndim == 1 else x.shape[1]
        given = None if weight is None else self._weight_values(weight, classes)
        if weight is not None and weight.dtype is not a.dtype:  # weight.const_data_ptr<scalar_t>
            raise TorchRuntimeError(f"expected scalar type {a.dtype.scalar_type} but found "
                                    f"{weight.dtype.scalar_type}")
        rows = _rows(x)
        tflat = t_.reshape(-1)
        valid = tflat != ignore_index
        bad = tflat[valid & ((tflat < 0) | (tflat >= classes))]
        if bad.size:
            raise TorchIndexError(f"Target {int(bad[0])} is out of bounds.")
        safe = np.where(valid, tflat, 0)
        w = np.ones(classes, dtype=x.dtype) if given is None else given
        wi = np.where(valid, w[safe], 0).astype(x.dtype)
        picked = rows[np.arange(rows.shape[0]), safe]
        losses = -picked * wi
        total = np.zeros((), x.dtype)
        index = np.flatnonzero(valid)
        if reduction != 0:
            total = np.asarray(self._sum(wi[index], index, rows.shape[0]) if weight is not None
                               else index.size, x.dtype)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save("total_weight", Tensor._wrap(total))
        self.save_attr(ignore_index=saved_int(ignore_index), reduction=reduction)
        if reduction == 0:
            return losses.reshape(t_.shape).astype(x.dtype)
        # LossNLL.cpp: `loss -= data * weight` (the product rounded; no FMA in that file)
        terms = -(picked * wi)[index] if weight is not None else -picked[index]
        out = self._sum(terms, index, rows.shape[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(out / total if reduction == 1 else out, dtype=x.dtype)

    @staticmethod
    def _weight_values(weight: Tensor, classes: int) -> np.ndarray:
        """nll_loss's check: a 1-D weight of one value per class."""
        if weight.array.shape != (classes,):
            raise TorchRuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no "
                f"classes but got weight tensor of shape: "
                f"[{', '.join(map(str, weight.array.shape))}]")
        return weight.array

    @staticmethod
    def _sum(terms: np.ndarray, index: np.ndarray, batch: int) -> np.ndarray:
        """nll_loss_out_frame's cascade of partial sums over the batch."""
        return kernels.nll_cascade(terms, index, batch)

    def backward(self, grad: Tensor) -> Tensor:
        x, target = self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        ignore = signed(self.attrs["ignore_index"])
        arr = x.array
        classes = arr.shape[-1] if arr.ndim == 1 else arr.shape[1]
        tflat = target.array.reshape(-1)
        valid = tflat != ignore
        safe = np.where(valid, tflat, 0)
        w = np.ones(classes, dtype=arr.dtype) if weight is None else weight.array.reshape(-1)
        picked = np.zeros((tflat.size, classes), dtype=arr.dtype)
        picked[np.arange(tflat.size), safe] = np.where(valid, w[safe], 0)
        picked_t = Tensor._wrap(_unrows(picked, arr.shape).astype(arr.dtype))
        return _BACKWARD[type(self)].call(grad, x, picked=picked_t, target=target, weight=weight,
                                          reduction=reduction,
                                          ignore_index=self.attrs["ignore_index"],
                                          total_weight=self.unpack("total_weight"))


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss2d: (N, C, H, W) scores, (N, H, W) targets; nll_loss2d_forward_out_frame
    sums with nll_loss's cascade over the N x H x W positions (measured)."""

    __slots__ = ()

    @staticmethod
    def _weight_values(weight: Tensor, classes: int) -> np.ndarray:
        """nll_loss2d's check counts the weight's elements only (a (C, 1) weight serves)."""
        if weight.array.size != classes:
            raise TorchRuntimeError("weight tensor should be defined either for all or no "
                                    "classes")
        return weight.array.reshape(-1)


class NllLossBackwardBackward0(Function):
    """nll_loss's backward as an op (inputs grad_output, self), for create_graph: linear in
    grad_output, and zero towards self (which still makes the result require grad).
    Saves what torch shows (ignore_index, reduction, target, weight); the per-element
    coefficients it multiplies by are kept aside. Values as nll_loss_backward_out_frame:
    `weight[t] * -(grad / total_weight)` at each target (mean), `weight[t] * -grad` else."""

    __slots__ = ("coeff",)
    jvp = auto_linear  # linear in grad_output (torch decomposes it for jvp)
    formulas = (vjp("grad_output", "({grad} × ∂nll/∂{self}).sum(-1)"),
                local("self", "0"))

    def forward(self, grad: Tensor, x: Tensor, picked: Tensor, target: Tensor,
                weight: Tensor | None, reduction: int, ignore_index: int,
                total_weight: Tensor) -> np.ndarray:
        dtype = x.array.dtype
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total_weight.array
            self.coeff = Tensor._wrap((-picked.array / total if reduction == 1
                                       else -picked.array).astype(dtype))
            self.save("target", target)
            self.save("weight", weight)
            self.save_attr(ignore_index=ignore_index, reduction=reduction)
            g = grad.array.astype(dtype, copy=False)
            if reduction == 0 and x.array.ndim >= 2:
                g = np.expand_dims(g, 1)
            scaled = -(g / total) if reduction == 1 else -g
            return np.where(picked.array != 0, picked.array * scaled, 0).astype(dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        if self.released:
            raise TorchRuntimeError(FREED_MESSAGE)
        coeff = self.coeff
        g_grad = None
        if self.needs_input_grad(0):
            prod = gg * coeff
            g_grad = prod.sum(1) if tuple(self.input_meta[0][0]) and prod.ndim >= 2 else prod.sum()
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    __slots__ = ()


_BACKWARD = {NllLossBackward0: NllLossBackwardBackward0,
             NllLoss2DBackward0: NllLoss2DBackwardBackward0}


def _check_target_dtype(target: Tensor) -> None:
    """The kernels' target dtype check, after nll_loss_nd's and the meta functions' shape
    checks (a 2-D Float target is "multi-target not supported", measured)."""
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise TorchRuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_type}")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "nll_loss")
    code = reduction_code(reduction)
    ndim = input.array.ndim
    if ndim < 1:
        raise TorchValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1 and input.array.shape[0] != (target.array.shape[0] if target.array.ndim
                                              else 0):
        got = target.array.shape[0] if target.array.ndim else 0
        raise TorchValueError(
            f"Expected input batch_size ({input.array.shape[0]}) to match target batch_size "
            f"({got}).")
    if ndim <= 2:
        not_differentiable("nll_loss_forward", "weight", weight)
        if target.array.ndim > 1:
            raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
        _check_target_dtype(target)
        if ndim == 1 and target.array.ndim == 1 and target.array.shape[0] != 1:
            raise TorchValueError(
                f"For 1D input, 1D target must have size 1, but got target size: "
                f"{target.array.shape[0]}")
        return NllLossBackward0.call(input, target=target, weight=weight, reduction=code,
                                     ignore_index=ignore_index)
    n, c = input.array.shape[:2]
    out_size = (n,) + tuple(input.array.shape[2:])
    if ndim == 4:
        not_differentiable("nll_loss2d_forward", "weight", weight)
        if target.array.ndim != 3:
            raise TorchRuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {target.array.ndim}")
        if tuple(target.array.shape) != out_size:
            raise TorchRuntimeError(
                f"size mismatch (got input: [{', '.join(map(str, input.shape))}] , target: "
                f"[{', '.join(map(str, target.shape))}]")
        _check_target_dtype(target)
        return NllLoss2DBackward0.call(input, target=target, weight=weight, reduction=code,
                                       ignore_index=ignore_index)
    if tuple(target.array.shape[1:]) != tuple(input.array.shape[2:]):
        raise TorchRuntimeError(
            f"Expected target size [{', '.join(map(str, out_size))}], got "
            f"[{', '.join(map(str, target.shape))}]")
    not_differentiable("nll_loss2d_forward", "weight", weight)
    _check_target_dtype(target)
    x4 = input.contiguous().view(n, c, 1, -1)
    t3 = target.contiguous().view(n, 1, -1)
    out = NllLoss2DBackward0.call(x4, target=t3, weight=weight, reduction=code,
                                  ignore_index=ignore_index)
    return out if code != 0 else out.view(out_size)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "cross_entropy")
    code = reduction_code(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise TorchRuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.array.ndim == 1 else 1
    logp = LogSoftmaxBackward0.call(input, dim=class_dim)
    if target.shape == input.shape:  # torch: same shapes mean class probabilities
        return _cross_entropy_probabilities(logp, target, weight, code, class_dim,
                                            label_smoothing)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return loss
    return _label_smoothing(logp, loss, target, weight, code, class_dim, ignore_index,
                            label_smoothing)


def _cross_entropy_probabilities(logp: Tensor, target: Tensor, weight: Tensor | None,
                                 code: int, class_dim: int, smoothing: float) -> Tensor:
    if not target.dtype.is_floating_point:
        raise TorchRuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{target.dtype.scalar_type}")
    classes = logp.shape[class_dim]
    if smoothing > 0.0:  # torch: target * (1 - label_smoothing) + label_smoothing / n
        target = add_scalar(mul_scalar(target, 1 - smoothing), smoothing / classes)
    prod = logp * target if weight is None else logp * target * weight.view(
        (-1,) + (1,) * (logp.ndim - 2))
    if code == 0:
        return -prod.sum(class_dim)
    total = -prod.sum()
    if code == 2:
        return total
    batch = logp.shape[0] if logp.ndim > 1 else 1
    return DivBackward1.call(total, other=batch)


def _label_smoothing(logp: Tensor, nll: Tensor, target: Tensor, weight: Tensor | None,
                     code: int, class_dim: int, ignore_index: int, smoothing: float) -> Tensor:
    """torch's cross_entropy_loss_label_smoothing, op for op."""
    from .indexing import masked_fill_

    classes = logp.shape[class_dim]
    ignore_mask = target == ignore_index
    if weight is not None:
        shape = [1] * logp.ndim
        shape[class_dim] = weight.shape[0]
        smooth = -(logp * weight.view(tuple(shape))).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = masked_fill_(smooth, ignore_mask, 0.0)
    if code == 1:
        if weight is not None:
            from .indexing import gather

            kept = Tensor._wrap(target.array[~ignore_mask.array].reshape(-1))
            ret = smooth.sum() / gather(weight, 0, kept).sum()
        else:
            ret = smooth.sum() / (~ignore_mask).sum()
    elif code == 2:
        ret = smooth.sum()
    else:
        ret = smooth
    return mul_scalar(nll, 1 - smoothing) + mul_scalar(ret, smoothing / classes)


KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def kl_div(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
           reduce: Any = None, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """torch.nn.functional.kl_div over ATen's composite kl_div."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction, "kl_div")
    elif reduction == "mean":
        warn(KL_MEAN_WARNING)
    code = 2 if reduction == "batchmean" else reduction_code(reduction)
    out = torch_kl_div(input, target, code, log_target=log_target)
    if reduction == "batchmean" and input.ndim != 0:
        out = out / input.shape[0]
    return out


def torch_kl_div(input: Tensor, target: Tensor, reduction: int = 0,  # noqa: A002
                 *, log_target: bool = False) -> Tensor:
    """ATen's composite kl_div (torch.kl_div: reduction as Reduction's int; the parser
    reads the default, at::Reduction::Mean, as 0, measured)."""
    # (complex operands, which torch checks first, are refused before this)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):  # bool too
        raise TorchRuntimeError("kl_div: Integral inputs not supported.")
    # ATen's `exp(target) * (target - input)` / `xlogy(target, target) - target * input`:
    # GCC evaluates the operator's right operand first, which orders the backward nodes
    # (sequence numbers) and so the order the target's gradients are summed in
    if log_target:
        diff = target - input
        out = target.exp() * diff
    else:
        from .pointwise import xlogy

        prod = target * input
        out = xlogy(target, target) - prod
    if reduction == 1:
        return out.mean()
    if reduction == 2:
        return out.sum()
    return out


__all__ = ["nll_loss", "cross_entropy", "kl_div", "torch_kl_div"]
