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
  that meet it, in increasing order.

The weight gradient is not covered: oneDNN runs `jit_dw` for some shapes and `gemm:jit`
for others (a 1-D kernel of 4 with padding 3, measured), neither reproduced here.
"""
from __future__ import annotations

import numpy as np

from .conv_kernels import _padded, _tap, image_chunks
from .fp32 import FmaChain


def is_depthwise(x_shape: tuple[int, ...], w_shape: tuple[int, ...], groups: int) -> bool:
    """A depthwise convolution with one output channel per input channel (jit_dw's case;
    a larger multiplier runs gemm:jit, measured)."""
    return groups > 1 and x_shape[1] == groups and w_shape[0] == groups and w_shape[1] == 1


MAX_PAD = 4  # jit_dw's widest padding; 5 and more run gemm:jit (measured, AVX2)


def runs(x_shape: tuple[int, ...], w_shape: tuple[int, ...], padding: tuple[int, ...],
         dilation: tuple[int, ...], groups: int, direction: str) -> bool:
    """Whether oneDNN runs jit_dw:avx2 for `direction` ('forward' or 'input') of this 2-D
    view of a convolution: depthwise with multiplier 1, each padding narrower than its
    kernel and at most MAX_PAD (measured: kernel 7 with padding 4 runs jit_dw, padding 5
    gemm:jit; kernel 3 with padding 3 gemm:jit), and for the input gradient no dilation
    (a dilated one runs gemm:jit, measured)."""
    if not is_depthwise(x_shape, w_shape, groups) or len(w_shape) != 4:
        return False
    if any(p >= k or p > MAX_PAD for p, k in zip(padding, w_shape[2:], strict=True)):
        return False
    return direction == "forward" or (direction == "input" and all(d == 1 for d in dilation))


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
    x64, w64, chain = xp.astype(np.float64), w.astype(np.float64), FmaChain()
    with np.errstate(all="ignore"):
        for images in image_chunks(n, c * out[0] * out[1]):
            for kh in range(kh_n):
                for kw in range(kw_n):
                    rows, cols = _tap(xp, kh, kw, out, stride, dilation)
                    chain.step(x64[images, :, rows, cols], w64[None, :, 0, kh, kw, None, None],
                               acc[images])
    return acc


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
    g64, w64, chain = g.astype(np.float64), w.astype(np.float64), FmaChain()
    with np.errstate(all="ignore"):
        for images in image_chunks(n, acc[0].size):
            for kh in range(kh_n):
                for kw in range(kw_n):
                    rows, cols = _tap(acc, kh, kw, out, stride, dilation)
                    chain.step(g64[images], w64[None, :, 0, kh, kw, None, None],
                               acc[images, :, rows, cols])
    return acc[:, :, ph:ph + h, pw:pw + wd]
