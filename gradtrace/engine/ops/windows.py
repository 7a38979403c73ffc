"""Tensor.unfold: every window of `size` elements taken `step` apart along a dimension, as a
view (UnfoldBackward0), and its backward unfold_backward (UnfoldBackwardBackward0), which
adds each window's gradient back where it came from, window after window."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..limits import reserve
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from .views import ViewFunction, saved_int, signed


def _windows(x: np.ndarray, dim: int, size: int, step: int) -> np.ndarray:
    """The strided view: dim's length becomes the window count, a last dim of `size`."""
    n = x.shape[dim] if x.ndim else 1
    count = (n - size) // step + 1
    if not x.ndim:
        return np.lib.stride_tricks.as_strided(x, (size,), (x.itemsize,),
                                               writeable=x.flags.writeable)
    shape = x.shape[:dim] + (count,) + x.shape[dim + 1:] + (size,)
    strides = x.strides[:dim] + (x.strides[dim] * step,) + x.strides[dim + 1:] + (x.strides[dim],)
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)


def _check(ndim: int, shape: tuple[int, ...], dimension: int, size: int, step: int) -> int:
    d = wrap_dim(dimension, max(ndim, 1))
    n = shape[d] if ndim else 1
    if size > n:
        raise TorchRuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is "
                                f"{size}")
    if size < 0:
        raise TorchRuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise TorchRuntimeError(f"step is {step} but must be > 0")
    return d


class UnfoldBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "unfold_backward({grad}, {self_sym_sizes}, {dimension}, {size}, "
                    "{step})"),)

    def forward(self, a: Tensor, dimension: int, size: int, step: int) -> np.ndarray:
        d = _check(a.array.ndim, a.array.shape, dimension, size, step)
        self.save_attr(dimension=saved_int(dimension), self_sym_sizes=a.array.shape, size=size,
                       step=step)
        return _windows(a.array, d, size, step)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return UnfoldBackwardBackward0.call(grad, input_sizes=a["self_sym_sizes"],
                                            dim=signed(a["dimension"]), size=a["size"],
                                            step=a["step"])


