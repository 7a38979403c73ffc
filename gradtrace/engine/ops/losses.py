"""torch.nn.functional's losses, recording torch's nodes.

Composite losses (l1_loss, cross_entropy) are built from the ops torch builds them from,
so their graphs show the same chain of nodes.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import ScriptError, TorchRuntimeError, TorchValueError
from .. import dtypes, glibc, kernels, pointwise
from ..formulas import PRESENT, Formula, local
from ..node import Function
from ..shapes import Size, broadcast_shapes
from ..tensor import Tensor, bump_version, type_name
from . import stacking
from ._util import cast, not_differentiable, not_implemented
from .activations import logsigmoid
from .arithmetic import sub_check
from .creation import WARNINGS, OnceWarning
from .reductions import mean_array, sum_array
from .scalar import add_scalar, div_scalar, mul_scalar
from .unary import logit
from .views import ExpandBackward0, warn

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
MEAN = (("reduction", REDUCTIONS["mean"]),)


def _weighted(formula: Formula) -> tuple[Formula, ...]:
    """A loss's local derivative as torch applies it: times `weight` when one is given,
    divided by the number of elements for reduction='mean' (most specific first)."""
    out = []
    for weighted in (True, False):
        for mean in (True, False):
            math = f"{{weight}} × ({formula.math})" if weighted else f"({formula.math})"
            if mean:
                math += " / {self}.numel()"
            elif not weighted:
                math = formula.math
            when = formula.when + ((("weight", PRESENT if weighted else None),)
                                   + (MEAN if mean else ()))
            out.append(replace(formula, math=math, when=when))
    return tuple(out)


ELEMENTWISE_MEAN_WARNING = ("UserWarning: reduction='elementwise_mean' is deprecated. Please "
                            "use reduction='mean' instead.")


def reduction_code(reduction: str) -> int:
    """torch's `_Reduction.get_enum`: the Reduction enum for a reduction string (its message
    for a bad one); the old 'elementwise_mean' is 'mean' with torch's warning (CenterNet's
    losses pass it; torch attributes the warning to the line of functional.py that asked, shown
    here once a run)."""
    if reduction == "elementwise_mean":
        WARNINGS.append(OnceWarning(ELEMENTWISE_MEAN_WARNING, "get_enum"))
        return REDUCTIONS["mean"]
    if reduction not in REDUCTIONS:
        raise TorchValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def check_reduction(reduction: str) -> None:
    """The losses torch checks in Python first (poisson_nll_loss,
    triplet_margin_with_distance_loss): 'none', 'mean' or 'sum', not 'elementwise_mean'."""
    if reduction not in REDUCTIONS:
        raise TorchValueError(f"{reduction} is not a valid value for reduction")


def legacy_reduction(size_average: Any, reduce: Any, reduction: str, where: str) -> str:
    """torch's `_Reduction.legacy_get_string`: the reduction the deprecated `size_average` /
    `reduce` arguments mean (both None: `reduction` itself), with its warning (located in
    torch's `where`, so shown once per run)."""
    if size_average is None and reduce is None:
        return reduction
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    WARNINGS.append(OnceWarning(
        "UserWarning: size_average and reduce args will be deprecated, please use "
        f"reduction='{ret}' instead.", where))
    return ret


# -- helpers ---------------------------------------------------------------------------


def _size_warning(input: Tensor, target: Tensor) -> None:  # noqa: A002
    """torch.nn.functional's `if not (target.size() == input.size()): warnings.warn(...)`:
    a target (then an input) that is no tensor fails its `.size()`."""
    for value in (target, input):
        if not isinstance(value, Tensor):
            raise ScriptError(f"'{type_name(value)}' object has no attribute 'size'",
                              kind="AttributeError")
    if target.shape != input.shape:
        warn(f"Using a target size ({Size(target.shape)!r}) that is different to the input size "
             f"({Size(input.shape)!r}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.")


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    shape = broadcast_shapes(a.shape, b.shape)
    if a.shape != shape:
        a = ExpandBackward0.call(a, shape=shape)
    if b.shape != shape:
        b = ExpandBackward0.call(b, shape=shape)
    return a, b


def _reduce(loss: np.ndarray, reduction: int) -> np.ndarray:
    """apply_loss_reduction: the loss tensor's mean() or sum(), in torch's order."""
    dtype = dtypes.from_numpy(loss.dtype)
    if reduction == 1:
        return mean_array(loss, (), False, dtype)
    if reduction == 2:
        return sum_array(loss, (), False, dtype)
    return loss


def _scale_grad(grad: Tensor, reduction: int, numel: int) -> Tensor:
    return div_scalar(grad, numel) if reduction == 1 else grad  # torch: grad_input.div_(numel)


class MseLossBackward0(Function):
    __slots__ = ()
    formulas = (local("self", "2 × ({self} - {target}) / {self}.numel()", when=MEAN),
                local("self", "2 × ({self} - {target})"),
                local("target", "-2 × ({self} - {target}) / {self}.numel()", when=MEAN),
                local("target", "-2 × ({self} - {target})"))

    def forward(self, a: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        dtype = dtypes.promote(a.dtype, target.dtype)
        if not dtype.is_floating_point:
            raise not_implemented("mse_cpu", dtype)
        self.save("self", a)
        self.save("target", target)
        self.save_attr(reduction=reduction)
        diff = cast(a.array, dtype) - cast(target.array, dtype)
        # mse_stub's TensorIterator lays the loss out by its operands, and mean walks it so
        return _reduce(pointwise.iterator_layout(diff * diff, a.array, target.array),
                       reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, target = self.unpack("self"), self.unpack("target")
        reduction = self.attrs["reduction"]
        g_x = g_t = None
        if self.needs_input_grad(0):
            g_x = MseLossBackwardBackward0.call(grad, x, target, reduction=reduction)
        if self.needs_input_grad(1):  # torch: mse_loss_backward(grad, target, self, reduction)
            g_t = MseLossBackwardBackward0.call(grad, target, x, reduction=reduction)
        return g_x, g_t

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # apply_loss_reduction(mse_loss_backward(self_t, self_p, target_p, None)
        #                      + mse_loss_backward(target_t, target_p, self_p, None), reduction)
        x, target = inputs
        product = (MseLossBackwardBackward0.call(t[0], x, target, reduction=0)
                   + MseLossBackwardBackward0.call(t[1], target, x, reduction=0))
        reduction = params["reduction"]
        return product.mean() if reduction == 1 else product.sum() if reduction == 2 \
            else product


class MseLossBackwardBackward0(Function):
    """mse_loss_backward(grad_output, self, target, reduction) as an op, for create_graph."""

    __slots__ = ()
    formulas = (local("grad_output", "2 × ({self} - {target}) / {self}.numel()", when=MEAN),
                local("grad_output", "2 × ({self} - {target})"),
                local("self", "2 × {grad_output} / {self}.numel()", when=MEAN),
                local("self", "2 × {grad_output}"),
                local("target", "-2 × {grad_output} / {self}.numel()", when=MEAN),
                local("target", "-2 × {grad_output}"))

    def forward(self, grad: Tensor, x: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("target", target)
        self.save_attr(reduction=reduction)
        # mse_loss_backward_out's TensorIterator promotes its inputs to their common dtype
        # (double for a float64 target beside a float32 self); mse_backward_cpu_kernel
        # computes norm * (self - target) * grad in it, norm = 2 (/ numel) as that dtype,
        # and the result is cast into grad_input, zeros_like(self)
        common = dtypes.result_type([(t.dtype, t.ndim) for t in (x, target, grad)], [])
        norm = common.np.type(2.0 / x.array.size if reduction == 1 else 2.0)
        out = norm * (cast(x.array, common) - cast(target.array, common)) * cast(grad.array,
                                                                                   common)
        return np.asarray(out, dtype=x.array.dtype)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # mse_loss_double_backward(self_t * grad_output_p, self_p, reduction)
        #   - mse_loss_double_backward(target_t * grad_output_p, target_p, reduction)
        #   + mse_loss_backward(grad_output_t, self_p, target_p, reduction)
        grad, x, target = inputs
        reduction = params["reduction"]

        def double(g: Tensor) -> Tensor:
            out = mul_scalar(g, 2)
            return div_scalar(out, x.array.size) if reduction == 1 else out
        return (double(t[1] * grad) - double(t[2] * grad)
                + MseLossBackwardBackward0.call(t[0], x, target, reduction=reduction))

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        grad, x, target = (self.unpack("grad_output"), self.unpack("self"),
                           self.unpack("target"))
        reduction = self.attrs["reduction"]
        g_grad = g_x = g_t = None
        if self.needs_input_grad(0):  # torch's mse_loss_double_backward_grad_output
            if reduction == 0:
                g_grad = MseLossBackwardBackward0.call(gg, x, target, reduction=reduction)
            else:
                from .creation import ones_like

                r = MseLossBackwardBackward0.call(ones_like(grad), x, target, reduction=reduction)
                g_grad = (r * gg).sum()
        if self.needs_input_grad(1) or self.needs_input_grad(2):
            both = mul_scalar(gg * grad, 2)  # torch's mse_loss_double_backward
            if reduction == 1:
                both = div_scalar(both, x.array.size)
            g_x = both if self.needs_input_grad(1) else None
            g_t = -both if self.needs_input_grad(2) else None
        return g_grad, g_x, g_t


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
             reduce: Any = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "mse_loss")
    _size_warning(input, target)
    code = reduction_code(reduction)
    a, b = _broadcast_pair(input, target)
    return MseLossBackward0.call(a, b, reduction=code)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
            reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Composite in torch: (input - target).abs() then mean / sum."""
    reduction = legacy_reduction(size_average, reduce, reduction, "l1_loss")
    _size_warning(input, target)
    code = reduction_code(reduction)
    a, b = _broadcast_pair(input, target)
    loss = (a - b).abs()
    if code == 1:
        return loss.mean()
    if code == 2:
        return loss.sum()
    return loss


_BCE_EPS = 1e-12


class BinaryCrossEntropyBackward0(Function):
    __slots__ = ()
    formulas = (*_weighted(local('self', '({self} - {target}) / ({self} × (1 - {self}))')),
                *_weighted(local('target', 'ln(1 - {self}) - ln({self})')))

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None,
                reduction: int) -> np.ndarray:
        x, t_ = a.array, target.array
        if a.dtype is not target.dtype:
            raise TorchRuntimeError(
                f"Found dtype {target.dtype.scalar_type} but expected "
                f"{a.dtype.scalar_type}")
        # ATen checks (x >= 0 && x <= 1), then the same of the target, element by element:
        # NaN fails, and the first failing element names which
        bad_x = ~((x >= 0) & (x <= 1))
        bad_t = ~((t_ >= 0) & (t_ <= 1))
        bad = np.broadcast_to(bad_x | bad_t, np.broadcast_shapes(x.shape, t_.shape))
        if bad.any():
            first = np.unravel_index(int(np.argmax(bad)), bad.shape)
            what = "input" if np.broadcast_to(bad_x, bad.shape)[first] else "target"
            raise TorchRuntimeError(f"all elements of {what} should be between 0 and 1")
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        loss = _bce_values(x, t_)
        if weight is not None:  # loss.mul_(weight): the input's dtype kept
            loss = _step(np.multiply, loss, a.dtype, weight.array, weight.dtype)
        return _reduce(loss, reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:

        x, t_ = self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        g_x = g_t = None
        if self.needs_input_grad(0):
            g_x = BinaryCrossEntropyBackwardBackward0.call(grad, x, t_, weight=weight,
                                                           reduction=reduction)
        if self.needs_input_grad(1):  # binary_cross_entropy_target_backward
            g_t = -logit(x) * grad
            if weight is not None:
                g_t = g_t * weight
            g_t = _scale_grad(g_t, reduction, t_.numel())
        return g_x, g_t


class BinaryCrossEntropyBackwardBackward0(Function):
    """binary_cross_entropy_backward(grad_output, self, target, weight) as an op."""

    __slots__ = ()
    formulas = (*_weighted(local('grad_output', '({self} - {target}) / ({self} × (1 - {self}))')),
                *_weighted(local("self", "{grad_output} × ({self}² - 2 × {self} × {target} + "
                                "{target}) / ({self}² × (1 - {self})²)")),
                *_weighted(local('target', '-{grad_output} / ({self} × (1 - {self}))')))

    def forward(self, grad: Tensor, x: Tensor, target: Tensor, weight: Tensor | None,
                reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        v, t_ = x.array, target.array
        one, eps = v.dtype.type(1), v.dtype.type(_BCE_EPS)
        # binary_cross_entropy_backward_out_cpu: grad * (x - t) / max((1 - x) * x, EPSILON),
        # then grad_input.mul_(weight) and .div_(numel) for 'mean'
        with np.errstate(all="ignore"):
            out = grad.array.astype(v.dtype) * (v - t_) / np.maximum((one - v) * v, eps)
            if weight is not None:  # grad_input.mul_(weight)
                out = _step(np.multiply, out, x.dtype, weight.array, weight.dtype)
            if reduction == 1:
                out = out / v.dtype.type(v.size)
        return np.asarray(out, dtype=v.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        from .creation import full_like

        grad, x, t_ = self.unpack("grad_output"), self.unpack("self"), self.unpack("target")
        weight = self.unpack("weight")
        reduction = self.attrs["reduction"]
        g_grad = g_x = None
        if self.needs_input_grad(0):
            g_grad = BinaryCrossEntropyBackwardBackward0.call(gg, x, t_, weight=weight,
                                                              reduction=reduction)
        if self.needs_input_grad(1):  # torch's binary_cross_entropy_double_backward
            inp_pl_eps = add_scalar(x, _BCE_EPS)
            one_m_inp_pl_eps = add_scalar(full_like(x, 1) - x, _BCE_EPS)
            g_x = (x * x - mul_scalar(x, 2) * t_ + t_) / (inp_pl_eps.pow(2)
                                                           * one_m_inp_pl_eps.pow(2))
            g_x = g_x * (gg * grad)
            if weight is not None:
                g_x = g_x * weight
            if reduction == 1:
                g_x = div_scalar(g_x, x.array.size)
        g_t = None
        if self.needs_input_grad(2):  # torch's binary_cross_entropy_double_backward_target
            g_t = -gg * grad
            if weight is not None:
                g_t = g_t * weight
            denom = (full_like(x, 1) - x) * x
            np.maximum(denom.array, _BCE_EPS, out=denom.array)  # clamp_min_ under no_grad
            bump_version(denom)
            g_t = g_t / denom
            if reduction == 1:
                g_t = div_scalar(g_t, t_.array.size)
        return g_grad, g_x, g_t


def _bce_values(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """binary_cross_entropy_out_cpu's scalar kernel (Loss.cpp, built without FMA):
    (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100) with libm's logf and log1pf."""
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            log_x, log_1mx = glibc.logf(x), glibc.log1pf(-x)
        else:
            log_x, log_1mx = np.log(x), np.log1p(-x)
        low = x.dtype.type(-100)
        one = x.dtype.type(1)
        return (t - one) * np.maximum(log_1mx, low) - t * np.maximum(log_x, low)


def binary_cross_entropy(input: Tensor, target: Tensor,  # noqa: A002
                         weight: Tensor | None = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "binary_cross_entropy")
    code = reduction_code(reduction)
    if target.shape != input.shape:
        raise TorchValueError(
            f"Using a target size ({Size(target.shape)!r}) that is different to the input size "
            f"({Size(input.shape)!r}) is deprecated. Please ensure they have the same size.")
    if weight is not None:  # torch.broadcast_shapes's message; the kernel writes a loss of
        # the input's shape (TensorIterator's output check)
        shape = tuple(stacking.broadcast_shapes(Size(target.shape), Size(weight.shape)))
        if weight.shape != shape:
            weight = ExpandBackward0.call(weight, shape=shape)
        _in_place_broadcast(input.shape, shape)
    not_differentiable("binary_cross_entropy", "weight", weight)
    return BinaryCrossEntropyBackward0.call(input, target, weight=weight, reduction=code)


class BinaryCrossEntropyWithLogitsBackward0(Function):
    __slots__ = ()
    formulas = (*_weighted(local("self", "(1 + ({pos_weight} - 1) × {target}) × σ({self}) - "
                                "{pos_weight} × {target}",
                                when=(("pos_weight", PRESENT),))),
                *_weighted(local('self', 'σ({self}) - {target}')),
                *_weighted(local("target", "-{self} - ({pos_weight} - 1) × ln(σ({self}))",
                                when=(("pos_weight", PRESENT),))),
                *_weighted(local('target', '-{self}')))

    def forward(self, a: Tensor, target: Tensor, weight: Tensor | None,
                pos_weight: Tensor | None, reduction: int) -> np.ndarray:
        x, t_ = a.array, target.array
        self.save("pos_weight", pos_weight)
        self.save("self", a)
        self.save("target", target)
        self.save("weight", weight)
        self.save_attr(reduction=reduction)
        with np.errstate(all="ignore"):
            log_sigmoid = kernels.log_sigmoid(x)[0]
            _bce_logits_target_check(a, target)
            if pos_weight is not None:  # log_sigmoid_input.mul_(log_weight), log_weight =
                pw = pos_weight.array  # (pos_weight - 1).mul(target).add_(1), out of place
                _in_place_broadcast(x.shape, broadcast_shapes(pw.shape, t_.shape))
                log_weight = _step(np.subtract, pw, pos_weight.dtype, pw.dtype.type(1))
                log_weight = _step(np.multiply, log_weight, pos_weight.dtype, t_, target.dtype,
                                   in_place=False)
                log_weight = log_weight + log_weight.dtype.type(1)
                log_sigmoid = _step(np.multiply, log_sigmoid, a.dtype, log_weight,
                                    dtypes.from_numpy(log_weight.dtype))
            # (1 - target).mul_(input).sub_(log_sigmoid_input), then .mul_(weight): in place on
            # `1 - target` (empty_like(target).fill_(1).sub_(target)), so in its dtype
            loss = _step(np.multiply, t_.dtype.type(1) - t_, target.dtype, x, a.dtype)
            loss = _step(np.subtract, loss, target.dtype, log_sigmoid, a.dtype)
            if weight is not None:
                _in_place_broadcast(loss.shape, weight.array.shape)
                loss = _step(np.multiply, loss, target.dtype, weight.array, weight.dtype)
        return _reduce(loss, reduction)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, t_ = self.unpack("self"), self.unpack("target")
        weight, pos_weight = self.unpack("weight"), self.unpack("pos_weight")
        reduction = self.attrs["reduction"]
        s = x.sigmoid()
        g_x = g_t = None
        if self.needs_input_grad(0):
            if pos_weight is not None:
                pt = pos_weight * t_
                g_x = (add_scalar(pt, 1) - t_) * s - pt
            else:
                g_x = s - t_
            g_x = g_x * grad
            if weight is not None:
                g_x = g_x * weight
            g_x = _scale_grad(g_x, reduction, x.numel())
        if self.needs_input_grad(1):  # binary_cross_entropy_with_logits_target_backward
            if pos_weight is not None:
                g_t = logsigmoid(-x) - logsigmoid(x) * pos_weight
            else:
                g_t = -x
            g_t = g_t * grad
            if weight is not None:
                g_t = g_t * weight
            g_t = _scale_grad(g_t, reduction, t_.numel())
        return g_x, g_t


def _step(ufunc: np.ufunc, a: np.ndarray, a_dtype: dtypes.DType, b: Any,
          b_dtype: dtypes.DType | None = None, in_place: bool = True) -> np.ndarray:
    """One of torch's steps `a.op_(b)` (or `a.op(b)`): computed in the operands' result
    type, an in-place result kept in `a`'s dtype (a Python number `b` takes no part in the
    type)."""
    ranked = [(a_dtype, a.ndim)] + ([] if b_dtype is None else [(b_dtype, np.ndim(b))])
    common = dtypes.result_type(ranked, []).np
    out = ufunc(a.astype(common, copy=False), np.asarray(b).astype(common))
    return np.asarray(out, dtype=a.dtype if in_place else common)


def _in_place_broadcast(shape: tuple[int, ...], other: tuple[int, ...]) -> None:
    """TensorIterator's shape checks of an in-place `a.op_(b)` on an `a` of `shape`: the
    operands broadcast, into `a`'s shape."""
    result = broadcast_shapes(shape, other)
    if result != tuple(shape):
        raise TorchRuntimeError(
            f"output with shape [{', '.join(map(str, shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, result))}]")


def _bce_logits_target_check(a: Tensor, target: Tensor) -> None:
    """torch computes the loss in place on `1 - target`: a bool target fails that
    subtraction, an integral one the in-place multiplication by the floating input."""
    if target.dtype is dtypes.bool_:
        sub_check(target, target)
    common = dtypes.promote(target.dtype, a.dtype)
    if common.is_floating_point and not target.dtype.is_floating_point:
        raise TorchRuntimeError(f"result type {common.scalar_type} can't be cast to the "
                                f"desired output type {target.dtype.scalar_type}")


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction,
                                 "binary_cross_entropy_with_logits")
    code = reduction_code(reduction)
    if target.shape != input.shape:
        raise TorchValueError(
            f"Target size ({Size(target.shape)!r}) must be the same as input size "
            f"({Size(input.shape)!r})")
    return torch_binary_cross_entropy_with_logits(input, target, weight, pos_weight, code)


def torch_binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                           weight: Tensor | None = None,
                                           pos_weight: Tensor | None = None,
                                           reduction: int = 0) -> Tensor:
    """The native op (torch.*'s parser reads the default reduction, at::Reduction::Mean, as
    0: measured)."""
    not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return BinaryCrossEntropyWithLogitsBackward0.call(input, target, weight=weight,
                                                      pos_weight=pos_weight, reduction=reduction)


# -- smooth_l1_loss, huber_loss, soft_margin_loss -----------------------------------------


def _with_mean(formula: Formula) -> tuple[Formula, Formula]:
    """A loss's local derivative divided by the number of elements for reduction='mean'."""
    return (replace(formula, math=f"({formula.math}) / {{self}}.numel()", when=MEAN), formula)


_SMOOTH_L1 = ("({self} - {target}) / {beta} if |{self} - {target}| < {beta} else "
              "sgn({self} - {target})")
_HUBER = "({self} - {target}).clamp(-{delta}, {delta})"


def _pointwise_loss_values(kind: str, d: np.ndarray, param: float) -> np.ndarray:
    """The per-element loss of `d = self - target` (smooth_l1_kernel, huber_kernel: the
    vector and scalar formulas round alike)."""
    z = np.abs(d)
    half, p = d.dtype.type(0.5), d.dtype.type(param)
    if kind == "smooth_l1":
        return np.where(z < p, half * z * z / p, z - half * p).astype(d.dtype)
    return np.where(z < p, half * z * z, p * (z - half * p)).astype(d.dtype)


def _pointwise_loss_slope(kind: str, x: np.ndarray, target: np.ndarray, grad: np.ndarray,
                          param: float, norm: float) -> np.ndarray:
    """smooth_l1_backward_cpu_kernel / huber_backward_cpu_kernel (PointwiseOpsKernel.cpp):
    their vector and scalar lambdas multiply in different orders."""
    dtype = x.dtype.type
    p, n, one = dtype(param), dtype(norm), dtype(1)

    def vector(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> np.ndarray:
        d = a - b
        sign = np.where(d > 0, one, -one)
        if kind == "smooth_l1":
            return n * np.where(np.abs(d) >= p, sign, d / p) * g
        return n * np.where(np.abs(d) >= p, sign * p, d) * g

    def scalar(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> np.ndarray:
        # the scalar lambdas compare with, and divide or multiply by, the double parameter
        d = a - b
        if kind == "smooth_l1":
            inside = ((n * d * g).astype(np.float64) / param).astype(x.dtype)
            return np.where(d <= -param, -n * g, np.where(d >= param, n * g, inside))
        low = ((-n * g).astype(np.float64) * param).astype(x.dtype)
        high = ((n * g).astype(np.float64) * param).astype(x.dtype)
        return np.where(d <= -param, low, np.where(d >= param, high, n * d * g))

    with np.errstate(all="ignore"):
        return pointwise.apply_many([x, target, grad.astype(x.dtype, copy=False)], vector,
                                    scalar)


class _PointwiseLoss(Function):
    """smooth_l1_loss / huber_loss (inputs self, target) with their parameter."""

    __slots__ = ()
    kind = "smooth_l1"
    param_name = "beta"

    def forward(self, a: Tensor, target: Tensor, reduction: int, param: float) -> np.ndarray:
        self.save_attr(**{self.param_name: param, "reduction": reduction})
        self.save("self", a)
        self.save("target", target)
        # TensorIterator's common dtype (float32 and an integral target: float32); huber_loss
        # writes it into empty_like(input), smooth_l1_loss (structured) keeps it
        common = dtypes.result_type([(a.dtype, a.ndim), (target.dtype, target.ndim)], [])
        d = a.array.astype(common.np, copy=False) - target.array.astype(common.np, copy=False)
        values = _pointwise_loss_values(self.kind, d, param)
        if self.kind == "huber" and common is not a.dtype:
            if common.is_floating_point and not a.dtype.is_floating_point:
                raise TorchRuntimeError(f"result type {common.scalar_type} can't be cast to "
                                        f"the desired output type {a.dtype.scalar_type}")
            values = values.astype(a.dtype.np)
        return _reduce(values, reduction)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # apply_loss_reduction(X_loss_backward(self_t, self_p, target_p, None, param)
        #   + X_loss_backward(target_t, target_p, self_p, None, param), reduction)
        x, target = inputs
        back = _LOSS_BACKWARD[type(self)]
        param = params["param"]
        product = (back.call(t[0], x, target, reduction=0, param=param)
                   + back.call(t[1], target, x, reduction=0, param=param))
        reduction = params["reduction"]
        return product.mean() if reduction == 1 else product.sum() if reduction == 2 \
            else product

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, t = self.unpack("self"), self.unpack("target")
        a = self.attrs
        back = _LOSS_BACKWARD[type(self)]
        params = dict(reduction=a["reduction"], param=a[self.param_name])
        g_x = back.call(grad, x, t, **params) if self.needs_input_grad(0) else None
        g_t = back.call(grad, t, x, **params) if self.needs_input_grad(1) else None
        return g_x, g_t


class _PointwiseLossBackward(Function):
    """`<loss>_backward(grad_output, self, target, reduction, param)` as an op."""

    __slots__ = ()
    kind = "smooth_l1"
    param_name = "beta"

    def forward(self, grad: Tensor, a: Tensor, target: Tensor, reduction: int,
                param: float) -> np.ndarray:
        self.save_attr(**{self.param_name: param})
        self.save("grad_output", grad)
        self.save_attr(reduction=reduction)
        self.save("self", a)
        self.save("target", target)
        norm = 1.0 / a.array.size if reduction == 1 else 1.0
        if self.kind == "huber":  # huber_loss_backward_out's TensorIterator does not
            for t in (target, grad):  # promote: its operands must share self's dtype
                if t.dtype is not a.dtype:
                    raise TorchRuntimeError(f"Found dtype {t.dtype.scalar_type} but "
                                            f"expected {a.dtype.scalar_type}")
        # smooth_l1_loss_backward_out's TensorIterator promotes the operands to their common
        # dtype, computes in it and casts into grad_input, zeros_like(self,
        # LEGACY_CONTIGUOUS_MEMORY_FORMAT)
        common = dtypes.result_type([(t.dtype, t.ndim) for t in (a, target, grad)], [])
        slope = _pointwise_loss_slope(self.kind, cast(a.array, common), cast(target.array, common),
                                      cast(grad.array, common), param, norm)
        return np.asarray(slope, dtype=a.array.dtype, order="C")

    def backward(self, gg: Tensor) -> tuple[Tensor | None, ...]:
        x, t, grad = self.unpack("self"), self.unpack("target"), self.unpack("grad_output")
        a = self.attrs
        param, reduction = a[self.param_name], a["reduction"]
        g_grad = g_x = g_t = None
        if self.needs_input_grad(0):
            if self.kind == "huber" and reduction != 0:  # double_backward_grad_output: a sum
                from .creation import ones_like

                r = type(self).call(ones_like(grad), x, t, reduction=reduction, param=param)
                g_grad = (r * gg).sum()
            else:
                g_grad = type(self).call(gg, x, t, reduction=reduction, param=param)
        # torch: target = -<loss>_double_backward(grad * grad_output, ...), self = the same
        # (computed separately, the last input's first)
        if self.needs_input_grad(2):
            g_t = -self._double_backward(gg * grad, x, t, reduction, param)
        if self.needs_input_grad(1):
            g_x = self._double_backward(gg * grad, x, t, reduction, param)
        return g_grad, g_x, g_t

    def _double_backward(self, g: Tensor, x: Tensor, t: Tensor, reduction: int,
                         param: float) -> Tensor:
        d = (x - t).abs()
        inside = d.array < param
        if self.kind == "smooth_l1":  # grad * (d < beta).type_as(grad) / beta
            out = div_scalar(g * Tensor._wrap(inside.astype(g.array.dtype)), param)
        else:  # grad * (d < delta): a bool mask
            out = g * Tensor._wrap(inside)
        return div_scalar(out, x.numel()) if reduction == 1 else out


class SmoothL1LossBackward0(_PointwiseLoss):
    __slots__ = ()
    formulas = (*_with_mean(local("self", _SMOOTH_L1)),
                *_with_mean(local("target", f"-({_SMOOTH_L1})")))


class SmoothL1LossBackwardBackward0(_PointwiseLossBackward):
    __slots__ = ()
    formulas = (*_with_mean(local("grad_output", _SMOOTH_L1)),
                *_with_mean(local("self", "{grad_output} / {beta} if |{self} - {target}| < "
                                    "{beta} else 0")),
                *_with_mean(local("target", "-{grad_output} / {beta} if |{self} - {target}| "
                                    "< {beta} else 0")))


class HuberLossBackward0(_PointwiseLoss):
    __slots__ = ()
    formulas = (*_with_mean(local("self", _HUBER)),
                *_with_mean(local("target", f"-{_HUBER}")))
    kind = "huber"
    param_name = "delta"


class HuberLossBackwardBackward0(_PointwiseLossBackward):
    __slots__ = ()
    no_forward_ad = "huber_loss_backward"  # torch has no forward-mode formula (measured)
    formulas = (*_with_mean(local("grad_output", _HUBER)),
                *_with_mean(local("self", "{grad_output} if |{self} - {target}| < {delta} "
                                    "else 0")),
                *_with_mean(local("target", "-{grad_output} if |{self} - {target}| < {delta} "
                                    "else 0")))
    kind = "huber"
    param_name = "delta"


_LOSS_BACKWARD = {SmoothL1LossBackward0: SmoothL1LossBackwardBackward0,
                  HuberLossBackward0: HuberLossBackwardBackward0}


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "smooth_l1_loss")
    _size_warning(input, target)
    code = reduction_code(reduction)
    if beta == 0.0:  # torch: l1_loss
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise TorchRuntimeError("smooth_l1_loss does not support negative values for beta.")
    a, b = _broadcast_pair(input, target)
    return SmoothL1LossBackward0.call(a, b, reduction=code, param=float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean",  # noqa: A002
               delta: float = 1.0, weight: Any = None) -> Tensor:
    _size_warning(input, target)
    code = reduction_code(reduction)
    if delta <= 0:
        raise TorchRuntimeError("huber_loss does not support non-positive values for delta.")
    a, b = _broadcast_pair(input, target)
    return HuberLossBackward0.call(a, b, reduction=code, param=float(delta))


class SoftMarginLossBackward0(Function):
    """soft_margin_loss: log(1 + exp(-target * self))."""

    __slots__ = ()
    formulas = _with_mean(local("self", "-{target} × σ(-{target} × {self})"))

    def forward(self, a: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        self.save_attr(reduction=reduction)  # target is no input: torch never differentiates it
        self.save("self", a)
        self.save("target", target)
        # neg_out(input).mul_(target).exp_().log1p_(): torch's exp (VML) and log1p kernels
        d = np.asarray(-a.array * target.array, a.array.dtype)
        return _reduce(kernels.unary("log1p", kernels.unary("exp", d)), reduction)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # apply_loss_reduction(soft_margin_loss_backward(self_t, self_p, target, None),
        #   reduction)
        product = SoftMarginLossBackwardBackward0.call(t[0], inputs[0], target=params["target"],
                                                       reduction=0)
        reduction = params["reduction"]
        return product.mean() if reduction == 1 else product.sum() if reduction == 2 \
            else product

    def backward(self, grad: Tensor) -> Tensor:
        return SoftMarginLossBackwardBackward0.call(grad, self.unpack("self"),
                                                    target=self.unpack("target"),
                                                    reduction=self.attrs["reduction"])


class SoftMarginLossBackwardBackward0(Function):
    """soft_margin_loss_backward(grad_output, self, target, reduction) as an op, for
    create_graph (target is no input, as in the loss)."""

    __slots__ = ()
    no_forward_ad = "soft_margin_loss_backward"  # torch has no forward-mode formula (measured)
    formulas = (*_with_mean(local("grad_output", "-{target} × σ(-{target} × {self})")),
                *_with_mean(local("self", "{grad_output} × {target}² × σ(-{target} × {self}) × "
                                  "σ({target} × {self})")))

    def forward(self, grad: Tensor, a: Tensor, target: Tensor, reduction: int) -> np.ndarray:
        self.save("grad_output", grad)
        self.save_attr(reduction=reduction)
        self.save("self", a)
        self.save("target", target)
        x, t, g = a.array, target.array, grad.array
        dtype = x.dtype.type
        norm = 1.0 / x.size if reduction == 1 else 1.0
        # torch's kernel: z = exp(-target * input); mul_out(grad_input, target, z).mul_(-norm);
        # z.add_(1); grad_input.div_(z).mul_(grad_output): z in the common dtype of target
        # and input, each step into grad_input (input's dtype) computed in the promoted dtype
        z = kernels.unary("exp", -t * x)
        out = np.asarray(t * z, x.dtype) * dtype(-norm)
        out = np.asarray(out / (z + z.dtype.type(1)), x.dtype)
        return np.asarray(out * g, x.dtype)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        grad, x, t = self.unpack("grad_output"), self.unpack("self"), self.unpack("target")
        reduction = self.attrs["reduction"]
        g_grad = g_x = None
        if self.needs_input_grad(0):  # soft_margin_loss_double_backward_grad_output
            if reduction == 0:
                g_grad = SoftMarginLossBackwardBackward0.call(gg, x, target=t, reduction=0)
            else:
                from .creation import ones_like

                r = SoftMarginLossBackwardBackward0.call(ones_like(grad), x, target=t,
                                                         reduction=reduction)
                g_grad = (r * gg).sum()
        if self.needs_input_grad(1):  # soft_margin_loss_double_backward(gg * grad_output, ...)
            z = (x * -t).exp()
            zplus1 = add_scalar(z, 1)
            g_x = gg * grad * (t * t) * z / (zplus1 * zplus1)
            if reduction == 1:
                g_x = div_scalar(g_x, x.numel())
        return g_grad, g_x


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,  # noqa: A002
                     reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction, "soft_margin_loss")
    code = reduction_code(reduction)
    not_differentiable("soft_margin_loss", "target", target)
    return SoftMarginLossBackward0.call(input, target=target, reduction=code)

