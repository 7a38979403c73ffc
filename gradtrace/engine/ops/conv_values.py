"""Which of torch's kernels computes a convolution's values and its gradients, and in what
order (ops/conv.py's nodes call these): slow_conv2d's frames, oneDNN's direct, 1x1, brgemm,
gemm:jit, depthwise and AVX-512 kernels (engine/conv_*.py, engine/slow_conv.py), and a
float64 accumulation, noted, where the order is not reproduced."""
from __future__ import annotations

import math

import numpy as np

from .. import (
    conv_avx512,
    conv_brgemm,
    conv_depthwise,
    conv_gemm,
    conv_kernels,
    conv_nhwc,
    exactness,
    onednn,
    slow_conv,
)
from ..layouts import channels_last_strides, dense_in_format, suggests_channels_last
from ..reduction_order import cascade_sum, seq_sum


def _windows(xp: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...], out: tuple[int, ...]) -> np.ndarray:
    """A strided view (N, C, *out, *kernel) of the padded input's receptive fields."""
    nd = len(kernel)
    sizes = xp.shape[:2] + tuple(out) + tuple(kernel)
    st = xp.strides
    strides = st[:2] + tuple(st[2 + i] * stride[i] for i in range(nd)) + tuple(
        st[2 + i] * dilation[i] for i in range(nd))
    return np.lib.stride_tricks.as_strided(xp, sizes, strides, writeable=False)


def _pad(x: np.ndarray, padding: tuple[int, ...]) -> np.ndarray:
    if not any(padding):
        return x
    return np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])


def out_size(size: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[int, ...]:
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                 for i in range(len(kernel)))


def _grouped(a: np.ndarray, groups: int, axis: int) -> np.ndarray:
    """Split `axis` into (groups, size / groups)."""
    shape = a.shape
    return a.reshape(shape[:axis] + (groups, shape[axis] // groups) + shape[axis + 1:])


def conv_forward(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...],
                 padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> np.ndarray:
    """The convolution (no bias) in float64: (N, C, *S) x (O, C/g, *K) -> (N, O, *S')."""
    nd = w.ndim - 2
    kernel = w.shape[2:]
    out = out_size(x.shape[2:], kernel, stride, padding, dilation)
    cols = _windows(_pad(x.astype(np.float64), padding), kernel, stride, dilation, out)
    cols = _grouped(cols, groups, 1)  # (N, g, C/g, *out, *K)
    wg = _grouped(w.astype(np.float64), groups, 0)  # (g, O/g, C/g, *K)
    letters = "abcdefghij"[:nd]
    kl = "klmnopqrst"[:nd]
    res = np.einsum(f"NGC{letters}{kl},GOC{kl}->NGO{letters}", cols, wg, optimize=True)
    # einsum picks its own output layout; torch's result is contiguous, and strides show
    return np.ascontiguousarray(res.reshape((x.shape[0], w.shape[0]) + tuple(out)))


def conv_input_grad(g: np.ndarray, w: np.ndarray, input_shape: tuple[int, ...],
                    stride: tuple[int, ...], padding: tuple[int, ...],
                    dilation: tuple[int, ...], groups: int) -> np.ndarray:
    """d(conv)/d(input) applied to `g` (a transposed convolution), in float64."""
    nd = w.ndim - 2
    kernel = w.shape[2:]
    out = g.shape[2:]
    gg = _grouped(g.astype(np.float64), groups, 1)  # (N, g, O/g, *out)
    wg = _grouped(w.astype(np.float64), groups, 0)  # (g, O/g, C/g, *K)
    letters = "abcdefghij"[:nd]
    kl = "klmnopqrst"[:nd]
    cols = np.einsum(f"NGO{letters},GOC{kl}->NGC{letters}{kl}", gg, wg, optimize=True)
    cols = cols.reshape((g.shape[0], input_shape[1]) + tuple(out) + tuple(kernel))
    padded = np.zeros(input_shape[:2] + tuple(input_shape[2 + i] + 2 * padding[i]
                                              for i in range(nd)))
    for k in np.ndindex(*kernel):
        target = (slice(None), slice(None)) + tuple(
            slice(k[i] * dilation[i], k[i] * dilation[i] + stride[i] * (out[i] - 1) + 1,
                  stride[i]) for i in range(nd))
        padded[target] += cols[(Ellipsis,) + k]
    inner = (slice(None), slice(None)) + tuple(
        slice(padding[i], padding[i] + input_shape[2 + i]) for i in range(nd))
    return np.ascontiguousarray(padded[inner])


def conv_weight_grad(g: np.ndarray, x: np.ndarray, weight_shape: tuple[int, ...],
                     stride: tuple[int, ...], padding: tuple[int, ...],
                     dilation: tuple[int, ...], groups: int) -> np.ndarray:
    """d(conv)/d(weight) applied to `g`, in float64."""
    nd = len(weight_shape) - 2
    kernel = weight_shape[2:]
    cols = _windows(_pad(x.astype(np.float64), padding), kernel, stride, dilation, g.shape[2:])
    cols = _grouped(cols, groups, 1)
    gg = _grouped(g.astype(np.float64), groups, 1)
    letters = "abcdefghij"[:nd]
    kl = "klmnopqrst"[:nd]
    res = np.einsum(f"NGC{letters}{kl},NGO{letters}->GOC{kl}", cols, gg, optimize=True)
    return np.ascontiguousarray(res.reshape(weight_shape))


def _as_2d(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, ...],
           padding: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[tuple, ...]:
    """torch's view of a 1-D convolution as a 2-D one of height 1 (view1d_as_2d); 2-D and
    3-D ones as they are."""
    if len(w_shape) != 3:
        return x_shape, w_shape, tuple(stride), tuple(padding), tuple(dilation)
    return ((x_shape[0], x_shape[1], 1, x_shape[2]), (w_shape[0], w_shape[1], 1, w_shape[2]),
            (1, stride[0]), (0, padding[0]), (1, dilation[0]))


def _slow2d_plan(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...],
                 padding: tuple[int, ...], dilation: tuple[int, ...],
                 groups: int) -> tuple | None:
    """The 2-D shapes, stride, padding and dilation when torch runs slow_conv2d or, dilated,
    slow_conv_dilated2d (Convolution.cpp's Slow2d / SlowDilated2d: float64, or float32
    that use_mkldnn declines); else None."""
    if x.dtype not in (np.float32, np.float64):
        return None
    xs, ws, st, pad, dil = _as_2d(x.shape, w.shape, stride, padding, dilation)
    if x.dtype == np.float32 and conv_kernels.uses_onednn(xs, ws, st, dil, groups):
        return None
    return xs, ws, st, pad, dil


def _group_slices(a: np.ndarray, groups: int, axis: int) -> list[np.ndarray]:
    """Convolution.cpp's subtensor: group g's contiguous slice of `axis`."""
    size = a.shape[axis] // groups
    return [np.ascontiguousarray(np.take(a, range(g * size, (g + 1) * size), axis=axis))
            for g in range(groups)] if groups > 1 else [a]


def transposed_plan(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...],
                    padding: tuple[int, ...], dilation: tuple[int, ...],
                    output_padding: tuple[int, ...], groups: int) -> tuple | None:
    """_slow2d_plan's parameters and the 2-D output padding when torch runs
    slow_conv_transpose2d (the same dtypes and use_mkldnn test); else None."""
    plan = _slow2d_plan(x, w, stride, padding, dilation, groups)
    if plan is None:
        return None
    op = (0, output_padding[0]) if len(output_padding) == 1 else tuple(output_padding)
    return plan + (op,)


