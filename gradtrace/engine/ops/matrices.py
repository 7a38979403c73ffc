"""Matrix-shaped ops: tril/triu, diag, diagonal (a view), diag_embed, trace, roll, tile."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes, reduction_kernels
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..limits import reserve
from ..node import Function
from ..shapes import size_args, wrap_dim
from ..tensor import Tensor
from ._util import apply_inplace, not_implemented, write_where
from .clones import repeat
from .views import ViewFunction, saved_int, saved_ints, signed


def _triangle_overlap(lower: bool) -> Any:
    """tril_/triu_'s overlap_write: into an expand torch's kernel writes a zero into each
    element outside the kept triangle (no overlap check), and leaves the others be."""
    def overlap(inputs: tuple, params: dict[str, Any]) -> Any:
        def write(window: np.ndarray, out: np.ndarray) -> None:
            keep = (np.tril if lower else np.triu)(np.ones(window.shape[-2:], dtype=bool),
                                                    params["diagonal"])
            write_where(np.broadcast_to(~keep, window.shape))(window, out)
        return write
    return overlap


class _Triangle(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    lower = True

    def forward(self, a: Tensor, diagonal: int) -> np.ndarray:
        if a.array.ndim < 2:
            name = "tril" if self.lower else "triu"
            raise TorchRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        self.save_attr(diagonal=saved_int(diagonal))
        f = np.tril if self.lower else np.triu
        return f(a.array, diagonal)

    def backward(self, grad: Tensor) -> Tensor:
        k = signed(self.attrs["diagonal"])
        return tril(grad, k) if self.lower else triu(grad, k)


class TrilBackward0(_Triangle):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.tril({diagonal})"),)
    overlap_write = staticmethod(_triangle_overlap(lower=True))


class TriuBackward0(_Triangle):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.triu({diagonal})"),)
    lower = False
    overlap_write = staticmethod(_triangle_overlap(lower=False))


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    return TrilBackward0.call(a, diagonal=diagonal)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    return TriuBackward0.call(a, diagonal=diagonal)


def tril_(a: Tensor, diagonal: int = 0) -> Tensor:
    return apply_inplace(TrilBackward0, a, diagonal=diagonal)


def triu_(a: Tensor, diagonal: int = 0) -> Tensor:
    return apply_inplace(TriuBackward0, a, diagonal=diagonal)


def _diagonal_view(x: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """A writable strided view of a diagonal, moved to the last dim (torch's layout)."""
    n1, n2 = x.shape[d1], x.shape[d2]
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n1 - start1, n2 - start2))
    rest = [i for i in range(x.ndim) if i not in (d1, d2)]
    shape = tuple(x.shape[i] for i in rest) + (length,)
    strides = tuple(x.strides[i] for i in rest) + (x.strides[d1] + x.strides[d2],)
    base = x[(slice(None),) * 0]
    start = [0] * x.ndim
    if length:
        start[d1], start[d2] = start1, start2
    origin = base[tuple(slice(s, None) for s in start)] if length else base
    return np.lib.stride_tricks.as_strided(origin, shape, strides,
                                           writeable=x.flags.writeable)


class DiagonalBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros({self_sym_sizes}).diagonal_scatter({grad}, {offset}, {dim1}, "
                    "{dim2})"),)

    def forward(self, a: Tensor, offset: int, dim1: int, dim2: int) -> np.ndarray:
        d1, d2 = wrap_dim(dim1, a.array.ndim), wrap_dim(dim2, a.array.ndim)
        if d1 == d2:
            raise TorchRuntimeError(
                f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        self.save_attr(dim1=saved_int(dim1), dim2=saved_int(dim2), offset=saved_int(offset),
                       self_sym_sizes=a.array.shape)
        return _diagonal_view(a.array, offset, d1, d2)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return DiagonalBackwardBackward0.call(grad, input_sizes=a["self_sym_sizes"],
                                              offset=signed(a["offset"]),
                                              dim1=signed(a["dim1"]), dim2=signed(a["dim2"]))


class DiagonalCopy(Function):
    """torch.diag of a matrix: diagonal_copy (node DiagonalBackward0_copy)."""

    __slots__ = ()
    formulas = DiagonalBackward0.formulas
    forward = DiagonalBackward0.forward
    backward = DiagonalBackward0.backward

    def name(self) -> str:
        return "DiagonalBackward0_copy"

    @classmethod
    def call(cls, *inputs: Tensor, **params: Any) -> Any:
        out = super().call(*inputs, **params)
        out.array = out.array.copy()
        return out


DiagonalCopy.__name__ = "DiagonalBackward0_copy"


class DiagonalBackwardBackward0(Function):
    """diagonal_backward(grad_output, input_sizes, offset, dim1, dim2) as an op."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "{grad}.diagonal({offset}, {dim1}, {dim2})"),)

    def forward(self, grad: Tensor, input_sizes: tuple[int, ...], offset: int, dim1: int,
                dim2: int) -> np.ndarray:
        self.save_attr(dim1=saved_int(dim1), dim2=saved_int(dim2), offset=saved_int(offset))
        out = np.zeros(input_sizes, dtype=grad.array.dtype)
        n = len(input_sizes)
        _diagonal_view(out, offset, wrap_dim(dim1, n), wrap_dim(dim2, n))[...] = grad.array
        return out

    def backward(self, gg: Tensor) -> Tensor:
        a = self.attrs
        return diagonal(gg, signed(a["offset"]), signed(a["dim1"]), signed(a["dim2"]))


def diagonal(a: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return DiagonalBackward0.call(a, offset=offset, dim1=dim1, dim2=dim2)


class DiagEmbedBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.diagonal({offset}, {dim1}, {dim2})"),)

    def forward(self, a: Tensor, offset: int, dim1: int, dim2: int) -> np.ndarray:
        n = a.array.ndim + 1
        d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
        if d1 == d2:
            raise TorchRuntimeError(
                f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        self.save_attr(dim1=saved_int(dim1), dim2=saved_int(dim2), offset=saved_int(offset))
        size = a.array.shape[-1] + abs(offset) if a.array.ndim else abs(offset) + 1
        shape = list(a.array.shape[:-1])
        for d in sorted((d1, d2)):
            shape.insert(d, size)
        reserve(tuple(shape), 8)
        out = np.zeros(shape, dtype=a.array.dtype)
        _diagonal_view(out, offset, d1, d2)[...] = a.array
        return out

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return diagonal(grad, signed(a["offset"]), signed(a["dim1"]), signed(a["dim2"]))


def diag_embed(a: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return DiagEmbedBackward0.call(a, offset=offset, dim1=dim1, dim2=dim2)


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """torch.diag: a vector becomes a matrix (diag_embed), a matrix gives its diagonal."""
    if a.array.ndim == 1:
        return DiagEmbedBackward0.call(a, offset=diagonal, dim1=-2, dim2=-1)
    if a.array.ndim != 2:
        raise TorchRuntimeError("diag(): Supports 1D or 2D tensors. Got "
                                f"{a.array.ndim}D")
    return DiagonalCopy.call(a, offset=diagonal, dim1=0, dim2=1)


class TraceBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "δᵢⱼ"),)  # 1 on the diagonal, 0 elsewhere

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype is dtypes.bool_:  # the kernel's dispatch comes before its dim check
            raise not_implemented("trace", a.dtype)
        if a.array.ndim != 2:
            raise TorchRuntimeError("trace: expected a matrix, but got tensor with dim "
                                    f"{a.array.ndim}")
        self.save_attr(self_sym_sizes=a.array.shape)
        return reduction_kernels.trace(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        """torch's trace_backward: zeros(n * m).index_fill_(0, diagonal positions, grad),
        viewed as the matrix."""
        from .indexing import index_fill_

        rows, cols = self.attrs["self_sym_sizes"]
        flat = Tensor._wrap(np.zeros(rows * cols, dtype=grad.array.dtype))
        positions = Tensor._wrap(np.arange(0, rows * cols, cols + 1, dtype=np.int64))
        return index_fill_(flat, 0, positions, grad).view(rows, cols)


def trace(a: Tensor) -> Tensor:
    return TraceBackward0.call(a)


class RollBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.roll(-{shifts}, {dims})"),)

    def forward(self, a: Tensor, shifts: tuple[int, ...], dims: tuple[int, ...]) -> np.ndarray:
        self.save_attr(dims=saved_ints(dims), shifts=saved_ints(shifts))
        if not dims:
            return np.roll(a.array.reshape(-1), shifts[0]).reshape(a.array.shape)
        axes = tuple(wrap_dim(d, a.array.ndim) for d in dims)
        # (roll_common fills empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT): row-major)
        return np.asarray(np.roll(a.array, shifts, axis=axes), order="C")

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        shifts = tuple(-signed(s) for s in reversed(a["shifts"]))
        dims = tuple(signed(d) for d in reversed(a["dims"]))
        return roll(grad, shifts, dims)


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if dims and len(shifts) != len(dims):
        raise TorchRuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if not dims and len(shifts) != 1:
        raise TorchRuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    return RollBackward0.call(a, shifts=shifts, dims=dims)


def tile(a: Tensor, *dims: Any) -> Tensor:
    """torch.tile: repeat with the reps padded by leading ones to the tensor's dims."""
    reps = size_args(dims, "dims")
    if len(reps) < a.array.ndim:
        reps = (1,) * (a.array.ndim - len(reps)) + tuple(reps)
    return repeat(a, *reps)
