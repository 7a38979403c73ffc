"""Reductions (sum, mean, max/min, amax/amin, prod, norm, var/std, logsumexp, cumsum, ...)
and selection (where, maximum/minimum)."""
from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError, TorchTypeError
from .. import exactness
from .. import reduction_kernels as kernels
from ..dtypes import DType, bool_, int64
from ..formulas import local, vjp
from ..kernels import unary as unary_kernel
from ..node import Function
from ..reduction_order import cascade_sum
from ..shapes import broadcast_shapes, wrap_dim
from ..tensor import Tensor, as_tensor_operand, type_name
from ._util import cast, common_dtype, float_dtype
from .scalar import div_scalar, mul_scalar
from .views import saved_int, saved_ints, signed, warn

_MISSING: Any = object()


def dims_arg(dim: Any, ndim: int) -> tuple[int, ...]:
    """A dim, or a list/tuple of dims, wrapped and in order."""
    if isinstance(dim, (list, tuple)):
        return tuple(wrap_dim(d, ndim) for d in dim)
    return (wrap_dim(dim, ndim),)


def raw_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """A dim or dims as given (checked; torch saves them unwrapped)."""
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    seen = set()
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise TorchRuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return dims


def reduced(dims: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """Saved (raw or uint64-shown) dims as axes to reduce; () means all of them."""
    if not dims:
        return tuple(range(ndim))
    return tuple(sorted(signed(d) % ndim for d in dims)) if ndim else ()


def unsqueeze_dims(grad: Tensor, dims: tuple[int, ...], ndim: int) -> Tensor:
    """Undo a reduction without keepdim (torch's unsqueeze_multiple)."""
    for d in sorted(dims):
        if grad.array.ndim < ndim:
            grad = grad.unsqueeze(d)
    return grad


def restore(t: Tensor, dims: tuple[int, ...], ndim: int, keepdim: bool) -> Tensor:
    """A reduction's result (or gradient) with the reduced dims back, for broadcasting."""
    if keepdim or not ndim:
        return t
    return unsqueeze_dims(t, dims, ndim)


def unsqueeze_multiple(t: Tensor, dims: tuple[int, ...] | None, ndim: int) -> Tensor:
    """torch's unsqueeze_multiple on saved dims: none -> t, one -> t.unsqueeze(dim) as
    given (negative dims stay negative), several -> each wrapped dim in ascending order."""
    if not dims:
        return t
    if len(dims) == 1:
        return t.unsqueeze(signed(dims[0]))
    for d in sorted(signed(d) % ndim for d in dims):
        t = t.unsqueeze(d)
    return t


def sum_backward(grad: Tensor, sizes: tuple[int, ...], dims: tuple[int, ...],
                 keepdim: bool) -> Tensor:
    """torch's sum_backward: `dims` as saved (raw)."""
    if not keepdim and sizes and dims:
        grad = unsqueeze_multiple(grad, dims, len(sizes))
    return grad.expand(sizes)


def _sum_dtype(a: Tensor, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return a.dtype if a.dtype.is_floating_point else int64


def sum_array(array: np.ndarray, axes: tuple[int, ...], keepdim: bool,
              dtype: DType) -> np.ndarray:
    """torch.sum's values: floats in the order of torch's cascade sum (axes () = all)."""
    if dtype.np == np.float16:  # torch accumulates half in float, 16 halves to a vector
        exactness.note("float16 sums: accumulated in float32 in the float32 order, not "
                       "torch's half-precision loads")
        return cascade_sum(array.astype(np.float32), axes, keepdim).astype(np.float16)
    if dtype.is_floating_point:
        return cascade_sum(array.astype(dtype.np, copy=False), axes, keepdim)
    return np.asarray(np.sum(array, axis=axes or None, keepdims=keepdim, dtype=dtype.np))


def mean_array(array: np.ndarray, axes: tuple[int, ...], keepdim: bool,
               dtype: DType) -> np.ndarray:
    """torch.mean on CPU: the sum, then divided by the count in the result's dtype."""
    count = int(np.prod([array.shape[d] for d in axes])) if axes else array.size
    total = sum_array(array, axes, keepdim, dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(total / dtype.np.type(count), dtype=dtype.np)


class SumBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        return sum_array(a.array, (), False, _sum_dtype(a, dtype))

    def backward(self, grad: Tensor) -> Tensor:
        return grad.expand(self.attrs["self_sym_sizes"])


class SumBackward1(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.expand({self_sym_sizes})", when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}).expand({self_sym_sizes})"))

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False,
                dtype: DType | None = None) -> np.ndarray:
        self.save_attr(dim=saved_ints(dim), keepdim=keepdim, self_sym_sizes=a.array.shape)
        axes = reduced(dim, a.array.ndim)
        return sum_array(a.array, axes, keepdim, _sum_dtype(a, dtype))

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return sum_backward(grad, a["self_sym_sizes"], a["dim"], a["keepdim"])


class MeanBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / {self_sym_numel}"),)

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        _check_mean_dtype(a, dtype)
        self.save_attr(self_sym_numel=a.array.size, self_sym_sizes=a.array.shape)
        return mean_array(a.array, (), False, dtype or a.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return div_scalar(grad.expand(self.attrs["self_sym_sizes"]), self.attrs["self_sym_numel"])


class MeanBackward1(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.expand({self_sym_sizes}) × {grad}.numel() / {self_sym_numel}",
                    when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}).expand({self_sym_sizes}) × {grad}.numel() / "
                    "{self_sym_numel}"))

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False,
                dtype: DType | None = None) -> np.ndarray:
        _check_mean_dtype(a, dtype)
        self.save_attr(dim=saved_ints(dim), keepdim=keepdim, self_sym_numel=a.array.size,
                       self_sym_sizes=a.array.shape)
        axes = reduced(dim, a.array.ndim)
        return mean_array(a.array, axes, keepdim, dtype or a.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        sizes = a["self_sym_sizes"]
        axes = reduced(a["dim"], len(sizes))
        count = int(np.prod([sizes[d] for d in axes])) if sizes else 1
        return div_scalar(sum_backward(grad, sizes, a["dim"], a["keepdim"]), count)


def _check_mean_dtype(a: Tensor, dtype: DType | None) -> None:
    if not (dtype or a.dtype).is_floating_point:
        name = (dtype or a.dtype).tensor_type[:-6]
        raise TorchRuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {name}")


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A001
        dtype: DType | None = None) -> Tensor:
    if dim is None:
        return SumBackward0.call(a, dtype=dtype)
    return SumBackward1.call(a, dim=raw_dims(dim, a.array.ndim), keepdim=keepdim, dtype=dtype)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, *,
         dtype: DType | None = None) -> Tensor:
    if dim is None:
        return MeanBackward0.call(a, dtype=dtype)
    return MeanBackward1.call(a, dim=raw_dims(dim, a.array.ndim), keepdim=keepdim, dtype=dtype)


