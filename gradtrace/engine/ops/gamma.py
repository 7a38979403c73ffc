"""The gamma family and its torch.special neighbours: lgamma, digamma, polygamma, mvlgamma,
the modified Bessel functions i0, i0e, i1, i1e, ndtri, sinc, entr, xlog1py and logaddexp2
(logcumsumexp, in log_cumulative.py, is listed in the tables at the end).

Values come from gamma_kernels (torch's Math.h algorithms) or, where a kernel is simple,
from the formula in the dtype; backwards are derivatives.yaml's, op for op, so
create_graph records the nodes torch records.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import gamma_kernels, glibc, kernels
from ..formulas import local
from ..forward_ad import auto_element_wise
from ..node import Function
from ..tensor import Tensor, as_tensor_operand
from ._util import apply_inplace, common_dtype, float_dtype, not_implemented
from .log_cumulative import logcumsumexp
from .pointwise import _float_pair
from .scalar import add_scalar, mul_scalar
from .unary import _floating

LN2 = 0.6931471805599453


class LgammaBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "digamma({self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return kernels.unary("lgamma", _floating(a))  # (SLEEF's lgamma, every element)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * digamma(self.unpack("self"))


class DigammaBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "polygamma(1, {self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return gamma_kernels.digamma(_floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * polygamma(1, self.unpack("self"))


def _polygamma_values(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return gamma_kernels.digamma(x)
    if n == 1:
        return gamma_kernels.trigamma(x)
    return gamma_kernels.polygamma(n, x)


class PolygammaBackward0(Function):
    """polygamma(n, self): saves n and self."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "polygamma({n} + 1, {self})"),)

    def forward(self, a: Tensor, n: int) -> np.ndarray:
        self.save_attr(n=n)
        self.save("self", a)
        return _polygamma_values(n, _floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * polygamma(self.attrs["n"] + 1, self.unpack("self"))


class PolygammaBackward1(PolygammaBackward0):
    """polygamma_(n): the in-place form's own node, the same formula."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise


class MvlgammaBackward0(Function):
    """mvlgamma(self, p): Σ_i lgamma(self - i/2) over i < p, plus p(p-1)/4 · ln π."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "sum(digamma({self} - arange({p}) / 2))"),)

    def forward(self, a: Tensor, p: int) -> np.ndarray:
        from .reductions import sum_array

        self.save_attr(p=p)
        self.save("self", a)
        x = _floating(a)
        args = _mvlgamma_args(x, p)  # arange(-p/2 + 1/2, 1/2, 1/2) + self.unsqueeze(-1)
        total = sum_array(kernels.unary("lgamma", args), (args.ndim - 1,), False,
                          float_dtype(a.dtype))
        return (total + x.dtype.type(p * (p - 1) * math.log(math.pi) * 0.25)).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import arange

        p, x = self.attrs["p"], self.unpack("self")
        args = arange(-p * 0.5 + 0.5, 0.5, 0.5, dtype=x.dtype) + x.unsqueeze(-1)
        return grad * args.digamma_().sum(-1)


def _mvlgamma_args(x: np.ndarray, p: int) -> np.ndarray:
    steps = np.arange(-p * 0.5 + 0.5, 0.5, 0.5).astype(x.dtype)
    return steps + x[..., None]


class SincBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "(cos(π{self}) π{self} - sin(π{self})) / (π {self}²)"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        x = _floating(a)
        t = x.dtype.type
        with np.errstate(all="ignore"):
            product = t(math.pi) * x
            sin = gamma_kernels.sinf(product) if x.dtype == np.float32 else np.sin(product)
            return np.where(x == 0, t(1), sin / product).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        from .reductions import where

        x = self.unpack("self")
        self_pi = mul_scalar(x, math.pi)
        self_squared_pi = mul_scalar(x * x, math.pi)
        # (torch: grad * ((...) / self_squared_pi).conj(): the quotient first)
        out = grad * (((self_pi * self_pi.cos()) - self_pi.sin()) / self_squared_pi)
        zero = Tensor._wrap(np.zeros((), grad.array.dtype))
        return where(self_squared_pi == 0.0, zero, out)


class I0Backward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "i1({self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return gamma_kernels.i0(_floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * special_i1(self.unpack("self"))


class SpecialI0EBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "i1e({self}) - sgn({self}) × {result}"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return gamma_kernels.i0e(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        x = self.unpack("self")
        return grad * (special_i1e(x) - x.sgn() * self.unpack("result"))


def _safe_bessel_input(x: Tensor) -> tuple[Tensor, Tensor]:
    """i1_backward's guard: |x| > eps, and x with eps in place of the tiny values."""
    from .reductions import where

    eps = float(np.finfo(x.array.dtype).eps)
    not_tiny = x.abs() > eps
    return not_tiny, where(not_tiny, x, Tensor._wrap(np.asarray(eps, x.array.dtype)))


class SpecialI1Backward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1/2 if abs({self}) ≤ ε else i0({self}) - {result} / {self}"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return gamma_kernels.i1(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        from .reductions import where

        not_tiny, safe = _safe_bessel_input(self.unpack("self"))
        gradx = i0(safe) - self.unpack("result") * safe.reciprocal()
        half = Tensor._wrap(np.asarray(0.5, safe.array.dtype))
        return grad * where(not_tiny, gradx, half)


class SpecialI1EBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1/2 if abs({self}) ≤ ε else "
                      "i0e({self}) - {result} × (sgn({self}) + 1 / {self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return gamma_kernels.i1e(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        from .reductions import where

        not_tiny, safe = _safe_bessel_input(self.unpack("self"))
        gradx = special_i0e(safe) - self.unpack("result") * (safe.sgn() + safe.reciprocal())
        half = Tensor._wrap(np.asarray(0.5, safe.array.dtype))
        return grad * where(not_tiny, gradx, half)


class SpecialNdtriBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "√(2π) × exp({result}² / 2)"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return gamma_kernels.ndtri(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        from .scalar import div_scalar

        result = self.unpack("result")
        return mul_scalar(grad, math.sqrt(2 * math.pi)) * div_scalar(result.square(), 2).exp()


class SpecialEntrBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "-(1 + ln({self}))"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        x = _floating(a)
        t = x.dtype.type
        with np.errstate(all="ignore"):
            log = gamma_kernels.flat(glibc.logf)(x) if x.dtype == np.float32 else np.log(x)
            out = np.where(x > 0, -x * log, np.where(x == 0, t(0), t(-np.inf)))
            return np.where(np.isnan(x), x, out).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * -add_scalar(self.unpack("self").log(), 1)


def _xlog1py(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """xlog1py_kernel: nan where y is, 0 where x is, else x * log1p(y)."""
    with np.errstate(all="ignore"):
        x, y = np.broadcast_arrays(x, y)
        log1p = gamma_kernels.flat(glibc.log1pf)(y) if y.dtype == np.float32 else np.log1p(y)
        out = (x * log1p).astype(x.dtype, copy=False)
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, out)).astype(x.dtype)


class SpecialXlog1PyBackward0(Function):
    """xlog1py(tensor, tensor)."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "0 if {self} == 0 ∧ {other} ≤ -1 else ln(1 + {other})"),
                local("other", "{self} / ({other} + 1)"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save("self", a)
        return _xlog1py(*_float_pair(a, b))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::special_xlog1py(self_t, other_p).masked_fill((self_p == 0.) & (other_p <= -1.), 0.)
        #   + other_t * self_p / (other_p + 1)
        from .indexing import masked_fill

        a, b = inputs
        return (masked_fill(SpecialXlog1PyBackward0.call(t[0], b), (a == 0) & (b <= -1), 0)
                + t[1] * a / (b + 1))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, y = self.unpack("self"), self.unpack("other")
        g_b = grad * x / add_scalar(y, 1) if self.needs_input_grad(1) else None
        g_a = None
        if self.needs_input_grad(0):
            from .indexing import masked_fill

            g_a = masked_fill(xlog1py(grad, y), (x == 0.0) & (y <= -1.0), 0.0)
        return g_a, g_b


class SpecialXlog1PyBackward1(Function):
    """xlog1py(number, tensor): one input, the tensor `other`."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("other", "{self} / ({other} + 1)"),)

    def forward(self, b: Tensor, number: Tensor) -> np.ndarray:
        self.save("other", b)
        self.save_attr(self=number.array.item())
        x, y = _float_pair(number, b)
        return _xlog1py(np.broadcast_to(x, y.shape), y)

    def backward(self, grad: Tensor) -> Tensor:
        return mul_scalar(grad, self.attrs["self"]) / add_scalar(self.unpack("other"), 1)


class SpecialXlog1PyBackward2(Function):
    """xlog1py(tensor, number)."""

    __slots__ = ()
    tensor_iterator = True
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "0 if {self} == 0 ∧ {other} ≤ -1 else ln(1 + {other})"),)

    def forward(self, a: Tensor, number: Tensor) -> np.ndarray:
        self.save("self", a)
        self.save_attr(other=number.array.item())
        x, y = _float_pair(a, number)
        return _xlog1py(x, np.broadcast_to(y, x.shape))

    def backward(self, grad: Tensor) -> Tensor:
        other = self.attrs["other"]
        out = xlog1py(grad, other)
        if other > -1:
            return out
        from .indexing import masked_fill

        return masked_fill(out, self.unpack("self") == 0.0, 0.0)


