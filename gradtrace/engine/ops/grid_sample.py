"""F.affine_grid (AffineGridGeneratorBackward0) and F.grid_sample on 4-D inputs
(GridSampler2DBackward0; 5-D inputs are grid_sample3d.py's GridSampler3DBackward0):
bilinear and nearest interpolation, zeros / border / reflection padding, align_corners.

Values follow ATen: affine_grid is a base grid of linspace(-1, 1) rows (scaled by
(n - 1) / n without align_corners) times theta transposed (bmm); grid_sample is
GridSamplerKernel.cpp's vectorized kernel, operation by operation in the dtype, with the
multiply-adds the AVX2 build fuses (`a * b + c` rounded once; measured against torch
2.13). Its input gradient adds each output position's corner contributions in the kernel's
order: grid positions in vectors of torch's lane count, per vector the corners nw, ne, sw,
se in turn.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchValueError
from .. import blas, capability
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..node import Function
from ..tensor import _BY_NP, Tensor
from .fused import multiply_add
from .views import warn

MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


# -- affine_grid ------------------------------------------------------------------------


def _linspace_from_neg_one(num_steps: int, align_corners: bool, dtype: Any) -> np.ndarray:
    """AffineGridGenerator.cpp's linspace_from_neg_one."""
    from .creation import linspace

    if num_steps <= 1:
        return np.zeros(1, dtype)
    steps = linspace(-1, 1, num_steps, dtype=_BY_NP[np.dtype(dtype)]).array
    if not align_corners:
        steps = (steps * np.asarray(num_steps - 1, dtype)) / np.asarray(num_steps, dtype)
    return steps.astype(dtype, copy=False)


def _base_grid(size: tuple[int, ...], align_corners: bool, dtype: Any) -> np.ndarray:
    """make_base_grid_4D / _5D: (N, H, W, 3) of (x, y, 1), or (N, D, H, W, 4) of
    (x, y, z, 1)."""
    n, spatial = size[0], tuple(size[2:])
    base = np.empty((n, *spatial, len(spatial) + 1), dtype)
    for axis, steps in enumerate(reversed(spatial)):
        line = _linspace_from_neg_one(steps, align_corners, dtype)
        base[..., axis] = line.reshape((-1,) + (1,) * axis)
    base[..., len(spatial)] = 1
    return base


