"""Reductions (sum, mean, max/min, amax/amin, prod, cumsum, any/all, argmax/argmin) and
selection (where, maximum/minimum). Norms, variance and logsumexp are in norms.py."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchIndexError, TorchRuntimeError, TorchTypeError
from .. import bfloat16, dtypes, exactness
from .. import complex as complex_dtypes
from .. import reduction_kernels as kernels
from ..dtypes import DType, bool_, int64, is_bfloat16
from ..dtypes import bfloat16 as bfloat16_dtype
from ..formulas import local, vjp
from ..forward_ad import auto_linear, linear_in_all
from ..node import Function
from ..reduction_order import cascade_sum
from ..shapes import broadcast_shapes, wrap_dim
from ..tensor import Tensor, as_tensor_operand, type_name
from ._util import cast, common_dtype, float_dtype, iterator_layout
from .scalar import div_scalar
from .views import saved_int, saved_ints, signed

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
    return a.dtype if a.dtype.is_floating_point or a.dtype.is_complex else int64


def sum_array(array: np.ndarray, axes: tuple[int, ...], keepdim: bool,
              dtype: DType) -> np.ndarray:
    """torch.sum's values: floats in the order of torch's cascade sum (axes () = all);
    complex values in the same order, over Vectorized<c10::complex>'s lanes (as many as
    the float type of their size has), each part added as a float."""
    if dtype.is_complex:
        return cascade_sum(array.astype(dtype.np, copy=False), axes, keepdim)
    if array.dtype.kind == "c":  # sum(dtype=<real>) of complex values: cast first, warned
        array = complex_dtypes.to_real(array, dtype)
    if dtype is bfloat16_dtype and is_bfloat16(array.dtype):
        return bfloat16_sum(array, axes, keepdim)
    if dtype.np == np.float16:  # torch accumulates half in float, 16 halves to a vector
        exactness.note("float16 sums: accumulated in float32 in the float32 order, not "
                       "torch's half-precision loads")
        return cascade_sum(array.astype(np.float32), axes, keepdim).astype(np.float16)
    if dtype.is_floating_point:
        return cascade_sum(array.astype(dtype.np, copy=False), axes, keepdim)
    return np.asarray(np.sum(array, axis=axes or None, keepdims=keepdim, dtype=dtype.np))


def bfloat16_sum(array: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """torch.sum of a bfloat16 array into bfloat16 (engine/bfloat16.py's sum_rows) where
    TensorIterator makes one contiguous row per output (reduced dims trailing in a
    contiguous array, or every dim of a dense one) and one thread sums it; else refused."""
    from ..pointwise import thread_chunk

    axes = tuple(range(array.ndim)) if not axes else tuple(sorted(set(axes)))
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(array.shape))
    if array.ndim == 0:
        rows = array.reshape(1, 1)
    elif len(axes) == array.ndim and bfloat16.dense(array):
        rows = array.ravel(order="K").reshape(1, -1)
    elif array.flags.c_contiguous and axes == tuple(range(array.ndim - len(axes), array.ndim)):
        rows = array.reshape(-1, math.prod(array.shape[array.ndim - len(axes):]))
    else:
        rows = None
    if rows is None or rows.size == 0 or rows.shape[0] == 1 and \
            thread_chunk(rows.shape[1]) < rows.shape[1]:
        raise NotSupportedError("sum() of this torch.bfloat16 tensor over these dims is not "
                                "supported by gradtrace (only reductions torch makes one "
                                "contiguous row per output, summed by one thread)")
    out = bfloat16.sum_rows(rows).reshape(out_shape)
    return out if keepdim else out.reshape(tuple(n for d, n in enumerate(array.shape)
                                                 if d not in axes))


def mean_array(array: np.ndarray, axes: tuple[int, ...], keepdim: bool,
               dtype: DType) -> np.ndarray:
    """torch.mean on CPU: the sum, then divided by the count in the result's dtype."""
    count = int(np.prod([array.shape[d] for d in axes])) if axes else array.size
    if dtype.np == np.float16 or dtype is bfloat16_dtype:  # mean_out: a float32 sum of
        # the values cast to float32, divided by the count in float32, then cast back (for
        # accuracy, ATen says; bfloat16: measured bit for bit, tests/test_bfloat16.py)
        total = cascade_sum(array.astype(np.float32), axes, keepdim)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(total / np.float32(count)).astype(dtype.np)
    total = sum_array(array, axes, keepdim, dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        if dtype.is_complex:  # div_ by the count: c10::complex's operator/, as torch rounds
            with complex_dtypes.into_operand():
                return complex_dtypes.divide(np.asarray(total), np.asarray(count, dtype.np))
        return np.asarray(total / dtype.np.type(count), dtype=dtype.np)


class SumBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "1"),)

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        self.save_attr(self_sym_sizes=a.array.shape)
        return sum_array(a.array, (), False, _sum_dtype(a, dtype))

    def backward(self, grad: Tensor) -> Tensor:
        return grad.expand(self.attrs["self_sym_sizes"])


