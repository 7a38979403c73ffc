"""torch.fft: the transforms of torch 2.13's CPU build (aten/src/ATen/native/SpectralOps.cpp
over mkl/SpectralOps.cpp), their three autograd nodes and torch's helpers.

Every transform is one of three ops, each a node: `_fft_r2c` (FftR2CBackward0, real to
complex, one-sided or filled out by conjugate symmetry), `_fft_c2r` (FftC2RBackward0) and
`_fft_c2c` (FftC2CBackward0). The normalisation is MKL's scale factor inside the transform,
as torch passes it (`fft_norm_mode`), not a multiplication after it. The transforms run in
MKL (engine/mkl_dft.py) with torch's layout: batch dimensions first in stride order and
collapsed into one, the transformed ones sorted by stride.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from .. import aligned, dtypes, mkl_dft
from ..complex import complex_of
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..node import Function
from ..shapes import wrap_dim
from ..tensor import Tensor

_NORMS = {"backward": (mkl_dft.NORM_NONE, mkl_dft.NORM_BY_N),
          "forward": (mkl_dft.NORM_BY_N, mkl_dft.NORM_NONE),
          "ortho": (mkl_dft.NORM_BY_ROOT_N, mkl_dft.NORM_BY_ROOT_N)}


def _norm_mode(norm: str | None, forward: bool) -> int:
    """torch's norm_from_string: the scale a transform in that direction applies."""
    modes = _NORMS.get("backward" if norm is None else norm)
    if modes is None:
        raise TorchRuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return modes[0] if forward else modes[1]


def _exec_fft(x: np.ndarray, out_sizes: tuple[int, ...], dims: list[int],
              normalization: int, forward: bool, out_dtype: np.dtype) -> np.ndarray:
    """torch's `_exec_fft`: batch dimensions first (by decreasing stride) collapsed into
    one, the transformed ones last in `dims`' order; the result laid out for that
    order and viewed back in the input's."""
    ndim, signal_ndim = x.ndim, len(dims)
    batch_dims = ndim - signal_ndim
    batch = sorted((d for d in range(ndim) if d not in dims), key=lambda d: -x.strides[d])
    permute = batch + list(dims)
    data = x.transpose(permute)
    data = data.reshape((-1, *data.shape[batch_dims:]))
    if any(s <= 0 or s % data.itemsize for s, n in zip(data.strides, data.shape, strict=True)
           if n > 1):  # (MKL refuses a zero stride: an expanded gradient is copied first)
        data = np.ascontiguousarray(data)
    batch_size = data.shape[0]
    signal = [batch_size] + [max(data.shape[1 + i], out_sizes[d]) for i, d in enumerate(dims)]
    out = aligned.empty((batch_size, *(out_sizes[d] for d in dims)), out_dtype)
    if out.size and batch_size:
        mkl_dft.transform(data, out, signal, normalization, forward)
    strides = [0] * ndim
    step = out.strides[0]
    for i in range(batch_dims - 1, -1, -1):
        strides[permute[i]] = step
        step *= out_sizes[permute[i]]
    for i in range(batch_dims, ndim):
        strides[permute[i]] = out.strides[1 + i - batch_dims]
    return np.lib.stride_tricks.as_strided(out, out_sizes, strides)


def _sort_dims(x: np.ndarray, dims: tuple[int, ...], exclude_last: bool = False) -> list[int]:
    """The transformed dimensions by decreasing stride (the last kept last if asked)."""
    head = list(dims[:-1] if exclude_last else dims)
    head.sort(key=lambda d: -x.strides[d])
    return head + ([dims[-1]] if exclude_last else [])


def _fill_conjugate_symmetry(out: np.ndarray, dims: tuple[int, ...]) -> None:
    """The two-sided result from its first half along the last transformed dimension:
    X[k] = conj(X[-k]), the index negated (modulo the size) along every transformed dim."""
    last = dims[-1]
    n = out.shape[last]
    half = n // 2 + 1
    if half >= n:
        return
    index: list[Any] = [slice(None)] * out.ndim
    index[last] = np.arange(half, n)
    source = out
    for d in dims[:-1]:  # -j modulo the size: index 0 stays, the rest reverse
        source = np.take(source, (-np.arange(out.shape[d])) % out.shape[d], axis=d)
    mirrored = np.take(source, n - np.arange(half, n), axis=last)
    out[tuple(index)] = np.conj(mirrored)


