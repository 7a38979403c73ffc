"""oneDNN's float32 matrix products as its LSTM primitive runs them, step for step in numpy.

torch computes a float32 `nn.LSTM` with oneDNN (engine/ops/rnn.py). A time step's gates are
two products added into one buffer: the layer product `W_ih · x` (for all time steps at once
while the batch is under 128) and the iteration product `W_hh · h` added into it.

* With grad mode on, oneDNN runs its `ref` RNN (forward_training), which calls
  `extended_sgemm(..., force_jit_nocopy_gemm=True)` (src/cpu/gemm/gemm.cpp, Apache-2.0).
  Below AVX-512 that is (`sgemm`):
  - a single column goes to the matrix-vector kernel (x64/gemm/gemv_driver.cpp): every
    product fused-multiply-added into the output in column order; a short, wide matrix has
    its columns split between threads (`is_short_fat`) and the partial sums added after; a
    single row goes to the transposed one (`_gemv_t`: lanes of dot products);
  - anything else goes to jit_avx_gemm_f32's no-copy kernels (x64/gemm/f32/
    jit_avx_gemm_f32.cpp): threads split the rows and columns (gemm_utils_f32.cpp
    `calc_nthr_nocopy_avx`), the driver blocks K by 256, rows by 4032 and columns by 48, and
    each register tile of 16 (or a tail of 8) rows and 6 (or fewer) columns accumulates over
    K in fused multiply-adds, in two interleaved accumulators (even and odd k, added at the
    end) where its registers allow, with separate multiplies and adds for 1 or 2 columns.
* With grad mode off oneDNN runs its `brgemm` RNN (forward_inference), whose products are
  one fused multiply-add chain each (`chained`), the iteration's continuing the layer's when
  the input and hidden sizes are equal and the batch has more than one row (one batch-reduce
  call over both, measured), else added to it.

Measured bit for bit against torch 2.13 (oneDNN v3.12) as an AVX2 machine: every output of
random LSTMs (input size < 600, hidden < 300, batch < 70, 1 and 2 threads).
"""
from __future__ import annotations

import math

import numpy as np

from .fp32 import FmaChain

_F32 = np.float32


# -- the matrix-vector kernel (one column) ------------------------------------------------


def _gemv_threads(m: int, n: int, nthr: int) -> int:
    """gemv_driver.cpp thread_checker for float32 on AVX2 (m rows, n columns)."""
    if m * n + 288 * n < 41700:
        return 1
    if m >= 20000 and n <= 200:
        return nthr
    band = n // nthr
    if nthr <= 12 and band < 32:
        if m * band < 2048:
            return 1
    elif nthr <= 12 and m * band < 4096:
        return 1
    return nthr


def _part_1d(n: int, ithr: int, nthr: int) -> tuple[int, int]:
    """gemv_driver.cpp part_1d for float32 without an address: (offset, size)."""
    extra, width = n % nthr, n // nthr
    if ithr < extra:
        size = width + 1
        return ithr * size, size
    return n - (nthr - ithr) * width, width


def _chain_columns(a64: np.ndarray, x64: np.ndarray, y: np.ndarray, k0: int, k1: int,
                   chain: FmaChain) -> None:
    for k in range(k0, k1):
        chain.step(a64[:, k], x64[k], y)


def _gemv(a: np.ndarray, x: np.ndarray, y: np.ndarray, nthr: int) -> None:
    """y (M,) += a (M, K) · x (K,), as the no-transpose gemv threading driver does."""
    m, n = a.shape
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    chain = FmaChain(a64, x64)
    goal = _gemv_threads(m, n, nthr)
    if goal == 1 or not (m <= goal * 500 and n >= goal * 128):
        _chain_columns(a64, x64, y, 0, n, chain)  # (a split of the rows changes no sum)
        return
    parts = []
    for ithr in range(goal):
        off, size = _part_1d(n, ithr, goal)
        part = y if ithr == 0 else np.zeros_like(y)
        _chain_columns(a64, x64, part, off, off + size, chain)
        parts.append(part)
    for part in parts[1:]:
        y += part


def _lanes_sum(v: np.ndarray) -> np.ndarray:
    """The 8 lanes of a vector summed as vhaddps, vperm2f128, vaddps, vhaddps do."""
    return (((v[:, 0] + v[:, 1]) + (v[:, 4] + v[:, 5]))
            + ((v[:, 2] + v[:, 3]) + (v[:, 6] + v[:, 7])))


def _gemv_t(a: np.ndarray, bt: np.ndarray, y: np.ndarray) -> None:
    """y (N,) += bt (N, K) · a (K,), a row times a matrix (jit_avx_gemv_t_f32_kern)."""
    dot_rows(bt, a[None], y)


