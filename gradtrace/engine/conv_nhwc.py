"""float32 2-D convolutions of channels-last tensors in the order oneDNN's brgemm kernels
compute them, in vectorised numpy.

torch runs a convolution in channels-last memory when its input or its weight suggests that
format (Convolution.cpp's `mkldnn_conv_use_channels_last`): an NHWC batch permuted to NCHW
(`x.permute(0, 3, 1, 2)`) or `memory_format=torch.channels_last`. Its output, and its input
gradient, are then channels-last too. oneDNN (AVX2, ONEDNN_VERBOSE) runs:

* forward: `brg_conv_fwd:avx2` (`brgconv_1x1:avx2` for 1x1 kernels, the same order). Each
  output element is a sum of brgemm calls, each one chain of fused multiply-adds from 0
  over its kernel taps (rows, then columns) and, per tap, every input channel; the calls'
  results are added in turn and the bias last. jit_brgemm_conv_utils.cpp's init_conf
  picks the calls: `exec_vpad` (one call over every tap, the padding skipped) when the
  left and right paddings are each under the kernel's width in strides and the input
  columns an output block reads, `(ow_block - 1) * stride + 1`, fit the input; else
  `exec_base`, one call per kernel column. The output block is picked by an efficiency
  estimate (thread count, cache sizes) not reproduced here, so where the whole row's
  block would not fit but a shorter one would, the choice is not known (noted).
* input gradient, stride 1: `brg_conv_bwd:avx2+brg_conv_fwd:avx2`, the forward kernel run
  on the output gradient with the kernel flipped (taps from the last row and column) and
  the padding `kernel - 1 - padding`, the same choice of calls; strided:
  `brgconv_strided:avx2`, as for NCHW (engine/conv_brgemm.py, measured the same).
* weight gradient: `jit:avx2`, the same order as for NCHW (engine/conv_kernels.py);
  `jit_1x1:avx2`'s for a 1x1 kernel is not (not reproduced, noted).

Measured bit for bit against torch 2.13 (oneDNN v3.12, 2 threads, as an AVX2 machine) on
kernels 1 to 7 wide, paddings 0 to k - 1, strides 1 and 2, 3 to 256 channels.
"""
from __future__ import annotations

import numpy as np

from .fp32 import FmaChain, float64_along

# init_conf turns exec_vpad off for an AVX2 forward this large (not reproduced)
_LARGE_IC, _LARGE_OC = 512, 256


def calls_per_column(iw: int, ow: int, kw: int, stride: int, l_pad: int, ic: int = 0,
                     oc: int = 0) -> bool | None:
    """Whether brg_conv_fwd makes one call per kernel column (exec_base: True) or one call
    of every tap (exec_vpad: False); None when its output blocking decides."""
    r_pad = max(0, (ow - 1) * stride + kw - iw - l_pad)
    if -(-l_pad // stride) >= kw or -(-r_pad // stride) >= kw:
        return True
    if ic >= _LARGE_IC and oc >= _LARGE_OC:
        return None
    return False if (ow - 1) * stride + 1 <= iw else None


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
            padding: tuple[int, int], per_column: bool) -> np.ndarray:
    """(N, C, H, W) x (O, C, KH, KW) -> (N, O, OH, OW) in brg_conv_fwd's order (module doc),
    the bias added last."""
    kh_n, kw_n = w.shape[2:]
    xp = _padded(x, padding)
    out = ((xp.shape[2] - kh_n) // stride[0] + 1, (xp.shape[3] - kw_n) // stride[1] + 1)
    return _calls(xp, w, b, out, stride, range(kh_n), range(kw_n), per_column, flip=False)


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   padding: tuple[int, int], per_column: bool) -> np.ndarray:
    """d(input) of a stride-1 convolution: the forward kernel on the output gradient with
    the kernel flipped and the padding kernel - 1 - padding (module doc)."""
    kh_n, kw_n = w.shape[2:]
    gp = _padded(g, (kh_n - 1 - padding[0], kw_n - 1 - padding[1]))
    out = (x_shape[2], x_shape[3])
    wt = w.transpose(1, 0, 2, 3)
    return _calls(gp, wt, None, out, (1, 1), range(kh_n - 1, -1, -1), range(kw_n - 1, -1, -1),
                  per_column, flip=True)


def _padded(a: np.ndarray, padding: tuple[int, int]) -> np.ndarray:
    """Zero padding on both sides; a negative padding crops (the flipped kernel's padding
    when the forward's exceeds kernel - 1)."""
    ph, pw = padding
    a = np.pad(a, ((0, 0), (0, 0), (max(ph, 0),) * 2, (max(pw, 0),) * 2))
    return a[:, :, max(-ph, 0):a.shape[2] - max(-ph, 0), max(-pw, 0):a.shape[3] - max(-pw, 0)]


def _calls(src: np.ndarray, w: np.ndarray, b: np.ndarray | None, out: tuple[int, int],
           stride: tuple[int, int], rows: range, cols: range, per_column: bool,
           flip: bool) -> np.ndarray:
    """Each output element's brgemm calls over the padded `src`: taps `rows` x `cols`
    (w[o, c, kh, kw] read at tap (kh, kw); `flip` reads src at the mirrored tap), every
    channel per tap; one call, or one per kernel column, summed in turn, then the bias."""
    n, c = src.shape[:2]
    o = w.shape[0]
    kh_n, kw_n = w.shape[2:]
    s64, w64 = src.astype(np.float64), float64_along(w, 0)
    chain = FmaChain(s64, w64)
    groups = [[kw] for kw in cols] if per_column else [list(cols)]
    total = None
    with np.errstate(all="ignore"):
        for group in groups:
            acc = np.zeros((n, o) + out, np.float32)
            for kh in rows:
                for kw in group:
                    th, tw = (kh_n - 1 - kh, kw_n - 1 - kw) if flip else (kh, kw)
                    window = s64[:, :, th:th + stride[0] * (out[0] - 1) + 1:stride[0],
                                 tw:tw + stride[1] * (out[1] - 1) + 1:stride[1]]
                    for ic in range(c):
                        chain.step(window[:, None, ic], w64[None, :, ic, kh, kw, None, None],
                                   acc)
            total = acc if total is None else total + acc
        if b is not None:
            total = total + b.reshape(1, o, 1, 1)
    return total
