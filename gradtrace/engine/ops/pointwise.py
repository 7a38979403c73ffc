"""Elementwise functions of two tensors: atan2, hypot, logaddexp, xlogy, and clamp /
clamp_min / clamp_max with scalar or tensor bounds (lerp, addcmul and addcdiv, which torch
computes with a fused multiply-add, are in fused.py).

Backward formulas are derivatives.yaml's, op for op (see transcendental.py for how C++
spellings map to nodes).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError
from .. import dtypes, glibc, kernels
from ..formulas import local
from ..forward_ad import auto_element_wise
from ..node import Function
from ..tensor import Tensor, as_tensor_operand, type_name
from ._util import cast, common_dtype, float_dtype, iterator_layout, result_dtype
from .reductions import where
from .scalar import add_scalar, mul_scalar


def _zero(grad: Tensor) -> Tensor:
    """at::scalar_tensor(0., grad.options())."""
    return Tensor._wrap(np.zeros((), dtype=grad.array.dtype))


def precise_binary(ufunc: np.ufunc, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`precise` (unary.py) for a function of two same-dtype arrays."""
    if x.dtype == np.float64:
        return ufunc(x, y)
    return ufunc(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)


def _float_pair(a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray]:
    dtype = float_dtype(common_dtype(a, b))
    return cast(a.array, dtype), cast(b.array, dtype)


