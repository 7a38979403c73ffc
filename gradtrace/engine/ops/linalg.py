"""Matrix products: mm, mv, dot, bmm, addmm, outer, F.linear, and matmul's dispatch
(torch's _matmul_impl, so batched and 1-D cases record the same chain of nodes)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError, TorchTypeError
from .. import bfloat16, blas, conj_bit, unsigned
from ..dtypes import C_TYPE_NAMES, DType, promote
from ..formulas import COMPLEX, local, vjp
from ..forward_ad import maybe_multiply
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..node import Function
from ..shapes import broadcast_shapes, wrap_dim
from ..tensor import Tensor, type_name
from .clones import contiguous
from .views import (
    expand,
    expanded_shape,
    mT,
    reshape,
    saved_int,
    signed,
    squeeze,
    t,
    tensor_strides,
    unsafe_view,
    unsqueeze,
    view,
)


def _c_name(dtype: DType) -> str:
    return C_TYPE_NAMES[dtype.name]


def _save_matrix(node: Function, key: str, m: Tensor, needed: bool, own_grad: bool) -> None:
    """torch saves a matrix only when the other input needs it, its strides only for itself.
    (Nothing to build for a product that records no node: every product of a backward.)"""
    if not node.recording:
        return
    node.save(key, m if needed else None)
    sizes, strides = _SAVED_NAMES[key]
    node.save_attr(**{sizes: m.array.shape, strides: tensor_strides(m) if own_grad else ()})


_SAVED_NAMES = {key: (f"{key}_sym_sizes", f"{key}_sym_strides") for key in ("self", "mat1", "mat2")}


def _check_matrix(a: Tensor, b: Tensor, name_a: str = "self", name_b: str = "mat2") -> None:
    if a.array.ndim != 2:
        raise TorchRuntimeError(f"{name_a} must be a matrix")
    if b.array.ndim != 2:
        raise TorchRuntimeError(f"{name_b} must be a matrix")
    if a.array.shape[1] != b.array.shape[0]:
        raise TorchRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.array.shape[0]}x{a.array.shape[1]} "
            f"and {b.array.shape[0]}x{b.array.shape[1]})")
    if a.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c_name(a.dtype)} != "
            f"{_c_name(b.dtype)}")


def _column_major(node: Function, key: str) -> bool:
    """Whether the saved sizes and strides of input `key` say column-major (the test of
    FunctionsManual.cpp's mm_mat1_backward / mm_mat2_backward)."""
    sizes, strides = node.attrs[f"{key}_sym_sizes"], node.attrs[f"{key}_sym_strides"]
    return bool(strides) and strides[0] == 1 and strides[1] == sizes[0]


def _mat1_grad(node: Function, key: str, grad: Tensor, mat2: Tensor) -> Tensor:
    """mm_mat1_backward: grad @ mat2ᵀ, or (mat2 @ gradᵀ)ᵀ for a column-major mat1 -- another
    BLAS call, so other bits. (Complex: mat2's conjugate, `_conjugate_product`.)"""
    if _column_major(node, key):
        if grad.dtype.is_complex:
            return t(_conjugate_product(mat2, t(grad), True, False))
        return t(mm(mat2, t(grad)))
    if grad.dtype.is_complex:
        return _conjugate_product(grad, t(mat2), False, True)
    return mm(grad, t(mat2))


def _mat2_grad(node: Function, grad: Tensor, mat1: Tensor) -> Tensor:
    """mm_mat2_backward: mat1ᵀ @ grad, or (gradᵀ @ mat1)ᵀ for a column-major mat2 (such as
    F.linear's weight.t()). (Complex: mat1's conjugate, `_conjugate_product`.)"""
    if _column_major(node, "mat2"):
        if grad.dtype.is_complex:
            return t(_conjugate_product(t(grad), mat1, False, True))
        return t(mm(t(grad), mat1))
    if grad.dtype.is_complex:
        return _conjugate_product(t(mat1), grad, True, False)
    return mm(t(mat1), grad)


def _conjugate_product(a: Tensor, b: Tensor, conj_a: bool, conj_b: bool) -> Tensor:
    """A complex gradient's mm with torch's lazily conjugated operand (`mat2.t().conj()`):
    addmm_impl_cpu_ hands BLAS a conjugate transpose where that operand is transposed and
    writes the conjugate out where it is not, and the two round differently (measured), so
    blas.mm takes the conjugate as a flag. Under create_graph, recording the product of
    conj views gave torch's values and nodes, but after a second backward a (30, 1) leaf's
    `.grad` had strides (30, 1) where torch's has (1, 1) (measured): refused there."""
    if GRAD_MODE.enabled:
        raise NotSupportedError("create_graph=True through a product of complex matrices is "
                                "not supported by gradtrace (torch's gradient multiplies by "
                                "a lazily conjugated matrix, and the second-order gradients "
                                "of a 1-wide matrix are not laid out as torch's)")
    (a1, c1), (a2, c2) = conj_bit.blas_operand(a, conj_a), conj_bit.blas_operand(b, conj_b)
    return Tensor._wrap(blas.mm(a1, a2, c1, c2))


class MmBackward0(Function):
    __slots__ = ()
    meta_kernels = True  # (blas answers meta arrays)
    formulas = (vjp("self", "{grad} @ {mat2}ᴴ", when=(COMPLEX,)), vjp("self", "{grad} @ {mat2}ᵀ"),
                vjp("mat2", "{self}ᴴ @ {grad}", when=(COMPLEX,)), vjp("mat2", "{self}ᵀ @ {grad}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        _check_matrix(a, b)
        _save_matrix(self, "mat2", b, a.requires_grad, b.requires_grad)
        _save_matrix(self, "self", a, b.requires_grad, a.requires_grad)
        reserve((a.array.shape[0], b.array.shape[1]), a.array.itemsize)
        (a1, c1), (a2, c2) = conj_bit.blas_operand(a), conj_bit.blas_operand(b)
        return blas.mm(a1, a2, c1, c2)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        ga = gb = None
        if self.needs_input_grad(0):
            ga = _mat1_grad(self, "self", grad, self.unpack("mat2"))
        if self.needs_input_grad(1):
            gb = _mat2_grad(self, grad, self.unpack("self"))
        return ga, gb

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # at::mm(self_t, mat2_p) + at::mm(self_p, mat2_t)
        return mm(t[0], inputs[1]) + mm(inputs[0], t[1])


def mm(a: Tensor, mat2: Tensor) -> Tensor:
    return MmBackward0.call(a, mat2)


def _addmm_checks(bias: Tensor, m1: Tensor, m2: Tensor) -> None:
    # addmm words its dtype checks otherwise than mm (measured on torch 2.13)
    for a, b, names in ((m1, m2, "mat1 and mat2"), (bias, m2, "self and mat2")):
        if a.dtype is not b.dtype and m1.array.ndim == m2.array.ndim == 2:
            raise TorchRuntimeError(f"{names} must have the same dtype, but got "
                                    f"{a.dtype.scalar_type} and {b.dtype.scalar_type}")
    _check_matrix(m1, m2, "mat1", "mat2")


class AddmmBackward0(Function):
    """beta * self + alpha * (mat1 @ mat2); inputs (self, mat1, mat2)."""

    __slots__ = ()
    meta_kernels = True  # (blas answers meta arrays)
    structured_inplace = True  # addmm_ (measured)
    formulas = (local("self", "{beta}"),
                vjp("mat1", "{alpha} × {grad} @ {mat2}ᵀ"),
                vjp("mat2", "{alpha} × {mat1}ᵀ @ {grad}"))

    def forward(self, bias: Tensor, m1: Tensor, m2: Tensor, beta: Any = 1,
                alpha: Any = 1) -> np.ndarray:
        _addmm_checks(bias, m1, m2)
        out_shape = (m1.array.shape[0], m2.array.shape[1])
        # addmm expands its bias to the result's shape (expand_size), with expand's words
        expanded_shape(bias.array.shape, out_shape, f"torch.{bias.dtype.tensor_type}")
        self.save_attr(alpha=alpha, beta=beta)
        _save_matrix(self, "mat1", m1, m2.requires_grad, m1.requires_grad)
        _save_matrix(self, "mat2", m2, m1.requires_grad, m2.requires_grad)
        dtype = m1.array.dtype
        b = np.broadcast_to(bias.array.astype(dtype, copy=False), out_shape)
        reserve((m1.array.shape[0], m2.array.shape[1]), m1.array.itemsize)
        (a1, c1), (a2, c2) = conj_bit.blas_operand(m1), conj_bit.blas_operand(m2)
        return blas.addmm(b, a1, a2, beta, alpha, c1, c2)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        # (complex: maybe_multiply(..., alpha.conj()), beta.conj())
        alpha, beta = conj_scalar(self.attrs["alpha"]), conj_scalar(self.attrs["beta"])
        g_bias = g1 = g2 = None
        if self.needs_input_grad(0):
            g_bias = grad if beta == 1 else grad * beta
        if self.needs_input_grad(1):
            g1 = _mat1_grad(self, "mat1", grad, self.unpack("mat2"))
            g1 = g1 if alpha == 1 else g1 * alpha
        if self.needs_input_grad(2):
            g2 = _mat2_grad(self, grad, self.unpack("mat1"))
            g2 = g2 if alpha == 1 else g2 * alpha
        return g_bias, g1, g2

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # maybe_multiply(self_t, beta) + maybe_multiply(mat1_t.mm(mat2_p), alpha)
        #   + maybe_multiply(mat1_p.mm(mat2_t), alpha)
        alpha, beta = params.get("alpha", 1), params.get("beta", 1)
        _, m1, m2 = inputs
        return (maybe_multiply(t[0], beta) + maybe_multiply(mm(t[1], m2), alpha)
                + maybe_multiply(mm(m1, t[2]), alpha))


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return AddmmBackward0.call(bias, mat1, mat2, beta=beta, alpha=alpha)


def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1,
           alpha: Any = 1) -> Tensor:
    """Tensor.addmm_: AddmmBackward0 recorded in place (measured: the same node, saved
    values and result as addmm's)."""
    from ._util import apply_inplace

    if mat1.array.ndim == mat2.array.ndim == 2:  # the structured kernel's set_output refuses
        # a result of another shape than self before the bias is expanded
        _addmm_checks(self, mat1, mat2)
        out_shape = (mat1.array.shape[0], mat2.array.shape[1])
        if self.array.shape != out_shape:
            raise TorchRuntimeError(
                f"Bad in-place call: input tensor size [{', '.join(map(str, self.array.shape))}]"
                f" and output tensor size [{out_shape[0]}, {out_shape[1]}] should match")
    return apply_inplace(AddmmBackward0, self, mat1, mat2, beta=beta, alpha=alpha)


class MvBackward0(Function):
    __slots__ = ()
    meta_kernels = True  # (blas answers meta arrays)
    formulas = (vjp("self", "outer({grad}, {vec})"),
                vjp("vec", "{self}ᵀ @ {grad}"))

    def forward(self, a: Tensor, vec: Tensor) -> np.ndarray:
        if a.array.ndim != 2 or vec.array.ndim != 1:
            raise TorchRuntimeError(
                f"vector + matrix @ vector expected, got 1, {a.array.ndim}, {vec.array.ndim}")
        if a.array.shape[1] != vec.array.shape[0]:
            raise TorchRuntimeError(
                f"size mismatch, got input ({a.array.shape[0]}), mat "
                f"({a.array.shape[0]}x{a.array.shape[1]}), vec ({vec.array.shape[0]})")
        if a.dtype is not vec.dtype:  # torch lists (result, mat, vec); the result has vec's dtype
            raise TorchRuntimeError(
                f"addmv input tensors must have the same dtype, but got {vec.dtype.scalar_type}, "
                f"{a.dtype.scalar_type}, and {vec.dtype.scalar_type}")
        self.save("self", a if vec.requires_grad else None)
        self.save("vec", vec if a.requires_grad else None)
        return blas.mv(a.array, vec.array)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return mv_grads(self, grad, self.unpack("self"), self.unpack("vec"), 0, 1)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return mv(t[0], inputs[1]) + mv(inputs[0], t[1])  # mv(self_t, vec_p) + mv(self_p, vec_t)


def mv(a: Tensor, vec: Tensor) -> Tensor:
    return MvBackward0.call(a, vec)


def mv_grads(node: Function, grad: Tensor, mat: Tensor | None, vec: Tensor | None,
             mat_index: int, vec_index: int) -> tuple[Tensor | None, Tensor | None]:
    """mv's (and addmv's) gradients: grad.ger(vec.conj()) and mat.conj().t().mv(grad); the
    conj views (complex) reach mul and mv written out, as torch's conjugate fallback
    clones them (their layout kept: a transposed matrix stays column-major for gemv)."""
    from .complex_ops import conj

    ga = outer(grad, conj(vec)) if node.needs_input_grad(mat_index) else None
    gv = mv(t(conj(mat)), grad) if node.needs_input_grad(vec_index) else None
    return ga, gv


def conj_scalar(value: Any) -> Any:
    """A Scalar's conj() (alpha.conj() in torch's formulas): a Python complex conjugated."""
    return value.conjugate() if isinstance(value, complex) else value


def check_dot_operands(a: Tensor, b: Tensor) -> None:
    """dot's and vdot's checks on their two vectors, with torch's messages (both say
    "dot")."""
    if a.array.ndim != 1 or b.array.ndim != 1:
        raise TorchRuntimeError(
            f"1D tensors expected, but got {a.array.ndim}D and {b.array.ndim}D tensors")
    if a.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"dot : expected both vectors to have same dtype, but found "
            f"{a.dtype.scalar_type} and {b.dtype.scalar_type}")
    if a.array.shape != b.array.shape:
        n, m = a.array.shape[0], b.array.shape[0]
        raise TorchRuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively")


class DotBackward0(Function):
    __slots__ = ()
    meta_kernels = True  # (blas answers meta arrays)
    formulas = (local("self", "conj({tensor})", when=(COMPLEX,)), local("self", "{tensor}"),
                local("tensor", "conj({self})", when=(COMPLEX,)), local("tensor", "{self}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_dot_operands(a, b)
        self.save("self", a if b.requires_grad else None)
        self.save("tensor", b if a.requires_grad else None)
        return np.asarray(blas.dot(a.array, b.array))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """grad * tensor.conj() and grad * self.conj() (the conjugate materialized by
        torch's conjugate fallback before the product)."""
        from .complex_ops import conj_physical

        ga = grad * conj_physical(self.unpack("tensor")) if self.needs_input_grad(0) else None
        gb = grad * conj_physical(self.unpack("self")) if self.needs_input_grad(1) else None
        return ga, gb

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return dot(t[0], inputs[1]) + dot(inputs[0], t[1])


def dot(a: Tensor, tensor: Tensor) -> Tensor:
    return DotBackward0.call(a, tensor)


class BmmBackward0(Function):
    __slots__ = ()
    meta_kernels = True  # (blas answers meta arrays)
    formulas = (vjp("self", "{grad} @ {mat2}.mH", when=(COMPLEX,)),
                vjp("self", "{grad} @ {mat2}.mT"),
                vjp("mat2", "{self}.mH @ {grad}", when=(COMPLEX,)),
                vjp("mat2", "{self}.mT @ {grad}"))

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        if a.array.ndim != 3:
            raise TorchRuntimeError("batch1 must be a 3D tensor")
        if b.array.ndim != 3:
            raise TorchRuntimeError("batch2 must be a 3D tensor")
        bs, _, k = a.array.shape
        if b.array.shape[:2] != (bs, k):
            raise TorchRuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but "
                f"got: [{b.array.shape[0]}, {b.array.shape[1]}].")
        if a.dtype is not b.dtype:
            raise TorchRuntimeError(
                f"expected scalar type {a.dtype.scalar_type} but found {b.dtype.scalar_type}")
        self.save("mat2", b if a.requires_grad else None)
        self.save("self", a if b.requires_grad else None)
        reserve((bs, a.array.shape[1], b.array.shape[2]), a.array.itemsize)
        return blas.bmm(a.array, b.array)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """grad @ mat2.mT.conj() and self.mT.conj() @ grad: torch's conjugates are lazy
        (the bit on a transposed view); written out in that view's layout they give the
        same products (measured against torch's complex bmm, both kernels)."""
        from .complex_ops import conj_physical
        from .views import transpose

        ga = bmm(grad, conj_physical(transpose(self.unpack("mat2"), 1, 2))) \
            if self.needs_input_grad(0) else None
        gb = bmm(conj_physical(transpose(self.unpack("self"), 1, 2)), grad) \
            if self.needs_input_grad(1) else None
        return ga, gb

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return bmm(t[0], inputs[1]) + bmm(inputs[0], t[1])  # self_t.bmm(mat2_p) + ...


def bmm(a: Tensor, mat2: Tensor) -> Tensor:
    return BmmBackward0.call(a, mat2)


def outer(a: Tensor, vec2: Tensor) -> Tensor:
    """torch.outer is composite: `self.reshape(-1, 1) * vec2` (MulBackward0 over a view)."""
    from .arithmetic import mul

    for name, arg in (("self", a), ("vec2", vec2)):
        if isinstance(arg, Tensor) and arg.array.ndim != 1:
            raise TorchRuntimeError(
                f"outer: Expected 1-D argument {name}, but got {arg.array.ndim}-D")

    return mul(reshape(a, (a.array.size, 1)), vec2)


def _check_tensor(name: str, value: Any, pos: int, arg: str) -> None:
    if not isinstance(value, Tensor):
        raise TorchTypeError(
            f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
            f"{type_name(value)}")


def _should_fold(t1: Tensor, t2: Tensor) -> bool:
    """torch's should_fold: use mm/mv on the folded larger tensor instead of bmm."""
    larger = t1.array.ndim >= t2.array.ndim
    big = t1.array if larger else np.swapaxes(t2.array, -1, -2)
    dim_small = t2.array.ndim if larger else t1.array.ndim
    if not (big.ndim >= 3 and dim_small <= 2):
        return False
    if (t2 if larger else t1).requires_grad:
        return True
    if t1.array.ndim == 2:
        return False
    if big.size == 0:
        return True
    strides = [s // big.itemsize for s in big.strides]
    shape = big.shape
    for i in range(big.ndim - 2):
        if strides[i] != strides[i + 1] * shape[i + 1]:
            return False
    return True


def matmul(a: Tensor, other: Any) -> Tensor:
    """torch.matmul, dispatching like torch's _matmul_impl."""
    _check_tensor("matmul", a, 1, "input")
    if not isinstance(other, Tensor):
        raise TorchTypeError(
            f"unsupported operand type(s) for @: 'Tensor' and '{type_name(other)}'")
    b = other
    d1, d2 = a.array.ndim, b.array.ndim
    if d1 == 0 or d2 == 0:
        raise TorchRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if a.dtype.barebones and a.dtype is b.dtype:
        raise unsigned.not_implemented(unsigned.matmul_kernel(d1, d2), a.dtype)
    if d2 == 1:  # (bfloat16: mm's and bmm's gemm loops are torch's; mv and dot run other
        bfloat16.check_dtype("matmul", a.dtype)  # kernels, not measured)
    if d1 == 1 and d2 == 1:
        return dot(a, b)
    if d1 == 2 and d2 == 1:
        return mv(a, b)
    if d1 == 1 and d2 == 2:
        from .shape_inplace import squeeze_inplace_result

        return squeeze_inplace_result(mm(unsqueeze(a, 0), b), 0)
    if d1 == 2 and d2 == 2:
        return mm(a, b)
    if d1 == 3 and d2 == 3:
        # torch 2.13 (measured): of two 3-D operands whose batches differ, one of batch 1 that
        # requires grad is squeezed to a matrix (SqueezeBackward1) and the other folded into
        # one mm, so its gradient is no bmm's expanded batch summed back
        if b.array.shape[0] == 1 and a.array.shape[0] != 1 and b.requires_grad:
            b, d2 = squeeze(b, 0), 2
        elif a.array.shape[0] == 1 and b.array.shape[0] != 1 and a.requires_grad:
            a, d1 = squeeze(a, 0), 2
    if _should_fold(a, b):
        transpose_ = d2 > d1
        t1 = mT(b) if transpose_ else a
        t2 = (t(a) if d1 == 2 else a) if transpose_ else b
        sizes1 = t1.array.shape
        output_shape = list(sizes1[:-1])
        folded = math.prod(output_shape)
        if t2.array.ndim == 2:
            output_shape.append(t2.array.shape[1])
        t1_folded = reshape(t1, (folded, sizes1[-1]))
        if t2.array.ndim == 2:
            output = unsafe_view(mm(t1_folded, t2), tuple(output_shape))
            return contiguous(mT(output)) if transpose_ else output
        return unsafe_view(mv(t1_folded, t2), tuple(output_shape))
    n = a.array.shape[-2] if d1 > 1 else 1
    m1 = a.array.shape[-1]
    batch1 = a.array.shape[:max(d1 - 2, 0)]
    m2 = b.array.shape[-2] if d2 > 1 else b.array.shape[0]
    p = b.array.shape[-1] if d2 > 1 else 1
    batch2 = b.array.shape[:max(d2 - 2, 0)]
    output_shape = list(broadcast_shapes(batch1, batch2))
    batch = math.prod(output_shape)
    expand1 = tuple(output_shape) + (n, m1)
    expand2 = tuple(output_shape) + (m2, p)
    if d1 > 1:
        output_shape.append(n)
    if d2 > 1:
        output_shape.append(p)
    t1 = reshape(_expand(a, expand1), (batch, n, m1))
    vector_rhs = d2 == 1
    t2 = reshape(_expand(unsqueeze(b, -1) if vector_rhs else b, expand2), (batch, m2, p))
    out = bmm(t1, t2)
    if vector_rhs:
        out = squeeze(out, -1)
    return unsafe_view(out, tuple(output_shape))


def _expand(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    return expand(a, shape)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """F.linear as torch composes it (addmm for 2-D input with bias, else matmul [+ bias])."""
    from .arithmetic import add_

    ndim = input.array.ndim
    if ndim == 2 and bias is not None:
        return addmm(bias, input, t(weight))
    # a contiguous input is flattened into one addmm when the bias is a vector, or has one
    # dim that is not 1 ((1, out) or (n, 1) too, measured on torch 2.13; the addmm's expand
    # then refuses an (n, 1)); else matmul and an in-place add
    if bias is not None and input.array.flags.c_contiguous and (
            bias.array.ndim == 1 or sum(size != 1 for size in bias.array.shape) == 1):
        sizes = input.array.shape
        flat = reshape(input, (math.prod(sizes[:-1]), sizes[-1]))
        result = addmm(bias, flat, t(weight))
        return view(result, sizes[:-1] + (result.array.shape[1],))
    output = matmul(input, t(weight))
    if bias is not None:
        output = add_(output, bias)
    return output


__all__ = ["mm", "mv", "dot", "bmm", "addmm", "outer", "matmul", "linear"]


# -- cross products -----------------------------------------------------------------------


def _cross_arrays(x: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    """ATen's cross kernel: each component `x_i * y_j - x_j * y_i`, the first product fused
    into the subtraction in the AVX builds (measured against torch: FMA(x_i, y_j, -x_j*y_i))."""
    from .fused import multiply_add

    x, y = np.moveaxis(x, dim, -1), np.moveaxis(y, dim, -1)
    parts = []
    for i, j in ((1, 2), (2, 0), (0, 1)):
        if np.issubdtype(x.dtype, np.floating):
            parts.append(multiply_add(x[..., i], y[..., j], -(x[..., j] * y[..., i]),
                                      x.dtype))
        else:
            parts.append(x[..., i] * y[..., j] - x[..., j] * y[..., i])
    return np.moveaxis(np.stack(parts, axis=-1), -1, dim)


class LinalgCrossBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{other} × {grad}"), vjp("other", "{grad} × {self}"))

    def forward(self, a: Tensor, b: Tensor, dim: int) -> np.ndarray:
        self.save("other", b if a.requires_grad else None)
        self.save("self", a if b.requires_grad else None)
        self.save_attr(dim=saved_int(dim))
        dtype = promote(a.dtype, b.dtype)
        shape = broadcast_shapes(a.array.shape, b.array.shape)
        x = np.broadcast_to(a.array.astype(dtype.np, copy=False), shape)
        y = np.broadcast_to(b.array.astype(dtype.np, copy=False), shape)
        return _cross_arrays(x, y, dim % len(shape))

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # linalg_cross(self_t, other_p, dim) + linalg_cross(self_p, other_t, dim)
        a, b = inputs
        return (LinalgCrossBackward0.call(t[0], b, **params)
                + LinalgCrossBackward0.call(a, t[1], **params))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        dim = signed(self.attrs["dim"])
        g_a = linalg_cross(self.unpack("other"), grad, dim) if self.needs_input_grad(0) \
            else None
        g_b = linalg_cross(grad, self.unpack("self"), dim) if self.needs_input_grad(1) \
            else None
        return g_a, g_b


def linalg_cross(input: Tensor, other: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    """torch.linalg.cross: same rank, length 3 at `dim`, the other dimensions broadcast."""
    for value, what in ((input, "input"), (other, "other")):
        if not isinstance(value, Tensor):
            raise TorchTypeError(f"linalg_cross(): argument '{what}' (position "
                                 f"{1 if what == 'input' else 2}) must be Tensor, not "
                                 f"{type_name(value)}")
    if input.ndim != other.ndim:
        raise TorchRuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    wrap_dim(dim, input.ndim)
    x, y = input.array.shape[dim], other.array.shape[dim]
    if x != 3 or y != 3:
        raise TorchRuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                                f"Got {x} and {y}")
    if input.dtype is not other.dtype:
        # the meta function broadcasts the shapes; the kernel then reads `other` as the
        # output's (input's) scalar type
        broadcast_shapes(input.array.shape, other.array.shape)
        raise TorchRuntimeError(f"expected scalar type {input.dtype.scalar_type} but found "
                                f"{other.dtype.scalar_type}")
    return LinalgCrossBackward0.call(input, other, dim=dim)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """torch.cross: without `dim`, the first dimension of `input` of length 3."""
    if dim is None:
        dim = next((d for d, size in enumerate(input.array.shape) if size == 3), None)
        if dim is None:
            raise TorchRuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim)
