"""float32 depthwise convolutions (groups == input channels == output channels) in the
order oneDNN's `jit_dw:avx2` kernels compute them.

torch sends a grouped float32 convolution to oneDNN (Convolution.cpp's use_mkldnn), which
runs a depthwise one with a channel multiplier of 1 through jit_uni_dw_convolution
(measured with ONEDNN_VERBOSE on AVX2: `jit_dw:avx2` for the forward and the input
gradient, 1-D and 2-D, strided or not, with and without bias). Each channel is its own
1-channel convolution, so the orders are short:

* forward: each output element one chain of fused multiply-adds from its bias (or 0)
  over kernel rows, then kernel columns;
* backward data: each input element one chain from 0 over the kernel rows and columns
  that meet it, in increasing order;
* backward weights (jit_uni_dw_conv_bwd_weights, its `harness_mb_reduction` for the
  blocked layout): each tap one chain from 0 over the images of a thread's share, their
  output rows and columns in turn, the shares then added in turn; the bias the same way
  with adds. oneDNN runs it for kernels at most 3 wide (the rest run gemm:jit,
  engine/conv_gemm.py).

A channels-last input's undilated forward runs `brdgmm_dw:avx2` instead, for any padding
(ONEDNN_VERBOSE): the same chain from 0, the bias added after it (`forward_brdgmm`,
measured bit for bit on kernels 3-13, paddings 1-10, strides 1-3, with and without bias);
a dilated one runs jit_dw:avx2 in its own order.
"""
from __future__ import annotations

import numpy as np

from . import capability
from .conv_kernels import _padded, _tap, balance211, end_padding, image_chunks
from .fp32 import FmaChain, float64_along


def is_depthwise(x_shape: tuple[int, ...], w_shape: tuple[int, ...], groups: int) -> bool:
    """A depthwise convolution with one output channel per input channel (jit_dw's case;
    a larger multiplier runs gemm:jit, measured)."""
    return groups > 1 and x_shape[1] == groups and w_shape[0] == groups and w_shape[1] == 1


MAX_PAD = 4  # jit_dw's widest padding; 5 and more run gemm:jit (measured, AVX2)
# output positions (images x rows x columns) past which the weight gradient's chain, one
# numpy step a position (~35 us), is not emulated
MAX_WEIGHT_STEPS = 1 << 16


def runs(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, ...],
         padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
         direction: str) -> bool:
    """Whether oneDNN runs jit_dw:avx2 for `direction` ('forward', 'input' or 'weight') of
    this 2-D view of a depthwise convolution with multiplier 1 (measured with
    ONEDNN_VERBOSE on 1-D and 2-D ones, kernels 1-7, paddings 0..k, strides and dilations
    1-2; the rest run gemm:jit):
    - forward: each padding narrower than its kernel and at most MAX_PAD, and an output
      at least as wide as its left padding (measured on 540 widths 1-9, kernels 3-7,
      paddings 0-4, strides 1-2: a 7x7 kernel padded by 3 over a 2-wide input runs
      gemm:jit; the height has no such limit);
    - input: no dilation;
    - weight: bwd_weights init_conf's checks (no dilation, a kernel at most 3 wide and no
      narrower than its stride, paddings at most half the kernel, an input that holds the
      kernel, a padding past 1 a multiple of the stride)."""
    if not is_depthwise(x_shape, w_shape, groups) or len(w_shape) != 4:
        return False
    undilated = all(d == 1 for d in dilation)
    if direction == "input":
        return undilated
    if direction == "weight":
        return undilated and _weight_kernel_fits(x_shape, w_shape, stride, padding)
    if any(p >= k or p > MAX_PAD for p, k in zip(padding, w_shape[2:], strict=True)):
        return False
    out_w = (x_shape[-1] + 2 * padding[-1] - dilation[-1] * (w_shape[-1] - 1) - 1) \
        // stride[-1] + 1
    return out_w >= padding[-1]


