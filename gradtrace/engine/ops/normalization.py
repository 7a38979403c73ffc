"""F.layer_norm, F.batch_norm and F.group_norm: torch's native_* nodes.

layer_norm and batch_norm record `Native{Layer,Batch}NormBackward0`, whose backward is a
multi-output op of its own (`...BackwardBackward0`), differentiated by torch's
layer_norm_double_backward / batchnorm_double_backward written with tensor ops.
group_norm's backward under grad mode is torch's infinitely_differentiable_... formula.

Values: statistics in float64, rounded once (torch's float32 kernels accumulate rows with
Welford/cascade sums of their own: see the engine report for which).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError, TorchValueError
from .. import dtypes, exactness, kernels, layouts, norm_kernels
from ..formulas import local, undefined, vjp
from ..forward_ad import is_zero
from ..grad_mode import GRAD_MODE
from ..node import Function
from ..shapes import Size, wrap_dim
from ..tensor import Tensor, type_name
from ._util import not_differentiable, not_implemented
from .scalar import div_scalar, mul_scalar
from .shape_inplace import unsqueeze_

# The gradients as explain shows them (derivatives.yaml's native_*_backward written out):
# ξ is the normalized input and η the gradient times the weight (defined in brackets after
# a formula), ⟨·⟩ the mean over the elements each statistic was taken over (normalized_shape's
# dims, a channel's batch and positions, a group), Σ the sum over the dims a weight or bias
# was broadcast along.
_XI = " [ξ = ({input} - {result1}) × {result2}]"
_XI_ETA = " [ξ = ({input} - {result1}) × {result2}, η = {grad} × {weight}]"
_XI_SAVED = " [ξ = ({input} - {mean}) × {rstd}]"
_XI_BATCH = " [ξ = ({input} - {save_mean}) × {save_invstd}]"
# what the gradients of the mean and rstd outputs (result1, result2) add to the input's
_GROUP_STATS = "({grad}[1] - {grad}[2] × {result2}² × ξ) × {group} / ({C} × {HxW})"

# -- layer_norm ----------------------------------------------------------------------


def _rows(x: np.ndarray, nd: int) -> np.ndarray:
    """layer_norm's (M, N) view of the contiguous input: N the normalized elements."""
    return np.ascontiguousarray(x).reshape(-1, math.prod(x.shape[x.ndim - nd:]))


def invstd_jvp(input_p: Tensor, input_t: Tensor, mean_p: Tensor, invstd_p: Tensor,
               dims: tuple[int, ...], numel: int, keepdim: bool) -> Tensor:
    """torch's _invstd_jvp: the tangent of 1 / input.std(dims)."""
    from .arithmetic import div_, mul_

    centered_t = input_t - input_t.mean(dims, True)
    if is_zero(input_t):
        invstd_t = -invstd_p.pow(3) * centered_t * (input_p - mean_p)
    else:
        invstd_t = mul_(mul_(centered_t, input_p - mean_p), -invstd_p.pow(3))
    return div_(invstd_t.sum(dims, keepdim), numel)


def norm_jvp_(input_p: Tensor, input_t: Tensor, mean_p: Tensor, invstd_p: Tensor,
              dims: tuple[int, ...], numel: int) -> Tensor:
    """torch's _norm_jvp: the tangent of (input - mean) * invstd."""
    from .arithmetic import add_, mul_

    invstd_t = invstd_jvp(input_p, input_t, mean_p, invstd_p, dims, numel, True)
    if is_zero(input_t):
        return (input_t - input_t.mean(dims, True)) * invstd_p + (input_p - mean_p) * invstd_t
    result_t = mul_(input_t - input_t.mean(dims, True), invstd_p)
    return add_(result_t, mul_(input_p - mean_p, invstd_t))


def affine_jvp(input_p: Tensor, mean_p: Tensor, invstd_p: Tensor, input_t: Tensor,
               weight_p: Tensor | None, weight_t: Tensor | None, bias_t: Tensor | None,
               view_size: tuple[int, ...], result_p: Tensor | None = None) -> Tensor:
    """torch's _affine_jvp of the normalized input (input - mean) * invstd: its tangent times
    weight, plus the normalized input times weight's tangent, plus bias's tangent (in place
    unless a tangent is a zero tensor)."""
    from .arithmetic import add_, mul_

    if weight_p is not None:
        if result_p is None:
            result_p = (input_p - mean_p) * invstd_p
        w_p, w_t = weight_p.view(*view_size), weight_t.view(*view_size)
        if is_zero(input_t) or is_zero(w_t):
            input_t = input_t * w_p + result_p * w_t
        else:
            input_t = add_(mul_(input_t, w_p), mul_(result_p, w_t))
    if bias_t is not None:
        b_t = bias_t.view(*view_size)
        input_t = input_t + b_t if is_zero(input_t) or is_zero(b_t) else add_(input_t, b_t)
    return input_t


class NativeLayerNormBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("input", "{result2} × ({grad} - ⟨{grad}⟩ - ξ × ⟨{grad} × ξ⟩)" + _XI,
            when=(("weight", None),)),
        vjp("input", "{result2} × (η - ⟨η⟩ - ξ × ⟨η × ξ⟩)" + _XI_ETA),
        local("weight", "({input} - {result1}) × {result2}"),
        local("bias", "1"))

    def forward(self, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                normalized_shape: tuple[int, ...], eps: float) -> np.ndarray:
        nd = len(normalized_shape)
        a = x.array
        flat = lambda t: None if t is None else t.array.reshape(-1)  # noqa: E731
        y, mean, rstd = norm_kernels.layer_norm(_rows(a, nd), flat(weight), flat(bias), eps)
        stat_shape = a.shape[:a.ndim - nd] + (1,) * nd
        self.save("bias", bias)
        self.save("input", x)
        self.save_attr(normalized_shape=normalized_shape)
        self.save("result1", Tensor._wrap(mean.reshape(stat_shape)))
        self.save("result2", Tensor._wrap(rstd.reshape(stat_shape)))
        self.save("weight", weight)
        return y.reshape(a.shape)

    jvp_reads_saved = True

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # layer_norm_jvp(input_p, input_t, weight_p, weight_t, bias_p, bias_t, result1,
        #   result2, normalized_shape)
        x, weight, _ = inputs
        shape = x.array.shape
        nd = len(params["normalized_shape"])
        lead = len(shape) - nd
        dims = tuple(range(lead, len(shape)))
        view_size = shape[:lead] + (1,) * nd
        affine = (1,) * lead + shape[lead:]
        mean_p = self.unpack("result1").view(*view_size)
        invstd_p = self.unpack("result2").view(*view_size)
        numel = int(np.prod(shape[lead:]))
        result_t = norm_jvp_(x, t[0], mean_p, invstd_p, dims, numel)
        return affine_jvp(x, mean_p, invstd_p, result_t, weight, t[1], t[2], affine)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        mask = tuple(self.needs_input_grad(i) for i in range(3))
        outs = NativeLayerNormBackwardBackward0.call(
            grad, self.unpack("input"), self.unpack("result1"), self.unpack("result2"),
            self.unpack("weight"), self.unpack("bias"),
            normalized_shape=self.attrs["normalized_shape"], mask=mask)
        return tuple(o if m else None for o, m in zip(outs, mask, strict=True))


class NativeLayerNormBackwardBackward0(Function):
    """native_layer_norm_backward(grad_out, input, mean, rstd, weight, bias) as an op."""

    __slots__ = ()
    formulas = (
        vjp("grad_out", "{rstd} × ({grad}[0] - ⟨{grad}[0]⟩ - ξ × ⟨{grad}[0] × ξ⟩)"
            + _XI_SAVED, when=(("weight", None),)),
        vjp("grad_out", "{weight} × {rstd} × ({grad}[0] - ⟨{grad}[0]⟩ - ξ × ⟨{grad}[0] × ξ⟩) "
            "+ {grad}[1] × ξ + {grad}[2]" + _XI_SAVED),
        vjp("input", "layer_norm_double_backward({input}, {weight}, {grad}, {grad_out}, {mean}, "
            "{rstd}, {normalized_shape})[0]"),
        undefined("mean"),
        undefined("rstd"),
        vjp("weight", "Σ {grad_out} × {rstd} × ({grad}[0] - ⟨{grad}[0]⟩ - ξ × ⟨{grad}[0] × ξ⟩)"
            + _XI_SAVED),
        local("bias", "0"))
    multi_output = True

    def forward(self, grad: Tensor, x: Tensor, mean: Tensor, rstd: Tensor,
                weight: Tensor | None, bias: Tensor | None, normalized_shape: tuple[int, ...],
                mask: tuple[bool, ...]) -> list[np.ndarray]:
        self.save("grad_out", grad)
        self.save("input", x)
        self.save("mean", mean)
        self.save_attr(normalized_shape=normalized_shape)
        self.save("rstd", rstd)
        self.save("weight", weight)
        nd = len(normalized_shape)
        a = x.array
        dtype = a.dtype
        w = None if weight is None else weight.array.reshape(-1)
        # native_layer_norm_backward: dgamma/dbeta only for a defined weight/bias
        want = (True, weight is not None, bias is not None)
        dx, dw, db = norm_kernels.layer_norm_backward(
            _rows(grad.array.astype(dtype, copy=False), nd), _rows(a, nd),
            mean.array.reshape(-1), rstd.array.reshape(-1), w, want)
        w_shape = tuple(normalized_shape)
        return [dx.reshape(a.shape),
                np.zeros(w_shape, dtype) if dw is None else dw.reshape(w_shape),
                np.zeros(w_shape, dtype) if db is None else db.reshape(w_shape)]

    def backward(self, gg_input: Tensor, gg_weight: Tensor, gg_bias: Tensor
                 ) -> tuple[Tensor | None, ...]:
        g_i, g_w, g_go = layer_norm_double_backward(
            self.unpack("input"), self.unpack("weight"), gg_input, gg_weight, gg_bias,
            self.unpack("grad_out"), self.unpack("mean"), self.unpack("rstd"),
            self.attrs["normalized_shape"])
        return (g_go if self.needs_input_grad(0) else None,
                g_i if self.needs_input_grad(1) else None, None, None,
                g_w if self.needs_input_grad(4) else None, None)


