"""F.interpolate's nearest, nearest-exact, linear, bilinear and trilinear modes: torch's
upsample_nearest{1,2,3}d, _upsample_nearest_exact{1,2,3}d, upsample_linear1d,
upsample_bilinear2d and upsample_trilinear3d (UpsampleNearest2DBackward0, ...), their
nodes, saved attributes and double backward (Upsample*BackwardBackward0), and
F.interpolate's own argument handling (torch/nn/functional.py's checks and messages, then
compute_output_size's and the shape checks of UpSample.h).

The arithmetic is upsample_kernels.py's (torch's CPU kernels, bit for bit); the index math
upsample_index.py's. bicubic and the antialiased modes live in their own modules.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import ScriptError, TorchTypeError, TorchValueError
from .. import exactness
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..layouts import dense_in_format, suggests_channels_last
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor
from . import upsample_kernels as kernels

_HALF_CAUSE = ("interpolation in float16: torch's reduced-precision kernels (half weights, "
               "float sums) are not reproduced")
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"),
                3: ("scales_d", "scales_h", "scales_w")}


class _Upsample(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    mode = "nearest"
    dims = 2

    @classmethod
    def _saved_scales(cls, scales: tuple[float | None, ...]) -> dict[str, Any]:
        return dict(zip(_SCALE_NAMES[cls.dims], scales, strict=True))

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
        if a.dtype == np.float16 and not self.mode.startswith("nearest"):
            exactness.note(_HALF_CAUSE)
        if self.mode.startswith("nearest"):
            return kernels.nearest_forward(a, tuple(output_size), scales,
                                           self.mode == "nearest-exact")
        return kernels.linear_forward(a, tuple(output_size), bool(align_corners), scales,
                                      self.mode)

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
        g = grad.array
        reserve(tuple(input_size), g.itemsize)
        if g.dtype == np.float16:
            exactness.note(_HALF_CAUSE)
        if self.forward_node.mode.startswith("nearest"):
            gi = kernels.nearest_backward(g, tuple(input_size), scales,
                                          self.forward_node.mode == "nearest-exact")
        else:
            gi = kernels.linear_backward(g, tuple(input_size), bool(align_corners), scales)
        # the meta function's format: grad_output's suggest_memory_format() (measured)
        return dense_in_format(gi, suggests_channels_last(g))

    def backward(self, gg: Tensor) -> Tensor:
        attrs = self.attrs
        extra = {} if "align_corners" not in attrs else {"align_corners": attrs["align_corners"]}
        return self.forward_node.call(gg, output_size=attrs["output_size"],
                                      scales=_scales_of(attrs, self.forward_node.dims), **extra)


def _scales_of(attrs: dict[str, Any], dims: int) -> tuple[float | None, ...]:
    """The scales a node saved, back in argument form."""
    return tuple(attrs[name] for name in _SCALE_NAMES[dims])


_LINEAR_MODES = ("linear", "bilinear", "trilinear")


def _node(name: str, mode: str, dims: int, aten: str) -> type[_Upsample]:
    """The node of one mode: its backward is aten's `<op>_backward` (derivatives.yaml):
    each input element receives the gradients of the outputs made from it, weighted."""
    scales = ", ".join("{" + n + "}" for n in _SCALE_NAMES[dims])
    text = f"{aten}_backward({{grad}}, {{output_size}}, {{self_sym_sizes}}, "
    text += "{align_corners}, " if mode in _LINEAR_MODES else ""
    node = type(name, (_Upsample,), {"__slots__": (), "mode": mode, "dims": dims,
                                     "formulas": (vjp("self", text + scales + ")"),)})
    again = f"{aten}({{grad}}, {{output_size}}, "
    again += "{align_corners}, " if mode in _LINEAR_MODES else ""
    _BACKWARDS[node] = type(name.replace("Backward0", "BackwardBackward0"), (_UpsampleBackward,),
                            {"__slots__": (), "forward_node": node,
                             "formulas": (vjp("grad_output", again + scales + ")"),)})
    return node


_BACKWARDS: dict[type[_Upsample], type[_UpsampleBackward]] = {}


UpsampleNearest1DBackward0 = _node("UpsampleNearest1DBackward0", "nearest", 1,
                                   "upsample_nearest1d")
UpsampleNearest2DBackward0 = _node("UpsampleNearest2DBackward0", "nearest", 2,
                                   "upsample_nearest2d")
UpsampleNearest3DBackward0 = _node("UpsampleNearest3DBackward0", "nearest", 3,
                                   "upsample_nearest3d")
UpsampleNearestExact1DBackward0 = _node("UpsampleNearestExact1DBackward0", "nearest-exact", 1,
                                        "_upsample_nearest_exact1d")
UpsampleNearestExact2DBackward0 = _node("UpsampleNearestExact2DBackward0", "nearest-exact", 2,
                                        "_upsample_nearest_exact2d")
UpsampleNearestExact3DBackward0 = _node("UpsampleNearestExact3DBackward0", "nearest-exact", 3,
                                        "_upsample_nearest_exact3d")
UpsampleLinear1DBackward0 = _node("UpsampleLinear1DBackward0", "linear", 1, "upsample_linear1d")
UpsampleBilinear2DBackward0 = _node("UpsampleBilinear2DBackward0", "bilinear", 2,
                                    "upsample_bilinear2d")
UpsampleTrilinear3DBackward0 = _node("UpsampleTrilinear3DBackward0", "trilinear", 3,
                                     "upsample_trilinear3d")

_NODES = {(mode, node.dims): node for node in _BACKWARDS
          for mode in (node.mode,)}


def _is_integer(x: Any) -> bool:
    """torch.nn.functional._is_integer: an int, or a tensor that is not floating point."""
    if isinstance(x, int):
        return True
    return isinstance(x, Tensor) and not x.dtype.is_floating_point


def _python_type(x: Any) -> str:
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else f"<class '{type(x).__name__}'>"


def _output_size_and_scales(input: Tensor, size: Any, scale_factor: Any,  # noqa: A002
                            recompute_scale_factor: bool | None, mode: str
                            ) -> tuple[list[int], list[float | None]]:
    """F.interpolate's size / scale_factor handling, then compute_output_size (which
    truncates input size · scale in double)."""
    dim = input.array.ndim - 2
    spatial = list(input.array.shape[2:])
    if size is not None and scale_factor is not None:
        raise TorchValueError("only one of size or scale_factor should be defined")
    if size is not None:
        factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise TorchValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TorchTypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    "Tuple[int, int, int], but got size with types "
                    f"[{', '.join(_python_type(x) for x in size)}]")
            sizes = list(size)
        else:
            sizes = [size] * dim
    elif scale_factor is not None:
        sizes = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise TorchValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                    "...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            factors = list(scale_factor)
        else:
            factors = [scale_factor] * dim
    else:
        raise TorchValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise TorchValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and sizes is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        sizes = [int(spatial[i] * float(factors[i])) for i in range(dim)]  # type: ignore[index]
        factors = None
    if sizes is not None:
        return [int(s) for s in sizes], [None] * dim
    scales = [float(f) for f in factors]  # type: ignore[union-attr]
    return [_truncate(spatial[i] * scales[i]) for i in range(dim)], list(scales)


def _truncate(value: float) -> int:
    """c10::checked_convert<int64_t>(double): toward zero."""
    if not math.isfinite(value) or not -2.0 ** 63 <= value < 2.0 ** 63:
        raise ScriptError("value cannot be converted to type int64_t without overflow",
                          kind="RuntimeError")
    return int(value)


_TOO_FEW = ("Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: "
            "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            "nearest-exact (got {})")
_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,  # noqa: A002
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """torch.nn.functional.interpolate: torch 2.13's argument checks and messages, then
    the upsampling op of the mode and input rank."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise TorchValueError("align_corners option can only be set with the interpolating "
                                  "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    ndim = input.array.ndim
    output_size, scales = _output_size_and_scales(input, size, scale_factor,
                                                  recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise TorchValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                              "modes and requires a 4-D tensor as input")
    if mode == "area" and ndim in (3, 4, 5):
        from . import pooling, pooling3d

        pool = {3: pooling.adaptive_avg_pool1d, 4: pooling.adaptive_avg_pool2d,
                5: pooling3d.adaptive_avg_pool3d}[ndim]
        return pool(input, output_size if ndim > 3 else output_size[0])
    if mode == "lanczos" and ndim == 4:
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
    if mode == "bicubic" and ndim == 4:
        check_sizes(input, output_size)
        from .upsample_bicubic import UpsampleBicubic2DBackward0

        _check_dtype(input, "bicubic", tuple(output_size))
        return UpsampleBicubic2DBackward0.call(input, output_size=tuple(output_size),
                                               scales=tuple(scales),
                                               align_corners=bool(align_corners))
    node = _NODES.get((mode, ndim - 2)) if mode != "lanczos" else None
    if node is None:
        if mode in _NEEDS and ndim in (3, 4, 5):
            raise ScriptError(f"Got {ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input",
                              kind="NotImplementedError")
        raise ScriptError(_TOO_FEW.format(ndim, mode), kind="NotImplementedError")
    check_sizes(input, output_size)
    _check_dtype(input, mode, tuple(output_size))
    if mode.startswith("nearest"):
        return node.call(input, output_size=tuple(output_size), scales=tuple(scales))
    return node.call(input, output_size=tuple(output_size), scales=tuple(scales),
                     align_corners=bool(align_corners))


