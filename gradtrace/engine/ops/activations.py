"""torch.nn.functional's activations, recording torch's nodes (their backward as ops of
their own, `*BackwardBackward0`, so create_graph records what torch records)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import exactness, kernels
from ..formulas import local, vjp
from ..forward_ad import auto_element_wise, auto_linear
from ..generator import resolve
from ..grad_mode import GRAD_MODE
from ..kernels import precise
from ..node import Function
from ..tensor import Tensor
from ._util import apply_inplace, iterator_layout, not_implemented, number_argument
from .scalar import add_scalar, mul_scalar, sub_scalar
from .transcendental import erf64

# -- relu, leaky_relu, gelu, silu, softplus, elu ------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    from .unary import relu as relu_op
    from .unary import relu_

    return relu_(input) if inplace else relu_op(input)


class LeakyReluBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 if {self} > 0 else {negative_slope}"),)

    def forward(self, a: Tensor, negative_slope: float) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("leaky_relu_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(negative_slope=negative_slope)
        x = a.array
        return np.where(x > 0, x, x * negative_slope).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return leaky_relu_backward(grad, self.unpack("self"), self.attrs["negative_slope"])


class LeakyReluBackwardBackward0(Function):
    """leaky_relu_backward(grad_output, self, negative_slope) as an op, for create_graph."""

    __slots__ = ()
    jvp = auto_linear  # leaky_relu_backward(grad_output_t, self_p, slope, false)
    formulas = (local("grad_output", "1 if {self} > 0 else {negative_slope}"),
                local("self", "0"))

    def forward(self, grad: Tensor, x: Tensor, negative_slope: Any) -> np.ndarray:
        self.save("self", x)
        self.save_attr(negative_slope=negative_slope)
        g = grad.array
        # (TensorIterator's operands: self, then grad)
        return iterator_layout(np.where(x.array > 0, g, g * negative_slope).astype(g.dtype),
                               x.array, g)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        x = self.unpack("self")
        g_grad = (leaky_relu_backward(gg, x, self.attrs["negative_slope"])
                  if self.needs_input_grad(0) else None)
        return g_grad, (zeros_like(gg) if self.needs_input_grad(1) else None)


def leaky_relu_backward(grad: Tensor, x: Tensor, negative_slope: Any) -> Tensor:
    return LeakyReluBackwardBackward0.call(grad, x, negative_slope=negative_slope)


class LeakyReluBackward1(LeakyReluBackward0):
    """leaky_relu_ (in place): saves the result instead of self."""

    __slots__ = ()
    formulas = (local("self", "1 if {result} > 0 else {negative_slope}"),)

    def forward(self, a: Tensor, negative_slope: float) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("leaky_relu_cpu", a.dtype)
        self.save_attr(negative_slope=negative_slope)
        x = a.array
        return np.where(x > 0, x, x * negative_slope).astype(x.dtype)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return leaky_relu_backward(grad, self.unpack("result"), self.attrs["negative_slope"])


def leaky_relu(input: Tensor, negative_slope: float = 0.01,  # noqa: A002
               inplace: bool = False) -> Tensor:
    negative_slope = number_argument(negative_slope, "leaky_relu_" if inplace else "leaky_relu",
                                     "negative_slope", 2)
    if inplace:
        return apply_inplace(LeakyReluBackward1, input, negative_slope=negative_slope)
    return LeakyReluBackward0.call(input, negative_slope=negative_slope)


# -- rrelu -----------------------------------------------------------------------------------


def _rrelu_slope(lower: Any, upper: Any) -> float:
    """Eval mode's slope: (lower + upper) / 2 on double scalar tensors."""
    return (float(lower) + float(upper)) / 2


def rrelu_with_noise_backward(grad: Tensor, x: Tensor, noise: Tensor, lower: Any, upper: Any,
                              training: bool) -> Tensor:
    # noise is saved, not an input: the node's edges are grad_output and self, as torch's
    return RreluWithNoiseBackwardBackward0.call(grad, x, noise=noise, lower=lower, upper=upper,
                                                training=training)


