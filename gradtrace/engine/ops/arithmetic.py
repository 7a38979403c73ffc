"""Elementwise arithmetic: + - * / ** and their in-place forms, plus comparisons."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError
from .. import bfloat16, dtypes, kernels, unsigned
from .. import complex as complex_dtypes
from ..dtypes import DType, bool_
from ..events import OBSERVERS
from ..formulas import COMPLEX, local
from ..forward_ad import FW, auto_element_wise, maybe_multiply
from ..grad_mode import GRAD_MODE
from ..jit import JIT, lowers
from ..jit import refuse as jit_refuse
from ..node import Function, SavedNumber, SavedTensor, saved_number
from ..tensor import Tensor, as_tensor_operand, type_name, wrap, wrap_number
from ._util import (
    apply_inplace,
    binary_apply,
    binary_operands,
    cast,
    common_dtype,
    float_dtype,
    iterator_layout,
    not_implemented,
    number_apply,
    result_dtype,
)
from .fused import add_alpha, check_alpha
from .scalar import add_scalar, div_scalar, mul_scalar, sub_scalar
from .unary import SPECIAL_EXPONENTS, float_pow


class AddBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1"),
                local("other", "{alpha}"))

    def forward(self, a: Tensor, b: Tensor, alpha: Any = 1) -> np.ndarray:
        if self.recording:  # save_attr(alpha=alpha) without its call: the commonest node
            # alpha 1 (the `+` operator's) shares one dict, never written after forward:
            # ~180 bytes less per Add node
            self.attrs = _ALPHA_ONE if type(alpha) is int and alpha == 1 else {"alpha": alpha}
        dtype = common_dtype(a, b)
        if dtype.barebones:
            raise unsigned.not_implemented("add_stub", dtype)
        if type(alpha) is not int:
            check_alpha(alpha, dtype)
        if alpha != 1:
            return add_alpha(cast(a.array, dtype), cast(b.array, dtype), alpha, dtype.np)
        return binary_apply(np.add, a, b, dtype)

    def forward_number(self, a: Tensor, number: float) -> np.ndarray:
        if self.recording:
            self.attrs = _ALPHA_ONE
        return number_apply(np.add, a, number)

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        # like torch, nothing for an input that needs no gradient (`y + 0.5`'s number)
        if self.next_functions[1][0] is None:
            return grad, None
        alpha = self.attrs["alpha"]
        return grad, grad if alpha == 1 else mul_scalar(grad, alpha)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t + maybe_multiply(other_t, alpha)
        if t[1] is None:
            return t[0]
        other = maybe_multiply(t[1], params.get("alpha", 1))
        return other if t[0] is None else t[0] + other


_ALPHA_ONE = {"alpha": 1}


def sub_check(a: Tensor, b: Tensor) -> None:
    """torch's sub_check: no bool operand, a Python bool included (`mask - 1`)."""
    if a.dtype is bool_ and b.dtype is bool_:
        raise TorchRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    if a.dtype is bool_ or b.dtype is bool_:
        raise TorchRuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


class SubBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1"),
                local("other", "-{alpha}"))

    def forward(self, a: Tensor, b: Tensor, alpha: Any = 1) -> np.ndarray:
        sub_check(a, b)
        self.save_attr(alpha=alpha)
        dtype = common_dtype(a, b)
        if dtype.barebones:
            raise unsigned.not_implemented("add_stub", dtype)
        if type(alpha) is not int:
            check_alpha(alpha, dtype)
        if alpha != 1:
            return add_alpha(cast(a.array, dtype), cast(b.array, dtype), -alpha, dtype.np)
        return binary_apply(np.subtract, a, b, dtype)

    def forward_number(self, a: Tensor, number: float) -> np.ndarray:
        if self.recording:
            self.attrs = {"alpha": 1}
        return number_apply(np.subtract, a, number)

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor | None]:
        if self.next_functions[1][0] is None:  # `y - 0.5`: no -grad for the number
            return grad, None
        alpha = self.attrs["alpha"]
        return grad, -grad if alpha == 1 else mul_scalar(-grad, alpha)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t - maybe_multiply(other_t, alpha)
        if t[1] is None:
            return t[0]
        other = maybe_multiply(t[1], params.get("alpha", 1))
        return -other if t[0] is None else t[0] - other


