"""Floating-point decomposition: torch.frexp (mantissa and exponent, FrexpBackward0),
torch.ldexp (self * 2 ** other, LdexpBackward0) and torch.nextafter (NextafterBackward0),
with their Tensor methods and in-place forms. Their nodes, saved values and backward
formulas are the ones torch 2.13 records (measured): frexp's gradient is
grad / exponent.exp2(), ldexp's grad * pow(2, other) (an integer power for an integer
`other`, so a negative exponent gives 0) and grad * result * ln 2, nextafter's grad and
zeros."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..formulas import local, vjp
from ..node import Function
from ..tensor import Tensor, bump_version, wrap_number
from ._util import apply_inplace, cast, not_implemented, result_dtype
from .arithmetic import rpow
from .creation import zeros_like
from .reductions import ReturnTypes
from .scalar import mul_scalar
from .unary import float_pow
from .views import sum_to


class FrexpReturn(ReturnTypes):
    __slots__ = ()
    type_name = "frexp"
    fields = ("mantissa", "exponent")


class FrexpBackward0(Function):
    """frexp's mantissa; the int32 exponent is saved (torch saves that output)."""

    __slots__ = ()
    formulas = (vjp("self", "{grad} / 2^{exponent}"),)

    def forward(self, a: Tensor, exponent: np.ndarray) -> np.ndarray:
        self.save("exponent", Tensor._wrap(exponent))
        return np.frexp(a.array)[0]

    def backward(self, grad: Tensor) -> Tensor:
        return grad / self.unpack("exponent").exp2()


def frexp(input: Tensor) -> FrexpReturn:  # noqa: A002
    if not input.dtype.is_floating_point:
        raise TorchRuntimeError("torch.frexp() only supports floating-point dtypes")
    exponent = np.frexp(input.array)[1].astype(np.int32)
    mantissa = FrexpBackward0.call(input, exponent=exponent)
    return FrexpReturn(mantissa, Tensor._wrap(exponent))


def _pow2(other: Tensor) -> np.ndarray:
    """pow(2.0, other) as ldexp's forward computes it (float32 for an integer `other`)."""
    two = wrap_number(2.0)
    dtype = result_dtype(two, other)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return float_pow(cast(two.array, dtype), cast(other.array, dtype))


class LdexpBackward0(Function):
    __slots__ = ()
    tensor_iterator = True
    formulas = (vjp("self", "{grad} × pow(2, {other})"),
                local("other", "{result} × ln 2"))

    def forward(self, a: Tensor, other: Tensor) -> np.ndarray:
        self.save("other", other)
        power = Tensor._wrap(_pow2(other))
        dtype = result_dtype(a, power)
        with np.errstate(over="ignore", invalid="ignore"):
            return cast(a.array, dtype) * cast(power.array, dtype)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t * at::pow(2, other_p) + other_t * result * M_LN2
        return t[0] * 2 ** inputs[1] + t[1] * outs[0] * 0.6931471805599453

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        other = self.unpack("other")
        g_self = g_other = None
        if self.needs_input_grad(0):
            g_self = sum_to(grad * rpow(other, 2), self.input_meta[0][0])
        if self.needs_input_grad(1):
            g_other = sum_to(mul_scalar(grad * self.unpack("result"), math.log(2.0)),
                             self.input_meta[1][0])
        return g_self, g_other


def ldexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return LdexpBackward0.call(input, other)


def ldexp_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return apply_inplace(LdexpBackward0, input, other)


class NextafterBackward0(Function):
    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "1"), local("other", "0"))

    def forward(self, a: Tensor, other: Tensor) -> np.ndarray:
        dtype = result_dtype(a, other)
        if not dtype.is_floating_point:
            raise not_implemented("nextafter_cpu", dtype)
        self.save("self", a)
        self.save("other", other)
        return np.nextafter(cast(a.array, dtype), cast(other.array, dtype))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::where(self_p != other_p, self_t, 0)
        from .reductions import where

        return where(inputs[0] != inputs[1], t[0], Tensor.scalar(0))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        g_self = sum_to(grad, self.input_meta[0][0]) if self.needs_input_grad(0) else None
        g_other = None
        if self.needs_input_grad(1):  # ATen's zeros_like: empty_like, then zero_ (version 1)
            g_other = zeros_like(self.unpack("other"))
            bump_version(g_other)
        return g_self, g_other


def nextafter(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return NextafterBackward0.call(input, other)


def nextafter_(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return apply_inplace(NextafterBackward0, input, other)


TENSOR_METHODS: dict[str, Any] = {
    "frexp": frexp, "ldexp": ldexp, "ldexp_": ldexp_, "nextafter": nextafter,
    "nextafter_": nextafter_,
}
