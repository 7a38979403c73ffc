"""The window functions (hann, hamming, blackman, bartlett, kaiser), computed as ATen's
TensorFactories.cpp computes them: arange in the window's dtype, then its in-place
multiplications, cos and additions one op at a time, so every rounding is torch's (kaiser:
its CPU kernel's scalar formula, element by element)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import dtypes, fp64, gamma_kernels
from ..dtypes import DType
from ..tensor import Tensor
from .creation import arange, ones
from .scalar import add_scalar, mul_scalar
from .select_views import narrow

# the C++ type names TensorOptions prints
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _start(name: str, window_length: int, dtype: DType | None,
           requires_grad: bool) -> tuple[Tensor | None, DType]:
    """The empty and one-element windows, and the checks every window makes."""
    dtype = dtype or dtypes.DEFAULT_FLOAT
    if not dtype.is_floating_point:
        raise TorchRuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_CPP_NAMES[dtype.name]}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise TorchRuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length == 0:
        return Tensor._wrap(arange(0, dtype=dtype).array).requires_grad_(requires_grad), dtype
    if window_length == 1:
        return ones(1, dtype=dtype, requires_grad=requires_grad), dtype
    return None, dtype


def _finish(window: Tensor, length: int, periodic: bool, requires_grad: bool) -> Tensor:
    out = narrow(window, 0, 0, length - 1) if periodic else window
    out = Tensor._wrap(out.array.copy() if periodic else out.array)
    return out.requires_grad_(requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: DType | None = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False) -> Tensor:
    early, dtype = _start("hamming_window", window_length, dtype, requires_grad)
    if early is not None:
        return early
    length = window_length + 1 if periodic else window_length
    window = arange(length, dtype=dtype)
    window = mul_scalar(window, math.pi * 2.0 / (length - 1)).cos()
    window = add_scalar(mul_scalar(window, -beta), alpha)
    return _finish(window, length, periodic, requires_grad)


def hann_window(window_length: int, periodic: bool = True, *, dtype: DType | None = None,
                layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _start("hann_window", window_length, dtype, requires_grad)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype,
                          requires_grad=requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: DType | None = None,
                    layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:
    early, dtype = _start("blackman_window", window_length, dtype, requires_grad)
    if early is not None:
        return early
    length = window_length + 1 if periodic else window_length
    base = mul_scalar(arange(length, dtype=dtype), math.pi / (length - 1))
    first = mul_scalar(mul_scalar(base, 4).cos(), 0.08)
    second = mul_scalar(mul_scalar(base, 2).cos(), 0.5)
    window = add_scalar(first - second, 0.42)
    return _finish(window, length, periodic, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: DType | None = None,
                    layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:
    early, dtype = _start("bartlett_window", window_length, dtype, requires_grad)
    if early is not None:
        return early
    length = window_length + 1 if periodic else window_length
    window = mul_scalar(arange(length, dtype=dtype), 2.0 / (length - 1))
    half = ((length - 1) >> 1) + 1
    tail = window.array[half:]
    tail[...] = add_scalar(mul_scalar(Tensor._wrap(tail.copy()), -1), 2).array
    return _finish(window, length, periodic, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: DType | None = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """kaiser_window_kernel (UnaryOpsKernel.cpp) on arange(length): in opmath (float for the
    half types) with alpha = (length - 1) / 2, i0(beta sqrt|1 - ((a - alpha) / alpha)^2|)
    / i0(beta), where pow(x, 2) is x*x and GCC contracts 1 - x*x into an fma."""
    early, dtype = _start("kaiser_window", window_length, dtype, requires_grad)
    if early is not None:
        return early
    length = window_length + 1 if periodic else window_length
    initial = arange(length, dtype=dtype).array
    op = np.float64 if initial.dtype == np.float64 else np.float32
    a = initial.astype(op)
    alpha = op((length - 1) / 2.0)
    b = op(beta)
    x = (a - alpha) / alpha
    if op is np.float64:
        inner = fp64.fma(-x, x, np.ones_like(x))
    else:  # the float product is exact in double: one rounding of the double result
        inner = (1.0 - x.astype(np.float64) * x.astype(np.float64)).astype(np.float32)
    with np.errstate(all="ignore"):
        num = gamma_kernels.i0(b * np.sqrt(np.abs(inner)))
        den = gamma_kernels.i0(np.array([b], dtype=op))[0]
        out = (num / den).astype(initial.dtype)
    return _finish(Tensor._wrap(out), length, periodic, requires_grad)


FUNCTIONS = {"hamming_window": hamming_window, "hann_window": hann_window,
             "blackman_window": blackman_window, "bartlett_window": bartlett_window,
             "kaiser_window": kaiser_window}
