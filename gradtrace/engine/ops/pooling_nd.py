"""avg_pool3d (AvgPool3DBackward0), max_unpool1d/2d/3d (MaxUnpool2DBackward0,
MaxUnpool3DBackward0) and the power-average pools lp_pool1d/2d/3d (composites of
avg_pool, as torch/nn/functional.py writes them)."""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchValueError
from ..formulas import vjp
from ..forward_ad import auto_linear
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor
from .pooling import AVERAGED_OVER_WINDOWS, _out_size, kernel_dtype
from .views import SqueezeBackward1, UnsqueezeBackward0


def _triple(value: Any) -> tuple[int, int, int]:
    if isinstance(value, int):
        return (value, value, value)
    values = tuple(value)
    return (values[0],) * 3 if len(values) == 1 else (values[0], values[1], values[2])


def _avg_plan(size: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], ceil: bool, count_include_pad: bool,
              divisor_override: int | None) -> tuple[tuple[int, ...], np.ndarray]:
    """The output size and each output position's divisor (avg_pool3d_out_frame's)."""
    out = tuple(_out_size(n, k, p, s, 1, ceil)
                for n, k, p, s in zip(size, kernel, padding, stride, strict=True))
    if divisor_override:
        return out, np.full(out, divisor_override, np.int64)
    pooled, counted = [], []
    for n, k, p, s, o in zip(size, kernel, padding, stride, out, strict=True):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        pooled.append(end - start)
        counted.append(np.minimum(end, n) - np.maximum(start, 0))
    d, h, w = pooled if count_include_pad else counted
    return out, d[:, None, None] * h[None, :, None] * w[None, None, :]


def _padded(x: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...],
            padding: tuple[int, ...], out: tuple[int, ...]) -> np.ndarray:
    """x with zeros around it, wide enough for every window of the output (ceil mode's last
    windows may run past the padding: their extra places add zeros, as torch skips them)."""
    need = [(o - 1) * s + k for o, s, k in zip(out, stride, kernel, strict=True)]
    pads = [(0, 0)] * (x.ndim - 3) + [(p, max(0, nd - n - p)) for n, p, nd in
                                      zip(x.shape[-3:], padding, need, strict=True)]
    return np.pad(x, pads)


def _window(xp: np.ndarray, offset: tuple[int, ...], stride: tuple[int, ...],
            out: tuple[int, ...]) -> tuple[Any, ...]:
    return (Ellipsis,) + tuple(slice(o, o + s * (n - 1) + 1, s)
                               for o, s, n in zip(offset, stride, out, strict=True))


class AvgPool3DBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = AVERAGED_OVER_WINDOWS

    def forward(self, a: Tensor, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                padding: tuple[int, ...], ceil_mode: bool, count_include_pad: bool,
                divisor_override: int | None) -> np.ndarray:
        x = a.array
        if x.ndim not in (4, 5):
            raise TorchRuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
        st = stride or kernel_size
        for k, p in zip(kernel_size, padding, strict=True):
            if p > k // 2:
                raise TorchRuntimeError(
                    f"pad should be at most half of effective kernel size, but got pad={p}, "
                    f"kernel_size={k} and dilation=1")
        out, divisors = _avg_plan(x.shape[-3:], kernel_size, st, padding, ceil_mode,
                                  count_include_pad, divisor_override)
        if min(out) < 1:
            d, h, w = x.shape[-3:]
            raise TorchRuntimeError(
                f"Given input size: ({x.shape[-4]}x{d}x{h}x{w}). Calculated output size: "
                f"({x.shape[-4]}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")
        self.save_attr(ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                       divisor_override=divisor_override, kernel_size=kernel_size,
                       padding=padding, stride=stride)
        self.save("self", a)
        reserve(x.shape[:-3] + out, x.itemsize)
        xp = _padded(x, kernel_size, st, padding, out)
        acc = np.zeros(x.shape[:-3] + out, x.dtype)
        with np.errstate(all="ignore"):
            for offset in itertools.product(*map(range, kernel_size)):  # z, y, x in turn
                acc += xp[_window(xp, offset, st, out)]
            # (an int64 input divides in int64, truncating: the cast of the quotient does)
            return (acc / divisors.astype(x.dtype)).astype(x.dtype, copy=False)

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        return AvgPool3DBackwardBackward0.call(
            grad, self.unpack("self"), kernel_size=a["kernel_size"], stride=a["stride"],
            padding=a["padding"], ceil_mode=a["ceil_mode"],
            count_include_pad=a["count_include_pad"], divisor_override=a["divisor_override"])


