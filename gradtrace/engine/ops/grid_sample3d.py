"""F.grid_sample on 5-D inputs (GridSampler3DBackward0): trilinear ('bilinear') and nearest
interpolation, zeros / border / reflection padding, align_corners.

torch's CPU kernels here are GridSampler.cpp's scalar loops (_grid_sampler_3d_cpu_impl and
its backward; no vectorised path, built without fused multiply-adds), reproduced operation
by operation in the dtype: source index through grid_sampler_compute_source_index (and its
`_set_grad` form in backward), the eight corner volumes as `(a·b)·c`, the output summed from
0 over the in-bounds corners tnw … bse, grad_input added position by position and corner by
corner (safe_add_3d), grad_grid accumulated over channels then scaled by the multiplier."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..formulas import vjp
from ..node import Function
from ..tensor import Tensor

_INT_MAX, _INT_MIN = 2**31 - 1, -(2**31)

# corner order of the kernel: (dz, dy, dx) of tnw, tne, tsw, tse, bnw, bne, bsw, bse
_CORNERS = ((0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0),
            (1, 1, 1))


def _unnormalize(coord: np.ndarray, size: int, align: bool) -> tuple[np.ndarray, Any]:
    """grid_sampler_unnormalize(_set_grad): the source coordinate and d(coord)/d(grid)."""
    t = coord.dtype.type
    if align:
        return ((coord + t(1)) / t(2)) * t(size - 1), t(size - 1) / t(2)
    return ((coord + t(1)) * t(size) - t(1)) / t(2), t(size) / t(2)


def _clip(x: np.ndarray, size: int, forward: bool) -> tuple[np.ndarray, np.ndarray]:
    """clip_coordinates(_set_grad): the borders count as outside (gradient 0). NaN clips
    to the far border in forward (std::min(size - 1, std::max(NaN, 0))) and stays NaN in
    backward (its comparisons are false)."""
    t = x.dtype.type
    top = t(size - 1)
    res = np.where(x <= t(0), t(0), np.where(x >= top, top, x))
    if forward:
        res = np.where(np.isnan(x), top, res)
    grad = np.where((x > t(0)) & (x < top), t(1), t(0))
    return res.astype(x.dtype), grad.astype(x.dtype)


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> tuple[np.ndarray, np.ndarray]:
    """reflect_coordinates_set_grad."""
    t = x.dtype.type
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low = t(twice_low) / t(2)
    span = t(twice_high - twice_low) / t(2)
    shifted = x - low
    sign = np.where(shifted < t(0), t(-1), t(1))
    mag = np.abs(shifted)
    extra = np.fmod(mag, span)
    flips = np.floor(mag / span)
    even = np.fmod(np.where(np.isfinite(flips), flips, 0), 2) == 0
    res = np.where(even, extra + low, (span - extra) + low)
    return res.astype(x.dtype), np.where(even, sign, -sign).astype(x.dtype)


def source_index(coord: np.ndarray, size: int, padding: int, align: bool, forward: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
    """grid_sampler_compute_source_index_set_grad: (coordinate, gradient multiplier)."""
    x, mult = _unnormalize(coord, size, align)
    mult = np.full(x.shape, mult, x.dtype)
    if padding == 1:
        x, clip = _clip(x, size, forward)
        mult = mult * clip
    elif padding == 2:
        x, refl = _reflect(x, 0, 2 * (size - 1)) if align else _reflect(x, -1, 2 * size - 1)
        x, clip = _clip(x, size, forward)
        mult = mult * refl * clip
    bad = ~np.isfinite(x) | (x > _INT_MAX - 1) | (x < _INT_MIN)
    return np.where(bad, x.dtype.type(-100), x).astype(x.dtype), mult


def _geometry(x: np.ndarray, grid: np.ndarray, padding: int, align: bool, forward: bool
              ) -> dict[str, Any]:
    """Per sample position (flattened, batch first): coordinates, corner indices, bounds,
    the distances the corner volumes are built from, and the gradient multipliers."""
    n, _, d, h, w = x.shape
    g = grid.reshape(n, -1, 3)
    ix, mx = source_index(g[..., 0], w, padding, align, forward)
    iy, my = source_index(g[..., 1], h, padding, align, forward)
    iz, mz = source_index(g[..., 2], d, padding, align, forward)
    return {"ix": ix, "iy": iy, "iz": iz, "mult": (mx, my, mz), "size": (d, h, w)}


def _corner(geo: dict[str, Any], corner: tuple[int, int, int]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(z, y, x) int indices of one corner and whether it lies inside the volume."""
    d, h, w = geo["size"]
    z = np.floor(geo["iz"]).astype(np.int64) + corner[0]
    y = np.floor(geo["iy"]).astype(np.int64) + corner[1]
    xx = np.floor(geo["ix"]).astype(np.int64) + corner[2]
    inside = (z >= 0) & (z < d) & (y >= 0) & (y < h) & (xx >= 0) & (xx < w)
    return z, y, xx, inside


