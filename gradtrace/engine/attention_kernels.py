"""ATen's CPU flash-attention kernels (native/cpu/FlashAttentionKernel.cpp) in torch's order.

`F.scaled_dot_product_attention` on 4-d float inputs without dropout runs
`_scaled_dot_product_flash_attention_for_cpu`: per (batch, head) and block of 32/64/256
query rows it takes blocks of 512 keys, computes q @ k.T with cpublas::gemm (MKL's sgemm
or dgemm, called here with the same arguments), scales it (and adds the mask), keeps a
running row max and sum (online softmax: `exp_u20` on whole vectors, libm's exp on the
tail) and accumulates softmax @ v with a second gemm; the row sums divide at the end and
`max + log(sum)` is saved as the logsumexp. The backward kernel rebuilds each block's
softmax from that logsumexp (SLEEF's exp) and accumulates the three gradients with gemms.
"""
from __future__ import annotations

import numpy as np

from . import blas, capability, exactness, fp32, fp64, kernels
from .ops.softmax import scalar_exp, vector_exp
from .reduction_order import lane_sum, lanes, seq_sum


def q_split_size(q_len: int) -> int:
    """flash_attention_kernel_impl's query block for this query length."""
    return 256 if q_len >= 768 else 64 if q_len >= 192 else 32


KV_SPLIT = 512


def scalar_log(x: np.ndarray) -> np.ndarray:
    """std::log of the kernel's scalar code (libm's)."""
    return kernels.scalar_lib(x.dtype)["log"](x)

_F32 = np.float32
# Vectorized<float>::exp_u20 (vec256_float.h / vec512_float.h): a degree-5 polynomial
_U20 = tuple(_F32(c) for c in (0.00828929059, 0.0418978221, 0.166676521, 0.499991506,
                               0.999999701, 1.0))
_LOG2E = np.array(0x3FB8AA3B, np.uint32).view(_F32)
_LN2 = np.array(0x3F317218, np.uint32).view(_F32)
_LN_FLT_MIN = np.array(0xC2AEAC50, np.uint32).view(_F32)
_LN_FLT_MAX = np.array(0x42B17218, np.uint32).view(_F32)


def exp_u20(x: np.ndarray) -> np.ndarray:
    """Vectorized<T>::exp_u20: the FMA builds' fast float exp (clamp, 2^n split, Horner in
    FMAs, times 2^(n-1) times 2); SLEEF's exp for double; libm's per lane in the default
    build."""
    if x.dtype != _F32:
        return vector_exp(x)
    if not capability.fma_build():
        return scalar_exp(x)
    with np.errstate(invalid="ignore", over="ignore"):
        below = x < _LN_FLT_MIN
        src = np.maximum(np.minimum(x, _LN_FLT_MAX), _LN_FLT_MIN)
        fx = np.floor(fp32.fma(src, _LOG2E, _F32(0.5))).astype(_F32)
        r = fp32.fma(-fx, _LN2, src)
        res = np.full_like(r, _U20[0])
        for c in _U20[1:]:
            res = fp32.fma(r, res, c)
        n = (fx - _F32(1)).astype(np.int32)
        pow2 = ((n + 127) << 23).astype(np.uint32).view(_F32)
        pow2 = np.where(below, _F32(0), pow2)
        return (res * pow2 * _F32(2)).astype(_F32)


def _scale_add(a: np.ndarray, factor: np.floating, b: np.ndarray) -> np.ndarray:
    """_scale_attn_mask_fusion_kernel: a * scale + mask, one FMA per element in the FMA
    builds (GCC contracts the Vectorized multiply and add; measured)."""
    if capability.fma_build() and a.dtype in (_F32, np.float64):
        fused = fp32.fma if a.dtype == _F32 else fp64.fma
        return np.asarray(fused(a, factor, b.astype(a.dtype)), a.dtype)
    return (a * factor + b.astype(a.dtype)).astype(a.dtype)


