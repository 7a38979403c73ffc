"""What torch tells about tensors and dtypes (result_type, can_cast, is_complex, is_signed,
is_nonzero, is_same_size, storage_offset, nbytes, itemsize), and the small constructors and
conversions beside them: scalar_tensor, torch.fill, sum_to_size, byte/char/short."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import conj_bit, dtypes
from ..dtypes import DType
from ..formulas import local
from ..shapes import is_expandable_to, size_args
from ..tensor import Tensor
from .clones import to
from .creation import FillBackward0
from .views import sum_to


def result_type(tensor: Any, other: Any) -> DType:
    """torch.result_type of two operands, tensors or Python numbers."""
    tensors = [(t.dtype, t.array.ndim) for t in (tensor, other) if isinstance(t, Tensor)]
    scalars = [s for s in (tensor, other) if not isinstance(s, Tensor)]
    return dtypes.result_type(tensors, scalars)


def can_cast(from_: DType, to: DType) -> bool:  # noqa: A002 - torch's names
    """torch.can_cast: c10's canCast."""
    return dtypes.can_cast(from_, to)


def is_complex(t: Tensor) -> bool:
    return t.dtype.is_complex


def is_signed(t: Tensor) -> bool:
    return t.dtype.is_signed


def is_nonzero(t: Tensor) -> bool:
    if t.array.size == 0:
        raise TorchRuntimeError("Boolean value of Tensor with no values is ambiguous")
    if t.array.size > 1:
        raise TorchRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(t.array.reshape(()) != 0)


def is_same_size(t: Tensor, other: Tensor) -> bool:
    return t.array.shape == other.array.shape


def storage_offset(t: Tensor) -> int:
    """Elements between the start of the storage (the base's) and the tensor's first one."""
    if t._base is None or not t.array.size:
        return 0
    here = conj_bit.in_storage(t).__array_interface__["data"][0]
    start = t._base.array.__array_interface__["data"][0]
    return (here - start) // t.dtype.itemsize


def nbytes(t: Tensor) -> int:
    return t.array.size * t.dtype.itemsize


def itemsize(t: Tensor) -> int:
    return t.dtype.itemsize


def ndimension(t: Tensor) -> int:
    return t.array.ndim


def scalar_tensor(s: Any, *, dtype: DType | None = None, device: Any = None,
                  requires_grad: bool = False, **_: Any) -> Tensor:
    """A 0-d tensor of the default float dtype (whatever the number's type) unless given."""
    from .creation import tensor

    value = s.item() if isinstance(s, Tensor) else s
    return tensor(value, dtype=dtype or dtypes.DEFAULT_FLOAT, requires_grad=requires_grad)


class FillBackward1(FillBackward0):
    """torch.fill(t, value) with a 0-d tensor value: its gradient is the sum of grad."""

    __slots__ = ()
    formulas = (local("self", "0"), local("value", "1"))

    def forward(self, a: Tensor, value: Tensor) -> np.ndarray:  # type: ignore[override]
        if value.array.ndim:
            raise TorchRuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.array.ndim} dimensions.")
        return np.full_like(a.array, value.array.item())

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor | None]:  # type: ignore[override]
        from .creation import zeros_like

        return zeros_like(grad), grad.sum() if self.needs_input_grad(1) else None


def fill(t: Tensor, value: Any) -> Tensor:
    """torch.fill: a new tensor of t's shape and dtype holding value (FillBackward0/1)."""
    if isinstance(value, Tensor):
        return FillBackward1.call(t, value)
    return FillBackward0.call(t, value=value)


def sum_to_size(t: Tensor, *size: Any) -> Tensor:
    shape = size_args(size)
    if not is_expandable_to(shape, t.array.shape):
        raise TorchRuntimeError(
            f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size "
            f"{{[{', '.join(map(str, t.array.shape))}]}}.")
    return t if shape == t.array.shape else sum_to(t, shape)


def byte(t: Tensor) -> Tensor:
    return to(t, dtypes.uint8)


def char(t: Tensor) -> Tensor:
    return to(t, dtypes.int8)


def short(t: Tensor) -> Tensor:
    return to(t, dtypes.int16)


def half(t: Tensor) -> Tensor:
    return to(t, dtypes.float16)


def bfloat16(t: Tensor) -> Tensor:
    return to(t, dtypes.bfloat16)


_ASARRAY_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/"
    "tensor_new.cpp:1737.)")


def asarray(obj: Any, *, dtype: DType | None = None, device: Any = None,
            copy: bool | None = None, requires_grad: bool | None = None) -> Tensor:
    """torch.asarray: a tensor is returned as it is (converted with `to` for another dtype,
    cloned for copy=True, keeping its history); other data becomes a new tensor."""
    if not isinstance(obj, Tensor):
        from .creation import tensor

        return tensor(obj, dtype=dtype, requires_grad=bool(requires_grad))
    if requires_grad is None and obj.requires_grad:  # TORCH_WARN_ONCE: once per run
        from .creation import WARNINGS, OnceWarning

        WARNINGS.append(OnceWarning(f"UserWarning: {_ASARRAY_WARNING}", "asarray"))
    out = obj
    if dtype is not None and dtype is not obj.dtype:
        out = to(obj, dtype)
    elif copy:
        from .clones import clone

        out = clone(obj)
    if requires_grad is False and out.requires_grad:
        out = out.detach()
    return out
