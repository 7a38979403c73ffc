"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d, adaptive_max_pool1d/2d.

Like torch, the 1-D forms are the 2-D kernels over `input.unsqueeze(-2)`, squeezed back.
Values: max pooling is exact; average pooling sums each window in the dtype in torch's
loop order (rows, then columns) and divides once, as ATen's cpu_avg_pool does (its
channels-last kernels too, whose results, like the input gradients, are channels-last).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from .. import dtypes
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..layouts import dense_in_format, suggests_channels_last
from ..meta import meta_array
from ..node import Function
from ..tensor import Tensor
from ._util import not_implemented
from .views import SqueezeBackward1, UnsqueezeBackward0


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    values = tuple(value)
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def _out_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil: bool) -> int:
    """ATen's pooling_output_shape."""
    top = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil else 0)
    out = top // stride + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _check_pool(x: Tensor, kernel: tuple[int, int], stride: tuple[int, int],
                padding: tuple[int, int], dilation: tuple[int, int], ceil: bool
                ) -> tuple[int, int]:
    shape = x.array.shape
    if x.array.ndim not in (3, 4) or 0 in shape[-3:]:
        raise TorchRuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if 0 in stride:
        raise TorchRuntimeError("stride should not be zero")
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p > ((k - 1) * d + 1) // 2:
            raise TorchRuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}")
    h, w = shape[-2:]
    oh = _out_size(h, kernel[0], padding[0], stride[0], dilation[0], ceil)
    ow = _out_size(w, kernel[1], padding[1], stride[1], dilation[1], ceil)
    if oh < 1 or ow < 1:
        raise TorchRuntimeError(
            f"Given input size: ({shape[-3]}x{h}x{w}). Calculated output size: "
            f"({shape[-3]}x{oh}x{ow}). Output size is too small")
    return oh, ow


