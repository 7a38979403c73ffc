"""Ops with a learned weight beside the input: prelu (PreluKernelBackward0) and bilinear,
which torch composes from _trilinear (TrilinearBackward0), both as ATen composes them
(aten/src/ATen/native/Activation.cpp, Linear.cpp)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import exactness
from ..formulas import local, vjp
from ..node import Function
from ..tensor import Tensor
from ._util import cast_name
from .views import reshape, sum_to


class PreluKernelBackward0(Function):
    """_prelu_kernel: x where x > 0, else weight·x (weight broadcast over x)."""

    __slots__ = ()
    formulas = (local("self", "1 if {self} > 0 else {weight}"),
                local("weight", "0 if {self} > 0 else {self}"))

    def forward(self, x: Tensor, weight: Tensor) -> np.ndarray:
        self.save("self", x)
        self.save("weight", weight)
        a, w = x.array, weight.array
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(np.where(a > 0, a, w * a), a.dtype)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, weight = self.unpack("self"), self.unpack("weight")
        gi, gw = PreluKernelBackwardBackward0.call(grad, x, weight)
        # the engine's validate_outputs: a weight broadcast over x gets its gradient summed
        return (gi if self.needs_input_grad(0) else None,
                sum_to(gw, weight.array.shape) if self.needs_input_grad(1) else None)


class PreluKernelBackwardBackward0(Function):
    """_prelu_kernel_backward(grad_output, self, weight) -> (grad_input, grad_weight), as an
    op so create_graph records torch's node; both gradients have self's shape."""

    __slots__ = ()
    multi_output = True
    materialize_grads = False  # derivatives.yaml's formulas test grads[i].defined()
    formulas = (vjp("grad_output", "where({self} >= 0, {grad}[0], {grad}[0]·{weight} + "
                    "{grad}[1]·{self})"),
                vjp("self", "where({self} >= 0, 0, {grad_output}·{grad}[1])"),
                vjp("weight", "where({self} >= 0, 0, {grad_output}·{grad}[0])"))

    def forward(self, grad: Tensor, x: Tensor, weight: Tensor) -> list[np.ndarray]:
        self.save("grad_output", grad)
        self.save("self", x)
        self.save("weight", weight)
        a, w, g = x.array, weight.array, grad.array
        positive = a > 0
        with np.errstate(over="ignore", invalid="ignore"):
            gi = np.where(positive, g, w * g)
            gw = np.where(positive, 0, a * g)
        shape = np.broadcast_shapes(a.shape, w.shape)
        return [np.asarray(np.broadcast_to(gi, shape), a.dtype),
                np.asarray(np.broadcast_to(gw, shape), a.dtype)]

    def backward(self, gg_input: Tensor | None, gg_weight: Tensor | None
                 ) -> tuple[Tensor | None, ...]:
        """derivatives.yaml's _prelu_kernel_backward entry, op for op."""
        from .creation import zeros_like
        from .reductions import where

        grad, x, weight = (self.unpack(k) for k in ("grad_output", "self", "weight"))
        nonneg = x >= 0
        zero = Tensor._wrap(np.zeros((), x.array.dtype))
        g_grad = g_self = g_weight = None
        if self.needs_input_grad(0):
            if gg_input is None:
                g_grad = where(nonneg, zero, gg_weight * x)
            elif gg_weight is None:
                g_grad = where(nonneg, gg_input, gg_input * weight)
            else:
                g_grad = where(nonneg, gg_input, gg_input * weight + gg_weight * x)
        if self.needs_input_grad(1):
            g_self = (where(nonneg, zero, grad * gg_weight) if gg_weight is not None
                      else zeros_like(x))
        if self.needs_input_grad(2):
            g_weight = (where(nonneg, zero, grad * gg_input) if gg_input is not None
                        else zeros_like(x))
        if g_weight is not None:
            g_weight = sum_to(g_weight, weight.array.shape)  # validate_outputs, as above
        return g_grad, g_self, g_weight


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """aten::prelu: checks, then `weight` reshaped to broadcast over the channel dim (1)."""
    if input.dtype != weight.dtype:
        raise TorchRuntimeError(f"prelu: Type promoting not supported. Got "
                                f"{cast_name(input.dtype)} and {cast_name(weight.dtype)}")
    ndim = input.array.ndim
    if weight.array.size != 1:
        if ndim == 0:
            raise TorchRuntimeError("Not allow zero-dim input tensor.")
        channels = input.array.shape[1] if ndim > 1 else 1
        if channels != weight.array.size:
            raise TorchRuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.array.size} and channel size = {channels}.")
    if weight.array.ndim > 1:
        raise TorchRuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but "
                                f"got: ndim = {weight.array.ndim}")
    if ndim != weight.array.ndim:
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.array.size
        weight = reshape(weight, tuple(shape))
    return PreluKernelBackward0.call(input, weight)


# -- bilinear ---------------------------------------------------------------------------------

_CAUSE = ("bilinear through _trilinear (sumproduct_pair's bmm): its order is not reproduced")


def _bilinear(i1: np.ndarray, w: np.ndarray, i3: np.ndarray) -> np.ndarray:
    """out[b, o] = Σ_jk i1[b, j]·w[o, j, k]·i3[b, k], per output feature as _trilinear
    unrolls it: (i1 @ w[o]) then the row-wise dot with i3."""
    out = np.empty((i1.shape[0], w.shape[0]), i1.dtype)
    for o in range(w.shape[0]):
        out[:, o] = np.einsum("bk,bk->b", i1 @ w[o], i3)
    return out


_BILINEAR = ((1, 3), (0,), (1, 2), (2, 3))  # bilinear's (expand1, expand2, expand3, sumdim)


