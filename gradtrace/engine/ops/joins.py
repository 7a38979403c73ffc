"""unbind, split/split_with_sizes/chunk (multi-output views) and cat/stack."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..dtypes import bool_
from ..formulas import each, vjp
from ..forward_ad import auto_linear, linear_in_all
from ..layouts import CONTIGUOUS, MemoryFormat, format_strides, suggest_memory_format
from ..limits import reserve
from ..meta import MetaArray
from ..node import Function
from ..shapes import size_args
from ..tensor import Tensor, type_name
from ._util import cast, result_dtype
from .select_views import SliceBackward0, select
from .views import ViewFunction, _wrap, saved_int, signed


class UnbindBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "stack({grad}, {dim})"),)
    multi_output = True

    def forward(self, a: Tensor, dim: int) -> list[np.ndarray]:
        if a.array.ndim == 0:
            raise TorchIndexError("Dimension specified as 0 but tensor has no dimensions")
        d = _wrap(dim, a.array.ndim)
        self.save_attr(dim=saved_int(dim))
        lead = (slice(None),) * d
        return [a.array[lead + (i, Ellipsis)] for i in range(a.array.shape[d])]

    def backward(self, *grads: Tensor) -> Tensor:
        return stack(list(grads), signed(self.attrs["dim"]))


def unbind(a: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(UnbindBackward0.call(a, dim=dim))


def _split_pieces(array: np.ndarray, d: int, sizes: list[int]) -> list[np.ndarray]:
    out, start = [], 0
    lead = (slice(None),) * d
    for s in sizes:
        out.append(array[lead + (slice(start, start + s),)])
        start += s
    return out


class SplitBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "cat({grad}, {dim})"),)
    multi_output = True

    def forward(self, a: Tensor, split_size: int, dim: int) -> list[np.ndarray]:
        if a.array.ndim == 0:
            raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
        d = _wrap(dim, a.array.ndim)
        size = a.array.shape[d]
        if split_size < 0:
            raise TorchRuntimeError(
                f"split expects split_size be non-negative, but got split_size={split_size}")
        if split_size == 0 and size != 0:
            raise TorchRuntimeError(
                "split_size can only be 0 if dimension size is 0, but got dimension size of "
                f"{size}")
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape, split_size=split_size)
        count = max(1, -(-size // split_size)) if split_size else 1
        sizes = [min(split_size, size - i * split_size) for i in range(count)]
        return _split_pieces(a.array, d, sizes)

    def backward(self, *grads: Tensor) -> Tensor:
        return cat(list(grads), signed(self.attrs["dim"]))


class SplitWithSizesBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "cat({grad}, {dim})"),)
    multi_output = True

    def forward(self, a: Tensor, split_sizes: tuple[int, ...], dim: int) -> list[np.ndarray]:
        if a.array.ndim == 0:
            raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
        d = _wrap(dim, a.array.ndim)
        size = a.array.shape[d]
        if sum(split_sizes) != size or any(s < 0 for s in split_sizes):
            raise TorchRuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {d}), but got split_sizes=[{', '.join(map(str, split_sizes))}]")
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape,
                       split_sizes=tuple(split_sizes))
        return _split_pieces(a.array, d, list(split_sizes))

    def backward(self, *grads: Tensor) -> Tensor:
        return cat(list(grads), signed(self.attrs["dim"]))


class UnsafeSplitBackward0(Function):
    """unsafe_split: split's pieces of the input's memory, not tracked as views (torch's RNN
    cells change them in place, writing into the input unseen by its version counter). A
    chunk of an LSTM's gates is a strided slice: its sigmoid_ runs ATen's scalar loop on
    rows of that width, which rounds as the vector loop over a contiguous copy does not."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "cat({grad}, {dim})"),)
    multi_output = True

    def forward(self, a: Tensor, split_size: int, dim: int) -> list[np.ndarray]:
        return SplitBackward0.forward(self, a, split_size, dim)  # type: ignore[arg-type]

    def backward(self, *grads: Tensor) -> Tensor:
        return cat(list(grads), signed(self.attrs["dim"]))


