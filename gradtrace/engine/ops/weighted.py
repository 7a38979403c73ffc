"""Ops with a learned weight beside the input: prelu (PreluKernelBackward0) and bilinear,
which torch composes from _trilinear (TrilinearBackward0), both as ATen composes them
(aten/src/ATen/native/Activation.cpp, Linear.cpp)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import blas, dtypes
from ..formulas import local, vjp
from ..node import Function
from ..pointwise import iterator_layout
from ..reduction_order import cascade_sum
from ..tensor import Tensor
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

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::where(self_p >= 0, self_t, weight_p * self_t + weight_t * self_p)
        from .reductions import where

        x, weight = inputs
        return where(x >= 0, t[0], weight * t[0] + t[1] * x)

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
        # arrays of their own (a broadcast view is read-only: AccumulateGrad adds into a
        # stolen gradient later), laid out by TensorIterator's first operand, self
        return [iterator_layout(np.array(np.broadcast_to(v, shape), a.dtype), a, w, g)
                for v in (gi, gw)]

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
                                f"{input.dtype.scalar_type} and {weight.dtype.scalar_type}")
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

_BILINEAR = ((1, 3), (0,), (1, 2), (2, 3))  # bilinear's (expand1, expand2, expand3, sumdim)


def _strided(a: np.ndarray, shape: list[int], strides: list[int]) -> np.ndarray:
    """A view of `a` with torch's sizes and strides (in elements): MKL's gemm arguments,
    and so its bits, follow the strides of even a size-1 dim."""
    return np.lib.stride_tricks.as_strided(a, tuple(shape),
                                           tuple(st * a.itemsize for st in strides))


def _elements(a: np.ndarray) -> list[int]:
    return [st // a.itemsize for st in a.strides]


def _unsqueeze(a: np.ndarray, d: int) -> np.ndarray:
    """Tensor.unsqueeze's view: the new dim's stride is size * stride of the dim it precedes."""
    st = _elements(a)
    st.insert(d, a.shape[d] * st[d] if d < a.ndim else 1)
    return _strided(a, list(a.shape[:d]) + [1] + list(a.shape[d:]), st)


def _view_strides(old: tuple[int, ...], strides: list[int],
                  new: list[int]) -> list[int] | None:
    """TensorUtils.cpp's computeStride: the strides of a view of `old` as `new`, or None
    when reshape must copy."""
    out = [0] * len(new)
    view_d = len(new) - 1
    base, tensor_numel, view_numel = strides[-1], 1, 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base, tensor_numel, view_numel = strides[d - 1], 1, 1
    return out if view_d == -1 else None


def _reshape(a: np.ndarray, shape: list[int]) -> np.ndarray:
    """Tensor.reshape: a view with computeStride's strides, else a contiguous copy."""
    strides = _view_strides(a.shape, _elements(a), shape) if a.ndim else None
    if strides is None:
        return np.ascontiguousarray(a).reshape(shape)
    return _strided(a, shape, strides)


def _sumproduct_pair(left: np.ndarray, right: np.ndarray, sum_dims: list[int]) -> np.ndarray:
    """Linear.cpp's sumproduct_pair (keepdim) on arrays: dims summed in only one operand
    summed first (torch.sum), then both permuted to (lro, lo, sum) and (lro, sum, ro),
    reshaped and multiplied by bmm (the operands swapped when every right-only dim
    precedes the left-only ones), the product viewed and permuted back."""
    if not sum_dims:
        return np.ascontiguousarray(left * right)
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    both: list[int] = []
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                both.append(i)
            elif sl:
                left = cascade_sum(left, (i,), True)
            elif sr:
                right = cascade_sum(right, (i,), True)
        elif sl and sr:
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    size = {d: left.shape[d] for d in lro + lo + both}
    size.update({d: right.shape[d] for d in ro})
    if lo and ro and ro[-1] < lo[0]:  # swap_lo_ro: bmm then writes the output's order
        left, right, lo, ro = right, left, ro, lo

    def prod(dims: list[int]) -> int:
        return int(np.prod([size[d] for d in dims], dtype=np.int64))

    a = _reshape(left.transpose(lro + lo + both + ro), [prod(lro), prod(lo), prod(both)])
    b = _reshape(right.transpose(lro + both + ro + lo), [prod(lro), prod(both), prod(ro)])
    out = _reshape(blas.bmm(a, b), [size[d] for d in lro + lo] + [1] * len(both)
                   + [size[d] for d in ro])
    order = lro + lo + both + ro
    return out.transpose([order.index(d) for d in range(left.ndim)])


def _trilinear_array(i1: np.ndarray, i2: np.ndarray, i3: np.ndarray,
                     expand: tuple[tuple[int, ...], ...], sumdim: tuple[int, ...],
                     unroll_dim: int = 1) -> np.ndarray:
    """Linear.cpp's _trilinear: the inputs unsqueezed at their expand dims, then for each
    index of unroll_dim two sumproduct_pairs (i1 with i2 over the sum dims i3 lacks, the
    result with i3 over the rest), added into a zeroed output."""
    total = i1.ndim + len(expand[0])
    ins = []
    for a, ex in zip((i1, i2, i3), expand, strict=True):
        for d in sorted(ex):
            a = _unsqueeze(a, d)
        ins.append(a)
    sum12 = [d for d in range(total) if d in sumdim and d != unroll_dim and d in expand[2]]
    sum23 = [d for d in range(total) if d in sumdim and d != unroll_dim
             and d not in expand[2]]
    shape = [1 if d in sumdim else max(a.shape[d] for a in ins) for d in range(total)]
    out = np.zeros(shape, i1.dtype)
    step = [0 if unroll_dim in ex else 1 for ex in expand]
    with np.errstate(all="ignore"):
        for k in range(max(a.shape[unroll_dim] for a in ins)):
            a, b, c = (x[(slice(None),) * unroll_dim + (slice(k * m, k * m + 1),)]
                       for x, m in zip(ins, step, strict=True))
            buf = _sumproduct_pair(_sumproduct_pair(a, b, sum12), c, sum23)
            at = [slice(None)] * total
            if unroll_dim not in sumdim:
                at[unroll_dim] = slice(k, k + 1)
            out[tuple(at)] += buf
    return out.reshape([n for d, n in enumerate(shape) if d not in sumdim])


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
        return _trilinear_array(i1.array, i2.array, i3.array, (expand1, expand2, expand3),
                                sumdim)

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
    if not (input1.dtype is input2.dtype is weight.dtype
            and (bias is None or bias.dtype is input1.dtype)):
        names = [f"{name}: {dtypes.C_TYPE_NAMES[t.dtype.name]}" for name, t in (
            ("input1", input1), ("input2", input2), ("weight", weight), ("bias", bias))
            if t is not None]
        raise TorchRuntimeError(f"All tensors must have the same dtype, got {', '.join(names)}")
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