class _SavesResultInstead:
    """An in-place op whose out-of-place node saves self: its in-place node keeps the
    result instead (the input's old values are overwritten), as derivatives.yaml's `_`
    entries do."""

    __slots__ = ()

    def forward(self, *inputs: Any, **params: Any) -> np.ndarray:
        out = super().forward(*inputs, **params)  # type: ignore[misc]
        if self.recording:  # type: ignore[attr-defined] (a node recording nothing has no saved)
            del self.saved["self"]  # type: ignore[attr-defined]
        return out

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)  # type: ignore[attr-defined]


class RreluWithNoiseBackward0(Function):
    """rrelu_with_noise: in training each element <= 0 is multiplied by its own slope drawn
    uniformly from [lower, upper) (torch's CPU loop: one random64() per such element, in
    order, as uniform_real_distribution<double> over the bounds held in the op's math
    type); the slopes are saved as `noise`. In eval mode it is leaky_relu with the mean
    slope."""

    __slots__ = ()
    formulas = (local("self", "{noise}", when=(("training", True),)),
                local("self", "1 if {self} > 0 else ({lower} + {upper}) / 2",
                      when=(("training", False),)))

    def forward(self, a: Tensor, lower: Any, upper: Any, training: bool,
                gen: Any) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("rrelu_with_noise_out_cpu", a.dtype)
        if float(lower) > float(upper):
            raise TorchRuntimeError("Lower bound should be less than or equal to the upper bound")
        x = a.array
        if training:
            flat = np.ascontiguousarray(x).reshape(-1)
            neg = flat <= 0
            lo, hi = (float(x.dtype.type(v)) for v in (lower, upper))  # the op's math type
            raw = gen.draw64(int(neg.sum()))
            unit = (raw & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
            slopes = (unit * (hi - lo) + lo).astype(x.dtype)
            noise = np.ones_like(flat)
            noise[neg] = slopes
            out = flat.copy()
            out[neg] = flat[neg] * slopes
            out, noise = out.reshape(x.shape), noise.reshape(x.shape)
        else:
            slope = _rrelu_slope(lower, upper)
            out = np.where(x > 0, x, x * slope).astype(x.dtype)
            noise = np.zeros_like(x)  # torch's is empty_like: never read in eval mode
        self.save("self", a)
        self.save("noise", Tensor._wrap(noise))
        self.save_attr(lower=lower, upper=upper, training=training)
        return out

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return rrelu_with_noise_backward(grad, self.unpack("self"), self.unpack("noise"),
                                         a["lower"], a["upper"], a["training"])


class RreluWithNoiseBackwardBackward0(Function):
    """rrelu_with_noise_backward as an op, for create_graph: grad × noise in training
    (when upper - lower > 1e-6), else leaky_relu_backward with the mean slope."""

    __slots__ = ()
    formulas = (local("grad_output", "{noise}", when=(("training", True),)),
                local("grad_output", "1 if {self} > 0 else ({lower} + {upper}) / 2",
                      when=(("training", False),)),
                local("self", "0"))

    def forward(self, grad: Tensor, x: Tensor, noise: Tensor, lower: Any, upper: Any,
                training: bool) -> np.ndarray:
        self.save("self", x)
        self.save("noise", noise)
        self.save_attr(lower=lower, upper=upper, training=training)
        g = grad.array
        if training and float(upper) - float(lower) > 1e-6:
            return (g * noise.array).astype(g.dtype)
        slope = _rrelu_slope(lower, upper)
        return np.where(x.array > 0, g, g * slope).astype(g.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        a = self.attrs
        g_grad = rrelu_with_noise_backward(gg, self.unpack("self"), self.unpack("noise"),
                                           a["lower"], a["upper"], a["training"]) \
            if self.needs_input_grad(0) else None
        g_x = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_x


class RreluWithNoiseBackward1(_SavesResultInstead, RreluWithNoiseBackward0):
    """rrelu_with_noise_ (in place): saves the result instead of self; its backward is
    rrelu_with_noise_backward(..., is_result=True), whose eval-mode test reads the result's
    sign (the same as self's, the slopes being positive)."""

    __slots__ = ()
    no_forward_ad = "rrelu_with_noise_"  # torch has no forward-mode formula (measured)
    formulas = (local("self", "{noise}", when=(("training", True),)),
                local("self", "1 if {result} > 0 else ({lower} + {upper}) / 2",
                      when=(("training", False),)))

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return rrelu_with_noise_backward(grad, self.unpack("result"), self.unpack("noise"),
                                         a["lower"], a["upper"], a["training"])


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,  # noqa: A002
          training: bool = False, inplace: bool = False, *, generator: Any = None) -> Tensor:
    name = "rrelu_" if inplace else "rrelu"
    lower = number_argument(lower, name, "lower", 2)
    upper = number_argument(upper, name, "upper", 3)
    if inplace:
        return apply_inplace(RreluWithNoiseBackward1, input, lower=lower, upper=upper,
                             training=training, gen=resolve(generator))
    return RreluWithNoiseBackward0.call(input, lower=lower, upper=upper, training=training,
                                        gen=resolve(generator))


def torch_rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,  # noqa: A002
                training: bool = False, generator: Any = None) -> Tensor:
    return rrelu(input, lower, upper, training, generator=generator)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,  # noqa: A002
           training: bool = False, generator: Any = None) -> Tensor:
    """torch.rrelu_ and F.rrelu_ (training defaults to False in both)."""
    return rrelu(input, lower, upper, training, inplace=True, generator=generator)