def _laid_out_as_input(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A 2-D pool's result (and its input gradient) in the memory format its input
    suggests: the CPU kernels' channels-last ones lay theirs out channels-last."""
    return dense_in_format(out, suggests_channels_last(x))


def _window_starts(out: int, stride: int, pad: int) -> np.ndarray:
    return np.arange(out) * stride - pad


# Pooling's gradients, as explain shows them: ωₒ is the window of output o, |ωₒ| the number
# of elements averaged in it; Σₒ:ᵢ∈ωₒ sums over the windows that hold input element i.
ROUTED_TO_MAX = ("zeros_like({self}).flatten(-2).scatter_add(-1, {result1}.flatten(-2), "
                 "{grad}.flatten(-2)).view_as({self})")
AVERAGED_OVER_WINDOWS = (
    vjp("self", "Σₒ:ᵢ∈ωₒ {grad}ₒ / ∏{kernel_size}",
        when=(("divisor_override", None), ("count_include_pad", True), ("ceil_mode", False))),
    vjp("self", "Σₒ:ᵢ∈ωₒ {grad}ₒ / |ωₒ|", when=(("divisor_override", None),)),
    vjp("self", "Σₒ:ᵢ∈ωₒ {grad}ₒ / {divisor_override}"))


class MaxPool2DWithIndicesBackward0(Function):
    """max_pool2d_with_indices: saves self and the indices (`result1`)."""

    __slots__ = ()
    formulas = (vjp("self", ROUTED_TO_MAX),)

    def _begin(self, a: Tensor, kernel_size: tuple[int, int], stride: tuple[int, ...],
               padding: tuple[int, int], dilation: tuple[int, int],
               ceil_mode: bool) -> tuple[tuple[int, ...], int, int]:
        """The checks and saves forward and meta_forward share: (stride, oh, ow)."""
        st = stride or kernel_size
        oh, ow = _check_pool(a, kernel_size, st, padding, dilation, ceil_mode)
        self.save_attr(ceil_mode=ceil_mode, dilation=dilation, kernel_size=kernel_size,
                       padding=padding, stride=stride)
        self.save("self", a)
        return st, oh, ow

    def forward(self, a: Tensor, kernel_size: tuple[int, int], stride: tuple[int, ...],
                padding: tuple[int, int], dilation: tuple[int, int], ceil_mode: bool,
                indices_out: list[np.ndarray]) -> np.ndarray:
        st, oh, ow = self._begin(a, kernel_size, stride, padding, dilation, ceil_mode)
        x = a.array
        h, w = x.shape[-2:]
        rows = _window_starts(oh, st[0], padding[0])[:, None] + np.arange(kernel_size[0]) * \
            dilation[0]  # (oh, kh)
        cols = _window_starts(ow, st[1], padding[1])[:, None] + np.arange(kernel_size[1]) * \
            dilation[1]  # (ow, kw)
        valid_r, valid_c = (rows >= 0) & (rows < h), (cols >= 0) & (cols < w)
        r = np.clip(rows, 0, h - 1)
        c = np.clip(cols, 0, w - 1)
        vals = x[..., r[:, None, :, None], c[None, :, None, :]]  # (..., oh, ow, kh, kw)
        valid = valid_r[:, None, :, None] & valid_c[None, :, None, :]
        vals = np.where(valid, vals, -np.inf)
        flat = vals.reshape(vals.shape[:-2] + (-1,))
        # torch: `val > maxval || isnan(val)` keeps the first maximum, and a NaN wins
        nan = np.isnan(flat)
        pick = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
        kh_idx, kw_idx = np.divmod(pick, kernel_size[1])
        oi = np.arange(oh)[:, None]
        oj = np.arange(ow)[None, :]
        indices = (rows[oi, kh_idx] * w + cols[oj, kw_idx]).astype(np.int64)
        indices = _laid_out_as_input(indices, x)
        indices_out.append(indices)
        self.save("result1", Tensor._wrap(indices))
        return _laid_out_as_input(
            np.take_along_axis(flat, pick[..., None], -1)[..., 0].astype(x.dtype), x)

    def meta_forward(self, a: Tensor, kernel_size: tuple[int, int], stride: tuple[int, ...],
                     padding: tuple[int, int], dilation: tuple[int, int], ceil_mode: bool,
                     indices_out: list[np.ndarray]) -> np.ndarray:
        """On meta: forward's checks and saves; the windows' count from the sizes alone."""
        _, oh, ow = self._begin(a, kernel_size, stride, padding, dilation, ceil_mode)
        shape = a.array.shape[:-2] + (oh, ow)
        indices = meta_array(shape, np.int64)
        indices_out.append(indices)
        self.save("result1", Tensor._wrap(indices))
        return meta_array(shape, a.array.dtype)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # result0: gather(self_t.flatten(-2), -1, result1.flatten(-2)).view_as(result1)
        from .indexing import gather

        idx = Tensor._wrap(params["indices_out"][-1])
        return gather(t[0].flatten(-2), -1, idx.flatten(-2)).view(*idx.shape)

    def backward(self, grad: Tensor) -> Tensor:
        return MaxPool2DWithIndicesBackwardBackward0.call(grad, self.unpack("self"),
                                                          indices=self.unpack("result1"))


def _scatter_flat(g: np.ndarray, indices: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Add each gradient element into the input position its index names (per plane)."""
    planes = int(np.prod(shape[:-2]))
    hw = shape[-2] * shape[-1]
    out = np.zeros((planes, hw), dtype=g.dtype)
    gi = g.reshape(planes, -1)
    idx = indices.reshape(planes, -1)
    np.add.at(out, (np.arange(planes)[:, None], idx), gi)
    return out.reshape(shape)


class MaxPool2DWithIndicesBackwardBackward0(Function):
    """max_pool2d_with_indices_backward(grad_output, self, ..., indices) as an op (the
    indices are not differentiable: not an input)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "{grad}.flatten(-2).gather(-1, {indices}.flatten(-2))"
                                   ".view_as({indices})"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor, indices: Tensor) -> np.ndarray:
        self.save("indices", indices)
        return _laid_out_as_input(_scatter_flat(grad.array, indices.array, a.array.shape),
                                  a.array)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_grad = _gather_pool(gg, self.unpack("indices")) if self.needs_input_grad(0) else None
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


def _gather_pool(gg: Tensor, indices: Tensor) -> Tensor:
    """torch's max_pool_double_backward: gg.flatten(-2).gather(-1, idx.flatten(-2))."""
    from .indexing import gather

    flat = gg.flatten(-2)
    return gather(flat, -1, indices.flatten(-2)).view(indices.shape)


class AvgPool2DBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = AVERAGED_OVER_WINDOWS

    def forward(self, a: Tensor, kernel_size: tuple[int, int], stride: tuple[int, ...],
                padding: tuple[int, int], ceil_mode: bool, count_include_pad: bool,
                divisor_override: int | None) -> np.ndarray:
        st = stride or kernel_size
        _check_pool(a, kernel_size, st, padding, (1, 1), ceil_mode)
        self.save_attr(ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                       divisor_override=divisor_override, kernel_size=kernel_size,
                       padding=padding, stride=stride)
        self.save("self", a)
        return _laid_out_as_input(_avg_pool(a.array, kernel_size, st, padding, ceil_mode,
                                            count_include_pad, divisor_override), a.array)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return AvgPool2DBackwardBackward0.call(
            grad, self.unpack("self"), kernel_size=a["kernel_size"], stride=a["stride"],
            padding=a["padding"], ceil_mode=a["ceil_mode"],
            count_include_pad=a["count_include_pad"], divisor_override=a["divisor_override"])


def _avg_windows(size: tuple[int, int], kernel: tuple[int, int], stride: tuple[int, int],
                 padding: tuple[int, int], ceil: bool, count_include_pad: bool,
                 divisor_override: int | None) -> list[tuple[int, int, int, int, int]]:
    """(row, col, start, end) window bounds per output position, with each divisor."""
    h, w = size
    oh = _out_size(h, kernel[0], padding[0], stride[0], 1, ceil)
    ow = _out_size(w, kernel[1], padding[1], stride[1], 1, ceil)
    out = []
    for i in range(oh):
        h0 = i * stride[0] - padding[0]
        h1 = min(h0 + kernel[0], h + padding[0])
        for j in range(ow):
            w0 = j * stride[1] - padding[1]
            w1 = min(w0 + kernel[1], w + padding[1])
            pool = (h1 - h0) * (w1 - w0)
            hs, ws, he, we = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            if divisor_override:
                div = divisor_override
            elif count_include_pad:
                div = pool
            else:
                div = (he - hs) * (we - ws)
            out.append((i, j, hs, he, ws, we, div))
    return out


def _avg_pool(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int],
              padding: tuple[int, int], ceil: bool, count_include_pad: bool,
              divisor_override: int | None) -> np.ndarray:
    h, w = x.shape[-2:]
    windows = _avg_windows((h, w), kernel, stride, padding, ceil, count_include_pad,
                           divisor_override)
    oh, ow = windows[-1][0] + 1, windows[-1][1] + 1
    out = np.zeros(x.shape[:-2] + (oh, ow), dtype=x.dtype)
    for i, j, hs, he, ws, we, div in windows:
        acc = np.zeros(x.shape[:-2], dtype=x.dtype)
        for r in range(hs, he):  # torch's loop order, summed in the dtype
            for c in range(ws, we):
                acc += x[..., r, c]
        out[..., i, j] = acc / np.asarray(div, x.dtype)
    return out