class Atan2Backward0(Function):
    __slots__ = ()
    formulas = (local("self", "{other} / ({self}² + {other}²)"),
                local("other", "-{self} / ({self}² + {other}²)"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        x, y = _float_pair(a, b)
        return kernels.atan2(x, y)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # (-self_p * other_t + other_p * self_t) / (self_p.pow(2) + other_p.pow(2))
        a, b = inputs
        return (-a * t[1] + b * t[0]) / (a.pow(2) + b.pow(2))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .indexing import masked_fill

        x, y = self.unpack("self"), self.unpack("other")
        denom = x * x + y * y  # torch's atan2_backward
        recip = masked_fill(denom.reciprocal(), denom == 0, 0)
        g_a = grad * y * recip if self.needs_input_grad(0) else None
        g_b = grad * -x * recip if self.needs_input_grad(1) else None
        return g_a, g_b


class HypotBackward0(Function):
    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "{self} / {result}"), local("other", "{other} / {result}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b if b.requires_grad else None)  # each only for its own formula
        self.save("self", a if a.requires_grad else None)
        x, y = _float_pair(a, b)
        return precise_binary(np.hypot, x, y)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t * self_p / result + other_t * other_p / result
        a, b = inputs
        return t[0] * a / outs[0] + t[1] * b / outs[0]

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        result = self.unpack("result")
        g_b = grad * self.unpack("other") / result if self.needs_input_grad(1) else None
        g_a = grad * self.unpack("self") / result if self.needs_input_grad(0) else None
        return g_a, g_b


class LogaddexpBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / (1 + exp({other} - {self}))"),
                local("other", "1 / (1 + exp({self} - {other}))"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        x, y = _float_pair(a, b)
        with np.errstate(invalid="ignore", over="ignore"):
            return kernels.logaddexp(x, y)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t / (1 + exp(other_p - self_p)) + other_t / (1 + exp(self_p - other_p))
        a, b = inputs
        return t[0] / (1 + (b - a).exp()) + t[1] / (1 + (a - b).exp())

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, y = self.unpack("self"), self.unpack("other")
        g_b = grad / add_scalar((x - y).exp(), 1) if self.needs_input_grad(1) else None
        g_a = grad / add_scalar((y - x).exp(), 1) if self.needs_input_grad(0) else None
        return g_a, g_b


def atan2(a: Tensor, other: Tensor) -> Tensor:
    return Atan2Backward0.call(a, other)


def hypot(a: Tensor, other: Tensor) -> Tensor:
    return HypotBackward0.call(a, other)


def logaddexp(a: Tensor, other: Tensor) -> Tensor:
    return LogaddexpBackward0.call(a, other)


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """xlogy_kernel (cpu_kernel, scalar): nan where y is, 0 where x is, else x * log(y)
    with libm's log."""
    with np.errstate(divide="ignore", invalid="ignore"):
        x, y = np.broadcast_arrays(x, y)
        log = glibc.logf(np.ascontiguousarray(y)) if y.dtype == np.float32 else np.log(y)
        out = (x * log).astype(x.dtype, copy=False)
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, out)).astype(x.dtype)


class XlogyBackward0(Function):
    """xlogy(tensor, tensor)."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "0 if {self} == 0 ∧ {other} ≤ 0 else ln({other})"),
                local("other", "{self} / {other}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        return _xlogy(*_float_pair(a, b))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::xlogy(self_t, other_p).masked_fill((self_p == 0.) & (other_p <= 0.), 0.)
        #   + other_t * self_p / other_p
        from .indexing import masked_fill

        a, b = inputs
        return (masked_fill(XlogyBackward0.call(t[0], b), (a == 0) & (b <= 0), 0)
                + t[1] * a / b)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, y = self.unpack("self"), self.unpack("other")
        g_a = g_b = None
        if self.needs_input_grad(1):  # the last input's gradient first, like torch
            g_b = grad * x / y
        if self.needs_input_grad(0):
            from .indexing import masked_fill

            g_a = masked_fill(xlogy(grad, y), (x == 0.0) & (y <= 0.0), 0.0)
        return g_a, g_b


class XlogyBackward1(Function):
    """xlogy(number, tensor): one input, the tensor `other`."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("other", "{self} / {other}"),)

    def forward(self, b: Tensor, number: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save_attr(self=number.array.item())
        x, y = _float_pair(number, b)
        return _xlogy(np.broadcast_to(x, y.shape), y)

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(grad, self.attrs["self"]) / self.unpack("other")


class XlogyBackward2(Function):
    """xlogy(tensor, number)."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "0 if {self} == 0 ∧ {other} ≤ 0 else ln({other})"),)

    def forward(self, a: Tensor, number: Tensor) -> np.ndarray:
        self.save("self", a)
        self.save_attr(other=number.array.item())
        x, y = _float_pair(a, number)
        return _xlogy(x, np.broadcast_to(y, x.shape))

    def backward(self, grad: Tensor) -> Tensor:
        other = self.attrs["other"]
        out = xlogy(grad, other)
        if other > 0:
            return out
        from .indexing import masked_fill

        return masked_fill(out, self.unpack("self") == 0.0, 0.0)


def xlogy(a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return XlogyBackward1.call(b, number=as_tensor_operand(a))
    if not isinstance(b, Tensor):
        return XlogyBackward2.call(a, number=as_tensor_operand(b))
    return XlogyBackward0.call(a, b)


# -- clamp with tensor bounds, clamp_min / clamp_max ---------------------------------


def _bounded(x: np.ndarray, lo: Any, hi: Any, dtype: dtypes.DType) -> np.ndarray:
    out = cast(x, dtype)
    with np.errstate(invalid="ignore"):
        if lo is not None:
            out = np.maximum(out, cast(np.asarray(lo), dtype))
        if hi is not None:
            out = np.minimum(out, cast(np.asarray(hi), dtype))
    # (Scalar bounds are kernel arguments, no operands of torch's TensorIterator)
    return iterator_layout(np.asarray(out, dtype=dtype.np), x,
                           *(b for b in (lo, hi) if type(b) is np.ndarray))


class ClampBackward0(Function):
    """clamp(self, min: Tensor?, max: Tensor?)."""

    __slots__ = ()
    formulas = (local("self", "1 if {self} ≥ {min} else 0", when=(("max", None),)),
                local("self", "1 if {self} ≤ {max} else 0", when=(("min", None),)),
                local("self", "1 if {min} ≤ {self} ≤ {max} else 0"),
                local("min", "1 if {self} < {min} else 0", when=(("max", None),)),
                local("min", "1 if {self} < {min} < {max} else 0"),
                local("max", "1 if {self} > {max} else 0", when=(("min", None),)),
                local("max", "1 if {self} > {max} ∨ {max} < {min} else 0"))

    def forward(self, a: Tensor, lo: Tensor | None, hi: Tensor | None) -> np.ndarray:
        if lo is None and hi is None:
            raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.save("max", hi)
        self.save("min", lo)
        self.save("self", a)
        dtype = result_dtype(*(t for t in (a, lo, hi) if t is not None))
        return _bounded(a.array, None if lo is None else lo.array,
                        None if hi is None else hi.array, dtype)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """torch's clamp_jvp."""
        a, lo, hi = inputs
        if lo is not None and hi is not None:
            return where(lo > hi, t[2], where(a < lo, t[1], where(a > hi, t[2], t[0])))
        if lo is not None:
            return where(a > lo, t[0], t[1])
        if hi is not None:
            return where(a < hi, t[0], t[2])
        return t[0]

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        x, lo, hi = self.unpack("self"), self.unpack("min"), self.unpack("max")
        zero = _zero(grad)
        g_x = g_lo = g_hi = None
        if lo is not None and hi is not None:  # clamp_backward_min_max (first, like torch)
            if self.needs_input_grad(1):
                g_lo = where((x < lo) & (lo < hi), grad, zero)
            if self.needs_input_grad(2):
                g_hi = where((x > hi) | (hi < lo), grad, zero)
        elif lo is not None and self.needs_input_grad(1):
            g_lo = where(x < lo, grad, zero)
        elif hi is not None and self.needs_input_grad(2):
            g_hi = where(x > hi, grad, zero)
        if self.needs_input_grad(0):  # torch's clamp_backward
            if lo is not None and hi is not None:
                g_x = where((x >= lo) & (x <= hi), grad, zero)
            elif lo is not None:
                g_x = where(x >= lo, grad, zero)
            else:
                g_x = where(x <= hi, grad, zero)
        return g_x, g_lo, g_hi


class ClampMinBackward0(Function):
    """clamp_min(self, number)."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if {self} ≥ {min} else 0"),)
    bound = "min"

    def forward(self, a: Tensor, bound: Any) -> np.ndarray:
        self.save_attr(**{self.bound: bound})
        self.save("self", a)
        dtype = result_dtype(a, Tensor.scalar(bound))
        if self.bound == "min":
            return _bounded(a.array, bound, None, dtype)
        return _bounded(a.array, None, bound, dtype)

    def backward(self, grad: Tensor) -> Tensor:
        x, bound = self.unpack("self"), self.attrs[self.bound]
        return where(x >= bound if self.bound == "min" else x <= bound, grad, _zero(grad))


class ClampMaxBackward0(ClampMinBackward0):
    """clamp_max(self, number)."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if {self} ≤ {max} else 0"),)
    bound = "max"


