"""Shape and view ops: view/reshape, expand, (un)squeeze, t/transpose/permute, and the
registry of live views (select, slice and narrow are in select_views.py).

Views share storage and the version counter with their base, like torch. What an in-place
op on a view does to the history (CopySlices, AsStridedBackward0) is in view_inplace.py;
`t[...]` and `t[...] = v` in subscript.py; unbind/split/chunk/cat/stack in joins.py.
"""
from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from ...errors import (
    TorchRuntimeError,
    TorchTypeError,
)
from ..dtypes import INT64_MAX, DType
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..limits import MAX_DIMS, too_many_dims
from ..meta import MetaArray, is_c_contiguous, strides_of
from ..node import Function
from ..shapes import (
    Size,
    contiguous_strides,
    size_args,
    strided_view,
    view_strides,
    wrap_dim,
)
from ..tensor import Tensor

U64 = 2**64


def saved_int(value: Any) -> Any:
    """An int64 as torch shows it in `_saved_*` (negative ints appear as uint64; an
    optional int that is None stays None)."""
    return value + U64 if value is not None and value < 0 else value


def signed(value: Any) -> Any:
    """Undo `saved_int`."""
    return value - U64 if value is not None and value > INT64_MAX else value


def saved_ints(values: Any) -> tuple[int, ...]:
    return tuple(saved_int(v) for v in values)


# Arrays laid out by torch's empty_strided with a size-1 dim's stride other than the
# canonical one (empty_like of a (30, 1) tensor with strides (1, 30) keeps them), which
# numpy calls row-major all the same: their strides are reported as they are.
# id -> a weak reference to the array (by id, as an array's == compares values)
EXACT_STRIDES: dict[int, weakref.ref] = {}


def keep_exact_strides(array: np.ndarray) -> None:
    """Report `array`'s own strides, a size-1 dim's included (see EXACT_STRIDES)."""
    key = id(array)

    def drop(ref: weakref.ref, key: int = key) -> None:
        if EXACT_STRIDES.get(key) is ref:
            del EXACT_STRIDES[key]

    EXACT_STRIDES[key] = weakref.ref(array, drop)


def torch_strides(array: np.ndarray) -> tuple[int, ...]:
    """Strides in elements, as torch reports them (contiguous arrays: torch's canonical ones;
    a meta tensor's: the ones its op gave it; an EXACT_STRIDES array's: its own)."""
    if type(array) is MetaArray:
        return strides_of(array)
    if array.flags.c_contiguous:
        ref = EXACT_STRIDES.get(id(array)) if EXACT_STRIDES else None
        if ref is None or ref() is not array:
            return contiguous_strides(array.shape)
    return tuple(s // array.itemsize for s in array.strides)


def tensor_strides(t: Tensor) -> tuple[int, ...]:
    """A tensor's strides as torch reports them. Like `torch_strides`, except that a view
    keeps the strides its view op gave its size-1 dimensions: torch's t() of a contiguous
    (n, 1) matrix has strides (1, 1), not the (n, 1) of a fresh (1, n) tensor, and numpy's
    transposes, permutations and slices keep them the same way (a newaxis' 0 aside, which
    torch's unsqueeze never gives). mm's backward tests them (column-major or not)."""
    array = t.array
    strides = torch_strides(array)
    if (t._base is None or type(array) is MetaArray or not array.flags.c_contiguous
            or 1 not in array.shape):
        return strides
    return tuple(s // array.itemsize if n == 1 and s else c
                 for n, s, c in zip(array.shape, array.strides, strides, strict=True))


def warn(message: str) -> None:
    from .creation import WARNINGS

    WARNINGS.append(f"UserWarning: {message}")


def warn_once(message: str) -> None:
    """A TORCH_WARN_ONCE: shown once per run, from the first line that triggers it (the
    message names its place in torch's C++)."""
    from .creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(f"UserWarning: {message}", message))


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
# id(base) -> [base, views, the count of views at which dead references are next dropped]
_VIEWS: dict[int, list] = {}