def _weight_kernel_fits(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                        stride: tuple[int, ...], padding: tuple[int, ...]) -> bool:
    """jit_uni_dw_conv_bwd_weights_kernel's init_conf checks past the dilation."""
    (kh, kw), (sh, sw), (ih, iw) = w_shape[2:], stride, x_shape[2:]
    if kw > 3 or sw > kw:
        return False
    for size, k, s, p in ((ih, kh, sh, padding[0]), (iw, kw, sw, padding[1])):
        if p > k // 2 or end_padding(size, k, s, p) > k // 2:
            return False
    top, bottom = padding[0], end_padding(ih, kh, sh, padding[0])
    return (ih >= kh + (-top) % sh and not (top > 1 and top % sh)
            and not (bottom > 1 and bottom % sh))


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
            padding: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """(N, C, H, W) x (C, 1, KH, KW) -> (N, C, OH, OW): per output element a chain from
    the bias over kernel rows, then columns."""
    n, c = x.shape[:2]
    kh_n, kw_n = w.shape[2:]
    xp = _padded(x, padding)
    out = ((xp.shape[2] - dilation[0] * (kh_n - 1) - 1) // stride[0] + 1,
           (xp.shape[3] - dilation[1] * (kw_n - 1) - 1) // stride[1] + 1)
    acc = np.zeros((n, c) + out, np.float32)
    if b is not None:
        acc += b.reshape(1, c, 1, 1)
    x64, w64 = xp.astype(np.float64), float64_along(w, 0)
    chain = FmaChain(x64, w64)
    with np.errstate(all="ignore"):
        for images in image_chunks(n, c * out[0] * out[1]):
            for kh in range(kh_n):
                for kw in range(kw_n):
                    rows, cols = _tap(xp, kh, kw, out, stride, dilation)
                    chain.step(x64[images, :, rows, cols], w64[None, :, 0, kh, kw, None, None],
                               acc[images])
    return acc


def runs_brdgmm(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                dilation: tuple[int, ...], groups: int) -> bool:
    """Whether a channels-last input's forward of this 2-D view runs brdgmm_dw:avx2 (an
    undilated depthwise convolution with multiplier 1, any padding or stride)."""
    return is_depthwise(x_shape, w_shape, groups) and len(w_shape) == 4 and \
        all(d == 1 for d in dilation)


def forward_brdgmm(x: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                   stride: tuple[int, int], padding: tuple[int, int]) -> np.ndarray:
    """brdgmm_dw's forward: `forward`'s chain from 0, then the bias added in float32."""
    out = forward(x, w, None, stride, padding, (1, 1))
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   stride: tuple[int, int], padding: tuple[int, int],
                   dilation: tuple[int, int]) -> np.ndarray:
    """d(input): per input element a chain from 0 over the kernel taps that meet it, rows
    then columns."""
    n, c, h, wd = x_shape
    kh_n, kw_n = w.shape[2:]
    out = g.shape[2:]
    ph, pw = padding
    acc = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), np.float32)
    g64, w64 = g.astype(np.float64), float64_along(w, 0)
    chain = FmaChain(g64, w64)
    with np.errstate(all="ignore"):
        for images in image_chunks(n, acc[0].size):
            for kh in range(kh_n):
                for kw in range(kw_n):
                    rows, cols = _tap(acc, kh, kw, out, stride, dilation)
                    chain.step(g64[images], w64[None, :, 0, kh, kw, None, None],
                               acc[images, :, rows, cols])
    return acc[:, :, ph:ph + h, pw:pw + wd]


def _shares(n: int, channels: int) -> list[range]:
    """The images of each thread's share (balance's harness_mb_reduction: threads go to
    channel blocks of 8 first, the rest split the images)."""
    threads = capability.num_threads()
    by_channel = min(-(-channels // 8), threads)
    return balance211(n, min(max(1, threads // by_channel), n))


def backward_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                    stride: tuple[int, int], padding: tuple[int, int]) -> np.ndarray:
    """d(weight) (C, 1, KH, KW): per tap a chain from 0 over each share's images, output
    rows, then columns (padding taps add nothing), the shares added in turn."""
    n, c = x.shape[:2]
    kh_n, kw_n = w_shape[2:]
    oh, ow = g.shape[2:]
    xp = _padded(x, padding).astype(np.float64)
    g64 = g.astype(np.float64)
    # windows[n, c, oh, ow, kh, kw]: the input each tap meets at each output position
    windows = np.lib.stride_tricks.sliding_window_view(xp, (kh_n, kw_n), axis=(2, 3))[
        :, :, ::stride[0], ::stride[1]][:, :, :oh, :ow]
    total = None
    chain = FmaChain()
    with np.errstate(all="ignore"):
        for share in _shares(n, c):
            acc = np.zeros((c, kh_n, kw_n), np.float32)
            for i in share:
                for r in range(oh):
                    for col in range(ow):
                        chain.step(windows[i, :, r, col], g64[i, :, r, col, None, None], acc)
            total = acc if total is None else total + acc
    return total.reshape(w_shape)


def backward_bias(g: np.ndarray) -> np.ndarray:
    """d(bias): per channel a float32 sum from 0 over each share's images, output rows and
    columns in turn, the shares added in turn."""
    n, c = g.shape[:2]
    total = None
    with np.errstate(all="ignore"):
        for share in _shares(n, c):
            rows = np.moveaxis(g[share.start:share.stop], 1, 0).reshape(c, -1)
            part = np.cumsum(rows, axis=1, dtype=np.float32)[:, -1] if rows.shape[1] else \
                np.zeros(c, np.float32)
            total = part if total is None else total + part
    return total