class AffineGridGeneratorBackward0(Function):
    """affine_grid_generator(theta, size, align_corners): base_grid @ theta.T."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("theta", "base_grid({size}, {align_corners}).flatten(1, -2).mT"
                             ".bmm({grad}.flatten(1, -2)).mT"),)

    def forward(self, theta: Tensor, size: tuple[int, ...], align_corners: bool) -> np.ndarray:
        self.save_attr(align_corners=align_corners, size=tuple(size))
        t = theta.array
        n, spatial = size[0], tuple(size[2:])
        points = int(np.prod(spatial))
        base = _base_grid(size, align_corners, t.dtype).reshape(n, points, len(spatial) + 1)
        return blas.bmm(base, t.transpose(0, 2, 1)).reshape(n, *spatial, len(spatial))

    def backward(self, grad: Tensor) -> Tensor:
        size, align = self.attrs["size"], self.attrs["align_corners"]
        n, spatial = size[0], tuple(size[2:])
        points = int(np.prod(spatial))
        g = grad.array
        base = _base_grid(size, align, g.dtype).reshape(n, points, len(spatial) + 1)
        out = blas.bmm(base.transpose(0, 2, 1),
                       np.ascontiguousarray(g).reshape(n, points, len(spatial)))
        return Tensor._wrap(np.ascontiguousarray(out.transpose(0, 2, 1)))


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """F.affine_grid: 2-D (size N, C, H, W) and 3-D (size N, C, D, H, W) affine grids."""
    if align_corners is None:
        warn(_ALIGN_WARNING)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise TorchValueError(f"Expected theta to have floating point type, but got "
                              f"{theta.dtype}")
    size = tuple(size)
    if len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (3, 4):
            raise TorchValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                f"torch.Size({list(theta.shape)}).")
    elif len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (2, 3):
            raise TorchValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                f"torch.Size({list(theta.shape)}).")
    else:
        raise ScriptError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}.", kind="NotImplementedError")
    if align_corners and min(size[2:]) == 1:
        warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
             "align_corners=True. This is not an intended use case of affine_grid. See the "
             "documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise TorchValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise TorchRuntimeError(  # bmm's check on theta.transpose(1, 2)
            f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, "
            f"{len(size) - 1}] but got: [{theta.shape[0]}, {len(size) - 1}].")
    return AffineGridGeneratorBackward0.call(theta, size=size, align_corners=bool(align_corners))


# -- grid_sample ------------------------------------------------------------------------


class _Location:
    """ComputeLocation for one spatial dim: unnormalise, then pad (border clips,
    reflection reflects and clips), in the dtype; `grad` is d(location)/d(grid)."""

    def __init__(self, size: int, padding: int, align_corners: bool, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        f = self.dtype.type
        self.padding, self.align = padding, align_corners
        self.max_val = f(size - 1)
        if align_corners:
            self.scale, self.low, self.twice_span = f(size - 1) / f(2), f(0), f(size - 1) * f(2)
            self.empty = size <= 1
        else:
            self.scale, self.low, self.twice_span = f(size) / f(2), f(-0.5), f(size) * f(2)
            self.empty = size <= 0

    def unnormalize(self, g: np.ndarray) -> np.ndarray:
        f = self.dtype.type
        if self.align:
            return (g + f(1)) * self.scale
        return multiply_add(g + f(1), self.scale, f(-0.5), self.dtype)

    def clip(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """clip_coordinates (NaN to 0) and whether the value was strictly inside."""
        bounded = np.where(np.isnan(x), self.dtype.type(0), np.maximum(x, self.dtype.type(0)))
        res = np.minimum(bounded, self.max_val)
        return res, (bounded != 0) & (res != self.max_val)

    def reflect(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """reflect_coordinates and its gradient sign."""
        f = self.dtype.type
        if self.align and self.empty:
            return np.zeros_like(x), np.zeros_like(x)
        shifted = x if self.align else x - self.low
        abs_in = np.abs(shifted)
        flips = np.trunc(abs_in / self.twice_span)
        extra = multiply_add(-flips, self.twice_span, abs_in, self.dtype)
        reflected = self.twice_span - extra
        flip = extra > reflected
        res = np.where(flip, reflected, extra)
        if not self.align:
            res = res + self.low
        sign = np.where(flip ^ (shifted < 0), f(-1), f(1))
        return res, sign

    def apply(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self.unnormalize(g)
        mult = np.full(x.shape, self.scale, self.dtype)
        if self.padding == 1:
            x, inside = self.clip(x)
            mult = np.where(inside, mult, self.dtype.type(0))
        elif self.padding == 2:
            x, sign = self.reflect(x)
            mult = sign * mult
            x, inside = self.clip(x)
            mult = np.where(inside, mult, self.dtype.type(0))
        return x, mult


def _corners(x: np.ndarray, y: np.ndarray, h: int, w: int, padding: int) -> dict[str, Any]:
    """compute_interp_params: distances, corner weights, masks and the nw corner."""
    one = x.dtype.type(1)
    x_w, y_n = np.floor(x), np.floor(y)
    dw = x - x_w
    de = one - dw
    dn = y - y_n
    ds = one - dn
    ix, iy = x_w.astype(np.int64), y_n.astype(np.int64)
    if padding:
        m_w = m_n = np.ones(x.shape, bool)
        m_e, m_s = ix + 1 < w, iy + 1 < h
    else:
        m_w, m_n = (ix > -1) & (ix < w), (iy > -1) & (iy < h)
        m_e, m_s = (ix + 1 > -1) & (ix + 1 < w), (iy + 1 > -1) & (iy + 1 < h)
    return {"n": dn, "s": ds, "w": dw, "e": de,
            "weights": (ds * de, ds * dw, dn * de, dn * dw),
            "masks": (m_w & m_n, m_e & m_n, m_w & m_s, m_e & m_s),
            "offsets": ((iy, ix), (iy, ix + 1), (iy + 1, ix), (iy + 1, ix + 1))}


def _gather(plane: np.ndarray, iy: np.ndarray, ix: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """mask_gather: input values at (iy, ix) per channel, 0 where masked out.
    plane (C, H, W), indices (P,) -> (C, P)."""
    h, w = plane.shape[1:]
    vals = plane[:, np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)]
    return np.where(mask, vals, plane.dtype.type(0))


def _chunks(grid: np.ndarray) -> list[np.ndarray]:
    """grid_sample_2d_grid_slice_iterator's vectors: flat positions in steps of torch's
    lane count when the (H, W) positions are contiguous, else row by row."""
    h, w = grid.shape[1:3]
    step = capability.lanes(grid.dtype.itemsize)
    st = grid.strides
    flat = (grid.flags.c_contiguous or h == 1
            or (st[2] == grid.itemsize and st[1] == w * grid.itemsize))
    if flat:
        return [np.arange(i, min(i + step, h * w)) for i in range(0, h * w, step)]
    return [np.arange(r * w + i, r * w + min(i + step, w)) for r in range(h)
            for i in range(0, w, step)]


def _sample(x: np.ndarray, grid: np.ndarray, mode: int, padding: int, align: bool,
            grad: np.ndarray | None, mask: tuple[bool, bool]
            ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The forward (grad None: (output, None)) or the backward ((grad_input, grad_grid))."""
    n, c, h, w = x.shape
    dt = x.dtype
    oh, ow = grid.shape[1:3]
    loc_w = _Location(w, padding, align, dt)
    loc_h = _Location(h, padding, align, dt)
    if grad is None:
        out = np.empty((n, c, oh * ow), dt)
    else:
        gi = np.zeros((n, c, h * w), dt) if mask[0] else None
        gg = np.zeros((n, oh * ow, 2), dt)
        grad = grad.reshape(n, c, oh * ow)
    with np.errstate(all="ignore"):
        for b in range(n):
            gx_in = grid[b, ..., 0].reshape(-1).astype(dt, copy=False)
            gy_in = grid[b, ..., 1].reshape(-1).astype(dt, copy=False)
            px, mult_x = loc_w.apply(gx_in)
            py, mult_y = loc_h.apply(gy_in)
            plane = x[b]
            if mode == 1:  # nearest: round half to even, as _mm256_round_ps
                ix, iy = np.rint(px).astype(np.int64), np.rint(py).astype(np.int64)
                inside = np.ones(ix.shape, bool) if padding else \
                    (ix > -1) & (ix < w) & (iy > -1) & (iy < h)
                if grad is None:
                    out[b] = _gather(plane, iy, ix, inside)
                elif gi is not None:
                    for chunk in _chunks(grid[b:b + 1]):
                        keep = chunk[inside[chunk]]
                        np.add.at(gi[b], (slice(None), iy[keep] * w + ix[keep]),
                                  grad[b][:, keep])
                continue
            k = _corners(px, py, h, w, padding)
            vals = [_gather(plane, iy, ix, m) for (iy, ix), m in
                    zip(k["offsets"], k["masks"], strict=True)]
            if grad is None:
                nw, ne, sw, se = k["weights"]
                acc = multiply_add(vals[1], ne, vals[0] * nw, dt)
                acc = multiply_add(vals[2], sw, acc, dt)
                out[b] = multiply_add(vals[3], se, acc, dt)
                continue
            g = grad[b]
            if gi is not None:
                targets = [iy * w + ix for iy, ix in k["offsets"]]
                for chunk in _chunks(grid[b:b + 1]):
                    for weight, target, m in zip(k["weights"], targets, k["masks"],
                                                 strict=True):
                        keep = chunk[m[chunk]]
                        np.add.at(gi[b], (slice(None), target[keep]),
                                  weight[keep] * g[:, keep])
            gx = np.zeros(oh * ow, dt)
            gy = np.zeros(oh * ow, dt)
            for ch in range(c):
                go = g[ch]
                v = [val[ch] for val in vals]
                tx = multiply_add(v[3] - v[2], k["n"], (v[1] - v[0]) * k["s"], dt)
                ty = multiply_add(v[3] - v[1], k["w"], (v[2] - v[0]) * k["e"], dt)
                gx = multiply_add(tx, go, gx, dt)
                gy = multiply_add(ty, go, gy, dt)
            gg[b, :, 0] = gx * mult_x
            gg[b, :, 1] = gy * mult_y
    if grad is None:
        return out.reshape(n, c, oh, ow), None
    return (gi.reshape(x.shape) if gi is not None else None,
            gg.reshape(grid.shape) if mask[1] else None)


