"""logcumsumexp: the running log(Σ exp) along a dimension, as torch's CPU kernel accumulates
it (in double for float32 too: acc_type<float> on CPU), and its backward, torch's
logcumsumexp_backward (two reversed logcumsumexps, of the positive and negative parts of
grad, in log space)."""
from __future__ import annotations

import numpy as np

from ..formulas import vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import not_implemented


def _log_add_exp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """_log_add_exp_helper(x, y): log1p(exp(min - max)) + max; x itself where both are the
    same infinity (nan propagates through y)."""
    lo = np.where(np.isnan(y), y, np.minimum(x, y))
    hi = np.where(np.isnan(y), y, np.maximum(x, y))
    with np.errstate(all="ignore"):
        general = np.log1p(np.exp(lo - hi)) + hi
    return np.where((lo != hi) | np.isfinite(lo), general, x)


def logcumsumexp_array(x: np.ndarray, axis: int) -> np.ndarray:
    moved = np.moveaxis(x, axis, 0).astype(np.float64)
    out = np.empty_like(moved)
    total = np.full(moved.shape[1:], -np.inf)
    for i in range(moved.shape[0]):
        total = _log_add_exp(moved[i], total)
        out[i] = total
    return np.moveaxis(out.astype(x.dtype), 0, axis)


class LogcumsumexpBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "exp(flip(logcumsumexp(flip(ln({grad}) - {result}))) + {self})"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("logcumsumexp_out_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(dim=dim)
        if a.array.ndim == 0:
            return a.array.copy()
        # (logcumsumexp_out_impl resizes an empty output: row-major)
        return np.asarray(logcumsumexp_array(a.array, dim), order="C")

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """torch's logcumsumexp_jvp: cumsum(exp(self - max) * self_t) / (cumsum(exp(self -
        max)) + 1e-13)."""
        from .arithmetic import add_, div_, mul_
        from .reductions import cumsum, max

        self_p, dim = inputs[0], params["dim"]
        self_p_exp = (self_p - max(self_p, dim, True)[0]).exp()
        cumsumexp_p = cumsum(self_p_exp, dim)
        mul_(self_p_exp, t[0])
        return div_(cumsum(self_p_exp, dim), add_(cumsumexp_p, 1e-13))

    def backward(self, grad: Tensor) -> Tensor:
        from .clones import flip
        from .reductions import where

        if grad.array.ndim == 0 or grad.array.size == 0:
            return grad
        dim = self.attrs["dim"]
        x, result = self.unpack("self"), self.unpack("result")
        lowest = Tensor._wrap(np.asarray(np.finfo(grad.array.dtype).min, grad.array.dtype))

        def reverse_logcumsumexp(t: Tensor) -> Tensor:
            return flip(logcumsumexp(flip(t, [dim]), dim), [dim])

        log_abs_grad = grad.abs().log()
        log_grad_positive = where(grad > 0, log_abs_grad, lowest)
        log_grad_negative = where(grad < 0, log_abs_grad, lowest)
        output_pos = (reverse_logcumsumexp(log_grad_positive - result) + x).exp()
        output_neg = (reverse_logcumsumexp(log_grad_negative - result) + x).exp()
        return output_pos - output_neg


def logcumsumexp(a: Tensor, dim: int) -> Tensor:
    return LogcumsumexpBackward0.call(a, dim=wrap_dim(dim, max(a.array.ndim, 1)))