# dtypes whose CPU kernels `kernels` reproduces element for element (half types compute in
# float32 through torch's reduced-precision paths, evaluated here in float64)
_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_SQRT2 = math.sqrt(2.0)
_BETA = math.sqrt(2.0 / math.pi)  # == M_SQRT2 * M_2_SQRTPI * 0.5, torch's kBeta (bit for bit)
_KAPPA = 0.044715
_GELU_PDF_BETA = 2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5


def _gelu_parts(x: np.ndarray, approximate: str) -> tuple[np.ndarray, np.ndarray]:
    """gelu(x) and gelu'(x), computed in float64."""
    x = x.astype(np.float64)
    if approximate == "tanh":
        u = _BETA * (x + _KAPPA * x ** 3)
        th = np.tanh(u)
        du = _BETA * (1 + 3 * _KAPPA * x * x)
        sech2 = 1 - th * th
        value = 0.5 * x * (1 + th)
        first = 0.5 * (1 + th) + 0.5 * x * sech2 * du
        return value, first
    cdf = 0.5 * (1 + erf64(x / _SQRT2))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return x * cdf, cdf + x * pdf


def _gelu_backward_values(g: np.ndarray, x: np.ndarray, approximate: str) -> np.ndarray:
    """gelu_backward's values: oneDNN's or GeluBackwardKernel's, as torch computes them."""
    if approximate == "tanh" and x.dtype in _KERNEL_DTYPES:
        return kernels.gelu_tanh_backward(g, x)
    exact = kernels.gelu_backward(g, x) if approximate == "none" else None
    if exact is not None:
        return exact
    if x.dtype != np.float64:
        exactness.note("gelu's backward outside oneDNN's path: GeluBackwardKernel's order "
                       "is not reproduced")
    _, first = _gelu_parts(x, approximate)
    return (g * first).astype(g.dtype)


