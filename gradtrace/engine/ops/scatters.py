"""The view-scatter ops (select_scatter, slice_scatter, diagonal_scatter: a copy of self
with src written where the view would read), block_diag, and fill_diagonal_ (a fill of
diagonal views, so it records CopySlices as torch's as_strided fill does)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from .. import dtypes
from ..dtypes import INT64_MAX
from ..formulas import each, vjp
from ..forward_ad import linear_in_all
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from .matrices import diagonal
from .select_views import SliceBackward0, select, slice_op
from .views import saved_int, signed, squeeze, sum_to


def _check_src(src: np.ndarray, region: np.ndarray) -> None:
    if src.shape != region.shape:
        raise TorchRuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"[{', '.join(map(str, src.shape))}], slice size = "
            f"[{', '.join(map(str, region.shape))}]")


def _written(a: Tensor, src: Tensor, key: Any) -> np.ndarray:
    out = a.array.copy()
    _check_src(src.array, out[key])
    out[key] = src.array.astype(out.dtype, copy=False)
    return out


class SelectScatterBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: auto_linear in every input
    formulas = (vjp("self", "{grad}.select_scatter(zeros_like({src}), {dim}, {index})"),
                vjp("src", "{grad}.select({dim}, {index})"))

    def forward(self, a: Tensor, src: Tensor, dim: int, index: int) -> np.ndarray:
        if a.array.ndim == 0:
            raise TorchIndexError("select() cannot be applied to a 0-dim tensor.")
        d = wrap_dim(dim, a.array.ndim)
        size = a.array.shape[d]
        if not -size <= index < size:
            shape = ", ".join(map(str, a.array.shape))
            raise TorchIndexError(f"select(): index {index} out of range for tensor of size "
                                  f"[{shape}] at dimension {d}")
        self.save_attr(dim=saved_int(dim), index=saved_int(index))
        return _written(a, src, (slice(None),) * d + (index, Ellipsis))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), signed(self.attrs["index"])
        g_self = g_src = None
        if self.needs_input_grad(0):
            meta = self.input_meta[1]
            g_self = select_scatter(grad, Tensor._wrap(np.zeros(meta[0], grad.array.dtype)),
                                    dim, index)
        if self.needs_input_grad(1):
            g_src = select(grad, dim, index)
        return g_self, g_src


def select_scatter(a: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return SelectScatterBackward0.call(a, src, dim=dim, index=int(index))


class SliceScatterBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: auto_linear in every input
    formulas = (vjp("self", "{grad}.slice_scatter(zeros_like({src}), {dim}, {start}, {end}, "
                            "{step})"),
                vjp("src", "{grad}.slice({dim}, {start}, {end}, {step})"))

    def forward(self, a: Tensor, src: Tensor, dim: int, start: int | None, end: int | None,
                step: int) -> np.ndarray:
        if a.array.ndim == 0:
            raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
        d = wrap_dim(dim, a.array.ndim)
        if step <= 0:
            raise TorchRuntimeError("slice step must be positive")
        self.save_attr(dim=saved_int(dim), end=saved_int(end), start=saved_int(start),
                       step=step)
        return _written(a, src, (slice(None),) * d + (slice(start, end, step),))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        dim, step = signed(at["dim"]), at["step"]
        start, end = signed(at["start"]), signed(at["end"])
        g_self = g_src = None
        if self.needs_input_grad(0):
            meta = self.input_meta[1]
            g_self = slice_scatter(grad, Tensor._wrap(np.zeros(meta[0], grad.array.dtype)),
                                   dim, start, end, step)
        if self.needs_input_grad(1):
            g_src = SliceBackward0.call(grad, dim=dim, start=start, end=end, step=step)
        return g_self, g_src


def slice_scatter(a: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    return SliceScatterBackward0.call(a, src, dim=dim, start=start, end=end, step=step)


def _diagonal_key(shape: tuple[int, ...], offset: int, d1: int, d2: int) -> tuple:
    """Index arrays that pick diagonal(offset, d1, d2), the diagonal last, as torch's view
    lays it out."""
    n = max(0, min(shape[d1] + min(offset, 0), shape[d2] - max(offset, 0)))
    rows = np.arange(n) - min(offset, 0)
    cols = np.arange(n) + max(offset, 0)
    key: list[Any] = [None] * len(shape)
    key[d1], key[d2] = rows, cols
    # the other dims come first, broadcast against the diagonal (the last axis)
    others = [i for i in range(len(shape)) if i not in (d1, d2)]
    m = len(others)
    for j, i in enumerate(others):
        key[i] = np.arange(shape[i]).reshape((-1,) + (1,) * (m - j))
    return tuple(key)


class DiagonalScatterBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: auto_linear in every input
    formulas = (vjp("self", "{grad}.diagonal_scatter(zeros_like({src}), {offset}, {dim1}, "
                            "{dim2})"),
                vjp("src", "{grad}.diagonal({offset}, {dim1}, {dim2})"))

    def forward(self, a: Tensor, src: Tensor, offset: int, dim1: int, dim2: int) -> np.ndarray:
        d1, d2 = wrap_dim(dim1, a.array.ndim), wrap_dim(dim2, a.array.ndim)
        if d1 == d2:
            raise TorchRuntimeError(
                f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        self.save_attr(dim1=saved_int(dim1), dim2=saved_int(dim2), offset=saved_int(offset))
        return _written(a, src, _diagonal_key(a.array.shape, offset, d1, d2))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        offset, dim1, dim2 = signed(at["offset"]), signed(at["dim1"]), signed(at["dim2"])
        g_self = g_src = None
        if self.needs_input_grad(0):
            meta = self.input_meta[1]
            g_self = diagonal_scatter(grad, Tensor._wrap(np.zeros(meta[0], grad.array.dtype)),
                                      offset, dim1, dim2)
        if self.needs_input_grad(1):
            g_src = diagonal(grad, offset, dim1, dim2)
        return g_self, g_src


def diagonal_scatter(a: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    return DiagonalScatterBackward0.call(a, src, offset=offset, dim1=dim1, dim2=dim2)


def _block(t: Tensor) -> tuple[int, int]:
    shape = t.array.shape
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape


class BlockDiagBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # derivatives.yaml: auto_linear in every input
    formulas = (each("tensors", "{grad}.split([t.shape[0] for t in tensors], 0)[{i}]"
                                ".split([t.shape[1] for t in tensors], 1)[{i}].view_as(t)"),)

    def forward(self, *tensors: Tensor) -> np.ndarray:
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            dtype = dtypes.promote(dtype, t.dtype)
        blocks = [_block(t) for t in tensors]
        rows, cols = sum(b[0] for b in blocks), sum(b[1] for b in blocks)
        out = np.zeros((rows, cols), dtype=dtype.np)
        r = c = 0
        for t, (h, w) in zip(tensors, blocks, strict=True):
            out[r:r + h, c:c + w] = t.array.reshape(h, w)
            r, c = r + h, c + w
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        grads: list[Tensor | None] = []
        r = c = 0
        for i, (shape, dtype) in enumerate(self.input_meta):
            # torch's block_diag_backward takes an empty 1-d input as a (0, 0) block (the
            # forward as a (1, 0) one): the next block's gradient is read a row early
            h, w = (1, 1) if not shape else (int(shape[0] > 0), shape[0]) if len(
                shape) == 1 else shape
            if h == 0 or w == 0:
                grads.append(Tensor._wrap(np.zeros(shape, dtype.np)))
                r, c = r + h, c + w
                continue
            if self.needs_input_grad(i):
                g = slice_op(slice_op(grad, 0, r, r + h, 1), 1, c, c + w, 1)
                for _ in range(2 - len(shape)):  # torch: squeeze(-1) per missing dim
                    g = squeeze(g, -1)
                if g.array.shape != shape:  # a (1, n) block of a 1-d input: the engine's sum_to
                    g = sum_to(g, shape)
                if g.dtype is not dtype:
                    g = g.to(dtype)
                grads.append(g)
            else:
                grads.append(None)
            r, c = r + h, c + w
        return tuple(grads)


def block_diag(*tensors: Tensor) -> Tensor:
    for i, t in enumerate(tensors):
        if t.array.ndim > 2:
            raise TorchRuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.array.ndim} dimensions")
    if not tensors:
        return Tensor._wrap(np.zeros((1, 0), dtype=dtypes.get_default_dtype().np))
    return BlockDiagBackward0.call(*tensors)


def fill_diagonal_(a: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """torch fills the main diagonal (all indices equal) through an as_strided view, and for
    a tall matrix with wrap=True the diagonals that restart every width + 1 rows."""
    ndim = a.array.ndim
    if ndim < 2:
        raise TorchRuntimeError("dimensions must larger than 1")
    height, width = a.array.shape[:2]
    if ndim > 2 and any(s != height for s in a.array.shape[1:]):
        raise TorchRuntimeError("all dimensions of input must be of equal length")
    diag = diagonal(a, 0, 0, 1)
    for _ in range(ndim - 2):
        diag = diagonal(diag, 0, 0, -1)
    diag.fill_(fill_value)
    if wrap and ndim == 2 and height > width + 1:
        fill_diagonal_(slice_op(a, 0, width + 1, INT64_MAX, 1), fill_value, wrap=True)
    return a


TENSOR_METHODS = {
    "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "diagonal_scatter": diagonal_scatter, "fill_diagonal_": fill_diagonal_,
}
TORCH_FUNCTIONS = {"block_diag": block_diag}
