"""F.pad: constant (ConstantPadNdBackward0), reflect and replicate
(Reflection/ReplicationPad{1,2,3}DBackward0, whose backward is an op of its own)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ScriptError, TorchRuntimeError
from .. import dtypes, layouts
from ..formulas import local, vjp
from ..forward_ad import auto_linear
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor
from .views import saved_ints, signed

PAD_SIZES_MESSAGE = (
    "Padding size {size} is not supported for {ndim}D input tensor.\n"
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _constant_pad(x: np.ndarray, pad: tuple[int, ...], value: Any) -> np.ndarray:
    """torch's constant_pad_nd: pairs from the last dim backwards; negative pads crop."""
    nd = len(pad) // 2
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for i in range(nd):
        d = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = x.shape[d]
        crop[d] = slice(max(-lo, 0), n - max(-hi, 0))
        widths[d] = (max(lo, 0), max(hi, 0))
    for i in range(nd):
        d = x.ndim - 1 - i
        n = x.shape[d] + pad[2 * i] + pad[2 * i + 1]
        if n < 0:
            raise TorchRuntimeError("narrow(): length must be non-negative.")
    cropped = x[tuple(crop)]
    reserve(tuple(c + lo + hi for c, (lo, hi) in zip(cropped.shape, widths, strict=True)), 8)
    if x.dtype.kind == "u" and x.dtype.itemsize > 1:  # a barebones unsigned dtype: torch's
        value = dtypes.checked_scalar(value, dtypes.from_numpy(x.dtype))  # checked convert
    out = np.pad(cropped, widths, constant_values=np.asarray(value).astype(x.dtype))
    # torch's output: empty(new_shape, memory_format=self.suggest_memory_format())
    return layouts.dense_in_format(out, layouts.suggests_channels_last(x))


class ConstantPadNdBackward0(Function):
    __slots__ = ()
    # a negative pad crops: the gradient of the padding is dropped
    formulas = (vjp("self", "constant_pad_nd({grad}, -{pad})"),)

    def forward(self, a: Tensor, pad: tuple[int, ...], value: Any = 0) -> np.ndarray:
        self.save_attr(pad=saved_ints(pad))
        return _constant_pad(a.array, pad, value)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return ConstantPadNdBackward0.call(t[0], **{**params, "value": 0})  # pad(self_t, 0)

    def backward(self, grad: Tensor) -> Tensor:
        return constant_pad_nd(grad, tuple(-signed(p) for p in self.attrs["pad"]))


def constant_pad_nd(a: Tensor, pad: tuple[int, ...], value: Any = 0) -> Tensor:
    return ConstantPadNdBackward0.call(a, pad=tuple(pad), value=value)


def _source_index(n: int, lo: int, hi: int, mode: str) -> np.ndarray:
    """For each position of a padded dim, the input position it copies."""
    reserve((n + lo + hi,), 8)
    idx = np.arange(n + lo + hi) - lo
    if mode == "reflect":
        idx = np.abs(idx)
        return np.where(idx >= n, 2 * (n - 1) - idx, idx)
    return np.clip(idx, 0, n - 1)