class AvgPool2DBackwardBackward0(Function):
    """avg_pool2d_backward(grad_output, self, ...) as an op; saves the pooling arguments."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "avg_pool2d({grad}, {kernel_size}, {stride}, {padding}, "
                                   "{ceil_mode}, {count_include_pad}, {divisor_override})"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor, kernel_size: tuple[int, int],
                stride: tuple[int, ...], padding: tuple[int, int], ceil_mode: bool,
                count_include_pad: bool, divisor_override: int | None) -> np.ndarray:
        self.save_attr(ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                       divisor_override=divisor_override, kernel_size=kernel_size,
                       padding=padding, stride=stride)
        x = a.array
        g = grad.array
        out = np.zeros(x.shape, dtype=g.dtype)
        for i, j, hs, he, ws, we, div in _avg_windows(
                x.shape[-2:], kernel_size, stride or kernel_size, padding, ceil_mode,
                count_include_pad, divisor_override):
            out[..., hs:he, ws:we] += (g[..., i, j] / np.asarray(div, g.dtype))[..., None, None]
        return _laid_out_as_input(out, x)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        a = self.attrs
        g_grad = AvgPool2DBackward0.call(
            gg, kernel_size=a["kernel_size"], stride=a["stride"], padding=a["padding"],
            ceil_mode=a["ceil_mode"], count_include_pad=a["count_include_pad"],
            divisor_override=a["divisor_override"]) if self.needs_input_grad(0) else None
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


# -- adaptive pooling -------------------------------------------------------------------


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    """ATen's start_index / end_index: floor(o * I / O) and ceil((o + 1) * I / O)."""
    return [((o * size) // out, -((-(o + 1) * size) // out)) for o in range(out)]


def _adaptive_windows(shape: tuple[int, int], out: tuple[int, int]
                      ) -> list[tuple[int, int, int, int, int, int]]:
    rows, cols = _adaptive_bounds(shape[0], out[0]), _adaptive_bounds(shape[1], out[1])
    return [(i, j, r0, r1, c0, c1) for i, (r0, r1) in enumerate(rows)
            for j, (c0, c1) in enumerate(cols)]


class AdaptiveAvgPool2DBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "Σₒ:ᵢ∈ωₒ {grad}ₒ / |ωₒ|"),)

    def forward(self, a: Tensor, output_size: tuple[int, int]) -> np.ndarray:
        self.save("self", a)
        x = a.array
        out = np.zeros(x.shape[:-2] + tuple(output_size), dtype=x.dtype)
        for i, j, r0, r1, c0, c1 in _adaptive_windows(x.shape[-2:], output_size):
            acc = np.zeros(x.shape[:-2], dtype=x.dtype)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    acc += x[..., r, c]
            # ATen: sum / kh / kw
            out[..., i, j] = acc / np.asarray(r1 - r0, x.dtype) / np.asarray(c1 - c0, x.dtype)
        return _laid_out_as_input(out, x)

    def backward(self, grad: Tensor) -> Tensor:
        return AdaptiveAvgPool2DBackwardBackward0.call(grad, self.unpack("self"))


