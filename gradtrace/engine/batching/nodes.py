"""The node of a batched dot product whose second vector is logically unbatched: what a grad
transform inside vmap differentiates (its input is expanded along the batch so the engine's
autograd gives one gradient per example). Its forward is torch's rule for an unbatched
vector (mv of the batched vectors with the one vector), and its backward is dot's own
formula run batched (grad * other, the gradient padded to the operands' rank), so the
gradients have torch's bits and graph (MulBackward0)."""
from __future__ import annotations

import numpy as np

from .. import blas
from ..formulas import local
from ..node import Function
from ..tensor import Tensor


class MvBackward0(Function):
    """mv(A, w) for A [B, n] and w [n] given as its expansion [B, n]."""

    __slots__ = ()
    formulas = (local("self", "{tensor}"),
                local("tensor", "{self}"))

    def forward(self, a: Tensor, expanded: Tensor) -> np.ndarray:
        self.save("self", a if expanded.requires_grad else None)
        self.save("tensor", expanded if a.requires_grad else None)
        return blas.mv(a.array, np.ascontiguousarray(expanded.array[0]))

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from ..ops import mul, view

        g = view(grad, (grad.shape[0], 1))
        ga = mul(g, self.unpack("tensor")) if self.needs_input_grad(0) else None
        gb = mul(g, self.unpack("self")) if self.needs_input_grad(1) else None
        return ga, gb


class BmmBackward0(Function):
    """bmm(A, W) for A [B, m, k] batched and W [k, n] given as its expansion [B, k, n]: a
    grad transform inside vmap expands its unbatched input, where torch keeps the matrix
    unbatched and its mm rule folds the batch into the rows of one mm. Values (and the
    gradient of the batched side) come from that one mm, so they have torch's bits; the
    expansion's gradient is one product per example, mm_mat2_backward's (by the matrix's
    layout) run batched, as torch's level does."""

    __slots__ = ("column_major",)
    formulas = (local("self", "{grad} @ {mat2}ᵀ"), local("mat2", "{self}ᵀ @ {grad}"))

    def forward(self, a: Tensor, expanded: Tensor) -> np.ndarray:
        self.save("mat2", expanded if a.requires_grad else None)
        self.save("self", a if expanded.requires_grad else None)
        # mm_mat2_backward's layout test, on the matrix's logical strides
        _, k, n = expanded.array.shape
        strides = [s // expanded.array.itemsize for s in expanded.array.strides[1:]]
        self.column_major = strides[0] == 1 and strides[1] == k
        batch, m, k = a.array.shape
        matrix = expanded.array[0]  # (its layout: a transposed weight stays column-major)
        return blas.mm(np.ascontiguousarray(a.array).reshape(batch * m, k),
                       matrix).reshape(batch, m, matrix.shape[1])

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from ..ops import matmul, mm, reshape, transpose

        ga = gb = None
        if self.needs_input_grad(0):  # the folded mm: grad @ Wᵀ
            w = self.unpack("mat2")
            batch, m, n = grad.shape
            matrix = Tensor._wrap(w.array[0])
            ga = reshape(mm(reshape(grad, (batch * m, n)), transpose(matrix, 0, 1)),
                         (batch, m, matrix.shape[0]))
        if self.needs_input_grad(1):  # mm_mat2_backward per example, as torch's batched one
            a = self.unpack("self")
            gb = transpose(matmul(transpose(grad, 1, 2), a), 1, 2) if self.column_major \
                else matmul(transpose(a, 1, 2), grad)
        return ga, gb