class GeluBackwardBackward0(Function):
    """gelu's backward as an op of its own (inputs grad, self), for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "gelu′({self})"),
                local("self", "{grad_output} × gelu″({self})"))

    def forward(self, grad: Tensor, x: Tensor, approximate: str) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save_attr(approximate=approximate)
        return iterator_layout(_gelu_backward_values(grad.array, x.array, approximate),
                               grad.array, x.array)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, x = self.unpack("grad_output"), self.unpack("self")
        approximate = self.attrs["approximate"]
        g_grad = GeluBackwardBackward0.call(gg, x, approximate=approximate) \
            if self.needs_input_grad(0) else None
        g_x = None
        if self.needs_input_grad(1):
            if approximate == "none":  # torch's gelu_double_backward, op for op
                input_sq = x * x
                pdf = mul_scalar(mul_scalar(input_sq, -0.5).exp(), _GELU_PDF_BETA)
                g_x = gg * grad * (mul_scalar(pdf, 2) - input_sq * pdf)
            else:  # the tanh branch, op for op, so it is differentiable again
                from .arithmetic import pow as pow_
                from .scalar import scalar_div, scalar_sub

                inner = mul_scalar(x + mul_scalar(pow_(x, 3), _KAPPA), _BETA)
                tanh_inner = inner.tanh()
                sech_inner = scalar_div(1, inner.cosh())
                f = mul_scalar(x, 0.5)
                g = scalar_sub(1, tanh_inner * tanh_inner)
                h = mul_scalar(add_scalar(mul_scalar(x, 3 * _KAPPA) * x, 1), _BETA)
                f_prime_gh = mul_scalar(g, 0.5) * h
                g_prime = mul_scalar(sech_inner, 2) * (-sech_inner * tanh_inner) * h
                g_prime_fh = f * h * g_prime
                h_prime = mul_scalar(mul_scalar(x, 6 * _KAPPA), _BETA)
                h_prime_fg = f * g * h_prime
                g_x = gg * grad * (mul_scalar(f_prime_gh, 2) + g_prime_fh + h_prime_fg)
        return g_grad, g_x


class GeluBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "Φ({self}) + {self} × φ({self})", when=(("approximate", "none"),)),
                local("self", "gelu′({self})"))

    def forward(self, a: Tensor, approximate: str = "none") -> np.ndarray:
        if approximate not in ("none", "tanh"):
            raise TorchRuntimeError("approximate argument must be either none or tanh.")
        if not a.dtype.is_floating_point:
            raise not_implemented("GeluKernelImpl", a.dtype)
        self.save("self", a)
        self.save_attr(approximate=approximate)
        if a.array.dtype in _KERNEL_DTYPES:
            return kernels.gelu(a.array, approximate)
        value, _ = _gelu_parts(a.array, approximate)
        return value.astype(a.array.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return GeluBackwardBackward0.call(grad, self.unpack("self"),
                                          approximate=self.attrs["approximate"])

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # auto_element_wise: gelu_backward(self_t, self_p, approximate)
        return GeluBackwardBackward0.call(t[0], inputs[0],
                                          approximate=params.get("approximate", "none"))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    return GeluBackward0.call(input, approximate=approximate)


class SiluBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "σ({self}) × (1 + {self} × (1 - σ({self})))"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("silu_cpu", a.dtype)
        self.save("self", a)
        x = a.array
        if x.dtype in _KERNEL_DTYPES:
            return kernels.silu(x)
        if x.dtype == np.float16:  # the reduced-type kernel: float(x) / (1 + exp(-x)), rounded
            return kernels.silu(x.astype(np.float32)).astype(np.float16)
        with np.errstate(over="ignore"):
            return (x / (np.asarray(1, x.dtype) + precise(np.exp, -x))).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        """torch: grad_output * sigmoid * (1.0 + input * (1.0 - sigmoid)): the silu_backward
        kernel, or its composite (infinitely_differentiable_silu_backward) under create_graph."""
        from .creation import full_like

        x = self.unpack("self")
        if not GRAD_MODE.enabled and x.array.dtype in _KERNEL_DTYPES:
            return Tensor._wrap(kernels.silu_backward(grad.array, x.array))
        if not GRAD_MODE.enabled and x.array.dtype == np.float16:  # in float, rounded
            f32 = np.float32
            return Tensor._wrap(kernels.silu_backward(grad.array.astype(f32),
                                                      x.array.astype(f32)).astype(np.float16))
        s = x.sigmoid()
        right = add_scalar(x * (full_like(s, 1.0) - s), 1.0)  # C++ evaluates this operand first
        return grad * s * right


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return apply_inplace(SiluBackward0, input)
    return SiluBackward0.call(input)


class SoftplusBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "σ({beta} × {self}) if {beta} × {self} ≤ {threshold} else 1"),)

    def forward(self, a: Tensor, beta: Any = 1, threshold: Any = 20) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("softplus_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(beta=beta, threshold=threshold)
        x = a.array
        if x.dtype in _KERNEL_DTYPES:
            return kernels.softplus(x, beta, threshold)
        if x.dtype == np.float16:  # the reduced-type kernel works in float, rounds once
            return kernels.softplus(x.astype(np.float32), beta, threshold).astype(np.float16)
        with np.errstate(over="ignore"):
            soft = precise(np.log1p, precise(np.exp, x * beta)) / beta
        return np.where(x * beta > threshold, x, soft).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        return SoftplusBackwardBackward0.call(grad, self.unpack("self"), beta=self.attrs["beta"],
                                              threshold=self.attrs["threshold"])


class SoftplusBackwardBackward0(Function):
    """softplus_backward(grad_output, self, beta, threshold) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "σ({beta} × {self}) if {beta} × {self} ≤ {threshold} else 1"),
                local("self", "{beta} × {grad_output} × σ′({beta} × {self}) if {beta} × {self} < "
                      "{threshold} else 0"))

    def forward(self, grad: Tensor, x: Tensor, beta: Any, threshold: Any) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save_attr(beta=beta, threshold=threshold)
        if x.array.dtype in _KERNEL_DTYPES:
            return kernels.softplus_backward(grad.array, x.array, beta, threshold)
        if x.array.dtype == np.float16 and grad.array.dtype == np.float16:  # in float, rounded
            f32 = np.float32
            return kernels.softplus_backward(grad.array.astype(f32), x.array.astype(f32), beta,
                                             threshold).astype(np.float16)
        xb = x.array * beta
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.exp(xb)
            return np.where(xb > threshold, grad.array, grad.array * z / (z + 1)).astype(
                grad.array.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .unary import sigmoid_backward

        grad, x = self.unpack("grad_output"), self.unpack("self")
        beta, threshold = self.attrs["beta"], self.attrs["threshold"]
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = SoftplusBackwardBackward0.call(gg, x, beta=beta, threshold=threshold)
        if self.needs_input_grad(1):  # torch's softplus_double_backward(gg * grad_output, ...)
            xb = mul_scalar(x, beta)
            mask = Tensor._wrap((xb.array < threshold).astype(gg.array.dtype))
            g_x = mul_scalar(sigmoid_backward(gg * grad, xb.sigmoid()) * mask, beta)
        return g_grad, g_x


def softplus(input: Tensor, beta: Any = 1, threshold: Any = 20) -> Tensor:  # noqa: A002
    beta = number_argument(beta, "softplus", "beta", 2)
    threshold = number_argument(threshold, "softplus", "threshold", 3)
    return SoftplusBackward0.call(input, beta=beta, threshold=threshold)


class EluBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "{scale} if {self} > 0 else {scale} × {alpha} × {input_scale} × "
                      "exp({input_scale} × {self})"),)

    def forward(self, a: Tensor, alpha: Any = 1.0, scale: Any = 1,
                input_scale: Any = 1) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("elu_cpu", a.dtype)
        self.save("self", a)
        self.save_attr(alpha=alpha, input_scale=input_scale, scale=scale)
        x = a.array
        if x.dtype in _KERNEL_DTYPES:
            return kernels.elu(x, alpha, scale, input_scale)
        with np.errstate(over="ignore"):
            neg = scale * alpha * precise(np.expm1, x * input_scale)
        return np.where(x > 0, scale * x, neg).astype(x.dtype)

    def elu_params(self) -> dict[str, Any]:
        """alpha, scale and input_scale of the elu_backward this node's backward runs."""
        a = self.attrs
        return {"alpha": a["alpha"], "scale": a["scale"], "input_scale": a["input_scale"]}

    def backward(self, grad: Tensor) -> Tensor:
        return EluBackwardBackward0.call(grad, self.unpack("self"), **self.elu_params())


