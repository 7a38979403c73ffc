"""The Poisson and Gaussian negative log-likelihood losses: composites in torch (ATen's
poisson_nll_loss, torch.nn.functional's gaussian_nll_loss), built here from the same ops in
the same order so the graph and the float32 roundings are torch's."""
from __future__ import annotations

import math
from typing import Any

from ...errors import TorchTypeError, TorchValueError
from ..tensor import Tensor
from .clones import clone
from .creation import ones_like
from .distance import apply_loss_reduction as _reduce
from .distance import clamp_min_quietly
from .indexing import masked_fill
from .losses import check_reduction, legacy_reduction, reduction_code
from .scalar import add_scalar, mul_scalar


def torch_poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool,  # noqa: A002
                           full: bool, eps: float, reduction: int) -> Tensor:
    """ATen: exp(input) - target * input (log_input) or input - target * log(input + eps),
    plus the Stirling term where target > 1 (full), reduced."""
    # GCC evaluates an operator's right operand first: that order is the graph's order
    if log_input:
        product = target * input
        loss = input.exp() - product
    else:
        loss = input - target * add_scalar(input, eps).log()
    if full:
        half_log = mul_scalar(mul_scalar(target, 2 * math.pi).log(), 0.5)
        log_target = target.log()
        stirling = (target * log_target - target) + half_log
        loss += masked_fill(stirling, target <= 1, 0)
    return _reduce(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True,  # noqa: A002
                     full: bool = False, size_average: Any = None, eps: float = 1e-8,
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "poisson_nll_loss")
    check_reduction(reduction)
    code = reduction_code(reduction)
    return torch_poisson_nll_loss(input, target, log_input, full, eps, code)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False,  # noqa: A002
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """torch's Python: 0.5 * (log(var) + (input - target) ** 2 / var) over a clamped clone
    of var, which may be a float, input's shape, or input's with one dim of size 1 (or the
    last dim missing)."""
    if isinstance(var, float):
        if var < 0:
            raise TorchValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif not isinstance(var, Tensor):
        raise TorchTypeError(
            f"any() received an invalid combination of arguments - got ({type(var).__name__}), "
            "but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, "
            "tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor "
            "input, int dim, bool keepdim = False, *, Tensor out = None)\n")
    elif bool((var.array < 0).any()):
        raise TorchValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1):
            raise TorchValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise TorchValueError(reduction + " is not valid")
    var = clone(var)
    clamp_min_quietly(var, eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction_code(reduction))


__all__ = ["poisson_nll_loss", "torch_poisson_nll_loss", "gaussian_nll_loss"]
