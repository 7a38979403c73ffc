"""torch's CPU normalization kernels (layer_norm, batch_norm, group_norm, forward and
backward) in their order of operations, in vectorised numpy over rows.

All of them start from ATen's RowwiseMoments (cpu/moments_utils.h): each row's mean and
variance by Welford's algorithm over vectors of `capability.lanes()` elements, in chunks
of 16 vectors, the chunks merged in a cascade (AddMomentsVec), then a scalar Welford tail,
and the lanes merged into it one by one (AddMoments). Which `a * b + c` steps the FMA
builds fuse was measured against torch 2.13 (AVX2): the chunk loop and the lane merge
fuse, the scalar tail does not, and the cascade merge computes its m2 term as
fma(delta * m0, c * delta, m2 + m2_add) (moments_utils.h's AddMomentsVec). The `default`
build fuses nothing.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import capability, fp64
from .fp32 import fma as fma32
from .reduction_order import cascade_sum, lane_sum, reduce_all_sum, seq_sum

_CHUNK = 16  # moments_utils.h's kChunkSize


def _fma(fused: bool, dtype: np.dtype) -> Callable[..., np.ndarray]:
    """`a * b + c` as the kernel rounds it: once (an FMA build's contraction) or twice."""
    if not fused:
        return lambda a, b, c: a * b + c
    if dtype == np.float32:
        return fma32
    return lambda a, b, c: np.asarray(fp64.fma(a, b, c), dtype)


def _ceil_log2(x: int) -> int:
    """ATen's utils::CeilLog2 (1 for x <= 2)."""
    return 1 if x <= 2 else int(x - 1).bit_length()


def rowwise_moments(x: np.ndarray, ddof: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(mean, variance) of each row of the float32 (rows, N) array x, as RowwiseMoments."""
    mad = _fma(capability.fma_build(), x.dtype)
    f = x.dtype.type
    rows, size = x.shape
    width = capability.lanes(x.itemsize)
    n = size // width
    chunks = -(-n // _CHUNK)
    zeros = np.zeros((rows, width), x.dtype)
    # every chunk's Welford pass at once: (rows, chunks, lanes) accumulators
    body = x[:, :n * width].reshape(rows, n, width)
    m1 = np.zeros((rows, chunks, width), x.dtype)
    m2 = np.zeros_like(m1)
    counts = np.minimum(_CHUNK, n - _CHUNK * np.arange(chunks))
    with np.errstate(all="ignore"):
        for j in range(min(_CHUNK, n)):
            live = counts > j
            xv = body[:, np.arange(chunks)[live] * _CHUNK + j]
            delta = xv - m1[:, live]
            new_m1 = mad(delta, f(1) / f(j + 1), m1[:, live])
            m2[:, live] = mad(delta, xv - new_m1, m2[:, live])
            m1[:, live] = new_m1
        depth = _ceil_log2(chunks)
        stack = [[0, zeros, zeros] for _ in range(depth)]
        for i in range(chunks):
            stack[0] = _add_moments_vec(int(counts[i]), m1[:, i], m2[:, i], *stack[0], mad)
            mask, j = i + 1, 1
            while j < depth and mask & 1 == 0:
                stack[j] = _add_moments_vec(*stack[j - 1], *stack[j], mad)
                stack[j - 1] = [0, zeros, zeros]
                mask >>= 1
                j += 1
        for i in range(1, depth):
            stack[0] = _add_moments_vec(*stack[i], *stack[0], mad)
        lanes_m1, lanes_m2 = stack[0][1], stack[0][2]
        count = 0
        mean = np.zeros(rows, x.dtype)
        m2_total = np.zeros(rows, x.dtype)
        for i in range(n * width, size):  # the scalar tail: not fused
            delta = x[:, i] - mean
            count += 1
            mean = mean + delta / f(count)
            m2_total = m2_total + delta * (x[:, i] - mean)
        for lane in range(width):  # AddMoments, lane after lane
            total = count + n
            c = f(0) if total == 0 else f(n) / f(total)
            delta = lanes_m1[:, lane] - mean
            mean = mad(c, delta, mean)
            m2_total = m2_total + mad(delta * delta * c, f(count), lanes_m2[:, lane])
            count = total
        return mean, m2_total / f(size - ddof)


def _add_moments_vec(m0_add: int, m1_add: np.ndarray, m2_add: np.ndarray, m0: int,
                     m1: np.ndarray, m2: np.ndarray, mad: Callable[..., np.ndarray]) -> list:
    """AddMomentsVec: merge (m0_add, m1_add, m2_add) into (m0, m1, m2) as torch 2.13 writes
    it: m1 + c delta and fmadd(delta m0, c delta, m2 + m2_add). Its two rounded factors
    matter when m0 is no power of two (a short last chunk merged into the cascade)."""
    f = m1.dtype.type
    total = m0 + m0_add
    c = f(0) if total == 0 else f(m0_add) / f(total)
    delta = m1_add - m1
    c_delta = c * delta
    return [total, m1 + c_delta, mad(delta * f(m0), c_delta, m2 + m2_add)]


# -- layer_norm (cpu/layer_norm_kernel.cpp) ------------------------------------------------


def layer_norm(x: np.ndarray, gamma: np.ndarray | None, beta: np.ndarray | None,
               eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LayerNormKernelImplInternal on the (M, N) rows of x: (y, mean, rstd). With both
    gamma and beta, vec::map3's `(x - mean) * rstd * gamma + beta` fuses its last step; with
    either missing, the scalar loop's does (and a missing gamma's `* 1` folds away).
    float16 rows (with float16 or no gamma/beta) are the float kernel's, y, mean and rstd
    rounded to half (measured over 7 shapes, with and without affine: no difference)."""
    if x.dtype == np.float16 and all(p is None or p.dtype == np.float16 for p in (gamma, beta)):
        up = [None if p is None else p.astype(np.float32) for p in (gamma, beta)]
        return tuple(v.astype(np.float16) for v in layer_norm(x.astype(np.float32), *up, eps))
    f = x.dtype.type
    mad = _fma(capability.fma_build(), x.dtype)
    mean, var = rowwise_moments(x)
    with np.errstate(all="ignore"):
        rstd = f(1) / np.sqrt(var + f(eps))
        centred = x + (-mean)[:, None]
        b = np.zeros(x.shape[1], x.dtype) if beta is None else beta
        if gamma is None:
            y = mad(centred, rstd[:, None], b)
        else:
            y = mad(centred * rstd[:, None], gamma, b)
    return y, mean, rstd


def layer_norm_backward(dy: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        gamma: np.ndarray | None, mask: tuple[bool, bool, bool]
                        ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """LayerNormBackwardKernelImplInternal / layer_norm_backward_frame on (M, N) rows:
    (dX, dgamma, dbeta) for the outputs asked for. Per row ds = sum(dy * x * gamma) and
    db = sum(dy * gamma) by map{3,2}_reduce_all (its partial last vector fused into the
    accumulator in the FMA builds, its whole vectors not), then
    dX = a dy gamma + b x + c; dgamma and dbeta summed per thread over its rows, then
    across the threads' buffers. float16: dX is the float kernel's, rounded; each thread's
    dgamma and dbeta buffers are float16, a row's dy * (rstd * x - rstd * mean) (in float)
    added and the sum rounded row by row, then the buffers summed (measured over 10 shapes:
    no difference; accumulating in float and rounding once differs in a third of dgamma)."""
    if x.dtype == np.float16 and (gamma is None or gamma.dtype == np.float16):
        return _layer_norm_backward_half(dy, x, mean, rstd, gamma, mask)
    f = x.dtype.type
    mad = _fma(capability.fma_build(), x.dtype)
    rows, size = x.shape
    a = rstd[:, None]
    dx = dgamma = dbeta = None
    with np.errstate(all="ignore"):
        if mask[0]:
            if gamma is None:
                ds, db = _map_reduce_sum(dy, x, mad), reduce_all_sum(dy)
                scaled = a * dy
            else:
                g = np.broadcast_to(gamma, x.shape)
                ds, db = _map_reduce_sum(dy * x, g, mad), _map_reduce_sum(dy, g, mad)
                scaled = a * dy * gamma
            scale = f(1) / f(size)
            b = mad(db, mean, -ds) * rstd * rstd * rstd * scale
            c = mad(-b, mean, -(db * rstd * scale))
            dx = mad(b[:, None], x, scaled) + c[:, None]
        if mask[1] or mask[2]:
            parts = _thread_rows(rows)
            if mask[1]:
                b2 = (-rstd * mean)[:, None]
                inner = mad(a, x, b2)
                dgamma = _thread_buffers(parts, lambda acc, i: mad(dy[i], inner[i], acc),
                                         size, x.dtype)
            if mask[2]:
                dbeta = _thread_buffers(parts, lambda acc, i: acc + dy[i], size, x.dtype)
    return dx, dgamma, dbeta


def _layer_norm_backward_half(dy: np.ndarray, x: np.ndarray, mean: np.ndarray,
                              rstd: np.ndarray, gamma: np.ndarray | None,
                              mask: tuple[bool, bool, bool]
                              ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """layer_norm_backward on float16 rows: see layer_norm_backward."""
    half, f32 = np.float16, np.float32
    up = [None if v is None else v.astype(f32) for v in (dy, x, mean, rstd, gamma)]
    dx = dgamma = dbeta = None
    if mask[0]:
        dx = layer_norm_backward(*up, (True, False, False))[0].astype(half)
    parts = _thread_rows(x.shape[0])
    dy32 = up[0]
    if mask[1]:
        a = up[3][:, None]
        mad = _fma(capability.fma_build(), np.dtype(f32))
        with np.errstate(all="ignore"):
            inner = mad(a, up[1], -a * up[2][:, None])
            dgamma = _thread_buffers(
                parts, lambda acc, i: (acc.astype(f32) + dy32[i] * inner[i]).astype(half),
                x.shape[1], np.dtype(half))
    if mask[2]:
        dbeta = _thread_buffers(parts, lambda acc, i: (acc.astype(f32) + dy32[i]).astype(half),
                                x.shape[1], np.dtype(half))
    return dx, dgamma, dbeta


def _map_reduce_sum(p: np.ndarray, q: np.ndarray, mad: Callable[..., np.ndarray]) -> np.ndarray:
    """vec::map2_reduce_all(p * q, +) over the last axis: whole vectors' products rounded
    and added lane-wise, the zero-padded last vector's fused into the lanes (FMA builds),
    then the lanes' shuffle-tree sum; a row shorter than a vector summed lane by lane."""
    size = p.shape[-1]
    width = capability.lanes(p.itemsize)
    if size < width:
        return seq_sum(p * q) if size else np.zeros(p.shape[:-1], p.dtype)
    whole = size // width
    acc = p[..., :width] * q[..., :width]
    for k in range(1, whole):
        acc += p[..., k * width:(k + 1) * width] * q[..., k * width:(k + 1) * width]
    tail = size - whole * width
    if tail:
        acc[..., :tail] = mad(p[..., whole * width:], q[..., whole * width:], acc[..., :tail])
    return lane_sum(acc)


def _thread_rows(rows: int) -> list[range]:
    """at::parallel_for(0, rows, 1)'s split: one block of ceil(rows / threads) rows a thread."""
    threads = min(capability.num_threads(), rows) if rows > 1 else 1
    chunk = -(-rows // threads) if rows else 0
    return [range(t * chunk, min(rows, (t + 1) * chunk)) for t in range(threads)]


def _thread_buffers(parts: list[range], step: Callable[[np.ndarray, int], np.ndarray],
                    size: int, dtype: np.dtype) -> np.ndarray:
    """Each thread's buffer accumulated over its rows by `step`, then the buffers summed in
    thread order from 0 (layer_norm's two-pass reduction of dgamma and dbeta)."""
    total = np.zeros(size, dtype)
    for rows in parts:
        acc = np.zeros(size, dtype)
        for i in rows:
            acc = step(acc, i)
        total = total + acc
    return total


# -- batch_norm (cpu/batch_norm_kernel.cpp, Normalization.cpp) -----------------------------


def _planar(x: np.ndarray) -> bool:
    """Whether batch_norm's contiguous kernel runs (an image of more than one element per
    channel); (N, C) and (N, C, 1, ...) inputs take its channels-last kernel."""
    return x.size > 0 and x.size // (x.shape[0] * x.shape[1]) > 1


def _seq_sum64(terms: np.ndarray) -> np.ndarray:
    """A double accumulator adding the last axis's values in order from 0."""
    return np.add.accumulate(terms.astype(np.float64), axis=-1)[..., -1] + 0.0


def batch_norm_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """batch_norm_cpu_collect_stats_kernel for a contiguous (N, C, *) input: each channel's
    mean and sum of squared deviations, in the dtype. With spatial dims (the contiguous
    kernel) a double accumulator walks the channel's elements batch by batch; without
    them (N, C: the channels-last kernel) each thread sums its block of rows in the dtype
    and the threads' sums are added in double, or, with no more rows than threads, one pass
    over the rows sums in the dtype (16 channels or fewer, or past 2,048, or one thread)
    or per channel in double."""
    n_batch, channels = x.shape[:2]
    count = x.size // channels
    mad = _fma(capability.fma_build(), x.dtype)
    with np.errstate(all="ignore"):
        if _planar(x):
            per_channel = np.moveaxis(x.reshape(n_batch, channels, -1), 1, 0)
            per_channel = per_channel.reshape(channels, count)
            mean = (_seq_sum64(per_channel) / count).astype(x.dtype)
            dev = per_channel - mean[:, None]
            return mean, _seq_sum64(dev * dev).astype(x.dtype)
        rows = x.reshape(count, channels)
        threads = capability.num_threads()
        if count <= threads and not (threads == 1 or channels <= 16 or channels > 2048):
            # rows no more than threads, channels in parallel: a double accumulator each
            mean = (_seq_sum64(rows.T) / count).astype(x.dtype)
            dev = rows - mean
            return mean, _seq_sum64((dev * dev).T).astype(x.dtype)
        if count <= threads:  # one pass over the rows in the dtype (channel tiles of 16)
            total = _rows_sum(range(count), lambda acc, i: acc + rows[i], channels, x.dtype)
            mean = total / x.dtype.type(count)
            return mean, _rows_sum(range(count), lambda acc, i: mad(rows[i] - mean,
                                                                    rows[i] - mean, acc),
                                   channels, x.dtype)
        parts = _thread_rows(count)
        sums = [_rows_sum(r, lambda acc, i: acc + rows[i], channels, x.dtype) for r in parts]
        mean = (_threads_sum64(sums) / count).astype(x.dtype)
        squares = [_rows_sum(r, lambda acc, i: mad(rows[i] - mean, rows[i] - mean, acc),
                             channels, x.dtype) for r in parts]
        return mean, _threads_sum64(squares).astype(x.dtype)


def _rows_sum(rows: range, step: Callable[[np.ndarray, int], np.ndarray], width: int,
              dtype: np.dtype) -> np.ndarray:
    """One thread's buffer: zeros, then `step(buffer, row)` over its block of rows."""
    acc = np.zeros(width, dtype)
    for i in rows:
        acc = step(acc, i)
    return acc


def _threads_sum64(parts: list[np.ndarray]) -> np.ndarray:
    """The second pass over per-thread buffers: a double accumulator from 0."""
    total = np.zeros(parts[0].shape, np.float64)
    for part in parts:
        total = total + part
    return total


def batch_norm_update(mean: np.ndarray, var_sum: np.ndarray, count: int, eps: float,
                      momentum: float, running_mean: np.ndarray | None,
                      running_var: np.ndarray | None) -> np.ndarray:
    """batch_norm_cpu_update_stats_template (compiled without FMA): the saved invstd
    1 / sqrt(var_sum / n + eps) in double from the dtype's quotient; the running stats
    updated in place with momentum in the dtype (the variance's product in double)."""
    f = mean.dtype.type
    m = f(momentum)
    with np.errstate(all="ignore"):
        var = var_sum / f(count)
        invstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(mean.dtype)
        if running_mean is not None:
            running_mean[...] = m * mean + (f(1) - m) * running_mean
        if running_var is not None:
            unbiased = (var_sum / f(count - 1)).astype(np.float64)
            running_var[...] = (np.float64(m) * unbiased
                                + ((f(1) - m) * running_var).astype(np.float64))
    return invstd


def batch_norm_apply(x: np.ndarray, mean: np.ndarray, invstd: np.ndarray,
                     weight: np.ndarray | None, bias: np.ndarray | None) -> np.ndarray:
    """batch_norm_cpu_kernel: alpha = invstd * w, beta = b - mean * alpha per channel,
    then x * alpha + beta (both fused in the FMA builds)."""
    mad = _fma(capability.fma_build(), x.dtype)
    channels = x.shape[1]
    w = np.ones(channels, x.dtype) if weight is None else weight
    b = np.zeros(channels, x.dtype) if bias is None else bias
    shape = (1, channels) + (1,) * (x.ndim - 2)
    with np.errstate(all="ignore"):
        alpha = invstd * w
        beta = mad(-mean, alpha, b)
        return np.asarray(mad(x, alpha.reshape(shape), beta.reshape(shape)), x.dtype)


def batch_norm_backward(dy: np.ndarray, x: np.ndarray, weight: np.ndarray | None,
                        mean: np.ndarray, invstd: np.ndarray, train: bool,
                        mask: tuple[bool, bool, bool]
                        ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """batch_norm_cpu_backward_kernel for a contiguous (N, C, *) input (`invstd` as the
    kernel computes it: the saved one in training, else 1 / sqrt(running_var + eps)).
    Per channel: sum(dy) and dotp = sum((x - mean) dy); dx = (dy - sum / n - (x - mean) k)
    * invstd * w with k = dotp invstd^2 / n in training, dy * invstd * w in evaluation;
    dweight = dotp * invstd, dbias = sum."""
    f = x.dtype.type
    mad = _fma(capability.fma_build(), x.dtype)
    n_batch, channels = x.shape[:2]
    count = x.size // channels
    shape = (1, channels) + (1,) * (x.ndim - 2)
    w = np.ones(channels, x.dtype) if weight is None else weight
    with np.errstate(all="ignore"):
        if _planar(x):  # the contiguous kernel
            planes = x.reshape(n_batch, channels, -1)
            grads = dy.reshape(planes.shape)
            centred = planes - mean[None, :, None]
            total64 = _seq_sum64(np.moveaxis(reduce_all_sum(grads), 0, -1))
            dotp64 = _seq_sum64(np.moveaxis(_map_reduce_sum(centred, grads, mad), 0, -1))
            total, dotp = total64.astype(x.dtype), dotp64.astype(x.dtype)
            grad_mean = (total64 / count).astype(x.dtype)
            d_weight = (dotp64 * invstd).astype(x.dtype)
        else:  # (N, C): the channels-last kernel, per-thread buffers in the dtype
            rows, grads = x.reshape(count, channels), dy.reshape(count, channels)
            parts = _thread_rows(count)
            total = _threads_sum64([_rows_sum(r, lambda acc, i: acc + grads[i], channels,
                                              x.dtype) for r in parts]).astype(x.dtype)
            dotp = _threads_sum64([_rows_sum(r, lambda acc, i: mad(rows[i] - mean, grads[i], acc),
                                             channels, x.dtype) for r in parts]).astype(x.dtype)
            grad_mean = total / f(count)
            d_weight = dotp * invstd
        dx = None
        if mask[0]:
            centred = x - mean.reshape(shape)
            if train:
                k = (dotp * invstd * invstd / f(count)).reshape(shape)
                rest = dy - grad_mean.reshape(shape)
                dx = mad(-centred, k, rest)
                if not _planar(x):  # channels-last: its partial last vector is not fused
                    tail = channels - channels % capability.lanes(x.itemsize)
                    dx[:, tail:] = rest[:, tail:] - centred[:, tail:] * k[:, tail:]
                dx = dx * invstd.reshape(shape) * w.reshape(shape)
            else:
                dx = dy * invstd.reshape(shape) * w.reshape(shape)
            dx = np.asarray(dx, x.dtype).reshape(x.shape)
    return dx, (d_weight if mask[1] else None), (total if mask[2] else None)


# -- batch_norm of a non-contiguous input (Normalization.cpp's TensorIterator paths) -------


def _in_memory_order(plane: np.ndarray, of: np.ndarray) -> np.ndarray:
    """`plane`'s elements in the order a serial TensorIterator over `of` (a channel of x,
    dim 1 squashed) walks them: `of`'s memory order, the largest stride outermost."""
    order = sorted(range(of.ndim), key=lambda d: -of.strides[d])
    return plane.transpose(order).reshape(-1)


def batch_norm_stats_strided(x: np.ndarray, momentum: float, eps: float,
                             running_mean: np.ndarray | None, running_var: np.ndarray | None
                             ) -> tuple[np.ndarray, np.ndarray]:
    """batch_norm_cpu_update_stats_template's non-contiguous path: the mean is at::mean over
    every dim but 1 (the cascade in this layout's order, divided by the count); each
    channel's squared deviations from it are added in double in the channel's memory
    order; invstd = 1 / sqrt(var_sum / n + eps) and the running stats (updated in place)
    in double, stored in the dtype."""
    f = x.dtype.type
    axes = (0,) + tuple(range(2, x.ndim))
    count = x.size // x.shape[1]
    with np.errstate(all="ignore"):
        mean = np.asarray(cascade_sum(x, axes, False) / f(count), x.dtype)
        invstd = np.empty_like(mean)
        for c in range(x.shape[1]):
            m = np.float64(mean[c])
            dev = _in_memory_order(x[:, c], x[:, c]).astype(np.float64) - m
            var_sum = _seq_sum64(dev * dev) if dev.size else np.float64(0)
            var = var_sum / count
            invstd[c] = 0 if var == 0 and eps == 0 else 1.0 / np.sqrt(var + eps)
            if running_mean is not None:
                running_mean[c] = momentum * m + (1 - momentum) * np.float64(running_mean[c])
            if running_var is not None:
                running_var[c] = (momentum * (var_sum / (count - 1))
                                  + (1 - momentum) * np.float64(running_var[c]))
    return mean, invstd


def batch_norm_apply_strided(x: np.ndarray, mean: np.ndarray, invstd: np.ndarray,
                             weight: np.ndarray | None, bias: np.ndarray | None) -> np.ndarray:
    """batch_norm_cpu_transform_input_template's TensorIterator path (compiled without
    FMA): ((x - mean) * invstd) * weight + bias in the dtype, into a row-major result."""
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    f = x.dtype.type
    w = f(1) if weight is None else weight.reshape(shape)
    b = f(0) if bias is None else bias.reshape(shape)
    with np.errstate(all="ignore"):
        out = ((x - mean.reshape(shape)) * invstd.reshape(shape)) * w + b
    return np.asarray(out, x.dtype, order="C")


def batch_norm_backward_strided(dy: np.ndarray, x: np.ndarray, weight: np.ndarray | None,
                                mean: np.ndarray, invstd: np.ndarray, train: bool
                                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """batch_norm_backward_cpu_template's TensorIterator path (input or grad_out not
    contiguous): sum = at::sum(grad_out) over every dim but 1; per channel dotp adds
    (x - mean) * dy in double in x's memory order; dx = (dy - sum / n - (x - mean) k) *
    invstd * w with k = (float) dotp * invstd * invstd / n (training), else dy * invstd *
    w; dweight = dotp * invstd; all in the dtype, compiled without FMA."""
    f = x.dtype.type
    channels = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    count = x.size // channels
    w = np.ones(channels, x.dtype) if weight is None else weight
    dx = np.empty(x.shape, x.dtype)
    d_weight = np.empty(channels, x.dtype)
    with np.errstate(all="ignore"):
        total = np.asarray(cascade_sum(dy, axes, False), x.dtype)
        for c in range(channels):
            centred = x[:, c] - mean[c]
            prod = centred * dy[:, c]  # in the dtype, then added in double in x's order
            dotp = _seq_sum64(_in_memory_order(prod, x[:, c]).astype(np.float64)) \
                if prod.size else 0.0
            if train:
                k = f(f(dotp) * invstd[c] * invstd[c]) / f(count)
                grad_mean = total[c] / f(count)
                dx[:, c] = (dy[:, c] - grad_mean - centred * k) * invstd[c] * w[c]
            else:
                dx[:, c] = dy[:, c] * invstd[c] * w[c]
            d_weight[c] = dotp * np.float64(invstd[c])
    return dx, d_weight, total


# -- group_norm (cpu/group_norm_kernel.cpp) ------------------------------------------------


def group_norm(x: np.ndarray, groups: int, weight: np.ndarray | None,
               bias: np.ndarray | None, eps: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GroupNormKernelImplInternal for a contiguous (N, C, HxW) input: each (sample,
    group) row's RowwiseMoments, rstd = 1 / sqrt(max(var, 0) + eps) in double (eps is a
    double there); y = (x - mean) * rstd without affine parameters, else
    scale * x + bias with scale = rstd * gamma and bias = beta - scale * mean (fused)."""
    n, c, hxw = x.shape
    mad = _fma(capability.fma_build(), x.dtype)
    mean, var = rowwise_moments(x.reshape(n * groups, -1))
    with np.errstate(all="ignore"):
        rstd = (1.0 / np.sqrt(np.maximum(var, 0).astype(np.float64) + eps)).astype(x.dtype)
        per_channel = (n, c, 1)
        m = np.repeat(mean.reshape(n, groups), c // groups, 1).reshape(per_channel)
        r = np.repeat(rstd.reshape(n, groups), c // groups, 1).reshape(per_channel)
        if weight is None and bias is None:
            y = (x - m) * r
        else:
            scale = r if weight is None else r * weight.reshape(1, c, 1)
            beta = np.zeros((1, c, 1), x.dtype) if bias is None else bias.reshape(1, c, 1)
            y = mad(scale, x, mad(-scale, m, np.broadcast_to(beta, scale.shape)))
    return np.asarray(y, x.dtype), mean.reshape(n, groups), rstd.reshape(n, groups)


def group_norm_backward(dy: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray,
                        gamma: np.ndarray | None, groups: int, mask: tuple[bool, bool, bool]
                        ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """GroupNormBackwardKernelImplInternal for contiguous (N, C, HxW) dy and x, mean and
    rstd (N, groups): (dX, dgamma, dbeta) for the outputs asked for.

    ComputeInternalGradients gives each (sample, channel) ds = sum(dy * x) (map2_reduce_all,
    its partial last vector fused for double, nothing fused for float) and db = sum(dy)
    (reduce_all); GroupNormInputBackward folds them per
    group with gamma (CalcDsDb: whole vectors of channels lane-wise, the lanes added in
    order, then the remaining channels one by one), c2 = (db mean - ds) rstd^3 / (D HxW),
    c3 = -c2 mean - db rstd / (D HxW) and dX = c1 dy + c2 x + c3 with c1 = rstd gamma;
    GammaBackward and BetaBackward add (ds - db mean) rstd and db over the samples in order.
    Which steps the FMA builds fuse was measured against torch 2.13 (AVX2, float32 and
    float64): the folds, c2's
    difference, c3 as fma(-db rstd, 1 / (D HxW), -c2 mean), dX as fma(c1, dy, c2 x) + c3,
    and GammaBackward's difference and accumulation.
    """
    n, c, hxw = x.shape
    d = c // groups
    f = x.dtype.type
    mad = _fma(capability.fma_build(), x.dtype)
    dx = dgamma = dbeta = None
    with np.errstate(all="ignore"):
        # (n, c); the partial last vector's product fused for double only (measured)
        ds = _map_reduce_sum(dy, x, _fma(capability.fma_build() and x.dtype == np.float64,
                                         x.dtype))
        db = reduce_all_sum(dy)
        m = mean.reshape(n, groups, 1)
        r = rstd.reshape(n, groups, 1)
        if mask[0]:
            g = np.ones((groups, d), x.dtype) if gamma is None else gamma.reshape(groups, d)
            ds_g = _fold_channels(ds.reshape(n, groups, d), g, mad)
            db_g = _fold_channels(db.reshape(n, groups, d), g, mad)
            s = f(1) / f(d * hxw)
            rs = r[..., 0]
            c2 = mad(db_g, mean, -ds_g) * rs * rs * rs * s
            c3 = mad(-(db_g * rs), s, -c2 * mean)
            c1 = r * g[None]  # (n, groups, d)
            dyg, xg = dy.reshape(n, groups, d, hxw), x.reshape(n, groups, d, hxw)
            dx = mad(c1[..., None], dyg, c2[..., None, None] * xg) + c3[..., None, None]
            dx = dx.reshape(n, c, hxw)
        if mask[1]:
            diff = mad(-db.reshape(n, groups, d), m, ds.reshape(n, groups, d))
            rr = np.broadcast_to(r, diff.shape)
            dgamma = np.zeros((groups, d), x.dtype)
            for i in range(n):
                dgamma = mad(diff[i], rr[i], dgamma)
            dgamma = dgamma.reshape(c)
        if mask[2]:
            dbeta = np.add.accumulate(db, axis=0)[-1] + f(0)
    return dx, dgamma, dbeta


def _fold_channels(v: np.ndarray, gamma: np.ndarray,
                   mad: Callable[..., np.ndarray]) -> np.ndarray:
    """CalcDsDb and its tail: sum over the last axis of v * gamma, whole vectors of
    channels accumulated lane-wise from zero, the lanes added in order, then the remaining
    channels one by one (fused in the FMA builds)."""
    d = v.shape[-1]
    width = capability.lanes(v.itemsize)
    whole = d // width * width
    acc = np.zeros(v.shape[:-1] + (width,), v.dtype)
    for k in range(0, whole, width):
        acc = mad(v[..., k:k + width], gamma[..., k:k + width], acc)
    total = seq_sum(acc)
    for j in range(whole, d):
        total = mad(v[..., j], gamma[..., j], total)
    return total


# -- weight_norm (cpu/WeightNormKernel.cpp) -------------------------------------------------


def weight_norm(v: np.ndarray, g: np.ndarray, first: bool) -> tuple[np.ndarray, np.ndarray]:
    """(w, norm) of `v` (rows, N) per row (`first`: the kernel for dim 0) or per column (the
    last-dim kernel). Per row: map_reduce_all(x * x, +), its sqrt, w = v * (g / norm). Per
    column: each thread's buffer of v * v summed over its rows (fused in FMA builds), the
    buffers summed in thread order, then w = v * (g / norm). WeightNormKernel.cpp's
    map_reduce_all adds its partial last vector's products unfused, FMA build or not
    (measured: fusing them differs from torch in the last bit for rows of 12, 20 and 28)."""
    mad = _fma(capability.fma_build(), v.dtype)
    with np.errstate(all="ignore"):
        if first:
            norm = np.sqrt(_map_reduce_sum(v, v, _fma(False, v.dtype)))
            return v * (g.reshape(-1) / norm)[:, None], norm
        rows, size = v.shape
        squares = _thread_buffers(_thread_rows(rows), lambda acc, i: mad(v[i], v[i], acc),
                                  size, v.dtype)
        norm = np.sqrt(squares)
        return v * (g.reshape(-1) / norm)[None, :], norm


def weight_norm_backward(grad_w: np.ndarray, v: np.ndarray, g: np.ndarray, norm: np.ndarray,
                         first: bool) -> tuple[np.ndarray, np.ndarray]:
    """(grad_v, grad_g) of weight_norm_backward_{first,last}_dim_kernel: the per-row (or
    per-column) sum of grad_w * v, grad_g = sum / norm, a = g / norm, b = a * grad_g / norm,
    grad_v = a * grad_w - b * v (its b * v fused into the subtraction in FMA builds). The
    per-row sums' partial last vector is added unfused, as in the forward."""
    mad = _fma(capability.fma_build(), v.dtype)
    g = g.reshape(-1)
    with np.errstate(all="ignore"):
        if first:
            sums = _map_reduce_sum(grad_w, v, _fma(False, v.dtype))
        else:
            rows, size = v.shape
            sums = _thread_buffers(_thread_rows(rows),
                                   lambda acc, i: mad(grad_w[i], v[i], acc), size, v.dtype)
        grad_g = sums / norm
        a = g / norm
        b = a * grad_g / norm
        a, b = (a[:, None], b[:, None]) if first else (a[None, :], b[None, :])
        return mad(-b, v, a * grad_w), grad_g
