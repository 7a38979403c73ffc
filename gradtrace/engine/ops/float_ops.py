"""Floating-point housekeeping ops: NaN-aware ones (nan_to_num, nansum, nanmean, fmax,
fmin), signs (copysign, signbit, heaviside), tests (isposinf, isneginf, isreal), angle
units (deg2rad, rad2deg), positive and float_power.

Backward formulas are derivatives.yaml's, written with the ops its C++ records.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..formulas import local, undefined, vjp
from ..forward_ad import auto_element_wise
from ..node import Function
from ..pointwise import iterator_layout
from ..tensor import Tensor, as_tensor_operand
from ._util import apply_inplace, cast, common_dtype, float_dtype
from .arithmetic import logical_not, logical_or, pow, rpow
from .clones import to
from .indexing import masked_fill
from .reductions import raw_dims, reduced, sum_array, sum_backward
from .scalar import mul_scalar
from .views import saved_ints

_PI_180 = math.pi / 180
_180_PI = 180 / math.pi
_SQRT1_2 = 0.70710678118654752440


def _scaled(a: Tensor, factor: float) -> np.ndarray:
    """`self * factor` as torch's mul with a number: the factor rounded to the float
    dtype first; integers become the default float."""
    dtype = float_dtype(a.dtype)
    x = cast(a.array, dtype)
    return np.asarray(x * dtype.np.type(factor), dtype=dtype.np)


class Deg2RadBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "π / 180"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return _scaled(a, _PI_180)

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(grad, _PI_180)


class Rad2DegBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "180 / π"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return _scaled(a, _180_PI)

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(grad, _180_PI)


def deg2rad(a: Tensor) -> Tensor:
    return Deg2RadBackward0.call(a)


def rad2deg(a: Tensor) -> Tensor:
    return Rad2DegBackward0.call(a)


def _copysign_self_grad(grad: Tensor, a: Tensor, result: Tensor) -> Tensor:
    """copysign_tensor_self_backward: grad * (result / self), 0 where self is 0."""
    ratio = masked_fill(result / a, a == 0, 0)
    return grad * ratio


class CopysignBackward0(Function):
    """copysign(tensor, tensor): the sign's input gets zeros."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "{result} / {self}"), local("other", "0"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("self", a)
        dtype = float_dtype(common_dtype(a, b))
        return np.copysign(cast(a.array, dtype), cast(b.array, dtype))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # copysign_tensor_self_backward(self_t, self_p, result)
        from .indexing import masked_fill_

        ratio = outs[0] / inputs[0]
        return t[0] * masked_fill_(ratio, inputs[0] == 0, 0)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_a = (_copysign_self_grad(grad, self.unpack("self"), self.unpack("result"))
               if self.needs_input_grad(0) else None)
        if not self.needs_input_grad(1):
            return g_a, None
        shape, dtype = self.input_meta[1]
        return g_a, zeros_like(Tensor._wrap(np.zeros(shape, dtype=dtype.np)))