class FftR2CBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: _fft_r2c_symint(self_t, ...)
    # (torch's fft_r2c_backward: the gradient zero-padded to the input's length along the
    # last dim when one-sided, an inverse c2c transform, its real part)
    formulas = (vjp("self", "fft_r2c_backward({grad}, {dim}, {normalization}, {onesided})"),)

    def forward(self, a: Tensor, dim: tuple[int, ...], normalization: int,
                onesided: bool) -> np.ndarray:
        self.save_attr(dim=dim, normalization=normalization, onesided=onesided)
        self.save("self", a)
        x = a.array
        out_sizes = list(x.shape)
        if onesided:
            out_sizes[dim[-1]] = x.shape[dim[-1]] // 2 + 1
        out = _exec_fft(x, tuple(out_sizes), _sort_dims(x, dim, exclude_last=True),
                        normalization, True, complex_of(a.dtype).np)
        if not onesided:
            _fill_conjugate_symmetry(out, dim)
        return out

    def backward(self, grad: Tensor) -> Tensor:
        """fft_r2c_backward: the one-sided gradient zero-padded to the full length, an
        inverse c2c transform, its real part."""
        from .complex_ops import real
        from .select_views import narrow
        from .view_inplace import copy_

        a = self.attrs
        dim, normalization = a["dim"], a["normalization"]
        full = grad
        if a["onesided"]:
            last = dim[-1]
            length = self.input_meta[0][0][last]
            if length > grad.array.shape[last]:
                shape = list(grad.array.shape)
                shape[last] = length
                full = Tensor._wrap(np.zeros(shape, grad.array.dtype))
                copy_(narrow(full, last, 0, grad.array.shape[last]), grad)
        return real(fft_c2c_op(full, dim, normalization, False))


class FftC2RBackward0(Function):
    __slots__ = ()
    jvp = auto_linear
    formulas = (vjp("self", "fft_c2r_backward({grad}, {dim}, {normalization})"),)

    def forward(self, a: Tensor, dim: tuple[int, ...], normalization: int,
                last_dim_size: int) -> np.ndarray:
        self.save_attr(dim=dim, normalization=normalization)
        x = a.array
        dims = list(dim)
        if len(dims) > 1:  # torch: a c2c of all but the last dimension, then a 1-D c2r
            x = _exec_fft(x, x.shape, _sort_dims(x, tuple(dims[:-1])), normalization, False,
                          x.dtype)
            dims = dims[-1:]
        out_sizes = list(x.shape)
        out_sizes[dims[-1]] = last_dim_size
        real_dtype = np.float32 if x.dtype == np.complex64 else np.float64
        return _exec_fft(x, tuple(out_sizes), dims, normalization, False, real_dtype)

    def backward(self, grad: Tensor) -> Tensor:
        """fft_c2r_backward: a one-sided r2c transform of the gradient, the doubled
        frequencies (those the one-sided input stands for twice) times 2."""
        from .arithmetic import mul_
        from .select_views import narrow

        dim, normalization = self.attrs["dim"], self.attrs["normalization"]
        gi = FftR2CBackward0.call(grad, dim=dim, normalization=normalization, onesided=True)
        double_length = grad.array.shape[dim[-1]] - gi.array.shape[dim[-1]]
        if double_length > 0:
            mul_(narrow(gi, dim[-1], 1, double_length), 2)
        return gi


class FftC2CBackward0(Function):
    __slots__ = ()
    jvp = auto_linear
    formulas = (vjp("self", "_fft_c2c({grad}, {dim}, {normalization}, ¬{forward})"),)

    def forward(self, a: Tensor, dim: tuple[int, ...], normalization: int,
                forward: bool) -> np.ndarray:
        self.save_attr(dim=dim, forward=forward, normalization=normalization)
        x = a.array
        return _exec_fft(x, x.shape, _sort_dims(x, dim), normalization, forward, x.dtype)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return fft_c2c_op(grad, a["dim"], a["normalization"], not a["forward"])


def fft_c2c_op(a: Tensor, dim: tuple[int, ...], normalization: int, forward: bool) -> Tensor:
    return FftC2CBackward0.call(a, dim=tuple(dim), normalization=normalization,
                                forward=forward)


# ------------------------------------------------------------------ torch.fft's functions


def _promote(a: Tensor, require_complex: bool = False) -> Tensor:
    """torch's promote_tensor_fft: integers to the default float type; float32/float64 (or
    complex) kept; complex of it where a complex input is required."""
    from .clones import to

    dtype = a.dtype
    if not dtype.is_complex:
        if not dtype.is_floating_point:
            dtype = dtypes.get_default_dtype()
        if dtype not in (dtypes.float32, dtypes.float64):
            raise TorchRuntimeError(f"Unsupported dtype {dtype.scalar_type}")
        if require_complex:
            dtype = complex_of(dtype)
    return a if dtype is a.dtype else to(a, dtype=dtype)


