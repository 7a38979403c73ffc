"""The products that add to a bias: baddbmm, addbmm, addmv, addr (and their in-place forms).

Each is `beta * self + alpha * product`; beta 0 reads none of `self` (its nans vanish), as
ATen's kernels do. The backward formulas are derivatives.yaml's, with maybe_multiply (a
factor of 1 multiplies nothing), computed in the order torch's generated code computes them
(its inputs' names sorted: the nodes of a create_graph backward come out in torch's order)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from .. import blas, capability, fp32, fp64
from ..dtypes import C_TYPE_NAMES, promote
from ..formulas import vjp
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor
from ._util import apply_inplace
from .linalg import bmm, conj_scalar, mv, outer
from .scalar import mul_scalar
from .views import expand, t, transpose, unsqueeze


def maybe_multiply(grad: Tensor, factor: Any) -> Tensor:
    """FunctionsManual.cpp's maybe_multiply: a factor of 1 leaves the gradient as it is."""
    return grad if factor == 1 else mul_scalar(grad, factor)


def _expanded_bias(bias: Tensor, out_shape: tuple[int, ...]) -> np.ndarray:
    """The bias expanded to the result's shape, with expand's error where it cannot be."""
    shape = bias.array.shape
    if len(shape) > len(out_shape):
        raise TorchRuntimeError(
            f"The expanded size of the tensor ({out_shape[-1] if out_shape else 0}) must match "
            f"the existing size ({shape[-1]}) at non-singleton dimension 0.  Target sizes: "
            f"[{', '.join(map(str, out_shape))}].  Tensor sizes: [{', '.join(map(str, shape))}]")
    offset = len(out_shape) - len(shape)
    for i, size in enumerate(shape):
        if size != 1 and size != out_shape[offset + i]:
            raise TorchRuntimeError(
                f"The expanded size of the tensor ({out_shape[offset + i]}) must match the "
                f"existing size ({size}) at non-singleton dimension {offset + i}.  Target sizes: "
                f"[{', '.join(map(str, out_shape))}].  Tensor sizes: "
                f"[{', '.join(map(str, shape))}]")
    return np.broadcast_to(bias.array, out_shape)


def _size(a: Tensor, dim: int) -> int:
    """Tensor.size(dim), with its error for a dim out of range."""
    n = a.array.ndim
    if dim >= max(n, 1):
        raise TorchIndexError(f"Dimension out of range (expected to be in range of "
                              f"[{-max(n, 1)}, {max(n, 1) - 1}], but got {dim})")
    return a.array.shape[dim]


def _check_batches(b1: Tensor, b2: Tensor) -> None:
    for name, b in (("batch1", b1), ("batch2", b2)):
        if b.array.ndim != 3:
            raise TorchRuntimeError(f"{name} must be a 3D tensor")


def _save_batches(node: Function, b1: Tensor, b2: Tensor, alpha: Any, beta: Any) -> None:
    node.save_attr(alpha=alpha, beta=beta)
    node.save("batch1", b1 if b2.requires_grad else None)
    node.save("batch2", b2 if b1.requires_grad else None)


class BaddbmmBackward0(Function):
    """beta * self + alpha * (batch1 @ batch2), batch by batch; inputs (self, batch1, batch2)."""

    __slots__ = ()
    structured_inplace = True  # baddbmm_ (measured)
    formulas = (vjp("self", "{beta} × {grad}"),
                vjp("batch1", "{alpha} × {grad} @ {batch2}.mT"),
                vjp("batch2", "{alpha} × {batch1}.mT @ {grad}"))

    def forward(self, bias: Tensor, b1: Tensor, b2: Tensor, beta: Any = 1,
                alpha: Any = 1) -> np.ndarray:
        if b1.array.ndim == 3:  # torch reads batch2.size(2) before checking batch2
            _size(b2, 2)
        _check_batches(b1, b2)
        bs, rows, k = b1.array.shape
        if b2.array.shape[:2] != (bs, k):
            raise TorchRuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but "
                f"got: [{b2.array.shape[0]}, {b2.array.shape[1]}].")
        if not bias.dtype is b1.dtype is b2.dtype:
            raise TorchRuntimeError(
                f"Input dtypes must be the same, got: input {C_TYPE_NAMES[bias.dtype.name]}, "
                f"batch1: {C_TYPE_NAMES[b1.dtype.name]}, batch2: {C_TYPE_NAMES[b2.dtype.name]}")
        out_shape = (bs, rows, b2.array.shape[2])
        expanded = _expanded_bias(bias, out_shape)
        _save_batches(self, b1, b2, alpha, beta)
        reserve(out_shape, b1.array.itemsize)
        return blas.baddbmm(expanded, b1.array, b2.array, beta, alpha)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # maybe_multiply(self_t, beta) + maybe_multiply(batch1_t.bmm(batch2_p), alpha)
        #   + maybe_multiply(batch1_p.bmm(batch2_t), alpha)
        alpha, beta = params.get("alpha", 1), params.get("beta", 1)
        _, x, y = inputs
        return (maybe_multiply(t[0], beta) + maybe_multiply(bmm(t[1], y), alpha)
                + maybe_multiply(bmm(x, t[2]), alpha))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        alpha, beta = self.attrs["alpha"], self.attrs["beta"]
        g_self = g1 = g2 = None
        if self.needs_input_grad(1):
            g1 = maybe_multiply(bmm(grad, transpose(self.unpack("batch2"), 1, 2)), alpha)
        if self.needs_input_grad(2):
            g2 = maybe_multiply(bmm(transpose(self.unpack("batch1"), 1, 2), grad), alpha)
        if self.needs_input_grad(0):
            g_self = maybe_multiply(grad, beta)
        return g_self, g1, g2