def _register_view(out: Tensor) -> None:
    base = out._base
    key = id(base)
    entry = _VIEWS.get(key)
    if entry is None or entry[0]() is not base:
        ref = weakref.ref(base, lambda _r, key=key: _drop_views(key, _r))
        _VIEWS[key] = [ref, [weakref.ref(out)], 64]
        return
    refs = entry[1]
    if len(refs) > entry[2]:
        # drop dead references, then wait until the list doubles: linear over a run that
        # keeps many views alive (stack's backward selects one per input), not quadratic
        refs[:] = [r for r in refs if r() is not None]
        entry[2] = max(64, 2 * len(refs))
    refs.append(weakref.ref(out))


def _drop_views(key: int, ref: weakref.ref) -> None:
    entry = _VIEWS.get(key)
    if entry is not None and entry[0] is ref:
        del _VIEWS[key]


class ViewFunction(Function):
    """An op whose output is a view of its first input."""

    __slots__ = ()
    returns_view = True
    meta_layout_only = True

    @classmethod
    def call(cls, *inputs: Tensor, **params: Any) -> Any:
        out = super().call(*inputs, **params)
        if not cls.multi_output:
            _register_view(out)
        return out


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


def restrided(array: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...]
              ) -> np.ndarray:
    """A view of `array`'s memory with torch's sizes and strides (in elements). Past
    numpy's dimension limit it is gradtrace's NotSupportedError, as numpy's reshape's
    refusal is (as_strided's ValueError says it otherwise). One whose elements overlap (a
    dim of size > 1 with stride 0: an expand) is read-only, as numpy's broadcast_to made
    it: torch refuses to write into it, and nothing here may add into it in place."""
    if len(shape) > MAX_DIMS:
        raise too_many_dims(ValueError(), len(shape))
    item = array.itemsize
    overlapping = any(s == 0 and n > 1 for n, s in zip(shape, strides))
    return strided_view(array, shape, tuple(s * item for s in strides),
                        writeable=not overlapping and array.flags.writeable)


