"""float32 convolutions in the order oneDNN's AVX-512 direct kernels (`jit:avx512_core`,
src/cpu/x64/jit_avx512_common_conv_kernel.cpp and jit_avx512_common_convolution.cpp,
Apache-2.0) compute them, in vectorised numpy.

oneDNN runs these whenever the CPU has AVX-512 and ONEDNN_MAX_CPU_ISA does not cap it,
whatever ATEN_CPU_CAPABILITY says. Measured against torch 2.13 (ONEDNN_VERBOSE:
`jit:avx512_core`, alg:convolution_direct) with 1 and 2 threads:

* forward: channel blocks of 16 (all channels when there are fewer than 16, the "first
  convolution" layout). The driver calls the kernel once per input-channel block; each
  call's chain of fused multiply-adds starts from 0 over kernel rows, kernel columns and
  the block's channels; the first block's result then gets the bias, each later one is
  added to what the earlier blocks stored;
* backward data (stride 1): the same per output-channel block, without a bias;
* backward weights: each weight's chain over its thread's images (and, with more than 9
  output rows, the "2-D reduction" harness: (image, output row) pairs), output rows and
  columns; the threads' partial sums are added in thread order. How many threads share
  the reduction is the kernel's `balance` (a memory-cost search over the minibatch,
  output-channel and input-channel splits). Bias gradients by plain additions in the
  same order (with the 2-D harness; else the driver's cpu_reducer, as the AVX2 bias
  gradient, over jobs of 16 channels). With 4 to 15 input channels the AVX-512 weight
  kernel declines and oneDNN runs its AVX2 one (conv_kernels' order).

`applies` says which of these a shape gets; the strided input gradient
(`brgconv_strided`), 1x1 kernels and the cases the kernels' init_conf refuse are left
to the float64 fallback.
"""
from __future__ import annotations

import numpy as np

from . import capability
from .conv_kernels import backward_bias as _reducer_bias
from .conv_kernels import balance211, image_chunks
from .fp32 import FmaChain, float64_along
from .reduction_order import seq_sum

BLOCK = 16  # zmm lanes of float32
_MIN_OH_REDUCE = 9  # jit_avx512_common_conv_bwd_weights_kernel_f32::min_oh_reduce
_MAX_UR_W = 28


def _blocks(channels: int) -> list[range]:
    if channels < BLOCK:
        return [range(channels)]
    return [range(b, min(channels, b + BLOCK)) for b in range(0, channels, BLOCK)]


def _padded(x: np.ndarray, padding: tuple[int, int]) -> np.ndarray:
    ph, pw = padding
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x


def _tap(kh: int, kw: int, out: tuple[int, ...], stride: tuple[int, int],
         dilation: tuple[int, int]) -> tuple[slice, slice]:
    return (slice(kh * dilation[0], kh * dilation[0] + stride[0] * (out[0] - 1) + 1, stride[0]),
            slice(kw * dilation[1], kw * dilation[1] + stride[1] * (out[1] - 1) + 1, stride[1]))


def weight_kernel_is_avx512(channels: int) -> bool:
    """The AVX-512 weight-gradient kernel takes 1 to 3 input channels (plain layout) or
    16 and more (blocked); 4 to 15 go to the AVX2 kernel."""
    return channels <= 3 or channels >= BLOCK


