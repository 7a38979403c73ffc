"""A sparse COO matrix times a dense one (engine/sparse.py): torch.mm/`@` record MmBackward0,
torch.sparse.mm records SparseAddmmBackward0 (an addmm with beta 0 into no `self`). The
sparse operand takes no gradient (gradtrace has no autograd through sparse values); the
dense one gets the sparse matrix's transpose times the gradient, computed as torch's
mm_mat2_backward does it: `mat1.t().mm(grad)`, a sparse product of its own."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..formulas import vjp
from ..node import Function
from ..tensor import Tensor


class _SparseTimesDense(Function):
    __slots__ = ()
    formulas = (vjp("mat2", "{self}ᵀ @ {grad}"),)

    def forward(self, *inputs: Any, sparse: Any) -> np.ndarray:
        from .. import sparse as sp

        self.save_attr(sparse=sparse)
        return sp.spmm_array(sparse, inputs[-1].array)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, ...]:
        from .. import sparse as sp

        transposed = sp.t(self.attrs["sparse"])
        out = Tensor._wrap(sp.spmm_array(transposed, np.ascontiguousarray(grad.array)))
        return (None,) * (len(self.next_functions) - 1) + (out,)


class MmBackward0(_SparseTimesDense):
    """torch.mm(sparse, dense): inputs (the sparse matrix, which takes no gradient, mat2)."""

    __slots__ = ()


class SparseAddmmBackward0(_SparseTimesDense):
    """torch.sparse.mm(sparse, dense): inputs (self, mat1, mat2) of `_sparse_addmm`."""

    __slots__ = ()