class Logaddexp2Backward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / (1 + 2^({other} - {self}))"),
                local("other", "1 / (1 + 2^({self} - {other}))"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        common = common_dtype(a, b)
        if not common.is_floating_point:
            raise not_implemented("logaddexp2_cpu", common)
        self.save("other", b)
        self.save("self", a)
        x, y = _float_pair(a, b)
        return kernels.logaddexp2(x, y)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t / (1 + pow(2, other_p - self_p)) + other_t / (1 + pow(2, self_p - other_p))
        a, b = inputs
        return t[0] / (1 + 2 ** (b - a)) + t[1] / (1 + 2 ** (a - b))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .arithmetic import rpow

        x, y = self.unpack("self"), self.unpack("other")
        g_b = grad / add_scalar(rpow(x - y, 2), 1) if self.needs_input_grad(1) else None
        g_a = grad / add_scalar(rpow(y - x, 2), 1) if self.needs_input_grad(0) else None
        return g_a, g_b


# -- the functions --------------------------------------------------------------------------


def lgamma(a: Tensor) -> Tensor:
    return LgammaBackward0.call(a)


def digamma(a: Tensor) -> Tensor:
    return DigammaBackward0.call(a)


def _check_n(n: int) -> None:
    if n < 0:
        raise TorchRuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n: int, a: Tensor) -> Tensor:
    _check_n(n)
    return PolygammaBackward0.call(a, n=n)


