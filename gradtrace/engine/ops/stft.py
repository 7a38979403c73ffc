"""torch.stft (and Tensor.stft; torch.istft is below): torch/functional.py's center padding
(F.pad of a 3-d view, reflect by default), then ATen's stft (SpectralOps.cpp): frames as an
as_strided view of the signal, times the window (centred in n_fft when shorter), one
`_fft_r2c` (or `_fft_c2c`) over the last dim with MKL's scale for `normalized`, transposed in
place to (freq, frames). The
graph is torch's: ViewBackward0, ReflectionPad1DBackward0, ViewBackward0, UnsqueezeBackward0,
AsStridedBackward0, MulBackward0, FftR2CBackward0, TransposeBackward1, SqueezeBackward4.

torch's two TORCH_WARN_ONCEs (no window given; return_complex=False) are shown at the
script's line: torch's Python shows them at its own torch/functional.py line.
"""
from __future__ import annotations

from typing import Any

from ...errors import NotSupportedError, TorchRuntimeError
from .. import mkl_dft
from ..shapes import wrap_dim
from ..tensor import Tensor
from .arithmetic import mul
from .as_strided import as_strided
from .complex_ops import resolve_conj, view_as_complex, view_as_real
from .creation import WARNINGS, OnceWarning, zeros
from .fft import FftR2CBackward0, fft_c2c_op
from .padding import pad
from .select_views import narrow
from .shape_inplace import squeeze_, transpose_
from .view_inplace import copy_
from .views import tensor_strides, unsqueeze, view

_NO_WINDOW = ("UserWarning: A window was not provided. A rectangular window will be applied,"
              "which is known to cause spectral leakage. Other windows such as "
              "torch.hann_window or torch.hamming_window are recommended to reduce spectral "
              "leakage.To suppress this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`. (Triggered internally at "
              "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:835.)")
_REAL_OUTPUT = ("UserWarning: stft with return_complex=False is deprecated. In a future pytorch "
                "release, stft will return complex tensors for all inputs, and "
                "return_complex=False will raise an error.\nNote: you can still call "
                "torch.view_as_real on the complex output to recover the old return format. "
                "(Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:874.)")