class WhereBackward0(Function):
    """torch.where(condition, x, y): inputs are (x, y); the condition is saved."""

    __slots__ = ()
    formulas = (local("self", "1 if {condition} else 0"),
                local("other", "0 if {condition} else 1"))

    def forward(self, x: Tensor, y: Tensor, condition: Tensor) -> np.ndarray:
        dtype = common_dtype(x, y)
        self.save("condition", condition)
        return np.where(condition.array, cast(x.array, dtype), cast(y.array, dtype))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        cond = self.unpack("condition")
        zero = Tensor.scalar(0.0)
        gx = where(cond, grad, zero) if self.needs_input_grad(0) else None
        gy = where(cond, zero, grad) if self.needs_input_grad(1) else None
        return gx, gy


def where(condition: Tensor, x: Any, y: Any) -> Tensor:
    if condition.dtype.name != "bool":
        raise TorchRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.tensor_type[:-6]}")
    tx, ty = as_tensor_operand(x), as_tensor_operand(y)
    broadcast_shapes(broadcast_shapes(condition.array.shape, tx.array.shape), ty.array.shape)
    return WhereBackward0.call(tx, ty, condition=condition)


# -- max / min -------------------------------------------------------------------


class ReturnTypes(tuple):
    """torch.return_types.max & co: a (values, indices) tuple that prints like torch."""

    __slots__ = ()
    type_name = "max"

    def __new__(cls, values: Tensor, indices: Tensor) -> ReturnTypes:
        return super().__new__(cls, (values, indices))

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return (f"torch.return_types.{self.type_name}(\nvalues={self[0]!r},\n"
                f"indices={self[1]!r})")

    __str__ = __repr__


class _MaxReturn(ReturnTypes):
    __slots__ = ()
    type_name = "max"


class _MinReturn(ReturnTypes):
    __slots__ = ()
    type_name = "min"


def _evenly_distribute(grad: Tensor, self_: Tensor, result: Tensor) -> Tensor:
    """torch: grad.new_zeros(sizes).masked_fill_(input == value, grad / mask.sum())."""
    from .indexing import masked_fill_

    if np.isnan(result.array).any():
        mask = Tensor._wrap(np.isnan(self_.array))
    else:
        mask = self_ == result
    zeros = Tensor._wrap(np.zeros(self_.array.shape, dtype=grad.array.dtype))
    return masked_fill_(zeros, mask, grad / mask.sum())


