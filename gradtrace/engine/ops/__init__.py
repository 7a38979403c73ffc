"""All ops, and the table of Tensor methods they provide.

`TENSOR_METHODS` is the single list of methods a Tensor has: they are attached
to the Tensor class here, and the interpreter allows exactly these names.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..device import tensor_cpu, tensor_cuda, tensor_get_device
from ..shapes import size_args
from ..tensor import OPERAND_TYPES, Tensor
from . import (
    add_products,
    arrangements,
    as_strided,
    cholesky_solve,
    complex_ops,
    composites,
    copies,
    correlation,
    elementwise_callables,
    factorizations,
    float_bits,
    float_ops,
    gamma,
    histograms,
    indexing,
    linalg_composite,
    matrices,
    piecewise,
    quantiles,
    renorm,
    scatter_reduce,
    scatters,
    shape_inplace,
    sorting,
    special_functions,
    stacking,
    statistics,
    stft,
    transcendental,
    triangular_solve,
    weighted,
    windows,
)
from ._util import apply_inplace
from .arithmetic import (
    add,
    add_,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    div,
    div_,
    eq,
    floor_divide,
    ge,
    gt,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    mul,
    mul_,
    ne,
    neg,
    pow,
    pow_,
    rdiv,
    remainder,
    rpow,
    rsub,
    sub,
    sub_,
)
from .clones import clone, contiguous, flip, repeat, to
from .creation import FillBackward2, ZeroBackward0, ones_like, zeros_like
from .fused import addcdiv, addcdiv_, addcmul, addcmul_, lerp, lerp_
from .indexing import (
    gather,
    index_select,
    masked_fill,
    masked_fill_,
    put,
    put_,
    scatter_add,
    take,
)
from .inplace import INPLACE_METHODS
from .joins import (
    cat,
    chunk,
    diff,
    split,
    split_with_sizes,
    stack,
    unbind,
    unsafe_chunk,
    unsafe_split,
)
from .linalg import addmm, addmm_, bmm, cross, dot, linear, matmul, mm, mv, outer
from .logic_inplace import INPLACE_LOGIC, bitwise_left_shift, bitwise_right_shift
from .norms import dist, logsumexp, norm, std, var
from .pointwise import atan2, clamp_max, clamp_min, hypot, logaddexp, xlogy
from .reductions import (
    all,
    amax,
    amin,
    aminmax,
    any,
    argmax,
    argmin,
    cumsum,
    max,
    maximum,
    mean,
    min,
    minimum,
    prod,
    sum,
    where,
)
from .rounding import fmod
from .sampling import TENSOR_METHODS as SAMPLING_METHODS
from .select_views import narrow, select
from .softmax import tensor_log_softmax, tensor_softmax
from .subscript import FillBackward3, getitem, index_put, index_put_, setitem
from .unary import (
    abs,
    ceil,
    clamp,
    clamp_,
    clip,
    cos,
    exp,
    exp_,
    expm1,
    floor,
    log,
    log1p,
    logit,
    logit_,
    reciprocal,
    relu,
    relu_,
    round,
    rsqrt,
    sgn,
    sigmoid,
    sigmoid_,
    sign,
    sin,
    sqrt,
    tanh,
    tanh_,
    trunc,
)
from .view_inplace import copy_
from .views import (
    H,
    T,
    adjoint,
    alias,
    expand,
    expand_as,
    flatten,
    mH,
    movedim,
    mT,
    permute,
    reshape,
    reshape_as,
    squeeze,
    t,
    transpose,
    unflatten,
    unsqueeze,
    view,
    view_as,
)


def square(t: Tensor) -> Tensor:
    """torch.square is pow(self, 2): PowBackward0 with exponent 2."""
    return pow(t, 2)


def isnan(t: Tensor) -> Tensor:
    import numpy as np

    from ..pointwise import iterator_layout

    return Tensor._wrap(iterator_layout(np.isnan(t.array), t.array))


def isinf(t: Tensor) -> Tensor:
    import numpy as np

    from ..pointwise import iterator_layout

    return Tensor._wrap(iterator_layout(np.isinf(t.array), t.array))


def isfinite(t: Tensor) -> Tensor:
    import numpy as np

    from ..pointwise import iterator_layout

    return Tensor._wrap(iterator_layout(np.isfinite(t.array), t.array))


def _new_filled(t: Tensor, size: tuple, value: Any, dtype: Any, requires_grad: bool,
                device: Any = None) -> Tensor:
    """Tensor.new_*: t's dtype and device unless told others."""
    from ..meta import is_meta
    from .creation import full

    if device is None and is_meta(t.array):
        device = "meta"
    return full(size_args(size), value, dtype=dtype or t.dtype, requires_grad=requires_grad,
                device=device)


