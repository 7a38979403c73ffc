"""The input gradient of a strided float32 convolution in the order oneDNN's
`brgconv_strided:avx2` (and `:avx512_core`) kernel
(src/cpu/x64/jit_brgemm_conv_bwd_strided.cpp, Apache-2.0) computes it, in vectorised
numpy. torch 2.13 sends the data gradient of every strided 2-D (and 1-D) convolution
through oneDNN to it (ONEDNN_VERBOSE: `brgconv_strided:avx2`, `:avx512_core` on an AVX-512
CPU), and a strided transposed convolution's forward too
(`brg_deconv:avx2+brgconv_strided:avx2`).

Each input element is a sum of brgemm calls' results; each call is one chain of fused
multiply-adds from 0, over its batch of kernel taps (rows, then columns) and, per tap, all
the output channels (K); the calls' results are added in turn. Which taps share a call:

* input width not a multiple of the column stride (exec_trans): one call per element over
  every tap that meets it;
* otherwise (exec_base): per input column phase (columns that meet the same kernel columns),
  the kernel columns valid for every column of the phase are `full` and share one call; the
  others (`partial`, at the row's ends) get a call each, those left of the full ones first,
  those right of them last. When the weights a call reads (K x the diff_src channel block x
  kernel width, float32) reach half the per-core L2 cache (brg_blocking_t's `kw_block`
  test), every tap is its own call instead.

Measured bit for bit against torch 2.13 (1 and 2 threads) on a 512 KiB-L2 CPU; the channel
block that test reads is known for diff_src channel counts of 16 and from 32 on (32), and
for at most 512 output channels: `strided_input_order_known` says when.
"""
from __future__ import annotations

import functools

import numpy as np

from .conv_kernels import image_chunks
from .fp32 import FmaChain, float64_along

_SIMD = 8  # AVX2 float32 lanes (acc_simd_w)
_IC_BLOCK = 32  # the diff_src channel block measured for 16 and for 32 or more channels
_MAX_OC = 512  # past it the channel block varies with the channel counts (768: measured)
_AVX512_MAX_BLOCK = 64  # AVX-512: Conv2d(24..48, 512, 4, stride 2)'s test splits (measured)


