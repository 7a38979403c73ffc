"""float32 convolutions in the order oneDNN's `gemm:jit` convolution (gemm_convolution.cpp)
computes them on AVX2, in numpy.

oneDNN runs this im2col + sgemm kernel where its direct kernels decline (ONEDNN_VERBOSE:
`x64:gemm:jit`): a padding as wide as the (dilated) kernel, a left padding past 3 in a
forward (engine/conv_kernels.py, MAX_LEFT_PAD), a dilated weight gradient, as in the causal
dilated convolutions of TCNs and WaveNets (`padding=(k - 1) * dilation`) or SRCNN's 9x9 with
padding 4, and most grouped ones: groups not of whole channel blocks of 8 (ResNeXt's groups
of 4 channels), and depthwise ones where jit_dw declines (engine/conv_depthwise.py: Mamba's
causal Conv1d, ConvNeXt's 7x7 weight gradient). Each group is its own im2col and sgemm.

Forward: the images' output positions (N x OH x OW, row-major) are split between the
threads in equal runs (balance211); each thread's run, cut at image ends, is one sgemm
`(O, positions) = weight (O, C*KH*KW) · columns` of its im2col columns (slow_conv.columns:
rows channel, then kernel row, kernel column), in the order of oneDNN's no-copy sgemm kernels
(engine/onednn_sgemm.py, one thread inside the parallel region), and the bias is added
after. The weight gradient is one sgemm per image accumulated per thread (backward_weight),
the bias's an `omp simd` sum (backward_bias). Measured bit for bit against torch 2.13
(oneDNN v3.12, 2 threads, as an AVX2 machine) on 1-D convolutions dilated 1 to 8 with 1 to
128 channels and on 2-D ones, grouped and depthwise ones with 1 to 32 channels a group.
"""
from __future__ import annotations

import numpy as np