def _viewable(array: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether torch can view `array` as `shape` (a meta array's reported strides too)."""
    return is_c_contiguous(array) or \
        view_strides(array.shape, torch_strides(array), shape) is not None


def _reshaped_view(array: np.ndarray, shape: tuple[int, ...],
                   strides: tuple[int, ...] | None = None) -> np.ndarray | None:
    """`array` viewed as `shape`, or None. Asked first, since numpy's shape setter copies
    before it refuses (a meta window's copy would read memory that is not there). Given
    the tensor's `strides` (as torch reports them), a plain array gets computeStride's
    strides, its size-1 dims' included (numpy's reshape gives those others)."""
    if strides is not None and type(array) is np.ndarray:
        new = view_strides(array.shape, strides, shape)
        return None if new is None else restrided(array, shape, new)
    if not _viewable(array, shape):
        return None
    out = array.view()
    try:
        out.shape = shape  # (numpy's own check agrees: it views what torch views)
    except AttributeError:
        return None
    return out


class ViewBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.reshape({self_sym_sizes})"),)

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        shape = infer_size(shape, a.array.size)
        self.save_attr(self_sym_sizes=a.array.shape)
        out = _reshaped_view(a.array, shape, tensor_strides(a))
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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.reshape({self_sym_sizes})"),)

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
    if (len(shape) == 1 and not kwargs and isinstance(shape[0], DType)) or (
            not shape and set(kwargs) == {"dtype"}):
        from .view_dtype import view_dtype  # view.dtype, the overload a dtype picks

        return view_dtype(a, shape[0] if shape else kwargs["dtype"])
    return ViewBackward0.call(a, shape=_sizes(shape, kwargs, "size"))


def view_as(a: Tensor, other: Tensor) -> Tensor:
    return ViewBackward0.call(a, shape=other.shape)


def alias_array(a: Tensor) -> np.ndarray:
    """The array of `a.view_as(a)`: `a`'s memory with view's strides for its own sizes."""
    viewed = _reshaped_view(a.array, a.array.shape, tensor_strides(a))
    return a.array.view() if viewed is None else viewed


def alias_view(a: Tensor) -> Tensor:
    """`a.view_as(a)` under no_grad, unobserved: how a custom Function returns an input
    as-is (a new tensor viewing it, sharing its version counter). Its strides are view's:
    computeStride's for its own sizes, so a size-1 dim's stride can change (a channels-last
    (1, C, H, W) tensor's batch stride H*W*C becomes C, and convolution then no longer
    suggests channels-last for it, as torch's does not)."""
    out = Tensor._wrap(alias_array(a))
    out._version_counter = a._version_counter
    out._base = a._base if a._base is not None else a
    _register_view(out)
    return out


def reshape(a: Tensor, *shape: Any, **kwargs: Any) -> Tensor:
    """Tensor.reshape(*shape) / reshape(shape=...), torch.reshape(input, shape)."""
    shape = infer_size(_sizes(shape, kwargs, "shape") if kwargs else size_args(shape),
                       a.array.size)
    if is_c_contiguous(a.array):
        return ViewBackward0.call(a, shape=shape)
    if view_strides(a.array.shape, tensor_strides(a), shape) is not None if \
            type(a.array) is np.ndarray else _viewable(a.array, shape):
        return ReshapeAliasBackward0.call(a, shape=shape)
    from .clones import contiguous

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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return a.array.view()

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def alias(a: Tensor) -> Tensor:
    return AliasBackward0.call(a)


def expanded_shape(src: tuple[int, ...], shape: tuple[int, ...],
                   described: str) -> tuple[int, ...]:
    """at::expand's target sizes for a tensor of sizes `src` (-1 keeps a size), with its
    messages; `described` names the tensor as the message does (`torch.FloatTensor`, or
    expand_inplace's `CPUBoolType`)."""
    if len(shape) < len(src):
        raise TorchRuntimeError(
            f"expand({described}{{[{', '.join(map(str, src))}]}}, "
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
    return tuple(target)


class ExpandBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.sum_to_size({self_sym_sizes})"),)

    def forward(self, a: Tensor, shape: tuple[int, ...]) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        target = expanded_shape(a.array.shape, shape, f"torch.{a.dtype.tensor_type}")
        if type(a.array) is np.ndarray:
            return restrided(a.array, target, _expanded_strides(a, target))
        return np.broadcast_to(a.array, target)

    def backward(self, grad: Tensor) -> Tensor:
        return sum_to(grad, self.attrs["self_sym_sizes"])


def _expanded_strides(a: Tensor, target: tuple[int, ...]) -> tuple[int, ...]:
    """inferExpandGeometry's strides: an expanded dim's 0, a kept dim's own (a size-1
    one's included), a new size-1 dim's the size times stride of the dim after it."""
    sizes, strides = a.array.shape, tensor_strides(a)
    out = [0] * len(target)
    offset = len(target) - len(sizes)
    for i in range(len(target) - 1, -1, -1):
        d = i - offset
        if d >= 0:
            size, stride = sizes[d], strides[d]
        else:
            size, stride = 1, target[i + 1] * out[i + 1] if i + 1 < len(target) else 1
        out[i] = 0 if size != target[i] else stride
    return tuple(out)


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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.squeeze({dim})"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim))
        d = _wrap(dim, a.array.ndim + 1)
        if type(a.array) is not np.ndarray:
            return np.expand_dims(a.array, d)
        # torch's stride for the new dim: the size times stride of the dim it precedes
        # (numpy's expand_dims gives it and its size-1 neighbours others)
        sizes, strides = a.array.shape, list(tensor_strides(a))
        strides.insert(d, sizes[d] * strides[d] if d < len(sizes) else 1)
        return restrided(a.array, sizes[:d] + (1,) + sizes[d:], tuple(strides))

    def backward(self, grad: Tensor) -> Tensor:
        return grad.squeeze(signed(self.attrs["dim"]))


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    _wrap(dim, a.array.ndim + 1)
    return UnsqueezeBackward0.call(a, dim=dim)


class SqueezeBackward0(ViewFunction):
    """squeeze(): every size-1 dim."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.reshape({self_sym_sizes})"),)

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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.reshape({self_sym_sizes})"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        self.save_attr(dim=saved_int(dim), self_sym_sizes=a.array.shape)
        return _squeeze_dims(a.array, (_wrap(dim, a.array.ndim),))

    def backward(self, grad: Tensor) -> Tensor:
        return unsqueeze_to(grad, self.attrs["self_sym_sizes"], (self.attrs["dim"],))


class SqueezeBackward2(ViewFunction):
    """squeeze(dims): those dims that have size 1."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.reshape({self_sym_sizes})"),)

    def forward(self, a: Tensor, dim: tuple[int, ...]) -> np.ndarray:
        self.save_attr(dim=saved_ints(dim), self_sym_sizes=a.array.shape)
        return _squeeze_dims(a.array, tuple(_wrap(d, a.array.ndim) for d in dim))

    def backward(self, grad: Tensor) -> Tensor:
        return unsqueeze_to(grad, self.attrs["self_sym_sizes"], self.attrs["dim"])


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return SqueezeBackward0.call(a)
    if isinstance(dim, (tuple, list)):
        for d in dim:
            _wrap(d, a.array.ndim)
        return SqueezeBackward2.call(a, dim=tuple(dim))
    _wrap(dim, a.array.ndim)
    return SqueezeBackward1.call(a, dim=dim)


# -- transposes ----------------------------------------------------------------


class TBackward0(ViewFunction):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.t()"),)

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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.permute(argsort({dims}))"),)

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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.transpose({dim0}, {dim1})"),)

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
        warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                  "these cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                  "native/TensorShape.cpp:4321.)")
    elif ndim != 2:
        warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                  "shape is deprecated and it will throw an error in a future release. "
                  "Consider `x.mT` to transpose batches of matrices or "
                  "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of "
                  "a tensor. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                  "native/TensorShape.cpp:4314.)")
    return permute(a, tuple(range(ndim - 1, -1, -1)))