def weight_boundaries_ok(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                         stride: tuple[int, ...], padding: tuple[int, ...],
                         dilation: tuple[int, ...]) -> bool:
    """init_conf's checks of the weight-gradient kernel (padding within half the kernel
    height, narrower than the kernel, kernel width at most 14, dilated rows unstrided)."""
    ih, iw = x_shape[2:]
    kh, kw = w_shape[2:]
    ext_kh = (kh - 1) * dilation[0] + 1
    ext_kw = (kw - 1) * dilation[1] + 1
    oh = (ih + 2 * padding[0] - ext_kh) // stride[0] + 1
    ow = (iw + 2 * padding[1] - ext_kw) // stride[1] + 1
    b_pad = max(0, (oh - 1) * stride[0] + ext_kh - ih - padding[0])
    r_pad = max(0, (ow - 1) * stride[1] + ext_kw - iw - padding[1])
    if dilation[0] != 1 and (stride[0] != 1 or ext_kh > ih):
        return False
    if dilation[1] != 1 and stride[1] != 1:
        return False
    return (kw <= 14 and padding[1] < ext_kw and r_pad < ext_kw
            and padding[0] <= ext_kh // 2 and b_pad <= ext_kh // 2
            and padding[1] <= _MAX_UR_W and r_pad <= _MAX_UR_W)


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
            padding: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """(N, C, H, W) x (O, C, KH, KW) -> (N, O, OH, OW): one chain per input-channel block,
    the bias added to the first, the later ones added on."""
    n, c = x.shape[:2]
    o, _, kh_n, kw_n = w.shape
    xp = _padded(x, padding)
    out = ((xp.shape[2] - dilation[0] * (kh_n - 1) - 1) // stride[0] + 1,
           (xp.shape[3] - dilation[1] * (kw_n - 1) - 1) // stride[1] + 1)
    total = None
    x64, w64 = xp.astype(np.float64), float64_along(w, 0)
    chain = FmaChain(x64, w64)
    with np.errstate(all="ignore"):
        for block in _blocks(c):
            acc = np.zeros((n, o) + out, np.float32)
            for images in image_chunks(n, acc[0].size):
                with chain.working(acc[images]) as part:
                    for kh in range(kh_n):
                        for kw in range(kw_n):
                            rows, cols = _tap(kh, kw, out, stride, dilation)
                            for ic in block:
                                chain.step(x64[images, None, ic, rows, cols],
                                           w64[None, :, ic, kh, kw, None, None], part)
            if total is None:
                total = acc + b.reshape(1, o, 1, 1) if b is not None else acc
            else:
                total = acc + total
    return total if total is not None else np.zeros((n, o) + out, np.float32)


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   stride: tuple[int, int], padding: tuple[int, int],
                   dilation: tuple[int, int]) -> np.ndarray:
    """d(input): one chain per output-channel block (kernel rows, columns, the block's
    channels), the blocks' results added in turn."""
    n, c, h, wd = x_shape
    o, _, kh_n, kw_n = w.shape
    out = g.shape[2:]
    ph, pw = padding
    total = None
    g64, w64 = g.astype(np.float64), float64_along(w, 1)
    chain = FmaChain(g64, w64)
    with np.errstate(all="ignore"):
        for block in _blocks(o):
            acc = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), np.float32)
            for images in image_chunks(n, acc[0].size):
                for kh in range(kh_n):
                    for kw in range(kw_n):
                        rows, cols = _tap(kh, kw, out, stride, dilation)
                        with chain.working(acc[images, :, rows, cols]) as window:
                            for oc in block:
                                chain.step(g64[images, None, oc],
                                           w64[None, oc, :, kh, kw, None, None], window)
            total = acc if total is None else acc + total
    if total is None:
        total = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), np.float32)
    return total[:, :, ph:ph + h, pw:pw + wd]


