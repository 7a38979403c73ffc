"""float32 convolutions in the order oneDNN's `gemm:jit` convolution (gemm_convolution.cpp)
computes them on AVX2, in numpy.

oneDNN runs this im2col + sgemm kernel where its direct kernels decline (ONEDNN_VERBOSE:
`x64:gemm:jit`): a padding as wide as the (dilated) kernel, a left padding past 3 in a
forward (engine/conv_kernels.py, MAX_LEFT_PAD), a dilated weight gradient, as in the causal
dilated convolutions of TCNs and WaveNets (`padding=(k - 1) * dilation`) or SRCNN's 9x9 with
padding 4.

Forward: the images' output positions (N x OH x OW, row-major) are split between the
threads in equal runs (balance211); each thread's run, cut at image ends, is one sgemm
`(O, positions) = weight (O, C*KH*KW) · columns` of its im2col columns (slow_conv.columns:
rows channel, then kernel row, kernel column), in the order of oneDNN's no-copy sgemm kernels
(engine/onednn_sgemm.py, one thread inside the parallel region), and the bias is added
after. The weight gradient is one sgemm per image accumulated per thread (backward_weight),
the bias's an `omp simd` sum (backward_bias). Measured bit for bit against torch 2.13
(oneDNN v3.12, 2 threads, as an AVX2 machine) on 1-D convolutions dilated 1 to 8 with 1 to
128 channels and on 2-D ones.
"""
from __future__ import annotations

import numpy as np

from . import capability, onednn_sgemm
from .conv_kernels import balance211
from .slow_conv import columns


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
            padding: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """(N, C, H, W) x (O, C, KH, KW) -> (N, O, OH, OW) in gemm:jit's order (module doc)."""
    n, o = x.shape[0], w.shape[0]
    cols = [columns(x[i], w.shape[2:], stride, padding, dilation) for i in range(n)]
    positions = cols[0].shape[1]
    w2 = np.ascontiguousarray(w).reshape(o, -1)
    out = np.zeros((n, o, positions), np.float32)
    for part in balance211(n * positions, capability.num_threads()):
        start, end = part.start, part.stop
        while start < end:
            image, first = divmod(start, positions)
            last = min(end - image * positions, positions)
            out[image][:, first:last] = onednn_sgemm.sgemm(
                np.ascontiguousarray(cols[image][:, first:last].T), w2, None, 1)
            start = image * positions + last
    if b is not None:
        with np.errstate(all="ignore"):
            out += b.reshape(1, o, 1)
    oh = (x.shape[2] + 2 * padding[0] - dilation[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
    return out.reshape(n, o, oh, -1)


def backward_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                    stride: tuple[int, int], padding: tuple[int, int],
                    dilation: tuple[int, int]) -> np.ndarray:
    """d(weight): the images split between the threads (balance211); each thread's images
    in turn one sgemm `(O, C*KH*KW) [+]= grad_out (O, positions) · columnsᵀ` (the first
    into zeros), the threads' sums added in turn (bwd_weights_reduction_par_ncsp)."""
    n, o = x.shape[0], w_shape[0]
    total = None
    for images in balance211(n, min(capability.num_threads(), n)):
        acc = None
        for i in images:
            cols = columns(x[i], w_shape[2:], stride, padding, dilation)
            acc = onednn_sgemm.sgemm(cols, np.ascontiguousarray(g[i]).reshape(o, -1), acc, 1)
        total = acc if total is None else total + acc
    return total.reshape(w_shape)


def backward_bias(g: np.ndarray) -> np.ndarray:
    """d(bias): per channel a float32 sum from 0 over images and output rows of each row's
    total, a row summed in 8 lanes (its whole vectors added lane-wise, the lanes then in
    turn) and then its tail (the `omp simd` reduction; measured on rows under 16 long)."""
    n, o, oh, ow = g.shape
    full = ow // 8 * 8
    rows = np.moveaxis(g, 1, -2).reshape(-1, o, ow)  # (images x rows, O, OW) in turn
    db = np.zeros(o, np.float32)
    with np.errstate(all="ignore"):
        for row in rows:
            lanes = np.zeros((o, 8), np.float32)
            for s in range(0, full, 8):
                lanes += row[:, s:s + 8]
            part = np.zeros(o, np.float32)
            for j in range(8):
                part += lanes[:, j]
            for j in range(full, ow):
                part += row[:, j]
            db += part
    return db


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   stride: tuple[int, int], padding: tuple[int, int],
                   dilation: tuple[int, int]) -> np.ndarray:
    """d(input): per image, columns (C*KH*KW, positions) = weightᵀ · grad_out by the sgemm
    (`'N', 'T'`), then col2im adding each kernel tap's columns in turn (rows, then
    columns) into zeros (gemm_convolution_bwd_data, one thread per image)."""
    n, c, h, wd = x_shape
    o, _, kh_n, kw_n = w.shape
    oh, ow = g.shape[2:]
    wt = np.ascontiguousarray(w.reshape(o, -1).T)
    out = np.zeros((n, c, h + 2 * padding[0], wd + 2 * padding[1]), np.float32)
    with np.errstate(all="ignore"):
        for i in range(n):
            cols = onednn_sgemm.sgemm(np.ascontiguousarray(g[i].reshape(o, -1).T), wt, None, 1,
                                      trans_b=True).reshape(c, kh_n, kw_n, oh, ow)
            for kh in range(kh_n):
                for kw in range(kw_n):
                    r0, c0 = kh * dilation[0], kw * dilation[1]
                    out[i, :, r0:r0 + stride[0] * (oh - 1) + 1:stride[0],
                        c0:c0 + stride[1] * (ow - 1) + 1:stride[1]] += cols[:, kh, kw]
    return out[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + wd]