def unsafe_split(a: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(UnsafeSplitBackward0.call(a, split_size=int(split_size), dim=dim))


def _chunk_size(a: Tensor, chunks: int, dim: int) -> int:
    """The split size chunk and unsafe_chunk use: ceil(size / chunks), with torch's checks."""
    if a.array.ndim == 0:
        raise TorchRuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return -(-a.array.shape[_wrap(dim, a.array.ndim)] // chunks)


def unsafe_chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return unsafe_split(a, _chunk_size(a, chunks, dim), dim)


def split(a: Tensor, split_size_or_sections: Any = None, dim: int = 0, *,
          split_size: Any = None) -> tuple[Tensor, ...]:
    if split_size_or_sections is None:
        split_size_or_sections = split_size
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = size_args((split_size_or_sections,), "split_size")
        return tuple(SplitWithSizesBackward0.call(a, split_sizes=sizes, dim=dim))
    return tuple(SplitBackward0.call(a, split_size=int(split_size_or_sections), dim=dim))


def split_with_sizes(a: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return split(a, list(split_sizes), dim)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return split(a, _chunk_size(a, chunks, dim), dim)


def _tensor_list(tensors: Any, name: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TorchTypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type_name(tensors)}")
    for i, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TorchTypeError(
                f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, but found "
                f"element of type {type_name(item)} at pos {i}")
    return list(tensors)


def _cat_format(tensors: tuple[Tensor, ...] | list[Tensor]) -> MemoryFormat:
    """ATen's cat_compute_output_memory_format: the format every input suggests (all
    channels-last: a channels-last result), else contiguous (row-major)."""
    fmt = None
    for t_ in tensors:
        if type(t_.array) is MetaArray:
            return CONTIGUOUS
        suggested = suggest_memory_format(t_.array)
        if suggested is CONTIGUOUS or fmt is not None and suggested is not fmt:
            return CONTIGUOUS
        fmt = suggested
    return fmt or CONTIGUOUS


def _empty_in_format(shape: tuple[int, ...], dtype: np.dtype, fmt: MemoryFormat) -> np.ndarray:
    if fmt is CONTIGUOUS:
        return np.empty(shape, dtype)
    return np.ndarray(shape, dtype, strides=tuple(
        s * dtype.itemsize for s in format_strides(shape, fmt)))


class CatBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # cat_jvp / stack_jvp / where(condition, self_t, other_t)
    formulas = (each("tensors", "{grad}.split([t.shape[{dim}] for t in tensors], {dim})[{i}]"),)

    def forward(self, *tensors: Tensor, dim: int = 0) -> np.ndarray:
        dtype = result_dtype(*tensors)
        used = [t for t in tensors if not (t.array.ndim == 1 and t.array.size == 0)]
        for i, t_ in enumerate(tensors):
            if t_.array.ndim == 0:
                raise TorchRuntimeError(
                    f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if not used:
            self.save_attr(dim=saved_int(dim))
            return np.zeros((0,), dtype=dtype.np)
        ref = used[0]
        d = _wrap(dim, ref.array.ndim)
        for i, t_ in enumerate(tensors):
            if t_.array.ndim == 1 and t_.array.size == 0:
                continue
            if t_.array.ndim != ref.array.ndim:
                raise TorchRuntimeError(
                    f"Tensors must have same number of dimensions: got {ref.array.ndim} and "
                    f"{t_.array.ndim}")
            for j, (s, r) in enumerate(zip(t_.array.shape, ref.array.shape, strict=True)):
                if j != d and s != r:
                    raise TorchRuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{r} but got size {s} for tensor number {i} in the list.")
        self.save_attr(dim=saved_int(dim))
        shape = list(ref.array.shape)
        shape[d] = sum(t_.array.shape[d] for t_ in used)
        reserve(tuple(shape), dtype.np.itemsize)
        return np.concatenate([cast(t_.array, dtype) for t_ in used], axis=d,
                              out=_empty_in_format(tuple(shape), dtype.np, _cat_format(tensors)))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        out: list[Tensor | None] = []
        dim = signed(self.attrs["dim"])
        offset = 0
        for i, meta in enumerate(self.input_meta):
            shape = meta[0]
            if len(shape) == 1 and shape[0] == 0 and grad.array.ndim != 1:
                out.append(None)
                continue
            size = shape[dim % len(shape)]
            if self.needs_input_grad(i):
                out.append(SliceBackward0.call(grad, dim=dim, start=offset, end=offset + size,
                                               step=1))
            else:
                out.append(None)
            offset += size
        return tuple(out)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise TorchValueError("torch.cat(): expected a non-empty list of Tensors")
    return CatBackward0.call(*tensors, dim=dim)


class StackBackward0(Function):
    __slots__ = ()
    jvp = linear_in_all  # cat_jvp / stack_jvp / where(condition, self_t, other_t)
    formulas = (each("tensors", "{grad}.select({dim}, {i})"),)

    def forward(self, *tensors: Tensor, dim: int = 0) -> np.ndarray:
        ref = tensors[0].array.shape
        for i, t_ in enumerate(tensors):
            if t_.array.shape != ref:
                raise TorchRuntimeError(
                    f"stack expects each tensor to be equal size, but got "
                    f"[{', '.join(map(str, ref))}] at entry 0 and "
                    f"[{', '.join(map(str, t_.array.shape))}] at entry {i}")
        d = _wrap(dim, len(ref) + 1)
        dtype = result_dtype(*tensors)
        self.save_attr(dim=saved_int(dim))
        reserve((len(tensors),) + ref, dtype.np.itemsize)
        shape = ref[:d] + (len(tensors),) + ref[d:]
        fmt = _cat_format(tensors) if d < len(ref) else CONTIGUOUS
        if fmt is not CONTIGUOUS:  # ATen's stack: a cat along `dim` viewed with the new dim
            # split off (the inputs' channels-last layout kept); at the end, a row-major cat
            # of unsqueezed inputs
            joined = list(ref)
            joined[d] *= len(tensors)
            out = np.concatenate([cast(t_.array, dtype) for t_ in tensors], axis=d,
                                 out=_empty_in_format(tuple(joined), dtype.np, fmt))
            return out.reshape(shape)
        return np.stack([cast(t_.array, dtype) for t_ in tensors], axis=d,
                        out=np.empty(shape, dtype.np))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        dim = signed(self.attrs["dim"])
        return tuple(select(grad, dim, i) if self.needs_input_grad(i) else None
                     for i in range(len(self.input_meta)))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise TorchRuntimeError("stack expects a non-empty TensorList")
    return StackBackward0.call(*tensors, dim=dim)




def diff(a: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """torch.diff, ATen's composite: prepend/append joined by cat, then `n` times the later
    slice minus the earlier one (logical_xor for bool), so the nodes are torch's."""
    from .arithmetic import logical_xor, sub
    from .creation import zeros_like
    from .select_views import narrow

    if not a.array.ndim:
        raise TorchRuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise TorchRuntimeError(f"order must be non-negative but got {n}")
    for extra in (prepend, append):
        if extra is not None and extra.array.ndim != a.array.ndim:
            raise TorchRuntimeError(
                "diff expects prepend or append to be the same dimension as input")
    if n and (prepend is not None or append is not None):
        a = cat([t for t in (prepend, a, append) if t is not None], dim)
    if n == 0:
        return zeros_like(a).copy_(a)
    d = dim if dim >= 0 else dim + a.array.ndim
    out_len = a.array.shape[d] - 1
    result = a
    for _ in range(min(n, a.array.shape[d])):
        later, earlier = narrow(result, dim, 1, out_len), narrow(result, dim, 0, out_len)
        result = logical_xor(later, earlier) if a.dtype is bool_ else sub(later, earlier)
        out_len -= 1
    return result
