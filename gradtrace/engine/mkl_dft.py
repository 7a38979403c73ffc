"""MKL's discrete Fourier transforms (DFTI), called as torch 2.13's CPU FFTs call them
(aten/src/ATen/native/mkl/SpectralOps.cpp: `_plan_mkl_fft`, `_exec_fft`).

torch's x86 wheel computes every FFT with the MKL it links statically, so its bits are
MKL's: numpy's pocketfft differs in the last bits of most float32 outputs. With the `mkl`
wheel of torch's version (engine/mkl.py) the same descriptor gives the same bits: measured
bit for bit on real-to-complex and complex-to-complex transforms of 16 to 4,096 points,
float32 and float64, batched. The descriptor must be created as torch's does: a
one-dimensional transform through `DftiCreateDescriptor_?_1d` with a scalar length (the
`_md` form with a length array picks other code and differs in most outputs).

Without that MKL the transform is numpy's in float64 (complex128), rounded once to the
result's dtype, and the run notes it.
"""
from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from . import exactness

# mkl_dfti.h's DFTI_CONFIG_PARAM and DFTI_CONFIG_VALUE
_FORWARD_SCALE, _BACKWARD_SCALE, _NUMBER_OF_TRANSFORMS = 4, 5, 7
_CONJUGATE_EVEN_STORAGE, _PLACEMENT, _INPUT_STRIDES, _OUTPUT_STRIDES = 10, 11, 12, 13
_INPUT_DISTANCE, _OUTPUT_DISTANCE = 14, 15
_COMPLEX, _REAL, _SINGLE, _DOUBLE = 32, 33, 35, 36
_COMPLEX_COMPLEX, _NOT_INPLACE = 39, 44

# torch's fft_norm_mode
NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2

_HANDLE = ctypes.c_void_p
_LONG = ctypes.c_long


def _checked(lib: Any, status: int) -> None:
    if status:
        message = lib.symbol("DftiErrorMessage", ctypes.c_char_p, [_LONG])(status)
        raise RuntimeError(f"MKL FFT error: {message.decode('ascii', 'replace')}")


def _plan(lib: Any, in_strides: list[int], out_strides: list[int], sizes: list[int],
          complex_input: bool, complex_output: bool, normalization: int, forward: bool,
          double: bool) -> _HANDLE:
    """torch's `_plan_mkl_fft`: `sizes` is the batch then the full (two-sided) signal;
    strides are in elements of each side's own type, the batch's first."""
    prefix = "d" if double else "s"
    signal_ndim = len(sizes) - 1
    domain = _COMPLEX if (complex_input if forward else complex_output) else _REAL
    handle = _HANDLE()
    if signal_ndim == 1:
        create = lib.symbol(f"DftiCreateDescriptor_{prefix}_1d", _LONG,
                            [ctypes.POINTER(_HANDLE), ctypes.c_int, _LONG])
        _checked(lib, create(ctypes.byref(handle), domain, sizes[1]))
    else:
        create = lib.symbol(f"DftiCreateDescriptor_{prefix}_md", _LONG,
                            [ctypes.POINTER(_HANDLE), ctypes.c_int, _LONG, ctypes.c_void_p])
        lengths = (_LONG * signal_ndim)(*sizes[1:])
        _checked(lib, create(ctypes.byref(handle), domain, signal_ndim,
                             ctypes.cast(lengths, ctypes.c_void_p)))
    # (variadic: no argument types; each value is passed with its own C type)
    set_value = lib.symbol("DftiSetValue", _LONG, None)
    try:
        _checked(lib, set_value(handle, ctypes.c_int(_PLACEMENT), ctypes.c_int(_NOT_INPLACE)))
        _checked(lib, set_value(handle, ctypes.c_int(_NUMBER_OF_TRANSFORMS), _LONG(sizes[0])))
        _checked(lib, set_value(handle, ctypes.c_int(_INPUT_DISTANCE), _LONG(in_strides[0])))
        _checked(lib, set_value(handle, ctypes.c_int(_OUTPUT_DISTANCE), _LONG(out_strides[0])))
        # (the first of each stride list is the offset, ignored)
        _checked(lib, set_value(handle, ctypes.c_int(_INPUT_STRIDES),
                                (_LONG * (signal_ndim + 1))(0, *in_strides[1:])))
        _checked(lib, set_value(handle, ctypes.c_int(_OUTPUT_STRIDES),
                                (_LONG * (signal_ndim + 1))(0, *out_strides[1:])))
        if not complex_input or not complex_output:
            _checked(lib, set_value(handle, ctypes.c_int(_CONJUGATE_EVEN_STORAGE),
                                    ctypes.c_int(_COMPLEX_COMPLEX)))
        if normalization != NORM_NONE:
            numel = math.prod(sizes[1:])
            scale = 1.0 / math.sqrt(numel) if normalization == NORM_BY_ROOT_N else 1.0 / numel
            _checked(lib, set_value(handle, ctypes.c_int(
                _FORWARD_SCALE if forward else _BACKWARD_SCALE), ctypes.c_double(scale)))
        _checked(lib, lib.symbol("DftiCommitDescriptor", _LONG, [_HANDLE])(handle))
    except RuntimeError:
        _free(lib, handle)
        raise
    return handle


