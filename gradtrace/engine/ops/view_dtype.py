"""Tensor.view(dtype): the same memory read as another dtype (bit reinterpretation), as
torch 2.13's view.dtype makes it (measured): not differentiable (no grad_fn, requires no
grad, whatever its input), sharing the input's memory and version counter but no `_base`;
an element size that differs rescales the last dim, after torch's checks and messages."""
from __future__ import annotations

from ...errors import TorchRuntimeError
from .. import conj_bit
from ..dtypes import DType
from ..meta import MetaArray, meta_array
from ..tensor import Tensor
from .tensor_info import storage_offset
from .views import tensor_strides


def _check_sizes(a: Tensor, dtype: DType) -> None:
    """at::native::view_dtype's checks, for element sizes that differ."""
    old, new = a.dtype.itemsize, dtype.itemsize
    what = f"to view {a.dtype.scalar_type} as {dtype.scalar_type} (different element sizes)"
    if a.array.ndim == 0:
        raise TorchRuntimeError(f"self.dim() cannot be 0 {what}")
    strides = tensor_strides(a)
    if strides[-1] != 1:
        raise TorchRuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    if old > new:
        return
    ratio = new // old
    if a.array.shape[-1] % ratio:
        raise TorchRuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                                f"{a.array.shape[-1]}")
    offset = storage_offset(a)
    if offset % ratio:
        raise TorchRuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, "
                                f"but got {offset}")
    for i, stride in enumerate(strides[:-1]):
        if stride % ratio:
            raise TorchRuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, "
                                    f"but got {stride}")


def view_dtype(a: Tensor, dtype: DType) -> Tensor:
    """`a.view(dtype)`."""
    if conj_bit.is_conj(a):  # (torch checks it whatever the dtype)
        raise TorchRuntimeError("torch.Tensor.view is not supported for conjugate view "
                                "tensors when converting to a different dtype.")
    if conj_bit.is_neg(a):  # (so too, even to its own dtype)
        raise TorchRuntimeError("torch.Tensor.view is not supported for tensors with "
                                "negative bit set when converting to a different dtype.")
    if dtype.itemsize != a.dtype.itemsize:
        _check_sizes(a, dtype)
    if type(a.array) is MetaArray:
        shape = a.array.shape
        if shape:
            shape = shape[:-1] + (shape[-1] * a.dtype.itemsize // dtype.itemsize,)
        array = meta_array(shape, dtype.np)
    else:
        array = a.array.view(dtype.np)
    out = Tensor._wrap(array)
    out._version_counter = a._version_counter
    return out
