"""torch.fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine: quantise and
dequantise in one step, for quantisation-aware training written by hand. The forward is
torch's CPU cachemask kernels: q = int64(zero_point + nearbyint(x * (1 / scale))), the scale
a float32 and its inverse taken in float32; the output (clamp(q, quant_min, quant_max) -
zero_point) * scale in double, stored in x's dtype; the mask where q was not clamped. The
backward is the straight-through estimator torch saves the mask for: grad * mask."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes
from ..formulas import vjp
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor
from ._util import not_implemented
from .arithmetic import mul


def _fake_quantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, quant_min: int,
                   quant_max: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' arithmetic, elementwise over broadcast scale and zero_point arrays."""
    compute = np.float32 if x.dtype.itemsize <= 4 else x.dtype.type
    scale = scale.astype(np.float32)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv_scale = np.float32(1) / scale
        rounded = np.rint(x.astype(compute) * inv_scale)
        q = (zero_point.astype(np.float32).astype(rounded.dtype) + rounded).astype(np.int64)
        out = (np.clip(q, quant_min, quant_max) - zero_point.astype(np.float64)) \
            * scale.astype(np.float64)
    return out.astype(x.dtype), (quant_min <= q) & (q <= quant_max)


def _check_range(quant_min: int, quant_max: int) -> None:
    if quant_min > quant_max:  # (torch's message keeps its source's line continuation)
        raise TorchRuntimeError("`quant_min` should be less than or         equal to "
                                "`quant_max`.")


def _float_input(a: Tensor, kernel: str) -> np.ndarray:
    if a.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
        raise not_implemented(kernel, a.dtype)
    return a.array


class FakeQuantizePerTensorAffineCachemaskBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{grad} × {mask}"),)
    # torch has no forward-mode formula (measured)
    no_forward_ad = "fake_quantize_per_tensor_affine_cachemask"

    def forward(self, a: Tensor, scale: Any, zero_point: Any, quant_min: int,
                quant_max: int) -> np.ndarray:
        x = _float_input(a, "fake_quantize_tensor_cachemask_kernel_type_handling")
        out, mask = _fake_quantize(x, np.asarray(scale), np.asarray(zero_point), quant_min,
                                   quant_max)
        self.save("mask", Tensor._wrap(mask))
        return out

    def backward(self, grad: Tensor) -> Tensor:
        return mul(grad, self.unpack("mask"))


class FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0(
        FakeQuantizePerTensorAffineCachemaskBackward0):
    """The overload of tensor scale and zero_point (no range check of the zero point)."""

    __slots__ = ()
    no_forward_ad = "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams"


class FakeQuantizePerChannelAffineCachemaskBackward0(
        FakeQuantizePerTensorAffineCachemaskBackward0):
    """scale and zero_point are parameters, not inputs: torch's node has self's edge only."""

    __slots__ = ()
    no_forward_ad = "fake_quantize_per_channel_affine_cachemask"

    def forward(self, a: Tensor, scale: np.ndarray, zero_point: np.ndarray,  # type: ignore[override]
                axis: int, quant_min: int, quant_max: int) -> np.ndarray:
        x = _float_input(a, "fake_quantize_channel_cachemask_cpu_type_handling")
        shape = [1] * x.ndim
        shape[axis] = -1
        out, mask = _fake_quantize(x, scale.reshape(shape), zero_point.reshape(shape),
                                   quant_min, quant_max)
        self.save("mask", Tensor._wrap(mask))
        return out


def fake_quantize_per_tensor_affine(input: Tensor, scale: Any, zero_point: Any,  # noqa: A002
                                    quant_min: int, quant_max: int) -> Tensor:
    """Both overloads: (float scale, int zero_point) checks the zero point's range; tensor
    qparams are read as numbers (one element each)."""
    _check_range(quant_min, quant_max)
    if isinstance(scale, Tensor):
        scale_value, zero_value = scale.item(), zero_point.item()
        return FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0.call(
            input, scale=scale_value, zero_point=zero_value, quant_min=quant_min,
            quant_max=quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise TorchRuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    return FakeQuantizePerTensorAffineCachemaskBackward0.call(
        input, scale=scale, zero_point=zero_point, quant_min=quant_min, quant_max=quant_max)


def fake_quantize_per_channel_affine(input: Tensor, scale: Tensor,  # noqa: A002
                                     zero_point: Tensor, axis: int, quant_min: int,
                                     quant_max: int) -> Tensor:
    """torch's checks in its order (FakeQuantPerChannelAffine.cpp)."""
    if scale.dtype is not dtypes.float32:
        raise TorchRuntimeError(f"Scale must be Float or BFloat16, found "
                                f"{scale.dtype.scalar_type}")
    if zero_point.dtype not in (dtypes.int32, dtypes.float32, dtypes.float16):
        raise TorchRuntimeError(f"Zero-point must be Int32, Float or Half, found "
                                f"{zero_point.dtype.scalar_type}")
    if scale.array.ndim != 1:
        raise TorchRuntimeError("scale should be a 1-D tensor")
    if zero_point.array.ndim != 1:
        raise TorchRuntimeError("zero point should be a 1-D tensor")
    if scale.array.size != zero_point.array.size:
        raise TorchRuntimeError("scale and zero-point need to have the same dimensions")
    d = wrap_dim(axis, input.array.ndim)
    if scale.array.size != input.array.shape[d]:
        raise TorchRuntimeError("dimensions of scale and zero-point are not consistent with "
                                "input tensor")
    _check_range(quant_min, quant_max)
    if zero_point.dtype is dtypes.int32 and zero_point.array.size and not (
            zero_point.array.min() >= quant_min and zero_point.array.max() <= quant_max):
        raise TorchRuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    if not 0 <= axis <= input.array.ndim:  # (the size above took a negative axis)
        raise TorchRuntimeError("`axis` must be between 0 and number of dimensions of input")
    return FakeQuantizePerChannelAffineCachemaskBackward0.call(
        input, scale=scale.array, zero_point=zero_point.array, axis=d, quant_min=quant_min,
        quant_max=quant_max)


TORCH_FUNCTIONS: dict[str, Any] = {
    "fake_quantize_per_tensor_affine": fake_quantize_per_tensor_affine,
    "fake_quantize_per_channel_affine": fake_quantize_per_channel_affine,
}