def _fused(a: np.floating, b: np.floating, c: np.floating) -> np.floating:
    """a * b + c as the kernel's scalar code computes it (one FMA in the FMA builds)."""
    if not capability.fma_build():
        return a * b + c
    fused = fp32.fma if np.asarray(a).dtype == _F32 else fp64.fma
    return np.asarray(fused(np.array([a]), np.array([b]), np.array([c])))[0]


def _exp_reduce_sum(row: np.ndarray, top: np.floating) -> tuple[np.ndarray, np.floating]:
    """_exp_reduce_sum_fusion_kernel: exp(row - max) (exp_u20 over whole vectors, std::exp
    over the tail) and its sum (lanes added vector by vector, the shuffle tree, then the
    tail one by one)."""
    width = lanes(row.dtype)
    split = row.size - row.size % width
    out = np.empty_like(row)
    shifted = row - top
    out[:split] = exp_u20(shifted[:split])
    acc = np.zeros(width, row.dtype)
    for k in range(0, split, width):
        acc = acc + out[k:k + width]
    total = lane_sum(acc)
    if split < row.size:
        out[split:] = scalar_exp(shifted[split:])
        for value in out[split:]:
            total = row.dtype.type(total + value)
    return out, row.dtype.type(total)


def _gemm(transa: bool, transb: bool, m: int, n: int, k: int, alpha: float, a: np.ndarray,
          lda: int, b: np.ndarray, ldb: int, beta: float, c: np.ndarray, ldc: int) -> None:
    """cpublas::gemm (column-major, C = alpha op(A) op(B) + beta C) on contiguous arrays:
    MKL with torch's arguments, else numpy in float64 rounded once (noted as not exact)."""
    routines = blas._routines(c.dtype)
    if routines is not None and _NESTED[0]:
        from . import mkl

        mkl.load().set_threads(1)  # inside at::parallel_for's threads MKL runs on one
    if routines is not None and blas._gemm(routines, transa, transb, m, n, k, alpha, a, lda,
                                           b, ldb, beta, c, ldc):
        return
    exactness.note("flash attention's gemm ran without MKL: float32 products may differ "
                   "from torch in the last bits")
    strided = np.lib.stride_tricks.as_strided
    op_a = strided(a, (m, k), (lda * a.itemsize, a.itemsize) if transa
                   else (a.itemsize, lda * a.itemsize))
    op_b = strided(b, (k, n), (ldb * b.itemsize, b.itemsize) if transb
                   else (b.itemsize, ldb * b.itemsize))
    cm = strided(c, (m, n), (c.itemsize, ldc * c.itemsize))
    product = op_a.astype(np.float64) @ op_b.astype(np.float64)
    cm[...] = (alpha * product + (beta * cm.astype(np.float64) if beta else 0)).astype(c.dtype)


