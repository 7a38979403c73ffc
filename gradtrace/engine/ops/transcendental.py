"""More elementwise functions of one tensor: tan, the inverse and hyperbolic trig functions,
log2/log10/exp2, erf/erfc/erfinv and frac.

Each backward is torch's derivatives.yaml formula written with the ops its C++ records
(`1 + t` is add.Scalar, `2.0 * t` mul.Scalar, `1 - t` is `empty_like(t).fill_(1).sub_(t)`),
so create_graph records the nodes torch records. Float32 values go through `precise`
(see unary.py), where the kernels of torch's SLEEF build can be swapped in.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import exactness
from ..formulas import local, undefined
from ..forward_ad import auto_element_wise
from ..node import Function
from ..tensor import Tensor
from ._util import no_derivative, not_implemented
from .scalar import add_scalar, mul_scalar, scalar_sub, sub_scalar
from .unary import floating_unary

LN2 = 0.6931471805599453
LN10 = 2.3025850929940456
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)

erf64 = np.vectorize(math.erf, otypes=[np.float64])
erfc64 = np.vectorize(math.erfc, otypes=[np.float64])


def _note_unreproduced(function: Any) -> None:
    exactness.note(f"{getattr(function, '__name__', 'this function')}: torch's kernel is not "
                   "reproduced (a float64 evaluation rounded once)")


class _Unary(Function):
    """An elementwise float function: the ufunc (or float64 function) of a subclass."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    ufunc: np.ufunc | None = None
    function = None  # a float64 -> float64 function where numpy has no ufunc
    kernel: str | None = None  # the name of torch's kernel in engine/kernels.py, if any
    saves = "self"  # or "result"

    def forward(self, a: Tensor) -> np.ndarray:
        if self.saves == "self":
            self.save("self", a)
        cls = type(self)
        if cls.kernel is None:
            _note_unreproduced(cls.ufunc or cls.function)
        return floating_unary(a, cls.ufunc, cls.function, cls.kernel)

    def after_forward(self, outputs: list[Tensor]) -> None:
        if self.saves == "result":
            self.save("result", outputs[0], is_output=True)


class TanBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 + {result}²"),)
    ufunc = np.tan
    kernel = "tan"
    saves = "result"

    def backward(self, grad: Tensor) -> Tensor:
        return grad * add_scalar(self.unpack("result").pow(2), 1)  # grad * (1 + result.pow(2))


class AsinBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / √(1 - {self}²)"),)
    ufunc = np.arcsin
    kernel = "asin"

    def backward(self, grad: Tensor) -> Tensor:
        x = self.unpack("self")
        return grad * add_scalar(-x * x, 1).rsqrt()  # grad * (-self * self + 1).rsqrt()


class AcosBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "-1 / √(1 - {self}²)"),)
    ufunc = np.arccos
    kernel = "acos"

    def backward(self, grad: Tensor) -> Tensor:
        x = self.unpack("self")
        return grad * -add_scalar(-x * x, 1).rsqrt()


class AtanBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / (1 + {self}²)"),)
    ufunc = np.arctan
    kernel = "atan"

    def backward(self, grad: Tensor) -> Tensor:
        x = self.unpack("self")
        return grad / add_scalar(x * x, 1)


class SinhBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "cosh({self})"),)
    ufunc = np.sinh
    kernel = "sinh"

    def backward(self, grad: Tensor) -> Tensor:
        return grad * cosh(self.unpack("self"))


class CoshBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "sinh({self})"),)
    ufunc = np.cosh
    kernel = "cosh"

    def backward(self, grad: Tensor) -> Tensor:
        return grad * sinh(self.unpack("self"))


class AsinhBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / √({self}² + 1)"),)
    ufunc = np.arcsinh
    kernel = "asinh"

    def backward(self, grad: Tensor) -> Tensor:
        return grad * add_scalar(self.unpack("self").pow(2), 1).rsqrt()


class AcoshBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / √({self}² - 1)"),)
    ufunc = np.arccosh
    kernel = "acosh"

    def backward(self, grad: Tensor) -> Tensor:
        x = self.unpack("self")
        return grad * sub_scalar(x * x, 1).rsqrt()  # real case: grad * (self * self - 1).rsqrt()


class AtanhBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / (1 - {self}²)"),)
    ufunc = np.arctanh
    kernel = "atanh"

    def backward(self, grad: Tensor) -> Tensor:
        # grad * 1 / (1 - self.pow(2))
        return mul_scalar(grad, 1) / scalar_sub(1, self.unpack("self").pow(2))