class GridSampler2DBackward0(Function):
    """grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)."""

    __slots__ = ()
    no_forward_ad = "grid_sampler_2d"  # torch has no forward-mode formula (measured)
    formulas = (vjp("input", "grid_sampler_2d_backward({grad}, {input}, {grid}, "
                             "{interpolation_mode}, {padding_mode}, {align_corners})[0]"),
                vjp("grid", "grid_sampler_2d_backward({grad}, {input}, {grid}, "
                            "{interpolation_mode}, {padding_mode}, {align_corners})[1]"))

    def forward(self, x: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                align_corners: bool) -> np.ndarray:
        self.save_attr(align_corners=align_corners)
        self.save("grid", grid)
        self.save("input", x)
        self.save_attr(interpolation_mode=interpolation_mode, padding_mode=padding_mode)
        return _sample(x.array, grid.array, interpolation_mode, padding_mode, align_corners,
                       None, (True, False))[0]

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a = self.attrs
        x, grid = self.unpack("input"), self.unpack("grid")
        gi, gg = _sample(x.array, grid.array, a["interpolation_mode"], a["padding_mode"],
                         a["align_corners"], np.asarray(grad.array, x.array.dtype),
                         (self.needs_input_grad(0), self.needs_input_grad(1)))
        return (Tensor._wrap(gi) if gi is not None else None,
                Tensor._wrap(gg) if gg is not None else None)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",  # noqa: A002
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """F.grid_sample on a 4-D input (bilinear or nearest)."""
    if mode not in MODES:
        raise TorchValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                              f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in PADDINGS:
        raise TorchValueError("nn.functional.grid_sample(): expected padding_mode to be "
                              f"'zeros', 'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warn(_ALIGN_WARNING)
        align_corners = False
    if input.ndim == 5:
        return _grid_sample_3d(input, grid, mode, padding_mode, bool(align_corners))
    if mode == "bicubic":
        raise NotSupportedError("F.grid_sample with mode='bicubic'")
    _check(input, grid)
    return GridSampler2DBackward0.call(input, grid, interpolation_mode=MODES[mode],
                                       padding_mode=PADDINGS[padding_mode],
                                       align_corners=bool(align_corners))


def _grid_sample_3d(x: Tensor, grid: Tensor, mode: str, padding_mode: str,
                    align_corners: bool) -> Tensor:
    """grid_sampler_3d after check_grid_sampler_common and check_grid_sampler_3d."""
    from .grid_sample3d import GridSampler3DBackward0

    if x.shape[0] != grid.shape[0]:
        raise TorchRuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != 3:
        raise TorchRuntimeError(
            "grid_sampler(): expected grid to have size 3 in last dimension, but got grid with "
            f"sizes {list(grid.shape)}")
    for i in range(2, 5):
        if x.shape[i] <= 0:
            raise TorchRuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(x.shape)} with dimension {i} being empty")
    if grid.ndim != 5:
        raise TorchRuntimeError(
            "grid_sampler(): expected 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic":
        raise TorchRuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not x.dtype.is_floating_point:
        raise TorchRuntimeError(f'"grid_sampler_3d_cpu" not implemented for '
                                f"'{x.dtype.tensor_type[:-6]}'")
    if x.dtype is not grid.dtype:
        raise TorchRuntimeError(f"expected scalar type {x.dtype.tensor_type[:-6]} but found "
                                f"{grid.dtype.tensor_type[:-6]}")
    return GridSampler3DBackward0.call(x, grid, interpolation_mode=MODES[mode],
                                       padding_mode=PADDINGS[padding_mode],
                                       align_corners=align_corners)


def _check(x: Tensor, grid: Tensor) -> None:
    """grid_sampler's checks (GridSampler.h's check_grid_sampler_common), in torch's order."""
    if x.ndim != 4 or grid.ndim != 4:
        raise TorchRuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}")
    if x.shape[0] != grid.shape[0]:
        raise TorchRuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != 2:
        raise TorchRuntimeError(
            "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
            f"sizes {list(grid.shape)}")
    if not x.dtype.is_floating_point:
        raise TorchRuntimeError(f'"grid_sampler_2d_cpu" not implemented for '
                                f"'{x.dtype.tensor_type[:-6]}'")
    if x.dtype is not grid.dtype:
        raise TorchRuntimeError(f"expected scalar type {x.dtype.tensor_type[:-6]} but found "
                                f"{grid.dtype.tensor_type[:-6]}")