class UnfoldBackwardBackward0(Function):
    """unfold_backward(grad_in, input_sizes, dim, size, step) as an op: a zero tensor of the
    input's shape, each window's gradient added in window order (ATen's kernel walks the
    windows holding an element in ascending order)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_in", "{grad}.unfold({dim}, {size}, {step})"),)

    def forward(self, grad: Tensor, input_sizes: tuple[int, ...], dim: int, size: int,
                step: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), size=size, step=step)
        g = grad.array
        reserve(tuple(input_sizes), 8)
        out = np.zeros(input_sizes, dtype=g.dtype)
        if not input_sizes:
            return np.asarray(g.sum(), g.dtype) if g.size else out
        d = wrap_dim(dim, len(input_sizes))
        moved = np.moveaxis(out, d, -1)  # a view: windows along the last axis
        windows = np.moveaxis(g, d, -2)  # (..., count, size)
        for k in range(windows.shape[-2]):
            moved[..., k * step:k * step + size] += windows[..., k, :]
        return out

    def backward(self, gg: Tensor) -> Tensor:
        a = self.attrs
        return unfold(gg, signed(a["dim"]), a["size"], a["step"])


def unfold(a: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return UnfoldBackward0.call(a, dimension=dimension, size=size, step=step)


# -- F.unfold / F.fold: im2col and col2im --------------------------------------------------


def _pair(value: Any) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def _blocks(size: tuple[int, int], kernel: tuple[int, int], dilation: tuple[int, int],
            padding: tuple[int, int], stride: tuple[int, int]) -> tuple[int, int]:
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                 for i in range(2))  # type: ignore[return-value]


def _check_kernel(kernel: tuple[int, int]) -> None:
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise TorchRuntimeError("kernel size should be greater than zero, but got kernel_height: "
                                f"{kernel[0]} kernel_width: {kernel[1]}")


def _col_index(channels: int, size: tuple[int, int], kernel: tuple[int, int],
               dilation: tuple[int, int], padding: tuple[int, int], stride: tuple[int, int],
               blocks: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """For every column entry in ATen's loop order (c_col, h_col, w_col): whether it reads
    the image, and the flat image position it reads."""
    kh, kw = kernel
    c_col = np.arange(channels * kh * kw)
    w_off, h_off, c_im = c_col % kw, (c_col // kw) % kh, c_col // (kh * kw)
    h_im = (np.arange(blocks[0]) * stride[0] - padding[0])[None, :, None] \
        + (h_off * dilation[0])[:, None, None]
    w_im = (np.arange(blocks[1]) * stride[1] - padding[1])[None, None, :] \
        + (w_off * dilation[1])[:, None, None]
    valid = (h_im >= 0) & (h_im < size[0]) & (w_im >= 0) & (w_im < size[1])
    flat = (c_im[:, None, None] * size[0] + h_im) * size[1] + w_im
    return valid.reshape(-1), np.where(valid, flat, 0).reshape(-1)


class Im2ColBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "col2im({grad}, ({self_sym_argsize_minus_2}, "
                    "{self_sym_argsize_minus_1}), {kernel_size}, {dilation}, {padding}, "
                    "{stride})"),)

    def forward(self, a: Tensor, kernel_size: Any, dilation: Any, padding: Any,
                stride: Any) -> np.ndarray:
        kernel, dil, pad, st = (_pair(v) for v in (kernel_size, dilation, padding, stride))
        _check_kernel(kernel)
        x = a.array
        if x.ndim < 3:
            wrap_dim(x.ndim, x.ndim)  # torch's IndexError for the missing channel dim
        batched = x.ndim == 4
        xb = x if batched else x[None]
        n, c, h, w = xb.shape
        blocks = _blocks((h, w), kernel, dil, pad, st)
        if blocks[0] < 1 or blocks[1] < 1:
            raise TorchRuntimeError(
                f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, "
                f"dilation={dil}, padding={pad}, calculated shape of the array of sliding "
                f"blocks as {blocks}, but its components must be at least one.")
        self.save_attr(dilation=dil, kernel_size=kernel, padding=pad,
                       self_sym_argsize_minus_1=w, self_sym_argsize_minus_2=h, stride=st)
        reserve((n, c * kernel[0] * kernel[1], blocks[0] * blocks[1]), 8)
        valid, flat = _col_index(c, (h, w), kernel, dil, pad, st, blocks)
        cols = np.where(valid, xb.reshape(n, -1)[:, flat], xb.dtype.type(0))
        cols = cols.reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])
        return cols if batched else cols[0]

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return fold(grad, (a["self_sym_argsize_minus_2"], a["self_sym_argsize_minus_1"]),
                    a["kernel_size"], a["dilation"], a["padding"], a["stride"])


class Col2ImBackward0(Function):
    """col2im: a zero image, each column entry added to the pixel it came from in ATen's loop
    order (column channel, then block row, then block column)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "im2col({grad}, {kernel_size}, {dilation}, {padding}, {stride})"),)

    def forward(self, a: Tensor, output_size: Any, kernel_size: Any, dilation: Any,
                padding: Any, stride: Any) -> np.ndarray:
        size, kernel, dil, pad, st = (_pair(v) for v in (output_size, kernel_size, dilation,
                                                         padding, stride))
        _check_kernel(kernel)
        x = a.array
        if x.ndim < 2:
            wrap_dim(x.ndim, x.ndim)
        batched = x.ndim == 3
        xb = x if batched else x[None]
        n, rows, length = xb.shape
        per = kernel[0] * kernel[1]
        if rows % per:
            raise TorchRuntimeError(
                "Expected size of input's dimension 1 to be divisible by the product of "
                f"kernel_size, but got input.size(1)={rows} and kernel_size={kernel}.")
        blocks = _blocks(size, kernel, dil, pad, st)
        if blocks[0] * blocks[1] != length:
            raise TorchRuntimeError(
                f"Given output_size={size}, kernel_size={kernel}, dilation={dil}, "
                f"padding={pad}, stride={st}, expected size of input's dimension 2 to match "
                f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
        self.save_attr(dilation=dil, kernel_size=kernel, padding=pad, stride=st)
        c = rows // per
        reserve((n, c, size[0], size[1]), 8)
        valid, flat = _col_index(c, size, kernel, dil, pad, st, blocks)
        out = np.zeros((n, c * size[0] * size[1]), dtype=x.dtype)
        for i in range(n):  # np.add.at adds in index order: ATen's loop order
            np.add.at(out[i], flat[valid], xb[i].reshape(-1)[valid])
        out = out.reshape(n, c, size[0], size[1])
        return out if batched else out[0]

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return im2col(grad, a["kernel_size"], a["dilation"], a["padding"], a["stride"])


def im2col(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
           stride: Any = 1) -> Tensor:
    """F.unfold."""
    return Im2ColBackward0.call(input, kernel_size=kernel_size, dilation=dilation,
                                padding=padding, stride=stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,  # noqa: A002
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """F.fold."""
    return Col2ImBackward0.call(input, output_size=output_size, kernel_size=kernel_size,
                                dilation=dilation, padding=padding, stride=stride)