# evenly_distribute_backward: ties share the gradient evenly (max(), min(), median())
EVENLY_DISTRIBUTED = (local("self", "1 / ({self} == {result}).sum() if {self} == {result} "
                            "else 0"),)
# value_selecting_reduction_backward: each value goes back to the index it was picked from
KEEPDIM_SCATTER = (vjp("self", "zeros({self_sym_sizes}).scatter({dim}, {indices}, {grad})",
                       when=(("keepdim", True),)),
                   vjp("self", "zeros({self_sym_sizes}).scatter({dim}, {indices}.unsqueeze({dim}), "
                       "{grad}.unsqueeze({dim}))"))


class _FullExtreme(Function):
    """max() / min() over all elements: ties share the gradient evenly."""

    __slots__ = ()
    formulas = EVENLY_DISTRIBUTED
    ufunc = np.max
    label = "max"

    def forward(self, a: Tensor) -> np.ndarray:
        if a.array.size == 0:
            raise TorchRuntimeError(
                f"{self.label}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        self.save("self", a)
        return np.asarray(type(self).ufunc(a.array))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return _evenly_distribute(grad, self.unpack("self"), self.unpack("result"))


class MaxBackward1(_FullExtreme):
    __slots__ = ()
    ufunc = np.max
    label = "max"


class MinBackward1(_FullExtreme):
    __slots__ = ()
    ufunc = np.min
    label = "min"


class _DimExtreme(Function):
    """max(dim) / min(dim): the values; the indices are computed by the caller and saved."""

    __slots__ = ()
    formulas = KEEPDIM_SCATTER

    def forward(self, a: Tensor, dim: int, keepdim: bool, indices: Tensor) -> np.ndarray:
        self.save("indices", indices)
        self.save_attr(dim=saved_int(dim), keepdim=keepdim, self_sym_sizes=a.array.shape)
        if a.array.ndim == 0:
            return a.array.copy()
        d = dim % a.array.ndim
        idx = indices.array if keepdim else np.expand_dims(indices.array, d)
        out = np.take_along_axis(a.array, idx, axis=d)
        return out if keepdim else np.squeeze(out, d)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return value_selecting_backward(grad, signed(a["dim"]), self.unpack("indices"),
                                        a["self_sym_sizes"], a["keepdim"])


def value_selecting_backward(grad: Tensor, dim: int, indices: Tensor, sizes: tuple[int, ...],
                             keepdim: bool) -> Tensor:
    """torch's value_selecting_reduction_backward: zeros(sizes).scatter_(dim, indices, grad)
    (max/min/sort/topk/kthvalue/median/mode along a dim)."""
    from .creation import zeros
    from .indexing import ScatterBackward0

    if not sizes:
        return grad
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = Tensor._wrap(np.expand_dims(indices.array, dim % len(sizes)))
    return ScatterBackward0.call(zeros(sizes, dtype=grad.dtype), grad, dim=dim, index=indices)


class MaxBackward0(_DimExtreme):
    __slots__ = ()


class MinBackward0(_DimExtreme):
    __slots__ = ()


def _extreme_dim(a: Tensor, dim: int, keepdim: bool, is_max: bool) -> ReturnTypes:
    d = wrap_dim(dim, a.array.ndim)
    name = "max" if is_max else "min"
    if a.array.ndim and a.array.shape[d] == 0:
        raise TorchIndexError(
            f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if a.array.ndim == 0:
        idx = np.asarray(0, dtype=np.int64)
    else:
        arg = np.argmax if is_max else np.argmin
        idx = arg(a.array, axis=d, keepdims=keepdim).astype(np.int64)
    indices = Tensor._wrap(np.asarray(idx))
    node = MaxBackward0 if is_max else MinBackward0
    values = node.call(a, dim=dim, keepdim=keepdim, indices=indices)
    return (_MaxReturn if is_max else _MinReturn)(values, indices)


def _max_min(a: Tensor, dim: Any, keepdim: bool, is_max: bool) -> Any:
    if isinstance(dim, Tensor):
        return (maximum if is_max else minimum)(a, dim)
    if dim is None:
        return (MaxBackward1 if is_max else MinBackward1).call(a)
    return _extreme_dim(a, dim, keepdim, is_max)


def max(a: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A001
        other: Tensor | None = None) -> Any:
    """torch.max(input), torch.max(input, dim, keepdim), torch.max(input, other)."""
    return _max_min(a, dim if other is None else other, keepdim, True)


def min(a: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A001
        other: Tensor | None = None) -> Any:
    return _max_min(a, dim if other is None else other, keepdim, False)


class _AmaxAmin(Function):
    __slots__ = ()
    formulas = (vjp("self", "({self} == {result}) × {grad} / ({self} == {result}).sum({dim}, "
                    "keepdim=True)",
                    when=(("keepdim", True),)),
                vjp("self", "({self} == {result}.unsqueeze({dim})) × {grad}.unsqueeze({dim}) / "
                    "({self} == {result}.unsqueeze({dim})).sum({dim}, keepdim=True)"))
    ufunc = np.max

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False) -> np.ndarray:
        axes = reduced(dim, a.array.ndim)
        if 0 in [a.array.shape[d] for d in axes]:
            raise TorchIndexError(
                f"{type(self).__name__[:4].lower()}(): Expected reduction dim {axes[0]} to have "
                "non-zero size.")
        self.save("self", a)
        self.save_attr(dim=saved_ints(dim), keepdim=keepdim)
        return np.asarray(type(self).ufunc(a.array, axis=axes, keepdims=keepdim))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        """torch: scale_grad_by_count(restore_reduced_dims(grad), restored result == self)."""
        self_, result = self.unpack("self"), self.unpack("result")
        dims = self.attrs["dim"]
        keepdim = self.attrs["keepdim"]
        mask = _restore_reduced_dims(result, dims, keepdim) == self_
        count = mask.sum(dim=tuple(signed(d) for d in dims), keepdim=True)
        return (_restore_reduced_dims(grad, dims, keepdim) / count) * mask


def _restore_reduced_dims(t: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """torch's restore_reduced_dims: reshape with a 1 at every reduced dim."""
    if keepdim:
        return t
    total = t.array.ndim + len(dims)
    target = [0] * total
    for d in dims:
        d = signed(d)
        target[d + total if d < 0 else d] = 1
    j = 0
    for size in t.array.shape:
        while target[j] > 0:
            j += 1
        target[j] = size
        j += 1
    return t.reshape(tuple(target))


class AmaxBackward0(_AmaxAmin):
    __slots__ = ()
    ufunc = np.max


class AminBackward0(_AmaxAmin):
    __slots__ = ()
    ufunc = np.min


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return AmaxBackward0.call(a, dim=raw_dims(dim, a.array.ndim) if dim != () else (),
                              keepdim=keepdim)


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return AminBackward0.call(a, dim=raw_dims(dim, a.array.ndim) if dim != () else (),
                              keepdim=keepdim)


class MaximumBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 if {self} > {other} else 0.5 if {self} == {other} else 0"),
                local("other", "1 if {other} > {self} else 0.5 if {self} == {other} else 0"))
    ufunc = np.maximum

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        self.save("other", b)
        self.save("self", a)
        return type(self).ufunc(cast(a.array, dtype), cast(b.array, dtype))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """torch: at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)."""
        from .indexing import masked_fill_

        a, b = self.unpack("self"), self.unpack("other")
        loses_a, loses_b = (a < b, a > b) if type(self).ufunc is np.maximum else (a > b, a < b)
        ga = gb = None
        if self.needs_input_grad(0):
            ga = masked_fill_(where(a == b, div_scalar(grad, 2), grad), loses_a, 0)
        if self.needs_input_grad(1):
            gb = masked_fill_(where(a == b, div_scalar(grad, 2), grad), loses_b, 0)
        return ga, gb


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()
    formulas = (local("self", "1 if {self} < {other} else 0.5 if {self} == {other} else 0"),
                local("other", "1 if {other} < {self} else 0.5 if {self} == {other} else 0"))
    ufunc = np.minimum


def _tensor_other(name: str, other: Any) -> Tensor:
    if not isinstance(other, Tensor):
        raise TorchTypeError(
            f"{name}(): argument 'other' (position 2) must be Tensor, not {type_name(other)}")
    return other


def maximum(a: Tensor, other: Any) -> Tensor:
    return MaximumBackward0.call(a, _tensor_other("maximum", other))


def minimum(a: Tensor, other: Any) -> Tensor:
    return MinimumBackward0.call(a, _tensor_other("minimum", other))


def argmax(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _arg(np.argmax, a, dim, keepdim)


def argmin(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _arg(np.argmin, a, dim, keepdim)


def _arg(fn: Any, a: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None:
        out = np.asarray(fn(a.array), dtype=np.int64)
        if keepdim:
            out = out.reshape((1,) * a.array.ndim)
        return Tensor._wrap(out)
    d = wrap_dim(dim, a.array.ndim)
    if a.array.ndim == 0:
        return Tensor._wrap(np.asarray(0, dtype=np.int64))
    return Tensor._wrap(np.asarray(fn(a.array, axis=d, keepdims=keepdim), dtype=np.int64))


def any(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axes = None if dim is None else dims_arg(dim, a.array.ndim) if a.array.ndim else None
    return Tensor._wrap(np.asarray(np.any(a.array, axis=axes, keepdims=keepdim)))


def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axes = None if dim is None else dims_arg(dim, a.array.ndim) if a.array.ndim else None
    return Tensor._wrap(np.asarray(np.all(a.array, axis=axes, keepdims=keepdim)))


# -- prod -------------------------------------------------------------------------


def _others_product(array: np.ndarray, axis: int | None) -> np.ndarray:
    """For each element, the product of the other elements along `axis` (None: all)."""
    if axis is None:
        flat = array.reshape(-1)
        return _others_product(flat, 0).reshape(array.shape)
    ones_shape = list(array.shape)
    ones_shape[axis] = 1
    one = np.ones(ones_shape, dtype=array.dtype)
    left = np.cumprod(np.concatenate([one, array], axis=axis), axis=axis)
    left = np.take(left, range(array.shape[axis]), axis=axis)
    rev = np.flip(array, axis=axis)
    right = np.cumprod(np.concatenate([one, rev], axis=axis), axis=axis)
    right = np.flip(np.take(right, range(array.shape[axis]), axis=axis), axis=axis)
    return left * right


def _prod_array(array: np.ndarray, axes: tuple[int, ...], keepdim: bool,
                dtype: DType) -> np.ndarray:
    if dtype.is_floating_point and array.ndim and array.size:
        return kernels.prod(array.astype(dtype.np, copy=False), axes, keepdim)
    return np.asarray(np.prod(array, axis=axes or None, keepdims=keepdim, dtype=dtype.np))


class ProdBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "∏ⱼ≠ᵢ {self}ⱼ"),)

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        self.save("self", a)
        return _prod_array(a.array, (), False, _sum_dtype(a, dtype))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        self_ = self.unpack("self")
        if self_.array.ndim == 0:
            return grad
        if (self_.array != 0).all():
            return grad * (self.unpack("result") / self_)  # torch: grad * (result / input)
        return grad * Tensor._wrap(_others_product(self_.array, None))


class ProdBackward1(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad} × ∏ⱼ≠ᵢ {self}ⱼ (dim={dim})", when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × ∏ⱼ≠ᵢ {self}ⱼ (dim={dim})"))

    def forward(self, a: Tensor, dim: int, keepdim: bool = False,
                dtype: DType | None = None) -> np.ndarray:
        d = wrap_dim(dim, a.array.ndim)
        self.save("self", a)
        self.save_attr(dim=saved_int(dim), keepdim=keepdim)
        if not a.array.ndim:
            return _prod_array(a.array, (), False, _sum_dtype(a, dtype))
        return _prod_array(a.array, (d,), keepdim, _sum_dtype(a, dtype))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        self_ = self.unpack("self")
        ndim = self_.array.ndim
        if not ndim:
            return grad
        d = signed(self.attrs["dim"]) % ndim
        result = self.unpack("result")
        if not self.attrs["keepdim"]:  # torch wraps dim first here
            grad = grad.unsqueeze(d)
            result = result.unsqueeze(d)
        if (self_.array != 0).all():
            return grad * (result / self_)  # torch: grad * (result / input)
        return grad * Tensor._wrap(_others_product(self_.array, d))


def prod(a: Tensor, dim: Any = None, keepdim: bool = False, *,
         dtype: DType | None = None) -> Tensor:
    if dim is None:
        return ProdBackward0.call(a, dtype=dtype)
    if not isinstance(dim, int):
        raise TorchTypeError(
            f"prod() received an invalid combination of arguments - got (dim={type_name(dim)}, "
            "), but expected one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool "
            "keepdim = False, *, torch.dtype dtype = None)\n")
    return ProdBackward1.call(a, dim=dim, keepdim=keepdim, dtype=dtype)


# -- norms, variance, logsumexp ---------------------------------------------------------


class LinalgVectorNormBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "sgn({self}) × (|{self}| == {result}) / (|{self}| == "
                      "{result}).sum()",
                      when=(("ord", math.inf), ("dim", None))),
                local("self", "sgn({self}) × |{self}|^({ord} - 1) / {result}^({ord} - 1)",
                      when=(("dim", None),)),
                vjp("self", "{grad} × sgn({self}) × |{self}|^({ord} - 1) / {result}^({ord} - 1)",
                    when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × sgn({self}) × |{self}|^({ord} - 1) / "
                    "{result}.unsqueeze({dim})^({ord} - 1)"))

    def forward(self, a: Tensor, ord: Any, dim: tuple[int, ...] | None,  # noqa: A002
                keepdim: bool) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise TorchRuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                f"{a.dtype.tensor_type[:-6]}")
        self.save("self", a)
        self.save_attr(dim=None if dim is None else saved_ints(dim), keepdim=keepdim, ord=ord)
        axes = tuple(range(a.array.ndim)) if dim is None else reduced(dim, a.array.ndim)
        return _norm_array(a.array, axes, keepdim, float(ord))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor | None:
        a = self.attrs
        p = float(a["ord"] if "ord" in a else a["p"])  # NormBackward1 calls it p
        return norm_backward(grad, self.unpack("self"), self.unpack("result"), p,
                             a["dim"] or (), a["keepdim"])