def transposed_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, plan: tuple,
                       groups: int) -> np.ndarray:
    """slow_conv_transpose2d, group by group: per image weight.T @ input into columns,
    folded into a zeroed output, then the bias added (as torch 2.13 does; measured)."""
    xs, ws, st, pad, dil, op = plan
    out_hw = tuple((xs[2 + i] - 1) * st[i] - 2 * pad[i] + dil[i] * (ws[2 + i] - 1) + op[i] + 1
                   for i in range(len(xs) - 2))
    x4 = np.ascontiguousarray(x).reshape(xs)
    w4 = np.ascontiguousarray(w).reshape(ws)
    out = np.concatenate([slow_conv.backward_input(
        xg, wg, (xs[0], ws[1]) + out_hw, st, pad, dil, "transposed") for xg, wg in zip(
        _group_slices(x4, groups, 1), _group_slices(w4, groups, 0), strict=True)], 1)
    if b is not None:
        with np.errstate(all="ignore"):
            out = out + b.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out.reshape(out.shape[:2] + (-1,)) if x.ndim == 3 else out


def transposed_backward(g: np.ndarray, x: np.ndarray, w: np.ndarray, plan: tuple,
                         groups: int, mask: tuple[bool, bool, bool]) -> list[np.ndarray | None]:
    """slow_conv_transpose2d's backward per group (then cat): grad_input a convolution of
    the gradient (im2col + gemm), grad_weight the images' beta-1 gemms, grad_bias the
    images' spatial sums added in turn."""
    xs, ws, st, pad, dil, _ = plan
    g4 = g.reshape(g.shape[:2] + (1, g.shape[-1])) if g.ndim == 3 else g
    x4 = np.ascontiguousarray(x).reshape(xs)
    w4 = np.ascontiguousarray(w).reshape(ws)
    parts = list(zip(_group_slices(np.ascontiguousarray(g4), groups, 1),
                     _group_slices(x4, groups, 1), _group_slices(w4, groups, 0), strict=True))
    gi = gw = gb = None
    if mask[0]:
        gi = np.concatenate([slow_conv.forward(gg, wg, None, st, pad, dil, "transposed")
                             for gg, _, wg in parts], 1).reshape(x.shape)
    if mask[1]:
        gw = np.concatenate([slow_conv.backward_weight(xg, gg, wg.shape, st, pad, dil)
                             for gg, xg, wg in parts], 0).reshape(w.shape)
    if mask[2]:
        gb = np.concatenate([slow_conv.backward_bias(gg) for gg, _, _ in parts])
    return [gi, gw, gb]


