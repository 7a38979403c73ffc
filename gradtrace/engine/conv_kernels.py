"""float32 convolutions in the order torch's oneDNN kernels (jit:avx2 direct convolution,
`mkldnn_convolution`) compute them, in vectorised numpy.

torch sends a float32 convolution to oneDNN when Convolution.cpp's `use_mkldnn` says so
(a batch of more than one, kernels larger than 3x3, more than 20,480 input elements,
groups, or 1x1 kernels with several threads); the rest runs slow_conv2d (im2col and the
BLAS), whose order is not reproduced here. Measured against torch 2.13 on an AVX2 CPU
(ONEDNN_VERBOSE: `jit:avx2`, alg:convolution_direct):

* forward: each output element is one chain of fused multiply-adds starting from its
  bias (or 0), over input-channel blocks of 8 (all channels when there are fewer than 8),
  then kernel rows, kernel columns, and the channels of the block;
* backward data (stride 1): each input element's chains from 0 over up to
  `oc_blocks_per_call` output-channel blocks of 8 (one kernel call each: 4 blocks when
  the output is narrower than 15 columns, 2 below 40, else 1), kernel rows, kernel
  columns, the block's channels, the calls' results added in turn;
* backward weights: each weight's chain over images, output rows, output columns; bias
  gradients by plain additions in the same order. oneDNN's reduce balancer may split the
  images between threads (each thread one chain from 0, the threads' sums then added),
  which it does when there are fewer weight blocks than threads.

An unpadded 1x1 convolution whose stride reads its input to the end (stride 1, or each
output size times the stride equal to the input size: rtus_prepare's condition) runs the
`jit_1x1` kernels instead (jit_avx2_1x1_convolution.cpp, measured with 1 to 4 threads):

* forward: chains over 128 input channels at a time, the bias first, added in turn;
* backward data (stride 1; strided ones run brgconv_strided): chains over 64 output
  channels at a time from 0, added in turn;
* backward weights: the images' positions (N x OH x OW, row-major) split between the
  threads the reducer gives one weight job (balance211); each thread's range cut at image
  ends and then into calls of 128 positions (the rest in one call when fewer than 192
  remain), each call one chain from 0 added to the thread's sum, the threads' sums added
  in turn. Bias gradients as the direct kernel's.

On a CPU with AVX-512 (unless ONEDNN_MAX_CPU_ISA caps it) oneDNN runs its AVX-512 kernels
instead, whose order engine/conv_avx512.py reproduces; grouped convolutions are not
measured: `onednn_order_known` says when either order applies.
"""
from __future__ import annotations

import numpy as np

from . import capability
from .fp32 import FmaChain, float64_along
from .reduction_order import seq_sum

BLOCK = 8  # oneDNN's channel block (simd width) on AVX2
REDUCE_1X1 = 128  # input channels one jit_1x1 forward call sums (measured)
REDUCE_1X1_DATA = 64  # output channels one jit_1x1 backward-data call sums (measured)
SPATIAL_1X1 = 128  # positions one jit_1x1 backward-weights call sums...
SPATIAL_1X1_MAX = 192  # ...unless fewer than this remain, all of them (measured)
_MAX_BUFFER = 1 << 21  # cpu_reducer's max_buffer_size
MAX_LEFT_PAD = 3  # jit:avx2's forward (its ur_w); wider left padding runs gemm:jit (measured)
DATA_UR_W = 7  # jit:avx2's widest stride-1 backward-data block (15 registers, 2 a column)
CHAIN_ELEMENTS = 1 << 16  # accumulator elements chained at once (cache-sized, measured)
MAX_STEPS = 1 << 30  # chain steps x elements past which the emulation is not attempted