def layer_norm_double_backward(x: Tensor, gamma: Tensor | None, gg_i: Tensor, gg_g: Tensor,
                               gg_b: Tensor, g_o: Tensor, save_mean: Tensor,
                               save_invstd: Tensor, normalized_shape: tuple[int, ...]
                               ) -> tuple[Tensor, Tensor | None, Tensor]:
    """torch's layer_norm_double_backward, op for op (in-place steps written out of place)."""
    axis = x.ndim - len(normalized_shape)
    m = math.prod(x.shape[:axis])
    n = math.prod(x.shape[axis:])
    inp = x.reshape(m, n)
    go = g_o.reshape(m, n)
    mu = save_mean.reshape(m, 1)
    sig_n12 = save_invstd.reshape(m, 1)
    ggi = gg_i.reshape(m, n)
    if gamma is not None:
        gamma_e, ggg_e, ggb_e = gamma.reshape(1, n), gg_g.reshape(1, n), gg_b.reshape(1, n)
    else:
        gamma_e = Tensor._wrap(np.ones(1, dtype=x.array.dtype))
    in_mu = inp - mu
    sig_n1 = sig_n12.pow(2)
    sig_n32 = sig_n12.pow(3)
    in_mu_s32 = in_mu * sig_n32
    gxhat = go * gamma_e
    gxhat_mu_sum = (gxhat * in_mu).sum(1, True)
    gxhat_sum = gxhat.sum(1, True)
    ggi_sum = ggi.sum(1, True)
    ggi_mu_sum = (ggi * in_mu).sum(1, True)
    all_sub = div_scalar(ggi_sum * gxhat_sum, n) - (ggi * gxhat).sum(1, True)
    all_sub = all_sub + mul_scalar(sig_n1 * gxhat_mu_sum * ggi_mu_sum, 3.0 / n)
    gi0 = div_scalar(in_mu_s32 * all_sub, n)
    gi1 = div_scalar(ggi_mu_sum * sig_n32, n) * (div_scalar(gxhat_sum, n) - gxhat)
    gi2 = div_scalar(gxhat_mu_sum * sig_n32, n) * (div_scalar(ggi_sum, n) - ggi)
    g_i = gi0 + gi1 + gi2
    if gamma is not None:
        t0 = go * ggg_e * sig_n12
        t1 = div_scalar(sig_n12 * (go * ggg_e).sum(1, True), -n)
        t2 = div_scalar(in_mu_s32 * (go * ggg_e * in_mu).sum(1, True), -n)
        g_i = g_i + (t0 + t1 + t2)
    g_i = g_i.reshape_as(x)

    def first_grad_input(g: Tensor, gam: Tensor) -> Tensor:
        h0 = div_scalar(gam * sig_n12, n)
        h1 = mul_scalar(g, n) - g.sum(1, True) - (in_mu * sig_n1) * (g * in_mu).sum(1, True)
        return h0 * h1

    g_g = None
    if gamma is not None:
        ones = Tensor._wrap(np.ones((), dtype=x.array.dtype))
        g_g = (go * first_grad_input(ggi, ones)).sum(0).reshape_as(gamma)
    gg_o = first_grad_input(ggi, gamma_e)
    if gamma is not None:
        gg_o = gg_o + ggg_e * in_mu * sig_n12 + ggb_e
    gg_o = gg_o.expand(m, n).reshape_as(x)
    return g_i, g_g, gg_o


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    if isinstance(normalized_shape, int) or not isinstance(normalized_shape, (tuple, list,
                                                                              Size)):
        raise TorchTypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, "
            f"not {type_name(normalized_shape)}")
    shape = tuple(int(s) for s in normalized_shape)
    check_mixed_dtype(input, weight, bias)  # layer_norm_cpu's first check
    listed = ", ".join(map(str, shape))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != shape:
            raise TorchRuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape [{', '.join(map(str, t.shape))}] and normalized_shape = [{listed}]")
    xs = input.array.shape
    if len(xs) < len(shape) or xs[len(xs) - len(shape):] != shape:
        raise TorchRuntimeError(
            f"Given normalized_shape=[{listed}], expected input with shape [*, {listed}], but "
            f"got input of size[{', '.join(map(str, xs))}]")
    if not input.dtype.is_floating_point:
        raise not_implemented("LayerNormKernelImpl", input.dtype)
    return NativeLayerNormBackward0.call(input, weight, bias, normalized_shape=shape, eps=eps)


