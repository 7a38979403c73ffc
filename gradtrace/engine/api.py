"""The `torch` and `torch.nn.functional` namespaces a script can use: name -> callable.

These tables are the allow-list: the interpreter resolves `torch.<name>` and
`F.<name>` here and nowhere else.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import anomaly, dtypes, grad_mode, ops
from . import backward as _backward
from .custom_function import FUNCTION, once_differentiable
from .functional import FUNCTIONAL
from .gradcheck import GRADCHECK
from .ops import creation, dropout, init, nn, reductions, sampling
from .shapes import Size
from .tensor import Tensor


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


TORCH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: fn for name, fn in ops.TENSOR_METHODS.items() if not name.endswith("_")},
    "tensor": creation.tensor, "zeros": creation.zeros, "ones": creation.ones,
    "empty": creation.empty, "full": creation.full, "zeros_like": creation.zeros_like,
    "ones_like": creation.ones_like, "empty_like": creation.empty_like,
    "full_like": creation.full_like, "arange": creation.arange,
    "linspace": creation.linspace, "eye": creation.eye,
    **sampling.TORCH_FUNCTIONS, "dropout": dropout.torch_dropout,
    "where": ops.where, "is_tensor": is_tensor, "numel": numel, "allclose": allclose,
    "equal": equal, "promote_types": promote_types,
    "is_grad_enabled": grad_mode.is_grad_enabled, "no_grad": grad_mode.no_grad,
    "enable_grad": grad_mode.enable_grad, "set_grad_enabled": grad_mode.set_grad_enabled,
    "Size": Size,
    "cat": ops.cat, "concat": ops.cat, "concatenate": ops.cat, "stack": ops.stack,
    "softmax": ops.tensor_softmax, "log_softmax": ops.tensor_log_softmax,
    "max": ops.max, "min": ops.min,
    "is_anomaly_enabled": anomaly.is_anomaly_enabled,
    "is_anomaly_check_nan_enabled": anomaly.is_anomaly_check_nan_enabled,
    "set_anomaly_enabled": anomaly.set_anomaly_enabled,
}

AUTOGRAD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "grad": _backward.grad,
    "backward": _backward.backward,
    "Function": FUNCTION,
    "set_detect_anomaly": anomaly.set_detect_anomaly,
    "detect_anomaly": anomaly.detect_anomaly,
    **GRADCHECK,
}

# torch.autograd.function (Function itself is what a script's class names as its base)
AUTOGRAD_FUNCTION_MODULE: dict[str, Any] = {
    "Function": FUNCTION, "once_differentiable": once_differentiable,
}

# torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp
AUTOGRAD_FUNCTIONAL: dict[str, Callable[..., Any]] = dict(FUNCTIONAL)

FUNCTIONAL: dict[str, Callable[..., Any]] = {
    "relu": nn.relu, "leaky_relu": nn.leaky_relu, "gelu": nn.gelu, "silu": nn.silu,
    "softplus": nn.softplus, "elu": nn.elu, "sigmoid": ops.sigmoid, "tanh": ops.tanh,
    "softmax": nn.softmax, "log_softmax": nn.log_softmax,
    "mse_loss": nn.mse_loss, "l1_loss": nn.l1_loss, "cross_entropy": nn.cross_entropy,
    "nll_loss": nn.nll_loss, "binary_cross_entropy": nn.binary_cross_entropy,
    "binary_cross_entropy_with_logits": nn.binary_cross_entropy_with_logits,
    "linear": ops.linear, "dropout": dropout.dropout, "dropout2d": dropout.dropout2d,
}

# torch.nn.init
INIT_FUNCTIONS: dict[str, Callable[..., Any]] = dict(init.INIT_FUNCTIONS)

# torch.linalg
LINALG_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "norm": reductions.linalg_norm, "vector_norm": reductions.vector_norm,
    "matmul": ops.matmul,
}

DTYPES: dict[str, dtypes.DType] = dict(dtypes.ALIASES)
