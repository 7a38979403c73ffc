"""Piecewise activations: hardtanh / relu6, threshold, hardsigmoid, hardswish, softshrink,
hardshrink, and their in-place forms (torch's nodes, e.g. ThresholdBackward1 in place)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchValueError
from ..formulas import local, undefined
from ..forward_ad import auto_element_wise
from ..node import Function
from ..tensor import Tensor
from ._util import apply_inplace, iterator_layout, not_implemented, number_argument
from .reductions import where
from .scalar import div_scalar
from .unary import threshold_backward


def _zero(like: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros((), dtype=like.array.dtype))


def _float_input(a: Tensor, kernel: str) -> np.ndarray:
    if not a.dtype.is_floating_point:
        raise not_implemented(kernel, a.dtype)
    return a.array


class HardtanhBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if {min_val} < {self} < {max_val} else 0"),)

    def forward(self, a: Tensor, min_val: Any, max_val: Any) -> np.ndarray:
        x = a.array
        if a.dtype.name == "bool":
            raise TorchRuntimeError("Bool inputs not supported for hardtanh")
        self.save_attr(max_val=max_val, min_val=min_val)
        self.save("self", a)
        return np.minimum(np.maximum(x, np.asarray(min_val).astype(x.dtype)),
                          np.asarray(max_val).astype(x.dtype))

    def backward(self, grad: Tensor) -> Tensor:
        return HardtanhBackwardBackward0.call(grad, self.unpack("self"),
                                              min_val=self.attrs["min_val"],
                                              max_val=self.attrs["max_val"])


class HardtanhBackwardBackward0(Function):
    """hardtanh_backward(grad_output, self, min_val, max_val) as an op."""

    __slots__ = ()
    formulas = (local("grad_output", "1 if {min_val} < {self} < {max_val} else 0"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor, min_val: Any, max_val: Any) -> np.ndarray:
        self.save_attr(max_val=max_val, min_val=min_val)
        self.save("self", a)
        x = a.array
        return iterator_layout(np.where((x > min_val) & (x < max_val), grad.array, 0).astype(
            grad.array.dtype), grad.array, x)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # where((self_p > min_val).logical_and(self_p < max_val), grad_output_t, zeros)
        from .reductions import where

        x = inputs[1]
        inside = Tensor._wrap((x > params["min_val"]).array & (x < params["max_val"]).array)
        return where(inside, t[0], Tensor._wrap(np.zeros((), outs[0].array.dtype)))

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_grad = HardtanhBackwardBackward0.call(gg, self.unpack("self"), **self.attrs) \
            if self.needs_input_grad(0) else None
        return g_grad, (zeros_like(gg) if self.needs_input_grad(1) else None)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    if min_val > max_val:  # (F.hardtanh's check, before the argument parser's)
        raise TorchValueError("min_val cannot be greater than max_val")
    name = "hardtanh_" if inplace else "hardtanh"
    min_val = number_argument(min_val, name, "min_val", 2)
    max_val = number_argument(max_val, name, "max_val", 3)
    if inplace:
        return apply_inplace(HardtanhBackward0, input, min_val=min_val, max_val=max_val)
    return HardtanhBackward0.call(input, min_val=min_val, max_val=max_val)


def hardtanh_(input: Tensor, min_val: Any = -1, max_val: Any = 1) -> Tensor:  # noqa: A002
    return apply_inplace(HardtanhBackward0, input,
                         min_val=number_argument(min_val, "hardtanh_", "min_val", 2),
                         max_val=number_argument(max_val, "hardtanh_", "max_val", 3))


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """torch: hardtanh(input, 0, 6) (integer bounds, as its saved values show)."""
    if inplace:
        return apply_inplace(HardtanhBackward0, input, min_val=0, max_val=6)
    return HardtanhBackward0.call(input, min_val=0, max_val=6)


class ThresholdBackward0(Function):
    """threshold(self, threshold, value): x if x > threshold else value."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if {self} > {threshold} else 0"),)

    def forward(self, a: Tensor, threshold: Any, value: Any) -> np.ndarray:
        self.save("self", a)
        self.save_attr(threshold=threshold)
        x = a.array
        return np.where(x > threshold, x, np.asarray(value).astype(x.dtype)).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return threshold_backward(grad, self.unpack("self"), self.attrs["threshold"])


