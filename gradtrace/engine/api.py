"""The `torch` and `torch.nn.functional` namespaces a script can use: name -> callable.

These tables are the allow-list: the interpreter resolves `torch.<name>` and
`F.<name>` here and nowhere else.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from . import anomaly, dtypes, grad_mode, ops, settings
from . import backward as _backward
from . import device as _device
from .functional import FUNCTIONAL as _AUTOGRAD_FUNCTIONAL
from .gradcheck import GRADCHECK
from .ops import (
    activations,
    arrangements,
    attention,
    composites,
    conv,
    conv_transpose,
    creation,
    ctc,
    distance,
    dropout,
    einsum,
    embedding,
    embedding_bag,
    factorizations,
    fake_quantize,
    float_ops,
    foreach,
    fractional_pool,
    gamma,
    gamma_sampling,
    grid_sample,
    init,
    likelihood_losses,
    linalg,
    linalg_composite,
    losses,
    margin_losses,
    nll,
    norm_composites,
    normalization,
    norms,
    padding,
    pdist,
    piecewise,
    pixel_shuffle,
    pooling,
    pooling3d,
    pooling_nd,
    sampling,
    scatters,
    signal_windows,
    softmax,
    special_functions,
    stacking,
    statistics,
    tensor_info,
    unary,
    upsample,
    weight_norm,
    weighted,
    windows,
)
from .ops import complex_ops as _complex_ops
from .ops import gradient as _gradient
from .ops import stft as _stft
from .ops.inplace import TORCH_INPLACE
from .ops.out import accepting_out
from .shapes import Size
from .tensor import Parameter, Tensor


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> int:
    return t.numel()


def equal(a: Tensor, b: Tensor) -> bool:
    import numpy as np

    return a.shape == b.shape and bool(np.array_equal(a.array, b.array))


def promote_types(a: dtypes.DType, b: dtypes.DType) -> dtypes.DType:
    return dtypes.promote(a, b)


# Tensor methods torch has no torch.<name> function for
_METHODS_ONLY = frozenset({"cpu", "cuda", "get_device", "resize", "tril_", "triu_", "new",
                           "numpy", "new_empty_strided"})

TORCH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: fn for name, fn in ops.TENSOR_METHODS.items()
       if not name.endswith("_") and name not in _METHODS_ONLY},
    **{name: ops.TENSOR_METHODS[name] for name in TORCH_INPLACE},
    "addmv_": ops.TENSOR_METHODS["addmv_"],
    "rsub": ops.rsub,  # (a torch function only: Tensor has no rsub method)
    "spmm": ops.TENSOR_METHODS["mm"],  # of dense matrices it is mm (MmBackward0, measured)
    "tensor": creation.tensor, "as_tensor": creation.as_tensor, "zeros": creation.zeros,
    "ones": creation.ones, "empty": creation.empty, "empty_strided": creation.empty_strided,
    "full": creation.full, "zeros_like": creation.zeros_like,
    "ones_like": creation.ones_like, "empty_like": creation.empty_like,
    "full_like": creation.full_like, "arange": creation.arange,
    "linspace": creation.linspace, "logspace": creation.logspace, "eye": creation.eye,
    **sampling.TORCH_FUNCTIONS, "dropout": dropout.torch_dropout,
    "where": ops.where, "is_tensor": is_tensor, "numel": numel,
    "equal": equal, "promote_types": promote_types,
    "is_grad_enabled": grad_mode.is_grad_enabled, "no_grad": grad_mode.no_grad,
    "enable_grad": grad_mode.enable_grad, "set_grad_enabled": grad_mode.set_grad_enabled,
    "inference_mode": grad_mode.inference_mode,
    "is_inference_mode_enabled": grad_mode.is_inference_mode_enabled,
    "set_default_dtype": dtypes.set_default_dtype, "get_default_dtype": dtypes.get_default_dtype,
    "finfo": dtypes.finfo, "iinfo": dtypes.iinfo,
    "Size": Size, "device": _device.Device,
    "set_default_device": _device.set_default_device,
    "get_default_device": _device.get_default_device,
    "cat": ops.cat, "concat": ops.cat, "concatenate": ops.cat, "stack": ops.stack,
    "softmax": ops.tensor_softmax, "log_softmax": ops.tensor_log_softmax,
    "max": ops.max, "min": ops.min,
    # functional ops torch also offers at the top level (ATen's argument order)
    "conv1d": conv.conv1d, "conv2d": conv.conv2d, "conv3d": conv.conv3d,
    "max_pool1d": pooling.max_pool1d, "max_pool2d": pooling.torch_max_pool2d,
    "max_pool3d": pooling3d.torch_max_pool3d,
    "max_pool1d_with_indices": pooling.max_pool1d_with_indices,
    "pixel_shuffle": pixel_shuffle.pixel_shuffle,
    "pixel_unshuffle": pixel_shuffle.pixel_unshuffle,
    "channel_shuffle": pixel_shuffle.channel_shuffle,
    "avg_pool1d": pooling.avg_pool1d, "adaptive_avg_pool1d": pooling.adaptive_avg_pool1d,
    "adaptive_max_pool1d": pooling.torch_adaptive_max_pool1d,
    "embedding": embedding.torch_embedding,
    "embedding_bag": embedding_bag.torch_embedding_bag,
    "instance_norm": norm_composites.torch_instance_norm, "rms_norm": norm_composites.rms_norm,
    "layer_norm": normalization.torch_layer_norm,
    "batch_norm": normalization.torch_batch_norm, "group_norm": normalization.torch_group_norm,
    "cosine_similarity": distance.cosine_similarity,
    "pairwise_distance": distance.pairwise_distance, "relu": ops.relu,
    "threshold": piecewise.threshold, "threshold_": piecewise.threshold_,
    "selu": activations.selu, "selu_": activations.selu_, "pdist": pdist.pdist,
    "hardshrink": piecewise.hardshrink,
    "alpha_dropout": dropout.torch_alpha_dropout, "alpha_dropout_": dropout.torch_alpha_dropout_,
    "feature_alpha_dropout": dropout.torch_feature_alpha_dropout,
    "feature_alpha_dropout_": dropout.torch_feature_alpha_dropout_,
    "constant_pad_nd": padding.constant_pad_nd, "prelu": weighted.prelu,
    "bilinear": weighted.bilinear, "conv_transpose1d": conv_transpose.conv_transpose1d,
    "conv_transpose2d": conv_transpose.conv_transpose2d,
    "conv_transpose3d": conv_transpose.conv_transpose3d,
    "celu": activations.celu, "celu_": activations.celu_, "rrelu": activations.torch_rrelu,
    "rrelu_": activations.rrelu_,
    "std_mean": statistics.std_mean, "var_mean": statistics.var_mean,
    "einsum": einsum.einsum,
    "hinge_embedding_loss": margin_losses.torch_hinge_embedding_loss,
    "triplet_margin_loss": margin_losses.torch_triplet_margin_loss,
    "poisson_nll_loss": likelihood_losses.torch_poisson_nll_loss, "ctc_loss": ctc.torch_ctc_loss,
    "kl_div": nll.torch_kl_div, "margin_ranking_loss": distance.torch_margin_ranking_loss,
    "cosine_embedding_loss": distance.torch_cosine_embedding_loss,
    "binary_cross_entropy_with_logits": losses.torch_binary_cross_entropy_with_logits,
    "is_anomaly_enabled": anomaly.is_anomaly_enabled,
    "is_anomaly_check_nan_enabled": anomaly.is_anomaly_check_nan_enabled,
    "set_anomaly_enabled": anomaly.set_anomaly_enabled,
    **linalg_composite.TORCH_FUNCTIONS, **gamma.TORCH_FUNCTIONS,
    **factorizations.TORCH_FUNCTIONS,
    **gamma_sampling.TORCH_FUNCTIONS, **special_functions.TORCH_FUNCTIONS,
    **softmax.TORCH_FUNCTIONS,
    "_weight_norm": weight_norm.weight_norm,
    "_weight_norm_interface": weight_norm.weight_norm_interface,
    "norm_except_dim": weight_norm.norm_except_dim,
    **scatters.TORCH_FUNCTIONS, **composites.TORCH_FUNCTIONS,
    **ops.copies.TORCH_FUNCTIONS, **ops.histograms.TORCH_FUNCTIONS,
    **fake_quantize.TORCH_FUNCTIONS, **foreach.TORCH_FUNCTIONS,
    **_gradient.TORCH_FUNCTIONS, **_complex_ops.TORCH_FUNCTIONS, **_stft.TORCH_FUNCTIONS,
    # composite shape functions
    "atleast_1d": stacking.atleast_1d, "atleast_2d": stacking.atleast_2d,
    "atleast_3d": stacking.atleast_3d, "hstack": stacking.hstack, "vstack": stacking.vstack,
    "row_stack": stacking.vstack, "dstack": stacking.dstack,
    "column_stack": stacking.column_stack, "meshgrid": stacking.meshgrid,
    "broadcast_tensors": stacking.broadcast_tensors,
    "broadcast_shapes": stacking.broadcast_shapes,
    "cartesian_prod": arrangements.cartesian_prod, "tril_indices": arrangements.tril_indices,
    "triu_indices": arrangements.triu_indices, "searchsorted": arrangements.searchsorted,
    "bucketize": arrangements.bucketize, **signal_windows.FUNCTIONS,
    # in-place functions torch also offers as torch.<name>_
    **{name: ops.TENSOR_METHODS[name] for name in ("deg2rad_", "rad2deg_", "nan_to_num_",
                                                   "zero_", "fill_", "logit_",
                                                   "resize_as_")},
    "detach_": Tensor.detach_,
    # tensors and dtypes
    "result_type": tensor_info.result_type, "can_cast": tensor_info.can_cast,
    "is_floating_point": Tensor.is_floating_point, "is_complex": tensor_info.is_complex,
    "is_signed": tensor_info.is_signed, "is_nonzero": tensor_info.is_nonzero,
    "is_same_size": tensor_info.is_same_size, "scalar_tensor": tensor_info.scalar_tensor,
    "fill": tensor_info.fill, "detach": Tensor.detach, "asarray": tensor_info.asarray,
    **settings.FUNCTIONS,
}

# torch's math constants (torch.pi, torch.nan, ...)
CONSTANTS: dict[str, Any] = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}

# torch functions that take `out=` (measured against torch 2.13's signatures)
OUT_FUNCTIONS = frozenset("""
abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin any arccos
arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin asin asinh atan atan2 atanh baddbmm
bmm cat ceil clamp clamp_max clamp_min clip concat concatenate cos cosh cumsum div dot eq erf
erfc erfinv exp exp2 expm1 fix floor floor_divide fmod frac gather ge ger gt hypot index_select
le lerp log log10 log1p log2 log_softmax logaddexp logical_and logical_not logical_or logical_xor
logsumexp lt matmul max maximum
mean min minimum mm mul mv ne neg negative norm outer pow prod reciprocal remainder round rsqrt
scatter_add sgn sigmoid sign sin sinh softmax spmm sqrt square stack std sub sum tan tanh trunc var
where xlogy digamma i0 lgamma logaddexp2 logcumsumexp mvlgamma polygamma sinc
divide true_divide multiply subtract
""".split())
for _name in OUT_FUNCTIONS & TORCH_FUNCTIONS.keys():
    TORCH_FUNCTIONS[_name] = accepting_out(_name, TORCH_FUNCTIONS[_name])
# torch.spmm is mm's Python binding under a second name (its messages say `mm()`): with the
# strided tensors gradtrace has, it is mm, MmBackward0 included
TORCH_FUNCTIONS["spmm"] = TORCH_FUNCTIONS["mm"]

AUTOGRAD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "grad": _backward.grad,
    "backward": _backward.backward,
    "set_detect_anomaly": anomaly.set_detect_anomaly,
    "detect_anomaly": anomaly.detect_anomaly,
    **GRADCHECK,
    # torch.autograd.grad_mode's, which torch.autograd exports too
    "no_grad": grad_mode.no_grad, "enable_grad": grad_mode.enable_grad,
    "set_grad_enabled": grad_mode.set_grad_enabled, "inference_mode": grad_mode.inference_mode,
}

# torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp
AUTOGRAD_FUNCTIONAL: dict[str, Callable[..., Any]] = dict(_AUTOGRAD_FUNCTIONAL)

FUNCTIONAL: dict[str, Callable[..., Any]] = {
    "relu": activations.relu, "leaky_relu": activations.leaky_relu, "gelu": activations.gelu,
    "silu": activations.silu, "softplus": activations.softplus, "elu": activations.elu,
    "sigmoid": ops.sigmoid, "tanh": ops.tanh, "softmax": softmax.softmax,
    "scaled_dot_product_attention": attention.scaled_dot_product_attention,
    "log_softmax": softmax.log_softmax, "mse_loss": losses.mse_loss, "l1_loss": losses.l1_loss,
    "cross_entropy": nll.cross_entropy, "nll_loss": nll.nll_loss, "kl_div": nll.kl_div,
    "smooth_l1_loss": losses.smooth_l1_loss, "huber_loss": losses.huber_loss,
    "soft_margin_loss": losses.soft_margin_loss,
    "margin_ranking_loss": distance.margin_ranking_loss,
    "cosine_embedding_loss": distance.cosine_embedding_loss,
    "hinge_embedding_loss": margin_losses.hinge_embedding_loss,
    "multi_margin_loss": margin_losses.multi_margin_loss,
    "multilabel_margin_loss": margin_losses.multilabel_margin_loss,
    "multilabel_soft_margin_loss": margin_losses.multilabel_soft_margin_loss,
    "triplet_margin_loss": margin_losses.triplet_margin_loss,
    "triplet_margin_with_distance_loss": margin_losses.triplet_margin_with_distance_loss,
    "poisson_nll_loss": likelihood_losses.poisson_nll_loss, "ctc_loss": ctc.ctc_loss,
    "gaussian_nll_loss": likelihood_losses.gaussian_nll_loss,
    "normalize": distance.normalize, "cosine_similarity": distance.cosine_similarity,
    "pairwise_distance": distance.pairwise_distance,
    "conv1d": conv.conv1d, "conv2d": conv.conv2d, "conv3d": conv.conv3d, "pad": padding.pad,
    "pixel_shuffle": pixel_shuffle.pixel_shuffle,
    "pixel_unshuffle": pixel_shuffle.pixel_unshuffle,
    "channel_shuffle": pixel_shuffle.channel_shuffle,
    "unfold": windows.im2col, "fold": windows.fold,
    "max_pool1d": pooling.max_pool1d, "max_pool2d": pooling.max_pool2d,
    "avg_pool1d": pooling.avg_pool1d, "avg_pool2d": pooling.avg_pool2d,
    "adaptive_avg_pool1d": pooling.adaptive_avg_pool1d,
    "adaptive_avg_pool2d": pooling.adaptive_avg_pool2d,
    "adaptive_max_pool1d": pooling.adaptive_max_pool1d,
    "adaptive_max_pool2d": pooling.adaptive_max_pool2d,
    "max_pool1d_with_indices": pooling.max_pool1d_with_indices,
    "max_pool2d_with_indices": pooling.max_pool2d_with_indices,
    "adaptive_max_pool1d_with_indices": pooling.adaptive_max_pool1d_with_indices,
    "adaptive_max_pool2d_with_indices": pooling.adaptive_max_pool2d_with_indices,
    "max_pool3d": pooling3d.max_pool3d,
    "max_pool3d_with_indices": pooling3d.max_pool3d_with_indices,
    "adaptive_avg_pool3d": pooling3d.adaptive_avg_pool3d,
    "adaptive_max_pool3d": pooling3d.adaptive_max_pool3d,
    "adaptive_max_pool3d_with_indices": pooling3d.adaptive_max_pool3d_with_indices,
    "affine_grid": grid_sample.affine_grid, "grid_sample": grid_sample.grid_sample,
    "selu_": activations.selu_, "pdist": pdist.pdist,
    "fractional_max_pool2d": fractional_pool.fractional_max_pool2d,
    "fractional_max_pool2d_with_indices": fractional_pool.fractional_max_pool2d_with_indices,
    "fractional_max_pool3d": fractional_pool.fractional_max_pool3d,
    "fractional_max_pool3d_with_indices": fractional_pool.fractional_max_pool3d_with_indices,
    "embedding": embedding.embedding, "one_hot": embedding.one_hot,
    "embedding_bag": embedding_bag.embedding_bag,
    "instance_norm": norm_composites.instance_norm, "rms_norm": norm_composites.rms_norm,
    "local_response_norm": norm_composites.local_response_norm,
    "avg_pool3d": pooling_nd.avg_pool3d, "max_unpool1d": pooling_nd.max_unpool1d,
    "max_unpool2d": pooling_nd.max_unpool2d, "max_unpool3d": pooling_nd.max_unpool3d,
    "lp_pool1d": pooling_nd.lp_pool1d, "lp_pool2d": pooling_nd.lp_pool2d,
    "lp_pool3d": pooling_nd.lp_pool3d,
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
    "dropout1d": dropout.dropout1d, "dropout3d": dropout.dropout3d,
    "alpha_dropout": dropout.alpha_dropout,
    "feature_alpha_dropout": dropout.feature_alpha_dropout,
    "prelu": weighted.prelu, "bilinear": weighted.bilinear,
    "conv_transpose1d": conv_transpose.conv_transpose1d,
    "conv_transpose2d": conv_transpose.conv_transpose2d,
    "conv_transpose3d": conv_transpose.conv_transpose3d, "interpolate": upsample.interpolate,
}

# torch.nn.init
INIT_FUNCTIONS: dict[str, Callable[..., Any]] = dict(init.INIT_FUNCTIONS)

# torch.linalg
LINALG_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "vector_norm": norms.vector_norm, "matmul": ops.matmul, "cross": linalg.linalg_cross,
    **linalg_composite.LINALG_FUNCTIONS, **composites.LINALG_FUNCTIONS,
    **factorizations.LINALG_FUNCTIONS,
}



def _special(fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch.special's own function object for an op torch also has at the top level: the
    argument checks find torch's parser by function (a shared one would be checked by
    neither name's signatures)."""
    @functools.wraps(fn)
    def special(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)
    return special


