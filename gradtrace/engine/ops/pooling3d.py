"""3-D pooling: max_pool3d (MaxPool3DWithIndicesBackward0), adaptive_avg_pool3d
(AdaptiveAvgPool3DBackward0), adaptive_max_pool3d (AdaptiveMaxPool3DBackward0), each with
its backward as an op so create_graph records torch's nodes.

Values: max pooling is exact (the first maximum of a window in (d, h, w) order, a NaN wins);
adaptive average pooling sums each window in the dtype in torch's loop order (d, h, w) and
divides by the window's depth, height and width in turn, as ATen's kernel does.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..node import Function
from ..tensor import Tensor
from .pooling import _out_size, _pool_with_indices, kernel_dtype

ROUTED_TO_MAX_3D = ("zeros_like({self}).flatten(-3).scatter_add(-1, {result1}.flatten(-3), "
                    "{grad}.flatten(-3)).view_as({self})")


def _triple(value: Any) -> tuple[int, int, int]:
    if isinstance(value, int):
        return (value, value, value)
    values = tuple(value)
    return (values[0],) * 3 if len(values) == 1 else (values[0], values[1], values[2])


def _sizes(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def _check_max_pool(x: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...],
                    padding: tuple[int, ...], dilation: tuple[int, ...],
                    ceil: bool) -> tuple[int, ...]:
    """max_pool3d_with_indices' checks (Pool.h's pool3d_shape_check), in torch's order."""
    shape = x.array.shape
    if x.array.ndim not in (4, 5) or 0 in shape[-4:]:
        raise TorchRuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if 0 in stride:
        raise TorchRuntimeError("stride should not be zero")
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p > ((k - 1) * d + 1) // 2:
            raise TorchRuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}")
    out = tuple(_out_size(shape[-3 + i], kernel[i], padding[i], stride[i], dilation[i], ceil)
                for i in range(3))
    if min(out) < 1:
        raise TorchRuntimeError(
            f"Given input size: ({_sizes(shape[-4:])}). Calculated output size: "
            f"({_sizes((shape[-4],) + out)}). Output size is too small")
    return out


