"""The float arithmetic of torch 2.13's CPU upsampling kernels for the nearest and linear
modes (1-d, 2-d, 3-d), in the order its AVX2 build computes them (measured bit for bit
against torch, float32 and float64).

Forward (cpu/UpSampleKernel.cpp) takes one of two kernels:
- upsample_generic_Nd_kernel_impl (Interpolate<n, ..., 2>): the last dimension first, each
  level `t0·w0 + t1·w1` evaluated as fma(t0, w0, t1·w1);
- cpu_upsample_linear_channels_last, which bilinear uses when the input is channels-last
  with more than 3 channels, or the output's H + W is at most 128, or one thread runs 3
  channels (trilinear only for channels-last input with more than 3 channels): each output
  is Σ corner·weight over the 4 (8) corners with the weights multiplied out first
  (h·w, (d·h)·w); channels in whole 256-bit vectors sum from the last corner inwards
  (fma(c_k, w_k, ...fma(c_last, w_last, c_prev·w_prev))), the channels past the last whole
  vector (the scalar tail) from the first corner on (fma(c_k, w_k, ...fma(c0, w0, c1·w1))).
Nearest copies values; its two kernels differ only in how they compute the indices.

Backward (cpu/UpSampleMoreKernel.cpp) zeroes the input gradient and adds each output's
gradient into its sources in output order, corners in order: nearest with plain adds,
linear with `acc = fma(weight, grad, acc)`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import capability
from ..layouts import dense_in_format, is_channels_last, suggests_channels_last
from .upsample_index import fma, linear_taps, nearest_generic_idx, nearest_idx

Taps = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def channels_last_kernel(a: np.ndarray, output_size: tuple[int, ...], mode: str) -> bool:
    """Whether ATen runs its channels-last (vectorised over channels) kernel."""
    dims, channels = a.ndim - 2, a.shape[1]
    if dims == 2:
        return ((is_channels_last(a) and channels > 3) or sum(output_size) <= 128
                or (mode == "bilinear" and capability.num_threads() == 1 and channels == 3))
    return dims == 3 and is_channels_last(a) and channels > 3


def nearest_forward(a: np.ndarray, output_size: tuple[int, ...], scales: tuple[float | None, ...],
                    exact: bool) -> np.ndarray:
    """upsample_nearest{1,2,3}d / _upsample_nearest_exact{1,2,3}d: a gather."""
    legacy = channels_last_kernel(a, output_size, "nearest")
    out = a
    for d, (size, scale) in enumerate(zip(output_size, scales, strict=True)):
        in_size = a.shape[2 + d]
        idx = (nearest_idx(size, in_size, scale, exact) if legacy
               else nearest_generic_idx(size, in_size, scale, exact, a.dtype))
        out = np.take(out, idx, axis=2 + d)
    return dense_in_format(out, suggests_channels_last(a))


def _corners(taps: list[Taps], dtype: np.dtype) -> tuple[list[tuple[np.ndarray, ...]],
                                                         list[np.ndarray]]:
    """For each corner (0/1 per dimension, the last dimension fastest): its per-dimension
    index arrays and its weight over the output grid, multiplied left to right."""
    dims = len(taps)
    indices, weights = [], []
    for bits in itertools.product((0, 1), repeat=dims):
        idx, weight = [], None
        for d, b in enumerate(bits):
            shape = [1] * dims
            shape[d] = -1
            idx.append(taps[d][b].reshape(shape))
            lam = taps[d][2 + b].reshape(shape)
            weight = lam if weight is None else (weight * lam).astype(dtype)
        indices.append(tuple(idx))
        weights.append(np.asarray(weight, dtype))
    return indices, weights


_CHUNK = 1 << 16  # elements per numpy pass: fp32/fp64.fma run several passes, kept in cache


def _row_chunks(rows: int, per_row: int) -> list[slice]:
    """Slices of `rows` of about _CHUNK elements each."""
    step = max(1, _CHUNK // max(per_row, 1))
    return [slice(r, min(r + step, rows)) for r in range(0, rows, step)]


def linear_forward(a: np.ndarray, output_size: tuple[int, ...], align_corners: bool,
                   scales: tuple[float | None, ...], mode: str) -> np.ndarray:
    """upsample_linear1d / upsample_bilinear2d / upsample_trilinear3d."""
    dims = a.ndim - 2
    taps = [linear_taps(a.shape[2 + d], output_size[d], align_corners, scales[d], a.dtype)
            for d in range(dims)]
    out = np.empty(a.shape[:2] + tuple(output_size), a.dtype)
    per_row = out.size // output_size[0]
    if channels_last_kernel(a, output_size, mode):
        for rows in _row_chunks(output_size[0], per_row):
            sub = [tuple(arr[rows] for arr in taps[0])] + taps[1:]
            out[:, :, rows] = _channels_last_forward(a, sub)
        return dense_in_format(out, suggests_channels_last(a))
    # the generic kernel, separable: the last dimension first
    src = a
    for d in range(dims - 1, -1, -1):
        i0, i1, l0, l1 = taps[d]
        shape = [1] * a.ndim
        shape[2 + d] = -1
        w0, w1 = l0.reshape(shape), l1.reshape(shape)
        dst = out if d == 0 else np.empty(src.shape[:2 + d] + (output_size[d],)
                                           + src.shape[3 + d:], a.dtype)
        for rows in _row_chunks(dst.shape[2], dst.size // dst.shape[2]):
            if d == 0:
                part0, part1 = src[:, :, i0[rows]], src[:, :, i1[rows]]
                weights = (w0[:, :, rows], w1[:, :, rows])
            else:
                block = src[:, :, rows]
                part0, part1 = np.take(block, i0, axis=2 + d), np.take(block, i1, axis=2 + d)
                weights = (w0, w1)
            dst[:, :, rows] = fma(part0, weights[0], part1 * weights[1])
        src = dst
    return dense_in_format(out, suggests_channels_last(a))


def _channels_last_forward(a: np.ndarray, taps: list[Taps]) -> np.ndarray:
    indices, weights = _corners(taps, a.dtype)
    values = [a[(slice(None), slice(None)) + idx] for idx in indices]
    channels = a.shape[1]
    whole = channels - channels % capability.lanes(a.itemsize)
    out = np.empty(values[0].shape, a.dtype)
    if whole:
        vec = [v[:, :whole] for v in values]
        acc = fma(vec[-1], weights[-1], vec[-2] * weights[-2])
        for k in range(len(vec) - 3, -1, -1):
            acc = fma(vec[k], weights[k], acc)
        out[:, :whole] = acc
    if whole < channels:
        tail = [v[:, whole:] for v in values]
        acc = fma(tail[0], weights[0], tail[1] * weights[1])
        for k in range(2, len(tail)):
            acc = fma(tail[k], weights[k], acc)
        out[:, whole:] = acc
    return out


def _flat_targets(indices: tuple[np.ndarray, ...], in_spatial: tuple[int, ...],
                  out_spatial: tuple[int, ...]) -> np.ndarray:
    """Each output position's source as a flat index into the input's spatial grid."""
    flat = np.zeros(out_spatial, np.int64)
    stride = 1
    for d in range(len(in_spatial) - 1, -1, -1):
        flat = flat + indices[d] * stride
        stride *= in_spatial[d]
    return flat.reshape(-1)


def _planes(g: np.ndarray) -> np.ndarray:
    """(spatial positions, N·C): one row per output position, planes along the row."""
    planes = g.shape[0] * g.shape[1]
    return np.ascontiguousarray(g.reshape(planes, -1).T)


def _unplanes(acc: np.ndarray, input_size: tuple[int, ...]) -> np.ndarray:
    return np.ascontiguousarray(acc.T.reshape(input_size))


def nearest_backward(g: np.ndarray, input_size: tuple[int, ...],
                     scales: tuple[float | None, ...], exact: bool) -> np.ndarray:
    """cpu_upsample_nearest_backward: each output's gradient added into its source."""
    dims = g.ndim - 2
    in_spatial, out_spatial = tuple(input_size[2:]), g.shape[2:]
    idx = []
    for d in range(dims):
        shape = [1] * dims
        shape[d] = -1
        idx.append(nearest_idx(out_spatial[d], in_spatial[d], scales[d], exact).reshape(shape))
    target = _flat_targets(tuple(idx), in_spatial, out_spatial)
    acc = np.zeros((int(np.prod(in_spatial)), g.shape[0] * g.shape[1]), g.dtype)
    np.add.at(acc, target, _planes(g))
    return _unplanes(acc, tuple(input_size))