def _resize(a: Tensor, dims: tuple[int, ...], sizes: tuple[int, ...]) -> Tensor:
    """torch's resize_fft_input: sliced from the start or zero-padded at the end."""
    from .padding import constant_pad_nd
    from .select_views import slice_op

    pad = [0] * (2 * a.array.ndim)
    padded = False
    for d, size in zip(dims, sizes, strict=True):
        if size == -1:
            continue
        have = a.array.shape[d]
        if have < size:
            padded = True
            pad[len(pad) - 2 * d - 1] = size - have
        if have > size:
            a = slice_op(a, d, 0, size, 1)
    return constant_pad_nd(a, tuple(pad)) if padded else a


def _wrap(dim: Any, ndim: int) -> int:
    """maybe_wrap_dim without wrapping a scalar: a 0-d tensor has no dimension to take."""
    if ndim == 0:
        raise TorchIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(int(dim), ndim)


def _dim(a: Tensor, dim: Any) -> int:
    return _wrap(dim, a.array.ndim)


def _points(n: int) -> None:
    if n < 1:
        raise TorchRuntimeError(f"Invalid number of data points ({n}) specified")


def _r2c(name: str, a: Tensor, n: Any, dim: Any, norm: str | None, onesided: bool,
         forward: bool = True) -> Tensor:
    if a.dtype.is_complex:
        raise TorchRuntimeError(f"{name} expects a real input tensor, but got "
                                f"{a.dtype.scalar_type}")
    a = _promote(a)
    d = _dim(a, dim)
    _points(a.array.shape[d] if n is None else int(n))
    if n is not None:
        a = _resize(a, (d,), (int(n),))
    return FftR2CBackward0.call(a, dim=(d,), normalization=_norm_mode(norm, forward),
                                onesided=onesided)


def _c2c(a: Tensor, n: Any, dim: Any, norm: str | None, forward: bool) -> Tensor:
    a = _promote(a, require_complex=True)
    d = _dim(a, dim)
    _points(a.array.shape[d] if n is None else int(n))
    if n is not None:
        a = _resize(a, (d,), (int(n),))
    return fft_c2c_op(a, (d,), _norm_mode(norm, forward), forward)


