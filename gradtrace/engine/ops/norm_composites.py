"""The normalizations torch composes from other ops, recording the same nodes:
instance_norm (batch_norm over the input viewed as one sample of N x C channels, its
affine parameters and running statistics repeated N times), local_response_norm
(torch/nn/functional.py: a padded average pool over channels) and rms_norm (ATen's
composite: x * rsqrt(mean(x²) + eps) * weight)."""
from __future__ import annotations

import numpy as np

from ...errors import TorchRuntimeError, TorchValueError
from ..grad_mode import no_grad
from ..shapes import Size
from ..tensor import Tensor
from .normalization import batch_norm
from .padding import pad


def _verify_spatial_size(shape: tuple[int, ...]) -> None:
    if int(np.prod(shape[2:], dtype=np.int64)) == 1:
        raise TorchValueError(
            f"Expected more than 1 spatial element when training, got input size {Size(shape)}")


def torch_instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                        running_mean: Tensor | None, running_var: Tensor | None,
                        use_input_stats: bool, momentum: float, eps: float,
                        cudnn_enabled: bool = True) -> Tensor:
    """torch.instance_norm (Normalization.cpp)."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise TorchRuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false")
    shape = input.array.shape
    b, c = shape[0], shape[1]
    folded = (1, b * c) + shape[2:]

    def repeated(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.repeat(b)

    mean_, var_ = repeated(running_mean), repeated(running_var)
    out = batch_norm(input.contiguous().view(folded), mean_, var_, repeated(weight),
                     repeated(bias), use_input_stats, momentum, eps)
    with no_grad():  # at::alias(running_mean).copy_(...): the statistics averaged back
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0))
    return out.view(shape)


def instance_norm(input: Tensor, running_mean: Tensor | None = None,  # noqa: A002
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """F.instance_norm."""
    if use_input_stats:
        _verify_spatial_size(input.array.shape)
    return torch_instance_norm(input, weight, bias, running_mean, running_var,
                               use_input_stats, momentum, eps)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4,  # noqa: A002
                        beta: float = 0.75, k: float = 1.0) -> Tensor:
    """F.local_response_norm, as torch/nn/functional.py writes it."""
    from .pooling import avg_pool2d
    from .pooling_nd import avg_pool3d

    dim = input.array.ndim
    if dim < 3:
        raise TorchValueError(
            f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} dimensions)")
    if input.array.size == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def rms_norm(input: Tensor, normalized_shape: list[int] | tuple[int, ...],  # noqa: A002
             weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """torch.rms_norm (layer_norm.cpp's rms_norm_symint)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    x_shape = input.array.shape
    n = len(shape)
    if n == 0 or tuple(x_shape[len(x_shape) - n:]) != shape or len(x_shape) < n:
        raise TorchRuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(x_shape)}")
    if weight is not None and tuple(weight.array.shape) != shape:
        raise TorchRuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.array.shape)} and normalized_shape = {list(shape)}")
    if eps is None:
        eps = float(np.finfo(input.array.dtype).eps)
    dims = tuple(range(len(x_shape) - 1, len(x_shape) - n - 1, -1))
    from ._util import apply_inplace
    from .scalar import AddBackward1

    # `.add_(eps)` in C++: the Scalar overload, in place (AddBackward1)
    rsqrt_input = apply_inplace(AddBackward1, input.pow(2).mean(dims, keepdim=True),
                                other=eps).rsqrt()
    result = input.mul(rsqrt_input)
    return result if weight is None else result.mul(weight)


__all__ = ["instance_norm", "torch_instance_norm", "local_response_norm", "rms_norm"]