@functools.lru_cache(maxsize=1)
def _l2_bytes() -> int:
    """The per-core L2 size oneDNN reads (sysfs; 512 KiB, the measured machine's, if
    unreadable)."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            text = f.read().strip()
        scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:].upper(), 1)
        return int(text.rstrip("KkMm")) * scale
    except (OSError, ValueError):
        return 512 * 1024


def _split_taps(oc: int, ic_block: int, kw: int) -> bool:
    """brg_blocking_t::iterate_ker_block (exec_base): kw_block = kw only while
    K x N-block x float32 x kw stays under its L2 budget (half the per-core L2)."""
    return oc * ic_block * 4 * kw >= _l2_bytes() // 2


def _ic_block(ic: int) -> int | None:
    """The diff_src channel block the kw_block test reads: measured 32 for 16 and for 32 or
    more channels; None where not measured."""
    return _IC_BLOCK if ic == 16 or ic >= _IC_BLOCK else None


def _split(ic: int, oc: int, kw: int) -> bool | None:
    """Whether every tap is its own call; None when the unmeasured channel block decides.
    On AVX-512 (`brgconv_strided:avx512_core`, the same calls and chains, measured) the
    block the test reads is not known: only weights too few to reach the budget with any
    block up to 64 channels are known not to split."""
    from . import onednn

    if onednn.AVX512_CORE:
        return None if _split_taps(oc, _AVX512_MAX_BLOCK, kw) else False
    block = _ic_block(ic)
    if block is not None:
        return _split_taps(oc, block, kw)
    low, high = _split_taps(oc, min(ic, _SIMD), kw), _split_taps(oc, 8 * _SIMD, kw)
    return low if low == high else None


def strided_input_order_known(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                              stride: tuple[int, ...], dilation: tuple[int, ...]) -> bool:
    """Whether `backward_input_strided` knows oneDNN's calls for this 2-D shape: no
    dilation, at most 512 output channels, a known kw_block test, and (input width not
    a multiple of the stride) the one-call-per-row-block form only measured unsplit."""
    oc, ic, _, kw = w_shape
    if any(d != 1 for d in dilation) or oc > _MAX_OC:
        return False
    split = _split(ic, oc, kw)
    return split is not None and not (split and x_shape[3] % stride[1] != 0)


# jit_brgemm_conv_bwd_utils.cpp init_conf's `is_regression_shape` (oneDNN 3.12, torch
# 2.13's): float32 data gradients brgconv_strided skips "due to low performance", as
# (ic, oc, ih, iw, oh, ow, kh, kw, stride) with None where oneDNN does not test it. Among
# them the DCGAN's 64->128 4x4 stride-2 convolution of a 14x14 map (and its transposed
# convolution, 128->64 from 7x7): ONEDNN_VERBOSE shows `jit:avx2` (deconvolution:
# `conv:any+jit:avx2`) there, and `gemm:jit` for the 1-channel 28x28 one.
_DECLINED = (
    (128, 256, 101, 85, 49, 41, None, None, None),
    (3, 128, 207, 175, 101, 85, None, None, None),
    (512, 1024, 8, 8, 4, 4, 4, 4, 2),
    (1024, 2048, 4, 4, 2, 2, 4, 4, 2),
    (64, 128, 513, 513, 256, 256, 3, 3, 2),
    (32, 64, 1025, 1025, 512, 512, 3, 3, 2),
    (128, 256, 257, 257, 128, 128, 3, 3, 2),
    (256, 512, 49, 41, 23, 19, 5, 5, 2),
    (64, 128, 14, 14, 7, 7, 4, 4, 2),
    (1, 64, 28, 28, 14, 14, 4, 4, 2),
)


def declines(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, ...],
             padding: tuple[int, ...], dilation: tuple[int, ...]) -> bool:
    """Whether oneDNN skips brgconv_strided for this float32 2-D data gradient (input
    (N, C, H, W), weight (O, C, KH, KW)): its `is_regression_shape` list."""
    if len(x_shape) != 4:
        return False
    out = tuple((size + 2 * p - (k - 1) * d - 1) // s + 1 for size, p, k, d, s in zip(
        x_shape[2:], padding, w_shape[2:], dilation, stride, strict=True))
    shape = (x_shape[1], w_shape[0], *x_shape[2:], *out, *w_shape[2:])
    for entry in _DECLINED:
        *sizes, step = entry
        if all(want is None or want == got for want, got in zip(sizes, shape, strict=True)) \
                and (step is None or tuple(stride) == (step, step)):
            return True
    return False


def strided_backward_input(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                           stride: tuple[int, int], padding: tuple[int, int],
                           dilation: tuple[int, int]) -> np.ndarray:
    """d(input) of a strided float32 convolution as oneDNN runs it on AVX2: brgconv_strided,
    or jit:avx2's direct kernel where brgconv_strided declines (conv_kernels'
    `onednn_order_known` admits no other)."""
    from . import conv_kernels

    if declines(x_shape, w.shape, stride, padding, dilation):
        return conv_kernels.backward_input(g, w, x_shape, stride, padding, dilation)
    return backward_input_strided(g, w, x_shape, stride, padding)


def _calls(width: int, kh_n: int, kw_n: int, stride: int, pad: int, out_w: int, uneven: bool,
           split: bool) -> list[list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """Per input column, its brgemm calls in order: (kernel rows, kernel columns) each."""
    valid = [tuple(kw for kw in range(kw_n) if (iw + pad - kw) % stride == 0
                   and 0 <= (iw + pad - kw) // stride < out_w) for iw in range(width)]
    rows_all = tuple(range(kh_n))
    result = []
    for iw in range(width):
        if not valid[iw]:
            result.append([])
            continue
        if uneven:
            result.append([(rows_all, tuple(range(kw_n)))])
            continue
        full = set(valid[iw])
        for other in range(iw % stride, width, stride):
            full &= set(valid[other])
        ordered = sorted(full)
        left = [kw for kw in valid[iw] if ordered and kw < ordered[0]]
        right = [kw for kw in valid[iw] if not ordered or kw > ordered[-1]]
        single = (lambda kws: [((kh,), (kw,)) for kh in rows_all for kw in kws]) if split else (
            lambda kws: [(rows_all, (kw,)) for kw in kws])
        middle = single(ordered) if split else ([(rows_all, tuple(ordered))] if ordered else [])
        result.append(single(left) + middle + single(right))
    return result


def backward_input_strided(g: np.ndarray, w: np.ndarray, x_shape: tuple[int, ...],
                           stride: tuple[int, int], padding: tuple[int, int]) -> np.ndarray:
    """d(input) of a strided convolution (N, O, OH, OW) x (O, C, KH, KW) -> (N, C, H, W),
    brgconv_strided's calls and chains (see the module's docstring)."""
    n, c, h, wd = x_shape
    o, _, kh_n, kw_n = w.shape
    oh, ow = g.shape[2:]
    ph, pw = padding
    uneven = wd % stride[1] != 0
    cols = _calls(wd, kh_n, kw_n, stride[1], pw, ow, uneven, bool(_split(c, o, kw_n)))
    chains: dict[tuple, np.ndarray] = {}
    g64, w64 = g.astype(np.float64), float64_along(w, 1)
    chain = FmaChain(g64, w64)
    with np.errstate(all="ignore"):
        for call in {call for col in cols for call in col}:
            acc = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), np.float32)
            for images in image_chunks(n, acc[0].size):
                for kh in call[0]:
                    rows = slice(kh, kh + stride[0] * (oh - 1) + 1, stride[0])
                    for kw in call[1]:
                        span = slice(kw, kw + stride[1] * (ow - 1) + 1, stride[1])
                        with chain.working(acc[images, :, rows, span]) as window:
                            for oc in range(o):
                                chain.step(g64[images, None, oc],
                                           w64[None, oc, :, kh, kw, None, None], window)
            chains[call] = acc[:, :, ph:ph + h, pw:pw + wd]
        total = np.zeros((n, c, h, wd), np.float32)
        for step in range(max((len(col) for col in cols), default=0)):
            for call, chain in chains.items():
                idx = [i for i, col in enumerate(cols) if len(col) > step and col[step] == call]
                if idx:
                    total[..., idx] = (chain[..., idx] if step == 0
                                       else total[..., idx] + chain[..., idx])
    return total