class EluBackwardBackward0(Function):
    """elu_backward(grad_output, ..., self_or_result) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "{scale} if {self_or_result} > 0 else {scale} × {alpha} × "
                      "{input_scale} × exp({input_scale} × {self_or_result})"),
                local("self_or_result", "0 if {self_or_result} > 0 else {grad_output} × {scale} "
                      "× {alpha} × {input_scale}² × exp({input_scale} × {self_or_result})"))

    def forward(self, grad: Tensor, x: Tensor, alpha: Any, scale: Any,
                input_scale: Any) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self_or_result", x)
        self.save_attr(alpha=alpha, input_scale=input_scale, is_result=False, scale=scale)
        g, v = grad.array, x.array
        if v.dtype in _KERNEL_DTYPES:
            return kernels.elu_backward(g, v, alpha, scale, input_scale)
        with np.errstate(over="ignore"):
            neg = g * (input_scale * scale * alpha) * np.exp(v * input_scale)
        return np.where(v > 0, g * scale, neg).astype(g.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, x = self.unpack("grad_output"), self.unpack("self_or_result")
        a = self.attrs
        params = dict(alpha=a["alpha"], scale=a["scale"], input_scale=a["input_scale"])
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = EluBackwardBackward0.call(gg, x, **params)
        if self.needs_input_grad(1):  # torch's elu_double_backward (is_result false)
            mask = Tensor._wrap((x.array < 0).astype(gg.array.dtype))
            inner = mul_scalar(gg * grad, a["input_scale"])
            g_x = EluBackwardBackward0.call(inner, x, **params) * mask
        return g_grad, g_x


class EluBackward1(_SavesResultInstead, EluBackward0):
    """elu_ (in place): saves the result; its backward is elu_backward(is_result=True)."""

    __slots__ = ()
    formulas = (local("self", "{scale} if {result} > 0 else {input_scale} × ({result} + "
                      "{alpha} × {scale})"),)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.elu_params()
        result = self.unpack("result")
        # elu_backward(is_result): grad * input_scale * (result + alpha * scale) where <= 0
        neg = mul_scalar(grad * add_scalar(result, a["alpha"] * a["scale"]), a["input_scale"])
        from .reductions import where

        return where(result > 0, mul_scalar(grad, a["scale"]), neg)


class CeluBackward0(EluBackward0):
    """celu: elu with input_scale 1/alpha (torch saves only alpha); its backward is
    elu_backward with input_scale 1.0 / float(alpha), as derivatives.yaml writes it."""

    __slots__ = ()
    formulas = (local("self", "1 if {self} > 0 else exp({self} / {alpha})"),)

    def forward(self, a: Tensor, alpha: Any = 1.0) -> np.ndarray:  # type: ignore[override]
        out = super().forward(a, alpha, 1, 1.0 / alpha)
        self.attrs = {"alpha": alpha}
        return out

    def elu_params(self) -> dict[str, Any]:
        alpha = self.attrs["alpha"]
        return {"alpha": alpha, "scale": 1, "input_scale": 1.0 / float(np.float32(alpha))}


class CeluBackward1(EluBackward1):
    """celu_ (in place): saves the result and alpha."""

    __slots__ = ()
    formulas = (local("self", "1 if {result} > 0 else {result} / {alpha} + 1"),)
    elu_params = CeluBackward0.elu_params

    def forward(self, a: Tensor, alpha: Any = 1.0) -> np.ndarray:  # type: ignore[override]
        out = super().forward(a, alpha, 1, 1.0 / alpha)
        self.attrs = {"alpha": alpha}
        return out


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    alpha = number_argument(alpha, "celu_" if inplace else "celu", "alpha", 2)
    if alpha == 0:
        raise TorchRuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return apply_inplace(CeluBackward1, input, alpha=alpha)
    return CeluBackward0.call(input, alpha=alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return celu(input, alpha, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    alpha = number_argument(alpha, "elu_" if inplace else "elu", "alpha", 2)
    if inplace:
        return apply_inplace(EluBackward1, input, alpha=alpha)
    return EluBackward0.call(input, alpha=alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """torch: elu(input, alpha, scale) with selu's constants (EluBackward0)."""
    node = EluBackward1 if inplace else EluBackward0
    if inplace:
        return apply_inplace(node, input, alpha=_SELU_ALPHA, scale=_SELU_SCALE)
    return node.call(input, alpha=_SELU_ALPHA, scale=_SELU_SCALE)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    """F.selu_ / torch.selu_: selu in place (EluBackward1)."""
    return selu(input, inplace=True)