def check_mixed_dtype(input: Tensor, *params: Tensor | None) -> None:  # noqa: A002
    """torch's is_mixed_type / check_mixed_data_type (layer and group norm on CPU):
    parameters of another dtype than the input are refused unless the input is float32,
    float16 or bfloat16, and must then be float32."""
    if all(p is None or p.dtype is input.dtype for p in params):
        return
    if input.dtype not in (dtypes.float32, dtypes.float16, dtypes.bfloat16):
        raise TorchRuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if any(p is not None and p.dtype is not dtypes.float32 for p in params):
        raise TorchRuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                                "Float")


# -- batch_norm ----------------------------------------------------------------------


def _strided(a: np.ndarray) -> bool:
    """Whether batch_norm takes Normalization.cpp's TensorIterator path for `a`: neither
    contiguous nor channels-last (which runs the channels-last kernels)."""
    return not a.flags.c_contiguous and not layouts.is_channels_last(a)


def _channel_rows(a: np.ndarray) -> np.ndarray | None:
    """A channels-last (not also contiguous) array's (positions, C) rows in memory order,
    as batch_norm's channels-last kernels walk them (a view); None for other layouts."""
    if a.flags.c_contiguous or not layouts.is_channels_last(a):
        return None
    return np.moveaxis(a, 1, -1).reshape(-1, a.shape[1])


def _from_channel_rows(rows: np.ndarray, like: np.ndarray) -> np.ndarray:
    """(positions, C) rows back into `like`'s shape, channels-last as `like` lies."""
    moved = np.moveaxis(like, 1, -1).shape
    return np.moveaxis(rows.reshape(moved), -1, 1)


class NativeBatchNormBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("input", "{result2} × ({grad} - ⟨{grad}⟩ - ξ × ⟨{grad} × ξ⟩)" + _XI,
            when=(("training", True), ("weight", None))),
        vjp("input", "{weight} × {result2} × ({grad} - ⟨{grad}⟩ - ξ × ⟨{grad} × ξ⟩)" + _XI,
            when=(("training", True),)),
        vjp("input", "{grad} / √({running_var} + {eps})", when=(("weight", None),)),
        vjp("input", "{grad} × {weight} / √({running_var} + {eps})"),
        vjp("weight", "Σ {grad} × ({input} - {result1}) × {result2}", when=(("training", True),)),
        vjp("weight", "Σ {grad} × ({input} - {running_mean}) / √({running_var} + {eps})"),
        vjp("bias", "Σ {grad}"))

    def forward(self, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                momentum: float, eps: float) -> np.ndarray:
        """Inputs (next_functions): input, weight, bias; the running stats are buffers."""
        a = x.array
        dtype = a.dtype
        w = None if weight is None else weight.array
        b = None if bias is None else bias.array
        rm = None if running_mean is None else running_mean.array
        rv = None if running_var is None else running_var.array
        strided = _strided(a)
        rows = _channel_rows(a)
        if rows is not None:  # the channels-last kernels: the (N, C) kernels over its rows
            a = rows
        elif not strided:
            a = np.ascontiguousarray(a)
        if training and strided:
            mean, invstd = norm_kernels.batch_norm_stats_strided(a, momentum, eps, rm, rv)
            save_mean, save_invstd = mean, invstd
        elif training:
            mean, var_sum = norm_kernels.batch_norm_stats(a)
            invstd = norm_kernels.batch_norm_update(mean, var_sum, a.size // a.shape[1], eps,
                                                    momentum, rm, rv)
            save_mean, save_invstd = mean, invstd
        else:
            mean = rm
            var = rv + np.asarray(eps, dtype)
            # batch_norm_cpu_collect_linear_and_constant_terms: 1 / std::sqrt(var + eps),
            # correctly rounded; the TensorIterator path's 1 / at::sqrt(running_var + eps):
            # MKL's sqrt, which on an AMD CPU is not (17% of float32 values differ)
            root = kernels.unary("sqrt", var) if strided else np.sqrt(var)
            invstd = (np.asarray(1, dtype) / root).astype(dtype)
            save_mean = save_invstd = np.zeros(0, dtype=dtype)
        out = norm_kernels.batch_norm_apply_strided(a, mean, invstd, w, b) if strided else \
            norm_kernels.batch_norm_apply(a, mean, invstd, w, b)
        if rows is not None:
            out = _from_channel_rows(out, x.array)
        self.save_attr(eps=eps)
        self.save("input", x)
        self.save("result1", Tensor._wrap(save_mean))
        self.save("result2", Tensor._wrap(save_invstd))
        self.save("running_mean", running_mean)
        self.save("running_var", running_var)
        self.save_attr(training=training)
        self.save("weight", weight)
        return out

    jvp_reads_saved = True

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # batch_norm_jvp(input_p, input_t, weight_p, weight_t, bias_p, bias_t, running_mean,
        #   running_var, result1, result2, training, eps)
        x, weight, _ = inputs
        shape = x.array.shape
        dims = tuple(d for d in range(len(shape)) if d != 1)
        view_size = tuple(1 if d != 1 else n for d, n in enumerate(shape))
        numel = int(np.prod([shape[d] for d in dims]))
        if params["training"]:
            mean_p = self.unpack("result1").view(*view_size)
            invstd_p = self.unpack("result2").view(*view_size)
            result_t = norm_jvp_(x, t[0], mean_p, invstd_p, dims, numel)
        else:
            mean_p = params["running_mean"].view(*view_size)
            invstd_p = (params["running_var"] + params["eps"]).sqrt().reciprocal().view(
                *view_size)
            result_t = t[0] * invstd_p
        return affine_jvp(x, mean_p, invstd_p, result_t, weight, t[1], t[2], view_size)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        mask = tuple(self.needs_input_grad(i) for i in range(3))
        outs = NativeBatchNormBackwardBackward0.call(
            grad, self.unpack("input"), self.unpack("weight"), self.unpack("running_mean"),
            self.unpack("running_var"), save_mean=self.unpack("result1"),
            save_invstd=self.unpack("result2"), train=self.attrs["training"],
            eps=self.attrs["eps"], mask=mask)
        return tuple(o if m else None for o, m in zip(outs, mask, strict=True))