def _aligned(size: int, dtype: np.dtype) -> np.ndarray:
    """A flat buffer starting on a 64-byte boundary, as torch's CPU allocator gives: MKL's
    small-matrix kernels take other paths (and orders) for other alignments."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.empty(size + 64 // itemsize, dtype)
    skip = (-raw.ctypes.data % 64) // itemsize
    return raw[skip:skip + size]


def _aligned_copy(x: np.ndarray) -> np.ndarray:
    out = _aligned(x.size, x.dtype).reshape(x.shape)
    out[...] = x
    return out


_NESTED = [False]  # whether the gemms run inside at::parallel_for's OpenMP team


def _thread_of(items: int) -> list[int]:
    """at::parallel_for(0, items, 1): which thread runs each item (one block a thread);
    sets _NESTED for the gemms that follow."""
    threads = max(1, min(capability.num_threads(), items))
    _NESTED[0] = threads > 1
    chunk = -(-items // threads)
    return [z // chunk for z in range(items)]


def _heads(q: np.ndarray, k: np.ndarray) -> int:
    """Query heads per key/value head (grouped-query attention)."""
    return q.shape[1] // k.shape[1]


def flash_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None,
                  is_causal: bool, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """cpu_flash_attention: (output, logsumexp) of (B, H, L, E) inputs; `mask` is the float
    mask broadcast to (B, H, L, S), `scale` the softmax scale (a double)."""
    dtype = q.dtype
    t = dtype.type
    batch, heads, q_len, head_size = q.shape
    kv_len = k.shape[2]
    q_split = min(q_split_size(q_len), q_len)
    kv_split = min(KV_SPLIT, kv_len)
    group = _heads(q, k)
    factor = t(scale)
    neg_inf = t(-np.inf)
    q, k, v = (_aligned_copy(x) for x in (q, k, v))
    out = np.empty(q.shape, dtype)
    lse = np.empty((batch, q_len, heads), dtype).transpose(0, 2, 1)
    q_slices = -(-q_len // q_split)
    # each thread's buffer: qk (q_split x kv_split), max, sum, dst (q_split x head_size)
    per_thread = q_split * kv_split + 2 * q_split + q_split * head_size
    owner = _thread_of(batch * heads * q_slices)
    buf = _aligned(per_thread * (max(owner) + 1), dtype)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for z, thread in enumerate(owner):
            i, j, m = z // (heads * q_slices), z // q_slices % heads, z % q_slices * q_split
            qh, kh, vh = q[i, j], k[i, j // group], v[i, j // group]
            base = thread * per_thread
            dst_at = base + q_split * kv_split + 2 * q_split
            rows = min(q_split, q_len - m)
            top = np.full(rows, neg_inf)
            total = np.zeros(rows, dtype)
            dst = buf[dst_at:dst_at + rows * head_size].reshape(rows, head_size)
            num_keys = min(m + rows, kv_len) if is_causal else kv_len
            for n in range(0, num_keys, kv_split):
                cols = min(kv_split, kv_len - n)
                qk = buf[base:base + rows * cols].reshape(rows, cols)
                _gemm(True, False, cols, rows, head_size, 1.0, kh[n:n + cols], head_size,
                      qh[m:m + rows], head_size, 0.0, qk, cols)
                if is_causal and num_keys - n <= kv_split:
                    for row in range(rows):
                        qk[row, max(m + row - n + 1, 0):] = neg_inf
                if mask is None:
                    qk[...] = qk * factor
                else:
                    qk[...] = _scale_add(qk, factor, mask[i, j, m:m + rows, n:n + cols])
                for row in range(rows):
                    new_top = max(top[row], qk[row].max())
                    if new_top == neg_inf:
                        qk[row] = 0
                        continue
                    qk[row], row_sum = _exp_reduce_sum(qk[row], new_top)
                    rescale = scalar_exp(np.array([top[row] - new_top], dtype))[0]
                    total[row] = _fused(rescale, total[row], row_sum)
                    top[row] = new_top
                    if n > 0:
                        dst[row] = dst[row] * rescale
                _gemm(False, False, head_size, rows, cols, 1.0, vh[n:n + cols], head_size,
                      qk, cols, 0.0 if n == 0 else 1.0, dst, head_size)
            top = np.where(top == neg_inf, t(0), top)
            total = np.where(total == 0, t(1), total)
            out[i, j, m:m + rows] = dst * (t(1) / total)[:, None]
            lse[i, j, m:m + rows] = top + scalar_log(total)
    return out, lse


def _dot_rows(g: np.ndarray, o: np.ndarray) -> np.ndarray:
    """vec::map2_reduce_all(g * o, +) per row: whole vectors' products added lane-wise, the
    zero-padded last vector's products rounded and added (not fused: measured), then the
    lanes' shuffle tree; a row shorter than a vector summed lane by lane."""
    size = g.shape[-1]
    width = lanes(g.dtype)
    if size < width:
        return seq_sum(g * o)
    whole = size // width
    acc = g[..., :width] * o[..., :width]
    for k in range(1, whole):
        acc = acc + g[..., k * width:(k + 1) * width] * o[..., k * width:(k + 1) * width]
    tail = size - whole * width
    if tail:
        acc[..., :tail] += g[..., whole * width:] * o[..., whole * width:]
    return lane_sum(acc)