def mT(a: Tensor) -> Tensor:  # noqa: N802 - torch's name
    if a.array.ndim == 0:
        warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                  "these cases. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                  "native/TensorShape.cpp:4373.)")
        return a
    if a.array.ndim < 2:
        raise TorchRuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got "
            f"{a.array.ndim}-D tensor.")
    return transpose(a, -2, -1)


def _conjugated(a: Tensor) -> Tensor:
    """The conjugate view of a complex tensor (torch's conj(): ConjBackward0 over the
    transpose), a real one itself."""
    from .complex_ops import conj

    return conj(a)


def _conj_transpose(a: Tensor, name: str, spelled: str, line: int) -> Tensor:
    """`x.mH` and `x.adjoint()`: the conjugate transpose of the last two dimensions, which
    for a real dtype is mT's TransposeBackward0 view (torch's messages name the spelling
    used)."""
    if a.array.ndim == 0:
        warn_once(f"{name} is deprecated on 0-D tensors. Consider using x.conj(). "
                  f"(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                  f"TensorShape.cpp:{line}.)")
        return a
    if a.array.ndim < 2:
        raise TorchRuntimeError(
            f"{spelled} is only supported on matrices or batches "
            f"of matrices. Got {a.array.ndim}-D tensor.")
    return _conjugated(transpose(a, -2, -1))


def mH(a: Tensor) -> Tensor:  # noqa: N802 - torch's name
    return _conj_transpose(a, "Tensor.mH", "tensor.mH", 4382)


def adjoint(a: Tensor) -> Tensor:
    return _conj_transpose(a, "adjoint()", "tensor.adjoint()", 4390)


def H(a: Tensor) -> Tensor:  # noqa: N802 - torch's name
    """`x.H`: the conjugate transpose of a matrix (2-D only, unlike mH)."""
    ndim = a.array.ndim
    if ndim == 0:
        warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). "
                  "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                  "TensorShape.cpp:4335.)")
        return a
    if ndim != 2:
        hint = ". For batches of matrices, consider using tensor.mH" if ndim > 2 else "."
        raise TorchRuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor{hint}")
    return _conjugated(transpose(a, -2, -1))  # matrix_H: transpose(-2, -1), then conj()


__all__ = [
    "view", "reshape", "flatten", "expand", "unsqueeze", "squeeze", "t", "permute", "transpose",
    "Size",
]
