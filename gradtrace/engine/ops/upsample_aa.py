"""F.interpolate(..., antialias=True) on 4-d input, modes bilinear and bicubic: torch's
_upsample_bilinear2d_aa / _upsample_bicubic2d_aa (UpsampleBilinear2DAaBackward0,
UpsampleBicubic2DAaBackward0) with the float32 bits of torch 2.13's CPU kernels.

Forward is cpu/UpSampleKernel.cpp's separable_upsample_generic_Nd_kernel_impl: a horizontal
pass (last dim) then a vertical one, each skipped when its size does not change, every output
`Σ_j src[xmin + j]·w[j]` over PIL-style support windows. The weights are
_compute_indices_min_size_weights_aa's (triangle, or Keys' cubic with A = −0.5 evaluated with
fused multiply-adds, normalised by their float sum). The sum runs as the AVX2 build
compiled it (measured): after the first product, whole groups of four terms (two in
float64) added unfused, the remaining ones fused. When the image is one pixel wide the
vertical pass reads its window from output row 0 for every row (torch's zero-stride loop
then walks the rows), and so does this. Backward is cpu_upsample_genNd_backward_aa: each
output's gradient spread over its window, position by position, as
`fma(wx·wy, g, grad_input)`; float64 the same with fp64.fma (measured bit for bit too)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..formulas import vjp
from ..forward_ad import auto_linear
from ..layouts import dense_in_format, suggests_channels_last
from ..limits import reserve
from ..tensor import Tensor
from .upsample import _scales_of, _Upsample, _UpsampleBackward
from .upsample_bicubic import _fma


def _cubic_filter(x: Any, fused: bool) -> Any:
    """HelperInterpCubic::aa_filter (Keys' cubic, A = −0.5), every step fused."""
    t = type(x)
    a = t(-0.5)
    x = abs(x)
    if x < 1:
        u = _fma(t(a + t(2)), x, -t(a + t(3)), fused)
        return t(_fma(t(u * x), x, t(1), fused))
    if x < 2:
        u = _fma(a, x, -(t(5) * a), fused)
        u = _fma(t(u), x, t(8) * a, fused)
        return t(_fma(t(u), x, -(t(4) * a), fused))
    return t(0)


def _linear_filter(x: Any, fused: bool) -> Any:
    """HelperInterpLinear::aa_filter: the triangle 1 − |x|."""
    t = type(x)
    x = abs(x)
    return t(t(1) - x) if x < 1 else t(0)


def aa_windows(in_size: int, out_size: int, align_corners: bool, scale: float | None,
               cubic: bool, dtype: np.dtype) -> list[tuple[int, np.ndarray]]:
    """(xmin, weights) per output position: area_pixel_compute_scale, then
    _compute_indices_min_size_weights_aa in the dtype (its centre and arguments in double,
    as C++ promotes them)."""
    t = np.float32 if dtype == np.float32 else np.float64
    fused = True
    if align_corners:
        ratio = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    else:
        ratio = t(1.0 / scale) if scale is not None and scale > 0 else t(in_size) / t(out_size)
    interp = 4 if cubic else 2
    support = t((interp * 0.5) * float(ratio)) if ratio >= 1.0 else t(interp * 0.5)
    max_size = int(math.ceil(support)) * 2 + 1
    invscale = t(1.0 / float(ratio)) if ratio >= 1.0 else t(1)
    flt = _cubic_filter if cubic else _linear_filter
    windows = []
    for i in range(out_size):
        center = t(float(ratio) * (i + 0.5))
        xmin = max(int(float(t(center - support)) + 0.5), 0)
        xsize = min(int(float(t(center + support)) + 0.5), in_size) - xmin
        xsize = min(max(xsize, 0), max_size)
        weights = []
        total = t(0)
        for j in range(xsize):
            w = flt(t((float(t(t(j + xmin) - center)) + 0.5) * float(invscale)), fused)
            weights.append(w)
            total = t(total + w)
        if total != 0:
            weights = [t(w / total) for w in weights]
        windows.append((xmin, np.array(weights, t)))
    return windows


def _pass(a: np.ndarray, axis: int, windows: list[tuple[int, np.ndarray]],
          row0: bool) -> np.ndarray:
    """One separable pass along `axis` (interpolate_aa_single_dim's sum order)."""
    group = 16 // a.itemsize  # terms added unfused, in whole groups (4 float, 2 double)
    src = np.moveaxis(a, axis, -1)
    out = np.empty(src.shape[:-1] + (len(windows),), a.dtype)
    for o, (xmin, w) in enumerate(windows if not row0 else [windows[0]] * len(windows)):
        if len(w) == 0:
            out[..., o] = 0
            continue
        acc = src[..., xmin] * w[0]
        steps = len(w) - 1
        unfused = steps // group * group
        for j in range(1, len(w)):
            term_fused = j > unfused
            acc = _fma(src[..., xmin + j], w[j], acc, term_fused).astype(a.dtype) \
                if term_fused else (acc + src[..., xmin + j] * w[j]).astype(a.dtype)
        out[..., o] = acc
    return np.moveaxis(out, -1, axis)


def aa_forward(a: np.ndarray, output_size: tuple[int, int], align_corners: bool,
               scales: tuple[float | None, ...], cubic: bool) -> np.ndarray:
    (oh, ow), (ih, iw) = output_size, a.shape[2:]
    out = a
    if (oh, ow) == (ih, iw):
        return np.array(a)
    if ow != iw:
        out = _pass(out, 3, aa_windows(iw, ow, align_corners, scales[1], cubic, a.dtype), False)
    if oh != ih:
        out = _pass(out, 2, aa_windows(ih, oh, align_corners, scales[0], cubic, a.dtype),
                    out.shape[3] == 1)
    return np.ascontiguousarray(out, a.dtype)


def aa_backward(g: np.ndarray, input_size: tuple[int, ...], align_corners: bool,
                scales: tuple[float | None, ...], cubic: bool) -> np.ndarray:
    dtype = g.dtype
    (ih, iw), (oh, ow) = input_size[2:], g.shape[2:]
    wy = aa_windows(ih, oh, align_corners, scales[0], cubic, dtype)
    wx = aa_windows(iw, ow, align_corners, scales[1], cubic, dtype)
    gi = np.zeros(g.shape[:2] + (ih, iw), dtype)
    for y, (ymin, yw) in enumerate(wy):
        for x, (xmin, xw) in enumerate(wx):
            block = (yw[:, None] * xw[None, :]).astype(dtype)       # wx[x] * wy[y]
            region = gi[:, :, ymin:ymin + len(yw), xmin:xmin + len(xw)]
            gv = g[:, :, y, x][:, :, None, None]
            region[...] = _fma(block, gv, region, True).astype(dtype)
    return gi


class _UpsampleAa(_Upsample):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    dims = 2
    cubic = False

    def forward(self, x: Tensor, output_size: tuple[int, ...],
                scales: tuple[float | None, ...], align_corners: bool | None = None
                ) -> np.ndarray:
        a = x.array
        self.save_attr(output_size=tuple(output_size), align_corners=bool(align_corners),
                       scales_h=scales[0], scales_w=scales[1], self_sym_sizes=a.shape)
        reserve(a.shape[:2] + tuple(output_size), a.itemsize)
        out = aa_forward(a, tuple(output_size), bool(align_corners), scales, self.cubic)
        # the meta function's memory format: the input's suggest_memory_format() (measured)
        return dense_in_format(out, suggests_channels_last(a))

    def backward(self, grad: Tensor) -> Tensor:
        attrs = self.attrs
        return _AA_BACKWARDS[type(self)].call(
            grad, output_size=attrs["output_size"], input_size=attrs["self_sym_sizes"],
            scales=_scales_of(attrs, 2), align_corners=attrs["align_corners"])


class _UpsampleAaBackward(_UpsampleBackward):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear

    def forward(self, grad: Tensor, output_size: tuple[int, ...], input_size: tuple[int, ...],
                scales: tuple[float | None, ...], align_corners: bool | None) -> np.ndarray:
        self.save_attr(output_size=tuple(output_size), align_corners=bool(align_corners),
                       scales_h=scales[0], scales_w=scales[1])
        g = grad.array
        gi = aa_backward(g, tuple(input_size), bool(align_corners), scales,
                         self.forward_node.cubic)  # type: ignore[attr-defined]
        # bilinear's backward keeps grad_output's suggested format, bicubic's is contiguous
        # (measured, torch 2.13)
        return dense_in_format(gi, not self.forward_node.cubic  # type: ignore[attr-defined]
                             and suggests_channels_last(g))


def _aa_node(name: str, aten: str, cubic: bool) -> type[_UpsampleAa]:
    node = type(name, (_UpsampleAa,), {
        "__slots__": (), "mode": "bicubic" if cubic else "bilinear", "cubic": cubic,
        "formulas": (vjp("self", f"{aten}_backward({{grad}}, {{output_size}}, "
                                 "{self_sym_sizes}, {align_corners}, {scales_h}, "
                                 "{scales_w})"),)})
    _AA_BACKWARDS[node] = type(name.replace("Backward0", "BackwardBackward0"),
                               (_UpsampleAaBackward,), {
        "__slots__": (), "forward_node": node,
        "formulas": (vjp("grad_output", f"{aten}({{grad}}, {{output_size}}, "
                                        "{align_corners}, {scales_h}, {scales_w})"),)})
    return node


_AA_BACKWARDS: dict[type[_UpsampleAa], type[_UpsampleAaBackward]] = {}

UpsampleBilinear2DAaBackward0 = _aa_node("UpsampleBilinear2DAaBackward0",
                                         "_upsample_bilinear2d_aa", False)
UpsampleBicubic2DAaBackward0 = _aa_node("UpsampleBicubic2DAaBackward0",
                                        "_upsample_bicubic2d_aa", True)
