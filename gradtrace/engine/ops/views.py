"""Shape and view ops: view/reshape, expand, (un)squeeze, t/transpose/permute, indexing,
unbind/split/chunk, cat/stack, repeat, and in-place writes into views (setitem, copy_).

Views share storage and the version counter with their base, like torch. An
in-place op on a view with autograd involved rebases the history like torch:
the base's grad_fn becomes `CopySlices` and the view's `AsStridedBackward0`.
"""
from __future__ import annotations

import math
import re
import weakref
from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .. import dtypes
from ..grad_mode import GRAD_MODE
from ..node import Function, Node
from ..shapes import Size, broadcast_shapes, size_args, wrap_dim
from ..tensor import Tensor, gradient_edge, type_name
from ._util import apply_inplace, cast, cast_name, result_dtype

U64 = 2**64
INT64_MAX = 2**63 - 1


def saved_int(value: int) -> int:
    """An int64 as torch shows it in `_saved_*` (negative ints appear as uint64)."""
    return value + U64 if value < 0 else value


def signed(value: int) -> int:
    """Undo `saved_int`."""
    return value - U64 if value >= 2**63 else value


def saved_ints(values: Any) -> tuple[int, ...]:
    return tuple(saved_int(v) for v in values)


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def torch_strides(array: np.ndarray) -> tuple[int, ...]:
    """Strides in elements, as torch reports them (contiguous arrays: torch's canonical ones)."""
    if array.flags.c_contiguous:
        return contiguous_strides(array.shape)
    return tuple(s // array.itemsize for s in array.strides)


def warn(message: str) -> None:
    from .creation import WARNINGS

    WARNINGS.append(f"UserWarning: {message}")


def _dim_message(dim: int, ndim: int) -> str:
    rank = max(ndim, 1)
    return (f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})")


def _wrap(dim: Any, ndim: int) -> int:
    return wrap_dim(dim, ndim)


# -- views and the registry of live views per base ------------------------------------

# base -> weak references to its (single-output) views, so an in-place change of the base
# or of one view can give the other views their new history (torch regenerates their
# grad_fn as AsStridedBackward0 once the base's version moved on).
_VIEWS: dict[int, tuple[weakref.ref, list[weakref.ref]]] = {}  # id(base) -> (base, views)


def _register_view(out: Tensor) -> None:
    base = out._base
    key = id(base)
    entry = _VIEWS.get(key)
    if entry is None or entry[0]() is not base:
        ref = weakref.ref(base, lambda _r, key=key: _drop_views(key, _r))
        _VIEWS[key] = (ref, [weakref.ref(out)])
        return
    refs = entry[1]
    if len(refs) > 64:
        refs[:] = [r for r in refs if r() is not None]
    refs.append(weakref.ref(out))


def _drop_views(key: int, ref: weakref.ref) -> None:
    entry = _VIEWS.get(key)
    if entry is not None and entry[0] is ref:
        del _VIEWS[key]


class ViewFunction(Function):
    """An op whose output is a view of its first input."""

    __slots__ = ()
    returns_view = True

    @classmethod
    def call(cls, *inputs: Tensor, **params: Any) -> Any:
        out = super().call(*inputs, **params)
        if not cls.multi_output:
            _register_view(out)
        return out


def refresh_views(t: Tensor) -> None:
    """After an in-place op on `t` (a base or a view): every other live view of the base
    gets `AsStridedBackward0` over the base's new history, like torch."""
    base = t._base if t._base is not None else t
    entry = _VIEWS.get(id(base))
    if entry is None or entry[0]() is not base or not base.requires_grad:
        return
    edge = gradient_edge(base)
    alive = []
    for ref in entry[1]:
        v = ref()
        if v is None or v._base is not base:
            continue
        alive.append(ref)
        if v is not t:
            _set_as_strided(v, edge)
    entry[1][:] = alive


# -- view / reshape ----------------------------------------------------------


