"""cov and corrcoef, composite as ATen's Correlation.cpp: the weighted mean over the
observations, the centred product through mm, divided by the normalisation (a tensor:
DivBackward0), squeezed; corrcoef divides by the standard deviations and clips. The same
ops run here, so torch's nodes are recorded and the values round as torch's."""
from __future__ import annotations

from typing import Any

from ...errors import TorchRuntimeError
from .. import dtypes
from ..tensor import Tensor
from .views import warn

_DOF_WARNING = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than "
                "the number of observations. (Triggered internally at /__w/pytorch/pytorch/"
                "aten/src/ATen/native/Correlation.cpp:129.)")


def _check_weights(w: Tensor, which: str, n: int) -> None:
    if w.array.ndim > 1:
        raise TorchRuntimeError(
            f"cov(): expected {which} to have one or fewer dimensions but got {which} with "
            f"{w.array.ndim} dimensions")
    floating = which == "aweights"
    if w.dtype.is_floating_point != floating or w.dtype is dtypes.bool_:
        kind = "floating point" if floating else "integral"
        raise TorchRuntimeError(
            f"cov(): expected {which} to have {kind} dtype but got {which} with "
            f"{w.dtype.tensor_type[:-6]} dtype")
    if w.array.size != n:
        raise TorchRuntimeError(
            f"cov(): expected {which} to have the same numel as there are observations in the "
            f"input but got {w.array.size} != {n}")
    if n and (w.array < 0).any():
        raise TorchRuntimeError(f"cov(): {which} cannot be negative")


def cov(a: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    from .linalg import mm
    from .tensor_info import scalar_tensor

    if a.array.ndim > 2:
        raise TorchRuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{a.array.ndim} dimensions")
    if a.dtype is dtypes.bool_:
        raise TorchRuntimeError("cov(): bool dtype is not supported for input")
    x = a.view(1, -1) if a.array.ndim < 2 else a
    n = x.array.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n)
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else scalar_tensor(n, dtype=dtypes.int64)
    if w is not None and not w_sum.array.any():
        raise TorchRuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if norm.array <= 0:
        warn(_DOF_WARNING)
        norm = norm.zero_()
    x = x - avg.unsqueeze(1)
    c = mm(x, (x * w if w is not None else x).t())
    return (c / norm).squeeze()


def corrcoef(a: Tensor) -> Tensor:
    if a.array.ndim > 2:
        raise TorchRuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input "
            f"with {a.array.ndim} dimensions")
    c = cov(a)
    if c.array.ndim == 0:
        return c / c  # nan for a zero, inf or nan variance, 1 otherwise
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


TENSOR_METHODS: dict[str, Any] = {"cov": cov, "corrcoef": corrcoef}
