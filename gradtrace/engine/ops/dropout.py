"""F.dropout and F.dropout2d as ATen's CPU `_dropout_impl` runs them.

On the CPU torch takes the composite path (the fused native_dropout is for CUDA/XPU/lazy
tensors only): `noise = empty_like(input).bernoulli_(1 - p).div_(1 - p)`, then
`input * noise` (or `input.mul_(noise)` in place), which autograd records as
MulBackward0 saving the input and the noise. Feature dropout draws one value per
(batch, channel) and broadcasts it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchValueError
from ..tensor import Tensor
from .arithmetic import div_, mul, mul_
from .creation import WARNINGS
from .sampling import bernoulli_

DROPOUT2D_3D_WARNING = (
    "UserWarning: dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
    "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C is the "
    "channel dim. This behavior will change in a future release to interpret the input as one "
    "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
    "behavior, please switch to using dropout1d instead.")


def _check_p(p: Any) -> float:
    if p < 0.0 or p > 1.0:
        raise TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def _dropout(input: Tensor, p: float, training: bool, inplace: bool,
             noise_shape: tuple[int, ...]) -> Tensor:
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = Tensor._wrap(np.zeros((), dtype=input.array.dtype))
        return mul_(input, zero) if inplace else mul(input, zero)
    noise = Tensor._wrap(np.empty(noise_shape, dtype=input.array.dtype))
    bernoulli_(noise, 1 - p)
    div_(noise, 1 - p)
    return mul_(input, noise) if inplace else mul(input, noise)


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """F.dropout: zero each element with probability p, scale the rest by 1/(1-p)."""
    return _dropout(input, _check_p(p), training, inplace, input.shape)


def torch_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.dropout(input, p, train): the same without F's range check message."""
    return _dropout(input, float(p), train, False, input.shape)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """F.dropout2d: one draw per (N, C) channel of a 4-D (or, with torch's warning, 3-D)
    input."""
    p = _check_p(p)
    if input.ndim not in (3, 4):
        raise NotSupportedError("dropout2d of an input that is not 3-D or 4-D is not supported")
    if input.ndim == 3:
        WARNINGS.append(DROPOUT2D_3D_WARNING)
    shape = input.shape[:2] + (1,) * (input.ndim - 2)
    return _dropout(input, p, training, inplace, shape)