def _trilinear_array(i1: np.ndarray, i2: np.ndarray, i3: np.ndarray,
                     expand: tuple[tuple[int, ...], ...], sumdim: tuple[int, ...]) -> np.ndarray:
    """_trilinear's value: each input unsqueezed at its expand dims to one rank, the three
    multiplied and summed over sumdim (an einsum over those dims)."""
    rank = i1.ndim + len(expand[0])
    letters = "abcdefghijklmnop"[:rank]
    subs = ["".join(letters[d] for d in range(rank) if d not in ex) for ex in expand]
    out = "".join(letters[d] for d in range(rank) if d not in sumdim)
    return np.einsum(f"{subs[0]},{subs[1]},{subs[2]}->{out}", i1, i2, i3)


class TrilinearBackward0(Function):
    """_trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim): the inputs unsqueezed at
    their expand dims, multiplied, summed over sumdim. bilinear calls it with expand1 (1, 3),
    expand2 (0,), expand3 (1, 2), sumdim (2, 3): out[b, o] = Σ_jk i1[b, j]·i2[o, j, k]·i3[b, k];
    its backward calls it again with the gradient in each input's place."""

    __slots__ = ()
    # derivatives.yaml's _trilinear_backward: each gradient is a _trilinear with the
    # incoming gradient in that input's place
    formulas = (
        vjp("i1", "_trilinear({grad}, {i2}, {i3}, {sumdim}, {expand2}, {expand3}, {expand1})"),
        vjp("i2", "_trilinear({i1}, {grad}, {i3}, {expand1}, {sumdim}, {expand3}, {expand2})"),
        vjp("i3", "_trilinear({i1}, {i2}, {grad}, {expand1}, {expand2}, {sumdim}, {expand3})"))

    def forward(self, i1: Tensor, i2: Tensor, i3: Tensor, expand1: tuple[int, ...],
                expand2: tuple[int, ...], expand3: tuple[int, ...],
                sumdim: tuple[int, ...]) -> np.ndarray:
        need = [t.requires_grad for t in (i1, i2, i3)]
        self.save("i1", i1 if need[1] or need[2] else None)
        self.save("i2", i2 if need[0] or need[2] else None)
        self.save("i3", i3 if need[0] or need[1] else None)
        self.save_attr(expand1=expand1, expand2=expand2, expand3=expand3, sumdim=sumdim)
        exactness.note(_CAUSE)
        if (expand1, expand2, expand3, sumdim) == _BILINEAR:
            return _bilinear(i1.array, i2.array, i3.array)
        return _trilinear_array(i1.array, i2.array, i3.array, (expand1, expand2, expand3),
                                sumdim).astype(i1.array.dtype)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        """_trilinear_backward: three _trilinear calls (recorded under create_graph)."""
        i1, i2, i3 = (self.unpack(k) for k in ("i1", "i2", "i3"))
        a = self.attrs
        e1, e2, e3, s = a["expand1"], a["expand2"], a["expand3"], a["sumdim"]
        out: list[Tensor | None] = [None, None, None]
        if self.needs_input_grad(0):
            out[0] = _trilinear(grad, i2, i3, s, e2, e3, e1)
        if self.needs_input_grad(1):
            out[1] = _trilinear(i1, grad, i3, e1, s, e3, e2)
        if self.needs_input_grad(2):
            out[2] = _trilinear(i1, i2, grad, e1, e2, s, e3)
        return tuple(out)


def _trilinear(i1: Tensor, i2: Tensor, i3: Tensor, expand1: tuple[int, ...],
               expand2: tuple[int, ...], expand3: tuple[int, ...],
               sumdim: tuple[int, ...]) -> Tensor:
    return TrilinearBackward0.call(i1, i2, i3, expand1=expand1, expand2=expand2,
                                   expand3=expand3, sumdim=sumdim)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Any = None) -> Tensor:
    """aten::bilinear: inputs flattened to 2-D, _trilinear, reshaped back, plus bias."""
    if input1.array.ndim != input2.array.ndim:
        raise TorchRuntimeError(f"bilinear(): input dimensions do not match: got "
                                f"{input1.array.ndim} and {input2.array.ndim}")
    for i in range(input1.array.ndim - 1):
        if input1.array.shape[i] != input2.array.shape[i]:
            raise TorchRuntimeError(f"bilinear(): input batch dimensions do not match at dim "
                                    f"{i}: got {input1.array.shape[i]} and "
                                    f"{input2.array.shape[i]}")
    if input1.array.shape[-1] != weight.array.shape[1]:
        raise TorchRuntimeError(f"bilinear(): input1 size does not match weight size: got "
                                f"{input1.array.shape[-1]} but expected {weight.array.shape[1]}")
    if input2.array.shape[-1] != weight.array.shape[2]:
        raise TorchRuntimeError(f"bilinear(): input2 size does not match weight size: got "
                                f"{input2.array.shape[-1]} but expected {weight.array.shape[2]}")
    if bias is not None and bias.array.shape[0] != weight.array.shape[0]:
        raise TorchRuntimeError(f"bilinear(): bias size does not match weight size: got "
                                f"{bias.array.shape[0]} but expected {weight.array.shape[0]}")
    output_size = input1.array.shape[:-1] + (weight.array.shape[0],)
    flat1 = reshape(input1, (-1, input1.array.shape[-1]))
    flat2 = reshape(input2, (-1, input2.array.shape[-1]))
    output = reshape(_trilinear(flat1, weight, flat2, *_BILINEAR), output_size)
    if bias is not None:
        output = output + bias
    return output
