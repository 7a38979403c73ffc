"""F.conv1d / F.conv2d / F.conv3d (and torch.conv1d/2d/3d): torch's `convolution`, one
`ConvolutionBackward0` node over (input, weight, bias), whose backward is the
multi-output `ConvolutionBackwardBackward0` (grad_input, grad_weight, grad_bias).

Values are torch's kernels' own order: slow_conv2d's / slow_conv3d's and the dilated
kernels' im2col + MKL gemm (float64, and float32 that use_mkldnn declines; channels-last
frames too) in engine/slow_conv.py, oneDNN's AVX2 direct kernels (2-D) in
engine/conv_kernels.py, its brgconv_strided input gradients in engine/conv_brgemm.py (also a
strided deconvolution's forward), its AVX2 jit_1x1 kernels in engine/conv_kernels.py too,
its gemm:jit kernels in engine/conv_gemm.py, its brgemm kernels for channels-last memory in
engine/conv_nhwc.py, and its AVX-512 ones in engine/conv_avx512.py. A convolution whose
input or weight suggests channels-last memory returns a channels-last output and input
gradient, as torch's. The rest (grouped kernels, AVX-512's 1x1 kernels, every 3-D oneDNN
kernel) accumulate in float64 and round once, and the run notes that their last bit may
differ.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import conv_kernels, dtypes
from ..formulas import vjp
from ..jit import JIT
from ..layouts import dense_in_format, suggests_channels_last
from ..limits import reserve
from ..meta import is_meta, meta_array
from ..node import Function
from ..tensor import Tensor
from .conv_values import (
    _as_2d,
    backward_values,
    channels_last,
    conv_channels_last,
    forward_values,
    in_conv_format,
    out_size,
    transposed_backward,
    transposed_grads,
    transposed_plan,
)
from .views import SqueezeBackward1, UnsqueezeBackward0, warn

# The convolution's gradients, as explain shows them: conv_transpose is the transposed
# convolution (the input's gradient), ⋆ the cross-correlation of the input with the
# gradient over the batch (the weight's), both with the forward's parameters.
_PARAMS = "stride={stride}, padding={padding}, dilation={dilation}, groups={groups}"


class ConvolutionBackward0(Function):
    """convolution(input, weight, bias, stride, padding, dilation, transposed=False, ...)."""

    __slots__ = ()
    formulas = (vjp("input", "conv_transpose({grad}, {weight}, " + _PARAMS + ")"),
                vjp("weight", "Σₙ {input}ₙ ⋆ {grad}ₙ (" + _PARAMS + ")"),
                vjp("bias", "{grad}.sum(0).flatten(1).sum(1)"))

    transposed = False  # torch's `transposed` argument, shown as `_saved_transposed`

    def save_inputs(self, x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
                    padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                    output_padding: tuple[int, ...]) -> None:
        """What torch's ConvolutionBackward0 saves, transposed or not."""
        self.save("input", x)
        self.save("weight", w)
        self.save_attr(bias_sym_sizes_opt=b.array.shape if b is not None else (0,),
                       dilation=dilation, groups=groups, output_padding=output_padding,
                       padding=padding, stride=stride, transposed=self.transposed)

    def forward(self, x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                output_padding: tuple[int, ...]) -> np.ndarray:
        self.save_inputs(x, w, b, stride, padding, dilation, groups, output_padding)
        full = tuple(padding) * len(stride) if len(padding) == 1 else tuple(padding)
        cl = conv_channels_last(x.array, w.array)
        out = forward_values(x.array, w.array, None if b is None else b.array, stride, full,
                              dilation, groups, cl)
        return in_conv_format(out, True) if cl else out

    def meta_forward(self, x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
                     padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                     output_padding: tuple[int, ...]) -> np.ndarray:
        """On meta: saves as forward does; the output's shape from the sizes alone (the
        input was checked against the weight before the call)."""
        self.save_inputs(x, w, b, stride, padding, dilation, groups, output_padding)
        full = tuple(padding) * len(stride) if len(padding) == 1 else tuple(padding)
        xs, ks = x.array.shape, w.array.shape
        if self.transposed:
            channels = ks[1] * groups
            spatial = [(n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, k, s, p, d, op in zip(
                xs[2:], ks[2:], stride, full, dilation, output_padding, strict=True)]
        else:
            channels, spatial = ks[0], out_size(xs[2:], ks[2:], stride, full, dilation)
        return meta_array((xs[0], channels, *spatial), x.array.dtype)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        a = self.attrs
        mask = (self.needs_input_grad(0), self.needs_input_grad(1), self.needs_input_grad(2))
        outs = convolution_backward(grad, self.unpack("input"), self.unpack("weight"),
                                    bias_sizes=a["bias_sym_sizes_opt"], stride=a["stride"],
                                    padding=a["padding"], dilation=a["dilation"],
                                    groups=a["groups"], output_padding=a["output_padding"],
                                    transposed=self.transposed, mask=mask)
        return tuple(o if m else None for o, m in zip(outs, mask, strict=True))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # _convolution_jvp: conv(input_t, weight_p, bias_t) + conv(input_p, weight_t, None)
        x, w, b = inputs
        cls = type(self)
        return (cls.call(t[0], w, None if b is None else t[2], **params)
                + cls.call(x, t[1], None, **params))


class ConvolutionBackwardBackward0(Function):
    """convolution_backward(grad_output, input, weight, ...) as an op: three outputs
    (grad_input, grad_weight, grad_bias), so create_graph records torch's node."""

    __slots__ = ()
    formulas = (vjp("grad_output", "conv({grad}[0], {weight}, " + _PARAMS + ") + conv({input}, "
                    "{grad}[1], " + _PARAMS + ") + {grad}[2].view(1, -1, 1, …)"),
                vjp("input", "conv_transpose({grad_output}, {grad}[1], " + _PARAMS + ")"),
                vjp("weight", "Σₙ {grad}[0]ₙ ⋆ {grad_output}ₙ (" + _PARAMS + ")"))
    multi_output = True
    materialize_grads = False  # which of ggI, ggW, ggb are defined shapes the graph

    def forward(self, grad: Tensor, x: Tensor, w: Tensor, bias_sizes: tuple[int, ...],
                stride: tuple[int, ...], padding: tuple[int, ...], dilation: tuple[int, ...],
                groups: int, output_padding: tuple[int, ...], transposed: bool,
                mask: tuple[bool, bool, bool]) -> list[np.ndarray]:
        self.save_attr(dilation=dilation)
        self.save("grad_output", grad)
        self.save_attr(groups=groups)
        self.save("input", x)
        self.save_attr(output_padding=output_padding, padding=padding, stride=stride,
                       transposed=transposed)
        self.save("weight", w)
        full = tuple(padding) * len(stride) if len(padding) == 1 else tuple(padding)
        dtype = x.array.dtype
        g = grad.array.astype(dtype, copy=False)
        xa, wa = x.array, w.array
        if not transposed and any(output_padding):
            raise TorchRuntimeError("output_padding is not supported for non-transposed "
                                    "convolutions; got: " + " ".join(map(str, output_padding)))
        if transposed:
            plan = transposed_plan(xa, wa, stride, full, dilation, output_padding, groups)
            if plan is None:
                gi, gw, gb = transposed_grads(g, xa, wa, bias_sizes,
                                               (stride, full, dilation, groups), mask)
                if channels_last(xa, wa):
                    gi = dense_in_format(gi, True)
                    gw = dense_in_format(gw, suggests_channels_last(wa))
                return [gi, gw, gb]
            bias_shape = bias_sizes if bias_sizes != (0,) else (wa.shape[1] * groups,)
            outs = transposed_backward(g, xa, wa, plan, groups,
                                        (mask[0], mask[1], mask[2] and bias_sizes != (0,)))
            return [o.astype(dtype, copy=False) if o is not None else np.zeros(shape, dtype)
                    for o, shape in zip(outs, (xa.shape, wa.shape, bias_shape), strict=True)]
        bias_shape = bias_sizes if bias_sizes != (0,) else (wa.shape[0],)
        cl = conv_channels_last(xa, wa)
        gi, gw, gb = backward_values(g, xa, wa, bias_shape, stride, full, dilation, groups,
                                      (mask[0], mask[1], mask[2] and bias_sizes != (0,)), cl)
        # fresh dense results (a kernel's may view its padded buffer): the input gradient in
        # the convolution's format, the weight's in the weight's own (measured)
        return [in_conv_format(gi.astype(dtype, copy=False), cl),
                dense_in_format(gw.astype(dtype, copy=False), cl and suggests_channels_last(wa)),
                np.ascontiguousarray(gb, dtype)]

    def backward(self, gg_input: Tensor | None, gg_weight: Tensor | None,
                 gg_bias: Tensor | None) -> tuple[Tensor | None, ...]:
        """torch's _convolution_double_backward (Convolution.cpp), op for op."""
        from .joins import cat
        from .select_views import narrow
        from .views import expand, transpose

        a = self.attrs
        grad, x, w = self.unpack("grad_output"), self.unpack("input"), self.unpack("weight")
        nd = w.ndim - 2
        stride, dilation, groups = tuple(a["stride"]), tuple(a["dilation"]), a["groups"]
        padding = tuple(a["padding"]) * nd if len(a["padding"]) == 1 else tuple(a["padding"])
        output_padding, transposed = tuple(a["output_padding"]), a["transposed"]
        params = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                      output_padding=output_padding, transposed=transposed)
        g_grad = g_x = g_w = None
        if self.needs_input_grad(0):  # ggO = conv(ggI, w) + conv(x, ggW) + ggb
            if gg_input is not None:
                g_grad = convolution(gg_input, w, None, **params)
            if gg_weight is not None:
                term = convolution(x, gg_weight, None, **params)
                g_grad = term if g_grad is None else g_grad + term
            if gg_bias is not None:
                shape = [1] * grad.ndim
                shape[1] = gg_bias.shape[0]
                term = expand(gg_bias.contiguous().view(tuple(shape)), tuple(grad.shape))
                g_grad = term if g_grad is None else g_grad + term
        if self.needs_input_grad(2) and gg_input is not None:  # gW = conv(ggI, gO)
            swapped = dict(stride=dilation, padding=padding, dilation=stride, groups=1,
                           output_padding=output_padding, transposed=False)
            grad_t, gg_t = transpose(grad, 0, 1), transpose(gg_input, 0, 1)
            pairs = [(grad_t, gg_t)] if groups == 1 else [
                (_subvariable(grad_t, groups, g), _subvariable(gg_t, groups, g))
                for g in range(groups)]
            parts = [convolution(go, gi, None, **swapped) if transposed
                     else convolution(gi, go, None, **swapped) for go, gi in pairs]
            g_w = transpose(parts[0] if groups == 1 else cat(parts, 1), 0, 1)
            for i in range(2, g_w.ndim):
                if g_w.shape[i] > w.shape[i]:
                    g_w = narrow(g_w, i, 0, w.shape[i])
        if self.needs_input_grad(1) and gg_weight is not None:  # gI = convT(gO, ggW)
            pad_out = list(output_padding)
            if not transposed:  # the output padding that gives the input's size back
                for i in range(nd):
                    expected = ((w.shape[2 + i] - 1) * dilation[i] - 2 * padding[i]
                                + stride[i] * (grad.shape[2 + i] - 1) + 1)
                    if expected != x.shape[2 + i]:
                        pad_out[i] = x.shape[2 + i] - expected
            g_x = convolution(grad, gg_weight, None, **{**params, "transposed": not transposed,
                                                       "output_padding": tuple(pad_out)})
            if transposed:
                for i in range(2, g_x.ndim):
                    if g_x.shape[i] > x.shape[i]:
                        g_x = narrow(g_x, i, 0, x.shape[i])
        return g_grad, g_x, g_w