def dot_rows(rows: np.ndarray, vectors: np.ndarray, y: np.ndarray) -> None:
    """y (N,) += each row of `rows` (N, K) dotted with its vector (`vectors`, (N, K) or
    (1, K) for one shared by all), in jit_avx_gemv_t_f32_kern's order: per output, 8 lanes
    fused-multiply-add 16 elements a step (two vectors), their sum added into y, then what
    is left in pieces of 8, 4, 2 and 1, each summed and added on its own. (Many vectors at
    once: a depthwise convolution's weight gradient is one such product per channel.)"""
    n, k = rows.shape
    full = k - k % 16
    if full:
        lanes = np.zeros((n, 8), _F32)
        chain = FmaChain()
        rows64, vec64 = rows.astype(np.float64), vectors.astype(np.float64)
        for start in range(0, full, 8):
            chain.step(rows64[:, start:start + 8], vec64[:, start:start + 8], lanes)
        y += _lanes_sum(lanes)
    start = full
    for piece in (8, 4, 2, 1):
        if (k - full) & piece:
            lanes = np.zeros((n, 8), _F32)
            lanes[:, :piece] = rows[:, start:start + piece] * vectors[:, start:start + piece]
            y += _lanes_sum(lanes)
            start += piece


# -- the no-copy GEMM kernels -------------------------------------------------------------