def _scatter_flat3d(g: np.ndarray, indices: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Add each gradient element into the input position its index names (per plane)."""
    planes = int(np.prod(shape[:-3]))
    out = np.zeros((planes, int(np.prod(shape[-3:]))), dtype=g.dtype)
    np.add.at(out, (np.arange(planes)[:, None], indices.reshape(planes, -1)),
              g.reshape(planes, -1))
    return out.reshape(shape)


def _gather_pool3d(gg: Tensor, indices: Tensor) -> Tensor:
    """torch's max_pool_double_backward for 3 dims: gg.flatten(-3).gather(-1, idx)."""
    from .indexing import gather

    return gather(gg.flatten(-3), -1, indices.flatten(-3)).view(indices.shape)


class MaxPool3DWithIndicesBackward0(Function):
    """max_pool3d_with_indices: saves self and the indices (`result1`)."""

    __slots__ = ()
    formulas = (vjp("self", ROUTED_TO_MAX_3D),)

    def forward(self, a: Tensor, kernel_size: tuple[int, ...], stride: tuple[int, ...],
                padding: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool,
                indices_out: list[np.ndarray]) -> np.ndarray:
        st = stride or kernel_size
        out = _check_max_pool(a, kernel_size, st, padding, dilation, ceil_mode)
        self.save_attr(ceil_mode=ceil_mode, dilation=dilation, kernel_size=kernel_size,
                       padding=padding, stride=stride)
        self.save("self", a)
        x = a.array
        size = x.shape[-3:]
        pos = [(np.arange(out[i]) * st[i] - padding[i])[:, None]
               + np.arange(kernel_size[i]) * dilation[i] for i in range(3)]  # (o_i, k_i)
        grids = []
        for i in range(3):
            shape = [1] * 6
            shape[i], shape[3 + i] = out[i], kernel_size[i]
            grids.append(pos[i].reshape(shape))
        valid = np.ones((1,) * 6, bool)
        for i in range(3):
            valid = valid & (grids[i] >= 0) & (grids[i] < size[i])
        clipped = [np.clip(grids[i], 0, size[i] - 1) for i in range(3)]
        vals = np.where(valid, x[(Ellipsis,) + tuple(clipped)], -np.inf)
        flat = vals.reshape(vals.shape[:-3] + (-1,))
        nan = np.isnan(flat)  # torch: `val > maxval || isnan(val)`: first max, a NaN wins
        pick = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
        taps = np.unravel_index(pick, kernel_size)
        flat_pos = np.zeros(pick.shape, np.int64)
        for i in range(3):
            o = np.arange(out[i]).reshape([-1 if j == i else 1 for j in range(3)])
            flat_pos = flat_pos * size[i] + pos[i][o, taps[i]]
        indices_out.append(flat_pos)
        self.save("result1", Tensor._wrap(flat_pos))
        return np.take_along_axis(flat, pick[..., None], -1)[..., 0].astype(x.dtype)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # result0: gather(self_t.flatten(-3), -1, result1.flatten(-3)).view_as(result1)
        from .indexing import gather

        idx = Tensor._wrap(params["indices_out"][-1])
        return gather(t[0].flatten(-3), -1, idx.flatten(-3)).view(*idx.shape)

    def backward(self, grad: Tensor) -> Tensor:
        return MaxPool3DWithIndicesBackwardBackward0.call(grad, self.unpack("self"),
                                                          indices=self.unpack("result1"))


class MaxPool3DWithIndicesBackwardBackward0(Function):
    """max_pool3d_with_indices_backward(grad_output, self, ..., indices) as an op."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "{grad}.flatten(-3).gather(-1, {indices}.flatten(-3))"
                                   ".view_as({indices})"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor, indices: Tensor) -> np.ndarray:
        self.save("indices", indices)
        return _scatter_flat3d(grad.array, indices.array, a.array.shape)

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_grad = _gather_pool3d(gg, self.unpack("indices")) if self.needs_input_grad(0) \
            else None
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


def _bounds(size: int, out: int) -> list[tuple[int, int]]:
    """ATen's start_index / end_index: floor(o * I / O) and ceil((o + 1) * I / O)."""
    return [((o * size) // out, -((-(o + 1) * size) // out)) for o in range(out)]


def _windows(shape: tuple[int, ...], out: tuple[int, ...]) -> list[tuple]:
    """Each output position with its (start, end) per spatial dim."""
    bounds = [_bounds(shape[i], out[i]) for i in range(3)]
    return [(o, tuple(bounds[i][o[i]] for i in range(3))) for o in np.ndindex(*out)]


class AdaptiveAvgPool3DBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "Σₒ:ᵢ∈ωₒ {grad}ₒ / |ωₒ|"),)

    def forward(self, a: Tensor, output_size: tuple[int, ...]) -> np.ndarray:
        self.save("self", a)
        x = a.array
        out = np.zeros(x.shape[:-3] + tuple(output_size), dtype=x.dtype)
        for o, win in _windows(x.shape[-3:], output_size):
            acc = np.zeros(x.shape[:-3], dtype=x.dtype)
            for p in np.ndindex(*(e - s for s, e in win)):
                acc += x[(Ellipsis,) + tuple(s + q for (s, _), q in zip(win, p, strict=True))]
            for s, e in win:  # ATen: sum / kd / kh / kw
                acc = acc / np.asarray(e - s, x.dtype)
            out[(Ellipsis,) + o] = acc
        return out

    def backward(self, grad: Tensor) -> Tensor:
        return AdaptiveAvgPool3DBackwardBackward0.call(grad, self.unpack("self"))


class AdaptiveAvgPool3DBackwardBackward0(Function):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "adaptive_avg_pool3d({grad}, "
                    "({grad_output_sym_argsize_minus_3}, {grad_output_sym_argsize_minus_2}, "
                    "{grad_output_sym_argsize_minus_1}))"),
                local("self", "0"))

    def forward(self, grad: Tensor, a: Tensor) -> np.ndarray:
        g = grad.array
        self.save_attr(grad_output_sym_argsize_minus_1=g.shape[-1],
                       grad_output_sym_argsize_minus_2=g.shape[-2],
                       grad_output_sym_argsize_minus_3=g.shape[-3])
        out = np.zeros(a.array.shape, dtype=g.dtype)
        for o, win in _windows(a.array.shape[-3:], g.shape[-3:]):
            share = g[(Ellipsis,) + o]
            for s, e in win:
                share = share / np.asarray(e - s, g.dtype)
            out[(Ellipsis,) + tuple(slice(s, e) for s, e in win)] += share[..., None, None, None]
        return out

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        a = self.attrs
        size = tuple(a[f"grad_output_sym_argsize_minus_{i}"] for i in (3, 2, 1))
        g_grad = AdaptiveAvgPool3DBackward0.call(gg, output_size=size) \
            if self.needs_input_grad(0) else None
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


