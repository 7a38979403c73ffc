"""The connectionist temporal classification loss: ATen's CPU kernel (LossCTC.cpp) step
for step (its log-sum-exp in the input's dtype with libm's exp and log), and the composite
`ctc_loss` around it (reduction, zero_infinity, unbatched input)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes, glibc, unreproducible
from ..formulas import undefined, vjp
from ..node import Function
from ..tensor import Tensor
from ._util import not_implemented
from .losses import reduction_code
from .reductions import where

NEGINF = -math.inf


def _exp(x: np.ndarray) -> np.ndarray:
    """std::exp in the array's dtype: glibc's expf, or exp for double."""
    if x.dtype == np.float32:
        return glibc.expf(x)
    return np.vectorize(math.exp, otypes=[np.float64])(x)


def _log(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float32:
        return glibc.logf(x)
    with np.errstate(divide="ignore"):
        return np.where(x > 0, np.vectorize(lambda v: math.log(v) if v > 0 else 0.0,
                                            otypes=[np.float64])(x), NEGINF)


def _log_sum_exp(parts: list[np.ndarray]) -> np.ndarray:
    """log(exp(a - m) + exp(b - m) + ...) + m with m the largest (0 if all are -inf),
    summed left to right, as the kernel writes it."""
    m = parts[0]
    for p in parts[1:]:
        m = np.maximum(m, p)
    m = np.where(m == NEGINF, m.dtype.type(0), m)
    with np.errstate(invalid="ignore"):
        total = _exp(parts[0] - m)
        for p in parts[1:]:
            total = total + _exp(p - m)
    return _log(total) + m


def _primes(target: np.ndarray, blank: int) -> np.ndarray:
    """The augmented target l': blank, l1, blank, l2, ..., blank."""
    out = np.full(2 * len(target) + 1, blank, dtype=np.int64)
    out[1::2] = target
    return out


def _shifted(row: np.ndarray, by: int) -> np.ndarray:
    """row[s - by] at s (-inf where that is outside the row)."""
    out = np.full_like(row, NEGINF)
    if by > 0:
        out[by:] = row[:len(row) - by]
    else:
        out[:len(row) + by] = row[-by:]
    return out


def _batch_targets(targets: np.ndarray, target_lengths: list[int]) -> list[np.ndarray]:
    if targets.ndim == 1:
        offsets = np.cumsum([0, *target_lengths])
        return [targets[offsets[b]:offsets[b + 1]] for b in range(len(target_lengths))]
    return [targets[b, :n] for b, n in enumerate(target_lengths)]


class CtcLossBackward0(Function):
    __slots__ = ()
    no_forward_ad = "_ctc_loss"  # torch has no forward-mode formula (measured)
    formulas = (vjp("log_probs", "_ctc_loss_backward({grad}, {log_probs}, {targets}, "
                                 "{input_lengths}, {target_lengths}, {result0}, {result1}, "
                                 "{blank}, {zero_infinity})"),)

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: list[int],
                target_lengths: list[int], blank: int, zero_infinity: bool) -> np.ndarray:
        lp = log_probs.array
        dtype = lp.dtype.type
        time, batch, _ = lp.shape
        tgts = _batch_targets(targets.array, target_lengths)
        width = 2 * max(target_lengths, default=0) + 1
        # at::empty: only row 0 (all -inf) and the cells the recursion writes are set
        log_alpha = np.full((batch, time, width), unreproducible.fill(), lp.dtype)
        log_alpha[:, 0] = NEGINF
        nll = np.empty(batch, lp.dtype)
        for b in range(batch):
            n_in, n_tg = input_lengths[b], target_lengths[b]
            if n_in == 0:
                nll[b] = -(dtype(0) if n_tg == 0 else dtype(NEGINF))
                continue
            primes = _primes(tgts[b], blank)
            size = 2 * n_tg + 1
            alpha = log_alpha[b]
            alpha[0, 0] = lp[0, b, blank]
            if n_tg > 0:
                alpha[0, 1] = lp[0, b, primes[1]]
            skip = np.zeros(size, bool)
            skip[2:] = primes[:-2] != primes[2:]
            for t in range(1, n_in):
                prev = alpha[t - 1, :size]
                la2, la3 = _shifted(prev, 1), np.where(skip, _shifted(prev, 2), NEGINF)
                alpha[t, :size] = _log_sum_exp([prev, la2, la3]) + lp[t, b, primes]
            if n_tg == 0:
                nll[b] = -alpha[n_in - 1, 0]
            else:
                last = [alpha[n_in - 1, 2 * n_tg:2 * n_tg + 1],
                        alpha[n_in - 1, 2 * n_tg - 1:2 * n_tg]]
                nll[b] = -_log_sum_exp(last)[0]
        self.save_attr(blank=blank, input_lengths=tuple(input_lengths),
                       target_lengths=tuple(target_lengths), zero_infinity=zero_infinity)
        self.save("log_probs", log_probs)
        self.save("targets", targets)
        self.save("result1", Tensor._wrap(log_alpha))
        return nll

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result0", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return CtcLossBackwardNotImplemented.call(
            grad, self.unpack("log_probs"), targets=self.unpack("targets"),
            input_lengths=list(a["input_lengths"]), target_lengths=list(a["target_lengths"]),
            nll=self.unpack("result0"), log_alpha=self.unpack("result1"), blank=a["blank"],
            zero_infinity=a["zero_infinity"])


