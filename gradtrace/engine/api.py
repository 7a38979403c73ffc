"""The `torch` and `torch.nn.functional` namespaces a script can use: name -> callable.

These tables are the allow-list: the interpreter resolves `torch.<name>` and
`F.<name>` here and nowhere else.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import anomaly, dtypes, grad_mode, ops
from . import backward as _backward
from . import device as _device
from .functional import FUNCTIONAL as _AUTOGRAD_FUNCTIONAL
from .gradcheck import GRADCHECK
from .ops import (
    activations,
    conv,
    conv_transpose,
    creation,
    distance,
    dropout,
    einsum,
    embedding,
    init,
    linalg,
    losses,
    nll,
    normalization,
    norms,
    padding,
    piecewise,
    pixel_shuffle,
    pooling,
    sampling,
    softmax,
    statistics,
    unary,
    upsample,
    weighted,
    windows,
)
from .ops.inplace import TORCH_INPLACE
from .ops.out import accepting_out
from .shapes import Size
from .tensor import Parameter, Tensor


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    import numpy as np

    return bool(np.allclose(a.array, b.array, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(a: Tensor, b: Tensor) -> bool:
    import numpy as np

    return a.shape == b.shape and bool(np.array_equal(a.array, b.array))


def promote_types(a: dtypes.DType, b: dtypes.DType) -> dtypes.DType:
    return dtypes.promote(a, b)


# Tensor methods torch has no torch.<name> function for
_METHODS_ONLY = frozenset({"cpu", "cuda", "get_device", "resize", "tril_", "triu_"})

TORCH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: fn for name, fn in ops.TENSOR_METHODS.items()
       if not name.endswith("_") and name not in _METHODS_ONLY},
    **{name: ops.TENSOR_METHODS[name] for name in TORCH_INPLACE},
    "tensor": creation.tensor, "as_tensor": creation.as_tensor, "zeros": creation.zeros,
    "ones": creation.ones, "empty": creation.empty, "empty_strided": creation.empty_strided,
    "full": creation.full, "zeros_like": creation.zeros_like,
    "ones_like": creation.ones_like, "empty_like": creation.empty_like,
    "full_like": creation.full_like, "arange": creation.arange,
    "linspace": creation.linspace, "eye": creation.eye,
    **sampling.TORCH_FUNCTIONS, "dropout": dropout.torch_dropout,
    "where": ops.where, "is_tensor": is_tensor, "numel": numel, "allclose": allclose,
    "equal": equal, "promote_types": promote_types,
    "is_grad_enabled": grad_mode.is_grad_enabled, "no_grad": grad_mode.no_grad,
    "enable_grad": grad_mode.enable_grad, "set_grad_enabled": grad_mode.set_grad_enabled,
    "inference_mode": grad_mode.inference_mode,
    "is_inference_mode_enabled": grad_mode.is_inference_mode_enabled,
    "set_default_dtype": dtypes.set_default_dtype, "get_default_dtype": dtypes.get_default_dtype,
    "Size": Size, "device": _device.Device,
    "set_default_device": _device.set_default_device,
    "get_default_device": _device.get_default_device,
    "cat": ops.cat, "concat": ops.cat, "concatenate": ops.cat, "stack": ops.stack,
    "softmax": ops.tensor_softmax, "log_softmax": ops.tensor_log_softmax,
    "max": ops.max, "min": ops.min,
    # functional ops torch also offers at the top level (ATen's argument order)
    "conv1d": conv.conv1d, "conv2d": conv.conv2d, "max_pool1d": pooling.max_pool1d,
    "pixel_shuffle": pixel_shuffle.pixel_shuffle,
    "pixel_unshuffle": pixel_shuffle.pixel_unshuffle,
    "avg_pool1d": pooling.avg_pool1d, "adaptive_avg_pool1d": pooling.adaptive_avg_pool1d,
    "adaptive_max_pool1d": pooling.torch_adaptive_max_pool1d,
    "embedding": embedding.torch_embedding, "layer_norm": normalization.torch_layer_norm,
    "batch_norm": normalization.torch_batch_norm, "group_norm": normalization.torch_group_norm,
    "cosine_similarity": distance.cosine_similarity,
    "pairwise_distance": distance.pairwise_distance, "relu": ops.relu,
    "threshold": piecewise.threshold, "threshold_": piecewise.threshold_,
    "selu": activations.selu, "hardshrink": piecewise.hardshrink,
    "constant_pad_nd": padding.constant_pad_nd, "prelu": weighted.prelu,
    "bilinear": weighted.bilinear, "conv_transpose1d": conv_transpose.conv_transpose1d,
    "conv_transpose2d": conv_transpose.conv_transpose2d,
    "celu": activations.celu, "celu_": activations.celu_, "rrelu": activations.torch_rrelu,
    "rrelu_": activations.rrelu_,
    "std_mean": statistics.std_mean, "var_mean": statistics.var_mean,
    "einsum": einsum.einsum,
    "is_anomaly_enabled": anomaly.is_anomaly_enabled,
    "is_anomaly_check_nan_enabled": anomaly.is_anomaly_check_nan_enabled,
    "set_anomaly_enabled": anomaly.set_anomaly_enabled,
}

# torch functions that take `out=` (measured against torch 2.13's signatures)
OUT_FUNCTIONS = frozenset("""
abs absolute acos acosh add addcdiv addcmul addmm all amax amin any arccos arccosh arcsin
arcsinh arctan arctan2 arctanh argmax argmin asin asinh atan atan2 atanh bmm cat ceil clamp
clamp_max clamp_min clip concat concatenate cos cosh cumsum div dot eq erf erfc erfinv exp exp2
expm1 fix floor floor_divide fmod frac gather ge ger gt hypot index_select le lerp log log10
log1p log2 log_softmax logaddexp logical_not logsumexp lt matmul max maximum mean min minimum mm
mul mv ne neg negative norm outer pow prod reciprocal remainder round rsqrt scatter_add sgn
sigmoid sign sin sinh softmax sqrt square stack std sub sum tan tanh trunc var where xlogy
""".split())
for _name in OUT_FUNCTIONS & TORCH_FUNCTIONS.keys():
    TORCH_FUNCTIONS[_name] = accepting_out(_name, TORCH_FUNCTIONS[_name])

AUTOGRAD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "grad": _backward.grad,
    "backward": _backward.backward,
    "set_detect_anomaly": anomaly.set_detect_anomaly,
    "detect_anomaly": anomaly.detect_anomaly,
    **GRADCHECK,
}

# torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp
AUTOGRAD_FUNCTIONAL: dict[str, Callable[..., Any]] = dict(_AUTOGRAD_FUNCTIONAL)

FUNCTIONAL: dict[str, Callable[..., Any]] = {
    "relu": activations.relu, "leaky_relu": activations.leaky_relu, "gelu": activations.gelu,
    "silu": activations.silu, "softplus": activations.softplus, "elu": activations.elu,
    "sigmoid": ops.sigmoid, "tanh": ops.tanh, "softmax": softmax.softmax,
    "log_softmax": softmax.log_softmax, "mse_loss": losses.mse_loss, "l1_loss": losses.l1_loss,
    "cross_entropy": nll.cross_entropy, "nll_loss": nll.nll_loss, "kl_div": nll.kl_div,
    "smooth_l1_loss": losses.smooth_l1_loss, "huber_loss": losses.huber_loss,
    "soft_margin_loss": losses.soft_margin_loss,
    "margin_ranking_loss": distance.margin_ranking_loss,
    "cosine_embedding_loss": distance.cosine_embedding_loss,
    "normalize": distance.normalize, "cosine_similarity": distance.cosine_similarity,
    "pairwise_distance": distance.pairwise_distance,
    "conv1d": conv.conv1d, "conv2d": conv.conv2d, "pad": padding.pad,
    "pixel_shuffle": pixel_shuffle.pixel_shuffle,
    "pixel_unshuffle": pixel_shuffle.pixel_unshuffle,
    "unfold": windows.im2col, "fold": windows.fold,
    "max_pool1d": pooling.max_pool1d, "max_pool2d": pooling.max_pool2d,
    "avg_pool1d": pooling.avg_pool1d, "avg_pool2d": pooling.avg_pool2d,
    "adaptive_avg_pool1d": pooling.adaptive_avg_pool1d,
    "adaptive_avg_pool2d": pooling.adaptive_avg_pool2d,
    "adaptive_max_pool1d": pooling.adaptive_max_pool1d,
    "adaptive_max_pool2d": pooling.adaptive_max_pool2d,
    "embedding": embedding.embedding, "one_hot": embedding.one_hot,
    "layer_norm": normalization.layer_norm, "batch_norm": normalization.batch_norm,
    "group_norm": normalization.group_norm,
    "relu_": unary.relu_, "relu6": piecewise.relu6, "hardtanh": piecewise.hardtanh,
    "hardtanh_": piecewise.hardtanh_, "threshold": piecewise.threshold,
    "threshold_": piecewise.threshold_, "hardsigmoid": piecewise.hardsigmoid,
    "hardswish": piecewise.hardswish, "softshrink": piecewise.softshrink,
    "hardshrink": piecewise.hardshrink, "logsigmoid": activations.logsigmoid,
    "softsign": activations.softsign, "tanhshrink": activations.tanhshrink,
    "mish": activations.mish, "glu": activations.glu, "selu": activations.selu,
    "elu_": activations.elu_, "leaky_relu_": activations.leaky_relu_,
    "celu": activations.celu, "celu_": activations.celu_, "rrelu": activations.rrelu,
    "rrelu_": activations.rrelu_,
    "softmin": activations.softmin,
    "binary_cross_entropy": losses.binary_cross_entropy,
    "binary_cross_entropy_with_logits": losses.binary_cross_entropy_with_logits,
    "linear": ops.linear, "dropout": dropout.dropout, "dropout2d": dropout.dropout2d,
    "prelu": weighted.prelu, "bilinear": weighted.bilinear,
    "conv_transpose1d": conv_transpose.conv_transpose1d,
    "conv_transpose2d": conv_transpose.conv_transpose2d, "interpolate": upsample.interpolate,
}

# torch.nn.init
INIT_FUNCTIONS: dict[str, Callable[..., Any]] = dict(init.INIT_FUNCTIONS)

# torch.linalg
LINALG_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "norm": norms.linalg_norm, "vector_norm": norms.vector_norm,
    "matmul": ops.matmul, "cross": linalg.linalg_cross,
}

# torch.nn's engine-level names (the layers are library code built on these)
NN: dict[str, Any] = {"Parameter": Parameter}

# torch.cuda and torch.backends.mps as a CPU-only build has them
CUDA_FUNCTIONS: dict[str, Callable[..., Any]] = dict(_device.CUDA_FUNCTIONS)
MPS_FUNCTIONS: dict[str, Callable[..., Any]] = dict(_device.MPS_FUNCTIONS)

DTYPES: dict[str, dtypes.DType] = dict(dtypes.ALIASES)
