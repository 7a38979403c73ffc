"""select, slice and narrow: the views that keep part of a dimension (SelectBackward0,
SliceBackward0), and their backward ops, which create_graph records (select_backward,
slice_backward write the gradient into zeros). The other views are in views.py; `t[...]`
in subscript.py."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchValueError
from ..dtypes import INT64_MAX
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..node import Function
from ..tensor import Tensor
from .views import ViewFunction, _wrap, saved_int, signed


class SelectBackwardBackward0(Function):
    """select's backward (zeros with the gradient written in) as an op, for create_graph."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "{grad}.select({dim}, {index})"),)

    def forward(self, grad: Tensor, sizes: tuple[int, ...], dim: int, index: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), index=saved_int(index))  # torch saves no sizes
        out = np.zeros(sizes, dtype=grad.array.dtype)
        d = dim % len(sizes)
        out[(slice(None),) * d + (index,)] = grad.array
        return out

    def backward(self, gg: Tensor) -> Tensor:
        return select(gg, signed(self.attrs["dim"]), signed(self.attrs["index"]))


class SelectBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros({self_sym_sizes}).select_scatter({grad}, {dim}, {index})"),)

    def forward(self, a: Tensor, dim: int, index: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), index=saved_int(index), self_sym_sizes=a.array.shape)
        d = dim % a.array.ndim
        return a.array[(slice(None),) * d + (index, Ellipsis)]  # a 0-d result stays a view

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return SelectBackwardBackward0.call(grad, sizes=a["self_sym_sizes"], dim=signed(a["dim"]),
                                            index=signed(a["index"]))


def select_index(a: Tensor, dim: int, index: Any) -> int:
    """select()'s checks, with torch's messages (select and select_copy): the index as an
    int, within the size of dimension `dim`."""
    if a.array.ndim == 0:
        raise TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, a.array.ndim)
    index = int(index)
    size = a.array.shape[d]
    if not -size <= index < size:
        shape = ", ".join(map(str, a.array.shape))
        raise TorchIndexError(
            f"select(): index {index} out of range for tensor of size [{shape}] at dimension {d}")
    return index


def select(a: Tensor, dim: int, index: Any) -> Tensor:
    return SelectBackward0.call(a, dim=dim, index=select_index(a, dim, index))


class SliceBackwardBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "{grad}.slice({dim}, {start}, {end}, {step})"),)

    def forward(self, grad: Tensor, sizes: tuple[int, ...], dim: int, start: int, end: int,
                step: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), end=saved_int(end), start=saved_int(start),
                       step=step)  # torch saves no sizes
        out = np.zeros(sizes, dtype=grad.array.dtype)
        out[_slice_key(len(sizes), dim, start, end, step)] = grad.array
        return out

    def backward(self, gg: Tensor) -> Tensor:
        a = self.attrs
        return SliceBackward0.call(gg, dim=signed(a["dim"]), start=signed(a["start"]),
                                   end=signed(a["end"]), step=a["step"])


def _slice_key(ndim: int, dim: int, start: int, end: int, step: int) -> tuple:
    return (slice(None),) * (dim % ndim) + (slice(start, end, step),)


class SliceBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros({self_sym_sizes}).slice_scatter({grad}, {dim}, {start}, "
                    "{end}, {step})"),)

    def forward(self, a: Tensor, dim: int, start: int, end: int, step: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), end=saved_int(end), self_sym_sizes=a.array.shape,
                       start=saved_int(start), step=step)
        return a.array[_slice_key(a.array.ndim, dim, start, end, step)]

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        start, end = signed(a["start"]), signed(a["end"])
        return SliceBackwardBackward0.call(  # slice_backward's start and end are not optional
            grad, sizes=a["self_sym_sizes"], dim=signed(a["dim"]),
            start=0 if start is None else start, end=INT64_MAX if end is None else end,
            step=a["step"])


def slice_op(a: Tensor, dim: int, start: Any, end: Any, step: Any) -> Tensor:
    """Tensor.slice as indexing records it: None start is 0, None end is INT64_MAX."""
    if a.array.ndim == 0:
        raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
    step = 1 if step is None else int(step)
    if step <= 0:
        raise TorchValueError("step must be greater than zero")
    start = 0 if start is None else int(start)
    end = INT64_MAX if end is None else int(end)
    return SliceBackward0.call(a, dim=dim, start=start, end=end, step=step)


def narrow(a: Tensor, dim: int, start: Any, length: int) -> Tensor:
    if a.array.ndim == 0:
        raise TorchRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, a.array.ndim)
    size = a.array.shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise TorchIndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0:
        raise TorchRuntimeError("narrow(): length must be non-negative.")
    if start < 0:
        start += size
    if start + length > size:
        raise TorchRuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return SliceBackward0.call(a, dim=dim, start=start, end=start + length, step=1)