class AdaptiveAvgPool2DBackwardBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "adaptive_avg_pool2d({grad}, "
                    "({grad_output_sym_argsize_minus_2}, {grad_output_sym_argsize_minus_1}))"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor) -> np.ndarray:
        g = grad.array
        self.save_attr(grad_output_sym_argsize_minus_1=g.shape[-1],
                       grad_output_sym_argsize_minus_2=g.shape[-2])
        out = np.zeros(a.array.shape, dtype=g.dtype)
        for i, j, r0, r1, c0, c1 in _adaptive_windows(a.array.shape[-2:], g.shape[-2:]):
            share = g[..., i, j] / np.asarray(r1 - r0, g.dtype) / np.asarray(c1 - c0, g.dtype)
            out[..., r0:r1, c0:c1] += share[..., None, None]
        return _laid_out_as_input(out, a.array)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        a = self.attrs
        size = (a["grad_output_sym_argsize_minus_2"], a["grad_output_sym_argsize_minus_1"])
        g_grad = AdaptiveAvgPool2DBackward0.call(gg, output_size=size) \
            if self.needs_input_grad(0) else None
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


class AdaptiveMaxPool2DBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", ROUTED_TO_MAX),)

    def forward(self, a: Tensor, output_size: tuple[int, int],
                indices_out: list[np.ndarray]) -> np.ndarray:
        self.save("self", a)
        x = a.array
        w = x.shape[-1]
        out = np.zeros(x.shape[:-2] + tuple(output_size), dtype=x.dtype)
        idx = np.zeros(out.shape, dtype=np.int64)
        for i, j, r0, r1, c0, c1 in _adaptive_windows(x.shape[-2:], output_size):
            win = x[..., r0:r1, c0:c1].reshape(x.shape[:-2] + (-1,))
            nan = np.isnan(win)
            pick = np.where(nan.any(-1), nan.argmax(-1), win.argmax(-1))
            out[..., i, j] = np.take_along_axis(win, pick[..., None], -1)[..., 0]
            pr, pc = np.divmod(pick, c1 - c0)
            idx[..., i, j] = (r0 + pr) * w + (c0 + pc)
        idx = _laid_out_as_input(idx, x)
        indices_out.append(idx)
        self.save("result1", Tensor._wrap(idx))
        return _laid_out_as_input(out, x)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # result0: gather(self_t.flatten(-2), -1, result1.flatten(-2)).view_as(result1)
        from .indexing import gather

        idx = Tensor._wrap(params["indices_out"][-1])
        return gather(t[0].flatten(-2), -1, idx.flatten(-2)).view(*idx.shape)

    def backward(self, grad: Tensor) -> Tensor:
        return AdaptiveMaxPool2DBackwardBackward0.call(grad, self.unpack("self"),
                                                       indices=self.unpack("result1"))


