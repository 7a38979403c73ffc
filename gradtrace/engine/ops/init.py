"""torch.nn.init: the initialisers nn layers and scripts call, drawing from the generator.

Each runs under no_grad as torch's do, and draws through the same in-place samplers
(`uniform_`, `normal_`) as Tensor methods, so `nn.Linear`'s default initialisation
(`kaiming_uniform_(w, a=math.sqrt(5))`, then `uniform_(b, -1/sqrt(fan_in),
1/sqrt(fan_in))`) consumes exactly torch's draws.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchValueError
from ..generator import Generator
from ..grad_mode import no_grad
from ..tensor import Tensor
from .creation import WARNINGS, empty_like
from .reductions import where
from .sampling import normal_ as tensor_normal_
from .sampling import randperm
from .sampling import uniform_ as tensor_uniform_
from .subscript import getitem, setitem
from .view_inplace import copy_

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for a nonlinearity (torch's table)."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise TorchValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise TorchValueError(f"Unsupported nonlinearity {nonlinearity}")


def calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out): dims 1 and 0 times the receptive field (the product of the rest)."""
    if tensor.ndim < 2:
        raise TorchValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise TorchValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    with no_grad():
        return tensor_uniform_(tensor, a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    with no_grad():
        return tensor_normal_(tensor, mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    from . import fill_

    with no_grad():
        return fill_(tensor, val)


def zeros_(tensor: Tensor) -> Tensor:
    from . import zero_

    with no_grad():
        return zero_(tensor)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndim != 2:
        raise TorchValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return copy_(tensor, Tensor._wrap(np.eye(*tensor.shape, dtype=tensor.array.dtype)))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a 3-, 4- or 5-d conv weight: a 1 at each (out, in) pair's centre."""
    from . import zero_

    if tensor.ndim not in (3, 4, 5):
        raise TorchValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise TorchValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = tensor.shape[0] // groups
    centre = tuple(s // 2 for s in tensor.shape[2:])
    with no_grad():
        zero_(tensor)
        for g in range(groups):
            for d in range(min(out_chans_per_grp, tensor.shape[1])):
                setitem(tensor, (g * out_chans_per_grp + d, d, *centre), 1)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """normal_(0, std), then ceil(sparsity * rows) zeros per column at rows drawn by
    randperm from the default generator (torch ignores `generator` there)."""
    if tensor.ndim != 2:
        raise TorchValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor_normal_(tensor, 0, std, generator=generator)
        for col_idx in range(cols):
            zero_indices = getitem(randperm(rows), slice(None, num_zeros))
            setitem(tensor, (zero_indices, col_idx), 0)
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: Generator | None = None) -> Tensor:
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in tensor.shape:
        WARNINGS.append("UserWarning: Initializing zero-element tensors is a no-op")
        return None
    fan = _correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """torch 2.13's _no_grad_trunc_normal_, op for op (so the draws and bits are torch's):
    rejection from normal_ when [a, b] holds over 30% of the mass, else uniform_ proposals
    on [a, b] accepted by log(uniform) against the normal's log density."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        WARNINGS.append("UserWarning: mean is more than 2 std from [a, b] in "
                        "nn.init.trunc_normal_. The distribution of values may be incorrect.")
    with no_grad():
        if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
            rounded = tensor.array.dtype.type  # tensor.new_tensor(a).item()
            lo, hi = float(rounded(a)), float(rounded(b))
            result = tensor_normal_(tensor, mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any().item():
                    break
                fresh = tensor_normal_(empty_like(result), mean, std, generator=generator)
                result = where(mask, fresh, result)
            if tensor is not result:
                copy_(tensor, result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = empty_like(tensor)
        accept_buf = empty_like(tensor)
        tensor_uniform_(tensor, a, b, generator=generator)
        copy_(candidates, tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = tensor_uniform_(accept_buf, generator=generator).log_().gt(candidates)
        if not pending.any().item():
            return tensor
        result = tensor
        while True:
            tensor_uniform_(candidates, a, b, generator=generator)
            result = where(pending, candidates, result)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            accepted = tensor_uniform_(accept_buf, generator=generator).log_().gt(candidates)
            pending = where(pending, accepted, pending)
            if not pending.any().item():
                break
        copy_(tensor, result)
        return tensor


def orthogonal_(tensor: Tensor, gain: float = 1,
                generator: Generator | None = None) -> Tensor:
    """A (semi) orthogonal matrix: Q of the QR of a normal_ draw (transposed when there are
    fewer rows than columns), its columns' signs fixed by R's diagonal, as torch 2.13 does."""
    from . import mul_
    from .decompositions import qr
    from .matrices import diag
    from .shape_inplace import t_
    from .unary import sign
    from .views import view_as

    if tensor.ndim < 2:
        raise TorchValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = tensor_normal_(Tensor._wrap(np.zeros((rows, cols), tensor.array.dtype)), 0, 1,
                               generator=generator)
    if rows < cols:
        t_(flattened)
    q, r = qr(flattened)
    mul_(q, sign(diag(r, 0)))
    if rows < cols:
        t_(q)
    with no_grad():
        copy_(view_as(tensor, q), q)
        mul_(tensor, gain)
    return tensor


def _deprecated(new: Any) -> Any:
    """torch.nn.init's old name for an initialiser (`uniform` for `uniform_`): the same
    function after torch's FutureWarning at the caller's line."""
    old_name = new.__name__[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Any:
        WARNINGS.append(f"FutureWarning: `nn.init.{old_name}` is now deprecated in favor of "
                        f"`nn.init.{new.__name__}`.")
        return new(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


INIT_FUNCTIONS = {
    "calculate_gain": calculate_gain,
    "_calculate_fan_in_and_fan_out": calculate_fan_in_and_fan_out,
    "uniform_": uniform_, "normal_": normal_, "constant_": constant_, "zeros_": zeros_,
    "ones_": ones_, "eye_": eye_, "dirac_": dirac_, "sparse_": sparse_,
    "xavier_uniform_": xavier_uniform_, "xavier_normal_": xavier_normal_,
    "kaiming_uniform_": kaiming_uniform_, "kaiming_normal_": kaiming_normal_,
    "trunc_normal_": trunc_normal_, "orthogonal_": orthogonal_,
}
INIT_FUNCTIONS.update({name[:-1]: _deprecated(INIT_FUNCTIONS[name]) for name in (
    "uniform_", "normal_", "constant_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_",
    "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_")})