def _subvariable(t: Tensor, groups: int, g: int) -> Tensor:
    """Group g's slice of dim 0 (Convolution.cpp's subvariable)."""
    from .select_views import narrow

    n = t.shape[0] // groups
    return narrow(t, 0, n * g, n)


def convolution(x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                output_padding: tuple[int, ...], transposed: bool = False) -> Tensor:
    """aten::convolution: one ConvolutionBackward0 node, plain or transposed."""
    node: type[ConvolutionBackward0] = ConvolutionBackward0
    if transposed:
        from .conv_transpose import ConvolutionBackward0 as node
    if JIT.mode == "trace":  # the traced graph's aten::_convolution (see engine/jit.py)
        node = _TRACED[transposed]
    return node.call(x, w, b, stride=stride, padding=padding, dilation=dilation,
                     groups=groups, output_padding=output_padding)


def _traced_nodes() -> dict[bool, type[ConvolutionBackward0]]:
    """derivatives.yaml's `_convolution` node: ConvolutionBackward0's saved values and
    formula under the name ConvolutionBackward1, plain and transposed."""
    from .conv_transpose import ConvolutionBackward0 as transposed

    return {flag: type("ConvolutionBackward1", (base,), {"__slots__": (), "__module__":
                                                         base.__module__})
            for flag, base in ((False, ConvolutionBackward0), (True, transposed))}