def stft(input: Tensor, n_fft: int, hop_length: int | None = None,  # noqa: A002
         win_length: int | None = None, window: Tensor | None = None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None) -> Tensor:
    """torch.stft: torch/functional.py pads a centred signal, ATen does the rest."""
    if center and align_to_window is not None:
        raise TorchRuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = input.array.ndim
        extended = (1,) * max(3 - signal_dim, 0) + input.array.shape
        amount = int(n_fft // 2)
        padded = pad(view(input, extended), (amount, amount), pad_mode)
        input = view(padded, padded.array.shape[-signal_dim:])
    return _stft(input, int(n_fft), hop_length, win_length, window, bool(normalized),
                 onesided, return_complex, align_to_window)


def _repr(x: Tensor, n_fft: int, hop: int, win: int, window: Tensor | None,
          normalized: bool, onesided: bool | None, return_complex: bool | None,
          align: bool | None) -> str:
    """ATen's REPR of the call its errors start with (bools as 0/1, optionals as None)."""
    def opt(v: bool | None) -> str:
        return "None" if v is None else str(int(v))

    sizes = ", ".join(map(str, x.array.shape))
    shown = "None" if window is None else \
        f"torch.{window.dtype.tensor_type}{{[{', '.join(map(str, window.array.shape))}]}}"
    return (f"stft(torch.{x.dtype.tensor_type}[{sizes}], n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={shown}, normalized={int(normalized)}, "
            f"onesided={opt(onesided)}, return_complex={opt(return_complex)}, "
            f"align_to_window={opt(align)}) ")


def _stft(x: Tensor, n_fft: int, hop_length: int | None, win_length: int | None,
          window: Tensor | None, normalized: bool, onesided: bool | None,
          return_complex: bool | None, align: bool | None) -> Tensor:
    """ATen's stft without centring."""
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if window is None:
        WARNINGS.append(OnceWarning(_NO_WINDOW, "stft_window"))
    complex_out = return_complex if return_complex is not None else (
        x.dtype.is_complex or (window is not None and window.dtype.is_complex))
    if not complex_out:
        if return_complex is None:
            raise TorchRuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and "
                "will further require that return_complex=True in a future PyTorch release.")
        WARNINGS.append(OnceWarning(_REAL_OUTPUT, "stft_real"))
    shown = _repr(x, n_fft, hop, win, window, normalized, onesided, return_complex, align)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise TorchRuntimeError(f"{shown}: expected a tensor of floating point or complex values")
    if x.array.ndim not in (1, 2):
        raise TorchRuntimeError(f"{shown}: expected a 1D or 2D tensor")
    if align:
        raise NotSupportedError("torch.stft(align_to_window=True) is not supported by gradtrace")
    frames_of = unsqueeze(x, 0) if x.array.ndim == 1 else x
    batch, length = frames_of.array.shape
    if n_fft <= 0 or n_fft > length:
        raise TorchRuntimeError(f"{shown}: expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise TorchRuntimeError(f"{shown}: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise TorchRuntimeError(
            f"{shown}: expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.array.ndim != 1 or window.array.shape[0] != win):
        size = ", ".join(map(str, window.array.shape))
        raise TorchRuntimeError(f"{shown}: expected a 1D window tensor of size equal to "
                                f"win_length={win}, but got window with size [{size}]")
    if win < n_fft:  # the window centred in n_fft points (ones when none is given)
        left = (n_fft - win) // 2
        padded = zeros(n_fft, dtype=(window if window is not None else x).dtype)
        if window is None:
            narrow(padded, 0, left, win).array[...] = 1
        else:
            copy_(narrow(padded, 0, left, win), window)
        window = padded
    n_frames = 1 + (length - n_fft) // hop
    s0, s1 = tensor_strides(frames_of)
    frames = as_strided(frames_of, (batch, n_frames, n_fft), (s0, hop * s1, s1))
    if window is not None:
        frames = mul(frames, window)
    norm = mkl_dft.NORM_BY_ROOT_N if normalized else mkl_dft.NORM_NONE
    if frames.dtype.is_complex:
        if onesided:
            raise TorchRuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c_op(frames, (2,), norm, True)
    else:
        out = FftR2CBackward0.call(frames, dim=(2,), normalization=norm,
                                   onesided=True if onesided is None else bool(onesided))
    transpose_(out, 1, 2)
    if x.array.ndim == 1:
        squeeze_(out, 0)
    return out if complex_out else view_as_real(out)


_ISTFT_NO_WINDOW = (
    "UserWarning: A window was not provided. A rectangular window will be applied.Please "
    "provide the same window used by stft to make the inversion lossless.To suppress this "
    "warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1035.)")
_ISTFT_PADDED = (
    "UserWarning: The length of signal is shorter than the length parameter. Result is being "
    "padded with zeros in the tail. Please check your center and hop_length settings. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1199.)")


def _type_string(t: Tensor) -> str:
    """Tensor::toString(): the legacy `torch.FloatTensor` names, and `CPU<Scalar>Type` for the
    dtypes without one (the complex ones)."""
    if t.dtype.is_complex:
        names = {"complex64": "ComplexFloat", "complex128": "ComplexDouble",
                 "complex32": "ComplexHalf"}
        return f"CPU{names[t.dtype.name]}Type"
    return f"torch.{t.dtype.tensor_type}"


def istft(input: Tensor, n_fft: int, hop_length: int | None = None,  # noqa: A002
          win_length: int | None = None, window: Tensor | None = None, center: bool = True,
          normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False) -> Tensor:
    """ATen's istft (SpectralOps.cpp), a composite of differentiable ops: view_as_real of
    the (conj-resolved) input, transposed to (channel, frames, freq) and viewed as complex,
    one `_fft_c2r` (or `_fft_c2c`) scaled by 1/n (1/sqrt(n) when normalized), times the
    window (centred in n_fft), overlap-added by unfold_backward, trimmed and divided by the
    overlap-added squared window. The graph is torch's: ViewAsRealBackward0,
    (UnsqueezeBackward0), TransposeBackward0, ViewAsComplexBackward0, FftC2RBackward0,
    MulBackward0, UnfoldBackwardBackward0, SliceBackward0, DivBackward0, (SqueezeBackward1)."""
    from .arithmetic import div, lt, pow
    from .creation import ones
    from .fft import FftC2RBackward0
    from .padding import constant_pad_nd
    from .reductions import min as min_
    from .select_views import slice_op
    from .unary import abs as abs_
    from .views import expand, squeeze, transpose
    from .windows import UnfoldBackwardBackward0

    n_fft = int(n_fft)
    if window is None:
        WARNINGS.append(OnceWarning(_ISTFT_NO_WINDOW, "istft_window"))
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if not input.dtype.is_complex:
        raise TorchRuntimeError("istft requires a complex-valued input tensor matching the "
                                "output from stft with return_complex=True.")
    x = view_as_real(resolve_conj(input))
    dim = x.array.ndim
    n_frames = x.array.shape[wrap_dim(-2, dim)]
    fft_size = x.array.shape[wrap_dim(-3, dim)]
    expected = n_fft + hop * (n_frames - 1)

    def opt(v: Any) -> str:
        return "None" if v is None else str(int(v))

    shown_window = "None" if window is None else \
        f"{_type_string(window)}{{[{', '.join(map(str, window.array.shape))}]}}"
    shown = (f"istft({_type_string(input)}[{', '.join(map(str, input.array.shape))}], "
             f"n_fft={n_fft}, hop_length={hop}, win_length={win}, window={shown_window}, "
             f"center={int(bool(center))}, normalized={int(bool(normalized))}, "
             f"onesided={opt(onesided)}, length={opt(length)}, "
             f"return_complex={int(bool(return_complex))}) ")
    if x.array.size == 0:
        raise TorchRuntimeError(f"{shown}: input tensor cannot be empty.")
    if dim not in (3, 4):
        raise TorchRuntimeError(f"{shown}: expected a tensor with 3 or 4 dimensions, "
                                f"but got {dim}")
    one = bool(onesided) if onesided is not None else fft_size != n_fft
    if one and n_fft // 2 + 1 != fft_size:
        raise TorchRuntimeError(
            f"{shown}: expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one and n_fft != fft_size:
        raise TorchRuntimeError(
            f"{shown}: expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise TorchRuntimeError(f"{shown}: expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise TorchRuntimeError(f"{shown}: expected 0 < win_length <= n_fft")
    if window is not None and (window.array.ndim != 1 or window.array.shape[0] != win):
        raise TorchRuntimeError(f"{shown}: Invalid window shape. window has to be 1D and "
                                "length of `win_length`")
    window_tmp = window if window is not None else ones(win, dtype=x.dtype)
    if win != n_fft:
        left = (n_fft - win) // 2
        window_tmp = constant_pad_nd(window_tmp, (left, n_fft - win - left), 0)
    if dim == 3:
        x = unsqueeze(x, 0)
    frames = view_as_complex(transpose(x, 1, 2))  # strides stay even: no clone
    norm = mkl_dft.NORM_BY_ROOT_N if normalized else mkl_dft.NORM_BY_N
    if return_complex:
        if one:
            raise TorchRuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_c2c_op(frames, (2,), norm, False)
    else:
        if window is not None and window.dtype.is_complex:
            raise TorchRuntimeError("Complex windows are incompatible with return_complex=False")
        if not one:
            frames = slice_op(frames, -1, 0, n_fft // 2 + 1, 1)
        frames = FftC2RBackward0.call(frames, dim=(2,), normalization=norm, last_dim_size=n_fft)
    y_tmp = mul(frames, view(window_tmp, (1, 1, n_fft)))
    y = UnfoldBackwardBackward0.call(y_tmp, input_sizes=(y_tmp.array.shape[0], expected), dim=1,
                                     size=n_fft, step=hop)
    squares = expand(pow(window_tmp, 2), (1, n_frames, n_fft))
    envelope = UnfoldBackwardBackward0.call(squares, input_sizes=(1, expected), dim=1,
                                            size=n_fft, step=hop)
    start = n_fft // 2 if center else 0
    end = start + int(length) if length is not None else (
        -(n_fft // 2) if center else expected)
    y = slice_op(y, 1, start, end, 1)
    envelope = slice_op(envelope, 1, start, end, 1)
    if bool(lt(min_(abs_(envelope)), 1e-11).array):
        raise TorchRuntimeError(f"{shown}window overlap add min: 1\n[ CPUBoolType{{}} ]")
    y = div(y, envelope)
    if dim == 3:
        y = squeeze(y, 0)
    if end > expected:
        WARNINGS.append(OnceWarning(_ISTFT_PADDED, "istft_padded"))
        y = constant_pad_nd(y, (0, end - expected), 0)
    return y


TORCH_FUNCTIONS: dict[str, Any] = {"stft": stft, "istft": istft}
TENSOR_METHODS: dict[str, Any] = {"stft": stft, "istft": istft}