def new_zeros(t: Tensor, *sizes: Any, size: Any = None, dtype: Any = None,
              requires_grad: bool = False, device: Any = None) -> Tensor:
    from .creation import _keyword_size

    return _new_filled(t, _keyword_size("new_zeros", sizes, size), 0, dtype, requires_grad,
                       device)


def new_ones(t: Tensor, *sizes: Any, size: Any = None, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    from .creation import _keyword_size

    return _new_filled(t, _keyword_size("new_ones", sizes, size), 1, dtype, requires_grad,
                       device)


def new_empty(t: Tensor, *sizes: Any, size: Any = None, dtype: Any = None,
              requires_grad: bool = False, device: Any = None) -> Tensor:
    """Uninitialised in torch (`unreproducible.fill()` here), in t's dtype by default; the
    size by position or as `size=` (`x.new_empty(size=x.size())`), as the factories take it."""
    from .. import unreproducible
    from .creation import _keyword_size

    return _new_filled(t, _keyword_size("new_empty", sizes, size), unreproducible.fill(),
                       dtype, requires_grad, device)


def new_empty_strided(t: Tensor, size: Any, stride: Any, *, dtype: Any = None,
                      requires_grad: bool = False, device: Any = None, **_: Any) -> Tensor:
    """Uninitialised, like new_empty; the strides are not kept (numpy lays it out)."""
    return new_empty(t, size, dtype=dtype, requires_grad=requires_grad, device=device)


def new(t: Tensor, *args: Any, device: Any = None) -> Tensor:
    """The legacy constructor Tensor.new: no argument is an empty tensor, sizes (ints or a
    torch.Size) an uninitialised one, a tensor of t's dtype an alias (AliasBackward0), other
    data a tensor of it, all in t's dtype."""
    from ..ndarray import ndarray
    from ..shapes import Size
    from .creation import tensor

    if not args:
        return new_empty(t, 0)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype is not t.dtype:
            from ...errors import TorchTypeError
            from ..dtypes import C_TYPE_NAMES

            options = ("TensorOptions(dtype={}, device=cpu, layout=Strided, requires_grad=false "
                       "(default), pinned_memory=false (default), memory_format=(nullopt))")
            raise TorchTypeError(f"expected {options.format(C_TYPE_NAMES[t.dtype.name])} (got "
                                 f"{options.format(C_TYPE_NAMES[other.dtype.name])})")
        return alias(other)
    if len(args) == 1 and not isinstance(args[0], Size) and isinstance(args[0], (list, tuple)):
        return tensor(args[0], dtype=t.dtype)
    if len(args) == 1 and type(args[0]) is ndarray and args[0].a.ndim:
        # a numpy array is data, as a list is (GMvandeVen's `torchType.new(gating_mask)`); a
        # 0-d one is read as a size, as torch's argument parser reads it as an int
        return tensor(args[0], dtype=t.dtype)
    return new_empty(t, *args)


def numpy(t: Tensor, *, force: bool = False) -> Any:
    """Refused: a script holds tensors, never numpy arrays (torch's own check first)."""
    from ...errors import NotSupportedError, TorchRuntimeError
    from ..grad_mode import GRAD_MODE

    if t.requires_grad and not force and GRAD_MODE.enabled:
        raise TorchRuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                                "tensor.detach().numpy() instead.")
    raise NotSupportedError("Tensor.numpy() is not supported by gradtrace: a script cannot hold "
                            "numpy arrays (use .tolist() or .item())")