def uses_onednn(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, ...],
                dilation: tuple[int, ...], groups: int) -> bool:
    """Convolution.cpp's use_mkldnn for a float32 CPU tensor, on the 4-D shapes torch uses
    (a 1-D convolution is viewed as a 2-D one of height 1; a 3-D one's size(2) * size(3) is
    its depth times height, as torch's test reads it)."""
    n, c, h, w = x_shape[:4]
    strided = any(s != 1 for s in stride)
    dilated = any(d != 1 for d in dilation)
    kh, kw = w_shape[-2], w_shape[-1]
    return ((strided or dilated or n >= 16 or kw != 1 or kh != 1
             or capability.num_threads() > 1)
            and (groups > 1 or (kw > 3 and kh > 3) or n > 1 or n * c * h * w > 20480))


def onednn_order_known(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                       stride: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                       direction: str, padding: tuple[int, ...] = (0, 0)) -> bool:
    """Whether the order of this module (AVX2) or of conv_avx512 (AVX-512, by
    `onednn.AVX512_CORE`) is what oneDNN runs here for `direction` ('forward', 'input',
    'weight'): its direct kernels, (AVX2) the `brgconv_strided` kernel of a strided input
    gradient, 1x1 too (engine/conv_brgemm.py, where its grouping is known), and (AVX2)
    `jit_1x1`'s kernels (`runs_1x1`; its forward where measured, `forward_1x1_known`) --
    not the im2col `gemm:jit` that padding as wide as the kernel, a forward's left padding
    past 3, an input gradient's kernel reaching too far left of its padding
    (`input_overflows`), kernels 14 wide (strided input and AVX2 weight gradients), a
    dilated AVX2 weight gradient or an AVX2 weight gradient of an input lower than the
    kernel get, not
    AVX-512's 1x1 kernels or its inner-product kernels for a kernel as large as the
    unpadded input (all measured with ONEDNN_VERBOSE) --, groups only of whole channel
    blocks, and a chain short enough to emulate."""
    from . import onednn

    strided = any(st != 1 for st in stride)
    if groups != 1 and (not whole_block_groups(x_shape, w_shape, groups)
                        or onednn.AVX512_CORE):
        # jit:avx2 runs groups of whole channel blocks each as its own convolution, their
        # weight blocks sharing the reducer's threads (measured), 1x1 ones too (not
        # jit_1x1's kernels: ONEDNN_VERBOSE says jit:avx2)
        return False
    if tuple(w_shape[2:]) == (1, 1) and (onednn.AVX512_CORE or (
            direction == "forward"
            and not forward_1x1_known(x_shape, w_shape, stride, padding, dilation))):
        return False
    if padded_past_kernel(x_shape, w_shape, stride, padding, dilation):
        return False
    if onednn.AVX512_CORE and not any(padding) and tuple(w_shape[2:]) == tuple(x_shape[2:]):
        return False
    if direction == "forward" and not onednn.AVX512_CORE and padding[-1] > MAX_LEFT_PAD:
        return False
    if direction == "input" and strided:
        from .conv_brgemm import declines, strided_input_order_known

        if declines(x_shape, w_shape, stride, padding, dilation):
            # brgconv_strided skips it: jit:avx2's direct kernel takes channels blocked by
            # 8 (measured), gemm:jit the rest; AVX-512's direct kernel is not measured
            if onednn.AVX512_CORE or x_shape[1] % BLOCK or w_shape[0] % BLOCK \
                    or w_shape[3] >= 14:
                return False
        elif w_shape[3] >= 14 or not strided_input_order_known(x_shape, w_shape, stride,
                                                                dilation):
            return False
    elif direction == "input" and input_overflows(x_shape, w_shape, padding, dilation):
        return False
    if direction == "weight" and not avx512_weight_kernel(x_shape, w_shape, stride, padding,
                                                          dilation):
        if any(d != 1 for d in dilation) or w_shape[3] >= 14 or x_shape[2] < w_shape[2]:
            return False
    return chain_steps(x_shape, w_shape) < MAX_STEPS


def whole_block_groups(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                       groups: int) -> bool:
    """Whether every group's input and output channels are whole blocks of 8 (jit:avx2's
    direct kernels take such groups; other grouped convolutions run gemm:jit)."""
    return x_shape[1] // groups % BLOCK == 0 and w_shape[0] // groups % BLOCK == 0