def flash_backward(grad_out: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray,
                   out: np.ndarray, lse: np.ndarray, mask: np.ndarray | None, is_causal: bool,
                   scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """cpu_flash_attention_backward: (grad_q, grad_k, grad_v), each block's softmax rebuilt
    from the logsumexp; a key/value head shared by a group of query heads (GQA) sums the
    group's gradients in head order."""
    dtype = q.dtype
    batch, heads, q_len, head_size = q.shape
    kv_len = k.shape[2]
    group = _heads(q, k)
    q_split = min(q_split_size(q_len), q_len)
    kv_split = min(KV_SPLIT, kv_len)
    factor = float(dtype.type(scale))
    grad_out, q, k, v, out = (np.ascontiguousarray(x, dtype) for x in (grad_out, q, k, v, out))
    # torch's gradients are (B, L, H, E) buffers: a row of one head is H * E apart
    grad_q = np.zeros((batch, q_len, heads, head_size), dtype)
    grad_k = np.zeros((batch, kv_len, heads, head_size), dtype)
    grad_v = np.zeros((batch, kv_len, heads, head_size), dtype)
    ld = heads * head_size
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(batch):
            for j in range(heads):
                qh, kh, vh, go = q[i, j], k[i, j // group], v[i, j // group], grad_out[i, j]
                for m in range(0, q_len, q_split):
                    rows = min(q_split, q_len - m)
                    dsum = _dot_rows(go[m:m + rows], out[i, j, m:m + rows])
                    num_keys = min(m + rows, kv_len) if is_causal else kv_len
                    for n in range(0, num_keys, kv_split):
                        cols = min(kv_split, kv_len - n)
                        attn = np.empty((rows, cols), dtype)
                        _gemm(True, False, cols, rows, head_size, factor, kh[n:n + cols],
                              head_size, qh[m:m + rows], head_size, 0.0, attn, cols)
                        if mask is not None:
                            attn = (attn + mask[i, j, m:m + rows, n:n + cols]).astype(dtype)
                        attn = vector_exp(attn - lse[i, j, m:m + rows, None])
                        if is_causal and num_keys - n <= kv_split:
                            for row in range(rows):
                                attn[row, max(m + row - n + 1, 0):] = 0
                        attn = np.ascontiguousarray(attn)
                        _gemm(False, True, head_size, cols, rows, 1.0, go[m:m + rows],
                              head_size, attn, cols, 1.0, grad_v[i, n:, j], ld)
                        grad_attn = np.empty((rows, cols), dtype)
                        _gemm(True, False, cols, rows, head_size, 1.0, vh[n:n + cols],
                              head_size, go[m:m + rows], head_size, 0.0, grad_attn, cols)
                        grad_attn = np.ascontiguousarray(attn * (grad_attn - dsum[:, None]))
                        _gemm(False, False, head_size, rows, cols, factor, kh[n:n + cols],
                              head_size, grad_attn, cols, 1.0, grad_q[i, m:, j], ld)
                        _gemm(False, True, head_size, cols, rows, factor, qh[m:m + rows],
                              head_size, grad_attn, cols, 1.0, grad_k[i, n:, j], ld)
    grad_q, grad_k, grad_v = (np.swapaxes(g, 1, 2) for g in (grad_q, grad_k, grad_v))
    if group > 1:
        shape = (batch, heads // group, group, kv_len, head_size)
        grad_k = seq_sum(np.moveaxis(grad_k.reshape(shape), 2, -1))
        grad_v = seq_sum(np.moveaxis(grad_v.reshape(shape), 2, -1))
    return grad_q, grad_k, grad_v
