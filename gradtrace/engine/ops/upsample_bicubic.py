"""F.interpolate(mode='bicubic') on 4-d input: torch's upsample_bicubic2d
(UpsampleBicubic2DBackward0) with the float32 bits of torch 2.13's CPU kernels.

Forward is ATen's upsample_generic_Nd_kernel_impl with HelperInterpCubic (cpu/UpSampleKernel.cpp,
built for AVX2 with FMA contraction): the per-position indices and weights of
compute_indices_weights (source index `scale·(dst + ½) − ½` fused, Keys' cubic with A = −0.75
evaluated with the fused multiply-adds the compiler chose), then Σ_j wh_j·(Σ_k ww_k·x[h_j, w_k])
summed as measured: tap 1 first, then taps 0, 2, 3 fused in. Backward is
upsample_bicubic2d_backward_out_frame (UpSampleBicubic2d.cpp, base build, no contraction):
each output's gradient `g·wy·wx` added into its 16 clamped sources in output order.
float64 runs the same steps, fused as in float32 (fp64.fma)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import exactness
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..layouts import dense_in_format, suggests_channels_last
from ..limits import reserve
from ..tensor import Tensor
from .upsample import _HALF_CAUSE, _scales_of, _Upsample, _UpsampleBackward
from .upsample_index import floorf, fma


def _fma(a: Any, b: Any, c: Any, fused: bool) -> np.ndarray:
    """a·b + c rounded once, or twice."""
    if not fused:
        return np.asarray(a * b + c)
    return np.asarray(fma(a, b, c))


def _cubic1(x: np.ndarray, fused: bool) -> np.ndarray:
    """cubic_convolution1: ((A + 2)·x − (A + 3))·x·x + 1, its first step fused."""
    t = x.dtype.type
    a = t(-0.75)
    u = _fma(t(a + t(2)), x, -t(a + t(3)), fused).astype(x.dtype)
    return ((u * x) * x + t(1)).astype(x.dtype)


def _cubic2(x: np.ndarray, fused: bool) -> np.ndarray:
    """cubic_convolution2: ((A·x − 5A)·x + 8A)·x − 4A, its first two steps fused."""
    t = x.dtype.type
    a = t(-0.75)
    u = _fma(a, x, -(t(5) * a), fused).astype(x.dtype)
    u = _fma(u, x, t(8) * a, fused).astype(x.dtype)
    return (u * x - t(4) * a).astype(x.dtype)


def cubic_coefficients(lam: np.ndarray, fused: bool) -> list[np.ndarray]:
    """get_cubic_upsample_coefficients: the weights of the sources at −1, 0, 1, 2."""
    x2 = (1.0 - lam.astype(np.float64)).astype(lam.dtype)
    return [_cubic2((lam.astype(np.float64) + 1.0).astype(lam.dtype), fused),
            _cubic1(lam, fused), _cubic1(x2, fused),
            _cubic2((x2.astype(np.float64) + 1.0).astype(lam.dtype), fused)]


def cubic_taps(in_size: int, out_size: int, align_corners: bool, scale: float | None,
               dtype: np.dtype, fused: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """(indices (out, 4), 4 weight arrays) per output position: area_pixel_compute_scale,
    area_pixel_compute_source_index(cubic=True), guard_index_and_lambda, clamped taps."""
    t = np.float32 if dtype == np.float32 else np.float64
    dst = np.arange(out_size).astype(t)
    if align_corners:
        ratio = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
        real = (ratio * dst).astype(t)
    else:
        ratio = t(1.0 / scale) if scale is not None and scale > 0 else t(in_size) / t(out_size)
        real = _fma(np.full(out_size, ratio, t), dst + t(0.5), t(-0.5), fused).astype(t)
    index = np.minimum(floorf(real), in_size - 1)
    lam = np.minimum(np.maximum(real - index.astype(t), t(0)), t(1)).astype(t)
    taps = np.clip(index[:, None] + np.arange(-1, 3), 0, in_size - 1)
    return taps, cubic_coefficients(lam, fused)


def _weighted_sum(terms: list[tuple[np.ndarray, np.ndarray]], fused: bool) -> np.ndarray:
    """Σ value·weight over 4 taps in the measured order: tap 1, then 0, 2, 3 added."""
    value, weight = terms[1]
    total = value * weight
    for k in (0, 2, 3):
        value, weight = terms[k]
        total = _fma(value, weight, total, fused).astype(value.dtype)
    return total


def bicubic_forward(a: np.ndarray, output_size: tuple[int, int], align_corners: bool,
                    scales: tuple[float | None, ...]) -> np.ndarray:
    if a.dtype == np.float16:
        exactness.note(_HALF_CAUSE)
    fused = True
    (oh, ow), (ih, iw) = output_size, a.shape[2:]
    htaps, hw = cubic_taps(ih, oh, align_corners, scales[0], a.dtype, fused)
    wtaps, ww = cubic_taps(iw, ow, align_corners, scales[1], a.dtype, fused)
    rows_terms = []
    for j in range(4):
        rows = a[:, :, htaps[:, j], :]
        t = _weighted_sum([(rows[:, :, :, wtaps[:, k]], ww[k]) for k in range(4)], fused)
        rows_terms.append((t, hw[j][:, None]))
    out = np.asarray(_weighted_sum(rows_terms, fused), a.dtype)
    return dense_in_format(out, suggests_channels_last(a))


def bicubic_backward(g: np.ndarray, input_size: tuple[int, ...], align_corners: bool,
                     scales: tuple[float | None, ...]) -> np.ndarray:
    dtype = g.dtype
    (ih, iw), (oh, ow) = input_size[2:], g.shape[2:]
    planes = g.shape[0] * g.shape[1]
    if (ih, iw) == (oh, ow):
        return np.array(g, dtype, order="C")  # contiguous, as every bicubic gradient (measured)
    htaps, hw = cubic_taps(ih, oh, align_corners, scales[0], dtype, False)
    wtaps, ww = cubic_taps(iw, ow, align_corners, scales[1], dtype, False)
    # order of the additions: output y, output x, x tap ii, y tap jj
    yi = htaps[:, None, None, :]                       # (oh, 1, 1, 4) over jj
    xi = wtaps[None, :, :, None]                       # (1, ow, 4, 1) over ii
    target = (np.clip(yi, 0, ih - 1) * iw + np.clip(xi, 0, iw - 1)).reshape(-1)
    ycoef = np.stack(hw, axis=-1)[:, None, None, :]    # (oh, 1, 1, 4)
    xcoef = np.stack(ww, axis=-1)[None, :, :, None]    # (1, ow, 4, 1)
    flat = g.reshape(planes, oh, ow).transpose(1, 2, 0)[:, :, None, None, :]
    values = ((flat * ycoef[..., None]).astype(dtype) * xcoef[..., None]).astype(dtype)
    acc = np.zeros((ih * iw, planes), dtype)
    np.add.at(acc, target, values.reshape(-1, planes))
    return np.ascontiguousarray(acc.T.reshape(g.shape[:2] + (ih, iw)))


class UpsampleBicubic2DBackward0(_Upsample):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    mode = "bicubic"
    dims = 2
    formulas = (vjp("self", "upsample_bicubic2d_backward({grad}, {output_size}, "
                            "{self_sym_sizes}, {align_corners}, {scales_h}, {scales_w})"),)

    def forward(self, x: Tensor, output_size: tuple[int, ...],
                scales: tuple[float | None, ...], align_corners: bool | None = None
                ) -> np.ndarray:
        a = x.array
        self.save_attr(output_size=tuple(output_size), align_corners=bool(align_corners),
                       scales_h=scales[0], scales_w=scales[1], self_sym_sizes=a.shape)
        reserve(a.shape[:2] + tuple(output_size), a.itemsize)
        return bicubic_forward(a, tuple(output_size), bool(align_corners), scales)

    def backward(self, grad: Tensor) -> Tensor:
        attrs = self.attrs
        return UpsampleBicubic2DBackwardBackward0.call(
            grad, output_size=attrs["output_size"], input_size=attrs["self_sym_sizes"],
            scales=_scales_of(attrs, 2), align_corners=attrs["align_corners"])


class UpsampleBicubic2DBackwardBackward0(_UpsampleBackward):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    forward_node = UpsampleBicubic2DBackward0
    formulas = (vjp("grad_output", "upsample_bicubic2d({grad}, {output_size}, "
                                   "{align_corners}, {scales_h}, {scales_w})"),)

    def forward(self, grad: Tensor, output_size: tuple[int, ...], input_size: tuple[int, ...],
                scales: tuple[float | None, ...], align_corners: bool | None) -> np.ndarray:
        self.save_attr(output_size=tuple(output_size), align_corners=bool(align_corners),
                       scales_h=scales[0], scales_w=scales[1])
        return bicubic_backward(grad.array, tuple(input_size), bool(align_corners), scales)