def _slow2d_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, plan: tuple,
                    groups: int) -> np.ndarray:
    """Slow2d's forward, group by group (then cat), on the 2-D view; back in x's rank."""
    xs, ws, st, pad, dil = plan
    x4 = np.ascontiguousarray(x).reshape(xs)
    w4 = np.ascontiguousarray(w).reshape(ws)
    bs = [None] * groups if b is None else _group_slices(b, groups, 0)
    out = np.concatenate([slow_conv.forward(xg, wg, bg, st, pad, dil) for xg, wg, bg in zip(
        _group_slices(x4, groups, 1), _group_slices(w4, groups, 0), bs, strict=True)], 1)
    return out.reshape(out.shape[:2] + (-1,)) if x.ndim == 3 else out


def _slow2d_backward(g: np.ndarray, x: np.ndarray, w: np.ndarray, plan: tuple, groups: int,
                     mask: tuple[bool, bool, bool]) -> list[np.ndarray | None]:
    """Slow2d's / SlowDilated2d's convolution_backward: per group grad_input and grad_weight
    (then cat), and grad_bias (per group's contiguous slice): Slow2d's torch.sum over
    (0, 2, 3), the dilated kernel's own per-image sums."""
    xs, ws, st, pad, dil = plan
    g4 = g.reshape(xs[:1] + (ws[0],) + (-1,) + g.shape[3 - len(xs):])
    x4 = np.ascontiguousarray(x).reshape(xs)
    w4 = np.ascontiguousarray(w).reshape(ws)
    parts = list(zip(_group_slices(g4, groups, 1), _group_slices(x4, groups, 1),
                     _group_slices(w4, groups, 0), strict=True))
    gi = gw = gb = None
    if mask[0]:
        gi = np.concatenate([slow_conv.backward_input(gg, wg, xg.shape, st, pad, dil)
                             for gg, xg, wg in parts], 1).reshape(x.shape)
    if mask[1] and groups > 1 and len(xs) == 5 and slow_conv.kernel_name(dil) == "slow2d":
        gw = slow_conv.backward_weight_grouped3d(g4, x4, w4.shape, st, pad, groups)
    elif mask[1]:
        gw = np.concatenate([slow_conv.backward_weight(gg, xg, wg.shape, st, pad, dil)
                             for gg, xg, wg in parts], 0).reshape(w.shape)
    if mask[2]:
        bias_grad = slow_conv.backward_bias if any(d != 1 for d in dil) else (
            lambda gg: cascade_sum(gg, (0,) + tuple(range(2, gg.ndim)), False))
        gb = np.concatenate([bias_grad(gg) for gg, _, _ in parts])
    return [gi, gw, gb]


def _depthwise_plan(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...],
                    padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                    direction: str) -> tuple | None:
    """The 2-D shapes and parameters when torch runs this float32 convolution through
    oneDNN's jit_dw:avx2 kernel (engine/conv_depthwise.py) for `direction`; else None."""
    if x.dtype != np.float32 or onednn.AVX512_CORE:
        return None
    xs, ws, st, pad, dil = _as_2d(x.shape, w.shape, stride, padding, dilation)
    if not conv_depthwise.runs(xs, ws, st, pad, dil, groups, direction):
        return None
    if direction == "weight":  # one chain step per output position, in Python
        steps = xs[0] * math.prod(out_size(xs[2:], ws[2:], st, pad, dil))
        if steps > conv_depthwise.MAX_WEIGHT_STEPS:
            exactness.note("a depthwise convolution's weight gradient over more than "
                           f"{conv_depthwise.MAX_WEIGHT_STEPS:,} output positions: jit_dw's "
                           "chain is not emulated, accumulated in float64")
            return None
        if not exactness.afford(steps * xs[1] * ws[2] * ws[3],
                                "depthwise convolution (weight)"):
            return None
    return xs, ws, st, pad, dil


def _onednn_plan(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...], padding: tuple[int, ...],
                 dilation: tuple[int, ...], groups: int, direction: str) -> tuple | None:
    """The 2-D shapes and parameters when torch runs this convolution through oneDNN's
    kernels whose order conv_kernels reproduces; else None, with the cause noted."""
    if x.dtype != np.float32:
        exactness.note(f"{x.dtype} convolution: accumulated in float64, not in the kernel's "
                       "order")
        return None
    xs, ws, st, pad, dil = _as_2d(x.shape, w.shape, stride, padding, dilation)
    if len(ws) == 5:
        exactness.note(f"3-D convolution ({direction}) through oneDNN: accumulated in float64, "
                       "not in its kernel's order")
        return None
    if not conv_kernels.onednn_order_known(xs, ws, st, dil, groups, direction, pad):
        exactness.note(f"convolution ({direction}) through oneDNN kernels whose order is not "
                       "reproduced (jit:avx2 with groups of whole channel blocks, "
                       "inner-product kernels, some strided input gradients, or too large)")
        return None
    if not exactness.afford(conv_kernels.chain_steps(xs, ws), f"convolution ({direction})"):
        return None
    return xs, ws, st, pad, dil