class AdaptiveMaxPool2DBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear


# -- F.* functions ----------------------------------------------------------------------


def _pool_with_indices(cls: type[Function], x: Tensor, **params: Any) -> tuple[Tensor, Tensor]:
    """The pooled values and the indices the kernel found (not differentiable, as in torch)."""
    sink: list[np.ndarray] = []
    out = cls.call(x, indices_out=sink, **params)
    return out, Tensor._wrap(sink[0])


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
               padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    kernel = _pair(kernel_size)
    st = () if stride is None or stride == [] else _pair(stride)
    kernel_dtype("max_pool2d", input, integral=True)
    out, indices = _pool_with_indices(
        MaxPool2DWithIndicesBackward0, input, kernel_size=kernel, stride=st,
        padding=_pair(padding), dilation=_pair(dilation), ceil_mode=bool(ceil_mode))
    return (out, indices) if return_indices else out


def kernel_dtype(name: str, x: Tensor, *, integral: bool = False, long: bool = False) -> None:
    """The AT_DISPATCH of a pooling kernel: floating types, the integral ones too where
    `integral` (never bool), int64 too where `long`; else torch's NotImplementedError."""
    dtype = x.dtype
    if dtype.is_floating_point or (integral and dtype is not dtypes.bool_) or (
            long and dtype is dtypes.int64):
        return
    raise not_implemented(name, dtype)


def _single(value: Any) -> int:
    return value if isinstance(value, int) else tuple(value)[0]


def _check_max_pool1d(width: int, k: int, s: int, p: int, d: int, ceil: bool) -> None:
    """ATen's check_max_pool1d: torch.max_pool1d (F.max_pool1d without indices) checks its
    arguments and output size so, before it runs the 2-D kernel where a gradient is wanted."""
    if k <= 0:
        raise TorchRuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise TorchRuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise TorchRuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise TorchRuntimeError("max_pool1d() padding should be at most half of kernel size, "
                                f"but got padding={p} and kernel_size={k}")
    if d <= 0:
        raise TorchRuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _out_size(width, k, p, s, d, ceil)
    if out <= 0:
        raise TorchRuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
               padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    shape = input.array.shape
    if input.array.ndim not in (2, 3) or 0 in shape[-2:] and (len(shape) == 2 or shape[0]):
        raise TorchRuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:[{', '.join(map(str, shape))}]")
    k = _single(kernel_size)
    s = k if stride is None or stride == [] else _single(stride)
    p, d = _single(padding), _single(dilation)
    if not return_indices:
        _check_max_pool1d(shape[-1], k, s, p, d, bool(ceil_mode))
    # without indices (and no gradient wanted) torch runs max_pool1d_impl: floating types
    kernel_dtype("max_pool2d" if return_indices else "max_pool1d_impl", input,
                 integral=return_indices)
    x = UnsqueezeBackward0.call(input, dim=-2)
    out, indices = _pool_with_indices(
        MaxPool2DWithIndicesBackward0, x, kernel_size=(1, k), stride=(1, s), padding=(0, p),
        dilation=(1, d), ceil_mode=bool(ceil_mode))
    out = SqueezeBackward1.call(out, dim=-2)
    return (out, SqueezeBackward1.call(indices, dim=-2)) if return_indices else out


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
               padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    if input.array.ndim < 3:
        raise TorchIndexError(f"Dimension out of range (expected to be in range of "
                              f"[{-max(input.array.ndim, 1)}, {max(input.array.ndim, 1) - 1}], "
                              "but got -3)")
    st = () if stride is None or stride == [] else _pair(stride)
    kernel_dtype("avg_pool2d", input, long=True)
    return AvgPool2DBackward0.call(input, kernel_size=_pair(kernel_size), stride=st,
                                   padding=_pair(padding), ceil_mode=bool(ceil_mode),
                                   count_include_pad=bool(count_include_pad),
                                   divisor_override=divisor_override)