def check_sizes(input: Tensor, output_size: list[int]) -> None:  # noqa: A002
    """upsample_{1,2,3}d_common_check and the meta functions' non-empty check."""
    shape = input.array.shape
    names = ("D", "H", "W")[3 - len(output_size):]
    if min(shape[2:]) <= 0 or min(output_size) <= 0:
        got_in = ", ".join(f"{n}: {v}" for n, v in zip(names, shape[2:], strict=True))
        got_out = ", ".join(f"{n}: {v}" for n, v in zip(names, output_size, strict=True))
        joint = " and output" if len(output_size) == 1 else " output"
        raise ScriptError(f"Input and output sizes should be greater than 0, but got input "
                          f"({got_in}){joint} ({got_out})", kind="RuntimeError")
    if input.array.size == 0 and math.prod(shape[1:]) == 0:
        raise ScriptError(f"Non-empty {len(shape)}D data tensor expected but got a tensor with "
                          f"sizes [{', '.join(map(str, shape))}]", kind="RuntimeError")


def _check_dtype(input: Tensor, mode: str, output_size: tuple[int, ...]) -> None:  # noqa: A002
    """The dispatch of the kernel ATen picks: floating types (nearest also uint8)."""
    from ._util import not_implemented

    dtype = input.dtype
    if dtype.is_floating_point or (mode.startswith("nearest") and dtype.name == "uint8"):
        return
    a, dims = input.array, input.array.ndim - 2
    if mode == "bicubic":
        kernel = "compute_indices_weights_cubic"
    elif kernels.channels_last_kernel(a, output_size, mode):
        name = "nearest" if mode.startswith("nearest") else mode
        kernel = f"upsample_{name}{dims}d_channels_last"
    else:
        kernel = ("compute_indices_weights_nearest" if mode.startswith("nearest")
                  else "compute_indices_weights_linear")
    raise not_implemented(kernel, dtype)