class RsubBackward0(Function):
    """torch.rsub(self, other) with a tensor other: `other - alpha * self` (ATen runs
    sub(other, self, alpha)); its edges in self, other order."""

    __slots__ = ()
    formulas = (local("self", "-{alpha}"),
                local("other", "1"))

    def forward(self, a: Tensor, b: Tensor, alpha: Any = 1) -> np.ndarray:
        return SubBackward0.forward(self, b, a, alpha)  # type: ignore[arg-type]

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor]:
        alpha = self.attrs["alpha"]
        return (-grad if alpha == 1 else mul_scalar(-grad, alpha)), grad

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # -maybe_multiply(self_t, alpha) + other_t
        if t[0] is None:
            return t[1]
        self_t = -maybe_multiply(t[0], params.get("alpha", 1))
        return self_t if t[1] is None else self_t + t[1]


class RsubBackward1(Function):
    """`number - tensor`: one input, the tensor."""

    __slots__ = ()
    formulas = (local("self", "-{alpha}"),)

    def forward(self, a: Tensor, number: Tensor, alpha: Any = 1) -> np.ndarray:
        sub_check(number, a)
        self.save_attr(alpha=alpha)
        dtype = result_dtype(a, number)
        if dtype.barebones:
            raise unsigned.not_implemented("add_stub", dtype)
        if alpha != 1:
            out = add_alpha(cast(number.array, dtype), cast(a.array, dtype), -alpha, dtype.np)
        else:
            out = np.subtract(number.array, a.array, dtype=dtype.np, casting="unsafe")
        return iterator_layout(out, number.array, a.array)  # (torch's sub(number, tensor))

    def backward(self, grad: Tensor) -> Tensor:
        alpha = self.attrs["alpha"]
        return -grad if alpha == 1 else mul_scalar(-grad, alpha)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        alpha = params.get("alpha", 1)  # auto_element_wise
        return -t[0] if alpha == 1 else mul_scalar(-t[0], alpha)


class MulBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "conj({other})", when=(COMPLEX,)), local("self", "{other}"),
                local("other", "conj({self})", when=(COMPLEX,)), local("other", "{self}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        if self.recording:  # save() and show_saved_as() without their calls (every Mul)
            # torch saves (and packs, under saved_tensors_hooks) what self's formula uses
            # first; the views list self first
            other = SavedTensor(b, False) if a.requires_grad else None
            self.saved = {"self": SavedTensor(a, False) if b.requires_grad else None,
                          "other": other}
        return binary_apply(np.multiply, a, b, dtype)

    def forward_number(self, a: Tensor, number: float) -> np.ndarray:
        if self.recording:  # only `a` can require grad: `self` is not saved
            self.saved = {"self": None, "other": saved_number(number)}
        return number_apply(np.multiply, a, number)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # torch computes the last input's gradient first (the order nodes are created in)
        edges = self.next_functions  # (needs_input_grad without its calls)
        if grad.dtype.is_complex:
            return self._complex_backward(grad, edges)
        gb = _product(grad, self.unpack("self")) if edges[1][0] is not None else None
        ga = None
        if edges[0][0] is not None:
            number = _unread_number(grad, self, "other")
            ga = _product(grad, self.unpack("other")) if number is None else \
                wrap(number_apply(np.multiply, grad, number))
        return ga, gb

    def _complex_backward(self, grad: Tensor, edges: Any) -> tuple[Any, Any]:
        """derivatives.yaml's mul_tensor_backward: grad * other.conj() for self, grad *
        self.conj() for other (conjugate Wirtinger calculus), each a real input's real
        part (handle_r_to_c)."""
        out = []
        for i, key in ((1, "self"), (0, "other")):  # (the last input's first, as above)
            if edges[i][0] is None:
                out.append(None)
                continue
            saved = self.saved[key]
            if type(saved) is SavedNumber:
                factor = wrap_number(saved.number)
            else:
                factor = self.unpack(key)
            out.append(complex_dtypes.handle_r_to_c(
                self.input_meta[i][1], conj_product(grad, factor)))
        return out[1], out[0]

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # other_t * self_p + self_t * other_p
        a, b = inputs
        if t[1] is None:
            return t[0] * b
        if t[0] is None:
            return t[1] * a
        return t[1] * a + t[0] * b


def _product(grad: Tensor, t: Tensor) -> Tensor:
    """`grad * t` in a backward formula. With grad mode off (no create_graph) and nothing
    observing the engine, no node can be recorded and no op event read: the product
    MulBackward0.forward computes, the same bits, without the op's calls."""
    if GRAD_MODE.enabled or OBSERVERS or FW.level >= 0:  # (forward AD: tangents to carry)
        return mul(grad, t)
    return wrap(binary_apply(np.multiply, grad, t, common_dtype(grad, t)))


def conj_product(grad: Tensor, t: Tensor) -> Tensor:
    """`grad * t.conj()` in a complex backward formula (the conjugate's values resolved,
    the product rounded as mul rounds it). Under create_graph it is recorded as torch
    records it: the conj view's ConjBackward0 (a real `t` is itself), then MulBackward0."""
    if GRAD_MODE.enabled:
        from .complex_ops import conj

        return mul(grad, conj(t))
    dtype = common_dtype(grad, t)
    factor = t.array if t.dtype is dtype else cast(t.array, dtype)
    g = grad.array if grad.dtype is dtype else cast(grad.array, dtype)
    return wrap(complex_dtypes.multiply(g, np.conj(factor)))


def _complex_quotient(a: Tensor, b: Tensor) -> Tensor:
    """`a / b` in a complex backward formula, as div rounds it, not recorded."""
    return wrap(binary_apply(np.true_divide, a, b, float_dtype(common_dtype(a, b))))


def _unread_number(grad: Tensor, node: Function, key: str) -> float | None:
    """The Python number saved as `key` (SavedNumber) when a backward formula may compute
    `grad op number` without the op: grad mode off (no create_graph) and nothing observing
    the engine, as in `_product`; the number's wrapped tensor would give the same bits (a
    Python float never widens a floating-point gradient). None otherwise, and once the
    tensor was read: it is then unpacked as any saved tensor (a script may have changed it
    in place)."""
    saved = node.saved[key]
    if (type(saved) is SavedNumber and not (GRAD_MODE.enabled or OBSERVERS or FW.level >= 0)
            and grad.dtype.is_floating_point and not saved.built()):
        return saved.number
    return None


class DivBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "1 / conj({other})", when=(COMPLEX,)),
                local("self", "1 / {other}"),
                local("other", "-conj({self} / {other}²)", when=(COMPLEX,)),
                local("other", "-{self} / {other}²"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        dtype = float_dtype(dtype)
        self.save("other", b if (a.requires_grad or b.requires_grad) else None)
        self.save("self", a if b.requires_grad else None)
        self.show_saved_as("self", "other")
        with np.errstate(divide="ignore", invalid="ignore"):
            return binary_apply(np.true_divide, a, b, dtype)

    def forward_number(self, a: Tensor, number: float) -> np.ndarray:
        if self.recording:  # only `a` can require grad: `self` is not saved
            self.saved = {"self": None, "other": saved_number(number)}
        with np.errstate(divide="ignore", invalid="ignore"):
            return number_apply(np.true_divide, a, number)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        number = _unread_number(grad, self, "other")
        if number is not None:  # `a / number`: only a's gradient, grad / number
            with np.errstate(divide="ignore", invalid="ignore"):
                return wrap(number_apply(np.true_divide, grad, number)), None
        if grad.dtype.is_complex:
            return self._complex_backward(grad)
        other = self.unpack("other")
        gb = None
        if self.needs_input_grad(1):  # first, like torch; C++ evaluates the right operand first
            quotient = (self.unpack("self") / other) / other
            gb = -grad * quotient
        ga = grad / other if self.needs_input_grad(0) else None
        return ga, gb

    def _complex_backward(self, grad: Tensor) -> tuple[Any, Any]:
        """derivatives.yaml's div_tensor_self_backward, grad / other.conj(), and
        div_tensor_other_backward, -grad * ((self / other) / other).conj() (computed
        first), each a real input's real part (handle_r_to_c). Not recorded: a graph of
        them (create_graph) would need conj's own node, which gradtrace does not build."""
        if GRAD_MODE.enabled:
            raise complex_dtypes.refuse("create_graph through a complex division")
        other = self.unpack("other")
        gb = ga = None
        if self.needs_input_grad(1):
            quotient = _complex_quotient(_complex_quotient(self.unpack("self"), other),
                                         other)
            gb = complex_dtypes.handle_r_to_c(self.input_meta[1][1],
                                              conj_product(-grad, quotient))
        if self.needs_input_grad(0):
            dtype = common_dtype(grad, other)
            ga = complex_dtypes.handle_r_to_c(self.input_meta[0][1], wrap(
                complex_dtypes.divide(cast(grad.array, dtype), np.conj(cast(other.array,
                                                                            dtype)))))
        return ga, gb

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # (self_t - other_t * result) / other_p
        if t[1] is None:
            return t[0] / inputs[1]
        return (t[0] - t[1] * outs[0]) / inputs[1]


class NegBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "-1"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if a.dtype is bool_:
            raise TorchRuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        if a.dtype.barebones:
            raise unsigned.not_implemented("neg_cpu", a.dtype)
        return np.negative(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        return -grad

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return -t[0]  # auto_element_wise


def _complex_power(base: np.ndarray, value: Any, dtype: DType) -> np.ndarray:
    """`complex tensor ** number` as pow_Tensor_Scalar_out and pow_tensor_scalar_kernel
    compute it: 0 a fill, 1 a copy, 0.5 sqrt_kernel, -0.5 rsqrt_kernel, -1
    reciprocal_kernel, 2, 3 and -2 products and quotients, any other std::pow."""
    if value == 0:
        return np.ones(base.shape, base.dtype)
    if value == 1:
        return base.copy()
    if value == 0.5:
        return complex_dtypes.square_root(base)
    if value == -0.5:
        return complex_dtypes.reciprocal_square_root(base)
    if value == -1:
        return complex_dtypes.reciprocal(base)
    if value in (2, 3, -2):
        if any(st == 0 and n > 1 for st, n in zip(base.strides, base.shape, strict=True)):
            raise complex_dtypes.refuse(f"the ** operator with the exponent {value} on a "
                                        f"broadcast torch.{dtype.name} tensor")
        return complex_dtypes.power(base, int(value.real))
    return complex_dtypes.cpow(base, complex(value))


class PowBackward0(Function):
    """`tensor ** number`."""

    __slots__ = ()
    formulas = (local("self", "{exponent} × {self}^({exponent} - 1)"),)

    def forward(self, a: Tensor, exponent: Tensor) -> np.ndarray:
        value = exponent.array.item()
        self.save("self", a)
        self.save_attr(exponent=value)
        dtype = result_dtype(a, exponent)
        if not (dtype.is_floating_point or dtype.is_complex) and isinstance(value, int) and \
                value < 0:
            raise TorchRuntimeError("Integers to negative integer powers are not allowed.")
        if dtype.barebones and value not in (0, 1):  # (** 0 is a fill, ** 1 a copy)
            raise unsigned.not_implemented("pow", dtype)
        bfloat16.check_dtype("pow", dtype)
        if dtype is dtypes.float16 or dtype is dtypes.float32:  # (the exponent as a float16
            dtypes.checked_scalar(value, dtype)  # or float: `x ** 1e5` of float16 overflows)
        base = cast(a.array, dtype)
        if dtype.is_complex:
            return _complex_power(base, value, dtype)
        if value == 1:
            # torch's pow_Tensor_Scalar_out copies the base for an exponent of 1 (the `** 2`
            # backward's self.pow(1.0)): the same bits as SLEEF's powf, without its ~250 ns
            # per element
            return base.copy() if base is a.array else base
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if base.dtype in (np.float32, np.float64) and float(value) not in SPECIAL_EXPONENTS:
                return kernels.pow_scalar(base, float(value))
            if base.dtype == np.float16 and value != 0:  # (** 0 is a fill)
                return kernels.pow_scalar_half(base, float(value))
            return float_pow(base, cast(exponent.array, dtype))

    def backward(self, grad: Tensor) -> Tensor:
        exponent = self.attrs["exponent"]
        self_ = self.unpack("self")
        if exponent == 0:
            from .creation import zeros_like

            return zeros_like(self_)
        if self_.dtype.is_complex:  # grad * (exp * self.pow(exp - 1)).conj()
            exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)
            return conj_product(grad, self_.pow(exponent - 1) * exponent)
        exponent = float(exponent)  # torch: grad * (exp * self.pow(exp - 1)) with a double exp
        return grad * mul_scalar(self_.pow(exponent - 1), exponent)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # auto_element_wise: pow_backward(self_t, self_p, exponent)
        exponent = params["exponent"].array.item() if "exponent" in params \
            else inputs[1].array.item()
        if exponent == 0:
            from .complex_ops import conj_physical
            from .creation import zeros_like

            # (complex: the zeros conjugated, torch's -0 imaginary parts)
            return conj_physical(zeros_like(inputs[0]))
        if inputs[0].dtype.is_complex:  # (the formula of conj(t), conjugated: the same bits)
            exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)
            return t[0] * (inputs[0].pow(exponent - 1) * exponent)
        exponent = float(exponent)
        return t[0] * mul_scalar(inputs[0].pow(exponent - 1), exponent)