class ClampMinBackward1(Function):
    """clamp_min(self, tensor)."""

    __slots__ = ()
    formulas = (local("self", "1 if {self} ≥ {min} else 0"),
                local("min", "1 if {self} < {min} else 0"))
    bound = "min"

    def forward(self, a: Tensor, bound: Tensor) -> np.ndarray:
        self.save(self.bound, bound)
        self.save("self", a)
        dtype = result_dtype(a, bound)
        if self.bound == "min":
            return _bounded(a.array, bound.array, None, dtype)
        return _bounded(a.array, None, bound.array, dtype)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # where(self_p >= min_p, self_t, min_t); clamp_max: where(self_p <= max_p, ...)
        a, bound = inputs
        return where(a >= bound if self.bound == "min" else a <= bound, t[0], t[1])

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, bound = self.unpack("self"), self.unpack(self.bound)
        zero = _zero(grad)
        lower = self.bound == "min"
        g_x = g_b = None
        if self.needs_input_grad(1):
            g_b = where(x < bound if lower else x > bound, grad, zero)
        if self.needs_input_grad(0):
            g_x = where(x >= bound if lower else x <= bound, grad, zero)
        return g_x, g_b


class ClampMaxBackward1(ClampMinBackward1):
    """clamp_max(self, tensor)."""

    __slots__ = ()
    formulas = (local("self", "1 if {self} ≤ {max} else 0"),
                local("max", "1 if {self} > {max} else 0"))
    bound = "max"


def tensor_bounds(name: str, lo: Any, hi: Any) -> tuple[Tensor | None, Tensor | None]:
    """clamp's bounds when one is a tensor: both must be (or be None), like torch's
    overloads (Tensor? min, Tensor? max) and (Number? min, Number? max)."""
    bounds = [b for b in (lo, hi) if b is not None]
    if not all(isinstance(b, Tensor) for b in bounds):
        got = ", ".join(type_name(b) for b in bounds)
        marked = ", ".join(f"!{type_name(b)}!" for b in bounds)
        why = f"      didn't match because some of the arguments have invalid types: ({marked})\n"
        raise TorchTypeError(
            f"{name}() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n * (Tensor min = None, Tensor max = None)\n{why}"
            f" * (Number min = None, Number max = None)\n{why}")
    return lo, hi


def clamp_tensor(a: Tensor, min: Any = None, max: Any = None, *,  # noqa: A002
                 name: str = "clamp") -> Tensor:
    """clamp with tensor bounds (ClampBackward0)."""
    return ClampBackward0.call(a, *tensor_bounds(name, min, max))


def clamp_min(a: Tensor, min: Any) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor):
        return ClampMinBackward1.call(a, min)
    return ClampMinBackward0.call(a, bound=min)


def clamp_max(a: Tensor, max: Any) -> Tensor:  # noqa: A002
    if isinstance(max, Tensor):
        return ClampMaxBackward1.call(a, max)
    return ClampMaxBackward0.call(a, bound=max)