class CopysignBackward1(Function):
    """copysign(tensor, number)."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "{result} / {self}"),)

    def forward(self, a: Tensor, other: Tensor) -> np.ndarray:
        self.save("self", a)
        dtype = float_dtype(common_dtype(a, other))
        return np.copysign(cast(a.array, dtype), other.array.item())

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return _copysign_self_grad(grad, self.unpack("self"), self.unpack("result"))


def copysign(a: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return CopysignBackward0.call(a, other)
    return CopysignBackward1.call(a, other=as_tensor_operand(other))


class _FloatExtreme(Function):
    """fmax / fmin: the larger (smaller) value, the other one where one is NaN."""

    __slots__ = ()
    tensor_iterator = True
    ufunc: np.ufunc
    compare: str

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        dtype = common_dtype(a, b)
        if dtype.name == "bool":
            raise TorchRuntimeError(f'"{type(self).__name__[:4].lower()}_cpu" not '
                                    "implemented for 'Bool'")
        return type(self).ufunc(cast(a.array, dtype), cast(b.array, dtype))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # fmax: other_t + (self_p > other_p).logical_or_(other_p.isnan()) * (self_t - other_t)
        # fmin: other_t + (self_p <= other_p).logical_or_(other_p.isnan()) * (...)
        a, b = inputs
        picks = (a > b) if type(self).ufunc is np.fmax else (a <= b)
        mask = Tensor._wrap(picks.array | np.isnan(b.array))
        return t[1] + mask * (t[0] - t[1])

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = self.unpack("self"), self.unpack("other")
        chosen = logical_or(a >= b if type(self).compare == "ge" else a <= b, b.isnan())
        g_b = masked_fill(grad, chosen, 0) if self.needs_input_grad(1) else None
        g_a = masked_fill(grad, logical_not(chosen), 0) if self.needs_input_grad(0) else None
        return g_a, g_b


class FmaxBackward0(_FloatExtreme):
    __slots__ = ()
    formulas = (local("self", "1 if {self} ≥ {other} ∨ isnan({other}) else 0"),
                local("other", "0 if {self} ≥ {other} ∨ isnan({other}) else 1"))
    ufunc = np.fmax
    compare = "ge"


class FminBackward0(_FloatExtreme):
    __slots__ = ()
    formulas = (local("self", "1 if {self} ≤ {other} ∨ isnan({other}) else 0"),
                local("other", "0 if {self} ≤ {other} ∨ isnan({other}) else 1"))
    ufunc = np.fmin
    compare = "le"


def fmax(a: Tensor, other: Tensor) -> Tensor:
    return FmaxBackward0.call(a, other)


def fmin(a: Tensor, other: Tensor) -> Tensor:
    return FminBackward0.call(a, other)


class NanToNumBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if isfinite({self}) else 0"),)

    def forward(self, a: Tensor, nan: Any, posinf: Any, neginf: Any) -> np.ndarray:
        self.save("self", a)
        x = a.array
        if not a.dtype.is_floating_point:
            return x.copy()
        info = np.finfo(x.dtype)
        return np.nan_to_num(x, nan=0.0 if nan is None else nan,
                             posinf=info.max if posinf is None else posinf,
                             neginf=info.min if neginf is None else neginf)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * self.unpack("self").isfinite()


def nan_to_num(a: Tensor, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    return NanToNumBackward0.call(a, nan=nan, posinf=posinf, neginf=neginf)


def nan_to_num_(a: Tensor, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    return apply_inplace(NanToNumBackward0, a, nan=nan, posinf=posinf, neginf=neginf)


class NansumBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.expand_as({self}) × ¬isnan({self})"),)

    def forward(self, a: Tensor, dim: tuple[int, ...] | None, keepdim: bool,
                dtype: dtypes.DType | None) -> np.ndarray:
        self.save_attr(dim=None if dim is None else saved_ints(dim), keepdim=keepdim)
        self.save("self", a)
        out_dtype = dtype or (a.dtype if a.dtype.is_floating_point else dtypes.int64)
        x = np.where(np.isnan(a.array), 0, a.array) if a.dtype.is_floating_point else a.array
        axes = () if dim is None else reduced(dim, a.array.ndim)
        return sum_array(x, axes, keepdim, out_dtype)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::where(self_p.isnan(), 0, self_t).sum(dim, keepdim, dtype)
        from .reductions import sum as sum_
        from .reductions import where

        masked = where(Tensor._wrap(np.isnan(inputs[0].array)), Tensor.scalar(0), t[0])
        dim = params["dim"]
        return sum_(masked, dim if dim is not None else (), params["keepdim"],
                    dtype=params.get("dtype"))

    def backward(self, grad: Tensor) -> Tensor:
        a = self.unpack("self")
        dim = self.attrs["dim"]
        sizes = a.shape
        expanded = (grad.expand(sizes) if dim is None
                    else sum_backward(grad, sizes, dim, self.attrs["keepdim"]))
        return expanded * logical_not(a.isnan())


def nansum(a: Tensor, dim: Any = None, keepdim: bool = False, *,
           dtype: dtypes.DType | None = None) -> Tensor:
    dims = None if dim is None else raw_dims(dim, a.array.ndim)
    return NansumBackward0.call(a, dim=dims, keepdim=keepdim, dtype=dtype)


def nanmean(a: Tensor, dim: Any = None, keepdim: bool = False, *,
            dtype: dtypes.DType | None = None) -> Tensor:
    """torch: nansum(...) / (~isnan(self)).sum(dim, keepdim)."""
    if not a.dtype.is_floating_point:
        raise TorchRuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{a.dtype.scalar_type}")
    from .reductions import sum as reduce_sum

    count = reduce_sum(logical_not(a.isnan()), dim, keepdim)
    return nansum(a, dim, keepdim, dtype=dtype) / count


def signbit(a: Tensor) -> Tensor:
    x = a.array
    return Tensor._wrap(iterator_layout(np.signbit(x) if x.dtype.kind == "f" else x < 0, x))


def isposinf(a: Tensor) -> Tensor:
    return Tensor._wrap(iterator_layout(np.isposinf(a.array) if a.dtype.is_floating_point
                                        else np.zeros(a.array.shape, dtype=bool), a.array))


def isneginf(a: Tensor) -> Tensor:
    return Tensor._wrap(iterator_layout(np.isneginf(a.array) if a.dtype.is_floating_point
                                        else np.zeros(a.array.shape, dtype=bool), a.array))


def isreal(a: Tensor) -> Tensor:
    return Tensor._wrap(iterator_layout(np.ones(a.array.shape, dtype=bool), a.array))


def positive(a: Tensor) -> Tensor:
    """torch.positive returns self itself (and refuses bool tensors)."""
    if a.dtype.name == "bool":
        raise TorchRuntimeError(
            "The `+` operator, on a bool tensor is not supported.")
    return a


class HeavisideNotImplemented(Function):
    """heaviside's node: torch::autograd::NotImplemented (no derivative)."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (undefined("self"), undefined("values"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, a: Tensor, values: Tensor) -> np.ndarray:
        if a.dtype is not values.dtype:
            raise TorchRuntimeError(
                "heaviside is not yet implemented for tensors with different dtypes.")
        x, v = a.array, values.array
        return np.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype)

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::heaviside is not implemented")