def _gemm_threads(m: int, n: int, k: int, nthr: int) -> int:
    """gemm_driver.cpp adjust_thread_count for float32 on AVX2 (8 lanes)."""
    if n > 50 and m <= 3:
        return nthr
    if m > 10 * n and n < nthr and m // nthr < 8 * 3:
        nthr = max(m // 8 // 3, 1)
    cycles = m * n * k / (2.0 * 2.0 * 8) * 2.0
    if nthr <= 4:
        if cycles < 3000.0:
            return 1
        i = nthr
        while i > 1 and not 3000.0 * i < cycles * (i - 1):
            i -= 1
        return i
    if cycles < 4000.0 + 2 * 500.0:
        return 1
    i = nthr
    while i > 1:
        if (4000.0 + i * 500.0) * i < cycles * (i - 1):
            break
        i -= 2 if i < 10 else 4 if i < 30 else 8
    return max(i, 1)


def _partition(m: int, n: int, k: int, nthr: int) -> tuple[int, int, int, int, int, int]:
    """gemm_utils_f32.cpp calc_nthr_nocopy_avx: threads over (m, n, k) and their blocks."""
    if nthr == 1:
        return 1, 1, 1, m, n, k
    nm, nn, nk = -(-m // 64), -(-n // 48), 1
    other = 1
    while nm * nn * other < nthr and k // (other + 1) > 384:
        other += 1
        if (nthr // other) * other > 0.9 * nthr:
            nk = other
    nthr //= nk
    if nm == 1:
        nn = nthr
    if nn == 1:
        nm = nthr
    while nm * nn > nthr:
        if nm > nn:
            nm -= 1
        else:
            nn -= 1
    while nm * nn < nthr:
        if nm < nn:
            nm += 1
        else:
            nn += 1
    if nm * nn > nthr and nm > 1 and nn > 1:
        if nm <= nn:
            nm = min(int(math.sqrt(nthr)), -(-m // 16))
            nn = nthr // nm
            while nm > 1 and nm * nn != nthr:
                nm -= 1
                nn = nthr // nm
        else:
            nn = min(int(math.sqrt(nthr)), n)
            nm = nthr // nn
            while nn > 1 and nm * nn != nthr:
                nn -= 1
                nm = nthr // nn
    mb = -(-m // nm) + 15
    mb -= mb % 16
    nb = -(-n // nn)
    kb = -(-k // nk) + 3
    kb -= kb % 4
    if mb * nm > m:
        nm = -(-m // mb)
    if nb * nn > n:
        nn = -(-n // nb)
    if kb * nk > k:
        nk = -(-k // kb)
    return nm, nn, nk, mb, nb, kb


def _blocks(size: int, block: int, half_above: int) -> list[tuple[int, int]]:
    """sgemm_nocopy_driver's blocking of one dimension: `block` while twice as much is
    left, then the rest in one piece, or in two halves when it exceeds `half_above`."""
    out, start = [], 0
    while start < size:
        left = size - start
        step = block if left >= 2 * block else (left + 1) // 2 if left > half_above else left
        out.append((start, start + step))
        start += step
    return out


def _tiles(m: int, n: int) -> list[tuple[slice, slice, bool, bool]]:
    """A kernel call's register tiles, grouped: (rows, columns, split, fused). Rows go in
    16s, then a tail over 8 (a 16-row tile) or of at most 8; columns in 6s, then the rest.
    16x4 to 16x6 tiles have no registers for a second accumulator; 1- and 2-column tiles
    multiply and add separately."""
    full_m, full_n = m - m % 16, n - n % 6
    row_groups = [(slice(0, full_m), 16)] if full_m else []
    if m > full_m:
        row_groups.append((slice(full_m, m), 16 if m - full_m > 8 else 8))
    col_groups = [(slice(0, full_n), 6)] if full_n else []
    if n > full_n:
        col_groups.append((slice(full_n, n), n - full_n))
    return [(rows, cols, not (unroll == 16 and width >= 4), width >= 3)
            for rows, unroll in row_groups for cols, width in col_groups]


def _tile_sum(a: np.ndarray, bt: np.ndarray, a64: np.ndarray, bt64: np.ndarray, split: bool,
              fused: bool) -> np.ndarray:
    """Σ_k bt[:, k] a[:, k] as a tile accumulates it: (columns, rows)."""
    k = a.shape[1]
    shape = (bt.shape[0], a.shape[0])
    chains = (FmaChain(), FmaChain())

    def step(acc: np.ndarray, kk: int, which: int) -> None:
        if fused:
            chains[which].step(bt64[:, kk, None], a64[None, :, kk], acc)
        else:
            acc += bt[:, kk, None] * a[None, :, kk]

    even = np.zeros(shape, _F32)
    paired = k & ~1
    if split:
        odd = np.zeros(shape, _F32)
        for kk in range(0, paired, 2):
            step(even, kk, 0)
            step(odd, kk + 1, 1)
        even += odd
    else:
        for kk in range(paired):
            step(even, kk, 0)
    if k & 1:
        step(even, k - 1, 0)
    return even


def _nocopy(a: np.ndarray, bt: np.ndarray, out: np.ndarray, accumulate: bool,
            trans_b: bool) -> None:
    """sgemm_nocopy_driver: out (N, M) = [out +] a (M, K) · btᵀ, block by block (K by 96
    for a transposed B)."""
    m, k = a.shape
    n = bt.shape[0]
    a64, bt64 = a.astype(np.float64), bt.astype(np.float64)
    bk = 96 if trans_b else 256
    for k0, k1 in _blocks(k, bk, bk):
        for m0, m1 in _blocks(m, 4032, 4032 + 2016):
            for n0, n1 in _blocks(n, 48, 48 + 24):
                ab, bb = a[m0:m1, k0:k1], bt[n0:n1, k0:k1]
                ab64, bb64 = a64[m0:m1, k0:k1], bt64[n0:n1, k0:k1]
                block = out[n0:n1, m0:m1]
                for rows, cols, split, fused in _tiles(m1 - m0, n1 - n0):
                    acc = _tile_sum(ab[rows], bb[cols], ab64[rows], bb64[cols], split, fused)
                    if accumulate or k0 > 0:
                        block[cols, rows] += acc
                    else:
                        block[cols, rows] = acc


def sgemm(a: np.ndarray, bt: np.ndarray, c: np.ndarray | None, threads: int,
          trans_b: bool = False, trans_a: bool = False) -> np.ndarray:
    """`extended_sgemm('T' if trans_a else 'N', 'T' if trans_b else 'N', M, N, K, 1, a, b,
    beta, c)` as oneDNN's RNN and gemm:jit convolutions call it, on AVX2: (N, M) = [c +]
    bt · aᵀ, with a (M, K) and bt (N, K) float32 (beta 1 with `c`, else 0); `trans_b`
    changes only the K blocking (and makes a single row of outputs gemv_n's column chain
    of b instead of gemv_t's dot products), `trans_a` (a stored K-major) makes a single
    column of outputs gemv_t's dot products instead of gemv_n's column chain."""
    m, k = a.shape
    n = bt.shape[0]
    out = np.zeros((n, m), _F32) if c is None else np.array(c, _F32)
    if k == 0 or m == 0 or n == 0:
        return out
    if n == 1:
        if trans_a:
            _gemv_t(bt[0], a, out[0])
        else:
            _gemv(a, bt[0], out[0], threads)
        return out
    if m == 1:
        if trans_b:  # ('N', 'T'): gemv_n of b by a's row (gemm:jit's data gradient of one
            _gemv(bt, a[0], out[:, 0], threads)  # output position, measured)
        else:
            _gemv_t(a[0], bt, out[:, 0])
        return out
    nm, nn, nk, mb, nb, kb = _partition(m, n, k, _gemm_threads(m, n, k, threads))
    for im in range(nm):
        rows = slice(mb * im, min(mb * (im + 1), m))
        for jn in range(nn):
            cols = slice(nb * jn, min(nb * (jn + 1), n))
            region = out[cols, rows]
            # the first K range goes into the output, the others into buffers added after
            partials = []
            for ik in range(nk):
                ks = slice(kb * ik, min(kb * (ik + 1), k))
                target = region if ik == 0 else np.zeros_like(region)
                _nocopy(a[rows, ks], bt[cols, ks], target, c is not None and ik == 0, trans_b)
                partials.append(target)
            for part in partials[1:]:
                region += part
    return out


def chained(a: np.ndarray, bt: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """(N, M) = [acc +] bt · aᵀ as one fused multiply-add chain over K per output, from
    zero or continuing `acc` (the brgemm RNN's products)."""
    out = np.zeros((bt.shape[0], a.shape[0]), _F32) if acc is None else acc
    a64, bt64 = a.astype(np.float64), bt.astype(np.float64)
    chain = FmaChain(a64, bt64)
    for kk in range(a.shape[1]):
        chain.step(bt64[:, kk, None], a64[None, :, kk], out)
    return out
