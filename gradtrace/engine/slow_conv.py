"""slow_conv2d / slow_conv3d (ATen's ConvolutionMM2d.cpp, ConvolutionMM3d.cpp) and
slow_conv_dilated2d/3d (NaiveDilatedConvolution.cpp): the convolutions torch runs for float64,
and for float32 when Convolution.cpp's use_mkldnn declines (a single small image with small
kernels), in torch's order, so their values are torch's bit for bit. The 3-D kernels are
the 2-D ones with a depth (Unfold3d's columns: channel, then kernel taps in (d, h, w) order).

Per image, the input is unfolded into columns (im2col: rows channel, kernel row, kernel
column; columns the output positions) and multiplied with the weight by MKL's gemm with
the arguments torch passes (engine/blas.gemm):

* forward: out = weight (O, C*KH*KW) @ columns, the gemm's C preloaded with the bias
  (beta 1) when there is one;
* grad_input: columns = weight.T @ grad_out, then folded back (col2im) by adding each
  kernel tap's columns in turn into a zeroed input, taps in (row, column) order;
* grad_weight: one gemm per image, accumulating (beta 1) into a zeroed weight:
  grad_weight += grad_out @ columns.T, images in order;
* grad_bias: torch.sum of grad_out over (0, 2, 3) (Convolution.cpp, by the caller); the
  dilated kernel adds each image's spatial sum in turn (backward_bias).

Forward and grad_input frames run inside ATen's parallel_for over the images, where MKL
runs on one thread whenever there are several images; grad_weight's loop, and every loop
of the dilated kernel, is sequential.
Groups run this per group on contiguous slices (Convolution.cpp's subtensor), then cat.
The gemms write into buffers where torch's would lie (engine/aligned.py).
"""
from __future__ import annotations

import numpy as np

from . import aligned, blas, capability, exactness
from .reduction_order import cascade_sum

_CAUSE = "slow_conv2d without MKL: its gemm order is not reproduced"


def _out_size(size: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[int, ...]:
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i]
                 + 1 for i in range(len(kernel)))


def columns(frame: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
            padding: tuple[int, ...], dilation: tuple[int, ...]) -> np.ndarray:
    """unfolded2d_copy / Unfold3dCopy / hvol2col: the (C*prod(kernel), prod(out)) columns of
    one (C, *spatial) image, rows channel then kernel taps, columns the output positions."""
    c = frame.shape[0]
    nd = len(kernel)
    out = _out_size(frame.shape[1:], kernel, stride, padding, dilation)
    padded = np.pad(frame, ((0, 0),) + tuple((p, p) for p in padding)) if any(padding) else frame
    s = padded.strides
    view = np.lib.stride_tricks.as_strided(
        padded, (c,) + tuple(kernel) + out,
        (s[0],) + tuple(s[1 + i] * dilation[i] for i in range(nd))
        + tuple(s[1 + i] * stride[i] for i in range(nd)), writeable=False)
    return np.ascontiguousarray(view).reshape(c * int(np.prod(kernel)), int(np.prod(out)))


def _frame_threads(batch: int, kernel: str) -> int | None:
    """MKL's threads for one image of `kernel`: one inside ATen's parallel_for over several
    images (slow_conv2d's and slow_conv_transpose2d's frames), else torch's count (the
    dilated kernel loops over its images sequentially)."""
    parallel = kernel != "dilated" and batch > 1
    return 1 if parallel and capability.num_threads() > 1 else None


def _product(transa: bool, transb: bool, m: int, n: int, k: int, a: np.ndarray, lda: int,
             b: np.ndarray, ldb: int, beta: int, c: np.ndarray, threads: int | None) -> None:
    """C (n, m) row-major = op(A) op(B) (+ C), column-major as cpublas::gemm sees it."""
    if blas.gemm(transa, transb, m, n, k, a, lda, b, ldb, beta, c, m, threads):
        return
    exactness.note(_CAUSE)
    a2 = a.reshape(-1, lda)  # row j of a2 is column j of the column-major A
    b2 = b.reshape(-1, ldb)
    op_a = a2[:m, :k] if transa else a2.T[:m, :k]
    op_b = b2[:k, :n] if transb else b2.T[:k, :n]
    prod = (op_a.astype(np.float64) @ op_b.astype(np.float64)).T
    c[...] = (prod + (c if beta else 0)).astype(c.dtype)