def channels_last(x: np.ndarray, w: np.ndarray) -> bool:
    """Convolution.cpp's mkldnn_conv_use_channels_last (thnn_conv_use_channels_last for
    slow_conv2d): the input or the weight suggests channels-last memory, so torch computes
    in it and lays the output and the input gradient out so."""
    return x.ndim in (4, 5) and (suggests_channels_last(x) or suggests_channels_last(w))


def conv_channels_last(x: np.ndarray, w: np.ndarray) -> bool:
    """`channels_last` of a convolution (not transposed) as _convolution decides it: a 1-D
    one's input is first made contiguous (which keeps a contiguous tensor's strides, its
    size-1 dims' too) and both operands viewed 4-D by unsqueeze(2), so a mono signal
    permuted from (N, L, 1) to (N, 1, L) runs channels-last (measured: brg_conv_fwd, and an
    output with strides (O*L, 1, O))."""
    if x.ndim != 3 or w.ndim != 3:
        return channels_last(x, w)
    return _view4d_channels_last(x, True) or _view4d_channels_last(w, False)


def _view4d_channels_last(a: np.ndarray, made_contiguous: bool) -> bool:
    """Whether view4d (unsqueeze(2)) of the 3-d `a` (after `contiguous()` where
    `made_contiguous`) suggests channels-last: its strides as torch keeps them (numpy's of
    size-1 dims, as views.tensor_strides reads them; a newaxis' 0 as torch's contiguous)."""
    from .views import contiguous_strides

    if a.size == 0 or (made_contiguous and not a.flags.c_contiguous):
        return False  # contiguous() lays it out row-major: NCHW
    canonical = contiguous_strides(a.shape)
    if a.flags.c_contiguous:
        strides = [s // a.itemsize if n == 1 and s else c
                   for n, s, c in zip(a.shape, a.strides, canonical, strict=True)]
    else:
        strides = [s // a.itemsize for s in a.strides]
    return channels_last_strides((a.shape[0], a.shape[1], 1, a.shape[2]),
                                 (strides[0], strides[1], a.shape[2] * strides[2], strides[2]))


def in_conv_format(out: np.ndarray, channels_last: bool) -> np.ndarray:
    """`out` laid out as a convolution's result (dense_in_format); a 1-D convolution's run
    channels-last is the squeezed 4-d channels-last result (strides (O*L, 1, O))."""
    if out.ndim == 3 and channels_last:
        return dense_in_format(out[:, :, None, :], True)[:, :, 0, :]
    return dense_in_format(out, channels_last)


def nhwc_calls(x_shape: tuple[int, ...], dtype: np.dtype, w_shape: tuple[int, ...],
               out_w: int, stride: tuple[int, ...], padding: tuple[int, ...],
               dilation: tuple[int, ...], groups: int, direction: str) -> bool | None:
    """For a channels-last convolution (input `x_shape`) through oneDNN: whether its
    brgemm kernel makes one call per kernel column (engine/conv_nhwc.py) for `direction`
    ('forward', or 'input' of stride 1); None, noted, where that order is not reproduced."""
    what = f"channels-last convolution ({direction})"
    if (dtype != np.float32 or len(x_shape) != 4 or groups != 1 or onednn.AVX512_CORE
            or any(d != 1 for d in dilation)):
        exactness.note(f"{what} through oneDNN kernels whose order is not reproduced "
                       "(grouped, dilated, 3-D, float64 or AVX-512 ones): accumulated in "
                       "float64")
        return None
    kw = w_shape[3]
    if direction == "forward":
        per_column = conv_nhwc.calls_per_column(x_shape[3], out_w, kw, stride[1], padding[1],
                                                x_shape[1], w_shape[0])
    else:
        per_column = conv_nhwc.calls_per_column(out_w, x_shape[3], kw, 1, kw - 1 - padding[1])
    if per_column is None:
        exactness.note(f"{what}: oneDNN's output blocking (not reproduced) picks between "
                       "its kernel's one call and one call per kernel column; computed "
                       "with one per column")
        per_column = True
    if not exactness.afford(conv_kernels.chain_steps(x_shape, w_shape), what):
        return None
    return per_column


def _gemm_plan(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...],
               padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
               direction: str = "forward") -> tuple | None:
    """The 2-D shapes and parameters when torch's oneDNN runs this forward, input or weight
    gradient (`direction`) as gemm:jit on AVX2 (engine/conv_gemm.py); else None."""
    if x.dtype != np.float32 or onednn.AVX512_CORE:
        return None
    xs, ws, st, pad, dil = _as_2d(x.shape, w.shape, stride, padding, dilation)
    if len(ws) != 4:
        return None
    # (grouped: measured with ONEDNN_VERBOSE on groups of 1 to 8 channels; groups of whole
    # channel blocks go to jit:avx2's direct kernel as ungrouped ones do, the rest gemm:jit)
    direct_runs_gemm = {"forward": conv_kernels.forward_runs_gemm,
                        "input": conv_kernels.input_runs_gemm,
                        "weight": conv_kernels.weight_runs_gemm}[direction]
    if groups != 1 and conv_depthwise.is_depthwise(xs, ws, groups):
        if conv_depthwise.runs(xs, ws, st, pad, dil, groups, direction):
            return None
    elif (groups == 1 or conv_kernels.whole_block_groups(xs, ws, groups)) and \
            not direct_runs_gemm(xs, ws, st, pad, dil):
        return None
    if not exactness.afford(conv_kernels.chain_steps(xs, ws), f"convolution ({direction})"):
        return None
    return xs, ws, st, pad, dil


