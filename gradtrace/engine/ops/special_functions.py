"""torch.special's Bessel, Airy and orthogonal-polynomial functions, erfcx and log_ndtr,
gammainc / gammaincc (torch.igamma / igammac) and zeta.

Values come from the scalar ports of torch's Math.h kernels (bessel_kernels,
polynomial_kernels, erfcx_kernels, igamma_kernels, gamma_kernels.zeta). torch gives the
Bessel, Airy and polynomial functions no autograd formula at all (their results never
require grad); igamma/igammac and zeta are differentiable in their second argument only
(the first raises at backward, as torch's not_implemented does); erfcx and log_ndtr have
derivatives.yaml's formulas, op for op.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import ScriptError
from .. import bessel_kernels, erfcx_kernels, gamma_kernels, igamma_kernels, polynomial_kernels
from ..formulas import local, undefined
from ..forward_ad import auto_element_wise
from ..node import Function
from ..tensor import Tensor, as_tensor_operand
from ._util import apply_inplace, common_dtype, no_derivative, not_implemented
from .pointwise import _float_pair
from .scalar import mul_scalar, sub_scalar
from .unary import _floating


def _type_name(value: Any) -> str:
    return type(value).__name__


def _check_tensor(name: str, argument: str, value: Any) -> None:
    """torch's parser on a one-tensor function given something else."""
    if not isinstance(value, Tensor):
        raise ScriptError(f"special_{name}(): argument '{argument}' (position 1) must be "
                          f"Tensor, not {_type_name(value)}", kind="TypeError")


