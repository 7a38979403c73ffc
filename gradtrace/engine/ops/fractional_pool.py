"""F.fractional_max_pool2d / 3d (FractionalMaxPool2DBackward0, FractionalMaxPool3DBackward0):
max pooling over windows whose starts are drawn per (image, channel) from
torch.rand(N, C, 2 or 3) (as F draws them, in the input's dtype), placed by ATen's
generate_intervals; the first maximum of a window in (h, w) / (t, h, w) order, a NaN wins.
Their backward is an op (...BackwardBackward0), as in torch."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchValueError
from ..formulas import local, vjp
from ..node import Function
from ..tensor import Tensor
from .pooling import ROUTED_TO_MAX, MaxPool2DWithIndicesBackwardBackward0, _pair
from .pooling3d import ROUTED_TO_MAX_3D, MaxPool3DWithIndicesBackwardBackward0, _triple


def _intervals(sample: np.ndarray, input_size: int, output_size: int,
               pool: int) -> np.ndarray:
    """generate_intervals per plane: (planes,) samples -> (planes, output_size) starts."""
    t = sample.dtype.type
    seq = np.empty(sample.shape + (output_size,), np.int64)
    if output_size > 1:
        alpha = t(input_size - pool) / t(output_size - 1)
        i = np.arange(output_size - 1).astype(sample.dtype)
        seq[..., :-1] = ((i + sample[..., None]) * alpha).astype(np.int64) - \
            (sample * alpha).astype(np.int64)[..., None]
    seq[..., -1] = input_size - pool
    return seq


class FractionalMaxPool2DBackward0(Function):
    """fractional_max_pool2d(self, kernel_size, output_size, random_samples)."""

    __slots__ = ()
    formulas = (vjp("self", ROUTED_TO_MAX),)

    def forward(self, a: Tensor, kernel_size: tuple[int, int], output_size: tuple[int, int],
                samples: np.ndarray, indices_out: list[np.ndarray]) -> np.ndarray:
        self.save_attr(kernel_size=kernel_size, output_size=output_size)
        self.save("self", a)
        x = a.array
        batched = x.reshape((-1,) + x.shape[-3:])
        h, w = x.shape[-2:]
        oh, ow = output_size
        kh, kw = kernel_size
        s = samples.reshape(batched.shape[0], batched.shape[1], 2)
        starts_w = _intervals(s[..., 0], w, ow, kw)  # (N, C, ow)
        starts_h = _intervals(s[..., 1], h, oh, kh)  # (N, C, oh)
        rows = starts_h[..., :, None] + np.arange(kh)  # (N, C, oh, kh)
        cols = starts_w[..., :, None] + np.arange(kw)  # (N, C, ow, kw)
        n_idx = np.arange(batched.shape[0])[:, None, None, None, None, None]
        c_idx = np.arange(batched.shape[1])[None, :, None, None, None, None]
        r = rows[:, :, :, None, :, None]
        c = cols[:, :, None, :, None, :]
        vals = batched[n_idx, c_idx, r, c]  # (N, C, oh, ow, kh, kw)
        flat = vals.reshape(vals.shape[:4] + (-1,))
        nan = np.isnan(flat)
        pick = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
        ph, pw = np.divmod(pick, kw)
        row_of = starts_h[..., :, None] + ph  # (N, C, oh, ow)
        col_of = starts_w[..., None, :] + pw
        indices = (row_of * w + col_of).astype(np.int64).reshape(x.shape[:-2] + (oh, ow))
        indices_out.append(indices)
        self.save("result1", Tensor._wrap(indices))
        out = np.take_along_axis(flat, pick[..., None], -1)[..., 0]
        return out.reshape(x.shape[:-2] + (oh, ow)).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return FractionalMaxPool2DBackwardBackward0.call(grad, self.unpack("self"),
                                                         indices=self.unpack("result1"))


class FractionalMaxPool2DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    __slots__ = ()
    formulas = (vjp("grad_output", "{grad}.flatten(-2).gather(-1, {indices}.flatten(-2))"
                                   ".view_as({indices})"),
                local("self", "0"))


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any,  # noqa: A002
                                       output_size: Any = None, output_ratio: Any = None,
                                       return_indices: bool = False,
                                       _random_samples: Tensor | None = None
                                       ) -> tuple[Tensor, Tensor]:
    """F.fractional_max_pool2d_with_indices: (values, indices)."""
    from .sampling import rand

    if output_size is None and output_ratio is None:
        raise TorchValueError("fractional_max_pool2d requires specifying either an "
                              "output_size or an output_ratio")
    if output_size is None:
        ratio = (output_ratio, output_ratio) if isinstance(output_ratio, (int, float)) \
            else tuple(output_ratio)
        if len(ratio) > 2:
            raise TorchValueError("fractional_max_pool2d requires output_ratio to either be a "
                                  "single Int or tuple of Ints.")
        ratio = _pair(ratio) if len(ratio) == 1 else ratio
        output_size = [int(input.shape[-2] * ratio[0]), int(input.shape[-1] * ratio[1])]
    if input.ndim not in (3, 4):
        raise TorchRuntimeError("fractional_max_pool2d(): Expected 3D or 4D tensor, but got: "
                                f"[{', '.join(map(str, input.shape))}]")
    if _random_samples is None:
        n_batch = 1 if input.ndim == 3 else input.shape[0]
        _random_samples = rand(n_batch, input.shape[-3], 2, dtype=input.dtype)
    kernel, out = _pair(kernel_size), _pair(output_size)
    for name, k, o, size in (("height", kernel[0], out[0], input.shape[-2]),
                             ("width", kernel[1], out[1], input.shape[-1])):
        if o + k - 1 > size:
            raise TorchRuntimeError(
                f"fractional_max_pool2d(): pool {name} {k} too large relative to input "
                f"{name} {size}")
    sink: list[np.ndarray] = []
    values = FractionalMaxPool2DBackward0.call(input, kernel_size=kernel, output_size=out,
                                               samples=_random_samples.array,
                                               indices_out=sink)
    return values, Tensor._wrap(sink[0])


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    out, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                      output_ratio, return_indices,
                                                      _random_samples)
    return (out, indices) if return_indices else out


class FractionalMaxPool3DBackward0(Function):
    """fractional_max_pool3d(self, kernel_size, output_size, random_samples): each plane's
    samples are (t, h, w), in that order."""

    __slots__ = ()
    formulas = (vjp("self", ROUTED_TO_MAX_3D),)

    def forward(self, a: Tensor, kernel_size: tuple[int, ...], output_size: tuple[int, ...],
                samples: np.ndarray, indices_out: list[np.ndarray]) -> np.ndarray:
        self.save_attr(kernel_size=kernel_size, output_size=output_size)
        self.save("self", a)
        x = a.array
        batched = x.reshape((-1,) + x.shape[-4:])
        n, c = batched.shape[:2]
        size = x.shape[-3:]
        s = samples.reshape(n, c, 3)
        pos = [_intervals(s[..., d], size[d], output_size[d], kernel_size[d])[..., :, None]
               + np.arange(kernel_size[d]) for d in range(3)]  # (N, C, o_d, k_d)
        grids = []
        for d in range(3):
            shape = [n, c, 1, 1, 1, 1, 1, 1]
            shape[2 + d], shape[5 + d] = output_size[d], kernel_size[d]
            grids.append(pos[d].reshape(shape))
        n_idx = np.arange(n).reshape(n, 1, 1, 1, 1, 1, 1, 1)
        c_idx = np.arange(c).reshape(1, c, 1, 1, 1, 1, 1, 1)
        vals = batched[n_idx, c_idx, grids[0], grids[1], grids[2]]
        flat = vals.reshape(vals.shape[:5] + (-1,))
        nan = np.isnan(flat)
        pick = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
        taps = np.unravel_index(pick, kernel_size)
        flat_pos = np.zeros(pick.shape, np.int64)
        for d in range(3):
            start = _intervals(s[..., d], size[d], output_size[d], kernel_size[d])
            shape = [n, c, 1, 1, 1]
            shape[2 + d] = output_size[d]
            flat_pos = flat_pos * size[d] + start.reshape(shape) + taps[d]
        indices = flat_pos.reshape(x.shape[:-3] + tuple(output_size))
        indices_out.append(indices)
        self.save("result1", Tensor._wrap(indices))
        out = np.take_along_axis(flat, pick[..., None], -1)[..., 0]
        return out.reshape(x.shape[:-3] + tuple(output_size)).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return FractionalMaxPool3DBackwardBackward0.call(grad, self.unpack("self"),
                                                         indices=self.unpack("result1"))


class FractionalMaxPool3DBackwardBackward0(MaxPool3DWithIndicesBackwardBackward0):
    __slots__ = ()


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any,  # noqa: A002
                                       output_size: Any = None, output_ratio: Any = None,
                                       return_indices: bool = False,
                                       _random_samples: Tensor | None = None
                                       ) -> tuple[Tensor, Tensor]:
    """F.fractional_max_pool3d_with_indices: (values, indices)."""
    from .sampling import rand

    if output_size is None and output_ratio is None:
        raise TorchValueError("fractional_max_pool3d requires specifying either an "
                              "output_size or an output_ratio")
    if output_size is None:
        ratio = _triple(output_ratio)
        output_size = [int(input.shape[-3 + d] * ratio[d]) for d in range(3)]
    if input.ndim not in (4, 5):
        raise TorchRuntimeError("fractional_max_pool3d_out(): Expected 4D or 5D tensor, but "
                                f"got: [{', '.join(map(str, input.shape))}]")
    if _random_samples is None:
        n_batch = 1 if input.ndim == 4 else input.shape[0]
        _random_samples = rand(n_batch, input.shape[-4], 3, dtype=input.dtype)
    kernel, out = _triple(kernel_size), _triple(output_size)
    for name, d in (("time", 0), ("height", 1), ("width", 2)):
        if out[d] + kernel[d] - 1 > input.shape[-3 + d]:
            raise TorchRuntimeError(
                f"fractional_max_pool3d_out(): pool {name} {kernel[d]} too large relative to "
                f"input {name} {input.shape[-3 + d]}")
    sink: list[np.ndarray] = []
    values = FractionalMaxPool3DBackward0.call(input, kernel_size=kernel, output_size=out,
                                               samples=_random_samples.array,
                                               indices_out=sink)
    return values, Tensor._wrap(sink[0])


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    out, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                      output_ratio, return_indices,
                                                      _random_samples)
    return (out, indices) if return_indices else out