def end_padding(size: int, kernel: int, stride: int, padding: int) -> int:
    """oneDNN's calculate_end_padding, clipped at 0: the padding the last output position
    reads past the end of a dim of `size` (kernel already dilated)."""
    return max(0, ((size + 2 * padding - kernel) // stride) * stride + kernel - size - padding)


def padded_past_kernel(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                       stride: tuple[int, ...], padding: tuple[int, ...],
                       dilation: tuple[int, ...]) -> bool:
    """Whether a padding, at the start or the end of a spatial dim, is as wide as the
    dilated kernel (oneDNN's direct kernels then decline)."""
    ext = [(k - 1) * d + 1 for k, d in zip(w_shape[2:], dilation, strict=True)]
    for size, k, p, s in zip(x_shape[2:], ext, padding, stride, strict=True):
        if p >= k or end_padding(size, k, s, p) >= k:
            return True
    return False


def forward_runs_gemm(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                      stride: tuple[int, ...], padding: tuple[int, ...],
                      dilation: tuple[int, ...]) -> bool:
    """Whether oneDNN (AVX2) runs a plain 2-D forward as `gemm:jit` (engine/conv_gemm.py):
    a padding, at either end, as wide as the dilated kernel, or a left padding past
    MAX_LEFT_PAD (measured with ONEDNN_VERBOSE)."""
    return (padded_past_kernel(x_shape, w_shape, stride, padding, dilation)
            or padding[-1] > MAX_LEFT_PAD)


def input_overflows(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                    padding: tuple[int, ...], dilation: tuple[int, ...]) -> bool:
    """Whether jit:avx2's stride-1 backward-data kernel declines a 2-D input gradient (then
    gemm:jit runs it, and a stride-1 deconvolution's forward with it): the columns its
    dilated kernel reaches left of the padding, `(KW - 1) * DW - PW`, more than a block of
    its width can hold, DATA_UR_W or the input's width if narrower -- as the 9-wide
    dilated and causal 1-D convolutions of Jasper and WaveNets with little padding
    (measured with ONEDNN_VERBOSE on kernels 3 to 17 wide dilated 1 to 5, paddings 0 to 9,
    widths 6 to 60, 8 to 32 channels, 1-D and 2-D: only the width's overflow counts)."""
    overflow = (w_shape[3] - 1) * dilation[-1] - padding[-1]
    return overflow > min(DATA_UR_W, x_shape[3])


def input_runs_gemm(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                    stride: tuple[int, ...], padding: tuple[int, ...],
                    dilation: tuple[int, ...]) -> bool:
    """Whether oneDNN (AVX2) runs a plain 2-D input gradient as `gemm:jit`: of stride 1, a
    padding as wide as the dilated kernel or one reaching too far left of the padding
    (`input_overflows`: kernels 14 to 21 wide whose padding leaves 7 columns or fewer run
    jit:avx2, measured); strided, one brgconv_strided declines whose
    channels are not blocks of 8 or whose kernel is 14 wide (measured with
    ONEDNN_VERBOSE)."""
    from .conv_brgemm import declines

    if any(s != 1 for s in stride):  # (padded past the kernel: brgconv_strided, measured)
        return declines(x_shape, w_shape, stride, padding, dilation) and bool(
            x_shape[1] % BLOCK or w_shape[0] % BLOCK or w_shape[3] >= 14)
    ext = [(k - 1) * d + 1 for k, d in zip(w_shape[2:], dilation, strict=True)]
    return (any(p >= k for k, p in zip(ext, padding, strict=True))
            or input_overflows(x_shape, w_shape, padding, dilation))


def weight_runs_gemm(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                     stride: tuple[int, ...], padding: tuple[int, ...],
                     dilation: tuple[int, ...]) -> bool:
    """Whether oneDNN (AVX2) runs a plain 2-D weight gradient as `gemm:jit`: a padding as
    wide as the dilated kernel, a dilation, an input lower than the kernel or a kernel 14
    wide (measured with ONEDNN_VERBOSE)."""
    return (padded_past_kernel(x_shape, w_shape, stride, padding, dilation)
            or any(d != 1 for d in dilation) or w_shape[3] >= 14 or x_shape[2] < w_shape[2])


def chain_steps(x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> int:
    """The emulation's work for one direction of a 2-D convolution: accumulator elements
    times chained multiply-adds (about the same for the forward and both gradients)."""
    n, c = x_shape[:2]
    return c * w_shape[2] * w_shape[3] * n * w_shape[0] * x_shape[2] * x_shape[3]


def avx512_weight_kernel(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                         stride: tuple[int, ...], padding: tuple[int, ...],
                         dilation: tuple[int, ...]) -> bool:
    """Whether oneDNN's AVX-512 weight-gradient kernel runs (else its AVX2 one)."""
    from . import conv_avx512, onednn

    return (onednn.AVX512_CORE and conv_avx512.weight_kernel_is_avx512(x_shape[1])
            and conv_avx512.weight_boundaries_ok(x_shape, w_shape, stride, padding, dilation))


def _padded(x: np.ndarray, padding: tuple[int, int]) -> np.ndarray:
    ph, pw = padding
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x


def _blocks(channels: int) -> list[range]:
    """Channel blocks of 8 (one block of all channels below 8, as the `flat` layout)."""
    if channels < BLOCK:
        return [range(channels)]
    return [range(b, min(channels, b + BLOCK)) for b in range(0, channels, BLOCK)]


def _tap(a: np.ndarray, kh: int, kw: int, out: tuple[int, int], stride: tuple[int, int],
         dilation: tuple[int, int]) -> tuple[slice, slice]:
    """The rows and columns of a padded input that kernel tap (kh, kw) meets."""
    return (slice(kh * dilation[0], kh * dilation[0] + stride[0] * (out[0] - 1) + 1, stride[0]),
            slice(kw * dilation[1], kw * dilation[1] + stride[1] * (out[1] - 1) + 1, stride[1]))


def forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: tuple[int, int],
            padding: tuple[int, int], dilation: tuple[int, int], groups: int = 1) -> np.ndarray:
    """(N, C, H, W) x (O, C, KH, KW) -> (N, O, OH, OW), oneDNN's forward chain (jit_1x1's
    where it runs: not for one group of `groups` > 1, which jit:avx2 runs)."""
    if groups == 1 and runs_1x1(x.shape, w.shape, stride, padding, dilation):
        return _forward_1x1(x, w, b, stride)
    n, c = x.shape[:2]
    o, _, kh_n, kw_n = w.shape
    xp = _padded(x, padding)
    out = ((xp.shape[2] - dilation[0] * (kh_n - 1) - 1) // stride[0] + 1,
           (xp.shape[3] - dilation[1] * (kw_n - 1) - 1) // stride[1] + 1)
    acc = np.zeros((n, o) + out, np.float32)
    if b is not None:
        acc += b.reshape(1, o, 1, 1)
    x64, w64 = xp.astype(np.float64), float64_along(w, 0)
    chain = FmaChain(x64, w64)
    with np.errstate(all="ignore"):
        for images in image_chunks(n, o * out[0] * out[1]):
            with chain.working(acc[images]) as part:
                for block in _blocks(c):
                    for kh in range(kh_n):
                        for kw in range(kw_n):
                            rows, cols = _tap(xp, kh, kw, out, stride, dilation)
                            for ic in block:
                                chain.step(x64[images, None, ic, rows, cols],
                                           w64[None, :, ic, kh, kw, None, None], part)
    return acc


def image_chunks(n: int, per_image: int) -> list[slice]:
    """Slices of the n images whose chains run together: a chunk's accumulator and
    FmaChain's buffers stay in the cache (a convolution's chains are per image)."""
    step = max(1, CHAIN_ELEMENTS // max(per_image, 1))
    return [slice(i, min(n, i + step)) for i in range(0, n, step)]


def runs_1x1(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, ...],
             padding: tuple[int, ...], dilation: tuple[int, ...]) -> bool:
    """Whether oneDNN (AVX2) runs its jit_1x1 kernels: a 1x1 kernel without padding or
    dilation whose stride reads the input to its end (stride 1, or output size x stride ==
    input size in each dimension, rtus_prepare's condition; measured: 8x8 and 9x9 inputs at
    strides 2 and 3 run jit_1x1, 7x7 and 7x8 at stride 2 the direct kernel)."""
    if tuple(w_shape[2:]) != (1, 1) or any(padding) or any(d != 1 for d in dilation):
        return False
    return all(((size - 1) // s + 1) * s == size for size, s in
               zip(x_shape[2:], stride, strict=True))


def forward_1x1_known(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                      stride: tuple[int, ...], padding: tuple[int, ...],
                      dilation: tuple[int, ...]) -> bool:
    """Whether `forward` is oneDNN's order for a 1x1 convolution's forward: jit_1x1:avx2
    was measured with 1 and 2 threads (its reduction blocking may follow the thread count);
    where jit_1x1 does not run, the direct kernel does."""
    return (not runs_1x1(x_shape, w_shape, stride, padding, dilation)
            or capability.num_threads() in (1, 2))


def _forward_1x1(x: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                 stride: tuple[int, int]) -> np.ndarray:
    """oneDNN's jit_1x1:avx2 forward: per output element chains over 128 input channels
    at a time, the bias first, the chains added in turn (measured)."""
    xs = x[:, :, ::stride[0], ::stride[1]]
    return _chained_1x1(xs, w.reshape(w.shape[0], xs.shape[1]), b, REDUCE_1X1)


def _chained_1x1(a: np.ndarray, w2: np.ndarray, b: np.ndarray | None,
                 chunk: int) -> np.ndarray:
    """(N, I, H, W) x (O, I) -> (N, O, H, W) as jit_1x1's forward and data-gradient calls
    sum: chains over `chunk` of the I channels at a time (the first from the bias, if any),
    the chains added in turn."""
    n, inputs = a.shape[:2]
    outputs = w2.shape[0]
    total = None
    a64, w64 = a.astype(np.float64), float64_along(w2, 0)
    chain = FmaChain(a64, w64)
    with np.errstate(all="ignore"):
        for start in range(0, inputs, chunk):
            acc = np.zeros((n, outputs) + a.shape[2:], np.float32)
            if b is not None and total is None:
                acc += b.reshape(1, outputs, 1, 1)
            for images in image_chunks(n, acc[0].size):
                with chain.working(acc[images]) as part:
                    for i in range(start, min(inputs, start + chunk)):
                        chain.step(a64[images, None, i], w64[None, :, i, None, None], part)
            total = acc if total is None else total + acc
    return total


def oc_blocks_per_call(ow: int) -> int:
    """jit_avx2_conv_bwd_data_kernel_f32::init_conf's nb_oc_blocking for a 1-D or 2-D
    convolution: the output-channel blocks one kernel call chains, by the output's width
    (measured: 4 at width 8, 2 at width 24, 1 at width 42)."""
    return 4 if ow < 15 else 2 if ow < 40 else 1


def backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                   stride: tuple[int, int], padding: tuple[int, int],
                   dilation: tuple[int, int], groups: int = 1) -> np.ndarray:
    """d(input): each input element's chains over `oc_blocks_per_call` output-channel
    blocks at a time (kernel rows, kernel columns, the block's channels), the chains added
    in turn (jit_1x1's chains where it runs: not for one group of `groups` > 1)."""
    if groups == 1 and all(s == 1 for s in stride) and runs_1x1(x_shape, w.shape, stride,
                                                                 padding, dilation):
        return _backward_input_1x1(g, w)
    n, c, h, wd = x_shape
    o, _, kh_n, kw_n = w.shape
    out = g.shape[2:]
    ph, pw = padding
    total = None
    blocks = _blocks(o)
    chunk = oc_blocks_per_call(out[1])
    g64, w64 = g.astype(np.float64), float64_along(w, 1)
    chain = FmaChain(g64, w64)
    with np.errstate(all="ignore"):
        for first in range(0, len(blocks), chunk):
            acc = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), np.float32)
            for images in image_chunks(n, acc[0].size):
                for block in blocks[first:first + chunk]:
                    for kh in range(kh_n):
                        for kw in range(kw_n):
                            rows, cols = _tap(acc, kh, kw, out, stride, dilation)
                            with chain.working(acc[images, :, rows, cols]) as window:
                                for oc in block:
                                    chain.step(g64[images, None, oc],
                                               w64[None, oc, :, kh, kw, None, None], window)
            total = acc if total is None else total + acc
    return total[:, :, ph:ph + h, pw:pw + wd]


def _backward_input_1x1(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    """jit_1x1's d(input) at stride 1: chains over 64 output channels at a time from 0,
    added in turn."""
    return _chained_1x1(g, w.reshape(w.shape[0], -1).T, None, REDUCE_1X1_DATA)


def _reduction_split(job_size: int, njobs: int, reduction: int,
                     max_buffer: int = _MAX_BUFFER) -> int:
    """cpu_reducer's reduce_balancer_t: how many threads share one job's reduction (the
    images, or jit_1x1's positions, then split between them by balance211)."""
    nthr = capability.num_threads()
    min_per_group = max(1, njobs // nthr)
    max_per_group = max(1, max_buffer // (nthr * job_size))
    groups = min(njobs // min_per_group, nthr)
    per_group = min(nthr // groups, reduction)
    best = njobs * job_size * reduction
    for c_jobs in range(min_per_group, njobs):
        c_groups = min(njobs // c_jobs, nthr)
        c_per_group = min(nthr // c_groups, reduction)
        c_ub = -(-njobs // c_groups)
        if c_per_group > 1 and c_ub > max_per_group:
            continue
        cost = job_size * c_ub * (-(-reduction // c_per_group) + (c_per_group != 1))
        if cost < best:
            per_group, best = c_per_group, cost
    return max(per_group, 1)


def balance211(n: int, team: int) -> list[range]:
    """oneDNN's balance211: n items over `team` threads, the first ones one item more."""
    if team <= 1 or n == 0:
        return [range(n)]
    n1 = -(-n // team)
    n2 = n1 - 1
    t1 = n - n2 * team
    parts, start = [], 0
    for tid in range(team):
        size = n1 if tid < t1 else n2
        parts.append(range(start, start + size))
        start += size
    return parts


def backward_weight(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...],
                    stride: tuple[int, int], padding: tuple[int, int],
                    dilation: tuple[int, int], groups: int = 1) -> np.ndarray:
    """d(weight) of one group (of `groups`): chains over images, output rows and columns,
    the images split between threads as oneDNN's reducer balances the weight blocks of
    every group (jit_1x1's calls where it runs: ungrouped; a grouped 1x1 convolution runs
    jit:avx2's direct kernels, measured)."""
    if groups == 1 and runs_1x1(x.shape, w_shape, stride, padding, dilation):
        return _backward_weight_1x1(g, x[:, :, ::stride[0], ::stride[1]], w_shape)
    o, c, kh_n, kw_n = w_shape
    n = x.shape[0]
    out = g.shape[2:]
    xp = _padded(x, padding)
    ic_block = c if c < BLOCK else BLOCK
    jobs = groups * -(-o // BLOCK) * -(-c // ic_block)
    parts = balance211(n, _reduction_split(BLOCK * ic_block * kh_n * kw_n, jobs, n))
    # every weight's input values at output position (oh, ow): (N, OH, OW, C, KH, KW),
    # each position's weights dense (a step's product is then one inner loop)
    taps = np.empty((n,) + out + (c, kh_n, kw_n), np.float32)
    for kh in range(kh_n):
        for kw in range(kw_n):
            rows, cols = _tap(xp, kh, kw, out, stride, dilation)
            taps[..., kh, kw] = xp[:, :, rows, cols].transpose(0, 2, 3, 1)
    total = np.zeros(w_shape, np.float32)
    g64, taps64 = g.astype(np.float64), taps.astype(np.float64)
    chain = FmaChain(g64, taps64)
    with np.errstate(all="ignore"):
        for images in parts:
            acc = np.zeros(w_shape, np.float32)
            for i in images:
                for oh in range(out[0]):
                    for ow in range(out[1]):
                        chain.step(g64[i, :, oh, ow, None, None, None],
                                   taps64[None, i, oh, ow], acc)
            total = total + acc
    return total


def _blocking(blocks: int, limit: int) -> int:
    """jit_avx2_1x1_conv_kernel_f32::init_conf's weight-job blocking: the blocks halved or
    thirded while above `limit`."""
    while blocks > limit and (blocks % 2 == 0 or blocks % 3 == 0):
        blocks //= 2 if blocks % 2 == 0 else 3
    return blocks


def _calls_1x1(positions: range, per_image: int) -> list[tuple[int, int, int]]:
    """One thread's jit_1x1 weight-gradient calls over its range of (image, position):
    (image, first position, count), cut at image ends and into SPATIAL_1X1 positions."""
    calls = []
    pos = positions.start
    while pos < positions.stop:
        image, start = divmod(pos, per_image)
        end = min(positions.stop - image * per_image, per_image)
        while start < end:
            step = end - start if end - start < SPATIAL_1X1_MAX else SPATIAL_1X1
            calls.append((image, start, step))
            start += step
        pos = image * per_image + end
    return calls


def _backward_weight_1x1(g: np.ndarray, x: np.ndarray, w_shape: tuple[int, ...]) -> np.ndarray:
    """jit_1x1's d(weight) (module docstring): every call's chain is computed at once, the
    calls side by side (a shorter call padded with zeros, which leave a chain unchanged),
    then added as the threads do."""
    n, o = g.shape[:2]
    c = x.shape[1]
    per_image = int(np.prod(g.shape[2:]))
    gf, xf = g.reshape(n, o, per_image), x.reshape(n, c, per_image)
    nb_oc, nb_ic = -(-o // BLOCK), -(-c // BLOCK)
    oc_blocking, ic_blocking = _blocking(nb_oc, 32), _blocking(nb_ic, 9)
    job = oc_blocking * ic_blocking * BLOCK * BLOCK
    jobs = -(-nb_oc // oc_blocking) * -(-nb_ic // ic_blocking)
    team = _reduction_split(job, jobs, n * per_image, capability.num_threads() * job * 8)
    threads = [_calls_1x1(part, per_image) for part in balance211(n * per_image, team)]
    calls = [call for thread in threads for call in thread]
    longest = max(step for _, _, step in calls)
    gs = np.zeros((len(calls), o, longest), np.float32)
    xs = np.zeros((len(calls), c, longest), np.float32)
    for k, (image, start, step) in enumerate(calls):
        gs[k, :, :step] = gf[image, :, start:start + step]
        xs[k, :, :step] = xf[image, :, start:start + step]
    chains = np.zeros((len(calls), o, c), np.float32)
    gs64, xs64 = gs.astype(np.float64), xs.astype(np.float64)
    chain = FmaChain(gs64, xs64)
    with np.errstate(all="ignore"):
        for t in range(longest):
            chain.step(gs64[:, :, t, None], xs64[:, None, :, t], chains)
    total, k = None, 0
    for thread in threads:
        if not thread:
            continue
        acc = chains[k]
        for j in range(k + 1, k + len(thread)):
            acc = acc + chains[j]
        k += len(thread)
        total = acc if total is None else total + acc
    return total.reshape(w_shape)


def backward_bias(g: np.ndarray, block: int = BLOCK) -> np.ndarray:
    """d(bias): each channel's plain sum over images, rows and columns, the images split
    between threads by the reducer (jobs: the output-channel blocks of `block`)."""
    n, o = g.shape[:2]
    parts = balance211(n, _reduction_split(block, -(-o // block), n))
    flat = g.reshape(n, o, -1)
    total = np.zeros(o, np.float32)
    for images in parts:
        if len(images):
            total = total + seq_sum(np.moveaxis(flat[images.start:images.stop], 1, 0)
                                    .reshape(o, -1))
    return total