class NativeBatchNormBackwardBackward0(Function):
    """native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, ...)."""

    __slots__ = ()
    formulas = (
        vjp("grad_out", "{save_invstd} × ({grad}[0] - ⟨{grad}[0]⟩ - ξ × ⟨{grad}[0] × ξ⟩)"
            + _XI_BATCH, when=(("train", True), ("weight", None))),
        vjp("grad_out", "{weight} × {save_invstd} × ({grad}[0] - ⟨{grad}[0]⟩ - ξ × ⟨{grad}[0] × "
            "ξ⟩) + {grad}[1] × ξ + {grad}[2]" + _XI_BATCH, when=(("train", True),)),
        vjp("grad_out", "{grad}[0] / √({running_var} + {eps})", when=(("weight", None),)),
        vjp("grad_out", "({grad}[0] × {weight} + {grad}[1] × ({input} - {running_mean})) / "
            "√({running_var} + {eps}) + {grad}[2]"),
        vjp("input", "batchnorm_double_backward({input}, {weight}, {grad}, {grad_out}, "
            "{running_mean}, {running_var}, {train}, {eps}, {save_mean}, {save_invstd})[0]"),
        vjp("weight", "Σ {grad}[0] × {save_invstd} × ({grad_out} - ⟨{grad_out}⟩ - ξ × "
            "⟨{grad_out} × ξ⟩)" + _XI_BATCH, when=(("train", True),)),
        vjp("weight", "Σ {grad}[0] × {grad_out} / √({running_var} + {eps})"),
        undefined("running_mean"),
        undefined("running_var"))
    multi_output = True

    def forward(self, grad: Tensor, x: Tensor, weight: Tensor | None,
                running_mean: Tensor | None, running_var: Tensor | None, save_mean: Tensor,
                save_invstd: Tensor, train: bool, eps: float, mask: tuple[bool, ...]
                ) -> list[np.ndarray]:
        self.save_attr(eps=eps)
        self.save("grad_out", grad)
        self.save("input", x)
        self.save("running_mean", running_mean)
        self.save("running_var", running_var)
        self.save("save_invstd", save_invstd)
        self.save("save_mean", save_mean)
        self.save_attr(train=train)
        self.save("weight", weight)
        a = x.array
        dtype = a.dtype
        if train:
            mean, invstd = save_mean.array, save_invstd.array
        else:  # batch_norm_cpu_backward: 1 / sqrt(running_var + eps) with eps a double
            mean = running_mean.array
            invstd = (1.0 / np.sqrt(running_var.array.astype(np.float64) + eps)).astype(dtype)
        dy = grad.array.astype(dtype, copy=False)
        w = None if weight is None else weight.array
        # the kernels need input and grad_out contiguous in one memory format
        if _strided(a) or _strided(dy) or a.flags.c_contiguous != dy.flags.c_contiguous:
            return list(norm_kernels.batch_norm_backward_strided(dy, a, w, mean, invstd, train))
        rows, grad_rows = _channel_rows(a), _channel_rows(dy)
        if rows is not None and grad_rows is not None:  # the channels-last kernels
            dx, dw, db = norm_kernels.batch_norm_backward(grad_rows, rows, w, mean, invstd,
                                                          train, (True, True, True))
            return [_from_channel_rows(dx, a), dw, db]
        dx, dw, db = norm_kernels.batch_norm_backward(
            np.ascontiguousarray(dy), np.ascontiguousarray(a), w, mean, invstd, train,
            (True, True, True))
        return [dx, dw, db]

    def backward(self, gg_input: Tensor, gg_weight: Tensor, gg_bias: Tensor
                 ) -> tuple[Tensor | None, ...]:
        g_i, g_w, g_go = batchnorm_double_backward(
            self.unpack("input"), self.unpack("weight"), gg_input, gg_weight, gg_bias,
            self.unpack("grad_out"), self.unpack("running_mean"), self.unpack("running_var"),
            self.attrs["train"], self.attrs["eps"], self.unpack("save_mean"),
            self.unpack("save_invstd"))
        return (g_go if self.needs_input_grad(0) else None,
                g_i if self.needs_input_grad(1) else None,
                g_w if self.needs_input_grad(2) else None, None, None)