class _NotImplementedInplace(Function):
    """asinh_/acosh_/atanh_: torch records a node whose backward is not implemented."""

    __slots__ = ()
    formulas = (undefined("self"),)
    ufunc: np.ufunc
    what: str

    def forward(self, a: Tensor) -> np.ndarray:
        return floating_unary(a, type(self).ufunc, kernel=self.what)

    def backward(self, grad: Tensor) -> Tensor:
        raise no_derivative(f"inplace version of {self.what}")


class AsinhBackward1(_NotImplementedInplace):
    __slots__ = ()
    no_forward_ad = "asinh_"  # torch has no forward-mode formula (measured)
    ufunc = np.arcsinh
    what = "asinh"


class AcoshBackward1(_NotImplementedInplace):
    __slots__ = ()
    no_forward_ad = "acosh_"  # torch has no forward-mode formula (measured)
    ufunc = np.arccosh
    what = "acosh"


class AtanhBackward1(_NotImplementedInplace):
    __slots__ = ()
    no_forward_ad = "atanh_"  # torch has no forward-mode formula (measured)
    ufunc = np.arctanh
    what = "atanh"


class Log2Backward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / ({self} × ln(2))"),)
    ufunc = np.log2
    kernel = "log2"

    def backward(self, grad: Tensor) -> Tensor:
        return grad / mul_scalar(self.unpack("self"), LN2)


class Log10Backward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1 / ({self} × ln(10))"),)
    ufunc = np.log10
    kernel = "log10"

    def backward(self, grad: Tensor) -> Tensor:
        return grad / mul_scalar(self.unpack("self"), LN10)


class Exp2Backward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "{result} × ln(2)"),)
    ufunc = np.exp2
    kernel = "exp2"
    saves = "result"

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(grad * self.unpack("result"), LN2)


class ErfBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "2 / √π × exp(-{self}²)"),)
    function = erf64
    kernel = "erf"

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar((-self.unpack("self").pow(2)).exp(), TWO_OVER_SQRT_PI) * grad


class ErfcBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "-2 / √π × exp(-{self}²)"),)
    function = erfc64
    kernel = "erfc"

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar((-self.unpack("self").pow(2)).exp(), -TWO_OVER_SQRT_PI) * grad


class ErfinvBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "√π / 2 × exp(erfinv({self})²)"),)
    kernel = "erfinv"  # MKL's vsErfInv/vdErfInv in torch's x86 wheel (vml.h), not calc_erfinv

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(erfinv(self.unpack("self")).pow(2).exp(), HALF_SQRT_PI) * grad


class FracBackward0(_Unary):
    __slots__ = ()
    formulas = (local("self", "1"),)
    saves = "none"

    def forward(self, a: Tensor) -> np.ndarray:
        x = a.array
        if not a.dtype.is_floating_point:
            raise not_implemented("frac_cpu", a.dtype)
        return x - np.trunc(x)

    def backward(self, grad: Tensor) -> Tensor:
        return grad


def _op(cls: type[Function]):
    def op(a: Tensor) -> Tensor:
        return cls.call(a)

    op.__doc__ = f"records {cls.__name__}"
    return op


tan = _op(TanBackward0)
asin = _op(AsinBackward0)
acos = _op(AcosBackward0)
atan = _op(AtanBackward0)
sinh = _op(SinhBackward0)
cosh = _op(CoshBackward0)
asinh = _op(AsinhBackward0)
acosh = _op(AcoshBackward0)
atanh = _op(AtanhBackward0)
log2 = _op(Log2Backward0)
log10 = _op(Log10Backward0)
exp2 = _op(Exp2Backward0)
erf = _op(ErfBackward0)
erfc = _op(ErfcBackward0)
erfinv = _op(ErfinvBackward0)
frac = _op(FracBackward0)

# name -> (out-of-place function, the node its in-place form records)
FUNCTIONS = {
    "tan": (tan, TanBackward0), "asin": (asin, AsinBackward0), "acos": (acos, AcosBackward0),
    "atan": (atan, AtanBackward0), "sinh": (sinh, SinhBackward0), "cosh": (cosh, CoshBackward0),
    "asinh": (asinh, AsinhBackward1), "acosh": (acosh, AcoshBackward1),
    "atanh": (atanh, AtanhBackward1), "log2": (log2, Log2Backward0),
    "log10": (log10, Log10Backward0), "exp2": (exp2, Exp2Backward0), "erf": (erf, ErfBackward0),
    "erfc": (erfc, ErfcBackward0), "erfinv": (erfinv, ErfinvBackward0),
    "frac": (frac, FracBackward0),
}
# torch's NumPy-style aliases
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh"}
