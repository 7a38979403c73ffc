"""torch.nn.functional's losses, recording torch's nodes.

Composite losses (l1_loss, cross_entropy) are built from the ops torch builds them from,
so their graphs show the same chain of nodes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchIndexError, TorchRuntimeError, TorchValueError
from .. import dtypes
from ..node import FREED_MESSAGE, Function
from ..shapes import Size, broadcast_shapes
from ..tensor import Tensor
from ._util import cast, not_implemented
from .nn import LogSoftmaxBackward0
from .scalar import DivBackward1, add_scalar, div_scalar, mul_scalar
from .views import ExpandBackward0, saved_int, signed, warn

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def reduction_code(reduction: str) -> int:
    """torch's Reduction enum for a reduction string (its message for a bad one)."""
    if reduction not in REDUCTIONS:
        raise TorchValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


# -- losses ------------------------------------------------------------------------------


def _size_warning(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if target.shape != input.shape:
        warn(f"Using a target size ({Size(target.shape)!r}) that is different to the input size "
             f"({Size(input.shape)!r}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.")


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    shape = broadcast_shapes(a.shape, b.shape)
    if a.shape != shape:
        a = ExpandBackward0.call(a, shape=shape)
    if b.shape != shape:
        b = ExpandBackward0.call(b, shape=shape)
    return a, b


def _reduce(loss: np.ndarray, reduction: int) -> np.ndarray:
    if reduction == 1:
        return np.asarray(np.mean(loss), dtype=loss.dtype)
    if reduction == 2:
        return np.asarray(np.sum(loss), dtype=loss.dtype)
    return loss


def _scale_grad(grad: Tensor, reduction: int, numel: int) -> Tensor:
    return div_scalar(grad, numel) if reduction == 1 else grad  # torch: grad_input.div_(numel)


class MseLossBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        dtype = dtypes.promote(a.dtype, target.dtype)
        if not dtype.is_floating_point:
            raise not_implemented("mse_cpu", dtype)
        self.save("self", a)
        self.save("target", target)
        self.save_attr(reduction=reduction)
        diff = cast(a.array, dtype) - cast(target.array, dtype)
        return _reduce(diff * diff, reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, target = self.unpack("self"), self.unpack("target")
        reduction = self.attrs["reduction"]
        g_x = g_t = None
        if self.needs_input_grad(0):
            g_x = MseLossBackwardBackward0.call(grad, x, target, reduction=reduction)
        if self.needs_input_grad(1):  # torch: mse_loss_backward(grad, target, self, reduction)
            g_t = MseLossBackwardBackward0.call(grad, target, x, reduction=reduction)
        return g_x, g_t


class MseLossBackwardBackward0(Function):
    """mse_loss_backward(grad_output, self, target, reduction) as an op, for create_graph."""

    __slots__ = ()

    def forward(self, grad: Tensor, x: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("target", target)
        self.save_attr(reduction=reduction)
        dtype = x.array.dtype
        out = 2 * (x.array - target.array) * grad.array
        if reduction == 1:
            out = out / x.array.size
        return np.asarray(out, dtype=dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        grad, x, target = (self.unpack("grad_output"), self.unpack("self"),
                           self.unpack("target"))
        reduction = self.attrs["reduction"]
        g_grad = g_x = g_t = None
        if self.needs_input_grad(0):  # torch's mse_loss_double_backward_grad_output
            if reduction == 0:
                g_grad = MseLossBackwardBackward0.call(gg, x, target, reduction=reduction)
            else:
                from .creation import ones_like

                r = MseLossBackwardBackward0.call(ones_like(grad), x, target, reduction=reduction)
                g_grad = (r * gg).sum()
        if self.needs_input_grad(1) or self.needs_input_grad(2):
            both = mul_scalar(gg * grad, 2)  # torch's mse_loss_double_backward
            if reduction == 1:
                both = div_scalar(both, x.array.size)
            g_x = both if self.needs_input_grad(1) else None
            g_t = -both if self.needs_input_grad(2) else None
        return g_grad, g_x, g_t


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
             reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    _size_warning(input, target)
    code = reduction_code(reduction)
    a, b = _broadcast_pair(input, target)
    return MseLossBackward0.call(a, b, reduction=code)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
            reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Composite in torch: (input - target).abs() then mean / sum."""
    _size_warning(input, target)
    code = reduction_code(reduction)
    a, b = _broadcast_pair(input, target)
    loss = (a - b).abs()
    if code == 1:
        return loss.mean()
    if code == 2:
        return loss.sum()
    return loss


class NllLossBackward0(Function):
    """nll_loss for (N, C) or (C,) input; `total_weight` is saved as torch does."""

    __slots__ = ()

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                ignore_index: int) -> np.ndarray:
        x = a.array
        t_ = target.array
        classes = x.shape[-1] if x.ndim == 1 else x.shape[1]
        if weight is not None and weight.array.shape != (classes,):
            raise TorchRuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no "
                f"classes but got weight tensor of shape: "
                f"[{', '.join(map(str, weight.array.shape))}]")
        rows = x.reshape(1, -1) if x.ndim == 1 else x
        tflat = t_.reshape(-1)
        valid = tflat != ignore_index
        bad = tflat[valid & ((tflat < 0) | (tflat >= classes))]
        if bad.size:
            raise TorchIndexError(f"Target {int(bad[0])} is out of bounds.")
        safe = np.where(valid, tflat, 0)
        w = np.ones(classes, dtype=x.dtype) if weight is None else weight.array
        wi = np.where(valid, w[safe], 0).astype(x.dtype)
        picked = rows[np.arange(rows.shape[0]), safe]
        losses = -wi * picked
        total = np.asarray(wi.sum(), dtype=x.dtype) if reduction != 0 else np.zeros((), x.dtype)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save("total_weight", Tensor._wrap(total))
        self.save_attr(ignore_index=saved_int(ignore_index), reduction=reduction)
        if reduction == 0:
            return losses.reshape(t_.shape).astype(x.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = losses.sum() / total if reduction == 1 else losses.sum()
        return np.asarray(out, dtype=x.dtype)

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
        w = np.ones(classes, dtype=arr.dtype) if weight is None else weight.array
        coeff = np.zeros((tflat.size, classes), dtype=arr.dtype)
        coeff[np.arange(tflat.size), safe] = np.where(valid, -w[safe], 0)
        if reduction == 1:
            with np.errstate(invalid="ignore", divide="ignore"):
                coeff = coeff / self.unpack("total_weight").array
        coeff_t = Tensor._wrap(coeff.reshape(arr.shape).astype(arr.dtype))
        return NllLossBackwardBackward0.call(grad, x, coeff=coeff_t, target=target, weight=weight,
                                             reduction=reduction,
                                             ignore_index=self.attrs["ignore_index"])


class NllLossBackwardBackward0(Function):
    """nll_loss's backward as an op (inputs grad_output, self), for create_graph: linear in
    grad_output, and zero towards self (which still makes the result require grad).
    Saves what torch shows (ignore_index, reduction, target, weight); the per-element
    coefficients it multiplies by are kept aside."""

    __slots__ = ("coeff",)

    def forward(self, grad: Tensor, x: Tensor, coeff: Tensor, target: Tensor,
                weight: Tensor | None, reduction: int, ignore_index: int) -> np.ndarray:
        self.coeff = coeff
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(ignore_index=ignore_index, reduction=reduction)
        g = grad.array
        if reduction == 0 and x.array.ndim == 2:
            g = g[:, None]
        return (g * coeff.array).astype(x.array.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        if self.released:
            raise TorchRuntimeError(FREED_MESSAGE)
        coeff = self.coeff
        g_grad = None
        if self.needs_input_grad(0):
            prod = gg * coeff
            g_grad = prod.sum(1) if tuple(self.input_meta[0][0]) and prod.ndim == 2 else prod.sum()
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    code = reduction_code(reduction)
    if input.array.ndim < 1:
        raise TorchValueError(f"Expected 1 or more dimensions (got {input.array.ndim})")
    if input.array.ndim > 2:
        raise NotSupportedError("nll_loss / cross_entropy on inputs of more than 2 dimensions "
                                "is not supported by gradtrace")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise TorchRuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.tensor_type[:-6]}")
    if target.array.ndim > 1 and input.array.ndim == 1:
        raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.array.ndim == 1 and target.array.ndim == 1 and target.array.shape[0] != 1:
        raise TorchValueError(
            f"For 1D input, 1D target must have size 1, but got target size: "
            f"{target.array.shape[0]}")
    if input.array.ndim == 2 and (target.array.ndim != 1
                                  or target.array.shape[0] != input.array.shape[0]):
        got = target.array.shape[0] if target.array.ndim else 0
        raise TorchValueError(
            f"Expected input batch_size ({input.array.shape[0]}) to match target batch_size "
            f"({got}).")
    return NllLossBackward0.call(input, target=target, weight=weight, reduction=code,
                                 ignore_index=ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    code = reduction_code(reduction)
    if label_smoothing:
        raise NotSupportedError("cross_entropy with label_smoothing is not supported by gradtrace")
    class_dim = 0 if input.array.ndim == 1 else 1
    logp = LogSoftmaxBackward0.call(input, dim=class_dim)
    if target.shape == input.shape:  # torch: same shapes mean class probabilities
        if not target.dtype.is_floating_point:
            raise TorchRuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target.dtype.tensor_type[:-6]}")
        prod = logp * target if weight is None else logp * target * weight.view(
            (-1,) + (1,) * (input.array.ndim - 2))
        if code == 0:
            return -prod.sum(class_dim)
        total = -prod.sum()
        if code == 2:
            return total
        batch = input.array.shape[0] if input.array.ndim > 1 else 1
        return DivBackward1.call(total, other=batch)
    return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)


_BCE_EPS = 1e-12


class BinaryCrossEntropyBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None,
                reduction: int) -> np.ndarray:
        x, t_ = a.array, target.array
        if a.dtype is not target.dtype:
            raise TorchRuntimeError(
                f"Found dtype {target.dtype.tensor_type[:-6]} but expected "
                f"{a.dtype.tensor_type[:-6]}")
        if ((x < 0) | (x > 1)).any():
            raise TorchRuntimeError("all elements of input should be between 0 and 1")
        if ((t_ < 0) | (t_ > 1)).any():
            raise TorchRuntimeError("all elements of target should be between 0 and 1")
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_x = np.maximum(np.log(x), -100)
            log_1mx = np.maximum(np.log1p(-x), -100)
        loss = (t_ - 1) * log_1mx - t_ * log_x
        if weight is not None:
            loss = loss * weight.array
        return _reduce(loss.astype(x.dtype), reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:

        x, t_ = self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        g_x = g_t = None
        if self.needs_input_grad(0):
            g_x = BinaryCrossEntropyBackwardBackward0.call(grad, x, t_, weight=weight,
                                                           reduction=reduction)
        if self.needs_input_grad(1):
            g_t = grad * ((1 - x).log() - x.log())
            if weight is not None:
                g_t = g_t * weight
            g_t = _scale_grad(g_t, reduction, t_.numel())
        return g_x, g_t


class BinaryCrossEntropyBackwardBackward0(Function):
    """binary_cross_entropy_backward(grad_output, self, target, weight) as an op."""

    __slots__ = ()

    def forward(self, grad: Tensor, x: Tensor, target: Tensor, weight: Tensor | None,
                reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        v, t_ = x.array, target.array
        out = grad.array * (v - t_) / np.maximum((1 - v) * v, _BCE_EPS)
        if weight is not None:
            out = out * weight.array
        if reduction == 1:
            out = out / v.size
        return np.asarray(out, dtype=v.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        from .creation import full_like

        grad, x, t_ = self.unpack("grad_output"), self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = BinaryCrossEntropyBackwardBackward0.call(gg, x, t_, weight=weight,
                                                              reduction=reduction)
        if self.needs_input_grad(1):  # torch's binary_cross_entropy_double_backward
            inp_pl_eps = add_scalar(x, _BCE_EPS)
            one_m_inp_pl_eps = add_scalar(full_like(x, 1) - x, _BCE_EPS)
            g_x = (x * x - mul_scalar(x, 2) * t_ + t_) / (inp_pl_eps.pow(2)
                                                           * one_m_inp_pl_eps.pow(2))
            g_x = g_x * (gg * grad)
            if weight is not None:
                g_x = g_x * weight
            if reduction == 1:
                g_x = div_scalar(g_x, x.array.size)
        g_t = None
        if self.needs_input_grad(2):  # torch's binary_cross_entropy_double_backward_target
            g_t = -gg * grad
            if weight is not None:
                g_t = g_t * weight
            denom = (full_like(x, 1) - x) * x
            np.maximum(denom.array, _BCE_EPS, out=denom.array)  # clamp_min_ under no_grad
            denom._version_counter.value += 1
            g_t = g_t / denom
            if reduction == 1:
                g_t = div_scalar(g_t, t_.array.size)
        return g_grad, g_x, g_t


def binary_cross_entropy(input: Tensor, target: Tensor,  # noqa: A002
                         weight: Tensor | None = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    code = reduction_code(reduction)
    if target.shape != input.shape:
        raise TorchValueError(
            f"Using a target size ({Size(target.shape)!r}) that is different to the input size "
            f"({Size(input.shape)!r}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        shape = broadcast_shapes(target.shape, weight.shape)
        if weight.shape != shape:
            weight = ExpandBackward0.call(weight, shape=shape)
    return BinaryCrossEntropyBackward0.call(input, target, weight=weight, reduction=code)


class BinaryCrossEntropyWithLogitsBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None,
                pos_weight: Tensor | None, reduction: int) -> np.ndarray:
        x, t_ = a.array, target.array
        self.save("pos_weight", pos_weight)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        with np.errstate(over="ignore"):
            softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
        if pos_weight is not None:
            log_weight = (pos_weight.array - 1) * t_ + 1
            loss = (1 - t_) * x + log_weight * softplus_neg
        else:
            loss = (1 - t_) * x + softplus_neg
        if weight is not None:
            loss = loss * weight.array
        return _reduce(np.asarray(loss, dtype=x.dtype), reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, t_ = self.unpack("self"), self.unpack("target")
        weight, pos_weight = self.unpack("weight"), self.unpack("pos_weight")
        reduction = self.attrs["reduction"]
        s = x.sigmoid()
        g_x = g_t = None
        if self.needs_input_grad(0):
            if pos_weight is not None:
                pt = pos_weight * t_
                g_x = (add_scalar(pt, 1) - t_) * s - pt
            else:
                g_x = s - t_
            g_x = g_x * grad
            if weight is not None:
                g_x = g_x * weight
            g_x = _scale_grad(g_x, reduction, x.numel())
        if self.needs_input_grad(1):
            if pos_weight is not None:
                g_t = -x - (pos_weight - 1) * s.log()
            else:
                g_t = -x
            g_t = g_t * grad
            if weight is not None:
                g_t = g_t * weight
            g_t = _scale_grad(g_t, reduction, t_.numel())
        return g_x, g_t


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    code = reduction_code(reduction)
    if target.shape != input.shape:
        raise TorchValueError(
            f"Target size ({Size(target.shape)!r}) must be the same as input size "
            f"({Size(input.shape)!r})")
    return BinaryCrossEntropyWithLogitsBackward0.call(input, target, weight=weight,
                                                      pos_weight=pos_weight, reduction=code)