class AdaptiveMaxPool3DBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", ROUTED_TO_MAX_3D),)

    def forward(self, a: Tensor, output_size: tuple[int, ...],
                indices_out: list[np.ndarray]) -> np.ndarray:
        self.save("self", a)
        x = a.array
        size = x.shape[-3:]
        out = np.zeros(x.shape[:-3] + tuple(output_size), dtype=x.dtype)
        idx = np.zeros(out.shape, dtype=np.int64)
        for o, win in _windows(size, output_size):
            block = x[(Ellipsis,) + tuple(slice(s, e) for s, e in win)]
            flat = block.reshape(x.shape[:-3] + (-1,))
            nan = np.isnan(flat)
            pick = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
            out[(Ellipsis,) + o] = np.take_along_axis(flat, pick[..., None], -1)[..., 0]
            taps = np.unravel_index(pick, block.shape[-3:])
            idx[(Ellipsis,) + o] = ((win[0][0] + taps[0]) * size[1] + win[1][0] + taps[1]) \
                * size[2] + win[2][0] + taps[2]
        indices_out.append(idx)
        self.save("result1", Tensor._wrap(idx))
        return out

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # result0: gather(self_t.flatten(-3), -1, result1.flatten(-3)).view_as(result1)
        from .indexing import gather

        idx = Tensor._wrap(params["indices_out"][-1])
        return gather(t[0].flatten(-3), -1, idx.flatten(-3)).view(*idx.shape)

    def backward(self, grad: Tensor) -> Tensor:
        return AdaptiveMaxPool3DBackwardBackward0.call(grad, self.unpack("self"),
                                                       indices=self.unpack("result1"))


class AdaptiveMaxPool3DBackwardBackward0(MaxPool3DWithIndicesBackwardBackward0):
    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear


# -- F.* functions ----------------------------------------------------------------------


def max_pool3d_with_indices(input: Tensor, kernel_size: Any,  # noqa: A002
                            stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple[Tensor, Tensor]:
    """F.max_pool3d_with_indices / torch.max_pool3d_with_indices: (values, indices)."""
    st = () if stride is None or stride == [] else _triple(stride)
    kernel_dtype("max_pool3d", input, integral=True)
    return _pool_with_indices(MaxPool3DWithIndicesBackward0, input,
                              kernel_size=_triple(kernel_size), stride=st,
                              padding=_triple(padding), dilation=_triple(dilation),
                              ceil_mode=bool(ceil_mode))


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
               padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


def torch_max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (),  # noqa: A002
                     padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """torch.max_pool3d: the values only (its stride defaults to an empty list)."""
    return max_pool3d(input, kernel_size, stride if stride else None, padding, dilation, ceil_mode)


def _adaptive_size(x: Tensor, output_size: Any, name: str) -> tuple[int, ...]:
    sizes = [output_size] * 3 if isinstance(output_size, int) else list(output_size)
    if len(sizes) != 3:
        raise TorchRuntimeError(f"{name}: output_size must be 3")
    return tuple(x.array.shape[-3 + i] if s is None else s for i, s in enumerate(sizes))


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    if input.array.ndim not in (4, 5):
        raise TorchRuntimeError(
            "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
            f"[{', '.join(map(str, input.array.shape))}]")
    size = _adaptive_size(input, output_size, "adaptive_avg_pool3d")
    if size == (1, 1, 1):  # torch: input.mean({-1, -2, -3}, keepdim=True)
        return input.mean((-1, -2, -3), keepdim=True)
    return AdaptiveAvgPool3DBackward0.call(input, output_size=size)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,  # noqa: A002
                                     return_indices: bool = True) -> tuple[Tensor, Tensor]:
    if input.array.ndim not in (4, 5):
        raise TorchRuntimeError(
            "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
            f"[{', '.join(map(str, input.array.shape))}]")
    size = _adaptive_size(input, output_size, "adaptive_max_pool3d")
    return _pool_with_indices(AdaptiveMaxPool3DBackward0, input, output_size=size)


def adaptive_max_pool3d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    out, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


__all__ = ["max_pool3d", "max_pool3d_with_indices", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices"]