def kernel_name(dilation: tuple[int, ...]) -> str:
    """Which of ATen's kernels a plain convolution with this dilation runs."""
    return "dilated" if any(d != 1 for d in dilation) else "slow2d"


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, ...],
            padding: tuple[int, ...], dilation: tuple[int, ...],
            kernel: str = "") -> np.ndarray:
    """slow_conv2d/3d_forward / slow_conv_dilated2d/3d (and slow_conv_transpose's
    grad_input): (N, C, *S) x (O, C, *K) (+ bias) -> (N, O, *S'). The dilated kernel adds
    the product to a zeroed output (beta 1)."""
    kernel = kernel or kernel_name(dilation)
    n = x.shape[0]
    o = w.shape[0]
    dilated = kernel == "dilated"
    out_sizes = _out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    p = int(np.prod(out_sizes))
    w2 = np.ascontiguousarray(w).reshape(o, -1)
    out = aligned.zeros((n, o, p), x.dtype)
    if b is not None:
        out[...] = b.reshape(1, o, 1)
    threads = _frame_threads(n, kernel)
    for t in range(n):
        cols = columns(x[t], w.shape[2:], stride, padding, dilation)
        _product(False, False, p, o, cols.shape[0], cols, p, w2, cols.shape[0],
                 1 if b is not None or dilated else 0, out[t], threads)
    return out.reshape((n, o) + out_sizes)


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   stride: tuple[int, ...], padding: tuple[int, ...],
                   dilation: tuple[int, ...], kernel: str = "") -> np.ndarray:
    """slow_conv2d/3d_backward's grad_input (and slow_conv_transpose's forward before its
    bias): per image, weight.T @ grad_out into columns, then col2im / Unfold3dAcc adding
    each kernel tap's columns in turn into zeros."""
    kernel = kernel or kernel_name(dilation)
    n, c = x_shape[:2]
    o = w.shape[0]
    taps_shape = w.shape[2:]
    out_sizes = g.shape[2:]
    nd = len(taps_shape)
    rows, p = c * int(np.prod(taps_shape)), int(np.prod(out_sizes))
    w2 = np.ascontiguousarray(w).reshape(o, -1)
    g = np.ascontiguousarray(g)
    grad = np.zeros((n, c) + tuple(x_shape[2 + i] + 2 * padding[i] for i in range(nd)),
                    g.dtype)
    threads = _frame_threads(n, kernel)
    cols = aligned.empty((rows, p), g.dtype)
    for t in range(n):
        _product(False, True, p, rows, o, g[t], p, w2, rows, 0, cols, threads)
        taps = cols.reshape((c,) + tuple(taps_shape) + tuple(out_sizes))
        with np.errstate(all="ignore"):
            for tap in np.ndindex(*taps_shape):
                target = (t, slice(None)) + tuple(
                    slice(tap[i] * dilation[i],
                          tap[i] * dilation[i] + stride[i] * (out_sizes[i] - 1) + 1, stride[i])
                    for i in range(nd))
                grad[target] += taps[(slice(None),) + tap]
    inner = (slice(None), slice(None)) + tuple(
        slice(padding[i], padding[i] + x_shape[2 + i]) for i in range(nd))
    return grad[inner]


def backward_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                    stride: tuple[int, ...], padding: tuple[int, ...],
                    dilation: tuple[int, ...]) -> np.ndarray:
    """slow_conv2d/3d_backward's grad_weight: grad_out @ columns.T accumulated image by
    image into a zeroed weight."""
    n = x.shape[0]
    o = w_shape[0]
    rows = int(np.prod(w_shape[1:]))
    p = int(np.prod(g.shape[2:]))
    g = np.ascontiguousarray(g)
    grad = aligned.zeros((o, rows), g.dtype)
    for t in range(n):
        cols = columns(x[t], tuple(w_shape[2:]), stride, padding, dilation)
        _product(True, False, rows, o, p, cols, p, g[t], p, 1, grad, None)
    return grad.reshape(w_shape)