def _sum_exclude_dim1(t: Tensor, keepdim: bool = True) -> Tensor:
    r = t.sum(0, keepdim)
    start = 1 if keepdim else 0
    for d in range(r.ndim - 1, start, -1):
        r = r.sum(d, keepdim)
    return r


def _unsqueeze_dim1(src: Tensor, target: Tensor) -> Tensor:
    while src.ndim < target.ndim - 1:
        src = src.unsqueeze(1)
    if src.ndim == target.ndim - 1:
        src = src.unsqueeze(0)
    return src


def _expand_as_dim1(src: Tensor, target: Tensor) -> Tensor:
    while src.ndim < target.ndim - 1:
        src = src.unsqueeze(1)
    return src.expand_as(target)


def batchnorm_double_backward(x: Tensor, gamma: Tensor | None, gg_i: Tensor, gg_g: Tensor,
                              gg_b: Tensor, g_o: Tensor, running_mean: Tensor | None,
                              running_var: Tensor | None, training: bool, eps: float,
                              save_mean: Tensor, save_invstd: Tensor
                              ) -> tuple[Tensor, Tensor | None, Tensor]:
    """torch's batchnorm_double_backward, op for op (in-place steps written out of place)."""
    if gamma is not None:
        gamma_e = _expand_as_dim1(gamma, x)
        ggg_e, ggb_e = _expand_as_dim1(gg_g, x), _expand_as_dim1(gg_b, x)
    else:
        gamma_e = Tensor._wrap(np.ones((), dtype=x.array.dtype))
    m = x.shape[0] * math.prod(x.shape[2:])
    mu = _unsqueeze_dim1(save_mean if training else running_mean, x)
    in_mu = x - mu
    sig_n12 = _unsqueeze_dim1(save_invstd if training else
                              running_var.add(eps).pow(-0.5), x)
    sig_n1 = sig_n12.pow(2)
    sig_n32 = sig_n12.pow(3)
    in_mu_s32 = in_mu * sig_n32
    go_in_mu_sum = _sum_exclude_dim1(g_o * in_mu)
    go_sum = _sum_exclude_dim1(g_o)
    if training:
        ggi_sum = _sum_exclude_dim1(gg_i)
        ggi_in_mu_sum = _sum_exclude_dim1(gg_i * in_mu)
        all_sub = div_scalar(ggi_sum * go_sum, m) - _sum_exclude_dim1(g_o * gg_i)
        all_sub = all_sub + mul_scalar(sig_n1 * go_in_mu_sum * ggi_in_mu_sum, 3.0 / m)
        gi0 = div_scalar(in_mu_s32 * all_sub, m)
        gi1 = div_scalar(ggi_in_mu_sum * sig_n32, m) * (div_scalar(go_sum, m) - g_o)
        gi2 = div_scalar(go_in_mu_sum * sig_n32, m) * (div_scalar(ggi_sum, m) - gg_i)
        g_i = gamma_e * (gi0 + gi1 + gi2)
    else:
        g_i = None
    if gamma is not None:
        if training:
            t0 = g_o * sig_n12
            t1 = div_scalar(sig_n12 * go_sum, -m)
            t2 = div_scalar(in_mu_s32 * _sum_exclude_dim1(g_o * in_mu), -m)
            term = ggg_e * (t0 + t1 + t2)
        else:
            term = ggg_e * sig_n12 * g_o
        g_i = term if g_i is None else g_i + term
    if g_i is None:
        from .creation import zeros_like

        g_i = zeros_like(x)

    def first_grad_input(g: Tensor, gam: Tensor) -> Tensor:
        h0 = div_scalar(gam * sig_n12, m)
        h1 = mul_scalar(g, m) - _sum_exclude_dim1(g) - in_mu * sig_n1 * _sum_exclude_dim1(
            g * in_mu)
        return h0 * h1

    g_g = None
    if gamma is not None:
        if training:
            ones = Tensor._wrap(np.ones((), dtype=x.array.dtype))
            g_g = _sum_exclude_dim1(gg_i * first_grad_input(g_o, ones), False)
        else:
            g_g = _sum_exclude_dim1(gg_i * g_o * sig_n12, False)
    gg_o = first_grad_input(gg_i, gamma_e) if training else gg_i * sig_n12 * gamma_e
    if gamma is not None:
        gg_o = gg_o + ggg_e * in_mu * sig_n12 + ggb_e
    return g_i, g_g, gg_o