def _div_up(a: int, b: int) -> int:
    return -(-a // b)


def reduction_threads(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                      out: tuple[int, ...], stride: tuple[int, ...],
                      dilation: tuple[int, ...]) -> tuple[int, bool]:
    """The weight-gradient kernel's `balance`: how many threads split the reduction
    (nthr_mb), and whether it runs the 2-D harness (the split over (image, row) pairs)."""
    nthr = capability.num_threads()
    mb, ic, ih, iw = x_shape
    oc = w_shape[0]
    kh, kw = w_shape[2:]
    oh, ow = out
    ic_block = ic if ic < BLOCK else BLOCK
    nb_ic = _div_up(ic, ic_block)
    nb_oc = _div_up(oc, BLOCK)
    two_d = dilation[0] == 1 and oh > _MIN_OH_REDUCE
    ih_r, oh_r = (ih, oh) if two_d else (1, 1)
    ih_n, oh_n = (1, 1) if two_d else (ih, oh)
    nthr_oh_reduce = max(1, oh_r // _MIN_OH_REDUCE)

    def mem(nthr_mb: int, nthr_oc: int, nthr_ic: int) -> int:
        src = (_div_up(mb * ih_r, nthr_mb) * _div_up(nb_ic, nthr_ic) * ic_block * ih_n * iw
               // stride[1] // stride[0])
        dst = _div_up(mb * oh_r, nthr_mb) * _div_up(nb_oc, nthr_oc) * BLOCK * oh_n * ow
        wei = 8 * _div_up(nb_oc, nthr_oc) * _div_up(nb_ic, nthr_ic) * kh * kw * ic_block * BLOCK
        return src + dst + wei

    def comp(nthr_mb: int, nthr_oc: int, nthr_ic: int) -> int:
        return _div_up(mb * oh_r, nthr_mb) * _div_up(nb_oc, nthr_oc) * _div_up(nb_ic, nthr_ic)

    best = (1, 1, 1)
    best_mem = mem(*best)
    mb_max = min(nthr, mb * nthr_oh_reduce)
    candidates = []
    for nthr_mb in range(1, mb_max + 1):
        par = nthr // nthr_mb
        for nthr_oc in range(1, min(par, nb_oc) + 1):
            candidates.append((nthr_mb, nthr_oc, min(par // nthr_oc, nb_ic)))
    for cand in candidates:
        cost = mem(*cand)
        if cost <= best_mem:
            best, best_mem = cand, cost
    best_comp = comp(*best)
    for cand in candidates:
        cost, work = mem(*cand), comp(*cand)
        if (work <= best_comp and cost < 1.1 * best_mem) or 4 * work <= 3 * best_comp:
            best, best_comp = cand, work
    nthr_mb = best[0]
    if nthr // 2 < nthr_mb < nthr:
        nthr_mb = min(mb * nthr_oh_reduce, nthr)
    return nthr_mb, two_d


def _work_items(x_shape: tuple[int, ...], w_shape: tuple[int, ...], out: tuple[int, ...],
                stride: tuple[int, ...], dilation: tuple[int, ...]) -> list[list[tuple]]:
    """Each reducing thread's (image, first row, end row) pieces, in its order."""
    nthr_mb, two_d = reduction_threads(x_shape, w_shape, out, stride, dilation)
    n, oh = x_shape[0], out[0]
    if not two_d:
        return [[(i, 0, oh) for i in part] for part in balance211(n, nthr_mb)]
    threads = []
    for part in balance211(n * oh, nthr_mb):
        pieces: list[tuple] = []
        for item in part:
            i, r = divmod(item, oh)
            if pieces and pieces[-1][0] == i and pieces[-1][2] == r:
                pieces[-1] = (i, pieces[-1][1], r + 1)
            else:
                pieces.append((i, r, r + 1))
        threads.append(pieces)
    return threads


def _sum_threads(parts: list[np.ndarray]) -> np.ndarray:
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def backward_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                    stride: tuple[int, int], padding: tuple[int, int],
                    dilation: tuple[int, int]) -> np.ndarray:
    """d(weight): each thread's chain over its (image, row) pieces and the rows'
    columns; the threads' sums added in order."""
    o, c, kh_n, kw_n = w_shape
    out = g.shape[2:]
    xp = _padded(x, padding)
    # (N, OH, OW, C, KH, KW): each position's weights dense, a step's product one loop
    taps = np.empty((x.shape[0],) + out + (c, kh_n, kw_n), np.float32)
    for kh in range(kh_n):
        for kw in range(kw_n):
            rows, cols = _tap(kh, kw, out, stride, dilation)
            taps[..., kh, kw] = xp[:, :, rows, cols].transpose(0, 2, 3, 1)
    parts = []
    g64, taps64 = g.astype(np.float64), taps.astype(np.float64)
    chain = FmaChain(g64, taps64)
    with np.errstate(all="ignore"):
        for pieces in _work_items(x.shape, w_shape, out, stride, dilation):
            acc = np.zeros(w_shape, np.float32)
            for i, r0, r1 in pieces:
                for oh in range(r0, r1):
                    for ow in range(out[1]):
                        chain.step(g64[i, :, oh, ow, None, None, None],
                                   taps64[None, i, oh, ow], acc)
            parts.append(acc)
        return _sum_threads(parts)


def backward_bias(g: np.ndarray, x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                  stride: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """d(bias): with the 2-D harness the kernel's, each thread's plain sum over its
    pieces' rows and columns, the threads' sums added in order; else the driver's bias
    reducer (cpu_reducer over the images, jobs of 16 channels)."""
    o = g.shape[1]
    out = g.shape[2:]
    if not reduction_threads(x_shape, w_shape, out, stride, dilation)[1]:
        return _reducer_bias(g, BLOCK)
    parts = []
    with np.errstate(all="ignore"):
        for pieces in _work_items(x_shape, w_shape, out, stride, dilation):
            if not pieces:
                parts.append(np.zeros(o, np.float32))
                continue
            rows = np.concatenate([np.moveaxis(g[i, :, r0:r1], 0, -1).reshape(-1, o)
                                   for i, r0, r1 in pieces])
            parts.append(seq_sum(np.ascontiguousarray(rows.T)))
        return _sum_threads(parts)
