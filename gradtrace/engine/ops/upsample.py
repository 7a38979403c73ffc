"""F.interpolate's nearest, nearest-exact, linear and bilinear modes: torch's
upsample_{nearest,_nearest_exact}{1,2}d / upsample_linear1d / upsample_bilinear2d
(UpsampleNearest2DBackward0, ...), with the source indices and weights computed as
aten/src/ATen/native/UpSample.h computes them (float math for float32 tensors).

Nearest modes copy values, so they are exact; their backward adds the gradients into each
source element in output order, as torch's CPU kernel does. Linear modes interpolate
`Σ weight·value` one dimension at a time with UpSample.h's lambdas; torch's float32 kernels
differ in the last bits (measured: most values within a few ulps, values near 0 by more,
README Numerics), and the run notes it.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, ScriptError, TorchValueError
from .. import exactness
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor

_LINEAR_CAUSE = ("linear/bilinear interpolation: torch's kernels (for few planes a separable "
                 "pass with antialias-style normalised weights) are not reproduced")


def _scale(scale: float | None, in_size: int, out_size: int, dtype: np.dtype) -> Any:
    """compute_scales_value: 1/scale when a scale was given, else in/out (in the op math)."""
    t = np.float32 if dtype == np.float32 else np.float64
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(in_size) / t(out_size)


def nearest_index(out_size: int, in_size: int, scale: float | None, exact: bool,
                  dtype: np.dtype) -> np.ndarray:
    """nearest_idx / nearest_neighbor_exact_compute_source_index (float scale math)."""
    dst = np.arange(out_size)
    if not exact and out_size == in_size:
        return dst
    if not exact and out_size == 2 * in_size:
        return dst >> 1
    s = _scale(scale, in_size, out_size, np.dtype(np.float32))
    offset = np.float32(0.5) if exact else np.float32(0)
    src = np.floor((dst.astype(np.float32) + offset) * s).astype(np.int64)
    return np.minimum(src, in_size - 1)


def linear_weights(out_size: int, in_size: int, scale: float | None, align_corners: bool,
                   dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(index0, index1, lambda0, lambda1) per output position (compute_source_index_and_
    lambda): the two source elements and their weights."""
    t = np.float32 if dtype == np.float32 else np.float64
    dst = np.arange(out_size)
    if out_size == in_size:
        return dst, dst, np.ones(out_size, t), np.zeros(out_size, t)
    if align_corners:
        ratio = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
        real = ratio * dst.astype(t)
    else:
        ratio = _scale(scale, in_size, out_size, np.dtype(t))
        real = np.maximum(ratio * (dst.astype(t) + t(0.5)) - t(0.5), t(0))
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lambda1 = np.minimum(np.maximum(real - i0.astype(t), t(0)), t(1)).astype(t)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, (t(1) - lambda1).astype(t), lambda1