def tensor_polygamma(a: Tensor, n: int) -> Tensor:
    """Tensor.polygamma(n): the method takes n after self."""
    return polygamma(n, a)


def polygamma_(a: Tensor, n: int) -> Tensor:
    _check_n(n)
    return apply_inplace(PolygammaBackward1, a, n=n)


def _check_p(p: int) -> None:
    if p < 1:
        raise TorchRuntimeError("p has to be greater than or equal to 1")


def mvlgamma(a: Tensor, p: int) -> Tensor:
    _check_p(p)
    return MvlgammaBackward0.call(a, p=p)


def mvlgamma_(a: Tensor, p: int) -> Tensor:
    _check_p(p)
    return apply_inplace(MvlgammaBackward0, a, p=p)


def sinc(a: Tensor) -> Tensor:
    return SincBackward0.call(a)


def i0(a: Tensor) -> Tensor:
    return I0Backward0.call(a)


def special_i1(a: Tensor) -> Tensor:
    return SpecialI1Backward0.call(a)


def special_i0e(a: Tensor) -> Tensor:
    return SpecialI0EBackward0.call(a)


def special_i1e(a: Tensor) -> Tensor:
    return SpecialI1EBackward0.call(a)


def ndtri(a: Tensor) -> Tensor:
    return SpecialNdtriBackward0.call(a)


def entr(a: Tensor) -> Tensor:
    return SpecialEntrBackward0.call(a)


def xlog1py(a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return SpecialXlog1PyBackward1.call(b, number=as_tensor_operand(a))
    if not isinstance(b, Tensor):
        return SpecialXlog1PyBackward2.call(a, number=as_tensor_operand(b))
    return SpecialXlog1PyBackward0.call(a, b)


def logaddexp2(a: Tensor, other: Tensor) -> Tensor:
    return Logaddexp2Backward0.call(a, other)


def _inplace(node: type[Function]):
    def op(a: Tensor) -> Tensor:
        return apply_inplace(node, a)

    op.__doc__ = f"in place, recording {node.__name__}"
    return op


# Tensor methods (the in-place forms record the out-of-place node, polygamma_ its own)
TENSOR_METHODS: dict[str, Any] = {
    "logcumsumexp": logcumsumexp,
    "lgamma": lgamma, "digamma": digamma, "polygamma": tensor_polygamma, "mvlgamma": mvlgamma,
    "sinc": sinc, "i0": i0, "logaddexp2": logaddexp2,
    "lgamma_": _inplace(LgammaBackward0), "digamma_": _inplace(DigammaBackward0),
    "sinc_": _inplace(SincBackward0), "i0_": _inplace(I0Backward0),
    "polygamma_": polygamma_, "mvlgamma_": mvlgamma_,
}
# torch.<name>
TORCH_FUNCTIONS: dict[str, Any] = {
    "logcumsumexp": logcumsumexp,
    "lgamma": lgamma, "digamma": digamma, "polygamma": polygamma, "mvlgamma": mvlgamma,
    "sinc": sinc, "sinc_": TENSOR_METHODS["sinc_"], "i0": i0, "i0_": TENSOR_METHODS["i0_"],
    "logaddexp2": logaddexp2,
}
# torch.special.<name>: its own spellings of the same ops
SPECIAL_FUNCTIONS: dict[str, Any] = {
    "gammaln": lgamma, "digamma": digamma, "psi": digamma, "polygamma": polygamma,
    "multigammaln": mvlgamma, "sinc": sinc, "i0": i0, "entr": entr, "xlog1py": xlog1py,
    "i0e": special_i0e, "i1": special_i1, "i1e": special_i1e, "ndtri": ndtri,
}