def norm_backward(grad: Tensor, self_: Tensor, norm: Tensor, p: float, dims: tuple[int, ...],
                  keepdim: bool) -> Tensor | None:
    """torch's norm_backward, op for op (so create_graph records the same nodes)."""
    from .arithmetic import pow_
    from .indexing import masked_fill_
    from .unary import sgn

    ndim = self_.array.ndim
    if not keepdim and ndim:
        grad = unsqueeze_multiple(grad, dims, ndim)
        norm = unsqueeze_multiple(norm, dims, ndim)
    if p == 0:
        return None  # torch returns an undefined gradient
    if p == 1:
        return sgn(self_) * grad
    if p == 2:
        return grad * masked_fill_(self_ / norm, norm == 0, 0)
    if math.isinf(p):
        self_abs = self_.abs()
        mask = (self_abs == norm) | Tensor._wrap(np.isnan(self_abs.array))
        count = mask.sum(dim=tuple(signed(d) for d in dims), keepdim=True)
        return sgn(self_) * ((grad / count) * mask)
    if p < 1:
        scaled = sgn(self_) * masked_fill_(pow_(self_.abs(), p - 1), self_ == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    if p < 2:
        scaled = sgn(self_) * pow_(self_.abs(), p - 1)
    else:
        scaled = self_ * pow_(self_.abs(), p - 2)
    scale_v = grad / norm.pow(p - 1)
    masked_fill_(scale_v, norm == 0, 0)
    return scaled * scale_v


class DistBackward0(Function):
    """torch.dist(self, other, p): the p-norm of self - other, broadcast; each side's gradient
    is norm_backward of the difference (negated for other), summed to its shape."""

    __slots__ = ()
    formulas = (vjp("self", "{grad} × sgn({self} - {other}) × |{self} - {other}|^({p} - 1) / "
                    "{result}^({p} - 1)"),
                vjp("other", "-{grad} × sgn({self} - {other}) × |{self} - {other}|^({p} - 1) / "
                    "{result}^({p} - 1)"))

    def forward(self, a: Tensor, b: Tensor, p: float) -> np.ndarray:
        dtype = common_dtype(a, b)
        if not dtype.is_floating_point:
            raise TorchRuntimeError("norm(): input dtype should be either floating point or "
                                    f"complex. Got {dtype.tensor_type[:-6]} instead.")
        self.save("self", a)
        self.save("other", b)
        self.save_attr(p=p)
        diff = cast(a.array, dtype) - cast(b.array, dtype)
        return _norm_array(diff, tuple(range(diff.ndim)), False, float(p))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .views import sum_to

        a, b = self.unpack("self"), self.unpack("other")
        diff = a - b
        g = norm_backward(grad, diff, self.unpack("result"), float(self.attrs["p"]),
                          tuple(range(diff.array.ndim)), False)
        if g is None:
            return None, None
        return sum_to(g, a.array.shape), sum_to(-g, b.array.shape)


def dist(a: Tensor, other: Any, p: Any = 2) -> Tensor:
    return DistBackward0.call(a, other, p=p)


def _norm_array(x: np.ndarray, axes: tuple[int, ...], keepdim: bool, p: float) -> np.ndarray:
    """linalg_vector_norm's values: |x| where every reduced dim has size 1, else ATen's
    norm kernel (engine/reduction_kernels.py)."""
    if not x.ndim:
        return np.asarray(np.abs(x) if p != 0 else (x != 0).astype(x.dtype))
    if builtins.all(x.shape[d] == 1 for d in axes):
        out = np.abs(x) if p != 0 else (x != 0).astype(x.dtype)
        return out if keepdim else np.squeeze(out, axes)
    if p == 2:
        return kernels.norm2(x, axes, keepdim)
    return kernels.norm_p(x, axes, keepdim, p)


def vector_norm(a: Tensor, ord: Any = 2, dim: Any = None,  # noqa: A002
                keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:
    raw = None if dim is None else raw_dims(dim, a.array.ndim)
    return LinalgVectorNormBackward0.call(a, ord=ord, dim=raw, keepdim=keepdim)


def norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: DType | None = None) -> Tensor:
    """Tensor.norm / torch.norm: the vector norm (Frobenius is the 2-norm)."""
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise TorchRuntimeError(f"linalg.vector_norm: unsupported norm type {p!r}")
    return vector_norm(a, p, dim, keepdim)


def linalg_norm(a: Tensor, ord: Any = None, dim: Any = None,  # noqa: A002
                keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:
    """torch.linalg.norm for vectors (and the Frobenius norm of a matrix)."""
    if ord is None or ord == "fro":
        ord = 2.0  # noqa: A001
    return vector_norm(a, ord, dim, keepdim)


def _var_correction(dim: Any, unbiased: Any, correction: Any) -> Any:
    if correction is not _MISSING and correction is not None:
        return correction
    if unbiased is not _MISSING and unbiased is not None:
        return 1 if unbiased else 0
    if dim is not _MISSING:
        return 1
    return None


class VarBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "2 × ({self} - {self}.mean()) / ({self}.numel() - 1)",
                      when=(("dim", None), ("correction", None))),
                local("self", "2 × ({self} - {self}.mean()) / ({self}.numel() - {correction})",
                      when=(("dim", None),)),
                vjp("self", "2 × {grad} × ({self} - {self}.mean({dim}, keepdim=True)) / "
                    "({self}.numel() / {grad}.numel() - {correction})",
                    when=(("keepdim", True),)),
                vjp("self", "2 × {grad}.unsqueeze({dim}) × ({self} - {self}.mean({dim}, "
                    "keepdim=True)) / ({self}.numel() / {grad}.numel() - {correction})"))
    label = "var"
    takes_sqrt = False  # std: the square root of the variance

    def forward(self, a: Tensor, dim: tuple[int, ...] | None, correction: Any,
                keepdim: bool) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise TorchRuntimeError("std and var only support floating point and complex dtypes")
        self.save("self", a)
        self.save_attr(correction=correction, dim=None if dim is None else saved_ints(dim),
                       keepdim=keepdim)
        axes = tuple(range(a.array.ndim)) if dim is None else reduced(dim, a.array.ndim)
        ddof = 1 if correction is None else correction
        n = int(np.prod([a.array.shape[d] for d in axes])) if axes else 1
        if n - ddof <= 0:
            warn(f"{self.label}(): degrees of freedom is <= 0. Correction should be strictly "
                 "less than the reduction factor (input numel divided by output numel). "
                 "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                 "ReduceOps.cpp:1861.)")
        take_sqrt = self.takes_sqrt
        x = a.array
        if x.size == 0:
            return np.full(_reduced_shape(x.shape, axes, keepdim), np.nan, x.dtype)
        if n == x.size:  # one output: std_var_all_cpu
            mean_ = float(mean_array(x, (), False, a.dtype))
            out = kernels.var_all(x, mean_, float(ddof), take_sqrt)
            return out.reshape(_reduced_shape(x.shape, axes, keepdim))
        return kernels.var_dims(x, axes, float(ddof), take_sqrt, keepdim)

    def _var_backward(self, grad: Tensor) -> Tensor:
        """torch's var_backward: (2.0 / dof) * grad * (self - self.mean(...))."""
        self_ = self.unpack("self")
        a = self.attrs
        ndim = self_.array.ndim
        correction = 1 if a["correction"] is None else a["correction"]
        if ndim == 0 or a["dim"] is None:
            dof = float(self_.array.size) - correction
            if dof <= 0:
                inf = Tensor.scalar(math.inf)
                return grad * where(self_ == self_.mean(), Tensor.scalar(0), inf)
            return mul_scalar(grad, 2.0 / dof) * (self_ - self_.mean())
        dims = a["dim"]
        if not a["keepdim"] and ndim > 1:
            grad = unsqueeze_multiple(grad, dims, ndim)
        axes = reduced(dims, ndim)
        rnumel = float(np.prod([self_.array.shape[d] for d in axes]))
        with np.errstate(divide="ignore"):
            scale = float(np.float64(2.0) / np.float64(rnumel - correction))
        return mul_scalar(grad, scale) * (self_ - self_.mean(dim=tuple(signed(d) for d in dims),
                                                             keepdim=True))

    def backward(self, grad: Tensor) -> Tensor:
        return self._var_backward(grad)