class _Upsample(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    mode = "nearest"
    dims = 2

    @classmethod
    def _saved_scales(cls, scales: tuple[float | None, ...]) -> dict[str, Any]:
        if cls.dims == 1:
            return {"scales": scales[0]}
        return {"scales_h": scales[0], "scales_w": scales[1]}

    def forward(self, x: Tensor, output_size: tuple[int, ...],
                scales: tuple[float | None, ...], align_corners: bool | None = None
                ) -> np.ndarray:
        a = x.array
        attrs = {"output_size": tuple(output_size), **self._saved_scales(scales),
                 "self_sym_sizes": a.shape}
        if align_corners is not None:
            attrs["align_corners"] = align_corners
        self.save_attr(**attrs)
        reserve(a.shape[:2] + tuple(output_size), a.itemsize)
        if self.mode.startswith("nearest"):
            out = a
            for d, (size, scale) in enumerate(zip(output_size, scales, strict=True)):
                axis = 2 + d
                idx = nearest_index(size, a.shape[axis], scale, self.mode == "nearest-exact",
                                    a.dtype)
                out = np.take(out, idx, axis=axis)
            return np.ascontiguousarray(out)
        exactness.note(_LINEAR_CAUSE)
        t = a.dtype.type
        out = a
        # outer dimension last here: interpolating W then H gives
        # (x[h0,w0]·ww0 + x[h0,w1]·ww1)·wh0 + (...)·wh1, torch's order
        for d in range(self.dims - 1, -1, -1):
            axis = 2 + d
            i0, i1, l0, l1 = linear_weights(output_size[d], a.shape[axis], scales[d],
                                            bool(align_corners), a.dtype)
            shape = [1] * out.ndim
            shape[axis] = -1
            out = np.asarray(np.take(out, i0, axis=axis) * l0.reshape(shape).astype(t)
                             + np.take(out, i1, axis=axis) * l1.reshape(shape).astype(t),
                             a.dtype)
        return out

    def backward(self, grad: Tensor) -> Tensor:
        attrs = self.attrs
        return _BACKWARDS[type(self)].call(
            grad, output_size=attrs["output_size"], input_size=attrs["self_sym_sizes"],
            scales=_scales_of(attrs, self.dims), align_corners=attrs.get("align_corners"))


class _UpsampleBackward(Function):
    """upsample_*_backward(grad_output, output_size, input_size, ...) as an op, for
    create_graph: linear in grad_output, its own backward is the upsampling again."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    forward_node: type[_Upsample]

    def forward(self, grad: Tensor, output_size: tuple[int, ...], input_size: tuple[int, ...],
                scales: tuple[float | None, ...], align_corners: bool | None) -> np.ndarray:
        attrs: dict[str, Any] = {"output_size": tuple(output_size)}
        if align_corners is not None:
            attrs["align_corners"] = align_corners
        self.save_attr(**attrs, **self.forward_node._saved_scales(scales))
        dims, mode = self.forward_node.dims, self.forward_node.mode
        g = grad.array
        dtype = g.dtype
        out = g
        if mode.startswith("nearest"):
            for d in range(dims - 1, -1, -1):
                axis = 2 + d
                idx = nearest_index(g.shape[axis], input_size[axis], scales[d],
                                    mode == "nearest-exact", dtype)
                moved = np.moveaxis(out, axis, 0)
                acc = np.zeros((input_size[axis],) + moved.shape[1:], dtype)
                np.add.at(acc, idx, moved)
                out = np.moveaxis(acc, 0, axis)
            return np.ascontiguousarray(out)
        exactness.note(_LINEAR_CAUSE)
        for d in range(dims):
            axis = 2 + d
            i0, i1, l0, l1 = linear_weights(g.shape[axis], input_size[axis], scales[d],
                                            bool(align_corners), dtype)
            moved = np.moveaxis(out, axis, 0)
            shape = (-1,) + (1,) * (moved.ndim - 1)
            acc = np.zeros((input_size[axis],) + moved.shape[1:], dtype)
            np.add.at(acc, i0, moved * l0.reshape(shape))
            np.add.at(acc, i1, moved * l1.reshape(shape))
            out = np.moveaxis(acc, 0, axis)
        return np.ascontiguousarray(out)

    def backward(self, gg: Tensor) -> Tensor:
        attrs = self.attrs
        extra = {} if "align_corners" not in attrs else {"align_corners": attrs["align_corners"]}
        return self.forward_node.call(gg, output_size=attrs["output_size"],
                                      scales=_scales_of(attrs, self.forward_node.dims), **extra)


def _scales_of(attrs: dict[str, Any], dims: int) -> tuple[float | None, ...]:
    """The scales a node saved, back in argument form."""
    return (attrs["scales"],) if dims == 1 else (attrs["scales_h"], attrs["scales_w"])


def _node(name: str, mode: str, dims: int, aten: str) -> type[_Upsample]:
    """The node of one mode: its backward is aten's `<op>_backward` (derivatives.yaml):
    each input element receives the gradients of the outputs made from it, weighted."""
    scales = "{scales}" if dims == 1 else "{scales_h}, {scales_w}"
    text = f"{aten}_backward({{grad}}, {{output_size}}, {{self_sym_sizes}}, "
    text += "{align_corners}, " if mode in ("linear", "bilinear") else ""
    node = type(name, (_Upsample,), {"__slots__": (), "mode": mode, "dims": dims,
                                     "formulas": (vjp("self", text + scales + ")"),)})
    again = f"{aten}({{grad}}, {{output_size}}, "
    again += "{align_corners}, " if mode in ("linear", "bilinear") else ""
    _BACKWARDS[node] = type(name.replace("Backward0", "BackwardBackward0"), (_UpsampleBackward,),
                            {"__slots__": (), "forward_node": node,
                             "formulas": (vjp("grad_output", again + scales + ")"),)})
    return node


_BACKWARDS: dict[type[_Upsample], type[_UpsampleBackward]] = {}


UpsampleNearest1DBackward0 = _node("UpsampleNearest1DBackward0", "nearest", 1,
                                   "upsample_nearest1d")
UpsampleNearest2DBackward0 = _node("UpsampleNearest2DBackward0", "nearest", 2,
                                   "upsample_nearest2d")
UpsampleNearestExact1DBackward0 = _node("UpsampleNearestExact1DBackward0", "nearest-exact", 1,
                                        "_upsample_nearest_exact1d")
UpsampleNearestExact2DBackward0 = _node("UpsampleNearestExact2DBackward0", "nearest-exact", 2,
                                        "_upsample_nearest_exact2d")
UpsampleLinear1DBackward0 = _node("UpsampleLinear1DBackward0", "linear", 1, "upsample_linear1d")
UpsampleBilinear2DBackward0 = _node("UpsampleBilinear2DBackward0", "bilinear", 2,
                                    "upsample_bilinear2d")

_NODES = {("nearest", 1): UpsampleNearest1DBackward0, ("nearest", 2): UpsampleNearest2DBackward0,
          ("nearest-exact", 1): UpsampleNearestExact1DBackward0,
          ("nearest-exact", 2): UpsampleNearestExact2DBackward0,
          ("linear", 1): UpsampleLinear1DBackward0, ("bilinear", 2): UpsampleBilinear2DBackward0}


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,  # noqa: A002
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """torch.nn.functional.interpolate for the modes above (torch's argument checks)."""
    dims = input.array.ndim - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise TorchValueError("align_corners option can only be set with the interpolating "
                                  "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise TorchValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [size] * dims if isinstance(size, int) else list(size)
        if len(sizes) != dims:
            raise TorchValueError(
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {list(input.array.shape[2:])} and output "
                f"size of {tuple(sizes)}. Please provide input tensor in (N, C, d1, d2, "
                "...,dK) format and output size in (o1, o2, ...,oK) format.")
        output_size = [int(s) for s in sizes]
        scales: list[float | None] = [None] * dims
    elif scale_factor is not None:
        factors = ([scale_factor] * dims if isinstance(scale_factor, (int, float))
                   else list(scale_factor))
        if len(factors) != dims:
            raise TorchValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(input.array.shape[2:])} and "
                f"scale_factor of shape {tuple(factors)}. Please provide input tensor in (N, "
                "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
        output_size = [math.floor(float(input.array.shape[i + 2]) * float(factors[i]))
                       for i in range(dims)]
        scales = [None] * dims if recompute_scale_factor else [float(f) for f in factors]
    else:
        raise TorchValueError("either size or scale_factor should be defined")
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and dims == 2):
        raise TorchValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                              "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and dims == 2:
        if align_corners:
            raise TorchValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise TorchValueError("Lanczos mode requires antialias=True")
    if antialias and mode != "lanczos":
        from .upsample_aa import UpsampleBicubic2DAaBackward0, UpsampleBilinear2DAaBackward0

        node = UpsampleBicubic2DAaBackward0 if mode == "bicubic" else \
            UpsampleBilinear2DAaBackward0
        return node.call(input, output_size=tuple(output_size), scales=tuple(scales),
                         align_corners=bool(align_corners))
    if mode == "bicubic":
        return _bicubic(input, output_size, scales, bool(align_corners))
    key = (mode, dims)
    if key not in _NODES:
        raise NotSupportedError(
            f"gradtrace's F.interpolate has the modes nearest, nearest-exact (1-D and 2-D), "
            f"linear (3-D input) and bilinear (4-D input); got mode={mode!r} for a "
            f"{input.array.ndim}-D input")
    if mode.startswith("nearest"):
        return _NODES[key].call(input, output_size=tuple(output_size), scales=tuple(scales))
    return _NODES[key].call(input, output_size=tuple(output_size), scales=tuple(scales),
                            align_corners=bool(align_corners))


def _bicubic(input: Tensor, output_size: list[int], scales: list[float | None],  # noqa: A002
             align_corners: bool) -> Tensor:
    """mode='bicubic': upsample_bicubic2d on 4-d input, torch's NotImplementedError else."""
    if input.array.ndim != 4:
        raise ScriptError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported"
            f" (got {input.array.ndim}D) for the modes: nearest | linear | bilinear | bicubic | "
            "trilinear | lanczos | area | nearest-exact (got bicubic)",
            kind="NotImplementedError")
    from .upsample_bicubic import UpsampleBicubic2DBackward0

    return UpsampleBicubic2DBackward0.call(input, output_size=tuple(output_size),
                                           scales=tuple(scales), align_corners=align_corners)