def fft(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    """torch.fft.fft: a real input runs the r2c transform filled out to both sides."""
    if not input.dtype.is_complex:
        return _r2c("fft", input, n, dim, norm, onesided=False)
    return _c2c(input, n, dim, norm, True)


def ifft(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    """torch.fft.ifft: a real input runs the r2c transform, scaled as the inverse, and
    returns its conj view (fft_r2c's `forward=false`: ConjBackward0, is_conj() True)."""
    if not input.dtype.is_complex:
        from .complex_ops import conj

        return conj(_r2c("ifft", input, n, dim, norm, onesided=False, forward=False))
    return _c2c(input, n, dim, norm, False)


def rfft(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    return _r2c("rfft", input, n, dim, norm, onesided=True)


def irfft(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    return _c2r(input, n, dim, norm, forward=False)


def hfft(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    """torch.fft.hfft: fft_c2r with forward=true, the c2r transform of the input's conj
    view scaled as a forward transform."""
    return _c2r(input, n, dim, norm, forward=True)


def _c2r(input: Tensor, n: Any, dim: int, norm: str | None, forward: bool) -> Tensor:  # noqa: A002
    """fft_c2r of irfft (forward=false) and hfft (forward=true: of the conj view)."""
    from .complex_ops import conj

    a = _promote(input, require_complex=True)
    d = _dim(a, dim)
    last = 2 * (a.array.shape[d] - 1) if n is None else int(n)
    _points(last)
    if n is not None:
        a = _resize(a, (d,), (last // 2 + 1,))
    return FftC2RBackward0.call(conj(a) if forward else a, dim=(d,),
                                normalization=_norm_mode(norm, forward), last_dim_size=last)


def ihfft(input: Tensor, n: Any = None, dim: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    """torch.fft.ihfft: fft_r2c with forward=false and onesided, the one-sided r2c
    transform scaled as the inverse, returned as its conj view."""
    from .complex_ops import conj

    return conj(_r2c("ihfft", input, n, dim, norm, onesided=True, forward=False))


def _shape_and_dims(a: Tensor, s: Any, dim: Any) -> tuple[list[int], list[int]]:
    """torch's canonicalize_fft_shape_and_dim_args."""
    ndim = a.array.ndim
    if dim is not None:
        dims = [_wrap(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise TorchRuntimeError("FFT dims must be unique")
    if s is not None:
        shape = [int(v) for v in ((s,) if isinstance(s, int) else s)]
        if dim is not None and len(dims) != len(shape):
            raise TorchRuntimeError(
                "When given, dim and shape arguments must have the same length")
        if len(shape) > ndim:
            raise TorchRuntimeError(f"Got shape with {len(shape)} values but input tensor "
                                    f"only has {ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(shape), ndim))
        shape = [a.array.shape[d] if v == -1 else v for v, d in zip(shape, dims, strict=True)]
    else:
        if dim is None:
            dims = list(range(ndim))
        shape = [a.array.shape[d] for d in dims]
    for v in shape:
        if v <= 0:
            raise TorchRuntimeError(f"Invalid number of data points ({v}) specified")
    return shape, dims


def _fftn(a: Tensor, s: Any, dim: Any, norm: str | None, forward: bool) -> Tensor:
    a = _promote(a, require_complex=True)
    shape, dims = _shape_and_dims(a, s, dim)
    a = _resize(a, tuple(dims), tuple(shape))
    if not dims:
        return a
    return fft_c2c_op(a, tuple(dims), _norm_mode(norm, forward), forward)


def fftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:  # noqa: A002
    """A real input is made complex first (ToCopyBackward0) and transformed c2c, as torch
    2.13's fft_fftn does (its TODO: rfftn and mirroring); unlike the 1-D fft's r2c."""
    return _fftn(input, s, dim, norm, True)


def ifftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:  # noqa: A002
    return _fftn(input, s, dim, norm, False)  # (a real input made complex: no conjugate)


def rfftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:  # noqa: A002
    if input.dtype.is_complex:
        raise TorchRuntimeError(f"rfftn expects a real-valued input tensor, but got "
                                f"{input.dtype.scalar_type}")
    a = _promote(input)
    shape, dims = _shape_and_dims(a, s, dim)
    if not dims:
        raise TorchRuntimeError("rfftn must transform at least one axis")
    a = _resize(a, tuple(dims), tuple(shape))
    return FftR2CBackward0.call(a, dim=tuple(dims), normalization=_norm_mode(norm, True),
                                onesided=True)


def irfftn(input: Tensor, s: Any = None, dim: Any = None, norm: str | None = None) -> Tensor:  # noqa: A002
    a = _promote(input, require_complex=True)
    shape, dims = _shape_and_dims(a, s, dim)
    if not dims:
        raise TorchRuntimeError("irfftn must transform at least one axis")
    last = 2 * (a.array.shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else shape[-1]
    _points(last)
    shape[-1] = last // 2 + 1
    a = _resize(a, tuple(dims), tuple(shape))
    return FftC2RBackward0.call(a, dim=tuple(dims), normalization=_norm_mode(norm, False),
                                last_dim_size=last)


def fft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:  # noqa: A002
    return fftn(input, s, dim, norm)


def ifft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:  # noqa: A002
    return _fftn(input, s, dim, norm, False)


def rfft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:  # noqa: A002
    return rfftn(input, s, dim, norm)


def irfft2(input: Tensor, s: Any = None, dim: Any = (-2, -1), norm: str | None = None) -> Tensor:  # noqa: A002
    return irfftn(input, s, dim, norm)


def _freq_dtype(name: str, dtype: Any) -> Any:
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise TorchRuntimeError(f"{name} requires a floating point or complex dtype")
    return dtype


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    """torch.fft.fftfreq: arange(n) with its upper half made negative, times 1/(n*d)."""
    from .arithmetic import mul_
    from .creation import arange

    result = arange(n, dtype=_freq_dtype("fftfreq", dtype))
    half = (n + 1) // 2
    result.array[half:] = np.arange(-(n // 2), 0)
    out = mul_(result, 1.0 / (n * d))
    return out.requires_grad_(requires_grad) if requires_grad else out


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    from .arithmetic import mul_
    from .creation import arange

    out = mul_(arange(n // 2 + 1, dtype=_freq_dtype("rfftfreq", dtype)), 1.0 / (n * d))
    return out.requires_grad_(requires_grad) if requires_grad else out


def _shift(a: Tensor, dim: Any, inverse: bool) -> Tensor:
    from .matrices import roll

    ndim = a.array.ndim
    dims = list(range(ndim)) if dim is None else [
        wrap_dim(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim)]
    shifts = [(a.array.shape[d] + 1) // 2 if inverse else a.array.shape[d] // 2 for d in dims]
    return roll(a, shifts, dims)


def fftshift(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    return _shift(input, dim, False)


def ifftshift(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    return _shift(input, dim, True)


FFT_FUNCTIONS: dict[str, Any] = {
    "fft": fft, "ifft": ifft, "rfft": rfft, "irfft": irfft, "fft2": fft2, "ifft2": ifft2,
    "rfft2": rfft2, "irfft2": irfft2, "fftn": fftn, "ifftn": ifftn, "rfftn": rfftn,
    "irfftn": irfftn, "fftfreq": fftfreq, "rfftfreq": rfftfreq, "fftshift": fftshift,
    "ifftshift": ifftshift, "hfft": hfft, "ihfft": ihfft,
}
