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

from ...errors import NotSupportedError, TorchValueError
from ..generator import Generator
from ..grad_mode import no_grad
from ..tensor import Tensor
from .creation import WARNINGS
from .sampling import normal_ as tensor_normal_
from .sampling import uniform_ as tensor_uniform_

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
    from .views import copy_

    if tensor.ndim != 2:
        raise TorchValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return copy_(tensor, Tensor._wrap(np.eye(*tensor.shape, dtype=tensor.array.dtype)))


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


def trunc_normal_(tensor: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    raise NotSupportedError(
        "torch.nn.init.trunc_normal_ is not supported yet: it needs torch's float erfinv")


INIT_FUNCTIONS = {
    "calculate_gain": calculate_gain,
    "_calculate_fan_in_and_fan_out": calculate_fan_in_and_fan_out,
    "uniform_": uniform_, "normal_": normal_, "constant_": constant_, "zeros_": zeros_,
    "ones_": ones_, "eye_": eye_, "xavier_uniform_": xavier_uniform_,
    "xavier_normal_": xavier_normal_, "kaiming_uniform_": kaiming_uniform_,
    "kaiming_normal_": kaiming_normal_, "trunc_normal_": trunc_normal_,
}