class CtcLossBackwardNotImplemented(Function):
    """_ctc_loss_backward has no derivative in torch (NotImplemented under create_graph)."""

    __slots__ = ()
    formulas = (undefined("grad"), undefined("log_probs"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, grad: Tensor, log_probs: Tensor, targets: Tensor,
                input_lengths: list[int], target_lengths: list[int], nll: Tensor,
                log_alpha: Tensor, blank: int, zero_infinity: bool) -> np.ndarray:
        lp = log_probs.array
        time, batch, labels = lp.shape
        out = np.full((time, batch, labels), NEGINF, lp.dtype)
        tgts = _batch_targets(targets.array, target_lengths)
        for b in range(batch):
            loss = nll.array[b]
            if zero_infinity and loss == np.inf:
                out[:, b] = 0
                continue
            n_in, n_tg = input_lengths[b], target_lengths[b]
            primes = _primes(tgts[b], blank)
            size = 2 * n_tg + 1
            alpha = log_alpha.array[b]
            beta = np.full((time, log_alpha.shape[2]), NEGINF, lp.dtype)
            g = out[:, b]
            if n_in > 0:
                beta[n_in - 1, 2 * n_tg] = lp[n_in - 1, b, blank]
                g[n_in - 1, blank] = alpha[n_in - 1, 2 * n_tg] + beta[n_in - 1, 2 * n_tg]
                if n_tg > 0:
                    c = primes[2 * n_tg - 1]
                    beta[n_in - 1, 2 * n_tg - 1] = lp[n_in - 1, b, c]
                    g[n_in - 1, c] = alpha[n_in - 1, 2 * n_tg - 1] + beta[n_in - 1, 2 * n_tg - 1]
            skip = np.zeros(size, bool)
            skip[:-2] = primes[2:] != primes[:-2]
            for t in range(n_in - 2, -1, -1):
                nxt = beta[t + 1, :size]
                lb2, lb3 = _shifted(nxt, -1), np.where(skip, _shifted(nxt, -2), NEGINF)
                beta[t, :size] = _log_sum_exp([nxt, lb2, lb3]) + lp[t, b, primes]
            # collected[t, l'[s]] log+= alpha * beta, s descending (each t on its own, so
            # all t at once)
            rows = slice(0, max(n_in - 1, 0))
            alpha_beta = alpha[rows, :size] + beta[rows, :size]
            for s_ in range(size - 1, -1, -1):
                c = primes[s_]
                have, new = g[rows, c], alpha_beta[:, s_]
                top = np.maximum(have, new)
                with np.errstate(invalid="ignore"):
                    summed = _log(_exp(have - top) + _exp(new - top)) + top
                g[rows, c] = np.where(have == NEGINF, new, summed)
            gr = grad.array.reshape(-1)[b].astype(lp.dtype)
            with np.errstate(invalid="ignore", over="ignore"):
                rows = slice(0, n_in)
                res = _exp(lp[rows, b]) - _exp(g[rows] + loss - lp[rows, b])
                g[rows] = res * gr
            g[n_in:] = 0
        return out

    def backward(self, gg: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


CtcLossBackwardNotImplemented.__name__ = "NotImplemented"


def _lengths(lengths: Any, what: str) -> list[int]:
    if isinstance(lengths, Tensor):
        if not lengths.dtype.is_floating_point and lengths.dtype.name != "bool":
            return [int(v) for v in lengths.array.reshape(-1)]
        raise TorchRuntimeError(f"{what} must be integral")
    return [int(v) for v in lengths]


def _check_sizes(lp: Tensor, targets: Tensor, in_lengths: list[int],
                 tg_lengths: list[int]) -> None:
    """ctc_loss_allocate_outputs' checks, with its messages; then the dtype dispatch."""
    where_ = " (while checking arguments for ctc_loss_allocate_outputs)"
    arg = " for argument #2 'targets'" + where_
    for n in tg_lengths:
        if n < 0:
            raise TorchRuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {n}{where_}")
    if targets.ndim == 1:
        if targets.shape[0] != sum(tg_lengths):
            raise TorchRuntimeError(f"Expected tensor to have size {sum(tg_lengths)} at "
                                    f"dimension 0, but got size {targets.shape[0]}{arg}")
    else:
        if targets.shape[0] != lp.shape[1]:
            raise TorchRuntimeError(f"Expected tensor to have size {lp.shape[1]} at dimension "
                                    f"0, but got size {targets.shape[0]}{arg}")
        longest = max(tg_lengths, default=0)
        if targets.shape[1] < longest:
            raise TorchRuntimeError(f"Expected tensor to have size at least {longest} at "
                                    f"dimension 1, but got size {targets.shape[1]}{arg}")
    for n in in_lengths:
        if n < 0:
            raise TorchRuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {n}{where_}")
        if n > lp.shape[0]:
            raise TorchRuntimeError(f"Expected input_lengths to have value at most "
                                    f"{lp.shape[0]}, but got value {n}{where_}")
    if not lp.dtype.is_floating_point:
        raise not_implemented("ctc_loss_cpu", lp.dtype)


def torch_ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any,
                   target_lengths: Any, blank: int = 0, reduction: int = 0,
                   zero_infinity: bool = False) -> Tensor:
    """ATen's ctc_loss: _ctc_loss (CtcLossBackward0), then zero_infinity's where and the
    reduction (mean: each loss over its clamped target length, then the mean)."""
    in_lengths = _lengths(input_lengths, "input_lengths")
    tg_lengths = _lengths(target_lengths, "target_lengths")
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if lp.ndim != 3:
        raise TorchRuntimeError(
            f"Expected 3-dimensional tensor, but got {lp.ndim}-dimensional tensor for argument "
            "#1 'log_probs' (while checking arguments for ctc_loss_allocate_outputs)")
    if not 0 <= blank < lp.shape[2]:
        raise TorchRuntimeError("blank must be in label range")
    if len(in_lengths) != lp.shape[1]:
        raise TorchRuntimeError("input_lengths must be of size batch_size")
    if len(tg_lengths) != lp.shape[1]:
        raise TorchRuntimeError("target_lengths must be of size batch_size")
    _check_sizes(lp, targets, in_lengths, tg_lengths)
    if targets.dtype.name != "int64":
        targets = targets.to(dtypes.int64)  # targets.to(log_probs.device(), kLong)
    res = CtcLossBackward0.call(lp, targets=targets, input_lengths=in_lengths,
                                target_lengths=tg_lengths, blank=int(blank),
                                zero_infinity=bool(zero_infinity))
    if zero_infinity:
        res = where(res == math.inf, Tensor._wrap(np.zeros((), res.array.dtype)), res)
    if reduction == 1:
        lengths = Tensor._wrap(np.maximum(np.array(tg_lengths, res.array.dtype), 1))
        return (res / lengths).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    return torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                          reduction_code(reduction), zero_infinity)


__all__ = ["ctc_loss", "torch_ctc_loss"]