class AvgPool3DBackwardBackward0(Function):
    """avg_pool3d_backward(grad_output, self, ...) as an op (input: grad_output)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "avg_pool3d({grad}, {kernel_size}, {stride}, {padding}, "
                    "{ceil_mode}, {count_include_pad}, {divisor_override})"),)

    def forward(self, grad: Tensor, x: Tensor, kernel_size: tuple[int, ...],
                stride: tuple[int, ...], padding: tuple[int, ...], ceil_mode: bool,
                count_include_pad: bool, divisor_override: int | None) -> np.ndarray:
        self.save_attr(ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                       divisor_override=divisor_override, kernel_size=kernel_size,
                       padding=padding, stride=stride, self_sym_sizes=x.array.shape)
        st = stride or kernel_size
        shape = x.array.shape
        out, divisors = _avg_plan(shape[-3:], kernel_size, st, padding, ceil_mode,
                                  count_include_pad, divisor_override)
        g = grad.array
        with np.errstate(all="ignore"):
            share = g / divisors.astype(g.dtype)
            gp = _padded(np.zeros(shape, g.dtype), kernel_size, st, padding, out)
            # each input place takes its windows' shares in output order: the last offset
            # belongs to the first window
            for offset in reversed(list(itertools.product(*map(range, kernel_size)))):
                gp[_window(gp, offset, st, out)] += share
        inner = tuple(slice(p, p + n) for p, n in zip(padding, shape[-3:], strict=True))
        return np.ascontiguousarray(gp[(Ellipsis,) + inner])

    def backward(self, gg: Tensor) -> Tensor:
        a = self.attrs
        return AvgPool3DBackward0.call(
            gg, kernel_size=a["kernel_size"], stride=a["stride"], padding=a["padding"],
            ceil_mode=a["ceil_mode"], count_include_pad=a["count_include_pad"],
            divisor_override=a["divisor_override"])


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
               padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    st = () if stride is None or stride == [] else _triple(stride)
    kernel_dtype("avg_pool3d_out_frame", input, long=True)
    return AvgPool3DBackward0.call(input, kernel_size=_triple(kernel_size), stride=st,
                                   padding=_triple(padding), ceil_mode=bool(ceil_mode),
                                   count_include_pad=bool(count_include_pad),
                                   divisor_override=divisor_override)


# -- max_unpool ----------------------------------------------------------------------


class _MaxUnpool(Function):
    """Each value written at its index in a zero plane of output_size (per batch and
    channel); the gradient gathers from those places."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "{grad}.flatten(-2).gather(-1, {indices}.flatten(-2))"),)
    spatial = 2

    def forward(self, a: Tensor, indices: Tensor, output_size: tuple[int, ...]) -> np.ndarray:
        x, idx = a.array, indices.array
        n = self.spatial
        if x.shape != idx.shape:
            raise TorchRuntimeError(
                f"Expected shape of indices to be same as that of the input tensor "
                f"({list(x.shape)}) but got indices tensor with shape: {list(idx.shape)}")
        if x.ndim not in (n + 1, n + 2):
            raise TorchRuntimeError(
                f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, but got "
                f"a tensor with {x.ndim} dimensions.")
        plane = int(np.prod(output_size))
        lead = x.shape[:-n]
        flat_x = x.reshape(lead + (-1,))
        flat_i = idx.reshape(lead + (-1,)).astype(np.int64)
        invalid = (flat_i < 0) | (flat_i >= plane)
        if invalid.any():  # the first plane holding one; its last (measured on torch 2.13)
            rows = invalid.reshape(-1, invalid.shape[-1])
            first = int(np.argmax(rows.any(axis=1)))
            bad = int(flat_i.reshape(rows.shape)[first][rows[first]][-1])
            raise TorchRuntimeError(
                f"Found an invalid max index: {bad} (output volumes are of size "
                f"{'x'.join(map(str, output_size))})")
        self.save("indices", indices)
        out = np.zeros(lead + (plane,), x.dtype)
        np.put_along_axis(out, flat_i, flat_x, axis=-1)
        return out.reshape(lead + tuple(output_size))

    def backward(self, grad: Tensor) -> Tensor:
        from .indexing import gather

        indices = self.unpack("indices")
        n = self.spatial
        lead = grad.shape[:-n]
        flat = grad.reshape(tuple(lead) + (-1,))
        picked = gather(flat, -1, indices.reshape(tuple(lead) + (-1,)))
        return picked.reshape(tuple(indices.shape))