def batch_norm(input: Tensor, running_mean: Tensor | None,  # noqa: A002
               running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    shape = input.array.shape
    wrap_dim(1, input.array.ndim)  # torch's IndexError for an input without a channel dim
    channels = shape[1]
    if training:
        count = input.array.size // channels if channels else 0
        if count == 1:
            raise TorchValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{Size(shape)!r}")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # _batch_norm_impl_index's order
        if t is not None and t.array.size != channels:
            raise TorchRuntimeError(
                f"{name} should contain {channels} elements not {t.array.size}")
    not_differentiable("native_batch_norm", "running_mean", running_mean)
    not_differentiable("native_batch_norm", "running_var", running_var)
    if not input.dtype.is_floating_point:
        raise not_implemented("batch_norm", input.dtype)
    for t in (weight, bias, running_mean, running_var):
        if t is not None and t.dtype is not input.dtype:
            raise TorchRuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if momentum is None:
        raise TorchTypeError(
            "batch_norm(): argument 'momentum' (position 7) must be float, not NoneType")
    return NativeBatchNormBackward0.call(input, weight, bias, running_mean=running_mean,
                                         running_var=running_var, training=bool(training),
                                         momentum=float(momentum), eps=float(eps))


# -- group_norm ----------------------------------------------------------------------


_GROUP_NORM_CHANNELS_LAST = ("group_norm of a channels-last input: its channels-last "
                             "kernels' order is not reproduced")


class NativeGroupNormBackward0(Function):
    """native_group_norm: three outputs (y, mean, rstd); F.group_norm returns y, and the
    node saves mean and rstd as its outputs 1 and 2 (gradients can reach them through a
    second derivative)."""

    __slots__ = ()
    formulas = (
        vjp("input", "{result2} × ({grad}[0] - ⟨{grad}[0]⟩ - ξ × ⟨{grad}[0] × ξ⟩) + " + _GROUP_STATS
            + _XI, when=(("weight", None),)),
        vjp("input", "{result2} × (η - ⟨η⟩ - ξ × ⟨η × ξ⟩) + " + _GROUP_STATS
            + " [ξ = ({input} - {result1}) × {result2}, η = {grad}[0] × {weight}]"),
        vjp("weight", "Σ {grad}[0] × ({input} - {result1}) × {result2}"),
        vjp("bias", "Σ {grad}[0]"))
    multi_output = True

    def forward(self, x: Tensor, weight: Tensor | None, bias: Tensor | None, n: int, c: int,
                hxw: int, group: int, eps: float) -> list[np.ndarray]:
        a = x.array
        y, mean, rstd = norm_kernels.group_norm(
            np.ascontiguousarray(a).reshape(n, c, hxw), group,
            None if weight is None else weight.array, None if bias is None else bias.array, eps)
        self.save_attr(C=c, HxW=hxw, N=n, eps=eps, group=group)
        self.save("input", x)
        self.save("weight", weight)
        y = y.reshape(a.shape)
        if layouts.suggests_channels_last(a):  # torch's result: the input's suggested format
            exactness.note(_GROUP_NORM_CHANNELS_LAST)
            y = layouts.dense_in_format(y, True)
        return [y, mean, rstd]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result1", outputs[1], is_output=True)
        self.save("result2", outputs[2], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> list:
        """torch's group_norm_jvp, group_norm_mean_jvp and group_norm_invstd_jvp: batch
        norm's tangent over (1, N * group, -1), then the affine part per channel."""
        x, weight, _ = inputs
        shape, n, group = x.array.shape, params["n"], params["group"]
        mean, invstd = outs[1], outs[2]
        groups = (1, n * group, -1 if n else 1)
        x_r, t_r = x.view(*groups), t[0].view(*groups)
        view_size = (1, x_r.array.shape[1], 1)
        mean_p, invstd_p = mean.view(*view_size), invstd.view(*view_size)
        result_t = norm_jvp_(x_r, t_r, mean_p, invstd_p, (0, 2),
                             int(np.prod([x_r.array.shape[0], x_r.array.shape[2]]))).view(*shape)
        affine = (1, params["c"]) + (1,) * (len(shape) - 2)
        result_p = ((x_r - mean_p) * invstd_p).view(*shape) if weight is not None else None
        y_t = affine_jvp(x, mean_p, invstd_p, result_t, weight, t[1], t[2], affine, result_p)
        mean_t = t_r.mean((2,), False).view(*mean.shape)
        # torch passes (input_t, input_p) to _invstd_jvp's (input_p, input_t): kept so
        invstd_t = invstd_jvp(t_r, x_r, mean.view(*groups), invstd.view(*groups), (2,),
                              t_r.array.shape[2], False).view(*invstd.shape)
        return [y_t, mean_t, invstd_t]

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if all(g is None for g in grads):
            return (None,) * len(self.next_functions)
        return self.backward(*grads)

    def backward(self, grad: Tensor | None, dmean: Tensor | None = None,
                 drstd: Tensor | None = None) -> tuple[Tensor | None, ...]:
        """native_group_norm_backward's kernel when grad mode is off and only the output's
        gradient arrives (as torch's derivatives.yaml; reproduced for float32 and float64);
        else infinitely_differentiable_native_group_norm_backward, op for op."""
        kernel = grad is not None and dmean is None and drstd is None and not GRAD_MODE.enabled
        if kernel and self.unpack("input").array.dtype in (np.float32, np.float64):
            return self._kernel_backward(grad)
        exactness.note("group_norm backward under create_graph, of mean/rstd or in a half "
                       "type: torch's rounding is not reproduced")
        a = self.attrs
        n, c, hxw, g = a["N"], a["C"], a["HxW"], a["group"]
        d = c // g
        s = 1.0 / (d * hxw)
        x_in = self.unpack("input")
        x = x_in.reshape(n, g, d, hxw)
        mean = self.unpack("result1").reshape(n, g, 1, 1)
        rstd = self.unpack("result2").reshape(n, g, 1, 1)
        gamma = self.unpack("weight")
        ds = db = None
        if grad is not None:
            dy = grad.reshape(n, g, d, hxw)
            ds = unsqueeze_((dy * x).sum(3), -1)
            db = unsqueeze_(dy.sum(3), -1)
        dx = dgamma = dbeta = None
        if self.needs_input_grad(0):
            gamma_t = gamma.reshape(1, g, d, 1) if gamma is not None else None
            rstd_cube = rstd * rstd * rstd
            dvar = None
            if drstd is not None:
                dvar = mul_scalar(rstd_cube, -0.5) * drstd.view(n, g, 1, 1)
            if grad is not None:
                a_ = rstd * gamma_t if gamma_t is not None else rstd
                b_ = unsqueeze_((ds * gamma_t).sum(2) if gamma_t is not None else ds.sum(2), -2)
                c_ = unsqueeze_((db * gamma_t).sum(2) if gamma_t is not None else db.sum(2), -2)
                b_ = mul_scalar((c_ * mean - b_) * rstd_cube, s)
                c_ = -b_ * mean - mul_scalar(c_ * rstd, s)
                dx = a_ * dy + b_ * x + c_
            if dmean is not None and drstd is not None:
                extra = _var_mean_backward(dvar, dmean.view(n, g, 1, 1), x)
                dx = extra if dx is None else dx + extra
            if dx is not None:
                dx = dx.reshape_as(x_in)
        if self.needs_input_grad(1) and grad is not None:
            dgamma = ((ds - db * mean) * rstd).sum(0).reshape_as(gamma)
        if self.needs_input_grad(2) and grad is not None:
            dbeta = db.sum(0).reshape(c)
        return dx, dgamma, dbeta

    def _kernel_backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        a = self.attrs
        x = self.unpack("input")
        weight = self.unpack("weight")
        dtype = x.array.dtype
        shape = (a["N"], a["C"], a["HxW"])
        mask = (self.needs_input_grad(0), self.needs_input_grad(1) and weight is not None,
                self.needs_input_grad(2))
        dx, dgamma, dbeta = norm_kernels.group_norm_backward(
            np.ascontiguousarray(grad.array, dtype).reshape(shape),
            np.ascontiguousarray(x.array).reshape(shape),
            self.unpack("result1").array, self.unpack("result2").array,
            None if weight is None else weight.array.reshape(-1), a["group"], mask)
        wrap = lambda v, like: None if v is None else Tensor._wrap(  # noqa: E731
            v.reshape(like))
        if dx is not None and layouts.suggests_channels_last(x.array):
            exactness.note(_GROUP_NORM_CHANNELS_LAST)
            dx = layouts.dense_in_format(dx.reshape(x.array.shape), True)
        return (wrap(dx, x.array.shape), wrap(dgamma, (a["C"],)), wrap(dbeta, (a["C"],)))


def _var_mean_backward(dvar: Tensor, dmean: Tensor, x: Tensor) -> Tensor:
    """torch's var_mean_backward over dims (2, 3), correction 0, keepdim."""
    count = x.shape[2] * x.shape[3]
    g_var = mul_scalar(dvar, 2.0 / count) * (x - x.mean((2, 3), True))
    return g_var + div_scalar(dmean.expand(x.shape), count)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = input.array.shape
    if input.array.ndim < 2 or shape[1] % num_groups:
        raise TorchRuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape [{', '.join(map(str, shape))}] and num_groups={num_groups}")
    check_mixed_dtype(input, weight, bias)
    if not input.dtype.is_floating_point:
        raise not_implemented("GroupNormKernelImpl", input.dtype)
    n, c = shape[0], shape[1]
    hxw = math.prod(shape[2:])
    return NativeGroupNormBackward0.call(input, weight, bias, n=n, c=c, hxw=hxw,
                                         group=num_groups, eps=eps)[0]


# -- torch.* spellings (ATen's argument order) ----------------------------------------


def torch_layer_norm(input: Tensor, normalized_shape: Any,  # noqa: A002
                     weight: Tensor | None = None, bias: Tensor | None = None,
                     eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return layer_norm(input, normalized_shape, weight, bias, eps)


def torch_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                     running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                     momentum: float, eps: float, cudnn_enabled: bool = True) -> Tensor:
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def torch_group_norm(input: Tensor, num_groups: int,  # noqa: A002
                     weight: Tensor | None = None, bias: Tensor | None = None,
                     eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    return group_norm(input, num_groups, weight, bias, eps)