class SumBackward1(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
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
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (local("self", "1 / {self_sym_numel}"),)

    def forward(self, a: Tensor, dtype: DType | None = None) -> np.ndarray:
        _check_mean_dtype(a, dtype)
        self.save_attr(self_sym_numel=a.array.size, self_sym_sizes=a.array.shape)
        return mean_array(a.array, (), False, dtype or a.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return div_scalar(grad.expand(self.attrs["self_sym_sizes"]), self.attrs["self_sym_numel"])


class MeanBackward1(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
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
    if not ((dtype or a.dtype).is_floating_point or (dtype or a.dtype).is_complex):
        name = (dtype or a.dtype).scalar_type
        which = "Optional" if dtype else "Input"  # the dtype= argument's, else the input's
        raise TorchRuntimeError(
            f"mean(): could not infer output dtype. {which} dtype must be either a floating "
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
    jvp = linear_in_all  # cat_jvp / stack_jvp / where(condition, self_t, other_t)
    formulas = (local("self", "1 if {condition} else 0"),
                local("other", "0 if {condition} else 1"))

    def forward(self, x: Tensor, y: Tensor, condition: Tensor) -> np.ndarray:
        dtype = common_dtype(x, y)
        self.save("condition", condition)
        return iterator_layout(np.where(condition.array, cast(x.array, dtype),
                                        cast(y.array, dtype)),
                               condition.array, x.array, y.array)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        cond = self.unpack("condition")
        zero = Tensor.scalar(0.0)
        gx = where(cond, grad, zero) if self.needs_input_grad(0) else None
        gy = where(cond, zero, grad) if self.needs_input_grad(1) else None
        return gx, gy


WHERE_UINT8_WARNING = (
    "where received a uint8 condition tensor. This behavior is deprecated and will be removed "
    "in a future version of PyTorch. Use a boolean condition instead. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorCompare.cpp:621.)")


def where(condition: Tensor, input: Any = _MISSING, other: Any = _MISSING) -> Any:
    """torch.where(condition, input, other); torch.where(condition) alone is
    torch.nonzero(condition, as_tuple=True), of any dtype (the parser refuses one of the
    two values without the other)."""
    if input is _MISSING and other is _MISSING:
        from .statistics import nonzero

        return nonzero(condition, as_tuple=True)
    x, y = input, other
    if condition.dtype.name == "uint8":  # deprecated, converted to bool (TensorCompare.cpp)
        from .creation import WARNINGS, OnceWarning

        WARNINGS.append(OnceWarning(f"UserWarning: {WHERE_UINT8_WARNING}", "where_uint8"))
    elif condition.dtype.name != "bool":
        raise TorchRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.scalar_type}")
    tx, ty = as_tensor_operand(x), as_tensor_operand(y)
    for number, t in ((x, ty), (y, tx)):
        if type(number) is int and t.dtype.barebones:  # the number, converted into
            dtypes.checked_scalar(number, t.dtype)  # the tensor's dtype, is checked (measured)
    broadcast_shapes(broadcast_shapes(condition.array.shape, tx.array.shape), ty.array.shape)
    return WhereBackward0.call(tx, ty, condition=condition)


# -- max / min -------------------------------------------------------------------


class ReturnTypes(tuple):
    """torch.return_types.max & co: a named tuple (values, indices by default) that prints
    like torch."""

    __slots__ = ()
    type_name = "max"
    python_type_name = "torch.return_types.max"  # (the script's type name, in errors)
    fields: tuple[str, ...] = ("values", "indices")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.python_type_name = f"torch.return_types.{cls.type_name}"

    def __new__(cls, *items: Any) -> ReturnTypes:
        return super().__new__(cls, items)

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def field(self, name: str) -> Any:
        """The item called `name`, or a KeyError."""
        return self[self.fields.index(name)] if name in self.fields else {}[name]

    def __getattr__(self, name: str) -> Any:  # the fields by name, as a namedtuple has them
        if name in type(self).fields:
            return self[type(self).fields.index(name)]
        raise AttributeError(name)

    def __repr__(self) -> str:
        items = ",\n".join(f"{name}={item!r}" for name, item in zip(self.fields, self,
                                                                     strict=True))
        return f"torch.return_types.{self.type_name}(\n{items})"

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

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return evenly_read_jvp(t[0], inputs[0], outs[0])


def evenly_read_jvp(fw_grad: Tensor, input_: Tensor, value: Tensor) -> Tensor:
    """torch's evenly_read_jvp: the mean of the tangent over the elements equal to `value`."""
    mask = input_ == value
    return (mask * (fw_grad / mask.sum())).sum()


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

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return gather_with_keepdimed_indices(t[0], params["dim"], params["indices"],
                                             params["keepdim"])


def gather_with_keepdimed_indices(input_: Tensor, dim: int, indices: Tensor,
                                  keepdim: bool) -> Tensor:
    """torch's gather_with_keepdimed_indices: the tangent at the selected indices."""
    from .indexing import gather

    if not input_.array.ndim:
        return input_.clone()
    full = indices if keepdim else Tensor._wrap(np.expand_dims(indices.array,
                                                               dim % input_.array.ndim))
    out = gather(input_, dim, full)
    return out if keepdim else out.squeeze(dim)


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
        # torch's reduction output is contiguous; numpy's keeps a permuted input's order
        return np.asarray(type(self).ufunc(a.array, axis=axes, keepdims=keepdim), order="C")

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

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # amaxamin_jvp: where(mask, dx, 0.).sum(dim, keepdim) / mask.sum(dim, keepdim)
        dims, keepdim = tuple(signed(d) for d in params["dim"]), params["keepdim"]
        mask = inputs[0] == _restore_reduced_dims(outs[0], params["dim"], keepdim)
        return (where(mask, t[0], Tensor.scalar(0.0)).sum(dim=dims, keepdim=keepdim)
                / mask.sum(dim=dims, keepdim=keepdim))


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


class AminmaxBackward0(Function):
    """aminmax: min and max of one node; each output's gradient is shared evenly among the
    elements equal to it (torch's aminmax_backward)."""

    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("self", "({self} == {min}) × {grad}[0] / ({self} == {min}).sum({dim}, "
                            "keepdim=True) + ({self} == {max}) × {grad}[1] / ({self} == {max})"
                            ".sum({dim}, keepdim=True)"),)

    def forward(self, a: Tensor, dim: int | None = None, keepdim: bool = False
                ) -> list[np.ndarray]:
        x = a.array
        if dim is None:
            if x.size == 0:
                raise TorchRuntimeError(
                    "aminmax(): cannot compute aminmax over an empty dimension as the "
                    "operation has no identity.")
            axes: Any = None
        else:
            axes = wrap_dim(dim, x.ndim) if x.ndim else None
            if x.ndim and x.shape[axes] == 0:
                raise TorchIndexError(
                    f"aminmax: Expected reduction dim {axes} to have non-zero size.")
        self.save_attr(dim=None if dim is None else saved_int(dim), keepdim=keepdim)
        self.save("self", a)
        keep = keepdim and (dim is not None or x.ndim == 0)
        lo = np.asarray(np.min(x, axis=axes, keepdims=keep))
        hi = np.asarray(np.max(x, axis=axes, keepdims=keep))
        if dim is None and keepdim:
            lo, hi = lo.reshape((1,) * x.ndim), hi.reshape((1,) * x.ndim)
        return [lo, hi]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("min", outputs[0], is_output=True)
        self.save("max", outputs[1], is_output=True)

    def backward(self, g_min: Tensor | None, g_max: Tensor | None) -> Tensor | None:
        x = self.unpack("self")
        dim = self.attrs["dim"]
        dims = () if dim is None else (dim,)
        keepdim = self.attrs["keepdim"]
        out = None
        for grad, key in ((g_min, "min"), (g_max, "max")):
            if grad is not None:
                mask = x == _restore_reduced_dims(self.unpack(key), dims, keepdim)
                count = mask.sum(dim=tuple(signed(d) for d in dims), keepdim=True)
                part = (_restore_reduced_dims(grad, dims, keepdim) / count) * mask
                out = part if out is None else out + part
        return out


class AminmaxReturn(ReturnTypes):
    __slots__ = ()
    type_name = "aminmax"
    fields = ("min", "max")


def aminmax(a: Tensor, *, dim: int | None = None, keepdim: bool = False) -> AminmaxReturn:
    return AminmaxReturn(*AminmaxBackward0.call(a, dim=dim, keepdim=keepdim))


class MaximumBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 if {self} > {other} else 0.5 if {self} == {other} else 0"),
                local("other", "1 if {other} > {self} else 0.5 if {self} == {other} else 0"))
    ufunc = np.maximum

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        self.save("other", b)
        self.save("self", a)
        x, y = cast(a.array, dtype), cast(b.array, dtype)
        return iterator_layout(type(self).ufunc(x, y), x, y)

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

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # other_t + where(self_p == other_p, scalar_tensor(0.5), (self_p > other_p).to(dtype))
        #   * (self_t - other_t)   (minimum: self_p < other_p)
        a, b = inputs
        dtype = outs[0].array.dtype
        wins = (a > b) if type(self).ufunc is np.maximum else (a < b)
        half = Tensor._wrap(np.asarray(0.5, dtype))
        return t[1] + where(a == b, half, Tensor._wrap(wins.array.astype(dtype))) * (t[0] - t[1])


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
    return Tensor._wrap(np.asarray(np.any(a.array, axis=axes, keepdims=keepdim), order="C"))


def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    axes = None if dim is None else dims_arg(dim, a.array.ndim) if a.array.ndim else None
    return Tensor._wrap(np.asarray(np.all(a.array, axis=axes, keepdims=keepdim), order="C"))


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
        return prod_backward(grad, self.unpack("self"), self.unpack("result"), None, False)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # (prod_backward(ones({}).expand_as(result), self_p, result) * self_t).sum()
        result = outs[0]
        ones = Tensor._wrap(np.ones((), result.array.dtype)).expand(*result.shape)
        return (prod_backward(ones, inputs[0], result, None, False) * t[0]).sum()


def prod_backward(grad: Tensor, self_: Tensor, result: Tensor, dim: int | None,
                  keepdim: bool) -> Tensor:
    """torch's prod_backward: grad * (result / input) without zeros, else the product of
    the others."""
    from ..grad_mode import is_grad_enabled
    from .views import view, view_as

    ndim = self_.array.ndim
    if not ndim:
        return grad
    d = None if dim is None else dim % ndim
    if d is not None and not keepdim:  # torch wraps dim first here
        grad = grad.unsqueeze(d)
        result = result.unsqueeze(d)
    zeros = int(np.count_nonzero(self_.array == 0))
    if not zeros:
        return grad * (result / self_)
    if not is_grad_enabled():  # (the same products, without recording them)
        if d is None and zeros > 1:  # torch: zeros_like(input)
            return Tensor._wrap(np.zeros_like(self_.array))
        return grad * Tensor._wrap(_others_product(self_.array, d))
    # under create_graph: torch's prod_safe_zeros_backward, recorded (its gradient)
    if d is None:
        flat = view(self_.contiguous(), -1)
        return view_as(_prod_safe_zeros_backward(grad, flat, 0), self_)
    return _prod_safe_zeros_backward(grad, self_, d)


def _prod_safe_zeros_backward(grad: Tensor, inp: Tensor, dim: int) -> Tensor:
    """torch's prod_safe_zeros_backward: grad times the exclusive cumulative products from
    each side, by differentiable ops."""
    from .clones import flip
    from .creation import ones
    from .joins import cat
    from .select_views import narrow
    from .statistics import cumprod

    n = inp.shape[dim]
    if not inp.array.size:
        return grad.expand_as(inp)
    if n == 1:
        return grad
    ones_size = list(inp.shape)
    ones_size[dim] = 1
    one = ones(ones_size, dtype=grad.dtype)
    exclusive_normal = cumprod(cat([one, narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = flip(narrow(inp, dim, 1, n - 1), (dim,))
    exclusive_reverse = flip(cumprod(cat([one, narrow_reverse], dim), dim), (dim,))
    return grad * (exclusive_normal * exclusive_reverse)


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
        return prod_backward(grad, self.unpack("self"), self.unpack("result"),
                             signed(self.attrs["dim"]), self.attrs["keepdim"])

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # (prod_backward(ones({}).expand_as(result), self_p, result, dim, keepdim)
        #   * self_t).sum(dim, keepdim)
        result, dim, keepdim = outs[0], params["dim"], params.get("keepdim", False)
        ones = Tensor._wrap(np.ones((), result.array.dtype)).expand(*result.shape)
        grad = prod_backward(ones, inputs[0], result, dim, keepdim)
        return (grad * t[0]).sum(dim, keepdim) if inputs[0].array.ndim else grad * t[0]


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


class CumsumBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.flip({dim}).cumsum({dim}).flip({dim})"),)

    def forward(self, a: Tensor, dim: int, dtype: DType | None = None) -> np.ndarray:
        d = wrap_dim(dim, a.array.ndim)
        self.save_attr(dim=saved_int(dim))
        out_dtype = _sum_dtype(a, dtype) if a.dtype is not bool_ or dtype else int64
        if a.array.ndim == 0:
            return a.array.astype(out_dtype.np)
        # (cumsum_out's meta sets a contiguous output)
        return np.asarray(kernels.cumsum(a.array.astype(out_dtype.np, copy=False), d), order="C")

    def backward(self, grad: Tensor) -> Tensor:
        from .clones import flip

        d = signed(self.attrs["dim"])
        if grad.array.size <= 1 or grad.array.shape[d] == 1:
            return grad
        return flip(cumsum(flip(grad, (d,)), d), (d,))


def cumsum(a: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    return CumsumBackward0.call(a, dim=dim, dtype=dtype)


__all__ = ["sum", "mean", "where", "float_dtype", "max", "min", "amax", "amin", "prod",
           "argmax", "argmin", "maximum", "minimum", "cumsum", "ReturnTypes"]
