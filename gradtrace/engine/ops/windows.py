"""Tensor.unfold: every window of `size` elements taken `step` apart along a dimension, as a
view (UnfoldBackward0), and its backward unfold_backward (UnfoldBackwardBackward0), which
adds each window's gradient back where it came from, window after window."""
from __future__ import annotations

import numpy as np

from ...errors import TorchRuntimeError
from ..formulas import vjp
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