# torch.special: the functions gradtrace has under their torch.special names
SPECIAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: _special(TORCH_FUNCTIONS[name]) for name in (
        "erf", "erfc", "erfinv", "expm1", "exp2", "log1p", "round", "logit", "xlogy",
        "logsumexp", "log_softmax", "softmax")},
    "expit": _special(TORCH_FUNCTIONS["sigmoid"]), "ndtr": float_ops.ndtr,
    **{name: _special(fn) for name, fn in gamma.SPECIAL_FUNCTIONS.items()},
    **special_functions.SPECIAL_FUNCTIONS,
}

# torch.nn's engine-level names (the layers are library code built on these)
NN: dict[str, Any] = {"Parameter": Parameter}

# torch.cuda and torch.backends.mps as a CPU-only build has them
CUDA_FUNCTIONS: dict[str, Callable[..., Any]] = dict(_device.CUDA_FUNCTIONS)
MPS_FUNCTIONS: dict[str, Callable[..., Any]] = dict(_device.MPS_FUNCTIONS)
XPU_FUNCTIONS: dict[str, Callable[..., Any]] = dict(_device.XPU_FUNCTIONS)
ACCELERATOR_FUNCTIONS: dict[str, Callable[..., Any]] = dict(_device.ACCELERATOR_FUNCTIONS)

DTYPES: dict[str, dtypes.DType] = dict(dtypes.ALIASES)