class PowBackward1(Function):
    """`tensor ** tensor`."""

    __slots__ = ()
    formulas = (local("self", "{exponent} × {self}^({exponent} - 1)"),
                local("exponent", "{result} × ln({self})"))

    def forward(self, a: Tensor, exponent: Tensor) -> np.ndarray:
        dtype = common_dtype(a, exponent)
        if dtype.barebones:
            raise unsigned.not_implemented("pow", dtype)
        bfloat16.check_dtype("pow", dtype)
        self.save("exponent", exponent)
        self.save("self", a)
        self.show_saved_as("self", "exponent")
        if dtype.is_complex:
            return complex_dtypes.cpow_pairs(cast(a.array, dtype), cast(exponent.array, dtype))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return float_pow(cast(a.array, dtype), cast(exponent.array, dtype))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # pow_backward_self(self_t, self_p, exponent_p)
        #   + pow_backward_exponent(exponent_t, self_p, exponent_p, result)
        from .reductions import where

        self_, exponent = inputs
        if outs[0].dtype.is_complex:
            return _complex_pow_jvp(t, outs[0], self_, exponent)
        cond = (self_ == 0) & (exponent >= 0)
        g_e = t[1] * where(cond, Tensor.scalar(0.0), outs[0] * self_.log())
        g_s = where(exponent == 0.0, Tensor.scalar(0.0),
                    t[0] * (exponent * self_.pow(sub_scalar(exponent, 1))))
        return g_s + g_e

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .reductions import where

        self_, exponent = self.unpack("self"), self.unpack("exponent")
        if grad.dtype.is_complex:
            return self._complex_backward(grad, self_, exponent)
        ga = gb = None
        if self.needs_input_grad(1):  # the exponent's gradient first, like torch
            result = self.unpack("result")
            cond = (self_ == 0) & (exponent >= 0)
            gb = grad * where(cond, Tensor.scalar(0.0), result * self_.log())
        if self.needs_input_grad(0):
            ga = where(exponent == 0.0, Tensor.scalar(0.0),
                       grad * (exponent * self_.pow(sub_scalar(exponent, 1))))
        return ga, gb


    def _complex_backward(self, grad: Tensor, self_: Tensor, exponent: Tensor
                          ) -> tuple[Tensor | None, Tensor | None]:
        """pow_backward_self: where(exponent == 0, 0, grad * (exponent * self.pow(exponent -
        1)).conj()); pow_backward_exponent: grad * where(self == 0 & exponent real and >= 0,
        0, (result * self.log()).conj()); each a real input's real part."""
        from .complex_ops import conj_physical, imag, real
        from .reductions import where

        if GRAD_MODE.enabled:  # (conj views, ConjBackward0, in torch's graph)
            raise complex_dtypes.refuse("create_graph through a complex power")
        zero = Tensor.scalar(0.0)
        ga = gb = None
        if self.needs_input_grad(1):
            result = self.unpack("result")
            if exponent.dtype.is_complex:
                real_exponent = (imag(exponent) == 0) & (real(exponent) >= 0)
            else:
                real_exponent = exponent >= 0
            cond = (self_ == 0) & real_exponent
            promoted = self_.to(grad.dtype)
            gb = grad * where(cond, zero, conj_physical(result * promoted.log()))
            gb = complex_dtypes.handle_r_to_c(exponent.dtype, gb)
        if self.needs_input_grad(0):
            ga = where(exponent == 0.0, zero,
                       conj_product(grad, exponent * self_.pow(sub_scalar(exponent, 1))))
            ga = complex_dtypes.handle_r_to_c(self_.dtype, ga)
        return ga, gb


