"""torch's CPU normalization kernels (layer_norm, batch_norm, group_norm, forward and
backward) in their order of operations, in vectorised numpy over rows.

All of them start from ATen's RowwiseMoments (cpu/moments_utils.h): each row's mean and
variance by Welford's algorithm over vectors of `capability.lanes()` elements, in chunks
of 16 vectors, the chunks merged in a cascade (AddMomentsVec), then a scalar Welford tail,
and the lanes merged into it one by one (AddMoments). Which `a * b + c` steps the FMA
builds fuse was measured against torch 2.13 (AVX2): the chunk loop and the lane merge
fuse, the scalar tail does not, and the cascade merge computes its m2 term as
fma(delta, delta * c * m0, m2 + m2_add). The `default` build fuses nothing.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import capability, fp64
from .fp32 import fma as fma32
from .reduction_order import lane_sum, reduce_all_sum, seq_sum

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
    """AddMomentsVec: merge (m0_add, m1_add, m2_add) into (m0, m1, m2)."""
    f = m1.dtype.type
    total = m0 + m0_add
    c = f(0) if total == 0 else f(m0_add) / f(total)
    delta = m1_add - m1
    return [total, m1 + c * delta, mad(delta, delta * c * f(m0), m2 + m2_add)]


# -- layer_norm (cpu/layer_norm_kernel.cpp) ------------------------------------------------


def layer_norm(x: np.ndarray, gamma: np.ndarray | None, beta: np.ndarray | None,
               eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LayerNormKernelImplInternal on the (M, N) rows of x: (y, mean, rstd). With both
    gamma and beta, vec::map3's `(x - mean) * rstd * gamma + beta` fuses its last step; with
    either missing, the scalar loop's does (and a missing gamma's `* 1` folds away)."""
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
    across the threads' buffers."""
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