def deconvolution_plan(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                       out_shape: tuple[int, ...], stride: tuple[int, ...],
                       padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                       direction: str) -> tuple | None:
    """oneDNN's float32 deconvolution is the convolution of weight (Cin, Cout, *K) whose
    input is the deconvolution's output: its forward that convolution's data gradient
    (jit:avx2, brgconv_strided when strided), its data gradient that convolution's forward
    and its weight gradient that convolution's (ONEDNN_VERBOSE: conv:any+jit:avx2,
    brg_deconv:avx2+brgconv_strided:avx2). The 2-D shapes (conv input, weight, stride,
    padding, dilation) when that convolution's order for `direction` is known on AVX2, else
    None."""
    if onednn.AVX512_CORE or len(w_shape) == 5:
        return None
    conv_x = (out_shape[0], out_shape[1]) + tuple(out_shape[2:])
    xs, ws, st, pad, dil = _as_2d(conv_x, w_shape, stride, padding, dilation)
    if not (conv_kernels.onednn_order_known(xs, ws, st, dil, groups, direction, pad)
            or _deconvolution_runs_gemm(xs, ws, st, pad, dil, groups, direction)):
        return None
    if not exactness.afford(conv_kernels.chain_steps(xs, ws),
                            f"transposed convolution ({direction})"):
        return None
    return xs, ws, st, pad, dil


def _deconvolution_runs_gemm(xs: tuple[int, ...], ws: tuple[int, ...], st: tuple[int, ...],
                             pad: tuple[int, ...], dil: tuple[int, ...], groups: int,
                             direction: str) -> bool:
    """Whether a stride-1 ungrouped deconvolution's forward is gemm:jit's data gradient of
    its convolution: one whose dilated kernel overflows jit:avx2's backward-data block
    (conv_kernels.input_overflows; ONEDNN_VERBOSE: conv:any+x64:gemm:jit, measured)."""
    return (direction == "input" and groups == 1 and not any(s != 1 for s in st)
            and conv_kernels.input_overflows(xs, ws, pad, dil))


def deconvolution_forward(x: np.ndarray, w: np.ndarray, plan: tuple) -> np.ndarray:
    """The deconvolution's output (no bias): the convolution's data gradient of x."""
    xs, ws, st, pad, dil = plan
    g4 = np.ascontiguousarray(x).reshape(xs[:1] + (ws[0],) + (-1, x.shape[-1]))
    w4 = np.ascontiguousarray(w).reshape(ws)
    if any(s != 1 for s in st):
        out = conv_brgemm.strided_backward_input(g4, w4, xs, st, pad, dil)
    elif _deconvolution_runs_gemm(xs, ws, st, pad, dil, 1, "input"):
        out = conv_gemm.backward_input(g4, w4, xs, st, pad, dil)
    else:
        out = conv_kernels.backward_input(g4, w4, xs, st, pad, dil)
    return out.reshape(out.shape[:2] + (-1,)) if x.ndim == 3 else out