class AddbmmBackward0(Function):
    """beta * self + alpha * sum over the batch of batch1[i] @ batch2[i]."""

    __slots__ = ()
    formulas = (vjp("self", "{beta} × {grad}"),
                vjp("batch1", "{alpha} × {grad}.unsqueeze(0) @ {batch2}.mT"),
                vjp("batch2", "{alpha} × {batch1}.mT @ {grad}.unsqueeze(0)"))

    def forward(self, bias: Tensor, b1: Tensor, b2: Tensor, beta: Any = 1,
                alpha: Any = 1) -> np.ndarray:
        # addbmm_out expands the bias to (batch1.size(1), batch2.size(2)) before any check
        out_shape = (_size(b1, 1), _size(b2, 2))
        expanded = _expanded_bias(bias, out_shape)
        _check_batches(b1, b2)
        bs, rows, k = b1.array.shape
        if b2.array.shape[0] != bs:
            raise TorchRuntimeError(f"batch1 and batch2 must have same number of batches, got "
                                    f"{bs} and {b2.array.shape[0]}")
        if b2.array.shape[1] != k:
            raise TorchRuntimeError(
                f"Incompatible matrix sizes for bmm ({rows}x{k} and {b2.array.shape[1]}x"
                f"{b2.array.shape[2]})")
        for a, b, names in ((b1, b2, "mat1 and mat2"), (bias, b2, "self and mat2")):
            if a.dtype is not b.dtype:
                raise TorchRuntimeError(f"{names} must have the same dtype, but got "
                                        f"{a.dtype.scalar_type} and {b.dtype.scalar_type}")
        _save_batches(self, b1, b2, alpha, beta)
        self.save_attr(batch1_sym_argsize_0=bs, batch1_sym_argsize_1=rows,
                       batch2_sym_argsize_2=out_shape[1])
        reserve(out_shape, b1.array.itemsize)
        # addbmm_impl_: the bias copied in (unless beta is 0), then one addmm_ per batch,
        # beta applying to the first only
        result = expanded.copy() if beta != 0 else np.zeros(out_shape, b1.array.dtype)
        if bs == 0:
            return result * beta if beta != 0 else result
        for i in range(bs):
            result = blas.addmm(result, b1.array[i], b2.array[i], beta if i == 0 else 1, alpha)
        return result

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # maybe_multiply(self_t, beta) + maybe_multiply(batch1_t.bmm(batch2_p).sum(0), alpha)
        #   + maybe_multiply(batch1_p.bmm(batch2_t).sum(0), alpha)
        alpha, beta = params.get("alpha", 1), params.get("beta", 1)
        _, x, y = inputs
        return (maybe_multiply(t[0], beta) + maybe_multiply(bmm(t[1], y).sum(0), alpha)
                + maybe_multiply(bmm(x, t[2]).sum(0), alpha))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        a = self.attrs
        alpha, beta = a["alpha"], a["beta"]
        g_self = g1 = g2 = None
        if self.needs_input_grad(1) or self.needs_input_grad(2):
            shape = (a["batch1_sym_argsize_0"], a["batch1_sym_argsize_1"],
                     a["batch2_sym_argsize_2"])
            if self.needs_input_grad(1):
                g1 = maybe_multiply(bmm(expand(unsqueeze(grad, 0), shape),
                                        transpose(self.unpack("batch2"), 1, 2)), alpha)
            if self.needs_input_grad(2):
                g2 = maybe_multiply(bmm(transpose(self.unpack("batch1"), 1, 2),
                                        expand(unsqueeze(grad, 0), shape)), alpha)
        if self.needs_input_grad(0):
            g_self = maybe_multiply(grad, beta)
        return g_self, g1, g2