def _complex_pow_jvp(t: list, result: Tensor, self_: Tensor, exponent: Tensor) -> Tensor:
    """pow.Tensor_Tensor's forward derivative of complex values: (pow_backward_self(
    self_t.conj(), self_p, exponent_p) + pow_backward_exponent(exponent_t.conj(), self_p,
    exponent_p, result)).conj(), every conjugate written out (exact)."""
    from .complex_ops import conj_physical, imag, real
    from .reductions import where

    zero = Tensor.scalar(0.0)
    total = None
    if t[0] is not None:
        part = where(exponent == 0.0, zero, conj_physical(t[0]) * conj_physical(
            exponent * self_.pow(sub_scalar(exponent, 1))))
        total = complex_dtypes.handle_r_to_c(self_.dtype, part)
    if t[1] is not None:
        if exponent.dtype.is_complex:
            real_exponent = (imag(exponent) == 0) & (real(exponent) >= 0)
        else:
            real_exponent = exponent >= 0
        cond = (self_ == 0) & real_exponent
        log = self_.to(result.dtype).log()
        part = conj_physical(t[1]) * where(cond, zero, conj_physical(result * log))
        part = complex_dtypes.handle_r_to_c(exponent.dtype, part)
        total = part if total is None else total + part
    return conj_physical(total)