class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place)."""

    __slots__ = ()


def threshold(input: Tensor, threshold: Any, value: Any,  # noqa: A002
              inplace: bool = False) -> Tensor:
    name = "threshold_" if inplace else "threshold"
    threshold = number_argument(threshold, name, "threshold", 2)
    value = number_argument(value, name, "value", 3)
    if inplace:
        return apply_inplace(ThresholdBackward1, input, threshold=threshold, value=value)
    return ThresholdBackward0.call(input, threshold=threshold, value=value)


def threshold_(input: Tensor, threshold: Any, value: Any) -> Tensor:  # noqa: A002
    return apply_inplace(ThresholdBackward1, input,
                         threshold=number_argument(threshold, "threshold_", "threshold", 2),
                         value=number_argument(value, "threshold_", "value", 3))


class HardsigmoidBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 / 6 if -3 < {self} < 3 else 0"),)

    def forward(self, a: Tensor) -> np.ndarray:
        x = _float_input(a, "hardsigmoid_cpu")
        self.save("self", a)
        three, six = np.asarray(3, x.dtype), np.asarray(6, x.dtype)
        return (np.minimum(np.maximum(x + three, 0), six) / six).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return HardsigmoidBackwardNotImplemented.call(grad, self.unpack("self"))


class HardsigmoidBackwardNotImplemented(Function):
    """hardsigmoid_backward has no derivative in torch: under create_graph it records
    torch::autograd::NotImplemented, whose backward raises."""

    __slots__ = ()
    formulas = (undefined("grad_output"), undefined("self"))

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, grad: Tensor, a: Tensor) -> np.ndarray:
        x = a.array
        g = grad.array
        # hardsigmoid_backward_kernel: grad * one_sixth, with one_sixth = opmath_t(1.0f /
        # 6.0f), a float's 1/6 even in double; reduced floats in float32, rounded once
        opmath = np.float64 if g.dtype == np.float64 else np.float32
        scaled = g.astype(opmath, copy=False) * opmath(np.float32(1 / 6))
        return iterator_layout(np.where((x > -3) & (x < 3), scaled, 0).astype(g.dtype), g, x)

    def backward(self, gg: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


HardsigmoidBackwardNotImplemented.__name__ = "NotImplemented"


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return apply_inplace(HardsigmoidBackward0, input)
    return HardsigmoidBackward0.call(input)


class HardswishBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "0 if {self} < -3 else {self} / 3 + 0.5 if {self} ≤ 3 else 1"),)

    def forward(self, a: Tensor) -> np.ndarray:
        x = _float_input(a, "hardswish_cpu")
        self.save("self", a)
        three, six = np.asarray(3, x.dtype), np.asarray(6, x.dtype)
        return (x * np.minimum(np.maximum(x + three, 0), six) / six).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return HardswishBackwardBackward0.call(grad, self.unpack("self"))


class HardswishBackwardBackward0(Function):
    """hardswish_backward(grad_output, self) as an op."""

    __slots__ = ()
    formulas = (local("grad_output", "0 if {self} < -3 else {self} / 3 + 0.5 if {self} ≤ 3 "
                                     "else 1"),
                local("self", "{grad_output} / 3 if -3 < {self} < 3 else 0"))

    def forward(self, grad: Tensor, a: Tensor) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", a)
        x, g = a.array, grad.array
        one_half, three = np.asarray(0.5, g.dtype), np.asarray(3, g.dtype)
        inner = g * (x / three + one_half)
        return iterator_layout(np.where(x < -3, 0, np.where(x <= 3, inner, g)).astype(g.dtype),
                               g, x)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x = self.unpack("self")
        g_grad = HardswishBackwardBackward0.call(gg, x) if self.needs_input_grad(0) else None
        g_self = None
        if self.needs_input_grad(1):
            inside = (x > -3.0) & (x < 3.0)
            g_self = where(inside, div_scalar(gg * self.unpack("grad_output"), 3.0), _zero(gg))
        return g_grad, g_self


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return apply_inplace(HardswishBackward0, input)
    return HardswishBackward0.call(input)


class _Shrink(Function):
    """softshrink / hardshrink: saves lambd and self; backward zero inside [-lambd, lambd]."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if |{self}| > {lambd} else 0"),)
    backward_op: type[Function]

    def forward(self, a: Tensor, lambd: Any) -> np.ndarray:
        x = a.array
        self.save_attr(lambd=lambd)
        self.save("self", a)
        lam = np.asarray(lambd, x.dtype)
        if type(self) is SoftshrinkBackward0:
            # torch: x * 0 inside the band (so a negative x gives -0.0)
            return np.where(x > lam, x - lam, np.where(x < -lam, x + lam, x * 0)).astype(x.dtype)
        return np.where((x > lam) | (x < -lam), x, 0).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return self.backward_op.call(grad, self.unpack("self"), lambd=self.attrs["lambd"])


class _ShrinkBackward(Function):
    """softshrink_backward / hardshrink_backward(grad_output, self, lambd) as an op, for
    create_graph: the gradient where self is outside [-lambd, lambd] (a NaN self's too)."""

    __slots__ = ()
    formulas = (local("grad_output", "0 if -{lambd} ≤ {self} ≤ {lambd} else 1"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor, lambd: Any) -> np.ndarray:
        self.save_attr(lambd=lambd)
        self.save("self", a)
        x, g = a.array, grad.array
        lam = np.asarray(lambd, x.dtype)
        inside = (x >= -lam) & (x <= lam)
        return iterator_layout(np.where(inside, 0, g).astype(g.dtype), g, x)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # <op>_backward(grad_output_t, self_p, lambd)
        return type(self).call(t[0], inputs[1], lambd=params["lambd"])

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_grad = type(self).call(gg, self.unpack("self"), lambd=self.attrs["lambd"]) \
            if self.needs_input_grad(0) else None
        return g_grad, (zeros_like(gg) if self.needs_input_grad(1) else None)


class SoftshrinkBackwardBackward0(_ShrinkBackward):
    __slots__ = ()


class HardshrinkBackwardBackward0(_ShrinkBackward):
    __slots__ = ()


class SoftshrinkBackward0(_Shrink):
    __slots__ = ()
    backward_op = SoftshrinkBackwardBackward0


class HardshrinkBackward0(_Shrink):
    __slots__ = ()
    backward_op = HardshrinkBackwardBackward0


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    return SoftshrinkBackward0.call(input, lambd=number_argument(lambd, "softshrink", "lambd", 2))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    return HardshrinkBackward0.call(input, lambd=number_argument(lambd, "hardshrink", "lambd", 2))