def _pad_mapped(x: np.ndarray, padding: tuple[int, ...], mode: str) -> np.ndarray:
    for i in range(len(padding) // 2):
        d = x.ndim - 1 - i
        x = np.take(x, _source_index(x.shape[d], padding[2 * i], padding[2 * i + 1], mode),
                    axis=d)
    return x


def _pad_mapped_adjoint(g: np.ndarray, shape: tuple[int, ...], padding: tuple[int, ...],
                        mode: str) -> np.ndarray:
    """The padding's backward as torch's cpu_padding_backward runs it: per channel, each
    output position's gradient added to its source in row-major output order (np.add.at
    adds in index order), so a corner's contributions sum in torch's order."""
    nd = len(padding) // 2
    spatial_in = shape[len(shape) - nd:]
    idxs = [_source_index(shape[len(shape) - 1 - i], padding[2 * i], padding[2 * i + 1], mode)
            for i in reversed(range(nd))]
    source = np.ravel_multi_index(np.meshgrid(*idxs, indexing="ij"), spatial_in).reshape(-1)
    rows = g.reshape(-1, source.size).T  # one row per output position, a column per channel
    out = np.zeros((int(np.prod(spatial_in)), rows.shape[1]), dtype=g.dtype)
    np.add.at(out, source, rows)
    return out.T.reshape(shape)


class _MappedPad(Function):
    """reflection_pad / replication_pad: saves padding and self."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    mode = "reflect"

    def forward(self, a: Tensor, padding: tuple[int, ...]) -> np.ndarray:
        self.save_attr(padding=saved_ints(padding))
        self.save("self", a)
        return _pad_mapped(a.array, padding, self.mode)

    def backward(self, grad: Tensor) -> Tensor:
        pad = tuple(signed(p) for p in self.attrs["padding"])
        return _BACKWARD[type(self).__name__].call(grad, self.unpack("self"), padding=pad)


class _MappedPadBackward(Function):
    """The padding's backward as an op (inputs grad_output, self), for create_graph."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    mode = "reflect"
    forward_name = ""

    def forward(self, grad: Tensor, a: Tensor, padding: tuple[int, ...]) -> np.ndarray:
        self.save_attr(padding=saved_ints(padding))
        # (into zeros_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT): row-major)
        return np.asarray(_pad_mapped_adjoint(grad.array, a.array.shape, padding, self.mode),
                          order="C")

    def backward(self, gg: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        pad = tuple(signed(p) for p in self.attrs["padding"])
        g_grad = _FORWARD[self.forward_name].call(gg, padding=pad) \
            if self.needs_input_grad(0) else None
        g_self = zeros_like(gg) if self.needs_input_grad(1) else None
        return g_grad, g_self


_FORWARD: dict[str, type[_MappedPad]] = {}
_BACKWARD: dict[str, type[_MappedPadBackward]] = {}
for _mode, _kind in (("reflect", "Reflection"), ("replicate", "Replication")):
    for _d in (1, 2, 3):
        _name = f"{_kind}Pad{_d}DBackward0"
        _op = f"{_kind.lower()}_pad{_d}d"  # derivatives.yaml's names for the op and its backward
        _FORWARD[_name] = type(_name, (_MappedPad,), {
            "__slots__": (), "mode": _mode,
            "formulas": (vjp("self", _op + "_backward({grad}, {self}, {padding})"),)})
        _back = f"{_kind}Pad{_d}DBackwardBackward0"
        _BACKWARD[_name] = type(_back, (_MappedPadBackward,), {
            "__slots__": (), "mode": _mode, "forward_name": _name,
            "formulas": (vjp("grad_output", _op + "({grad}, {padding})"), local("self", "0"))})


def _check_reflect(x: Tensor, padding: tuple[int, ...]) -> None:
    shape = x.array.shape
    for i in range(len(padding) // 2):
        d = x.array.ndim - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        if lo >= shape[d] or hi >= shape[d]:
            raise TorchRuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                f"input dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"[{', '.join(map(str, shape))}]")


def pad_circular(input: Tensor, padding: tuple[int, ...]) -> Tensor:  # noqa: A002
    """aten::_pad_circular, a composite: an empty tensor of the padded size, the input copied
    into its middle, then each padded dim's wrap-around copied from the output itself, left
    side then right (so the graph is torch's chain of CopySlices over SliceBackward0)."""
    from .select_views import slice_op
    from .view_inplace import copy_

    in_shape = input.array.shape
    ndim_padded = len(padding) // 2
    ndim_nonpadded = len(in_shape) - ndim_padded
    if ndim_nonpadded not in (1, 2):
        raise TorchRuntimeError(
            "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be "
            f"equivalent to padding of length {(len(in_shape) - 1) * 2} or "
            f"{(len(in_shape) - 2) * 2} respectively but got {len(padding)}")
    out_shape = list(in_shape[:ndim_nonpadded])
    for i in range(ndim_padded):
        pad_l = padding[2 * (ndim_padded - i - 1)]
        pad_r = padding[2 * (ndim_padded - i - 1) + 1]
        size = in_shape[ndim_nonpadded + i]
        out_shape.append(size + pad_l + pad_r)
        if not (pad_l <= size and pad_r <= size):
            raise TorchRuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[-1] < 0:
            raise TorchRuntimeError("Negative padding value is resulting in an empty dimension")
    reserve(tuple(out_shape), input.array.itemsize)
    out = Tensor._wrap(np.zeros(out_shape, input.array.dtype))
    out_slice, in_slice = out, input
    for i in range(ndim_padded):
        dim = ndim_padded - i + ndim_nonpadded - 1
        pad_l, pad_r = padding[2 * i], padding[2 * i + 1]
        out_slice = slice_op(out_slice, dim, max(pad_l, 0), out_shape[dim] - max(pad_r, 0), 1)
        in_slice = slice_op(in_slice, dim, max(-pad_l, 0), in_shape[dim] - max(-pad_r, 0), 1)
    copy_(out_slice, in_slice)
    for i in range(ndim_padded):
        dim = ndim_padded - i + ndim_nonpadded - 1
        pad_l, pad_r = padding[2 * i], padding[2 * i + 1]
        if pad_l > 0:
            copy_(slice_op(out, dim, 0, pad_l, 1),
                  slice_op(out, dim, out_shape[dim] - pad_l - max(pad_r, 0),
                           out_shape[dim] - max(pad_r, 0), 1))
        if pad_r > 0:
            copy_(slice_op(out, dim, out_shape[dim] - pad_r, out_shape[dim], 1),
                  slice_op(out, dim, max(pad_l, 0), max(pad_l, 0) + pad_r, 1))
    return out


def pad(input: Tensor, pad: Any, mode: str = "constant",  # noqa: A002
        value: Any = None) -> Tensor:
    pad = tuple(int(p) for p in pad)
    ndim = input.array.ndim
    if len(pad) % 2:
        raise TorchRuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise TorchRuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {ndim}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise TorchRuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in ("reflect", "replicate", "circular"):
        raise ScriptError(f"Unrecognised padding mode {mode}", kind="NotImplementedError")
    dims = len(pad) // 2
    if not (dims <= 3 and ndim in (dims + 1, dims + 2)):
        raise ScriptError(PAD_SIZES_MESSAGE.format(size=len(pad), ndim=ndim),
                          kind="NotImplementedError")
    if mode == "circular":
        return pad_circular(input, pad)
    if mode == "reflect":
        _check_reflect(input, pad)
    kind = "Reflection" if mode == "reflect" else "Replication"
    return _FORWARD[f"{kind}Pad{dims}DBackward0"].call(input, padding=pad)