class PowBackward2(Function):
    """`number ** tensor`: one input, the exponent."""

    __slots__ = ()
    jvp_reads_saved = True  # (auto_element_wise: backward's formula)
    formulas = (local("exponent", "{result} × ln({self})"),)

    def forward(self, exponent: Tensor, base: Tensor) -> np.ndarray:
        """pow_Scalar's meta allocates the output C-contiguous whatever the exponent's
        strides (set_output_raw_strided with none), then runs pow_Tensor_Tensor into it:
        the loop goes in C order, vectorised only where the exponent's inner loop is
        contiguous."""
        self.save("exponent", exponent)
        self.save_attr(self=base.array.item())
        dtype = result_dtype(base, exponent)
        if dtype.barebones:
            raise unsigned.not_implemented("pow", dtype)
        bfloat16.check_dtype("pow", dtype)
        if dtype.is_complex:  # pow_Scalar_out: a fill for a base of 1, else std::pow's
            if base.array.item() == 1:
                return np.ones(exponent.array.shape, dtype.np)
            return np.asarray(complex_dtypes.cpow_pairs(
                cast(base.array, dtype), cast(exponent.array, dtype)), order="C")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(float_pow(cast(base.array, dtype), cast(exponent.array, dtype),
                                        contiguous_out=True), order="C")

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        base = self.attrs["self"]
        if grad.dtype.is_complex:
            if GRAD_MODE.enabled:  # (conj views, ConjBackward0, in torch's graph)
                raise complex_dtypes.refuse("create_graph through a complex power")
            return self._complex_backward(grad, base)
        if base == 0:
            from .reductions import where

            exponent = self.unpack("exponent")
            return grad * where(exponent >= 0, Tensor.scalar(0.0), self.unpack("result") * 0.0)
        return grad * mul_scalar(self.unpack("result"), float(np.log(base)))


    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        if outs[0].dtype.is_complex:  # auto_element_wise: backward(t.conj()).conj()
            from .complex_ops import conj_physical

            return conj_physical(self._complex_backward(conj_physical(t[0]),
                                                        self.attrs["self"]))
        return auto_element_wise(self, t, outs, inputs, params)

    def _complex_backward(self, grad: Tensor, base: Any) -> Tensor:
        """pow_backward_exponent for a Scalar base: grad * (result * log(base)).conj(), the
        Scalar's log in complex double (the C library's clog), where(exponent real and >= 0,
        0, ...) for a base of 0; a real exponent's gradient its real part."""
        from .complex_ops import conj_physical, imag, real
        from .reductions import where

        exponent, result = self.unpack("exponent"), self.unpack("result")
        with np.errstate(all="ignore"):
            log = complex(np.log(np.complex128(base)))
        out = conj_physical(result * log)
        if base == 0:
            if exponent.dtype.is_complex:
                cond = (imag(exponent) == 0) & (real(exponent) >= 0)
            else:
                cond = exponent >= 0
            out = where(cond, Tensor.scalar(0.0), out)
        return complex_dtypes.handle_r_to_c(exponent.dtype, grad * out)