HeavisideNotImplemented.__name__ = "NotImplemented"


def heaviside(a: Tensor, values: Tensor) -> Tensor:
    return HeavisideNotImplemented.call(a, values)


def float_power(a: Any, exponent: Any) -> Tensor:
    """pow in float64 (the inputs converted first, ToCopyBackward0 where they change)."""
    double = dtypes.float64
    if isinstance(a, Tensor):
        base = a if a.dtype is double else to(a, double)
        if isinstance(exponent, Tensor):
            exponent = exponent if exponent.dtype is double else to(exponent, double)
        else:
            exponent = float(exponent)
        return pow(base, exponent)
    return rpow(exponent if exponent.dtype is double else to(exponent, double), float(a))


def deg2rad_(a: Tensor) -> Tensor:
    return apply_inplace(Deg2RadBackward0, a)


def rad2deg_(a: Tensor) -> Tensor:
    return apply_inplace(Rad2DegBackward0, a)


def copysign_(a: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(CopysignBackward0, a, other)
    return apply_inplace(CopysignBackward1, a, other=as_tensor_operand(other))


class _HeavisideInPlace(HeavisideNotImplemented):
    __slots__ = ()

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::heaviside_ is not implemented")


_HeavisideInPlace.__name__ = "NotImplemented"


def heaviside_(a: Tensor, values: Tensor) -> Tensor:
    return apply_inplace(_HeavisideInPlace, a, values)


def float_power_(a: Tensor, exponent: Any) -> Tensor:
    if a.dtype is not dtypes.float64:
        raise TorchRuntimeError(
            f"the base given to float_power_ has dtype {a.dtype.scalar_type} but the "
            "operation's result requires dtype Double")
    from .arithmetic import pow_

    return pow_(a, exponent if not isinstance(exponent, Tensor) or exponent.dtype is
                dtypes.float64 else to(exponent, dtypes.float64))


def ndtr(a: Tensor) -> Tensor:
    """torch.special.ndtr, composite as torch's: (1 + erf(x * √½)) * 0.5."""
    from .scalar import add_scalar

    return mul_scalar(add_scalar(mul_scalar(a, _SQRT1_2).erf(), 1), 0.5)
