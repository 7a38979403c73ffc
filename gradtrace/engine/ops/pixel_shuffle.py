"""pixel_shuffle / pixel_unshuffle: channels moved into space and back
(PixelShuffleBackward0, PixelUnshuffleBackward0), each one's backward the other; and
channel_shuffle (ChannelShuffleBackward0), whose backward shuffles back. Pure data movement."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..node import Function
from ..tensor import Tensor, type_name


def _factor(op: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TorchTypeError(f"{op}(): argument '{name}' (position 2) must be int, not "
                             f"{type_name(value)}")
    if value <= 0:
        raise TorchRuntimeError(f"{op} expects a positive {name}, but got {value}")
    return value


def _check_dims(op: str, x: np.ndarray) -> None:
    if x.ndim < 3:
        raise TorchRuntimeError(f"{op} expects input to have at least 3 dimensions, but got "
                                f"input with {x.ndim} dimension(s)")


def _shuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(*lead, oc, r, r, h, w)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # oc, h, r, w, r
    return np.ascontiguousarray(y).reshape(*lead, oc, h * r, w * r)


def _unshuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = x.shape
    oh, ow = h // r, w // r
    y = x.reshape(*lead, c, oh, r, ow, r)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # c, r, r, oh, ow
    return np.ascontiguousarray(y).reshape(*lead, c * r * r, oh, ow)


class PixelShuffleBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "pixel_unshuffle({grad}, {upscale_factor})"),)

    def forward(self, a: Tensor, upscale_factor: int) -> np.ndarray:
        x = a.array
        _check_dims("pixel_shuffle", x)
        c = x.shape[-3]
        if c % (upscale_factor * upscale_factor):
            raise TorchRuntimeError(
                "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                f"square of upscale_factor, but input.size(-3)={c} is not divisible by "
                f"{upscale_factor * upscale_factor}")
        self.save_attr(upscale_factor=upscale_factor)
        return _shuffle(x, upscale_factor)

    def backward(self, grad: Tensor) -> Tensor:
        return PixelUnshuffleBackward0.call(grad, downscale_factor=self.attrs["upscale_factor"])


class PixelUnshuffleBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "pixel_shuffle({grad}, {downscale_factor})"),)

    def forward(self, a: Tensor, downscale_factor: int) -> np.ndarray:
        x = a.array
        _check_dims("pixel_unshuffle", x)
        for axis, name in ((-2, "height"), (-1, "width")):
            if x.shape[axis] % downscale_factor:
                raise TorchRuntimeError(
                    f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                    f"input.size({axis})={x.shape[axis]} is not divisible by {downscale_factor}")
        self.save_attr(downscale_factor=downscale_factor)
        return _unshuffle(x, downscale_factor)

    def backward(self, grad: Tensor) -> Tensor:
        return PixelShuffleBackward0.call(grad, upscale_factor=self.attrs["downscale_factor"])


def pixel_shuffle(input: Tensor, upscale_factor: Any) -> Tensor:  # noqa: A002
    factor = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    return PixelShuffleBackward0.call(input, upscale_factor=factor)


def pixel_unshuffle(input: Tensor, downscale_factor: Any) -> Tensor:  # noqa: A002
    factor = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    return PixelUnshuffleBackward0.call(input, downscale_factor=factor)


class ChannelShuffleBackward0(Function):
    """native_channel_shuffle: the channels, read as (groups, C / groups), transposed; the
    gradient shuffles back with C / groups groups."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "channel_shuffle({grad}, {grad}.shape[1] / {groups})"),)

    def forward(self, a: Tensor, groups: int) -> np.ndarray:
        x = a.array
        if groups <= 0:
            raise TorchRuntimeError(
                f"Number of groups to divide channels in must be positive. Value of groups:"
                f"{groups}")
        if x.ndim <= 2:
            raise TorchRuntimeError(f"channel_shuffle expects input with > 2 dims, but got "
                                    f"input with sizes {list(x.shape)}")
        c = x.shape[1]
        if c % groups:
            raise TorchRuntimeError(f"Number of channels must be divisible by groups. Got {c} "
                                    f"channels and {groups} groups.")
        self.save_attr(groups=groups)
        n, rest = x.shape[0], x.shape[2:]
        grouped = x.reshape((n, groups, c // groups) + rest)
        return np.ascontiguousarray(grouped.swapaxes(1, 2)).reshape(x.shape)

    def backward(self, grad: Tensor) -> Tensor:
        return ChannelShuffleBackward0.call(grad, groups=grad.shape[1] // self.attrs["groups"])


def channel_shuffle(input: Tensor, groups: Any) -> Tensor:  # noqa: A002
    return ChannelShuffleBackward0.call(input, groups=groups)