class StdBackward0(VarBackward0):
    __slots__ = ()
    formulas = (local("self", "({self} - {self}.mean()) / (({self}.numel() - 1) × {result})",
                      when=(("dim", None), ("correction", None))),
                local("self", "({self} - {self}.mean()) / (({self}.numel() - {correction}) × "
                      "{result})",
                      when=(("dim", None),)),
                vjp("self", "{grad} × ({self} - {self}.mean({dim}, keepdim=True)) / "
                    "(({self}.numel() / {grad}.numel() - {correction}) × {result})",
                    when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × ({self} - {self}.mean({dim}, "
                    "keepdim=True)) / (({self}.numel() / {grad}.numel() - {correction}) × "
                    "{result}.unsqueeze({dim}))"))
    label = "std"
    takes_sqrt = True

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        """torch: var_backward((grad / (result * 2)).masked_fill_(result == 0, 0), ...)."""
        from .indexing import masked_fill_

        result = self.unpack("result")
        return self._var_backward(masked_fill_(grad / mul_scalar(result, 2), result == 0, 0))


def _reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...],
                   keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _var_std(node: type[VarBackward0], a: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any) -> Tensor:
    if isinstance(dim, bool) and unbiased is _MISSING:  # var(unbiased) overload
        dim, unbiased = _MISSING, dim
    corr = _var_correction(dim, unbiased, correction)
    raw = None if dim is _MISSING or dim is None else raw_dims(dim, a.array.ndim)
    return node.call(a, dim=raw, correction=corr, keepdim=keepdim)


def var(a: Tensor, dim: Any = _MISSING, unbiased: Any = _MISSING, keepdim: bool = False, *,
        correction: Any = _MISSING) -> Tensor:
    return _var_std(VarBackward0, a, dim, unbiased, keepdim, correction)


def std(a: Tensor, dim: Any = _MISSING, unbiased: Any = _MISSING, keepdim: bool = False, *,
        correction: Any = _MISSING) -> Tensor:
    return _var_std(StdBackward0, a, dim, unbiased, keepdim, correction)


class LogsumexpBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad} × exp({self} - {result})", when=(("keepdim", True),)),
                vjp("self", "{grad}.unsqueeze({dim}) × exp({self} - {result}.unsqueeze({dim}))"))

    def forward(self, a: Tensor, dim: tuple[int, ...], keepdim: bool = False) -> np.ndarray:
        self.save("self", a)
        self.save_attr(dim=saved_ints(dim), keepdim=keepdim)
        x = cast(a.array, float_dtype(a.dtype))
        axes = reduced(dim, x.ndim)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # logsumexp_out_impl: amax, infinite maxima set to 0 (masked_fill_), then
            # sum((self - maxes).exp_()).log_().add_(maxes): torch's exp and log kernels
            m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim,
                                                                             x.dtype)
            m = np.where(np.abs(m) == np.inf, 0, m).astype(x.dtype)
            total = cascade_sum(unary_kernel("exp", x - m), axes, True)
            out = unary_kernel("log", total) + m
        if not keepdim:
            out = np.squeeze(out, axis=axes)
        return np.asarray(out, dtype=x.dtype)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        self_, result = self.unpack("self"), self.unpack("result")
        ndim = self_.array.ndim
        if not self.attrs["keepdim"] and ndim:
            grad = unsqueeze_multiple(grad, self.attrs["dim"], ndim)
            result = unsqueeze_multiple(result, self.attrs["dim"], ndim)
        return grad * (self_ - result).exp()