def forward_values(x: np.ndarray, w: np.ndarray, b: np.ndarray | None,
                    stride: tuple[int, ...], padding: tuple[int, ...],
                    dilation: tuple[int, ...], groups: int, channels_last: bool) -> np.ndarray:
    """The convolution's output in the order of the kernel torch runs (module doc), any
    layout."""
    if channels_last and x.ndim == 3:  # run as torch's view4d of it (conv_channels_last)
        xs, ws, st, pad, dil = _as_2d(x.shape, w.shape, stride, padding, dilation)
        out = forward_values(x.reshape(xs), w.reshape(ws), b, st, pad, dil, groups, True)
        return out.reshape(out.shape[:2] + (-1,))
    slow = _slow2d_plan(x, w, stride, padding, dilation, groups)
    if slow is not None:
        if channels_last and _slow_channels_last(x, dilation, groups):
            return slow_conv.forward_channels_last(x, w, b, stride, padding)
        return _slow2d_forward(x, w, b, slow, groups)
    if channels_last and x.dtype == np.float32 and not onednn.AVX512_CORE and \
            conv_depthwise.runs_brdgmm(x.shape, w.shape, dilation, groups):
        return conv_depthwise.forward_brdgmm(x, w, b, stride, padding)
    dw = _depthwise_plan(x, w, stride, padding, dilation, groups, "forward")
    if dw is not None:  # (a channels-last one here is dilated: jit_dw runs it so too)
        xs, ws, st, pad, dil = dw
        out = conv_depthwise.forward(x.reshape(xs), w.reshape(ws), b, st, pad, dil)
        return out.reshape(out.shape[:2] + (-1,)) if x.ndim == 3 else out
    if channels_last:
        out_w = out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)[-1]
        per_column = nhwc_calls(x.shape, x.dtype, w.shape, out_w, stride, padding, dilation,
                                groups, "forward")
        if per_column is not None:
            return conv_nhwc.forward(x, w, b, stride, padding, per_column)
    elif (gemm := _gemm_plan(x, w, stride, padding, dilation, groups)) is not None:
        xs, ws, st, pad, dil = gemm
        out = conv_gemm.forward(x.reshape(xs), w.reshape(ws), b, st, pad, dil, groups)
        return out.reshape(out.shape[:2] + (-1,)) if x.ndim == 3 else out
    else:
        plan = _onednn_plan(x, w, stride, padding, dilation, groups, "forward")
        if plan is not None:
            xs, ws, st, pad, dil = plan
            kernels = conv_avx512 if onednn.AVX512_CORE else conv_kernels
            bs = [None] * groups if b is None else _group_slices(b, groups, 0)
            extra = () if onednn.AVX512_CORE else (groups,)
            out = np.concatenate([kernels.forward(xg, wg, bg, st, pad, dil, *extra)
                                  for xg, wg, bg in zip(
                _group_slices(x.reshape(xs), groups, 1), _group_slices(w.reshape(ws), groups, 0),
                bs, strict=True)], 1)
            return out.reshape(out.shape[:2] + (-1,)) if x.ndim == 3 else out
    out = conv_forward(x, w, stride, padding, dilation, groups)
    if b is not None:
        out += b.astype(np.float64).reshape((1, -1) + (1,) * (out.ndim - 2))
    return out.astype(x.dtype)