def elu_(input: Tensor, alpha: Any = 1) -> Tensor:  # noqa: A002
    return apply_inplace(EluBackward1, input, alpha=number_argument(alpha, "elu_", "alpha", 2))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    return leaky_relu(input, negative_slope, inplace=True)


# -- logsigmoid, softsign, tanhshrink, mish, glu, softmin --------------------------------


class LogSigmoidBackward0(Function):
    """log_sigmoid_forward: saves self and the buffer exp(-|x|) its backward uses."""

    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "1 - σ({self})"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("log_sigmoid_forward_cpu", a.dtype)
        out, buffer = kernels.log_sigmoid(a.array)
        self.save("buffer", Tensor._wrap(buffer))
        self.save("self", a)
        return out

    def backward(self, grad: Tensor) -> Tensor:
        return LogSigmoidBackwardBackward0.call(grad, self.unpack("self"),
                                                buffer=self.unpack("buffer"))


class LogSigmoidBackwardBackward0(Function):
    """log_sigmoid_backward(grad_output, self, buffer) as an op."""

    __slots__ = ()
    formulas = (local("grad_output", "1 - σ({self})"),
                local("self", "-{grad_output} × σ({self}) × (1 - σ({self}))"))

    def forward(self, grad: Tensor, a: Tensor, buffer: Tensor) -> np.ndarray:
        self.save("buffer", buffer)
        self.save("grad_output", grad)
        self.save("self", a)
        x, b, g = a.array, buffer.array, grad.array
        one = np.asarray(1, g.dtype)
        # ATen: x < 0 ? 1 - b / (1 + b) : b / (1 + b), times grad
        frac = b / (one + b)
        # (grad_input is empty_like(grad_output): grad's layout)
        return iterator_layout((np.where(x < 0, one - frac, frac) * g).astype(g.dtype), g)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        x = self.unpack("self")
        g_grad = g_self = None
        if self.needs_input_grad(1):  # log_sigmoid_double_backward(gg * grad_output, self)
            z = x.sigmoid()
            g_self = (gg * self.unpack("grad_output")) * sub_scalar(z, 1) * z
        if self.needs_input_grad(0):
            g_grad = LogSigmoidBackwardBackward0.call(gg, x, buffer=self.unpack("buffer"))
        return g_grad, g_self


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return LogSigmoidBackward0.call(input)


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """torch: input / (input.abs() + 1)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """torch: input - input.tanh()."""
    return input - input.tanh()


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3,  # noqa: A002
            dtype: Any = None) -> Tensor:
    """torch: (-input).softmax(dim)."""
    from .softmax import implicit_dim, softmax

    if dim is None:
        dim = implicit_dim("softmin", input, _stacklevel)
    return softmax(-input, dim, dtype=dtype)


class MishBackward0(Function):
    __slots__ = ()
    jvp = auto_element_wise  # derivatives.yaml: result: auto_element_wise
    formulas = (local("self", "tanh(softplus({self})) + {self} × σ({self}) × "
                              "(1 - tanh(softplus({self}))²)"),)

    def forward(self, a: Tensor) -> np.ndarray:
        if not a.dtype.is_floating_point:
            raise not_implemented("mish_cpu", a.dtype)
        self.save("self", a)
        x = a.array
        if x.dtype in _KERNEL_DTYPES:
            return kernels.mish(x)
        with np.errstate(over="ignore"):  # mish_kernel: x * tanh(log1p(exp(x)))
            return (x * np.tanh(np.log1p(np.exp(x)))).astype(x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        """infinitely_differentiable_mish_backward: grad * (tanh(softplus(x)) +
        x * sigmoid(x) * (1 - tanh(softplus(x))^2))."""
        from .scalar import scalar_sub

        x = self.unpack("self")
        if not GRAD_MODE.enabled and x.array.dtype in _KERNEL_DTYPES:  # mish_backward's kernel
            return Tensor._wrap(kernels.mish_backward(grad.array, x.array))
        sig = x.sigmoid()
        tanh_sp = x.exp().log1p().tanh()
        return grad * (tanh_sp + x * sig * scalar_sub(1.0, tanh_sp * tanh_sp))


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    if inplace:
        return apply_inplace(MishBackward0, input)
    return MishBackward0.call(input)


def _halves(x: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    n = x.shape[d] // 2
    lead = (slice(None),) * d
    return x[lead + (slice(0, n),)], x[lead + (slice(n, None),)]


class GluBackward0(Function):
    __slots__ = ()
    # {self}₁, {self}₂: the halves along dim (glu is {self}₁ × σ({self}₂))
    formulas = (vjp("self", "cat([{grad} × σ({self}₂), {grad} × {self}₁ × σ′({self}₂)], {dim})"),)

    def forward(self, a: Tensor, dim: int) -> np.ndarray:
        from ..shapes import wrap_dim
        from .views import saved_int

        if a.array.ndim == 0:
            raise TorchRuntimeError("glu does not support scalars because halving size must be "
                                    "even")
        d = wrap_dim(dim, a.array.ndim)
        if a.array.shape[d] % 2:
            raise TorchRuntimeError(
                f"Halving dimension must be even, but dimension {d} is size {a.array.shape[d]}")
        self.save_attr(dim=saved_int(dim))
        self.save("self", a)
        first, second = _halves(a.array, d)
        # glu_kernel: a * (1 / (1 + exp(-b))), sigmoid_kernel's formula over the same split
        return first * kernels.unary("sigmoid", second)

    def backward(self, grad: Tensor) -> Tensor:
        from .views import signed

        return GluBackwardBackward0.call(grad, self.unpack("self"), dim=signed(self.attrs["dim"]))


class GluBackwardBackward0(Function):
    """glu_backward(grad_output, self, dim) as an op."""

    __slots__ = ()
    formulas = (vjp("grad_output", "{grad}₁ × σ({self}₂) + {grad}₂ × {self}₁ × σ′({self}₂)"),
                vjp("self", "cat([{grad}₂ × {grad_output} × σ′({self}₂), ({grad}₂ × {self}₁ × "
                    "σ″({self}₂) + {grad}₁ × σ′({self}₂)) × {grad_output}], {dim})"))

    def forward(self, grad: Tensor, a: Tensor, dim: int) -> np.ndarray:
        from ..shapes import wrap_dim
        from .views import saved_int

        self.save_attr(dim=saved_int(dim))
        self.save("grad_output", grad)
        self.save("self", a)
        d = wrap_dim(dim, a.array.ndim)
        first, second = _halves(a.array, d)
        g = grad.array.astype(a.array.dtype, copy=False)
        # glu_backward_cpu_out: sig = sigmoid(second half); the second half's gradient is
        # glu_backward_kernel's (1 - sig) * sig * first * grad, then the first's sig * grad
        sig = kernels.unary("sigmoid", second)
        one = sig.dtype.type(1)
        return np.concatenate([sig * g, (one - sig) * sig * first * g], axis=d)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """torch's glu_double_backward and glu_double_backward_grad_output, op for op."""
        from ..shapes import wrap_dim
        from .creation import ones
        from .joins import cat
        from .scalar import scalar_sub
        from .views import signed

        x, grad = self.unpack("self"), self.unpack("grad_output")
        d = wrap_dim(signed(self.attrs["dim"]), x.ndim)
        n = x.shape[d] // 2
        g_grad = g_x = None
        if self.needs_input_grad(1):
            first, second = x.narrow(d, 0, n), x.narrow(d, n, n)
            sig = second.sigmoid()
            one_sub_sig = scalar_sub(1, sig)
            sig_one_sub_sig = sig * one_sub_sig
            gg_first, gg_second = gg.narrow(d, 0, n), gg.narrow(d, n, n)
            gg_second_first = gg_second * first
            gi_first = gg_second * grad * sig_one_sub_sig
            second_order = sig_one_sub_sig * one_sub_sig - sig * sig_one_sub_sig
            gi_second = gg_second_first * grad * second_order + gg_first * grad * sig_one_sub_sig
            g_x = cat([gi_first, gi_second], d)
        if self.needs_input_grad(0):
            sizes = list(x.shape)
            sizes[d] //= 2
            tmp = gg * GluBackwardBackward0.call(ones(*sizes, dtype=x.dtype), x, dim=d)
            g_grad = tmp.narrow(d, 0, n) + tmp.narrow(d, n, n)
        return g_grad, g_x


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    return GluBackward0.call(input, dim=dim)