def _factors(geo: dict[str, Any], corner: tuple[int, int, int]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three distances whose product is a corner's volume: to the opposite corner
    along x, y and z (`ix_bse - ix`, `ix - ix_tnw`, ...), in the dtype."""
    t = geo["ix"].dtype
    out = []
    for axis, key in ((2, "ix"), (1, "iy"), (0, "iz")):
        coord = geo[key]
        base = np.floor(coord)
        if corner[axis]:
            out.append((coord - base).astype(t))           # coord - floor(coord)
        else:
            out.append(((base + 1).astype(t) - coord).astype(t))  # (floor + 1) - coord
    return out[0], out[1], out[2]


def _gather(plane: np.ndarray, z: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """plane (C, D, H, W) at clipped indices (P,) -> (C, P)."""
    d, h, w = plane.shape[1:]
    return plane[:, np.clip(z, 0, d - 1), np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)]


def sample3d(x: np.ndarray, grid: np.ndarray, mode: int, padding: int, align: bool
             ) -> np.ndarray:
    n, c, d, h, w = x.shape
    geo = _geometry(x, grid, padding, align, True)
    out = np.empty((n, c) + grid.shape[1:4], x.dtype)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        for b in range(n):
            g = {k: (v[b] if k in ("ix", "iy", "iz") else v) for k, v in geo.items()}
            if mode == 1:
                z, y, xx = (np.rint(g[k]).astype(np.int64) for k in ("iz", "iy", "ix"))
                inside = (z >= 0) & (z < d) & (y >= 0) & (y < h) & (xx >= 0) & (xx < w)
                vals = np.where(inside, _gather(x[b], z, y, xx), t(0))
                out[b] = vals.reshape(out.shape[1:])
                continue
            acc = np.zeros((c, g["ix"].shape[0]), x.dtype)
            for corner in _CORNERS:
                z, y, xx, inside = _corner(g, corner)
                fx, fy, fz = _factors(g, corner)
                weight = (fx * fy) * fz
                acc = np.where(inside, acc + _gather(x[b], z, y, xx) * weight, acc)
            out[b] = acc.reshape(out.shape[1:])
    return out


def sample3d_backward(grad: np.ndarray, x: np.ndarray, grid: np.ndarray, mode: int,
                      padding: int, align: bool, mask: tuple[bool, bool]
                      ) -> tuple[np.ndarray | None, np.ndarray | None]:
    n, c, d, h, w = x.shape
    dt = x.dtype
    geo = _geometry(x, grid, padding, align, False)
    gi = np.zeros((n, d * h * w, c), dt) if mask[0] else None
    gg = np.zeros((n,) + grid.shape[1:4] + (3,), dt)
    positions = int(np.prod(grid.shape[1:4]))
    go_all = grad.reshape(n, c, positions)
    with np.errstate(all="ignore"):
        for b in range(n):
            g = {k: (v[b] if k in ("ix", "iy", "iz") else v) for k, v in geo.items()}
            go = go_all[b]
            if mode == 1:
                if gi is not None:
                    z, y, xx = (np.rint(g[k]).astype(np.int64) for k in ("iz", "iy", "ix"))
                    inside = (z >= 0) & (z < d) & (y >= 0) & (y < h) & (xx >= 0) & (xx < w)
                    keep = np.flatnonzero(inside)
                    np.add.at(gi[b], (z[keep] * h + y[keep]) * w + xx[keep], go[:, keep].T)
                continue
            corners = [(_corner(g, k), _factors(g, k)) for k in _CORNERS]
            if gi is not None:
                targets, values, keeps = [], [], []
                for (z, y, xx, inside), (fx, fy, fz) in corners:
                    targets.append((z * h + y) * w + xx)
                    values.append(((fx * fy) * fz)[:, None] * go.T)
                    keeps.append(inside)
                # safe_add_3d: position by position, the corners in order
                target = np.stack(targets, 1).reshape(-1)
                value = np.stack(values, 1).reshape(-1, c)
                keep = np.stack(keeps, 1).reshape(-1)
                np.add.at(gi[b], target[keep], value[keep])
            gix = np.zeros(positions, dt)
            giy = np.zeros(positions, dt)
            giz = np.zeros(positions, dt)
            for ch in range(c):
                gout = go[ch]
                for corner, ((z, y, xx, inside), (fx, fy, fz)) in zip(_CORNERS, corners,
                                                                       strict=True):
                    val = _gather(x[b][ch:ch + 1], z, y, xx)[0]
                    sx = 1 if corner[2] else -1
                    sy = 1 if corner[1] else -1
                    sz = 1 if corner[0] else -1
                    tx = ((val * fy) * fz) * gout
                    ty = ((val * fx) * fz) * gout
                    tz = ((val * fx) * fy) * gout
                    gix = np.where(inside, gix + tx if sx > 0 else gix - tx, gix)
                    giy = np.where(inside, giy + ty if sy > 0 else giy - ty, giy)
                    giz = np.where(inside, giz + tz if sz > 0 else giz - tz, giz)
            mx, my, mz = g["mult"]
            flat = gg[b].reshape(-1, 3)
            flat[:, 0] = mx[b] * gix
            flat[:, 1] = my[b] * giy
            flat[:, 2] = mz[b] * giz
    grad_input = None
    if gi is not None:
        grad_input = np.ascontiguousarray(gi.transpose(0, 2, 1).reshape(x.shape))
    return grad_input, (gg if mask[1] else None)


class GridSampler3DBackward0(Function):
    """grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)."""

    __slots__ = ()
    no_forward_ad = "grid_sampler_3d"  # torch has no forward-mode formula (measured)
    formulas = (vjp("input", "grid_sampler_3d_backward({grad}, {input}, {grid}, "
                             "{interpolation_mode}, {padding_mode}, {align_corners})[0]"),
                vjp("grid", "grid_sampler_3d_backward({grad}, {input}, {grid}, "
                            "{interpolation_mode}, {padding_mode}, {align_corners})[1]"))

    def forward(self, x: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                align_corners: bool) -> np.ndarray:
        self.save_attr(align_corners=align_corners)
        self.save("grid", grid)
        self.save("input", x)
        self.save_attr(interpolation_mode=interpolation_mode, padding_mode=padding_mode)
        return sample3d(x.array, grid.array, interpolation_mode, padding_mode, align_corners)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a = self.attrs
        x, grid = self.unpack("input"), self.unpack("grid")
        gi, gg = sample3d_backward(np.asarray(grad.array, x.array.dtype), x.array, grid.array,
                                   a["interpolation_mode"], a["padding_mode"],
                                   a["align_corners"],
                                   (self.needs_input_grad(0), self.needs_input_grad(1)))
        return (Tensor._wrap(gi) if gi is not None else None,
                Tensor._wrap(gg) if gg is not None else None)