def convolution_backward(grad: Tensor, x: Tensor, w: Tensor, transposed: bool = False,
                         **params: Any) -> list[Tensor]:
    """aten::convolution_backward: (grad_input, grad_weight, grad_bias) as one op."""
    return ConvolutionBackwardBackward0.call(grad, x, w, transposed=transposed, **params)


_TRACED = _traced_nodes()


# -- F.conv1d / F.conv2d: argument handling and torch's checks ------------------------


def _expand(value: Any, nd: int) -> tuple[int, ...]:
    """An int[nd] argument: an int or a one-element list is repeated (torch's parser)."""
    values = (value,) if isinstance(value, int) else tuple(value)
    return values * nd if len(values) == 1 else values


def _check_length(name: str, values: tuple[int, ...], conv_nd: int) -> None:
    if len(values) != conv_nd:
        listed = ", ".join(map(str, values))
        raise TorchRuntimeError(
            f"expected {name} to be a single integer value or a list of {conv_nd} values to "
            f"match the convolution dimensions, but got {name}=[{listed}]")


def _dims_text(values: Any) -> str:
    return " x ".join(map(str, values))


def check_params(x: Tensor, w: Tensor, stride: tuple[int, ...], padding: tuple[int, ...],
                 output_padding: tuple[int, ...], dilation: tuple[int, ...],
                 groups: int) -> None:
    """torch's ConvParams checks shared by convolution and transposed convolution, in
    torch's order (a plain convolution has no output_padding)."""
    if any(s <= 0 for s in stride):
        raise TorchRuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise TorchRuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise TorchRuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise TorchRuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise TorchRuntimeError("non-positive groups is not supported")
    ws = w.array.shape
    if ws[0] < groups:
        raise TorchRuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size [{', '.join(map(str, ws))}] instead")
    if ws[0] % groups:
        raise TorchRuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(ws)}] instead")