class MaxUnpool2DBackward0(_MaxUnpool):
    __slots__ = ()


class MaxUnpool3DBackward0(_MaxUnpool):
    __slots__ = ()
    formulas = (vjp("self", "{grad}.flatten(-3).gather(-1, {indices}.flatten(-3))"),)
    spatial = 3


def _unpool_output_size(x: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],
                        padding: tuple[int, ...], output_size: Any) -> list[int]:
    """torch/nn/functional.py's _unpool_output_size."""
    n = len(kernel)
    shape = x.array.shape
    default = [(shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise TorchValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has "
            f"a length of '{len(output_size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise TorchValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                  f'between {low} and {high})')
    return output_size


def _tuple_of(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    values = tuple(value)
    return values * n if len(values) == 1 else values


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any,  # noqa: A002
                 stride: Any = None, padding: Any = 0, output_size: Any = None) -> Tensor:
    k = _tuple_of(kernel_size, 1)
    s = k if stride is None else _tuple_of(stride, 1)
    size = _unpool_output_size(input, k, s, _tuple_of(padding, 1), output_size) + [1]
    out = MaxUnpool2DBackward0.call(UnsqueezeBackward0.call(input, dim=-1),
                                    indices=indices.unsqueeze(-1), output_size=tuple(size))
    return SqueezeBackward1.call(out, dim=-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any,  # noqa: A002
                 stride: Any = None, padding: Any = 0, output_size: Any = None) -> Tensor:
    k = _tuple_of(kernel_size, 2)
    s = k if stride is None else _tuple_of(stride, 2)
    size = _unpool_output_size(input, k, s, _tuple_of(padding, 2), output_size)
    return MaxUnpool2DBackward0.call(input, indices=indices, output_size=tuple(size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any,  # noqa: A002
                 stride: Any = None, padding: Any = 0, output_size: Any = None) -> Tensor:
    k = _tuple_of(kernel_size, 3)
    s = k if stride is None else _tuple_of(stride, 3)
    size = _unpool_output_size(input, k, s, _tuple_of(padding, 3), output_size)
    return MaxUnpool3DBackward0.call(input, indices=indices, output_size=tuple(size))


# -- lp_pool -------------------------------------------------------------------------


def _lp_finish(out: Tensor, window: int, norm_type: float) -> Tensor:
    """(sign(out) * relu(|out|)).mul(window).pow(1 / norm_type)."""
    return (out.sign() * out.abs().relu()).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any,  # noqa: A002
              stride: Any = None, ceil_mode: bool = False) -> Tensor:
    from .pooling import avg_pool1d

    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, kernel_size if isinstance(kernel_size, int) else kernel_size[0],
                      norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any,  # noqa: A002
              stride: Any = None, ceil_mode: bool = False) -> Tensor:
    from .pooling import avg_pool2d

    kw, kh = _tuple_of(kernel_size, 2)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, kw * kh, norm_type)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any,  # noqa: A002
              stride: Any = None, ceil_mode: bool = False) -> Tensor:
    kd, kw, kh = _tuple_of(kernel_size, 3)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, kd * kw * kh, norm_type)


__all__ = ["avg_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
           "lp_pool2d", "lp_pool3d"]