def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return LogsumexpBackward0.call(a, dim=raw_dims(dim, a.array.ndim), keepdim=keepdim)


class CumsumBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.flip({dim}).cumsum({dim}).flip({dim})"),)

    def forward(self, a: Tensor, dim: int, dtype: DType | None = None) -> np.ndarray:
        d = wrap_dim(dim, a.array.ndim)
        self.save_attr(dim=saved_int(dim))
        out_dtype = _sum_dtype(a, dtype) if a.dtype is not bool_ or dtype else int64
        if a.array.ndim == 0:
            return a.array.astype(out_dtype.np)
        return kernels.cumsum(a.array.astype(out_dtype.np, copy=False), d)

    def backward(self, grad: Tensor) -> Tensor:
        from .views import flip

        d = signed(self.attrs["dim"])
        if grad.array.size <= 1 or grad.array.shape[d] == 1:
            return grad
        return flip(cumsum(flip(grad, (d,)), d), (d,))


def cumsum(a: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    return CumsumBackward0.call(a, dim=dim, dtype=dtype)


__all__ = ["sum", "mean", "where", "float_dtype", "max", "min", "amax", "amin", "prod", "norm",
           "var", "std", "logsumexp", "argmax", "argmin", "maximum", "minimum", "cumsum",
           "ReturnTypes"]