def check_weight_dtype(x: Tensor, w: Tensor, stride: tuple[int, ...],
                       dilation: tuple[int, ...], groups: int) -> None:
    """After the shape checks, the backend's: oneDNN's (a float32 input use_mkldnn takes)
    compares the types, the slow kernels read the weight as the input's scalar type (a
    float16 input too where oneDNN is capped at AVX2, as the corpus runs torch)."""
    if x.dtype is w.dtype:
        return
    xs, ws, st, _, dil = _as_2d(x.array.shape, w.array.shape, stride, (0,) * len(stride),
                                dilation)
    if x.dtype is dtypes.float32 and conv_kernels.uses_onednn(xs, ws, st, dil, groups):
        raise TorchRuntimeError(
            f"Input type (torch.{x.dtype.tensor_type}) and weight type "
            f"(torch.{w.dtype.tensor_type}) should be the same or input should be a MKLDNN "
            "tensor and weight is a dense tensor")
    raise TorchRuntimeError(f"expected scalar type {x.dtype.scalar_type} but found "
                            f"{w.dtype.scalar_type}")


def _check(x: Tensor, w: Tensor, b: Tensor | None, stride: tuple[int, ...],
           padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> None:
    """torch's ConvParams / check_shape_forward messages, in torch's order."""
    check_params(x, w, stride, padding, (), dilation, groups)
    ws, xs = w.array.shape, x.array.shape
    if xs[1] != ws[1] * groups:
        raise TorchRuntimeError(
            f"Given groups={groups}, weight of size [{', '.join(map(str, ws))}], expected "
            f"input[{', '.join(map(str, xs))}] to have {ws[1] * groups} channels, but got "
            f"{xs[1]} channels instead")
    if b is not None and (b.array.ndim != 1 or b.array.shape[0] != ws[0]):
        raise TorchRuntimeError(
            f"Given weight of size [{', '.join(map(str, ws))}], expected bias to be "
            f"1-dimensional with {ws[0]} elements, but got bias of size "
            f"[{', '.join(map(str, b.array.shape))}] instead")
    padded = [xs[2 + i] + 2 * padding[i] for i in range(len(stride))]
    kernel = [(ws[2 + i] - 1) * dilation[i] + 1 for i in range(len(stride))]
    if any(p < k for p, k in zip(padded, kernel, strict=True)):
        raise TorchRuntimeError(
            f"Calculated padded input size per channel: ({_dims_text(padded)}). Kernel size: "
            f"({_dims_text(kernel)}). Kernel size can't be greater than actual input size")
    check_weight_dtype(x, w, stride, dilation, groups)


def batched_input(name: str, nd: int, x: Tensor) -> tuple[Tensor, bool]:
    """An nd-spatial input with its batch dim (an unbatched one unsqueezed, as torch's
    convolutions do), and whether it had none."""
    if x.array.ndim not in (nd + 1, nd + 2):
        raise TorchRuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: [{', '.join(map(str, x.array.shape))}]")
    unbatched = x.array.ndim == nd + 1
    return (UnsqueezeBackward0.call(x, dim=0) if unbatched else x), unbatched


def _conv(name: str, nd: int, x: Tensor, w: Tensor, b: Tensor | None, stride: Any,
          padding: Any, dilation: Any, groups: int) -> Tensor:
    if b is not None and b.dtype is not x.dtype and not isinstance(padding, str):
        raise TorchRuntimeError(  # conv1d/2d/3d's first check (not the padding='same' ones')
            f"Input type ({dtypes.C_TYPE_NAMES[x.dtype.name]}) and bias type "
            f"({dtypes.C_TYPE_NAMES[b.dtype.name]}) should be the same")
    x, unbatched = batched_input(name, nd, x)
    conv_nd = w.array.ndim - 2
    stride = _expand(stride, nd)
    dilation = _expand(dilation, nd)
    _check_length("stride", stride, conv_nd)
    output_padding: tuple[int, ...] = (0,) * conv_nd
    if isinstance(padding, str):
        if JIT.mode == "trace":  # traced as aten::_convolution_mode, not _convolution
            from ..jit import refuse

            refuse(f"{name}(padding='{padding}')")
        if padding == "valid":
            padding, output_padding = (0,), (0,)
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise TorchRuntimeError(
                    "padding='same' is not supported for strided convolutions")
            x, padding = _same_padding(x, w, dilation)
        else:
            raise TorchRuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _expand(padding, nd)
        _check_length("padding", padding, conv_nd)
    _check_length("dilation", dilation, conv_nd)
    full = padding * conv_nd if len(padding) == 1 else padding
    _check(x, w, b, stride, full, dilation, groups)
    out_shape = out_size(x.array.shape[2:], w.array.shape[2:], stride, full, dilation)
    if not is_meta(x.array):  # (a meta tensor's result holds no data)
        reserve((x.array.shape[0], w.array.shape[0]) + out_shape, 8)
        reserve((x.array.shape[0], x.array.shape[1]) + out_shape + tuple(w.array.shape[2:]),
                8)
    out = convolution(x, w, b, stride=stride, padding=padding, dilation=dilation,
                      groups=groups, output_padding=output_padding)
    if unbatched:
        out = SqueezeBackward1.call(out, dim=0)
    return out


def _same_padding(x: Tensor, w: Tensor, dilation: tuple[int, ...]
                  ) -> tuple[Tensor, tuple[int, ...]]:
    """torch's _convolution_mode('same'): symmetric padding where it can, else the input
    padded on the right first (constant_pad_nd) with a warning."""
    nd = w.array.ndim - 2
    left = []
    pad_nd = [0] * (2 * nd)
    symmetric = True
    for i in range(nd):
        total = dilation[i] * (w.array.shape[2 + i] - 1)
        lo = total // 2
        hi = total - lo
        left.append(lo)
        if lo != hi:
            symmetric = False
            pad_nd[2 * (nd - 1 - i) + 1] = hi - lo
    if not symmetric:
        from .padding import constant_pad_nd

        warn("Using padding='same' with even kernel lengths and odd dilation may require a "
             "zero-padded copy of the input be created (Triggered internally at /__w/pytorch/"
             "pytorch/aten/src/ATen/native/Convolution.cpp:1101.)")
        x = constant_pad_nd(x, tuple(pad_nd), 0)
    return x, tuple(left)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)
