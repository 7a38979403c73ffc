"""Ops that rearrange or repeat elements: repeat_interleave, rot90 (its own node),
diagflat, cartesian_prod, tril_indices/triu_indices, and the index helpers bucketize,
searchsorted, gcd and lcm. The composite ones are built as ATen builds them, so they record
its nodes."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes, layouts
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import binary_operands, cast, not_implemented
from .clones import CloneBackward0
from .indexing import index_select
from .joins import stack
from .matrices import diag_embed
from .stacking import meshgrid, ravel
from .views import expand, reshape, saved_int, saved_ints, signed, unsqueeze, view


def _repeat_counts(repeats: Tensor) -> Tensor:
    """torch.repeat_interleave(repeats): each index i repeated repeats[i] times."""
    if repeats.dtype.is_floating_point or repeats.dtype.name == "bool":
        raise not_implemented("repeat_interleave_cpu", repeats.dtype)
    if repeats.array.ndim != 1:
        raise TorchRuntimeError("repeats has to be 1D tensor")
    counts = repeats.array.astype(np.int64)
    if (counts < 0).any():
        raise TorchRuntimeError("repeats can not be negative")
    return Tensor._wrap(np.repeat(np.arange(counts.size, dtype=repeats.dtype.np), counts))


def repeat_interleave(a: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    if repeats is None:
        return _repeat_counts(a)
    source = a if dim is not None else reshape(a, -1)  # self.flatten()
    if isinstance(repeats, Tensor):
        d = 0 if dim is None else wrap_dim(dim, a.array.ndim)
        size = source.array.shape[d] if source.array.ndim else 1
        if repeats.array.ndim == 0 or repeats.array.shape == (1,):
            repeats = expand(reshape(repeats, 1), (size,))
        elif repeats.array.ndim == 1:
            if repeats.array.shape[0] != size:
                raise TorchRuntimeError(
                    "repeats must have the same size as input along dim, but got "
                    f"repeats.size(0) = {repeats.array.shape[0]} and input.size({d}) = {size}")
        else:
            raise TorchRuntimeError("repeats must be 0-dim or 1-dim tensor")
        return index_select(source, d, _repeat_counts(repeats))
    if repeats < 0:
        raise TorchRuntimeError("Repeats must be non-negative")
    d = wrap_dim(0 if dim is None else dim, a.array.ndim)
    grown = unsqueeze(source, d + 1)
    shape = list(grown.array.shape)
    shape[d + 1] = int(repeats)
    flat = list(shape[:d]) + [shape[d] * shape[d + 1]] + list(shape[d + 2:])
    copied = CloneBackward0.call(expand(grown, tuple(shape)),
                                 memory_format=layouts.CONTIGUOUS)  # contiguous clone
    return view(copied, *flat)


class Rot90Backward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "rot90({grad}, -{k}, {dims})"),)

    def forward(self, a: Tensor, k: int, dims: tuple[int, ...]) -> np.ndarray:
        ndim = a.array.ndim
        if len(dims) != 2:
            raise TorchRuntimeError(
                f"expected total rotation dims == 2, but got dims = {len(dims)}")
        if ndim < 2:
            raise TorchRuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
        d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
        if d0 == d1:
            raise TorchRuntimeError(
                f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
        self.save_attr(dims=saved_ints(dims), k=saved_int(k))
        return np.rot90(a.array, k, (d0, d1)).copy()

    def backward(self, grad: Tensor) -> Tensor:
        dims = tuple(signed(d) for d in self.attrs["dims"])
        return rot90(grad, -signed(self.attrs["k"]), dims)


def rot90(a: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    return Rot90Backward0.call(a, k=k, dims=tuple(dims))


def diagflat(a: Tensor, offset: int = 0) -> Tensor:
    """torch: diag_embed of the flattened input (contiguous().view(-1))."""
    return diag_embed(ravel(a), offset)


def cartesian_prod(*tensors: Any) -> Tensor:
    """The ij meshgrid, each grid flattened (reshape), stacked as columns."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, -1) for g in grids], 1)


def _indices(which: str, row: int, col: int, offset: int, dtype: Any) -> Tensor:
    if row < 0:
        raise TorchRuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise TorchRuntimeError(f"col must be non-negative, got{col}")
    fn = np.tril_indices if which == "tril" else np.triu_indices
    rows, cols = fn(row, offset, col)
    dtype = dtype or dtypes.int64
    return Tensor._wrap(np.stack([rows, cols]).astype(dtype.np))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 **_: Any) -> Tensor:
    return _indices("tril", row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 **_: Any) -> Tensor:
    return _indices("triu", row, col, offset, dtype)


def searchsorted(sorted_sequence: Tensor, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Tensor:
    """The insertion points of values in each innermost row of sorted_sequence."""
    if side is not None:
        if side not in ("left", "right"):
            raise TorchRuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise TorchRuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True")
        right = side == "right"
    seq = sorted_sequence.array
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter.array, axis=-1)
    scalar = not isinstance(values, Tensor)
    vals = np.asarray(values) if scalar else values.array
    kind = "right" if right else "left"
    if seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=kind)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise TorchRuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                "N-1 dimensions of boundaries tensor and input value tensor must match, but we "
                f"got boundaries tensor {list(seq.shape)} and input value tensor "
                f"{list(vals.shape)}")
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=kind) for s, v in zip(rows_s, rows_v,
                                                                         strict=True)])
        out = out.reshape(vals.shape)
    return Tensor._wrap(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input: Tensor, boundaries: Tensor, *, out_int32: bool = False,  # noqa: A002
              right: bool = False) -> Tensor:
    if boundaries.array.ndim != 1:
        raise TorchRuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.array.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _integer_pair(name: str, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, Any]:
    ta, tb, dtype = binary_operands(a, b)
    if dtype.is_floating_point or dtype.name == "bool":
        raise not_implemented(f"{name}_cpu", dtype)
    return cast(ta.array, dtype), cast(tb.array, dtype), dtype


def gcd(a: Tensor, other: Tensor) -> Tensor:
    x, y, dtype = _integer_pair("gcd", a, other)
    return Tensor._wrap(np.asarray(np.gcd(x, y), dtype=dtype.np))


def lcm(a: Tensor, other: Tensor) -> Tensor:
    x, y, dtype = _integer_pair("lcm", a, other)
    return Tensor._wrap(np.asarray(np.lcm(x, y), dtype=dtype.np))


def gcd_(a: Tensor, other: Tensor) -> Tensor:
    return _integer_inplace(a, gcd(a, other))


def lcm_(a: Tensor, other: Tensor) -> Tensor:
    return _integer_inplace(a, lcm(a, other))


def _integer_inplace(a: Tensor, result: Tensor) -> Tensor:
    """Integer ops have no gradient: the result is written into a (torch's same-kind cast
    check, the shape of a kept) and its version bumped."""
    from ..tensor import bump_version
    from ._util import check_inplace

    check_inplace(a)
    if result.array.shape != a.array.shape:
        raise TorchRuntimeError(
            f"output with shape [{', '.join(map(str, a.array.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, result.array.shape))}]")
    if not np.can_cast(result.dtype.np, a.dtype.np, "same_kind"):
        from .indexing import cast_name

        raise TorchRuntimeError(f"result type {cast_name(result.dtype)} can't be cast to the "
                                f"desired output type {cast_name(a.dtype)}")
    np.copyto(a.array, result.array, casting="unsafe")
    bump_version(a)
    return a