def new_full(t: Tensor, size: Any, fill_value: Any, *, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    return _new_filled(t, (size,), fill_value, dtype, requires_grad, device)


def new_tensor(t: Tensor, data: Any, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """Tensor.new_tensor: torch.tensor(data) in this tensor's dtype unless one is given."""
    from .creation import tensor

    return tensor(data, dtype=dtype or t.dtype, device=device, requires_grad=requires_grad)


def type_as(t: Tensor, other: Tensor) -> Tensor:
    return to(t, other.dtype)


def zero_(t: Tensor) -> Tensor:
    return apply_inplace(ZeroBackward0, t)


def fill_(t: Tensor, value: Any) -> Tensor:
    """fill_.Scalar records FillBackward2, fill_.Tensor (a 0-dim value) FillBackward3."""
    if isinstance(value, Tensor):
        if value.array.ndim:
            from ...errors import TorchRuntimeError

            raise TorchRuntimeError("fill_ only supports 0-dimension value tensor but got "
                                    f"tensor with {value.array.ndim} dimensions.")
        return apply_inplace(FillBackward3, t, value)
    return apply_inplace(FillBackward2, t, value=value)


TENSOR_METHODS: dict[str, Callable[..., Any]] = {
    "add": add, "add_": add_, "sub": sub, "sub_": sub_, "mul": mul, "mul_": mul_,
    "div": div, "div_": div_, "neg": neg, "pow": pow, "pow_": pow_, "remainder": remainder,
    "floor_divide": floor_divide,
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "logical_not": logical_not,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor,
    "bitwise_not": bitwise_not,
    "exp": exp, "exp_": exp_, "log": log, "log1p": log1p, "expm1": expm1, "sin": sin,
    "cos": cos, "tanh": tanh, "tanh_": tanh_, "sigmoid": sigmoid, "sigmoid_": sigmoid_,
    "logit": logit,
    "relu": relu, "relu_": relu_, "sqrt": sqrt, "abs": abs, "reciprocal": reciprocal,
    "clamp": clamp, "clamp_": clamp_, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "clip": clip, "floor": floor, "ceil": ceil, "round": round, "trunc": trunc, "sign": sign,
    "sgn": sgn,
    "sum": sum, "mean": mean, "where": lambda self, condition, other: where(condition, self,
                                                                                    other),
    "view": view, "reshape": reshape, "expand": expand, "expand_as": expand_as,
    "unsqueeze": unsqueeze, "squeeze": squeeze, "clone": clone, "to": to, "alias": alias,
    "zero_": zero_, "fill_": fill_, "square": square, "isnan": isnan, "isinf": isinf,
    "isfinite": isfinite, "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
    "new_empty_strided": new_empty_strided, "new": new, "numpy": numpy,
    "new_tensor": new_tensor, "new_full": new_full,
    "type_as": type_as, "rsqrt": rsqrt,
    "cpu": tensor_cpu, "cuda": tensor_cuda, "get_device": tensor_get_device,
    # views, indexing, joins
    "t": t, "adjoint": adjoint, "permute": permute, "transpose": transpose,
    "swapaxes": transpose,
    "swapdims": transpose, "movedim": movedim, "flatten": flatten, "unflatten": unflatten,
    "view_as": view_as, "reshape_as": reshape_as, "repeat": repeat, "contiguous": contiguous,
    "unbind": unbind, "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk,
    "unsafe_split": unsafe_split, "unsafe_chunk": unsafe_chunk,
    "narrow": narrow, "select": select, "index_select": index_select, "masked_fill": masked_fill,
    "take": take, "put": put, "put_": put_, "diff": diff, "dist": dist,
    "masked_fill_": masked_fill_, "gather": gather, "scatter_add": scatter_add, "copy_": copy_,
    "flip": flip, "index_put": index_put, "index_put_": index_put_,
    # reductions
    "max": max, "min": min, "amax": amax, "amin": amin, "prod": prod, "norm": norm, "var": var,
    "std": std, "logsumexp": logsumexp, "argmax": argmax, "argmin": argmin,
    "maximum": maximum, "minimum": minimum, "any": any, "all": all, "cumsum": cumsum,
    # products
    "matmul": matmul, "mm": mm, "mv": mv, "dot": dot, "bmm": bmm, "outer": outer, "ger": outer,
    "cross": cross,
    "addmm": addmm, "addmm_": addmm_,
    "baddbmm": add_products.baddbmm, "baddbmm_": add_products.baddbmm_,
    "addbmm": add_products.addbmm, "addbmm_": add_products.addbmm_,
    "addmv": add_products.addmv, "addmv_": add_products.addmv_,
    "addr": add_products.addr, "addr_": add_products.addr_,
    # fused pointwise
    "addcmul": addcmul, "addcmul_": addcmul_, "addcdiv": addcdiv, "addcdiv_": addcdiv_,
    "lerp": lerp, "lerp_": lerp_,
    # softmax
    "softmax": tensor_softmax, "log_softmax": tensor_log_softmax,
    # random sampling
    **SAMPLING_METHODS,
}

TENSOR_METHODS.update({
    **{name: fn for name, (fn, _) in transcendental.FUNCTIONS.items()},
    **{alias: transcendental.FUNCTIONS[name][0] for alias, name in transcendental.ALIASES.items()},
    "absolute": abs, "negative": neg, "fix": trunc, "atan2": atan2, "arctan2": atan2,
    "hypot": hypot, "logaddexp": logaddexp, "xlogy": xlogy, "lerp": lerp, "addcmul": addcmul,
    "addcdiv": addcdiv, "fmod": fmod, "clamp_min": clamp_min, "clamp_max": clamp_max,
    **INPLACE_METHODS,
    "t_": shape_inplace.t_, "transpose_": shape_inplace.transpose_,
    "swapaxes_": shape_inplace.transpose_, "swapdims_": shape_inplace.transpose_,
    "squeeze_": shape_inplace.squeeze_, "unsqueeze_": shape_inplace.unsqueeze_,
    "resize_": shape_inplace.resize_, "resize_as_": shape_inplace.resize_as_,
    "set_": shape_inplace.set_,
    # sorting and selection
    "sort": sorting.sort, "argsort": sorting.argsort, "msort": sorting.msort,
    "topk": sorting.topk, "kthvalue": sorting.kthvalue, "median": sorting.median,
    "mode": sorting.mode, "unique": sorting.unique,
    # matrices
    "tril": matrices.tril, "triu": matrices.triu, "tril_": matrices.tril_,
    "triu_": matrices.triu_, "diag": matrices.diag, "diagonal": matrices.diagonal,
    "unfold": windows.unfold, "diag_embed": matrices.diag_embed, "trace": matrices.trace,
    "roll": matrices.roll, "tile": matrices.tile,
    # statistics, cumulative ops, counting
    "cumprod": statistics.cumprod, "cummax": statistics.cummax, "cummin": statistics.cummin,
    "count_nonzero": statistics.count_nonzero, "bincount": statistics.bincount,
    "aminmax": aminmax, "isclose": statistics.isclose,
    "allclose": statistics.allclose, "equal": statistics.equal,
    "nonzero": statistics.nonzero, "argwhere": statistics.argwhere,
    "nonzero_static": statistics.nonzero_static,
    # indexing
    "index_copy": indexing.index_copy, "index_copy_": indexing.index_copy_,
    "index_add": indexing.index_add, "index_add_": indexing.index_add_,
    "index_fill": indexing.index_fill, "index_fill_": indexing.index_fill_,
    "scatter": indexing.scatter, "scatter_": indexing.scatter_,
    "scatter_add_": indexing.scatter_add_, "masked_select": indexing.masked_select,
    "masked_scatter": indexing.masked_scatter, "masked_scatter_": indexing.masked_scatter_,
    # torch's other spellings
    "greater": gt, "greater_equal": ge, "less": lt, "less_equal": le, "not_equal": ne,
    "multiply": mul, "multiply_": mul_, "subtract": sub, "subtract_": sub_, "divide": div,
    "divide_": div_, "true_divide": div, "true_divide_": div_, "moveaxis": movedim,
    # in-place comparisons, logic, bitwise ops and shifts
    **INPLACE_LOGIC,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    # composite shape functions
    "ravel": stacking.ravel, "fliplr": stacking.fliplr, "flipud": stacking.flipud,
    "broadcast_to": stacking.broadcast_to, "tensor_split": stacking.tensor_split,
    "hsplit": stacking.hsplit, "vsplit": stacking.vsplit, "dsplit": stacking.dsplit,
    "take_along_dim": stacking.take_along_dim,
    # floating-point housekeeping
    "deg2rad": float_ops.deg2rad, "rad2deg": float_ops.rad2deg,
    "copysign": float_ops.copysign, "fmax": float_ops.fmax, "fmin": float_ops.fmin,
    "nan_to_num": float_ops.nan_to_num, "nan_to_num_": float_ops.nan_to_num_,
    "nansum": float_ops.nansum, "nanmean": float_ops.nanmean, "signbit": float_ops.signbit,
    "isposinf": float_ops.isposinf, "isneginf": float_ops.isneginf,
    "isreal": float_ops.isreal, "positive": float_ops.positive,
    "heaviside": float_ops.heaviside, "float_power": float_ops.float_power,
    "deg2rad_": float_ops.deg2rad_, "rad2deg_": float_ops.rad2deg_,
    "copysign_": float_ops.copysign_, "heaviside_": float_ops.heaviside_,
    "float_power_": float_ops.float_power_,
    # rearranging and repeating, index helpers
    "repeat_interleave": arrangements.repeat_interleave, "rot90": arrangements.rot90,
    "diagflat": arrangements.diagflat, "gcd": arrangements.gcd, "lcm": arrangements.lcm,
    "gcd_": arrangements.gcd_, "lcm_": arrangements.lcm_, "logit_": logit_,
    "hardshrink": piecewise.hardshrink, "prelu": weighted.prelu,
})

TENSOR_METHODS.update(linalg_composite.TENSOR_METHODS)
TENSOR_METHODS.update(as_strided.TENSOR_METHODS)
TENSOR_METHODS.update(gamma.TENSOR_METHODS)
TENSOR_METHODS.update(special_functions.TENSOR_METHODS)
TENSOR_METHODS.update(scatter_reduce.TENSOR_METHODS)
TENSOR_METHODS.update(quantiles.TENSOR_METHODS)
TENSOR_METHODS.update(correlation.TENSOR_METHODS)
TENSOR_METHODS.update(scatters.TENSOR_METHODS)
TENSOR_METHODS.update(composites.TENSOR_METHODS)
TENSOR_METHODS.update(cholesky_solve.TENSOR_METHODS)
TENSOR_METHODS.update(triangular_solve.TENSOR_METHODS)
TENSOR_METHODS.update(factorizations.TENSOR_METHODS)
TENSOR_METHODS.update(copies.TENSOR_METHODS)
TENSOR_METHODS.update(renorm.TENSOR_METHODS)
TENSOR_METHODS.update(float_bits.TENSOR_METHODS)
TENSOR_METHODS.update(histograms.TENSOR_METHODS)
TENSOR_METHODS.update(elementwise_callables.TENSOR_METHODS)

# Tensor attributes computed on access (torch properties): `x.T`, `x.mT`; `x.H` and `x.mH`,
# the conjugate transposes, are transposes' TransposeBackward0 views for the real dtypes
# gradtrace has.
TENSOR_METHODS.update(complex_ops.TENSOR_METHODS)
TENSOR_METHODS.update(stft.TENSOR_METHODS)
TENSOR_PROPERTIES: dict[str, Callable[[Tensor], Any]] = {"T": T, "mT": mT, "mH": mH, "H": H,
                                                         "real": complex_ops.real,
                                                         "imag": complex_ops.imag}

for _name, _fn in TENSOR_METHODS.items():
    setattr(Tensor, _name, _fn)
for _name, _fn in TENSOR_PROPERTIES.items():
    setattr(Tensor, _name, property(_fn))


def _iter(t: Tensor) -> Any:
    """Iterating a tensor unbinds it along dim 0, like torch's Tensor.__iter__."""
    if t.array.ndim == 0:
        from ...errors import TorchTypeError

        raise TorchTypeError("iteration over a 0-d tensor")
    return iter(unbind(t, 0))


Tensor.__iter__ = _iter  # type: ignore[method-assign]


def _operator(op: Callable[[Tensor, Any], Tensor]) -> Callable[[Tensor, Any], Any]:
    """A Tensor operator slot: torch answers NotImplemented for an operand it cannot take
    (None, a str, a list), so Python raises its own TypeError or asks the other operand.
    The interpreter calls `__wrapped__`, the op itself, when both operands are tensors or
    numbers."""
    def dunder(self: Tensor, other: Any) -> Any:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return op(self, other)

    dunder.__wrapped__ = op  # type: ignore[attr-defined]
    return dunder


Tensor.__add__ = Tensor.__radd__ = _operator(add)  # type: ignore[method-assign]
Tensor.__sub__ = _operator(sub)  # type: ignore[method-assign]
Tensor.__rsub__ = _operator(rsub)  # type: ignore[method-assign]
Tensor.__mul__ = Tensor.__rmul__ = _operator(mul)  # type: ignore[method-assign]
Tensor.__truediv__ = _operator(div)  # type: ignore[method-assign]
Tensor.__rtruediv__ = _operator(rdiv)  # type: ignore[method-assign]
Tensor.__neg__ = neg  # type: ignore[method-assign]
Tensor.__setitem__ = setitem  # type: ignore[method-assign]

__all__ = [
    "TENSOR_METHODS", "TENSOR_PROPERTIES", "getitem", "setitem", "cat", "stack", "linear",
    "add", "sub", "rsub", "mul", "div", "rdiv", "neg", "pow", "rpow",
    "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "where", "ones_like", "zeros_like",
]

from .. import complex as _complex  # noqa: E402

_complex.guard_operators(Tensor)