def infer_size(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Resolve one -1 in a requested shape; torch's message when sizes disagree."""
    if shape.count(-1) > 1:
        raise TorchRuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise TorchRuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise TorchRuntimeError(
                f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise TorchRuntimeError(
            f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


def _reshaped_view(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    out = array.view()
    try:
        out.shape = shape  # raises instead of copying when strides do not allow a view
    except AttributeError:
        return None
    return out


class ViewBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        shape = infer_size(shape, a.array.size)
        self.save_attr(self_sym_sizes=a.array.shape)
        out = _reshaped_view(a.array, shape)
        if out is None:
            raise TorchRuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return out

    def backward(self, grad: Tensor) -> Tensor:
        return grad.reshape(self.attrs["self_sym_sizes"])


class ReshapeAliasBackward0(ViewBackward0):
    """reshape of a non-contiguous tensor whose strides still allow a view."""

    __slots__ = ()


class UnsafeViewBackward0(Function):
    """reshape that had to copy (clone + _unsafe_view): the result is not a view."""

    __slots__ = ()

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        return a.array.reshape(shape)

    def backward(self, grad: Tensor) -> Tensor:
        return grad.reshape(self.attrs["self_sym_sizes"])


def _sizes(args: tuple[Any, ...], kwargs: dict[str, Any], name: str) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))` or `f(name=(2, 3))`."""
    if kwargs:
        if set(kwargs) != {name} or args:
            bad = next(k for k in kwargs if k != name) if set(kwargs) - {name} else name
            raise TorchTypeError(f"got an unexpected keyword argument '{bad}'")
        args = (kwargs[name],)
    return size_args(args, name)


def view(a: Tensor, *shape: Any, **kwargs: Any) -> Tensor:
    return ViewBackward0.call(a, shape=_sizes(shape, kwargs, "size"))


def view_as(a: Tensor, other: Tensor) -> Tensor:
    return ViewBackward0.call(a, shape=other.shape)


def alias_view(a: Tensor) -> Tensor:
    """`a.view_as(a)` under no_grad, unobserved: how a custom Function returns an input
    as-is (a new tensor viewing it, sharing its version counter)."""
    out = Tensor._wrap(a.array.view())
    out._version_counter = a._version_counter
    out._base = a._base if a._base is not None else a
    _register_view(out)
    return out


def reshape(a: Tensor, *shape: Any) -> Tensor:
    shape = infer_size(size_args(shape), a.array.size)
    if a.array.flags.c_contiguous:
        return ViewBackward0.call(a, shape=shape)
    if _reshaped_view(a.array, shape) is not None:
        return ReshapeAliasBackward0.call(a, shape=shape)
    return UnsafeViewBackward0.call(contiguous(a), shape=shape)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    return reshape(a, other.shape)


def unsafe_view(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    return UnsafeViewBackward0.call(a, shape=tuple(shape))


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if a.array.ndim == 0:
        return reshape(a, 1)
    start, end = _wrap(start_dim, a.array.ndim), _wrap(end_dim, a.array.ndim)
    if start > end:
        raise TorchRuntimeError(
            "flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return a
    shape = a.array.shape
    return reshape(a, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def unflatten(a: Tensor, dim: int, sizes: Any) -> Tensor:
    d = _wrap(dim, a.array.ndim)
    sizes = size_args((sizes,))
    try:
        inner = infer_size(sizes, a.array.shape[d])
    except TorchRuntimeError:
        raise TorchRuntimeError(
            f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the "
            f"size of dim {dim} ({a.array.shape[d]}) in the input tensor") from None
    return view(a, a.array.shape[:d] + inner + a.array.shape[d + 1:])


class AliasBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        return a.array.view()

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def alias(a: Tensor) -> Tensor:
    return AliasBackward0.call(a)


class ExpandBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        src = a.array.shape
        if len(shape) < len(src):
            raise TorchRuntimeError(
                f"expand(torch.{a.dtype.tensor_type}{{[{', '.join(map(str, src))}]}}, "
                f"size=[{', '.join(map(str, shape))}]): the number of sizes provided "
                f"({len(shape)}) must be greater or equal to the number of dimensions in the "
                f"tensor ({len(src)})")
        lead = len(shape) - len(src)
        target = list(shape)
        for i in range(len(shape) - 1, -1, -1):  # torch checks from the last dim
            s = shape[i]
            if s == -1:
                if i < lead:
                    raise TorchRuntimeError(
                        f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                        f"non-existing dimension {i}")
                target[i] = src[i - lead]
            elif i >= lead and src[i - lead] != s and src[i - lead] != 1:
                raise TorchRuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size "
                    f"({src[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                    f"[{', '.join(map(str, shape))}].  Tensor sizes: "
                    f"[{', '.join(map(str, src))}]")
        return np.broadcast_to(a.array, tuple(target))

    def backward(self, grad: Tensor) -> Tensor:
        return sum_to(grad, self.attrs["self_sym_sizes"])


def sum_to(grad: Tensor, shape: tuple[int, ...]) -> Tensor:
    """torch's at::sum_to: reduce a broadcast gradient to `shape` with the nodes torch records
    (sum() for a 0-d shape; else sum(dims, keepdim=True), then view if dims were added)."""
    from ..shapes import sum_to_dims

    if not shape:
        return grad.sum()
    dims = sum_to_dims(grad.array.shape, shape)
    if dims:
        grad = grad.sum(dim=dims, keepdim=True)
    if grad.array.ndim > len(shape):
        grad = grad.view(shape)
    return grad


def expand(a: Tensor, *shape: Any, **kwargs: Any) -> Tensor:
    return ExpandBackward0.call(a, shape=_sizes(shape, kwargs, "size"))


def expand_as(a: Tensor, other: Tensor) -> Tensor:
    return expand(a, other.shape)


class UnsqueezeBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim))
        return np.expand_dims(a.array, _wrap(dim, a.array.ndim + 1))

    def backward(self, grad: Tensor) -> Tensor:
        return grad.squeeze(signed(self.attrs["dim"]))


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    _wrap(dim, a.array.ndim + 1)
    return UnsqueezeBackward0.call(a, dim=dim)


class SqueezeBackward0(ViewFunction):
    """squeeze(): every size-1 dim."""

    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        return a.array.reshape(tuple(s for s in a.array.shape if s != 1))

    def backward(self, grad: Tensor) -> Tensor:
        return unsqueeze_to(grad, self.attrs["self_sym_sizes"])


def unsqueeze_to(grad: Tensor, sizes: tuple[int, ...], dims: tuple[int, ...] | None = None
                 ) -> Tensor:
    """torch's unsqueeze_to: unsqueeze back each (selected) dim of size 1, in order."""
    ndim = len(sizes)
    chosen = None if dims is None else {signed(d) % ndim for d in dims} if ndim else set()
    for d in range(ndim):
        if sizes[d] == 1 and (chosen is None or d in chosen):
            grad = grad.unsqueeze(d)
    return grad


def _squeeze_dims(array: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    drop = tuple(d for d in dims if array.ndim and array.shape[d] == 1)
    return np.squeeze(array, drop) if drop else array.view()


class SqueezeBackward1(ViewFunction):
    """squeeze(dim): that dim, if it has size 1."""

    __slots__ = ()

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape)
        return _squeeze_dims(a.array, (_wrap(dim, a.array.ndim),))

    def backward(self, grad: Tensor) -> Tensor:
        return unsqueeze_to(grad, self.attrs["self_sym_sizes"], (self.attrs["dim"],))


class SqueezeBackward2(ViewFunction):
    """squeeze(dims): those dims that have size 1."""

    __slots__ = ()

    def forward(self, a: Tensor, dim: tuple[int, ...]) -> np.ndarray:
        self.save_attr(dim=saved_ints(dim), self_sym_sizes=a.array.shape)
        return _squeeze_dims(a.array, tuple(_wrap(d, a.array.ndim) for d in dim))

    def backward(self, grad: Tensor) -> Tensor:
        return unsqueeze_to(grad, self.attrs["self_sym_sizes"], self.attrs["dim"])


class SqueezeBackward4(Function):
    """squeeze_(dim), in place (what matmul does to its 1-D @ 2-D result)."""

    __slots__ = ()

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape)
        return _squeeze_dims(a.array, (_wrap(dim, a.array.ndim),))

    def backward(self, grad: Tensor) -> Tensor:
        return unsqueeze_to(grad, self.attrs["self_sym_sizes"], (self.attrs["dim"],))


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return SqueezeBackward0.call(a)
    if isinstance(dim, (tuple, list)):
        for d in dim:
            _wrap(d, a.array.ndim)
        return SqueezeBackward2.call(a, dim=tuple(dim))
    _wrap(dim, a.array.ndim)
    return SqueezeBackward1.call(a, dim=dim)


def squeeze_inplace_result(a: Tensor, dim: int) -> Tensor:
    """`a.squeeze_(dim)` on a fresh (non-view) result: same data, SqueezeBackward4, version+1."""
    out = SqueezeBackward4.call(a, dim=dim)
    out._version_counter = a._version_counter
    a._version_counter.value += 1
    return out


# -- transposes ----------------------------------------------------------------


class TBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor) -> np.ndarray:
        if a.array.ndim > 2:
            raise TorchRuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {a.array.ndim}D")
        return a.array.T

    def backward(self, grad: Tensor) -> Tensor:
        return t(grad)


def t(a: Tensor) -> Tensor:
    return TBackward0.call(a)


class PermuteBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor, dims: tuple[int, ...]) -> np.ndarray:
        ndim = a.array.ndim
        if len(dims) != ndim:
            raise TorchRuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = "
                f"{ndim} is not equal to len(dims) = {len(dims)}")
        wrapped = tuple(_wrap(d, ndim) for d in dims)
        if len(set(wrapped)) != len(wrapped):
            raise TorchRuntimeError("permute(): duplicate dims are not allowed.")
        self.save_attr(dims=saved_ints(dims))
        return np.transpose(a.array, wrapped)

    def backward(self, grad: Tensor) -> Tensor:
        dims = [signed(d) % max(grad.array.ndim, 1) for d in self.attrs["dims"]]
        inverse = [0] * len(dims)
        for i, d in enumerate(dims):
            inverse[d] = i
        return permute(grad, tuple(inverse))


def permute(a: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    return PermuteBackward0.call(a, dims=_sizes(dims, kwargs, "dims"))


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    ndim = a.array.ndim
    if len(src) != len(dst):
        raise TorchRuntimeError(
            f"movedim: Invalid source or destination dims: source ({src}) and destination "
            f"({dst}) must have the same number of elements")
    src = [_wrap(d, ndim) for d in src]
    dst = [_wrap(d, ndim) for d in dst]
    order = [-1] * ndim
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = [next(rest) if o == -1 else o for o in order]
    return permute(a, tuple(order))


class TransposeBackward0(ViewFunction):
    __slots__ = ()

    def forward(self, a: Tensor, dim0: int, dim1: int) -> np.ndarray:
        d0, d1 = _wrap(dim0, a.array.ndim), _wrap(dim1, a.array.ndim)
        self.save_attr(dim0=saved_int(dim0), dim1=saved_int(dim1))
        return np.swapaxes(a.array, d0, d1) if a.array.ndim else a.array.view()

    def backward(self, grad: Tensor) -> Tensor:
        return transpose(grad, signed(self.attrs["dim0"]), signed(self.attrs["dim1"]))


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    return TransposeBackward0.call(a, dim0=dim0, dim1=dim1)


def T(a: Tensor) -> Tensor:  # noqa: N802 - torch's name
    ndim = a.array.ndim
    if ndim == 0:
        warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
             "cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
             "TensorShape.cpp:4321.)")
    elif ndim != 2:
        warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
             "deprecated and it will throw an error in a future release. Consider `x.mT` to "
             "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
             "to reverse the dimensions of a tensor. (Triggered internally at /__w/pytorch/"
             "pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")
    return permute(a, tuple(range(ndim - 1, -1, -1)))


def mT(a: Tensor) -> Tensor:  # noqa: N802 - torch's name
    if a.array.ndim == 0:
        warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
             "cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
             "TensorShape.cpp:4373.)")
        return a
    if a.array.ndim < 2:
        raise TorchRuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got "
            f"{a.array.ndim}-D tensor.")
    return transpose(a, -2, -1)


# -- copies --------------------------------------------------------------------


class CloneBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, order: str = "K") -> np.ndarray:
        return a.array.copy(order=order)

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def clone(a: Tensor, *, memory_format: Any = None) -> Tensor:
    return CloneBackward0.call(a)


def contiguous(a: Tensor, memory_format: Any = None) -> Tensor:
    if a.array.flags.c_contiguous:
        return a
    return CloneBackward0.call(a, order="C")


class ToCopyBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dtype: Any) -> np.ndarray:
        return a.array.astype(dtype.np)

    def backward(self, grad: Tensor) -> Tensor:
        return grad.to(self.input_meta[0][1])


def to(a: Tensor, dtype: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    """Tensor.to(dtype): a copy in that dtype (the same tensor when nothing changes)."""
    if dtype is None:
        dtype = kwargs.get("dtype")
    if dtype is None or not hasattr(dtype, "np") or dtype is a.dtype:
        return a
    if not dtype.is_floating_point and a.requires_grad:
        return Tensor._wrap(a.array.astype(dtype.np))
    return ToCopyBackward0.call(a, dtype=dtype)


class RepeatBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, repeats: tuple[int, ...]) -> np.ndarray:
        if len(repeats) < a.array.ndim:
            raise TorchRuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor")
        padded = (1,) * (len(repeats) - a.array.ndim) + a.array.shape
        target = [r * s for r, s in zip(repeats, padded, strict=True)]
        for t_ in target:
            if t_ < 0:
                raise TorchRuntimeError(
                    f"Trying to create tensor with negative dimension {t_}: "
                    f"[{', '.join(map(str, target))}]")
        self.save_attr(repeats=tuple(repeats), self_sym_sizes=a.array.shape)
        return np.tile(a.array, repeats)

    def backward(self, grad: Tensor) -> Tensor:
        """torch's repeat_backward: sum away added dims, then one reshape and one sum."""
        repeats = self.attrs["repeats"]
        sizes = self.attrs["self_sym_sizes"]
        if 0 in repeats:
            from .creation import zeros

            return zeros(sizes, dtype=grad.dtype)
        extra = grad.array.ndim - len(sizes)
        for _ in range(extra):
            grad = grad.sum(0)
        grad_size: list[int] = []
        sum_dims: list[int] = []
        for d, size in enumerate(sizes):
            repeat = repeats[d + extra]
            if repeat != 1:
                grad_size.append(repeat)
                sum_dims.append(len(grad_size) - 1)
            grad_size.append(size)
        if sum_dims:
            grad = grad.reshape(tuple(grad_size)).sum(tuple(sum_dims))
        return grad


class FlipBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dims: tuple[int, ...]) -> np.ndarray:
        wrapped = tuple(_wrap(d, a.array.ndim) for d in dims)
        for i, w in enumerate(wrapped):
            if w in wrapped[:i]:
                raise TorchRuntimeError(f"dim {w} appears multiple times in the list of dims")
        self.save_attr(dims=saved_ints(dims))
        return np.flip(a.array, wrapped).copy() if a.array.ndim else a.array.copy()

    def backward(self, grad: Tensor) -> Tensor:
        return flip(grad, tuple(signed(d) for d in self.attrs["dims"]))


def flip(a: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    return FlipBackward0.call(a, dims=_sizes(dims, kwargs, "dims"))


def repeat(a: Tensor, *repeats: Any, **kwargs: Any) -> Tensor:
    return RepeatBackward0.call(a, repeats=_sizes(repeats, kwargs, "repeats"))


# -- select / slice / index -------------------------------------------------------


class SelectBackwardBackward0(Function):
    """select's backward (zeros with the gradient written in) as an op, for create_graph."""

    __slots__ = ()

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

    def forward(self, a: Tensor, dim: int, index: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), index=saved_int(index), self_sym_sizes=a.array.shape)
        d = dim % a.array.ndim
        return a.array[(slice(None),) * d + (index, Ellipsis)]  # a 0-d result stays a view

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return SelectBackwardBackward0.call(grad, sizes=a["self_sym_sizes"], dim=signed(a["dim"]),
                                            index=signed(a["index"]))


def select(a: Tensor, dim: int, index: Any) -> Tensor:
    if a.array.ndim == 0:
        raise TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap(dim, a.array.ndim)
    index = int(index)
    size = a.array.shape[d]
    if not -size <= index < size:
        shape = ", ".join(map(str, a.array.shape))
        raise TorchIndexError(
            f"select(): index {index} out of range for tensor of size [{shape}] at dimension {d}")
    return SelectBackward0.call(a, dim=dim, index=index)


class SliceBackwardBackward0(Function):
    __slots__ = ()

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

    def forward(self, a: Tensor, dim: int, start: int, end: int, step: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), end=saved_int(end), self_sym_sizes=a.array.shape,
                       start=saved_int(start), step=step)
        return a.array[_slice_key(a.array.ndim, dim, start, end, step)]

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return SliceBackwardBackward0.call(
            grad, sizes=a["self_sym_sizes"], dim=signed(a["dim"]), start=signed(a["start"]),
            end=signed(a["end"]), step=a["step"])


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


def _np_index(indices: tuple[Tensor | None, ...]) -> tuple:
    return tuple(slice(None) if i is None else i.array for i in indices)


class IndexBackward0(Function):
    """Advanced indexing (lists, integer or bool tensors): a copy, not a view."""

    __slots__ = ()

    def forward(self, a: Tensor, indices: tuple[Tensor | None, ...]) -> np.ndarray:
        key = _check_indices(a, indices)
        self.save_attr(indices=indices, self_sym_sizes=a.array.shape)
        return a.array[key]

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        a = self.attrs
        base = zeros(a["self_sym_sizes"], dtype=grad.dtype)
        # torch: at::_index_put_impl_(zeros, indices, grad, accumulate=true, unsafe=true)
        return IndexPutImplBackward0.call(base, grad, indices=a["indices"], accumulate=True)


def _check_indices(a: Tensor, indices: tuple[Tensor | None, ...]) -> tuple:
    """torch's checks on advanced indices (dtype, mask shape, bounds, broadcast)."""
    shape = a.array.shape
    dim = 0
    index_shapes = []
    for idx in indices:
        if idx is None:
            dim += 1
            continue
        if idx.dtype.is_floating_point:
            raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
        if idx.dtype in (dtypes.bool_, dtypes.uint8):
            for j, s in enumerate(idx.array.shape):
                if dim + j >= len(shape):
                    raise TorchIndexError(
                        f"too many indices for tensor of dimension {len(shape)} "
                        f"(got {dim + idx.array.ndim})")
                if s != shape[dim + j]:
                    raise TorchIndexError(
                        f"The shape of the mask [{', '.join(map(str, idx.array.shape))}] at "
                        f"index {j} does not match the shape of the indexed tensor "
                        f"[{', '.join(map(str, shape))}] at index {dim + j}")
            index_shapes += [(int(idx.array.sum()),)] * idx.array.ndim
            dim += idx.array.ndim
            continue
        if dim >= len(shape):
            raise TorchIndexError(f"too many indices for tensor of dimension {len(shape)}")
        size = shape[dim]
        arr = idx.array
        if arr.size:
            bad = arr[(arr < -size) | (arr >= size)]
            if bad.size:
                raise TorchIndexError(
                    f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {dim} with "
                    f"size {size}")
        index_shapes.append(arr.shape)
        dim += 1
    try:
        np.broadcast_shapes(*index_shapes)
    except ValueError:
        listed = ", ".join(f"[{', '.join(map(str, s))}]" for s in index_shapes)
        raise TorchIndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes "
            f"{listed}") from None
    key = _np_index(indices)
    return tuple(k.astype(np.bool_) if isinstance(k, np.ndarray) and k.dtype == np.uint8 else k
                 for k in key)


class IndexPutBackward0(Function):
    """index_put_ (advanced-index assignment) and index backward (accumulate=True)."""

    __slots__ = ()

    def forward(self, a: Tensor, values: Tensor, indices: tuple[Tensor | None, ...],
                accumulate: bool = False) -> np.ndarray:
        key = _check_indices(a, indices)
        if values.dtype is not a.dtype:
            raise TorchRuntimeError(
                f"Index put requires the source and destination dtypes match, got "
                f"{cast_name(a.dtype)} for the destination and {cast_name(values.dtype)} for "
                "the source.")
        target = a.array[key].shape
        try:
            src = np.broadcast_to(values.array, target)
        except ValueError:
            raise TorchRuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, values.shape))}] "
                f"cannot be broadcast to indexing result of shape "
                f"[{', '.join(map(str, target))}]") from None
        self.save_attr(accumulate=accumulate, indices=indices)
        out = a.array.copy()
        if accumulate:
            np.add.at(out, key, src)
        else:
            out[key] = src
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        indices = self.attrs["indices"]
        g_self = g_values = None
        if self.needs_input_grad(0):
            if self.attrs["accumulate"]:
                g_self = grad
            else:
                zero = Tensor._wrap(np.zeros((), dtype=grad.array.dtype))
                g_self = IndexPutBackward0.call(grad, zero, indices=indices)
        if self.needs_input_grad(1):
            g_values = IndexBackward0.call(grad, indices=indices)
        return g_self, g_values


class IndexPutImplBackward0(IndexPutBackward0):
    """_index_put_impl_: what index's backward (x[idx] under create_graph) records."""

    __slots__ = ()


def _sequence_to_tensor(seq: Any) -> Tensor:
    from .creation import tensor

    out = tensor(seq)
    if out.dtype.is_floating_point:
        out = Tensor._wrap(out.array.astype(np.int64))
    return out


def _treat_as_tuple(index: list) -> bool:
    """torch's treatSequenceAsTuple for a list index."""
    if len(index) >= 32:
        return False
    return any(isinstance(i, (Tensor, list, tuple, slice)) or i is None or i is Ellipsis
               for i in index)


SEQUENCE_INDEX_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
    "python_variable_indexing.cpp:349.)")


def _is_int(obj: Any) -> bool:
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)


def _count_specified(index: tuple) -> int:
    count = 0
    for obj in index:
        if isinstance(obj, Tensor):
            count += obj.array.ndim if obj.dtype in (dtypes.bool_, dtypes.uint8) else 1
        elif obj is None or obj is Ellipsis or isinstance(obj, bool):
            continue
        else:
            count += 1
    return count


def _select_index(t: Tensor, dim: int, index: int) -> Tensor:
    """applySelect: indexing's bounds checks and messages."""
    shape = t.array.shape
    if index == 0 and dim == 0 and not shape:
        raise TorchIndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = shape[dim] if dim < len(shape) else 0
    if not (size >= -index and size > index):
        raise TorchIndexError(
            f"index {index} is out of bounds for dimension {dim} with size {size}")
    return SelectBackward0.call(t, dim=dim, index=index)


def _slice_index(t: Tensor, dim: int, obj: slice, optimize: bool) -> Tensor:
    step = 1 if obj.step is None else _slice_int(obj.step)
    if step == 0:
        raise TorchValueError("slice step cannot be zero")
    if step < 0:
        raise TorchValueError("step must be greater than zero")
    start = 0 if obj.start is None else _slice_int(obj.start)
    end = INT64_MAX if obj.stop is None else _slice_int(obj.stop)
    if t.array.ndim == 0:
        raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
    if optimize and start == 0 and step == 1 and end >= t.array.shape[dim]:
        return t
    return SliceBackward0.call(t, dim=dim, start=start, end=end, step=step)


def _slice_int(value: Any) -> int:
    if isinstance(value, Tensor):
        return value.__index__()
    if not _is_int(value):
        raise TorchTypeError(
            "slice indices must be integers or None or have an __index__ method")
    return int(value)


def _bool_index(value: bool) -> Tensor:
    return Tensor._wrap(np.zeros(1 if value else 0, dtype=np.int64))


def _apply_slicing(t: Tensor, index: tuple, optimize: bool = True
                   ) -> tuple[Tensor, list[Tensor | None]]:
    """torch's applySlicing: basic indices become view ops, advanced ones are collected."""
    specified = _count_specified(index)
    if specified > t.array.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {t.array.ndim}")
    result = t
    dim = 0
    out: list[Tensor | None] = []

    def record(tensor: Tensor) -> None:
        nonlocal dim
        out.extend([None] * (dim + 1 - len(out)))
        out[dim] = tensor
        dim += 1

    for obj in index:
        if _is_int(obj):
            result = _select_index(result, dim, int(obj))
        elif isinstance(obj, slice):
            result = _slice_index(result, dim, obj, optimize)
            dim += 1
        elif obj is Ellipsis:
            dim += t.array.ndim - specified
        elif obj is None:
            result = UnsqueezeBackward0.call(result, dim=dim)
            dim += 1
        elif isinstance(obj, bool):
            result = UnsqueezeBackward0.call(result, dim=dim)
            record(_bool_index(obj))
        elif isinstance(obj, Tensor):
            if obj.array.ndim == 0 and not obj.dtype.is_floating_point:
                if obj.dtype in (dtypes.bool_, dtypes.uint8):
                    result = UnsqueezeBackward0.call(result, dim=dim)
                    record(_bool_index(bool(obj.array)))
                else:
                    result = _select_index(result, dim, int(obj.array))
            else:
                record(obj)
        elif isinstance(obj, (list, tuple)):
            record(_sequence_to_tensor(obj))
        else:
            raise TorchIndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type_name(obj)})")
    return result, out


def _index_tuple(index: Any) -> tuple:
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and _treat_as_tuple(index):
        warn(SEQUENCE_INDEX_WARNING)
        return tuple(index)
    return (index,)


def getitem(t: Tensor, index: Any) -> Tensor:
    """`t[index]` exactly as torch records it (THPVariable_getitem)."""
    if index is None:
        return UnsqueezeBackward0.call(t, dim=0)
    if index is Ellipsis:
        return alias(t)
    if _is_int(index):
        return _select_index(t, 0, int(index))
    if isinstance(index, slice):
        return _slice_index(t, 0, index, optimize=False)
    result, indices = _apply_slicing(t, _index_tuple(index))
    if indices:
        return IndexBackward0.call(result, indices=tuple(indices))
    if result is t:
        return alias(t)
    return result


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    return IndexSelectBackward0.call(a, dim=dim, index=index)


class IndexSelectBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = _wrap(dim, a.array.ndim)
        if index.array.ndim > 1:
            raise TorchIndexError("index_select(): Index is supposed to be a vector")
        if index.dtype not in (dtypes.int64, dtypes.int32):
            raise TorchRuntimeError(
                "index_select(): Expected dtype int32 or int64 for index")
        size = a.array.shape[d] if a.array.ndim else 1
        bad = index.array[(index.array < 0) | (index.array >= size)]
        if bad.size:
            if a.array.ndim == 2 and d == 1:  # torch's 2-D dim-1 kernel says it this way
                raise TorchRuntimeError(
                    f"INDICES element is out of DATA bounds, id={int(bad.reshape(-1)[0])} "
                    f"axis_dim={size}")
            raise TorchIndexError("index out of range in self")
        self.save("index", index)
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape)
        return np.take(a.array, index.array.reshape(-1), axis=d if a.array.ndim else None)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        a = self.attrs
        sizes = a["self_sym_sizes"]
        d = signed(a["dim"]) % max(len(sizes), 1)
        index = self.unpack("index")
        indices = (None,) * d + (index,)
        return IndexPutBackward0.call(zeros(sizes, dtype=grad.dtype), grad, indices=indices,
                                      accumulate=True)


class MaskedFillBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, mask: Tensor, value: Any) -> np.ndarray:
        _check_mask(a, mask, value)
        self.save("mask", mask)
        return np.where(mask.array, np.asarray(value).astype(a.array.dtype), a.array)

    def backward(self, grad: Tensor) -> Tensor:
        return masked_fill(grad, self.unpack("mask"), 0)  # torch: grad.masked_fill(mask, 0)


class MaskedFillBackward1(Function):
    """masked_fill with a 0-dim tensor value: the value gets the masked gradient's sum."""

    __slots__ = ()

    def forward(self, a: Tensor, value: Tensor, mask: Tensor) -> np.ndarray:
        _check_mask(a, mask, value)
        if value.array.ndim:
            raise TorchRuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.array.ndim} dimension(s).")
        self.save("mask", mask)
        return np.where(mask.array, value.array.astype(a.array.dtype), a.array)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .reductions import where

        mask = self.unpack("mask")
        g_self = masked_fill(grad, mask, 0) if self.needs_input_grad(0) else None
        g_value = (where(mask, grad, Tensor.scalar(0.0)).sum() if self.needs_input_grad(1)
                   else None)
        return g_self, g_value


_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "float32": "float", "float64": "double",
                 "float16": "c10::Half", "bool": "bool"}


def _check_mask(a: Tensor, mask: Tensor, value: Any) -> None:
    if not isinstance(value, (Tensor, bool, int, float)):
        raise TorchTypeError(
            "masked_fill() received an invalid combination of arguments - got (Tensor, "
            f"{type_name(value)}), but expected one of:\n * (Tensor mask, Tensor value)\n      "
            "didn't match because some of the arguments have invalid types: (Tensor, "
            f"!{type_name(value)}!)\n * (Tensor mask, Number value)\n      didn't match because "
            f"some of the arguments have invalid types: (Tensor, !{type_name(value)}!)\n")
    broadcast_shapes(mask.array.shape, a.array.shape)  # torch names the mask "a"
    if mask.dtype is not dtypes.bool_:
        raise TorchRuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{_C_TYPE_NAMES[mask.dtype.name]}")


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return MaskedFillBackward1.call(a, value, mask=mask)
    return MaskedFillBackward0.call(a, mask=mask, value=value)


def masked_fill_(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return apply_inplace(MaskedFillBackward1, a, value, mask=mask)
    return apply_inplace(MaskedFillBackward0, a, mask=mask, value=value)


def _gather_key(index: np.ndarray, dim: int) -> tuple:
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _check_gather(a: Tensor, dim: int, index: Tensor, name: str) -> int:
    if index.dtype is not dtypes.int64 and index.dtype.name != "int32":
        raise TorchRuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    d = _wrap(dim, a.array.ndim)
    if index.array.ndim != a.array.ndim:
        raise TorchRuntimeError(
            "Index tensor must have the same number of dimensions as input tensor")
    size = a.array.shape[d]
    bad = index.array[(index.array < 0) | (index.array >= size)]
    if bad.size:
        raise TorchRuntimeError(
            f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {d} with size {size}")
    return d


class GatherBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, dim: int, index: Tensor, sparse_grad: bool = False
                ) -> np.ndarray:
        d = _check_gather(a, dim, index, "gather")
        self.save("index", index)
        self.save("self", a)
        self.save_attr(dim=saved_int(dim), sparse_grad=sparse_grad)
        return a.array[_gather_key(index.array, d)]

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        a = self.unpack("self")
        return ScatterAddBackward0.call(zeros(a.shape, dtype=grad.dtype), grad,
                                        dim=signed(self.attrs["dim"]), index=self.unpack("index"))


class ScatterAddBackward0(Function):
    __slots__ = ()

    def forward(self, a: Tensor, src: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = _check_gather(a, dim, index, "scatter")
        self.save("index", index)
        self.save_attr(dim=saved_int(dim))
        out = a.array.copy()
        np.add.at(out, _gather_key(index.array, d),
                  src.array[tuple(slice(0, s) for s in index.array.shape)])
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), self.unpack("index")
        g_src = gather(grad, dim, index) if self.needs_input_grad(1) else None
        return (grad if self.needs_input_grad(0) else None), g_src


class ScatterBackward0(Function):
    """scatter(self, dim, index, src): what max(dim)/min(dim) record in their backward."""

    __slots__ = ()

    def forward(self, a: Tensor, src: Tensor, dim: int, index: Tensor) -> np.ndarray:
        d = _check_gather(a, dim, index, "scatter")
        self.save("index", index)
        self.save_attr(dim=saved_int(dim))
        out = a.array.copy()
        out[_gather_key(index.array, d)] = src.array[
            tuple(slice(0, s) for s in index.array.shape)]
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim, index = signed(self.attrs["dim"]), self.unpack("index")
        g_self = None
        if self.needs_input_grad(0):  # torch: grad.scatter(dim, index, 0)
            kept = np.ones(grad.array.shape, dtype=bool)
            kept[_gather_key(index.array, _wrap(dim, grad.array.ndim))] = False
            g_self = grad * Tensor._wrap(kept)
        g_src = gather(grad, dim, index) if self.needs_input_grad(1) else None
        return g_self, g_src


def gather(a: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    return GatherBackward0.call(a, dim=dim, index=index, sparse_grad=sparse_grad)


def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return ScatterAddBackward0.call(a, src, dim=dim, index=index)


# -- unbind / split / chunk / cat / stack -------------------------------------------


class UnbindBackward0(ViewFunction):
    __slots__ = ()
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
    if a.array.ndim == 0:
        raise TorchRuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = a.array.shape[_wrap(dim, a.array.ndim)]
    return split(a, -(-size // chunks), dim)


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


class CatBackward0(Function):
    __slots__ = ()

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
        return np.concatenate([cast(t_.array, dtype) for t_ in used], axis=d)

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
        return np.stack([cast(t_.array, dtype) for t_ in tensors], axis=d)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        dim = signed(self.attrs["dim"])
        return tuple(select(grad, dim, i) if self.needs_input_grad(i) else None
                     for i in range(len(self.input_meta)))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise TorchRuntimeError("stack expects a non-empty TensorList")
    return StackBackward0.call(*tensors, dim=dim)


# -- in-place writes: copy_, fill_, setitem, and rebasing a view's history ------------


class CopyBackwards(Function):
    """`self.copy_(src)`: self's gradient is zero, src gets the gradient (reduced to its shape)."""

    __slots__ = ()

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def forward(self, a: Tensor, src: Tensor) -> np.ndarray:
        shape = broadcast_shapes(a.array.shape, src.array.shape)
        return np.broadcast_to(src.array, shape).astype(a.array.dtype)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_self = zeros_like(grad) if self.needs_input_grad(0) else None
        return g_self, (grad if self.needs_input_grad(1) else None)


def copy_(a: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TorchTypeError(
            f"copy_(): argument 'src' (position 1) must be Tensor, not {type_name(src)}")
    return apply_inplace(CopyBackwards, a, src)


class FillBackward3(Function):
    """`self.fill_(value)` with a 0-dim tensor value (what `t[i] = scalar` does)."""

    __slots__ = ()

    def forward(self, a: Tensor, value: Tensor) -> np.ndarray:
        return np.full(a.array.shape, value.array, dtype=a.array.dtype)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_self = zeros_like(grad) if self.needs_input_grad(0) else None
        return g_self, (grad.sum() if self.needs_input_grad(1) else None)


def _strip_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def _copy_to(dst: Tensor, src: Tensor) -> None:
    """torch's indexing copy_to: copy_, fill_ for a 0-dim source, else view + expand + copy_."""
    if dst.array.shape == src.array.shape:
        copy_(dst, src)
        return
    if src.array.ndim == 0:
        apply_inplace(FillBackward3, dst, src)
        return
    src = ViewBackward0.call(src, shape=_strip_leading_ones(src.array.shape))
    if src.array.shape != dst.array.shape:
        src = ExpandBackward0.call(src, shape=dst.array.shape)
    copy_(dst, src)


def _value_tensor(t: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, np.number)):
        return Tensor._wrap(np.asarray(value).astype(t.dtype.np))
    raise TorchTypeError(
        f"can't assign a {type_name(value)} to a torch.{t.dtype.tensor_type}")


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """`t[index] = value` exactly as torch runs it (THPVariable_setitem)."""
    src = _value_tensor(t, value)
    if index is False:
        return
    if isinstance(index, slice) or index is None or index is Ellipsis or isinstance(index, bool) \
            or _is_int(index):
        index = (index,)
    sliced, indices = _apply_slicing(t, _index_tuple(index))
    if not indices:
        _copy_to(sliced, src)
        return
    stripped = _strip_leading_ones(src.array.shape)
    if stripped != src.array.shape:
        src = ViewBackward0.call(src, shape=stripped)
    apply_inplace(IndexPutBackward0, sliced, src, indices=tuple(indices))


def index_put_(a: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    return apply_inplace(IndexPutBackward0, a, values, indices=tuple(indices),
                         accumulate=accumulate)


def index_put(a: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    return IndexPutBackward0.call(a, values, indices=tuple(indices), accumulate=accumulate)


def _geometry(view_: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The view's size, stride and storage offset, in elements, relative to its base."""
    base = view_._base.array
    arr = view_.array
    item = arr.itemsize
    offset = (arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return arr.shape, torch_strides(arr), offset


def _strided(storage: np.ndarray, size: tuple[int, ...], stride: tuple[int, ...],
             offset: int) -> np.ndarray:
    item = storage.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], shape=size, strides=tuple(s * item for s in stride))


def _storage_for(shape: tuple[int, ...], strides: tuple[int, ...], extra: int,
                 dtype: np.dtype) -> np.ndarray:
    extent = _region_extent(shape, strides, 0)
    return np.zeros(max(extent, extra), dtype=dtype)


def _region_extent(size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> int:
    if not all(size):
        return offset
    return offset + 1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True))


class AsStridedBackward0(Function):
    """A view's grad_fn after an in-place op on it: the view as a strided window of its base."""

    __slots__ = ("base_strides",)

    def forward(self, a: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int, base_strides: tuple[int, ...]) -> np.ndarray:
        self.save_attr(size=tuple(size), storage_offset=storage_offset, stride=tuple(stride))
        self.base_strides = base_strides
        storage = _storage_for(a.array.shape, base_strides,
                               _region_extent(size, stride, storage_offset), a.array.dtype)
        _strided(storage, a.array.shape, base_strides, 0)[...] = a.array
        return _strided(storage, size, stride, storage_offset).copy()

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        shape, dtype = self.input_meta[0]
        a = self.attrs
        if GRAD_MODE.enabled and not (_maybe_overlapping(a["size"], a["stride"])
                                      or _maybe_overlapping(shape, self.base_strides)):
            return _as_strided_backward(grad, shape, self.base_strides, a)
        return AsStridedScatterBackward0.call(
            zeros(shape, dtype=dtype), grad, size=a["size"], stride=a["stride"],
            storage_offset=a["storage_offset"], base_strides=self.base_strides)


def _maybe_overlapping(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """torch's _maybe_overlapping_memory."""
    max_index = 0
    for stride, size in sorted(zip(strides, sizes), key=lambda p: p[0]):
        if stride <= max_index:
            return True
        max_index += stride * (size - 1)
    return False


def _as_strided_backward(grad: Tensor, shape: tuple[int, ...], strides: tuple[int, ...],
                         out: dict[str, Any]) -> Tensor:
    """torch's as_strided_backward (no overlap) op for op, so create_graph records it:
    zeros storage; storage.as_strided(out).copy_(grad); storage.as_strided(input)."""
    base_size = max(_region_extent(shape, strides, 0),
                    _region_extent(out["size"], out["stride"], out["storage_offset"]))
    storage = Tensor._wrap(np.zeros(base_size, dtype=grad.array.dtype))
    window = AsStridedViewBackward0.call(storage, size=out["size"], stride=out["stride"],
                                         storage_offset=out["storage_offset"], base_strides=(1,))
    copy_(window, grad)
    return AsStridedViewBackward0.call(storage, size=tuple(shape), stride=tuple(strides),
                                       storage_offset=0, base_strides=(1,))


class AsStridedScatterBackward0(Function):
    """`self` with a strided window replaced by `src` (CopySlices' gradient for the base)."""

    __slots__ = ("base_strides",)

    def forward(self, a: Tensor, src: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int, base_strides: tuple[int, ...]) -> np.ndarray:
        self.save_attr(size=tuple(size), storage_offset=storage_offset, stride=tuple(stride))
        self.base_strides = base_strides
        storage = _storage_for(a.array.shape, base_strides,
                               _region_extent(size, stride, storage_offset), a.array.dtype)
        base_view = _strided(storage, a.array.shape, base_strides, 0)
        base_view[...] = a.array
        _strided(storage, size, stride, storage_offset)[...] = src.array
        return base_view.copy()

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a = self.attrs
        geometry = dict(size=a["size"], stride=a["stride"], storage_offset=a["storage_offset"],
                        base_strides=self.base_strides)
        g_self = g_src = None
        if self.needs_input_grad(0):
            zero = Tensor._wrap(np.zeros(a["size"], dtype=grad.array.dtype))
            g_self = AsStridedScatterBackward0.call(grad, zero, **geometry)
        if self.needs_input_grad(1):
            g_src = AsStridedBackward0.call(grad, **geometry)
        return g_self, g_src


class AsStridedViewBackward0(ViewFunction, AsStridedBackward0):
    """as_strided as a real view of a contiguous tensor: what CopySlices' backward takes of
    its result under create_graph (torch names it AsStridedBackward0 too)."""

    __slots__ = ()

    def forward(self, a: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int, base_strides: tuple[int, ...]) -> np.ndarray:
        self.save_attr(size=tuple(size), storage_offset=storage_offset, stride=tuple(stride))
        self.base_strides = base_strides
        return _strided(a.array.reshape(-1), size, stride, storage_offset)


AsStridedViewBackward0.__name__ = "AsStridedBackward0"


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views (torch's CopySlices).

    Backward: the base's gradient with the view's window replaced by what the in-place
    op `fn` returns for its self input; `fn`'s other inputs get its other gradients.
    """

    __slots__ = ("fn", "size", "stride", "storage_offset", "base_strides")

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def saved_names(self) -> list[str]:
        return []

    def release(self) -> None:
        self.fn.release()

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        grad = grads[0]
        if grad is None:
            return (None,) * len(self.next_functions)
        geometry = dict(size=self.size, stride=self.stride, storage_offset=self.storage_offset,
                        base_strides=self.base_strides)
        shape, dtype = self.input_meta[0]
        if GRAD_MODE.enabled and self.base_strides == contiguous_strides(shape):
            return self._apply_recorded(grad, shape, dtype, geometry)
        grad_slice = AsStridedBackward0.call(grad, **geometry)
        res = list(self.fn.apply([grad_slice]))
        res += [None] * (len(self.next_functions) - len(res))
        out: list[Tensor | None] = [None] * len(self.next_functions)
        if self.next_functions[0][0] is not None and res[0] is not None:
            src = res[0]
            if src.array.shape != tuple(self.size):
                src = src.expand(self.size)
            if src.dtype is not grad.dtype:
                src = src.to(grad.dtype)
            out[0] = AsStridedScatterBackward0.call(grad, src, **geometry)
        for i in range(1, len(out)):
            out[i] = res[i]
        return tuple(out)


    def _apply_recorded(self, grad: Tensor, shape: tuple[int, ...], dtype: Any,
                        geometry: dict[str, Any]) -> tuple[Tensor | None, ...]:
        """torch's CopySlices::apply op for op, so create_graph records its nodes: result =
        empty.copy_(grad); fn(result.as_strided(...).clone()); grad_slice.copy_(res[0])."""
        result = copy_(Tensor._wrap(np.empty(shape, dtype=dtype.np)), grad)
        grad_slice = AsStridedViewBackward0.call(result, **geometry)
        res = list(self.fn.apply([clone(grad_slice)]))
        res += [None] * (len(self.next_functions) - len(res))
        out: list[Tensor | None] = [None] * len(self.next_functions)
        if self.next_functions[0][0] is not None and res[0] is not None:
            copy_(grad_slice, res[0])
            out[0] = result
        for i in range(1, len(out)):
            out[i] = res[i]
        return tuple(out)


def rebase_view(view_: Tensor, node: Node) -> None:
    """History after in-place op `node` on a view: base -> CopySlices, view -> AsStrided."""
    base = view_._base
    size, stride, offset = _geometry(view_)
    base_strides = tuple(s // base.array.itemsize for s in base.array.strides)
    copy_slices = CopySlices()
    copy_slices.fn = node
    copy_slices.size, copy_slices.stride = size, stride
    copy_slices.storage_offset, copy_slices.base_strides = offset, base_strides
    copy_slices.next_functions = (gradient_edge(base),) + tuple(node.next_functions[1:])
    copy_slices.input_meta = ((base.array.shape, base.dtype),) + tuple(node.input_meta[1:])
    copy_slices.output_meta = ((base.array.shape, base.dtype),)
    base.grad_fn = copy_slices
    base.requires_grad = True
    base.output_nr = 0

    _set_as_strided(view_, (copy_slices, 0))


def _set_as_strided(view_: Tensor, edge: tuple[Node | None, int]) -> None:
    """Give a view the grad_fn torch regenerates for it: AsStridedBackward0 over `edge`."""
    base = view_._base
    size, stride, offset = _geometry(view_)
    node = AsStridedBackward0.__new__(AsStridedBackward0)
    node.recording = True
    Node.__init__(node)
    node.save_attr(size=size, storage_offset=offset, stride=stride)
    node.base_strides = tuple(s // base.array.itemsize for s in base.array.strides)
    node.next_functions = (edge,)
    node.input_meta = ((base.array.shape, base.dtype),)
    node.output_meta = ((view_.array.shape, view_.dtype),)
    view_.grad_fn = node
    view_.requires_grad = True
    view_.output_nr = 0


def multi_output_name(node: Node) -> str:
    """How torch names a multi-output view op in its in-place error ("Unbind")."""
    return re.sub(r"Backward\d*$", "", node.name())


__all__ = [
    "view", "reshape", "flatten", "expand", "unsqueeze", "squeeze", "t", "permute", "transpose",
    "getitem", "setitem", "unbind", "split", "chunk", "cat", "stack", "copy_", "rebase_view",
    "Size",
]