def backward_values(g: np.ndarray, xa: np.ndarray, wa: np.ndarray,
                     bias_shape: tuple[int, ...], stride: tuple[int, ...],
                     padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                     mask: tuple[bool, bool, bool], channels_last: bool) -> list[np.ndarray]:
    """A plain convolution's (grad_input, grad_weight, grad_bias) in the order of the
    kernels torch runs (module doc), any layout; zeros where `mask` asks for none."""
    if channels_last and xa.ndim == 3:  # run as torch's view4d of it (conv_channels_last)
        xs, ws, st, pad, dil = _as_2d(xa.shape, wa.shape, stride, padding, dilation)
        outs = backward_values(g.reshape(g.shape[:2] + (1, g.shape[-1])), xa.reshape(xs),
                               wa.reshape(ws), bias_shape, st, pad, dil, groups, mask, True)
        return [outs[0].reshape(xa.shape), outs[1].reshape(wa.shape), outs[2]]
    dtype = xa.dtype
    slow = _slow2d_plan(xa, wa, stride, padding, dilation, groups)
    if slow is not None and channels_last and _slow_channels_last(xa, dilation, groups):
        zeros = [np.zeros(shape, dtype) for shape in (xa.shape, wa.shape, bias_shape)]
        return [slow_conv.backward_input_channels_last(g, wa, xa.shape, stride, padding)
                if mask[0] else zeros[0],
                slow_conv.backward_weight_channels_last(g, xa, wa.shape, stride, padding)
                if mask[1] else zeros[1],
                cascade_sum(g, (0, 2, 3), False) if mask[2] else zeros[2]]
    if slow is not None:
        outs = _slow2d_backward(g, xa, wa, slow, groups, mask)
        return [o if o is not None else np.zeros(shape, dtype) for o, shape in
                zip(outs, (xa.shape, wa.shape, bias_shape), strict=True)]
    gi = np.zeros(xa.shape, dtype)
    gw = np.zeros(wa.shape, dtype)
    gb = np.zeros(bias_shape, dtype)
    dw = _depthwise_plan(xa, wa, stride, padding, dilation, groups, "input") if mask[0] \
        else None
    if dw is not None:
        xs, ws, st, pad, dil = dw
        if channels_last:
            exactness.note("channels-last depthwise convolution (input) through oneDNN's "
                           "brdgmm_dw kernel, whose order is not reproduced")
        g4 = np.ascontiguousarray(g).reshape(xs[:1] + (ws[0],) + (-1, g.shape[-1]))
        gi = conv_depthwise.backward_input(g4, wa.reshape(ws), xs, st, pad,
                                           dil).reshape(xa.shape)
    elif mask[0]:
        gi = _input_grad(g, xa, wa, stride, padding, dilation, groups, channels_last)
    dw = None if channels_last or not (mask[1] or mask[2]) else _depthwise_plan(
        xa, wa, stride, padding, dilation, groups, "weight")
    gemm = None if channels_last or dw is not None or not (mask[1] or mask[2]) else _gemm_plan(
        xa, wa, stride, padding, dilation, groups, "weight")
    if dw is not None:
        xs, ws, st, pad, _ = dw
        g4 = np.ascontiguousarray(g).reshape(xs[:1] + (ws[0],) + (-1, g.shape[-1]))
        if mask[1]:
            gw = conv_depthwise.backward_weight(g4, np.ascontiguousarray(xa).reshape(xs), ws,
                                                st, pad).reshape(wa.shape)
        if mask[2]:
            gb = conv_depthwise.backward_bias(g4)
    elif gemm is not None:
        xs, ws, st, pad, dil = gemm
        g4 = np.ascontiguousarray(g).reshape(xs[:1] + (ws[0],) + (-1, g.shape[-1]))
        if mask[1]:
            gw = conv_gemm.backward_weight(g4, np.ascontiguousarray(xa).reshape(xs), ws, st,
                                           pad, dil, groups).reshape(wa.shape)
        if mask[2]:
            gb = conv_gemm.backward_bias(g4)
    elif mask[1] or mask[2]:
        plan = _onednn_plan(xa, wa, stride, padding, dilation, groups, "weight")
        if plan is not None:
            xs, ws, st, pad, dil = plan
            g4 = np.ascontiguousarray(g).reshape(xs[:1] + (ws[0],) + (-1, g.shape[-1]))
            avx512 = conv_kernels.avx512_weight_kernel(xs, ws, st, pad, dil)
            if mask[1] and channels_last and conv_kernels.runs_1x1(xs, ws, st, pad, dil):
                exactness.note("channels-last 1x1 convolution (weight) through oneDNN's "
                               "jit_1x1 kernel, whose order for channels-last memory is not "
                               "reproduced: accumulated in float64")
                gw = conv_weight_grad(g, xa, wa.shape, stride, padding, dilation, groups)
            elif mask[1]:
                if avx512:
                    gw = conv_avx512.backward_weight(g4, np.ascontiguousarray(xa).reshape(xs),
                                                     ws, st, pad, dil).reshape(wa.shape)
                else:
                    wsg = (ws[0] // groups,) + tuple(ws[1:])
                    gw = np.concatenate([conv_kernels.backward_weight(
                        gg, xg, wsg, st, pad, dil, groups) for gg, xg in zip(
                            _group_slices(g4, groups, 1),
                            _group_slices(np.ascontiguousarray(xa).reshape(xs), groups, 1),
                            strict=True)]).reshape(wa.shape)
            if mask[2]:
                gb = (conv_avx512.backward_bias(g4, xs, ws, st, dil) if avx512
                      else conv_kernels.backward_bias(g4))
        else:
            if mask[1]:
                gw = conv_weight_grad(g, xa, wa.shape, stride, padding, dilation, groups)
            if mask[2]:  # (torch's equals at::sum's cascade here: measured on a depthwise
                # Conv1d's 16 channels, which float64 missed)
                gb = cascade_sum(g, (0,) + tuple(range(2, g.ndim)), False)
    return [gi, gw, gb]


def _input_grad(g: np.ndarray, xa: np.ndarray, wa: np.ndarray, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                channels_last: bool) -> np.ndarray:
    """grad_input through oneDNN: its direct kernels' order, brgconv_strided's when strided
    (also for channels-last memory, measured), brg_conv_fwd's flipped for a channels-last
    stride-1 one (engine/conv_nhwc.py), gemm:jit's (engine/conv_gemm.py); else float64,
    noted."""
    if channels_last and all(s == 1 for s in stride):
        per_column = nhwc_calls(xa.shape, xa.dtype, wa.shape, g.shape[-1], stride, padding,
                                dilation, groups, "input")
        if per_column is not None:
            return conv_nhwc.backward_input(g, wa, xa.shape, padding, per_column)
    elif not channels_last and (gemm := _gemm_plan(xa, wa, stride, padding, dilation, groups,
                                                  "input")) is not None:
        xs, ws, st, pad, dil = gemm
        g4 = np.ascontiguousarray(g).reshape(xs[:1] + (ws[0],) + (-1, g.shape[-1]))
        return conv_gemm.backward_input(g4, wa.reshape(ws), xs, st, pad, dil,
                                        groups).reshape(xa.shape)
    else:
        plan = _onednn_plan(xa, wa, stride, padding, dilation, groups, "input")
        if plan is not None and channels_last and conv_brgemm.declines(*plan):
            exactness.note("channels-last strided convolution (input) that brgconv_strided "
                           "declines: oneDNN's kernel for it is not reproduced")
            plan = None
        if plan is not None:
            xs, ws, st, pad, dil = plan
            g4 = np.ascontiguousarray(g).reshape(xs[:1] + (ws[0],) + (-1, g.shape[-1]))
            # (grouped and strided alike in both dims: jit:avx2's direct kernel, not
            # brgconv_strided -- measured with ONEDNN_VERBOSE on groups of whole blocks,
            # heights 4 and 8, widths 4-30, kernels 3 and 5, stride 2; a 1-D one, strided
            # in its width only, runs gemm:jit, whose order here is not measured)
            strided = any(s != 1 for s in st)
            direct = groups != 1 and len(set(st)) == 1
            kern = conv_brgemm.strided_backward_input if strided and not direct else (
                conv_avx512 if onednn.AVX512_CORE else conv_kernels).backward_input
            extra = (groups,) if kern is conv_kernels.backward_input else ()
            xsg = (xs[0], xs[1] // groups) + tuple(xs[2:])
            gi = np.concatenate([kern(gg, wg, xsg, st, pad, dil, *extra) for gg, wg in zip(
                _group_slices(g4, groups, 1), _group_slices(wa.reshape(ws), groups, 0),
                strict=True)], 1)
            return gi.reshape(xa.shape)
    return conv_input_grad(g, wa, xa.shape, stride, padding, dilation, groups)


def _slow_channels_last(x: np.ndarray, dilation: tuple[int, ...], groups: int) -> bool:
    """Whether slow_conv2d's channels-last frames (engine/slow_conv.py) are this
    channels-last convolution's kernel; else its order is not reproduced (noted)."""
    if x.ndim == 4 and groups == 1 and all(d == 1 for d in dilation):
        return True
    exactness.note("channels-last slow_conv2d (grouped, dilated or 3-D): its order is not "
                   "reproduced")
    return False


def transposed_grads(g: np.ndarray, xa: np.ndarray, wa: np.ndarray, bias_sizes: tuple[int, ...],
                      params: tuple, mask: tuple[bool, bool, bool]) -> list[np.ndarray]:
    """oneDNN's transposed convolution's gradients: its input's is the plain convolution of
    the gradient, its weight's the correlation of the gradient with the input, its bias's
    the channels' sums, each in the kernel's order where known, else in float64 (noted)."""
    from .conv_transpose import CAUSE

    dtype = xa.dtype
    planned = dtype == np.float32
    gi = gw = None
    cl = channels_last(xa, wa)
    if mask[0] and planned and cl:  # brg_conv_fwd of the gradient (engine/conv_nhwc.py)
        per_column = nhwc_calls(g.shape, dtype, wa.shape, xa.shape[-1], *params, "forward")
        if per_column is not None:
            gi = conv_nhwc.forward(g, wa, None, params[0], params[1], per_column)
    elif mask[0] and planned and (plan := deconvolution_plan(
            xa.shape, wa.shape, g.shape, *params, "forward")) is not None:
        xs, ws, st, pad, dil = plan
        g4 = np.ascontiguousarray(g).reshape(xs)
        gi = conv_kernels.forward(g4, wa.reshape(ws), None, st, pad, dil).reshape(xa.shape)
    if mask[1] and planned and (plan := deconvolution_plan(
            xa.shape, wa.shape, g.shape, *params, "weight")) is not None:
        xs, ws, st, pad, dil = plan
        gw = conv_kernels.backward_weight(
            np.ascontiguousarray(xa).reshape(xs[:1] + (ws[0],) + (-1, xa.shape[-1])),
            np.ascontiguousarray(g).reshape(xs), ws, st, pad, dil).reshape(wa.shape)
    gb = None
    if mask[2] and bias_sizes != (0,) and planned and params[3] == 1:
        # ref_deconvolution's compute_bwd_bias: each channel's float32 sum over images and
        # positions in turn (measured on 1-D, 2-D and 3-D deconvolutions; not grouped ones)
        # (channels-last: each image's positions in turn, the images' sums added; measured)
        per_channel = np.moveaxis(g.reshape(g.shape[:2] + (-1,)), 1, 0)
        gb = (seq_sum(seq_sum(per_channel)) if cl else
              seq_sum(per_channel.reshape(g.shape[1], -1)))
    if ((mask[0] and gi is None) or (mask[1] and gw is None)
            or (mask[2] and bias_sizes != (0,) and gb is None)):
        exactness.note(CAUSE)
    if gi is None:
        gi = conv_forward(g, wa, *params) if mask[0] else np.zeros(xa.shape)
    if gw is None:
        gw = conv_weight_grad(xa, g, wa.shape, *params) if mask[1] else np.zeros(wa.shape)
    if gb is None:
        bias_shape = bias_sizes if bias_sizes != (0,) else (wa.shape[1] * params[3],)
        gb = (g.astype(np.float64).sum(axis=(0,) + tuple(range(2, g.ndim)))
              if mask[2] and bias_sizes != (0,) else np.zeros(bias_shape))
    return [gi.astype(dtype), gw.astype(dtype), gb.astype(dtype)]