def check_mv(bias_rows: int | None, mat: Tensor, vec: Tensor) -> None:
    """addmv's (and so mv's) shape checks, in torch's words; `bias_rows` None for mv."""
    if mat.array.ndim != 2 or vec.array.ndim != 1:
        raise TorchRuntimeError(
            f"vector + matrix @ vector expected, got 1, {mat.array.ndim}, {vec.array.ndim}")
    rows, cols = mat.array.shape
    shown = rows if bias_rows is None else bias_rows
    if cols != vec.array.shape[0] or shown not in (rows, 1):
        raise TorchRuntimeError(
            f"size mismatch, got input ({shown}), mat ({rows}x{cols}), vec "
            f"({vec.array.shape[0]})")


class AddmvBackward0(Function):
    __slots__ = ()
    structured_inplace = True  # addmv_ (measured)
    formulas = (vjp("self", "{beta} × {grad}"),
                vjp("mat", "{alpha} × outer({grad}, {vec})"),
                vjp("vec", "{alpha} × {mat}ᵀ @ {grad}"))

    def forward(self, bias: Tensor, mat: Tensor, vec: Tensor, beta: Any = 1,
                alpha: Any = 1) -> np.ndarray:
        check_mv(bias.array.shape[0] if bias.array.ndim == 1 else 1, mat, vec)
        if bias.array.ndim > 1:
            _expanded_bias(bias, mat.array.shape[:1])
        if not bias.dtype is mat.dtype is vec.dtype:
            raise TorchRuntimeError(
                f"addmv input tensors must have the same dtype, but got "
                f"{bias.dtype.scalar_type}, {mat.dtype.scalar_type}, and {vec.dtype.scalar_type}")
        self.save_attr(alpha=alpha, beta=beta)
        self.save("mat", mat if vec.requires_grad else None)
        self.save("vec", vec if mat.requires_grad else None)
        expanded = np.broadcast_to(bias.array, mat.array.shape[:1])
        return blas.addmv(expanded, mat.array, vec.array, beta, alpha)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # maybe_multiply(self_t, beta) + maybe_multiply(mat_t.mv(vec_p), alpha)
        #   + maybe_multiply(mat_p.mv(vec_t), alpha)
        alpha, beta = params.get("alpha", 1), params.get("beta", 1)
        _, x, y = inputs
        return (maybe_multiply(t[0], beta) + maybe_multiply(mv(t[1], y), alpha)
                + maybe_multiply(mv(x, t[2]), alpha))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        # maybe_multiply(grad, beta.conj()), maybe_multiply(grad.ger(vec.conj()),
        # alpha.conj()), maybe_multiply(mat.t().conj().mv(grad), alpha.conj())
        # (in this order: the order the ops are recorded in is the order a create_graph
        # graph's next backward accumulates their gradients in)
        from .complex_ops import conj

        alpha, beta = conj_scalar(self.attrs["alpha"]), conj_scalar(self.attrs["beta"])
        g_self = g_mat = g_vec = None
        if self.needs_input_grad(1):
            g_mat = maybe_multiply(outer(grad, conj(self.unpack("vec"))), alpha)
        if self.needs_input_grad(0):
            g_self = maybe_multiply(grad, beta)
        if self.needs_input_grad(2):
            g_vec = maybe_multiply(mv(t(conj(self.unpack("mat"))), grad), alpha)
        return g_self, g_mat, g_vec


class AddrBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{beta} × {grad}"),
                vjp("vec1", "{alpha} × {grad} @ {vec2}"),
                vjp("vec2", "{alpha} × {grad}ᵀ @ {vec1}"))

    def forward(self, bias: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1,
                alpha: Any = 1) -> np.ndarray:
        for name, v in (("vec1", vec1), ("vec2", vec2)):
            if v.array.ndim != 1:
                raise TorchRuntimeError(
                    f"addr: Expected 1-D argument {name}, but got {v.array.ndim}-D")
        out_shape = (vec1.array.shape[0], vec2.array.shape[0])
        expanded = _expanded_bias(bias, out_shape)
        dtype = promote(promote(bias.dtype, vec1.dtype), vec2.dtype).np
        self.save_attr(alpha=alpha, beta=beta)
        self.save("vec1", vec1 if vec2.requires_grad else None)
        self.save("vec2", vec2 if vec1.requires_grad else None)
        reserve(out_shape, np.dtype(dtype).itemsize)
        return _addr_kernel(expanded, vec1.array, vec2.array, beta, alpha, np.dtype(dtype))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # maybe_multiply(self_t, beta) + maybe_multiply(vec1_t.outer(vec2_p), alpha)
        #   + maybe_multiply(vec1_p.outer(vec2_t), alpha)
        alpha, beta = params.get("alpha", 1), params.get("beta", 1)
        _, x, y = inputs
        return (maybe_multiply(t[0], beta) + maybe_multiply(outer(t[1], y), alpha)
                + maybe_multiply(outer(x, t[2]), alpha))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        alpha, beta = self.attrs["alpha"], self.attrs["beta"]
        g_self = g1 = g2 = None
        if self.needs_input_grad(0):
            g_self = maybe_multiply(grad, beta)
        if self.needs_input_grad(1):
            g1 = maybe_multiply(mv(grad, self.unpack("vec2")), alpha)
        if self.needs_input_grad(2):
            g2 = maybe_multiply(mv(t(grad), self.unpack("vec1")), alpha)
        return g_self, g1, g2