def _check_1d(name: str, x: Tensor) -> None:
    if x.array.ndim not in (2, 3):
        raise TorchRuntimeError(
            f"Expected 2 to 3 dimensions, but got {x.array.ndim}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {name})")


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
               padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    _check_1d("avg_pool1d", input)
    k = _single(kernel_size)
    s = k if stride is None or stride == [] else _single(stride)
    kernel_dtype("avg_pool2d", input, long=True)
    x = UnsqueezeBackward0.call(input, dim=-2)
    out = AvgPool2DBackward0.call(x, kernel_size=(1, k), stride=(1, s),
                                  padding=(0, _single(padding)), ceil_mode=bool(ceil_mode),
                                  count_include_pad=bool(count_include_pad),
                                  divisor_override=None)
    return SqueezeBackward1.call(out, dim=-2)


def _adaptive_size(x: Tensor, output_size: Any, name: str) -> tuple[int, int]:
    sizes = [output_size, output_size] if isinstance(output_size, int) else list(output_size)
    if len(sizes) != 2:
        raise TorchRuntimeError(f"{name}: output_size must be 2")
    return tuple(x.array.shape[-2 + i] if s is None else s for i, s in enumerate(sizes))


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    if input.array.ndim not in (3, 4):
        raise TorchRuntimeError(
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
            f"[{', '.join(map(str, input.array.shape))}]")
    size = _adaptive_size(input, output_size, "adaptive_avg_pool2d")
    if size == (1, 1):  # torch: input.mean({-1, -2}, keepdim=True)
        return input.mean((-1, -2), keepdim=True)
    kernel_dtype("adaptive_avg_pool2d", input)
    return AdaptiveAvgPool2DBackward0.call(input, output_size=size)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    _check_1d("adaptive_avg_pool1d", input)
    size = _single(output_size)
    x = UnsqueezeBackward0.call(input, dim=-2)
    if size == 1:  # torch's adaptive_avg_pool2d to (1, 1): x.mean({-1, -2}, keepdim=True)
        return SqueezeBackward1.call(x.mean((-1, -2), keepdim=True), dim=-2)
    kernel_dtype("adaptive_avg_pool2d", input)
    out = AdaptiveAvgPool2DBackward0.call(x, output_size=(1, size))
    return SqueezeBackward1.call(out, dim=-2)


def adaptive_max_pool2d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    if input.array.ndim not in (3, 4):
        raise TorchRuntimeError(
            "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
            f"[{', '.join(map(str, input.array.shape))}]")
    size = _adaptive_size(input, output_size, "adaptive_max_pool2d")
    kernel_dtype("adaptive_max_pool2d", input)
    out, indices = _pool_with_indices(AdaptiveMaxPool2DBackward0, input, output_size=size)
    return (out, indices) if return_indices else out


def adaptive_max_pool1d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    _check_1d("adaptive_max_pool1d", input)
    kernel_dtype("adaptive_max_pool2d", input)
    x = UnsqueezeBackward0.call(input, dim=-2)
    out, indices = _pool_with_indices(AdaptiveMaxPool2DBackward0, x,
                                      output_size=(1, _single(output_size)))
    out = SqueezeBackward1.call(out, dim=-2)
    return (out, SqueezeBackward1.call(indices, dim=-2)) if return_indices else out


def torch_adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """torch.adaptive_max_pool1d returns (values, indices) always."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """F.max_pool1d_with_indices / torch.max_pool1d_with_indices: (values, indices) always."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """F.max_pool2d_with_indices: (values, indices) always."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def torch_max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (),  # noqa: A002
                     padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """torch.max_pool2d: the values only (its stride defaults to an empty list)."""
    return max_pool2d(input, kernel_size, stride if stride else None, padding, dilation, ceil_mode)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,  # noqa: A002
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,  # noqa: A002
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool2d(input, output_size, True)


__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d"]
