"""F.conv_transpose1d/2d/3d: torch's `convolution` with transposed=True, the
same ConvolutionBackward0 node over (input, weight, bias) as a convolution (weight of shape
(in_channels, out_channels / groups, *kernel)).

Values: slow_conv_transpose2d/3d (float64, and float32 that use_mkldnn declines) in its order
(conv_values.transposed_forward, engine/slow_conv.py); oneDNN's float32 deconvolution on AVX2 as
the convolution whose data gradient it is (conv_values.deconvolution_plan: forward, input and
weight gradients in the orders conv_kernels / conv_brgemm reproduce, its bias gradient as
ref_deconvolution sums it); the rest (groups, 3-D, AVX-512, shapes those orders do not
cover) accumulates in float64 and rounds once, and the run notes it. Its backward is conv.py's
ConvolutionBackwardBackward0 with transposed=True, so create_graph records torch's nodes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import conv_nhwc, exactness
from ..formulas import vjp
from ..layouts import dense_in_format
from ..limits import reserve
from ..tensor import Tensor
from . import conv, conv_values
from .views import SqueezeBackward1

CAUSE = "transposed convolution: accumulated in float64, not in torch's kernel's order"


class ConvolutionBackward0(conv.ConvolutionBackward0):
    """convolution(input, weight, bias, stride, padding, dilation, transposed=True,
    output_padding, groups): the input gradient of a convolution, used as a layer."""

    __slots__ = ()
    formulas = (vjp("input", "conv({grad}, {weight}, " + conv._PARAMS + ")"),
                vjp("weight", "Σₙ {grad}ₙ ⋆ {input}ₙ (" + conv._PARAMS + ")"),
                vjp("bias", "{grad}.sum(0).flatten(1).sum(1)"))

    transposed = True

    def forward(self, x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                output_padding: tuple[int, ...]) -> np.ndarray:
        self.save_inputs(x, w, b, stride, padding, dilation, groups, output_padding)
        out = self._values(x, w, b, stride, padding, dilation, groups, output_padding)
        if conv_values.channels_last(x.array, w.array):  # torch's result: channels-last
            return dense_in_format(out, True)
        return out

    @staticmethod
    def _values(x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                output_padding: tuple[int, ...]) -> np.ndarray:
        plan = conv_values.transposed_plan(x.array, w.array, stride, padding, dilation,
                                           output_padding, groups)
        if plan is None and conv_values.channels_last(x.array, w.array) \
                and not any(output_padding) and all(s == 1 for s in stride):
            # brg_deconv: the flipped brg_conv_fwd of its convolution's data gradient
            out = _channels_last_values(x.array, w.array, padding, dilation, groups)
            if out is not None:
                if b is not None:
                    with np.errstate(all="ignore"):
                        out = out + b.array.reshape((1, -1) + (1,) * (out.ndim - 2))
                return out
        if plan is not None:
            return conv_values.transposed_forward(x.array, w.array, None if b is None else b.array,
                                           plan, groups)
        xs, ws = x.array.shape, w.array.shape
        spatial = tuple((xs[2 + i] - 1) * stride[i] - 2 * padding[i]
                        + dilation[i] * (ws[2 + i] - 1) + output_padding[i] + 1
                        for i in range(len(stride)))
        out_shape = (xs[0], ws[1] * groups) + spatial
        reserve(out_shape, 8)
        onednn_plan = None if x.array.dtype != np.float32 else conv_values.deconvolution_plan(
            xs, ws, out_shape, stride, padding, dilation, groups, "input")
        if onednn_plan is not None:
            out = conv_values.deconvolution_forward(x.array, w.array, onednn_plan)
            if b is not None:
                with np.errstate(all="ignore"):
                    out = out + b.array.reshape((1, -1) + (1,) * len(spatial))
            return out
        exactness.note(CAUSE)
        out = conv_values.conv_input_grad(x.array, w.array, out_shape, stride, padding, dilation,
                                   groups)
        if b is not None:
            out = out + b.array.astype(np.float64).reshape((1, -1) + (1,) * len(spatial))
        return out.astype(x.array.dtype)


def _channels_last_values(x: np.ndarray, w: np.ndarray, padding: tuple[int, ...],
                          dilation: tuple[int, ...], groups: int) -> np.ndarray | None:
    """A channels-last stride-1 deconvolution's output without its bias: the data
    gradient of the convolution of weight (Cin, Cout, *K) whose input is that output
    (engine/conv_nhwc.py); None where its order is not reproduced (noted)."""
    out_shape = (x.shape[0], w.shape[1] * groups) + tuple(
        x.shape[2 + i] - 2 * padding[i] + dilation[i] * (w.shape[2 + i] - 1)
        for i in range(x.ndim - 2))
    per_column = conv_values.nhwc_calls(out_shape, x.dtype, w.shape, x.shape[-1],
                                        (1,) * (x.ndim - 2), padding, dilation, groups,
                                        "input")
    if per_column is None:
        return None
    return conv_nhwc.backward_input(x, w, out_shape, padding, per_column)


def _check(x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
           padding: tuple[int, ...], output_padding: tuple[int, ...],
           dilation: tuple[int, ...], groups: int) -> None:
    """torch's ConvParams / check_shape_forward messages for transposed=1."""
    conv.check_params(x, w, stride, padding, output_padding, dilation, groups)
    ws, xs = w.array.shape, x.array.shape
    if xs[1] != ws[0]:
        raise TorchRuntimeError(
            f"Given transposed=1, weight of size [{', '.join(map(str, ws))}], expected "
            f"input[{', '.join(map(str, xs))}] to have {ws[0]} channels, but got {xs[1]} "
            "channels instead")
    if b is not None and (b.array.ndim != 1 or b.array.shape[0] != ws[1] * groups):
        raise TorchRuntimeError(
            f"Given transposed=1, weight of size [{', '.join(map(str, ws))}], expected bias "
            f"to be 1-dimensional with {ws[1] * groups} elements, but got bias of size "
            f"[{', '.join(map(str, b.array.shape))}] instead")
    for i in range(len(stride)):
        if output_padding[i] >= max(stride[i], dilation[i]):
            message = "output padding must be smaller than either stride or dilation"
            if len(stride) == 3:  # slow_conv_transpose3d's shape check names every value
                dims = ("depth", "height", "width")
                message += ", but got " + " ".join(
                    f"{name}_{d}: {v}" for name, values in (
                        ("output_padding", output_padding), ("stride", stride),
                        ("dilation", dilation)) for d, v in zip(dims, values, strict=True))
            raise TorchRuntimeError(message)
    conv.check_weight_dtype(x, w, stride, dilation, groups)


def _conv_transpose(name: str, nd: int, x: Tensor, w: Tensor, b: Tensor | None, stride: Any,
                    padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    x, unbatched = conv.batched_input(name, nd, x)
    conv_nd = w.array.ndim - 2
    values = {}
    for key, value in (("stride", stride), ("padding", padding),
                       ("output_padding", output_padding), ("dilation", dilation)):
        values[key] = conv._expand(value, nd)
        conv._check_length(key, values[key], conv_nd)
    _check(x, w, b, values["stride"], values["padding"], values["output_padding"],
           values["dilation"], groups)
    out = ConvolutionBackward0.call(x, w, b, stride=values["stride"], padding=values["padding"],
                                    dilation=values["dilation"], groups=groups,
                                    output_padding=values["output_padding"])
    if unbatched:
        out = SqueezeBackward1.call(out, dim=0)
    return out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)
