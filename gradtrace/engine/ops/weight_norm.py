"""torch._weight_norm (what torch.nn.utils.weight_norm computes a weight with) and
torch.norm_except_dim, as ATen's WeightNorm.cpp composes them: the fused
`_weight_norm_interface` (node WeightNormInterfaceBackward0, CPU kernel in
engine/norm_kernels.py) when the norm is taken per slice of the first or last dim, else
`v * (g / norm_except_dim(v, 2, dim))` of ordinary ops."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import norm_kernels
from ..formulas import vjp
from ..grad_mode import GRAD_MODE
from ..node import Function
from ..tensor import Tensor
from .clones import contiguous
from .norms import LinalgVectorNormBackward0, norm_backward
from .views import transpose, view


class NormBackward0(LinalgVectorNormBackward0):
    """at::norm(self, p): the p-norm of every element (norm_except_dim's dim=-1)."""

    __slots__ = ()
    formulas = (vjp("self", "{grad} × sgn({self}) × |{self}|^({p} - 1) / {result}^({p} - 1)"),)

    def forward(self, a: Tensor, p: Any) -> np.ndarray:
        out = super().forward(a, ord=p, dim=None, keepdim=False)
        if self.recording:
            self.attrs.clear()
            self.save_attr(p=p)
        return out

    def backward(self, grad: Tensor) -> Tensor | None:
        s = self.unpack("self")
        return norm_backward(grad, s, self.unpack("result"), float(self.attrs["p"]),
                             tuple(range(s.ndim)), False)


class NormBackward1(LinalgVectorNormBackward0):
    """at::norm(self, p, dim, keepdim) with p as given (norm_except_dim's per-slice norms)."""

    __slots__ = ()
    formulas = (vjp("self", "{grad}.unsqueeze({dim}) × sgn({self}) × |{self}|^({p} - 1) / "
                    "{result}.unsqueeze({dim})^({p} - 1)"),)

    def forward(self, a: Tensor, p: Any, dim: tuple[int, ...], keepdim: bool) -> np.ndarray:
        out = super().forward(a, ord=p, dim=dim, keepdim=keepdim)
        if self.recording:
            self.attrs["p"] = self.attrs.pop("ord")
        return out


def _slice_shape(v: Tensor, dim: int) -> list[int]:
    shape = [1] * v.ndim
    shape[dim] = v.shape[dim]
    return shape


def norm_except_dim(v: Tensor, pow: Any = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """The norm over every dim but `dim` (of everything when dim is -1), kept broadcastable
    against v: ATen's view/norm/view, through a transpose for a middle dim."""
    if dim == -1:
        return NormBackward0.call(v, p=pow)
    if dim == 0:
        flat = view(contiguous(v), v.shape[0], -1)
        return view(NormBackward1.call(flat, p=pow, dim=(1,), keepdim=False),
                    *_slice_shape(v, 0))
    if dim == v.ndim - 1:
        flat = view(contiguous(v), -1, v.shape[-1])
        return view(NormBackward1.call(flat, p=pow, dim=(0,), keepdim=False),
                    *_slice_shape(v, dim))
    return transpose(norm_except_dim(transpose(v, 0, dim), pow, 0), 0, dim)


class WeightNormInterfaceBackward0(Function):
    """_weight_norm_interface(v, g, dim): w = v * g / ‖v‖ per slice of dim 0 or the last
    dim. Its second output, the norms, is not differentiable in torch (derivatives.yaml), so
    the node has w as its one output and keeps the norms as the saved `result1`, which
    gradients never reach: torch's second derivative holds them constant (so it is not the
    exact Hessian)."""

    __slots__ = ()
    no_forward_ad = "_weight_norm_interface"  # torch has no forward-mode formula (measured)
    formulas = (
        vjp("v", "{g} / {result1} × ({grad} - {v} × Σ({grad} × {v}) / {result1}²)"),
        vjp("g", "Σ({grad} × {v}) / {result1}"))

    def forward(self, v: Tensor, g: Tensor, dim: int, norms: list[Tensor]) -> np.ndarray:
        self.save("v", v)
        self.save("g", g)
        self.save_attr(dim=dim)
        first = dim == 0
        a = np.ascontiguousarray(v.array)
        rows = a.shape[0] if first else a.size // a.shape[-1]
        w, norm = norm_kernels.weight_norm(a.reshape(rows, -1), g.array, first)
        norms.append(Tensor._wrap(norm.reshape(g.array.shape)))
        self.save("result1", norms[0])
        return w.reshape(a.shape)

    def backward(self, grad: Tensor) -> tuple[Tensor, Tensor]:
        """The CPU kernel with grad mode off; under create_graph torch's
        _weight_norm_differentiable_backward, op for op."""
        v, g, norm = self.unpack("v"), self.unpack("g"), self.unpack("result1")
        first = self.attrs["dim"] == 0
        if GRAD_MODE.enabled:
            return _differentiable_backward(contiguous(grad), v, g, norm, first)
        a = np.ascontiguousarray(v.array)
        rows = a.shape[0] if first else a.size // a.shape[-1]
        gv, gg = norm_kernels.weight_norm_backward(
            np.ascontiguousarray(grad.array, a.dtype).reshape(rows, -1), a.reshape(rows, -1),
            g.array, norm.array.reshape(-1), first)
        return Tensor._wrap(gv.reshape(a.shape)), Tensor._wrap(gg.reshape(g.array.shape))


def _differentiable_backward(grad_w: Tensor, v: Tensor, g: Tensor, norms: Tensor,
                             first: bool) -> tuple[Tensor, Tensor]:
    product = grad_w * v
    if first:
        sums = view(view(product, v.shape[0], -1).sum(1), *_slice_shape(v, 0))
    else:
        sums = view(view(product, -1, v.shape[-1]).sum(0), *_slice_shape(v, v.ndim - 1))
    grad_v = (g / norms) * (grad_w - v * (sums / (norms * norms)))
    return grad_v, sums / norms


def _interface(v: Tensor, g: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    norms: list[Tensor] = []
    w = WeightNormInterfaceBackward0.call(v, g, dim=dim, norms=norms)
    return w, norms[0]


def weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """torch._weight_norm: the fused interface for the first or last dim, else the
    composite of norm_except_dim."""
    if v.ndim == 0 or dim < -1 or dim >= v.ndim:
        raise TorchRuntimeError(f"Dimension out of range (expected to be in range of "
                                f"[-1, {v.ndim - 1}], but got {dim})")
    v, g = contiguous(v), contiguous(g)
    if dim == 0 or dim == v.ndim - 1:
        return _interface(v, g, dim)[0]
    return v * (g / norm_except_dim(v, 2, dim))


def weight_norm_interface(v: Tensor, g: Tensor, dim: int = 0) -> tuple[Tensor, Tensor]:
    """torch._weight_norm_interface: (w, norms)."""
    return _interface(v, g, dim)