def backward_weight_grouped3d(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                              stride: tuple[int, ...], padding: tuple[int, ...],
                              groups: int) -> np.ndarray:
    """A grouped slow_conv3d's grad_weight (slow_conv3d supports groups itself): per image,
    one bmm of the groups' (O/g, P) gradients with their columns transposed, added to the
    (g, O/g, C/g*K) weight gradient (measured against torch 2.13: per-group gemms, as
    slow_conv2d's subtensor loop does, differ in the last bit)."""
    o = w_shape[0]
    rows = int(np.prod(w_shape[1:]))
    p = int(np.prod(g.shape[2:]))
    g = np.ascontiguousarray(g).reshape(g.shape[0], groups, o // groups, p)
    grad = np.zeros((groups, o // groups, rows), g.dtype)
    for t in range(x.shape[0]):
        cols = columns(x[t], tuple(w_shape[2:]), stride, padding, (1,) * (len(w_shape) - 2))
        grad = grad + blas.bmm(g[t], cols.reshape(groups, rows, p).transpose(0, 2, 1))
    return grad.reshape(w_shape)


def backward_bias(g: np.ndarray) -> np.ndarray:
    """slow_conv_dilated's and slow_conv_transpose's grad_bias: each image's torch.sum
    over the spatial dims added in turn to a zeroed bias gradient."""
    grad = np.zeros(g.shape[1], g.dtype)
    for t in range(g.shape[0]):
        grad = grad + cascade_sum(g[t], tuple(range(1, g.ndim - 1)), False)
    return grad


# -- channels-last slow_conv2d (ConvolutionMM2d.cpp's is_channels_last frames) -------------


def _columns_channels_last(frame: np.ndarray, kernel: tuple[int, int],
                           stride: tuple[int, int], padding: tuple[int, int]) -> np.ndarray:
    """unfolded2d_copy_channels_last: (output positions, KH * KW * C) columns of one
    (C, H, W) image, each row a patch in (kernel row, kernel column, channel) order."""
    c = frame.shape[0]
    out = _out_size(frame.shape[1:], kernel, stride, padding, (1, 1))
    hwc = np.pad(frame, ((0, 0),) + tuple((p, p) for p in padding)).transpose(1, 2, 0)
    s = hwc.strides
    view = np.lib.stride_tricks.as_strided(
        hwc, out + tuple(kernel) + (c,), (s[0] * stride[0], s[1] * stride[1]) + s,
        writeable=False)
    return np.ascontiguousarray(view).reshape(out[0] * out[1], -1)


def forward_channels_last(x: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                          stride: tuple[int, int], padding: tuple[int, int]) -> np.ndarray:
    """slow_conv2d_update_output_frame with is_channels_last: per image, the
    (positions, O) output = columns @ weight.T, weight's K in (kernel row, column,
    channel) order, the bias preloaded (beta 1); (N, O, OH, OW) laid out channels-last."""
    n, o = x.shape[0], w.shape[0]
    out_sizes = _out_size(x.shape[2:], w.shape[2:], stride, padding, (1, 1))
    p = out_sizes[0] * out_sizes[1]
    w2 = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(o, -1)
    k = w2.shape[1]
    out = aligned.zeros((n, p, o), x.dtype)
    if b is not None:
        out[...] = b
    threads = _frame_threads(n, "slow2d")
    for t in range(n):
        cols = _columns_channels_last(x[t], w.shape[2:], stride, padding)
        _product(True, False, o, p, k, w2, k, cols, k, 1 if b is not None else 0, out[t],
                 threads)
    return out.reshape((n,) + out_sizes + (o,)).transpose(0, 3, 1, 2)


def backward_input_channels_last(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                                 stride: tuple[int, int], padding: tuple[int, int]
                                 ) -> np.ndarray:
    """slow_conv2d_backward_update_grad_input_frame with is_channels_last: per image, the
    (positions, K) columns = grad_out (positions, O) @ weight (O, K), then
    col2im_channels_last adding them into zeros output position by output position, so an
    input element receives its taps from the last kernel row and column back."""
    n, c = x_shape[:2]
    o, _, kh_n, kw_n = w.shape
    out_sizes = g.shape[2:]
    p = out_sizes[0] * out_sizes[1]
    w2 = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(o, -1)
    k = w2.shape[1]
    grads = np.ascontiguousarray(g.transpose(0, 2, 3, 1)).reshape(n, p, o)
    grad = np.zeros((n, x_shape[2] + 2 * padding[0], x_shape[3] + 2 * padding[1], c), g.dtype)
    threads = _frame_threads(n, "slow2d")
    cols = aligned.empty((p, k), g.dtype)
    for t in range(n):
        _product(False, False, k, p, o, w2, k, grads[t], o, 0, cols, threads)
        taps = cols.reshape(out_sizes + (kh_n, kw_n, c))
        with np.errstate(all="ignore"):
            for kh in range(kh_n - 1, -1, -1):
                for kw in range(kw_n - 1, -1, -1):
                    grad[t, kh:kh + stride[0] * (out_sizes[0] - 1) + 1:stride[0],
                         kw:kw + stride[1] * (out_sizes[1] - 1) + 1:stride[1]] += taps[:, :, kh, kw]
    inner = grad[:, padding[0]:padding[0] + x_shape[2], padding[1]:padding[1] + x_shape[3]]
    return inner.transpose(0, 3, 1, 2)


def backward_weight_channels_last(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                                  stride: tuple[int, int], padding: tuple[int, int]
                                  ) -> np.ndarray:
    """slow_conv2d_backward_weight_frame with is_channels_last: image by image, the
    (O, K) weight gradient += grad_out.T @ columns (K in kernel row, column, channel
    order), into zeros; returned as (O, C, KH, KW)."""
    n = x.shape[0]
    o, c, kh_n, kw_n = w_shape
    p = g.shape[2] * g.shape[3]
    k = c * kh_n * kw_n
    grads = np.ascontiguousarray(g.transpose(0, 2, 3, 1)).reshape(n, p, o)
    grad = aligned.zeros((o, k), g.dtype)
    for t in range(n):
        cols = _columns_channels_last(x[t], (kh_n, kw_n), stride, padding)
        _product(False, True, k, o, p, cols, k, grads[t], o, 1, grad, None)
    return grad.reshape(o, kh_n, kw_n, c).transpose(0, 3, 1, 2)