def _free(lib: Any, handle: _HANDLE) -> None:
    lib.symbol("DftiFreeDescriptor", _LONG, [ctypes.POINTER(_HANDLE)])(ctypes.byref(handle))


def _element_strides(x: np.ndarray) -> list[int]:
    return [s // x.itemsize for s in x.strides]


def transform(x: np.ndarray, out: np.ndarray, signal_sizes: list[int],
              normalization: int, forward: bool) -> None:
    """One batched transform of `x` into `out` (both (batch, *signal); complex or real as
    their dtypes say; `signal_sizes` the batch and the full signal lengths), as torch's
    `_exec_fft` runs it."""
    from . import capability, mkl

    lib = mkl.load()
    complex_input, complex_output = x.dtype.kind == "c", out.dtype.kind == "c"
    if lib is None:
        exactness.note("FFTs come from numpy's pocketfft in float64, not torch's MKL: "
                       "their last bits may differ")
        out[...] = _numpy_transform(x, out.shape, signal_sizes, complex_input,
                                    complex_output, normalization, forward)
        return
    lib.set_threads(capability.num_threads())
    double = out.dtype in (np.float64, np.complex128)
    handle = _plan(lib, _element_strides(x), _element_strides(out), signal_sizes,
                   complex_input, complex_output, normalization, forward, double)
    try:
        compute = lib.symbol("DftiComputeForward" if forward else "DftiComputeBackward",
                             _LONG, [_HANDLE, ctypes.c_void_p, ctypes.c_void_p])
        _checked(lib, compute(handle, mkl.data_pointer(x), mkl.data_pointer(out)))
    finally:
        _free(lib, handle)


def _numpy_transform(x: np.ndarray, out_shape: tuple[int, ...], signal_sizes: list[int],
                     complex_input: bool, complex_output: bool, normalization: int,
                     forward: bool) -> np.ndarray:
    """The same transform by numpy in double precision (the fallback without MKL)."""
    axes = tuple(range(1, x.ndim))
    n = signal_sizes[1:]
    norm = {NORM_NONE: "backward" if forward else "forward", NORM_BY_ROOT_N: "ortho",
            NORM_BY_N: "forward" if forward else "backward"}[normalization]
    wide = x.astype(np.complex128 if complex_input else np.float64)
    if not complex_input:  # r2c, onesided along the last axis
        result = np.fft.rfftn(wide, s=n, axes=axes, norm=norm)
    elif not complex_output:  # c2r
        result = np.fft.irfftn(wide, s=n, axes=axes, norm=norm)
    else:
        result = (np.fft.fftn if forward else np.fft.ifftn)(wide, s=n, axes=axes, norm=norm)
    region = tuple(slice(0, s) for s in result.shape)
    full = np.zeros(out_shape, result.dtype)
    full[region] = result
    return full