from . import capability, onednn_sgemm
from .conv_kernels import balance211
from .slow_conv import columns


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
            padding: tuple[int, int], dilation: tuple[int, int], groups: int = 1) -> np.ndarray:
    """(N, C, H, W) x (O, C/groups, KH, KW) -> (N, O, OH, OW) in gemm:jit's order (module
    doc): the output positions of images and groups in turn (N x groups x OH x OW) split
    between the threads, each run cut where an image's group ends."""
    n, o = x.shape[0], w.shape[0]
    cg, og = x.shape[1] // groups, o // groups
    cols = [[columns(x[i, j * cg:(j + 1) * cg], w.shape[2:], stride, padding, dilation)
             for j in range(groups)] for i in range(n)]
    positions = cols[0][0].shape[1]
    w2 = [np.ascontiguousarray(w[j * og:(j + 1) * og]).reshape(og, -1) for j in range(groups)]
    out = np.zeros((n, o, positions), np.float32)
    for part in balance211(n * groups * positions, capability.num_threads()):
        start, end = part.start, part.stop
        while start < end:
            block, first = divmod(start, positions)
            image, j = divmod(block, groups)
            last = min(end - block * positions, positions)
            out[image][j * og:(j + 1) * og, first:last] = onednn_sgemm.sgemm(
                np.ascontiguousarray(cols[image][j][:, first:last].T), w2[j], None, 1)
            start = block * positions + last
    if b is not None:
        with np.errstate(all="ignore"):
            out += b.reshape(1, o, 1)
    oh = (x.shape[2] + 2 * padding[0] - dilation[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
    return out.reshape(n, o, oh, -1)


def backward_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                    stride: tuple[int, int], padding: tuple[int, int],
                    dilation: tuple[int, int], groups: int = 1) -> np.ndarray:
    """d(weight): per group, its images split between the threads that group gets
    (bwd_weights_balance: threads go to groups first); each thread's images in turn one
    sgemm `(O/g, C/g*KH*KW) [+]= grad_out (O/g, positions) · columnsᵀ` (the first into
    zeros), the threads' sums added in turn (bwd_weights_reduction_par_ncsp). Threading is
    outer (one thread per sgemm) where init_conf's rule allows, else one thread runs every
    sgemm with all of them."""
    n, o = x.shape[0], w_shape[0]
    cg, og = x.shape[1] // groups, o // groups
    threads = capability.num_threads()
    positions = g.shape[2] * g.shape[3]
    outer = positions // threads < 256 and (n != 1 or groups > 2)
    team = threads if outer else 1
    by_group = min(groups, team)
    by_image = min(n, team // by_group) if n != 1 and team != 1 else 1
    if cg == 1 and og == 1:  # depthwise: every channel's gemv_t at once
        return _depthwise_weight(g, x, w_shape, stride, padding, dilation, by_image)
    parts = []
    for j in range(groups):
        xj = x[:, j * cg:(j + 1) * cg]
        gj = g[:, j * og:(j + 1) * og]
        total = None
        for images in balance211(n, by_image):
            acc = None
            for i in images:
                cols = columns(xj[i], w_shape[2:], stride, padding, dilation)
                acc = onednn_sgemm.sgemm(cols, np.ascontiguousarray(gj[i]).reshape(og, -1), acc,
                                         1 if outer else threads, trans_a=True)
            total = acc if total is None else total + acc
        parts.append(total)
    return np.concatenate(parts).reshape(w_shape)


def _depthwise_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                      stride: tuple[int, int], padding: tuple[int, int],
                      dilation: tuple[int, int], by_image: int) -> np.ndarray:
    """backward_weight's groups of one channel, all channels' products at once: each is
    the sgemm of a single output channel, gemv_t's dot products of the kernel taps'
    columns with the channel's gradient."""
    n, c = x.shape[:2]
    taps = w_shape[2] * w_shape[3]
    total = None
    for images in balance211(n, by_image):
        acc = np.zeros(c * taps, np.float32)
        for i in images:
            cols = columns(x[i], w_shape[2:], stride, padding, dilation)
            onednn_sgemm.dot_rows(cols, np.repeat(g[i].reshape(c, -1), taps, axis=0), acc)
        total = acc if total is None else total + acc
    return total.reshape(w_shape)


def backward_bias(g: np.ndarray) -> np.ndarray:
    """d(bias): per channel a float32 sum from 0 over images and output rows of each row's
    total, a row summed in turn from 0 (the `omp simd` reduction's private sum, not
    vectorised in torch's build: measured on rows 1 to 1,000 long)."""
    n, o, oh, ow = g.shape
    rows = np.moveaxis(g, 1, 0).reshape(o, n * oh, ow)
    db = np.zeros(o, np.float32)
    if ow == 0:
        return db
    totals = np.cumsum(rows, axis=2, dtype=np.float32)[:, :, -1]
    with np.errstate(all="ignore"):
        for r in range(n * oh):
            db += totals[:, r]
    return db


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   stride: tuple[int, int], padding: tuple[int, int],
                   dilation: tuple[int, int], groups: int = 1) -> np.ndarray:
    """d(input): per group and image, columns (C/g*KH*KW, positions) = weightᵀ · grad_out
    by the sgemm (`'N', 'T'`), then col2im adding each kernel tap's columns in turn (rows,
    then columns) into zeros (gemm_convolution_bwd_data, one thread per group's image)."""
    n, c, h, wd = x_shape
    o, cg, kh_n, kw_n = w.shape
    og = o // groups
    oh, ow = g.shape[2:]
    out = np.zeros((n, c, h + 2 * padding[0], wd + 2 * padding[1]), np.float32)
    with np.errstate(all="ignore"):
        for j in range(groups):
            wt = np.ascontiguousarray(w[j * og:(j + 1) * og].reshape(og, -1).T)
            for i in range(n):
                gi = np.ascontiguousarray(g[i, j * og:(j + 1) * og].reshape(og, -1).T)
                cols = onednn_sgemm.sgemm(gi, wt, None, 1, trans_b=True).reshape(
                    cg, kh_n, kw_n, oh, ow)
                image = out[i, j * cg:(j + 1) * cg]
                for kh in range(kh_n):
                    for kw in range(kw_n):
                        r0, c0 = kh * dilation[0], kw * dilation[1]
                        image[:, r0:r0 + stride[0] * (oh - 1) + 1:stride[0],
                              c0:c0 + stride[1] * (ow - 1) + 1:stride[1]] += cols[:, kh, kw]
    return out[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + wd]
