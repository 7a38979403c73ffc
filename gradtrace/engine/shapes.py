"""Shapes: torch.Size, dim wrapping, broadcasting, and reducing gradients to a shape."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import TorchIndexError, TorchRuntimeError, TorchTypeError


class Size(tuple):
    """torch.Size: a tuple that prints as `torch.Size([2, 3])`."""

    __slots__ = ()
    python_type_name = "torch.Size"  # the name Python's messages give the type

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64)) if self else 1

    def __getitem__(self, index: Any) -> Any:
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    # a torch.Size joined with or repeated like a tuple is a torch.Size, on either side
    def __add__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> Any:
        if not hasattr(type(n), "__index__"):  # (Python's sequence-repeat refusal)
            raise TypeError(f"can't multiply sequence by non-int of type '{type(n).__name__}'")
        result = tuple.__mul__(self, n)
        return result if result is NotImplemented else Size(result)

    __rmul__ = __mul__


def wrap_dim(dim: Any, ndim: int) -> int:
    """A possibly negative dim as an index, with torch's IndexError when out of range."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TorchTypeError(f"dim must be an int, not {type(dim).__name__}")
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise TorchIndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})")
    return dim % rank


def size_args(args: tuple[Any, ...], what: str = "size") -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))` and `f([2, 3])` all mean the shape (2, 3); a one-element
    integer tensor, or a 0-d integer numpy array, stands for its value, as Python's __index__
    makes it in torch."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, (int, np.integer)) and (out or not isinstance(a, bool)):
            out.append(int(a))  # (a bool after the first item, as torch unpacks it)
        elif hasattr(a, "grad_fn") and a.numel() == 1 and a.dtype.np.kind in "iu":
            out.append(int(a.array.reshape(())))  # a one-element integer tensor
        elif (index := _numpy_index(a)) is not None:
            out.append(index)  # a 0-d integer numpy array (its __index__)
        else:
            name = "Tensor" if hasattr(a, "grad_fn") else type(a).__name__
            raise TorchTypeError(
                f"{what}(): argument '{what}' must be tuple of ints, but found element of type "
                f"{name} at pos {len(out)}")
    return tuple(out)


def _numpy_index(a: Any) -> int | None:
    """A script's 0-d integer numpy array as its int; None for anything else."""
    from .ndarray import ndarray  # (ndarray.py imports this module)

    if type(a) is ndarray and a.a.ndim == 0 and a.a.dtype.kind in "iu":
        return int(a.a)
    return None


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """numpy/torch broadcasting, with torch's message when the shapes do not fit."""
    if a == b:
        return a
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = [0] * n
    for i in range(n - 1, -1, -1):  # torch reports the last mismatching dim first
        x, y = pa[i], pb[i]
        if x == y or y == 1:
            out[i] = x
        elif x == 1:
            out[i] = y
        else:
            raise TorchRuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}")
    return tuple(out)


def sum_to_dims(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """The dims to sum (keepdim) so a `shape` gradient reduces to `target` (torch's sum_to)."""
    lead = len(shape) - len(target)
    dims = list(range(lead))
    for i, t in enumerate(target):
        if t == 1 and shape[lead + i] != 1:
            dims.append(lead + i)
    return tuple(dims)


def is_expandable_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def view_strides(shape: tuple[int, ...], strides: tuple[int, ...],
                 new_shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """torch's computeStride: the strides of `new_shape` viewing memory laid out as
    (`shape`, `strides`), or None when no view can (a dim would span two runs of memory)."""
    if not shape:
        return (1,) * len(new_shape)
    numel = math.prod(shape)
    if numel == 0:
        if tuple(shape) == tuple(new_shape):
            return tuple(strides)
        return contiguous_strides(new_shape)
    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base_stride = strides[d - 1]
                tensor_numel = view_numel = 1
    return None if view_d != -1 else tuple(out)


def reordered_dims(ndim: int, should_swap: Callable[[int, int], int]) -> list[int]:
    """TensorIterator's reorder_dimensions: the dims, innermost first, insertion-sorted by
    `should_swap(d0, d1)` (> 0: d1 goes inside d0, < 0: stop, 0: look further)."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def iterator_order(shape: tuple[int, ...], *operands: tuple[int, ...]) -> list[int]:
    """TensorIterator's dims, innermost first, for operands' `strides` (each as long as
    `shape`, 0 where broadcast): dims sort by the first operand's strides that tell them
    apart (the larger size first among equal ones); a zero stride says nothing."""

    def should_swap(d0: int, d1: int) -> int:
        for strides in operands:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    return reordered_dims(len(shape), should_swap)


def dense_strides_like(shape: tuple[int, ...], *operands: tuple[int, ...]) -> tuple[int, ...]:
    """Packed strides that keep the memory order of the operands' `strides` (each as long
    as `shape`, 0 where broadcast): torch's infer_dense_strides (empty_like of a tensor
    that is not dense: one operand) and TensorIterator's reorder_dimensions for an
    elementwise op's output. Dims sort by the first operand's strides that tell them apart
    (the larger size first among equal ones); a zero stride says nothing."""
    ndim = len(shape)
    perm = iterator_order(shape, *operands)
    out = [0] * ndim
    step = 1
    for d in perm:
        out[d] = step
        if shape[d] > 1:
            step *= shape[d]
    return tuple(out)


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A row-major layout's strides in elements, as torch gives them (a size-0 or size-1
    dimension counts as 1)."""
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def strided_view(array: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...],
                 writeable: bool = True) -> np.ndarray:
    """`np.lib.stride_tricks.as_strided(array, shape, strides, writeable=writeable)`
    (strides in bytes), built straight over the buffer of an array that exports one (a
    contiguous one) when the view stays inside it: as_strided goes through an
    `__array_interface__` object (~2.5 us against ~0.3 us), and a training step makes a
    few such views (a reshape, a reduction's iteration order). The same memory, base chain
    end and writeability; anything else (a window past the array's own elements, a
    non-contiguous or meta array) takes as_strided itself."""
    if type(array) is np.ndarray and array.flags.forc:
        try:
            out = np.ndarray(shape, array.dtype, array, 0, strides)
        except ValueError:  # past the array's own elements
            pass
        else:
            if not writeable and out.flags.writeable:
                out.flags.writeable = False
            return out
    return np.lib.stride_tricks.as_strided(array, shape, strides, writeable=writeable)