def _addr_kernel(bias: np.ndarray, v1: np.ndarray, v2: np.ndarray, beta: Any, alpha: Any,
                 dtype: np.dtype) -> np.ndarray:
    """addr_kernel (LinearAlgebraKernel.cpp): `beta * self + alpha * vec1 * vec2` row by
    row (`alpha * vec1 * vec2` for beta 0). In the FMA builds the vector body computes
    fma(alpha * vec1, vec2, beta * self) and the scalar tail of each row (the last
    columns short of 2 x lanes, and rows whose `self` does not vary along them)
    fma(beta, self, alpha * vec1 * vec2); the default build rounds every step."""
    a, b = v1.astype(dtype)[:, None], v2.astype(dtype)[None, :]
    with np.errstate(all="ignore"):
        if dtype.kind != "f":
            prod = alpha * a * b
            return np.asarray(prod if beta == 0 else beta * bias + prod, dtype)
        al, be = dtype.type(alpha), dtype.type(beta)
        prod = (al * a) * b
        if beta == 0:
            return prod
        s = bias.astype(dtype, copy=False)
        if not capability.fma_build():
            return be * s + prod
        fma = fp32.fma if dtype == np.float32 else fp64.fma
        a, b = np.broadcast_arrays(al * a, b)
        out = np.asarray(fma(be, s, prod), dtype)  # the scalar tails
        rows = (out, a, b, s) if out.shape[1] > 1 else (out.T, a.T, b.T, s.T)
        r_out, r_a, r_b, r_s = rows  # one row per inner loop (a single column coalesces)
        width = 2 * capability.lanes(dtype.itemsize)
        body = r_out.shape[1] // width * width
        if body and (r_s.strides[1] != 0 or r_s.shape[1] == 1):
            r_out[:, :body] = fma(r_a[:, :body], r_b[:, :body], be * r_s[:, :body])
        return out


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,  # noqa: A002
            alpha: Any = 1) -> Tensor:
    return BaddbmmBackward0.call(input, batch1, batch2, beta=beta, alpha=alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1,  # noqa: A002
           alpha: Any = 1) -> Tensor:
    return AddbmmBackward0.call(input, batch1, batch2, beta=beta, alpha=alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1,  # noqa: A002
          alpha: Any = 1) -> Tensor:
    return AddmvBackward0.call(input, mat, vec, beta=beta, alpha=alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1,  # noqa: A002
         alpha: Any = 1) -> Tensor:
    return AddrBackward0.call(input, vec1, vec2, beta=beta, alpha=alpha)


def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
             ) -> Tensor:
    return apply_inplace(BaddbmmBackward0, self, batch1, batch2, beta=beta, alpha=alpha)


def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1
            ) -> Tensor:
    return apply_inplace(AddbmmBackward0, self, batch1, batch2, beta=beta, alpha=alpha)


def addmv_(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return apply_inplace(AddmvBackward0, self, mat, vec, beta=beta, alpha=alpha)


def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1
          ) -> Tensor:
    """Tensor.addr_: torch's in-place kernel takes only a 2-D self of the outer product's
    very size (measured), no broadcast one."""
    if self.array.ndim != 2:
        raise TorchRuntimeError(f"2D tensor expected, got {self.array.ndim}D tensor for input")
    shape = (vec1.array.shape[0] if vec1.array.ndim else 1,
             vec2.array.shape[0] if vec2.array.ndim else 1)
    if vec1.array.ndim == vec2.array.ndim == 1 and self.array.shape != shape:
        raise TorchRuntimeError(
            f"size mismatch, input: [{', '.join(map(str, self.array.shape))}], v1: "
            f"[{vec1.array.shape[0]}], v2: [{vec2.array.shape[0]}]")
    return apply_inplace(AddrBackward0, self, vec1, vec2, beta=beta, alpha=alpha)

__all__ = ["baddbmm", "addbmm", "addmv", "addr", "baddbmm_", "addbmm_", "addmv_", "addr_",
           "maybe_multiply", "check_mv"]