def linear_backward(g: np.ndarray, input_size: tuple[int, ...], align_corners: bool,
                    scales: tuple[float | None, ...]) -> np.ndarray:
    """cpu_upsample_linear_backward: `acc = fma(weight, grad, acc)` per corner, in output
    order (blocks of output rows one after the other, so the bookkeeping stays small)."""
    dims = g.ndim - 2
    in_spatial, out_spatial = tuple(input_size[2:]), g.shape[2:]
    taps = [linear_taps(in_spatial[d], out_spatial[d], align_corners, scales[d], g.dtype)
            for d in range(dims)]
    grads = _planes(g)
    acc = np.zeros((math.prod(in_spatial), grads.shape[1]), g.dtype)
    per_row = math.prod(out_spatial[1:])
    for rows in _row_chunks(out_spatial[0], per_row * 4):
        sub = [tuple(arr[rows] for arr in taps[0])] + taps[1:]
        sub_spatial = (len(sub[0][0]),) + tuple(out_spatial[1:])
        indices, weights = _corners(sub, g.dtype)
        # updates in torch's order: output position major, corner minor
        target = np.stack([_flat_targets(idx, in_spatial, sub_spatial) for idx in indices],
                          axis=1).reshape(-1)
        weight = np.stack([np.broadcast_to(w, sub_spatial).reshape(-1) for w in weights],
                          axis=1).reshape(-1)
        source = np.repeat(np.arange(rows.start * per_row, rows.stop * per_row), len(indices))
        ordered_fma_accumulate(acc, target, weight, source, grads)
    return _unplanes(acc, tuple(input_size))


def ordered_fma_accumulate(acc: np.ndarray, target: np.ndarray, weight: np.ndarray,
                           source: np.ndarray, grads: np.ndarray) -> None:
    """acc[target[k]] = fma(weight[k], grads[source[k]], acc[target[k]]) for k in order:
    updates run in rounds, the r-th update of every target in round r."""
    order = np.argsort(target, kind="stable")
    sorted_target = target[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_target)) + 1]
    counts = np.diff(np.r_[starts, sorted_target.size])
    rank = np.empty_like(order)
    rank[order] = np.arange(sorted_target.size) - np.repeat(starts, counts)
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(rank))]
    for r in range(bounds.size - 1):
        sel = by_rank[bounds[r]:bounds[r + 1]]
        t = target[sel]
        acc[t] = fma(weight[sel][:, None], grads[source[sel]], acc[t])