class RemainderBackward1(Function):
    """`tensor % tensor` (remainder.Tensor); `tensor % number` is RemainderBackward0."""

    __slots__ = ()
    tensor_iterator = True
    formulas = (local("self", "1"),
                local("other", "-floor({self} / {other})"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        dtype = common_dtype(a, b)
        self.save("other", b if b.requires_grad else None)
        self.save("self", a if b.requires_grad else None)
        with np.errstate(divide="ignore", invalid="ignore"):
            from .rounding import torch_remainder

            return torch_remainder(cast(a.array, dtype), cast(b.array, dtype))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # self_t - other_t * self_p.div(other_p, rounding_mode="floor")
        from .rounding import DivBackward2

        a, b = inputs
        return t[0] - t[1] * DivBackward2.call(a, b, rounding_mode="floor")

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .unary import floor

        ga = grad if self.needs_input_grad(0) else None
        gb = None
        if self.needs_input_grad(1):
            gb = -grad * floor(self.unpack("self") / self.unpack("other"))
        return ga, gb


def _jit_scalar(op: Any, a: Any, b: Any, alpha: Any) -> Tensor | None:
    """`tensor + number` / `tensor - number` (either order for add) inside a torch.jit
    callable: the Scalar overload's node (see engine/jit.py), or None when not lowered."""
    if not isinstance(a, Tensor):
        a, b = b, a
    if not isinstance(a, Tensor) or not lowers(a, b):
        return None
    if alpha != 1:
        jit_refuse("`tensor + number` with alpha")
    return op(a, b)


def _check_alpha(op: str, alpha: Any) -> None:
    """alpha is a Number (or a tensor holding one), before it reaches numpy's broadcasting."""
    if not isinstance(alpha, (bool, int, float, complex, Tensor)):
        raise TorchTypeError(f"{op}(): argument 'alpha' must be Number, not {type_name(alpha)}")


def add(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is not int:
        _check_alpha("add", alpha)
    if JIT.mode is not None:
        lowered = _jit_scalar(add_scalar, a, b, alpha)
        if lowered is not None:
            return lowered
    if isinstance(a, Tensor):
        if type(b) is Tensor:
            return AddBackward0.call(a, b, alpha=alpha)
        if type(b) is float and type(alpha) is int and alpha == 1 \
                and a.dtype.is_floating_point:
            return AddBackward0.call_number(a, b)
    return AddBackward0.call(as_tensor_operand(a), as_tensor_operand(b), alpha=alpha)


def sub(a: Any, b: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is not int:
        _check_alpha("sub", alpha)
    if JIT.mode is not None and isinstance(a, Tensor):
        lowered = _jit_scalar(sub_scalar, a, b, alpha)
        if lowered is not None:
            return lowered
    if not isinstance(a, Tensor):  # torch.sub(number, ...): the number is a wrapped tensor
        return SubBackward0.call(as_tensor_operand(a), as_tensor_operand(b), alpha=alpha)
    if type(b) is float and type(alpha) is int and alpha == 1 and a.dtype.is_floating_point:
        return SubBackward0.call_number(a, b)
    return SubBackward0.call(a, as_tensor_operand(b), alpha=alpha)


def rsub(a: Tensor, b: Any, *, alpha: Any = 1) -> Tensor:
    """`b - a` where `a` is the tensor (torch.rsub)."""
    if isinstance(b, Tensor):
        return RsubBackward0.call(a, b, alpha=alpha)
    if JIT.mode == "script" and lowers(a, b):  # TorchScript compiles it to `neg(a) + b`
        if alpha != 1:
            jit_refuse("`number - tensor` with alpha")
        return add_scalar(neg(a), b)
    return RsubBackward1.call(a, number=Tensor.scalar(b), alpha=alpha)


def mul(a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):  # torch.mul(number, ...): the number is a wrapped tensor
        return MulBackward0.call(as_tensor_operand(a), as_tensor_operand(b))
    if JIT.mode is not None and lowers(a, b):
        return mul_scalar(a, b)
    if type(b) is Tensor:
        return MulBackward0.call(a, b)
    if type(b) is float and a.dtype.is_floating_point:
        return MulBackward0.call_number(a, b)
    return MulBackward0.call(a, as_tensor_operand(b))


def div(a: Any, b: Any, *, rounding_mode: str | None = None) -> Tensor:
    wrapped = not isinstance(a, Tensor)
    if wrapped:  # torch.div(number, ...): a true division of a wrapped tensor, not
        a = as_tensor_operand(a)  # `number / tensor`'s reciprocal product
    if rounding_mode is not None:
        from .rounding import rounded_div

        return rounded_div(a, b, rounding_mode)
    if JIT.mode is not None and lowers(a, b):
        return div_scalar(a, b)
    if type(b) is float and a.dtype.is_floating_point and not wrapped:
        return DivBackward0.call_number(a, b)
    return DivBackward0.call(a, as_tensor_operand(b))


def rdiv(a: Tensor, b: Any) -> Tensor:
    """`b / a` where `a` is the tensor: torch computes `a.reciprocal() * b`."""
    from .unary import reciprocal

    if isinstance(b, Tensor):
        return DivBackward0.call(b, a)
    return mul(reciprocal(a), b)


def neg(a: Tensor) -> Tensor:
    return NegBackward0.call(a)


def pow(a: Any, exponent: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return rpow(exponent, a)
    if isinstance(exponent, Tensor):
        return PowBackward1.call(a, exponent)
    return PowBackward0.call(a, exponent=as_tensor_operand(exponent))


def rpow(a: Tensor, base: Any) -> Tensor:
    """`base ** a` where `a` is the tensor."""
    if isinstance(base, Tensor):
        return PowBackward1.call(base, a)
    return PowBackward2.call(a, base=Tensor.scalar(base))


def remainder(a: Any, b: Any) -> Tensor:
    from .rounding import remainder_number

    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        return remainder_number(a, b)
    return RemainderBackward1.call(a, b)


def floor_divide(a: Any, b: Any) -> Tensor:
    """`a // b`: torch records a NotImplemented node (see rounding.py)."""
    from .rounding import floor_divide as recorded_floor_divide

    return recorded_floor_divide(a, b)


# -- in-place forms: same nodes, written into self ---------------------------


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return apply_inplace(AddBackward0, self, as_tensor_operand(other), alpha=alpha)


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return apply_inplace(SubBackward0, self, as_tensor_operand(other), alpha=alpha)


def mul_(self: Tensor, other: Any) -> Tensor:
    return apply_inplace(MulBackward0, self, as_tensor_operand(other))


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:  # `t.div_(2, rounding_mode="floor")`: DivBackward2's node
        from .rounding import DivBackward2

        return apply_inplace(DivBackward2, self, as_tensor_operand(other),
                             rounding_mode=rounding_mode)
    return apply_inplace(DivBackward0, self, as_tensor_operand(other))


def pow_(self: Tensor, exponent: Any) -> Tensor:
    if isinstance(exponent, Tensor):
        return apply_inplace(PowBackward1, self, exponent)
    return apply_inplace(PowBackward0, self, exponent=as_tensor_operand(exponent))


# -- comparisons and logic: bool results, never recorded ---------------------


def _compare(ufunc: np.ufunc, a: Any, b: Any, name: str | None = None) -> Tensor:
    ta, tb, dtype = binary_operands(a, b)
    if name is not None and dtype.barebones:  # (== and != run on them)
        raise unsigned.not_implemented(f"{name}_cpu", dtype)
    x, y = cast(ta.array, dtype), cast(tb.array, dtype)
    return Tensor._wrap(iterator_layout(ufunc(x, y), x, y))


def eq(a: Any, b: Any) -> Tensor:
    return _compare(np.equal, a, b)


def ne(a: Any, b: Any) -> Tensor:
    return _compare(np.not_equal, a, b)


def lt(a: Any, b: Any) -> Tensor:
    return _compare(np.less, a, b, "lt")


def le(a: Any, b: Any) -> Tensor:
    return _compare(np.less_equal, a, b, "le")


def gt(a: Any, b: Any) -> Tensor:
    return _compare(np.greater, a, b, "gt")


def ge(a: Any, b: Any) -> Tensor:
    return _compare(np.greater_equal, a, b, "ge")


def _bitwise(ufunc: np.ufunc, name: str, a: Any, b: Any) -> Tensor:
    ta, tb, dtype = binary_operands(a, b)
    if dtype.is_floating_point:
        raise not_implemented(f"{name}_cpu", dtype)
    x, y = cast(ta.array, dtype), cast(tb.array, dtype)
    return Tensor._wrap(iterator_layout(ufunc(x, y), x, y))


def bitwise_and(a: Any, b: Any) -> Tensor:
    return _bitwise(np.bitwise_and, "bitwise_and", a, b)


def bitwise_or(a: Any, b: Any) -> Tensor:
    return _bitwise(np.bitwise_or, "bitwise_or", a, b)


def bitwise_xor(a: Any, b: Any) -> Tensor:
    return _bitwise(np.bitwise_xor, "bitwise_xor", a, b)


def bitwise_not(a: Tensor) -> Tensor:
    if a.dtype.is_floating_point or a.dtype.barebones:
        raise not_implemented("bitwise_not_cpu", a.dtype)
    return Tensor._wrap(iterator_layout(np.invert(a.array), a.array))


def logical_not(a: Tensor) -> Tensor:
    return Tensor._wrap(iterator_layout(np.logical_not(a.array), a.array))


def _logical(ufunc: np.ufunc, a: Any, b: Any) -> Tensor:
    """logical_and/or/xor: any dtype, nonzero is true, the result is bool."""
    ta, tb, _ = binary_operands(a, b)
    return Tensor._wrap(iterator_layout(ufunc(ta.array != 0, tb.array != 0), ta.array,
                                        tb.array))


def logical_and(a: Any, b: Any) -> Tensor:
    return _logical(np.logical_and, a, b)


def logical_or(a: Any, b: Any) -> Tensor:
    return _logical(np.logical_or, a, b)


def logical_xor(a: Any, b: Any) -> Tensor:
    return _logical(np.logical_xor, a, b)
