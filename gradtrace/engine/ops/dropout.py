"""F.dropout, dropout1d/2d/3d, alpha_dropout and feature_alpha_dropout as ATen's CPU
`_dropout_impl` runs them.

On the CPU torch takes the composite path (the fused native_dropout is for CUDA/XPU/lazy
tensors only): `noise = empty_like(input).bernoulli_(1 - p).div_(1 - p)`, then
`input * noise` (or `input.mul_(noise)` in place), which autograd records as
MulBackward0 saving the input and the noise. Feature dropout draws one value per
(batch, channel) and broadcasts it.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchValueError
from ..tensor import Tensor
from .arithmetic import add, add_, div_, mul, mul_
from .creation import WARNINGS, zeros_like
from .sampling import bernoulli_

DROPOUT2D_3D_WARNING = (
    "UserWarning: dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
    "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C is the "
    "channel dim. This behavior will change in a future release to interpret the input as one "
    "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
    "behavior, please switch to using dropout1d instead.")
DROPOUT2D_DIM_WARNING = (
    "UserWarning: dropout2d: Received a {}-D input to dropout2d, which is deprecated and will "
    "result in an error in a future release. To retain the behavior and silence this warning, "
    "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
    "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
    "(i.e. 3D or 4D inputs).")


def _check_p(p: Any) -> float:
    if p < 0.0 or p > 1.0:
        raise TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


ALPHA = 1.7580993408473766  # SELU's alpha * scale: alpha dropout's saturation value


def _dropout(input: Tensor, p: float, training: bool, inplace: bool,
             noise_shape: tuple[int, ...], alpha: bool = False) -> Tensor:
    """_dropout_impl: `alpha` for alpha dropout, which sends dropped elements to SELU's
    saturation and rescales to keep the mean and variance
    (`input * noise * a + (noise - 1) * alpha * a + alpha * a * p`)."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = Tensor._wrap(np.zeros((), dtype=input.array.dtype))
        return mul_(input, zero) if inplace else mul(input, zero)
    # torch's empty_like(input): a dense input's strides are kept, so bernoulli_ draws in
    # its memory order (a transposed input gets other positions dropped). bernoulli_ writes
    # every element, so this is zeros_like: nothing of uninitialised memory is ever read
    noise = zeros_like(input) if tuple(noise_shape) == tuple(input.shape) else \
        Tensor._wrap(np.empty(noise_shape, dtype=input.array.dtype))
    bernoulli_(noise, 1 - p)
    if not alpha:
        div_(noise, 1 - p)
        return mul_(input, noise) if inplace else mul(input, noise)
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    b = add_(mul_(add(noise, -1), ALPHA * a), ALPHA * a * p)
    mul_(noise, a)
    return add_(mul_(input, noise) if inplace else mul(input, noise), b)


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
    input; another number of dimensions warns and drops per (N, C) all the same (feature
    dropout: one draw per element of a 2-D input)."""
    p = _check_p(p)
    if input.ndim not in (3, 4):
        if input.ndim < 2:
            raise NotSupportedError("dropout2d of an input with fewer than 2 dimensions is "
                                    "not supported")
        WARNINGS.append(DROPOUT2D_DIM_WARNING.format(input.ndim))
    if input.ndim == 3:
        WARNINGS.append(DROPOUT2D_3D_WARNING)
    shape = input.shape[:2] + (1,) * (input.ndim - 2)
    return _dropout(input, p, training, inplace, shape)


DROPOUT3D_DIM_WARNING = (
    "UserWarning: dropout3d: Received a {}-D input to dropout3d, which is deprecated and will "
    "result in an error in a future release. To retain the behavior and silence this warning, "
    "please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
    "inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension "
    "(i.e. 4D or 5D inputs).")


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                     batched: bool) -> Tensor:
    """feature dropout of a batched input, or of an unbatched one given a batch dim of 1
    (torch/nn/functional.py's unsqueeze(0) ... squeeze(0), in place when `inplace`)."""
    from .shape_inplace import squeeze_, unsqueeze_

    if not batched:
        input = unsqueeze_(input, 0) if inplace else input.unsqueeze(0)  # noqa: A001
    shape = input.shape[:2] + (1,) * (input.ndim - 2)
    result = _dropout(input, p, training, inplace, shape)
    if not batched:
        result = squeeze_(result, 0) if inplace else result.squeeze(0)
    return result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """F.dropout1d: one draw per channel of an (N, C, L) or (C, L) input."""
    from ...errors import TorchRuntimeError

    p = _check_p(p)
    if input.ndim not in (2, 3):
        raise TorchRuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_dropout(input, p, training, inplace, input.ndim == 3)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """F.dropout3d: one draw per channel of an (N, C, D, H, W) or (C, D, H, W) input."""
    p = _check_p(p)
    if input.ndim not in (4, 5):
        WARNINGS.append(DROPOUT3D_DIM_WARNING.format(input.ndim))
    return _feature_dropout(input, p, training, inplace, input.ndim == 5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """F.alpha_dropout: one draw per element."""
    return _dropout(input, _check_p(p), training, inplace, input.shape, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """F.feature_alpha_dropout: one draw per (N, C) channel."""
    shape = input.shape[:2] + (1,) * (input.ndim - 2)
    return _dropout(input, _check_p(p), training, inplace, shape, alpha=True)


def torch_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """torch.alpha_dropout(input, p, train) (ATen's argument order)."""
    return alpha_dropout(input, p, train)


def torch_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return alpha_dropout(input, p, train, inplace=True)


def torch_feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    return feature_alpha_dropout(input, p, train)


def torch_feature_alpha_dropout_(input: Tensor, p: float,  # noqa: A002
                                 train: bool) -> Tensor:
    return feature_alpha_dropout(input, p, train, inplace=True)
