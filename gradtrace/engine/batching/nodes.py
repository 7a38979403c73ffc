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