def _check_pair(name: str, first: str, second: str, a: Any, b: Any) -> None:
    """torch's parser on (Tensor, Tensor) / (Number, Tensor) / (Tensor, Number) overloads
    given no tensor."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return
    number = "self" if first == "input" else first
    lines = "".join(f"\n * ({x}, *, Tensor out = None)" for x in (
        f"Tensor {first}, Tensor {second}", f"Number {number}, Tensor {second}",
        f"Tensor {first}, Number {second}"))
    raise ScriptError(f"special_{name}() received an invalid combination of arguments - got "
                      f"({_type_name(a)}, {_type_name(b)}), but expected one of:{lines}\n",
                      kind="TypeError")


# -- no autograd formula: plain results ------------------------------------------------------

_TAKES_X = ("airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "spherical_bessel_j0")


def _unary(kernel: Callable[[np.ndarray], np.ndarray], name: str) -> Callable[[Tensor], Tensor]:
    def op(a: Tensor) -> Tensor:
        _check_tensor(name, "x" if name in _TAKES_X else "input", a)
        return Tensor._wrap(kernel(_floating(a)))
    op.__name__ = name
    op.__doc__ = f"torch.special.{name}: torch records no node for it."
    return op


BESSEL = {name: _unary(getattr(bessel_kernels, name), name) for name in (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0")}


def _polynomial(name: str) -> Callable[[Any, Any], Tensor]:
    def op(x: Any, n: Any) -> Tensor:
        _check_pair(name, "x", "n", x, n)
        a, b = _float_pair(as_tensor_operand(x), as_tensor_operand(n))
        return Tensor._wrap(polynomial_kernels.polynomial(name, a, b))
    op.__name__ = name
    op.__doc__ = f"torch.special.{name}(input, n): torch records no node for it."
    return op


POLYNOMIALS = {name: _polynomial(name) for name in polynomial_kernels.KERNELS}


# -- erfcx and log_ndtr ---------------------------------------------------------------------


class SpecialErfcxBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "2 {self} {result} - 2 / √π"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return erfcx_kernels.erfcx(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        x, result = self.unpack("self"), self.unpack("result")
        # derivatives.yaml's `(2.0 * self * result - 2.0 / sqrt(M_PI)) * grad`: the numbers
        # are Scalar overloads there (MulBackward1, SubBackward1 under create_graph)
        return sub_scalar(mul_scalar(x, 2.0) * result, 2.0 / math.sqrt(math.pi)) * grad


class SpecialLogNdtrBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "exp(-({result} + {self}² / 2)) / √(2π)"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return erfcx_kernels.log_ndtr(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        x, result = self.unpack("self"), self.unpack("result")
        return grad / math.sqrt(2 * math.pi) * (result + x.pow(2) / 2).neg().exp()


def erfcx(a: Tensor) -> Tensor:
    _check_tensor("erfcx", "input", a)
    return SpecialErfcxBackward0.call(a)


def log_ndtr(a: Tensor) -> Tensor:
    _check_tensor("log_ndtr", "input", a)
    return SpecialLogNdtrBackward0.call(a)


# -- igamma / igammac -------------------------------------------------------------------------


def _igamma_values(a: Tensor, b: Tensor, upper: bool) -> np.ndarray:
    dtype = common_dtype(a, b)
    if not dtype.is_floating_point:
        raise not_implemented("igammac_cpu" if upper else "igamma_cpu", dtype)
    x, y = a.array.astype(dtype.np, copy=False), b.array.astype(dtype.np, copy=False)
    return (igamma_kernels.igammac if upper else igamma_kernels.igamma)(x, y)


class IgammaBackward0(Function):
    """igamma(self, other): the regularized lower incomplete gamma P(self, other)."""

    __slots__ = ()
    tensor_iterator = True
    no_forward_ad = "igamma"  # torch has no forward-mode formula (measured)
    formulas = (undefined("self"),
                local("other", "exp(({self} - 1) ln {other} - {other} - lgamma({self}))"))
    upper = False

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        return _igamma_values(a, b, self.upper)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        if self.needs_input_grad(0):
            raise no_derivative("igammac: input" if self.upper else "igamma: input")
        a, b = self.unpack("self"), self.unpack("other")
        density = ((a - 1) * b.log() - b - a.lgamma()).exp()
        return None, grad * (density.neg() if self.upper else density)


class IgammacBackward0(IgammaBackward0):
    """igammac(self, other): Q(self, other) = 1 - P(self, other)."""

    __slots__ = ()
    no_forward_ad = "igammac"  # torch has no forward-mode formula (measured)
    formulas = (undefined("self"),
                local("other", "-exp(({self} - 1) ln {other} - {other} - lgamma({self}))"))
    upper = True


def _tensor_only(name: str, position: int, argument: str, value: Any) -> None:
    if not isinstance(value, Tensor):
        kind = _type_name(value)
        raise ScriptError(f"{name}(): argument '{argument}' (position {position}) must be "
                          f"Tensor, not {kind}", kind="TypeError")


def igamma(a: Tensor, other: Tensor) -> Tensor:
    return IgammaBackward0.call(a, other)


def igammac(a: Tensor, other: Tensor) -> Tensor:
    return IgammacBackward0.call(a, other)


def igamma_(a: Tensor, other: Tensor) -> Tensor:
    return apply_inplace(IgammaBackward0, a, other)


def igammac_(a: Tensor, other: Tensor) -> Tensor:
    return apply_inplace(IgammacBackward0, a, other)


def gammainc(a: Any, other: Any) -> Tensor:
    _tensor_only("special_gammainc", 1, "input", a)
    _tensor_only("special_gammainc", 2, "other", other)
    return igamma(a, other)


def gammaincc(a: Any, other: Any) -> Tensor:
    _tensor_only("special_gammaincc", 1, "input", a)
    _tensor_only("special_gammaincc", 2, "other", other)
    return igammac(a, other)


# -- zeta ----------------------------------------------------------------------------------------


def _zeta_values(a: Tensor, b: Tensor) -> np.ndarray:
    x, q = _float_pair(a, b)
    return gamma_kernels.zeta(x, q)


class SpecialZetaBackward0(Function):
    """zeta(self, other), both tensors: the Hurwitz zeta function."""

    __slots__ = ()
    tensor_iterator = True
    no_forward_ad = "special_zeta"  # torch has no forward-mode formula (measured)
    formulas = (undefined("self"), local("other", "-{self} zeta({self} + 1, {other})"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        return _zeta_values(a, b)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        if self.needs_input_grad(0):
            raise no_derivative("zeta")
        a = self.unpack("self")
        return None, grad * -a * zeta(a + 1.0, self.unpack("other"))


class SpecialZetaBackward1(Function):
    """zeta(number, other): saves the number as `self`."""

    __slots__ = ()
    tensor_iterator = True
    no_forward_ad = "special_zeta"  # torch has no forward-mode formula (measured)
    formulas = (local("other", "-{self} zeta({self} + 1, {other})"),)

    def forward(self, b: Tensor, number: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save_attr(self=number.array.item())
        return _zeta_values(number, b)

    def backward(self, grad: Tensor) -> Tensor:
        s = self.attrs["self"]
        return grad * -s * zeta(float(s) + 1.0, self.unpack("other"))


class SpecialZetaBackward2(Function):
    """zeta(self, number): no derivative for self, and nothing saved."""

    __slots__ = ()
    tensor_iterator = True
    no_forward_ad = "special_zeta"  # torch has no forward-mode formula (measured)
    formulas = (undefined("self"),)

    def forward(self, a: Tensor, number: Tensor) -> np.ndarray:
        return _zeta_values(a, number)

    def backward(self, grad: Tensor) -> Tensor:
        raise no_derivative("zeta")


def zeta(a: Any, other: Any) -> Tensor:
    _check_pair("zeta", "input", "other", a, other)
    if not isinstance(a, Tensor):
        return SpecialZetaBackward1.call(other, number=as_tensor_operand(a))
    if not isinstance(other, Tensor):
        return SpecialZetaBackward2.call(a, number=as_tensor_operand(other))
    return SpecialZetaBackward0.call(a, other)


TENSOR_METHODS: dict[str, Any] = {
    "igamma": igamma, "igammac": igammac, "igamma_": igamma_, "igammac_": igammac_,
}
TORCH_FUNCTIONS: dict[str, Any] = {"igamma": igamma, "igammac": igammac}
SPECIAL_FUNCTIONS: dict[str, Any] = {
    **BESSEL, **POLYNOMIALS, "erfcx": erfcx, "log_ndtr": log_ndtr, "gammainc": gammainc,
    "gammaincc": gammaincc, "zeta": zeta,
}
