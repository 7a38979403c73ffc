"""Elementwise functions of one tensor (exp, log, tanh, relu, clamp, ...)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import capability, dtypes, fp64, kernels, unsigned
from .. import complex as complex_dtypes
from ..formulas import COMPLEX, local, vjp
from ..forward_ad import auto_element_wise
from ..grad_mode import GRAD_MODE
from ..kernels import precise, unary
from ..node import Function
from ..tensor import Tensor
from ._util import apply_inplace, cast, float_dtype, iterator_layout
from .scalar import add_scalar, mul_scalar


def _floating(a: Tensor) -> np.ndarray:
    return cast(a.array, float_dtype(a.dtype))


def precise_call(function: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """`precise` for a float64 function numpy has no ufunc for: evaluated in float64 and
    rounded once to x's dtype."""
    if x.dtype == np.float64:
        return function(x)
    return function(x.astype(np.float64)).astype(x.dtype)


def floating_unary(a: Tensor, ufunc: np.ufunc | None = None,
                   function: Callable[[np.ndarray], np.ndarray] | None = None,
                   kernel: str | None = None) -> np.ndarray:
    """A float function of `a` (integers computed in the default float): torch's own kernel
    (`kernels.unary`) where gradtrace has it, else evaluated in float64 and rounded once."""
    x = _floating(a)
    with np.errstate(all="ignore"):
        if kernel is not None:
            return kernels.unary(kernel, x)
        return precise(ufunc, x) if ufunc is not None else precise_call(function, x)


def _int_pow_negative(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """Integer pow with a tensor exponent, some of it negative: torch's powi gives 1 for
    base 1, +-1 for base -1 (by the exponent's parity) and 0 for any other base."""
    negative = exponent < 0
    positive = np.power(base, np.where(negative, 0, exponent))
    odd = (exponent % 2).astype(bool)
    small = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, small, positive).astype(positive.dtype)


def float_pow(base: np.ndarray, exponent: np.ndarray,
              contiguous_out: bool = False) -> np.ndarray:
    """torch's pow on same-dtype arrays: its special exponents (2, 3, -1, -2, -0.5) as
    products and quotients in the dtype, anything else through a once-rounded pow
    (`contiguous_out`: the output allocated C-contiguous first, see pointwise.apply_many)."""
    if base.dtype.kind != "f":
        if exponent.dtype.kind in "iu" and (exponent < 0).any():
            return _int_pow_negative(base, exponent)
        return np.power(base, exponent)
    if base.dtype == np.float16:  # (no special exponents: Vectorized<Half>::pow throughout)
        return kernels.pow_tensor_half(base, exponent, contiguous_out)
    if exponent.ndim == 0:
        e = float(exponent)
        one = np.asarray(1, base.dtype)
        if e == 2:
            return base * base
        if e == 3:
            return base * base * base
        if e == -1:
            return one / base
        if e == -2:
            return one / (base * base)
        if e == -0.5:
            return one / np.sqrt(base)
        if e == 0.5:
            return unary("sqrt", base)  # torch's pow kernel calls sqrt_kernel
    if base.dtype in (np.float32, np.float64):
        return kernels.pow_tensor(base, exponent, contiguous_out)
    return np.power(base.astype(np.float64), exponent.astype(np.float64)).astype(base.dtype)


SPECIAL_EXPONENTS = (2.0, 3.0, -1.0, -2.0, -0.5, 0.5)


class ExpBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "conj(exp({self})) = conj({result})", when=(COMPLEX,)),
                local("self", "exp({self}) = {result}"))

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype.is_complex:
            return complex_dtypes.exp(a.array)
        return unary("exp", _floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        if grad.dtype.is_complex:  # grad * result.conj() (conjugate Wirtinger calculus)
            from .arithmetic import conj_product

            return complex_dtypes.handle_r_to_c(self.input_meta[0][1],
                                                conj_product(grad, self.unpack("result")))
        return grad * self.unpack("result")

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0] * outs[0]  # auto_element_wise


class LogBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / {self}"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        if a.dtype.is_complex:
            return complex_dtypes.logarithm(a.array)
        return unary("log", _floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        if grad.dtype.is_complex:  # grad.div(self.conj()), the conjugate written out
            from .complex_ops import conj_physical

            if GRAD_MODE.enabled:
                raise complex_dtypes.refuse("create_graph through a complex log")
            return grad / conj_physical(self.unpack("self"))
        return grad / self.unpack("self")

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0] / inputs[0]  # auto_element_wise (complex: the same bits, conjugated)


class Log1PBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / (1 + {self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return unary("log1p", _floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad / add_scalar(self.unpack("self"), 1)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0] / add_scalar(inputs[0], 1)  # auto_element_wise


class Expm1Backward0(Function):
    __slots__ = ()
    formulas = (local("self", "{result} + 1"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return unary("expm1", _floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return grad * add_scalar(self.unpack("result"), 1)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0] * add_scalar(outs[0], 1)  # auto_element_wise


class SinBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "cos({self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return unary("sin", _floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * self.unpack("self").cos()

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0] * inputs[0].cos()  # auto_element_wise


class CosBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "-sin({self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return unary("cos", _floating(a))

    def backward(self, grad: Tensor) -> Tensor:
        return grad * -self.unpack("self").sin()

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return t[0] * -inputs[0].sin()  # auto_element_wise


def _tanh_backward_values(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    """grad * (1 - y*y), rounded as torch's tanh_backward kernel rounds it."""
    if not capability.fma_build():  # the default build has no FMA: 1 - y*y rounds twice
        return g * (y.dtype.type(1) - y * y)
    if y.dtype == np.float64:  # 1 - y*y contracted into one fma, as for float
        return g * fp64.fma(-y, y, 1.0)
    if (y.ndim and g.dtype == y.dtype and g.shape == y.shape and y.flags.c_contiguous
            and g.flags.c_contiguous):
        # the common case (tanh's own backward) in one buffer: numpy's casting multiply
        # (dtype=float64 on float32 inputs) runs a buffered loop ~2x slower than a cast
        # and a plain square; y*y is exact in float64 either way, 1 - y*y rounds once to
        # float32 in the cast, and g * it is the same float32 product, in the same
        # operand order, into the same C-contiguous layout
        w = y.astype(np.float64)
        np.multiply(w, w, out=w)
        np.subtract(1.0, w, out=w)
        out = w.astype(y.dtype)
        return np.multiply(g, out, out=out)
    # fma: 1 - y*y rounded once; y*y is exact in float64, cast in numpy's loop (no
    # astype temporary), and 1 - y*y is taken in the same buffer (asarray: a 0-d
    # product comes back as a numpy scalar, which cannot be an out=)
    y64 = np.asarray(np.multiply(y, y, dtype=np.float64))
    one_minus = np.subtract(1.0, y64, out=y64)
    if g.dtype != y.dtype:
        return g * one_minus.astype(y.dtype)
    # a product in y's dtype casts 1 - y*y in numpy's loop, as astype would, without
    # a temporary
    return np.multiply(g, one_minus, dtype=y.dtype, casting="same_kind")


class TanhBackwardBackward0(Function):
    """tanh's backward as an op of its own, so create_graph records torch's node."""

    __slots__ = ()
    formulas = (local("grad_output", "1 - {output}²"),
                local("output", "-2 × {output} × {grad_output}"))

    def forward(self, grad: Tensor, result: Tensor) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", result)
        return iterator_layout(_tanh_backward_values(grad.array, result.array), grad.array,
                               result.array)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # tanh_backward(grad_output_t, output_p) + output_t * (-2 * output_p * grad_output_p)
        grad, output = inputs
        return tanh_backward(t[0], output) + t[1] * (mul_scalar(output, -2) * grad)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, result = self.unpack("grad_output"), self.unpack("output")
        g_grad = tanh_backward(gg, result) if self.needs_input_grad(0) else None
        # torch: grad * (-2 * output * grad_output)
        g_result = gg * (mul_scalar(result, -2) * grad) if self.needs_input_grad(1) else None
        return g_grad, g_result


def tanh_backward(grad: Tensor, result: Tensor) -> Tensor:
    return TanhBackwardBackward0.call(grad, result)


class TanhBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 - {result}²"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return unary("tanh", _floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return tanh_backward(grad, self.unpack("result"))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return tanh_backward(t[0], outs[0])  # auto_element_wise


class SigmoidBackwardBackward0(Function):
    __slots__ = ()
    formulas = (local("grad_output", "{output} × (1 - {output})"),
                local("output", "{grad_output} × (1 - 2 × {output})"))

    def forward(self, grad: Tensor, result: Tensor) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("output", result)
        y = result.array
        # torch: grad * (1 - y) * y
        return iterator_layout(grad.array * (np.asarray(1, y.dtype) - y) * y, grad.array, y)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # sigmoid_backward(grad_output_t, output_p)
        #   + output_t * grad_output_p * (-2 * output_p + 1)
        grad, output = inputs
        return sigmoid_backward(t[0], output) + (t[1] * grad) * add_scalar(
            mul_scalar(output, -2), 1)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, result = self.unpack("grad_output"), self.unpack("output")
        g_grad = sigmoid_backward(gg, result) if self.needs_input_grad(0) else None
        # torch: grad * grad_output * (-2 * output + 1)
        g_result = (gg * grad) * add_scalar(mul_scalar(result, -2), 1) if self.needs_input_grad(
            1) else None
        return g_grad, g_result


def sigmoid_backward(grad: Tensor, result: Tensor) -> Tensor:
    return SigmoidBackwardBackward0.call(grad, result)


class SigmoidBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "{result} × (1 - {result})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        return unary("sigmoid", _floating(a))  # torch: 1 / (1 + exp(-x))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return sigmoid_backward(grad, self.unpack("result"))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return sigmoid_backward(t[0], outs[0])  # auto_element_wise


class ThresholdBackwardBackward0(Function):
    """relu's backward (threshold_backward) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "1 if {self} > {threshold} else 0"),
                local("self", "0"))

    def forward(self, grad: Tensor, result: Tensor, threshold: float = 0.0) -> np.ndarray:
        self.save("self", result)
        self.save_attr(threshold=threshold)
        # (TensorIterator's operands: self, then grad; the first tells the layout)
        return iterator_layout(np.where(result.array > threshold, grad.array, 0).astype(
            grad.array.dtype), result.array, grad.array)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # zeros_like(self_t) + threshold_backward(grad_output_t, self_p, threshold)
        from .creation import zeros_like

        return zeros_like(t[1]) + threshold_backward(t[0], inputs[1], params.get("threshold", 0.0))

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        result = self.unpack("self")
        g_grad = (threshold_backward(gg, result, self.attrs["threshold"])
                  if self.needs_input_grad(0) else None)
        return g_grad, (zeros_like(gg) if self.needs_input_grad(1) else None)  # torch: zeros


def threshold_backward(grad: Tensor, result: Tensor, threshold: float = 0.0) -> Tensor:
    return ThresholdBackwardBackward0.call(grad, result, threshold=threshold)


class ReluBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 if {result} > 0 else 0"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype.name == "bool":  # relu and relu_ refuse it before their clamp_min
            raise TorchRuntimeError("Boolean inputs not supported for relu")
        return np.maximum(a.array, 0).astype(a.array.dtype, copy=False)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return threshold_backward(grad, self.unpack("result"), 0)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return threshold_backward(t[0], outs[0], 0)  # auto_element_wise


class SqrtBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / (2 × {result})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype.is_complex:
            return complex_dtypes.square_root(a.array)
        return unary("sqrt", _floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        if grad.dtype.is_complex:  # grad / (2 * result.conj()), the conjugate written out
            from .complex_ops import conj_physical

            if GRAD_MODE.enabled:
                raise complex_dtypes.refuse("create_graph through a complex sqrt")
            return grad / (conj_physical(self.unpack("result")) * 2)
        return grad / mul_scalar(self.unpack("result"), 2)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        if t[0].dtype.is_complex:  # (the formula of conj(t), conjugated: the same bits)
            return t[0] / (outs[0] * 2)
        return t[0] / mul_scalar(outs[0], 2)  # auto_element_wise


class RsqrtBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "-0.5 × {result}³"),)

    def forward(self, a: Tensor) -> np.ndarray:
        x = _floating(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.asarray(1, x.dtype) / np.sqrt(x)).astype(x.dtype, copy=False)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        cubed = self.unpack("result").pow(3)  # torch: -0.5 * grad * result.pow(3)
        return mul_scalar(grad, -0.5) * cubed


def rsqrt(a: Tensor) -> Tensor:
    return RsqrtBackward0.call(a)


class AbsBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "sgn({self})"),)
    jvp_reads_saved = True  # (as auto_element_wise's: the backward formula reads self)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """derivatives.yaml: handle_r_to_c(result, self_t.conj() * self_p.sgn()) for a
        complex input, auto_element_wise (the backward formula) for a real one."""
        if inputs[0].dtype.is_complex:
            return Tensor._wrap(complex_dtypes.abs_jvp(t[0].array, inputs[0].array))
        return auto_element_wise(self, t, outs, inputs, params)

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype.barebones:
            raise unsigned.not_implemented("abs_cpu", a.dtype)
        self.save("self", a)
        if a.dtype.is_complex:
            return complex_dtypes.absolute(a.array)
        return np.abs(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        x = self.unpack("self")
        if x.dtype.is_complex:
            if GRAD_MODE.enabled:
                raise complex_dtypes.refuse("a gradient of abs()'s complex backward "
                                            "(create_graph=True)")
            return Tensor._wrap(complex_dtypes.abs_backward(grad.array, x.array))
        return grad * sgn(x)


class ReciprocalBackward0(Function):
    __slots__ = ()
    jvp_reads_saved = True  # (a real tangent's formula is backward's: auto_element_wise)
    formulas = (local("self", "-conj({result}²)", when=(COMPLEX,)), local("self", "-{result}²"))

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype.is_complex:
            return complex_dtypes.reciprocal(a.array)
        with np.errstate(divide="ignore"):
            return np.reciprocal(_floating(a))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        result = self.unpack("result")
        if grad.dtype.is_complex:  # -grad * (result * result).conj()
            from .arithmetic import conj_product

            return conj_product(-grad, result * result)
        return -grad * (result * result)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        if t[0].dtype.is_complex:  # auto_element_wise: the formula of conj(t), conjugated
            return -t[0] * (outs[0] * outs[0])
        return auto_element_wise(self, t, outs, inputs, params)


class ClampBackward1(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if {self} ≥ {min} else 0", when=(("max", None),)),
                local("self", "1 if {self} ≤ {max} else 0", when=(("min", None),)),
                local("self", "1 if {min} ≤ {self} ≤ {max} else 0"))

    def forward(self, a: Tensor, min: Any = None, max: Any = None) -> np.ndarray:  # noqa: A002
        if min is None and max is None:
            raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.save("self", a)
        self.save_attr(min=min, max=max)
        out = a.array
        if a.dtype is dtypes.float16 or a.dtype is dtypes.float32:  # (Scalar::to<scalar_t>:
            for bound in (min, max):  # `x.clamp(min=1e5)` of float16 overflows)
                if bound is not None:
                    dtypes.checked_scalar(bound, a.dtype)
        if a.dtype.np.kind in "iu":  # an int bound is converted so too: `int8.clamp(max=300)`
            min, max = (dtypes.checked_scalar(b, a.dtype)[()] if type(b) is int else b  # noqa: A001
                        for b in (min, max))  # overflows, `uint8.clamp(min=-1)` is 255
        if min is not None:
            out = np.maximum(out, min)
        if max is not None:
            out = np.minimum(out, max)
        dtype = a.dtype
        if not dtype.is_floating_point and (isinstance(min, float) or isinstance(max, float)):
            from ..dtypes import DEFAULT_FLOAT

            dtype = DEFAULT_FLOAT
        return np.asarray(out).astype(dtype.np, copy=False)

    def backward(self, grad: Tensor) -> Tensor:
        from .reductions import where

        x = self.unpack("self")
        lo, hi = self.attrs["min"], self.attrs["max"]
        if lo is not None and hi is not None:
            mask = (x >= lo) & (x <= hi)
        elif lo is not None:
            mask = x >= lo
        else:
            mask = x <= hi
        return where(mask, grad, Tensor.scalar(0.0))


class _ZeroGrad(Function):
    """Piecewise-constant functions: their gradient is zero everywhere."""

    __slots__ = ()
    formulas = (local("self", "0"),)
    ufunc: np.ufunc

    def forward(self, a: Tensor) -> np.ndarray:
        return type(self).ufunc(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros_like

        return zeros_like(grad)


class FloorBackward0(_ZeroGrad):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    ufunc = np.floor


class CeilBackward0(_ZeroGrad):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    ufunc = np.ceil


class RoundBackward0(_ZeroGrad):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    ufunc = np.round


class RoundBackward1(_ZeroGrad):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise

    def forward(self, a: Tensor, decimals: int = 0) -> np.ndarray:
        return np.round(a.array, decimals)  # torch saves nothing (its gradient is zero)


class TruncBackward0(_ZeroGrad):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    ufunc = np.trunc


class SignBackward0(_ZeroGrad):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    ufunc = np.sign


class SgnBackward0(_ZeroGrad):
    """sgn: zero gradient for real input; torch saves self and result (sgn_backward). A
    complex z's sign is z / |z| (0 at 0), its gradient sgn_backward's
    (grad - sgn² conj(grad)) / (2 |z|), 0 where z is 0."""

    __slots__ = ()
    ufunc = np.sign
    formulas = (vjp("self", "({grad} - {result}² × conj({grad})) / (2 |{self}|)",
                    when=(COMPLEX,)), local("self", "0"))

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        if a.dtype.is_complex:
            return complex_dtypes.sign(a.array)
        return np.sign(a.array)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    jvp_reads_saved = True  # (auto_element_wise's backward reads self and result)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """auto_element_wise: sgn_backward of the tangent (a zero tensor for real input;
        complex's conjugated form is not reproduced)."""
        if inputs[0].dtype.is_complex:
            raise complex_dtypes.refuse("forward-mode AD through sgn of a complex tensor")
        return auto_element_wise(self, t, outs, inputs, params)

    def backward(self, grad: Tensor) -> Tensor:
        if not grad.dtype.is_complex:
            return super().backward(grad)
        if GRAD_MODE.enabled:
            raise complex_dtypes.refuse("a gradient of sgn's backward (create_graph=True)")
        from .arithmetic import div, mul, sub
        from .complex_ops import conj_physical

        x, sgn = self.unpack("self"), self.unpack("result")
        modulus = x.abs()
        out = div(sub(grad, mul(mul(sgn, sgn), conj_physical(grad))), mul_scalar(modulus, 2.0))
        out.array[modulus.array == 0] = 0  # (masked_fill_ of the fresh quotient)
        return out


class LogitBackward0(Function):
    """logit(self) = log(self / (1 - self)) (eps None); its gradient grad / (self (1 - self))
    (logit_backward)."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 / ({self} × (1 - {self}))"),)

    def forward(self, a: Tensor, eps: float | None = None) -> np.ndarray:
        self.save("self", a)
        self.save_attr(eps=eps)
        x = _floating(a)
        if eps is not None:  # logit_kernel clamps to [eps, 1 - eps] (in the input's dtype)
            lo = x.dtype.type(eps)
            x = np.clip(x, lo, x.dtype.type(1) - lo)
        return kernels.logit(x)

    def backward(self, grad: Tensor) -> Tensor:
        """infinitely_differentiable_logit_backward (the logit_backward kernel's values):
        grad / (self (1 - self)) inside [eps, 1 - eps], 0 outside; without eps inside [0, 1],
        NaN outside."""
        from .reductions import where

        x = self.unpack("self")
        eps = self.attrs["eps"]
        lo, hi, fill = (0.0, 1.0, np.nan) if eps is None else (eps, 1.0 - eps, 0.0)
        inside = (x >= lo) & (x <= hi)
        return where(inside, grad / (x * (1 - x)), Tensor._wrap(np.full((), fill, x.array.dtype)))


def logit(a: Tensor, eps: float | None = None) -> Tensor:
    return LogitBackward0.call(a, eps=eps)


def logit_(a: Tensor, eps: float | None = None) -> Tensor:
    from ._util import apply_inplace

    return apply_inplace(LogitBackward0, a, eps=eps)


def exp(a: Tensor) -> Tensor:
    return ExpBackward0.call(a)


def log(a: Tensor) -> Tensor:
    return LogBackward0.call(a)


def log1p(a: Tensor) -> Tensor:
    return Log1PBackward0.call(a)


def expm1(a: Tensor) -> Tensor:
    return Expm1Backward0.call(a)


def sin(a: Tensor) -> Tensor:
    return SinBackward0.call(a)


def cos(a: Tensor) -> Tensor:
    return CosBackward0.call(a)


def tanh(a: Tensor) -> Tensor:
    return TanhBackward0.call(a)


def sigmoid(a: Tensor) -> Tensor:
    return SigmoidBackward0.call(a)


def relu(a: Tensor) -> Tensor:
    return ReluBackward0.call(a)


def sqrt(a: Tensor) -> Tensor:
    return SqrtBackward0.call(a)


def abs(a: Tensor) -> Tensor:  # noqa: A001 - torch's name
    return AbsBackward0.call(a)


def reciprocal(a: Tensor) -> Tensor:
    return ReciprocalBackward0.call(a)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        from .pointwise import clamp_tensor

        return clamp_tensor(a, min, max, name="clamp")
    return ClampBackward1.call(a, min=min, max=max)


def clip(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        from .pointwise import clamp_tensor

        return clamp_tensor(a, min, max, name="clip")
    return ClampBackward1.call(a, min=min, max=max)


def floor(a: Tensor) -> Tensor:
    return FloorBackward0.call(a)


def ceil(a: Tensor) -> Tensor:
    return CeilBackward0.call(a)


def round(a: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001
    if decimals:
        return RoundBackward1.call(a, decimals=decimals)
    return RoundBackward0.call(a)


def trunc(a: Tensor) -> Tensor:
    return TruncBackward0.call(a)


def sign(a: Tensor) -> Tensor:
    return SignBackward0.call(a)


def sgn(a: Tensor) -> Tensor:
    return SgnBackward0.call(a)


def exp_(a: Tensor) -> Tensor:
    return apply_inplace(ExpBackward0, a)


def sigmoid_(a: Tensor) -> Tensor:
    return apply_inplace(SigmoidBackward0, a)


def tanh_(a: Tensor) -> Tensor:
    return apply_inplace(TanhBackward0, a)


def relu_(a: Tensor) -> Tensor:
    return apply_inplace(ReluBackward0, a)


def clamp_(a: Tensor, min: Any = None, max: Any = None, *,  # noqa: A002
           name: str = "clamp_") -> Tensor:
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        from .pointwise import ClampBackward0, tensor_bounds

        return apply_inplace(ClampBackward0, a, *tensor_bounds(name, min, max))
    return apply_inplace(ClampBackward1, a, min=min, max=max)


def clip_(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return clamp_(a, min, max, name="clip_")
