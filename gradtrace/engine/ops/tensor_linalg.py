"""torch.linalg.tensorinv and torch.linalg.tensorsolve: composites, as LinearAlgebra.cpp
writes them, of reshape, movedim, linalg.inv_ex and linalg.solve, so their graphs hold
torch's nodes (ReshapeAliasBackward0 over LinalgInvExBackward0, ViewBackward0 over
LinalgSolveExBackward0) and their errors torch's texts."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from ..tensor import Tensor
from .decompositions import LinalgInvExBackward0, _raise_not_invertible, check_matrices
from .decompositions import linalg_solve as _solve
from .views import flatten, movedim, reshape


def tensorinv(a: Tensor, ind: int = 2) -> Tensor:
    """The inverse of `a` as a map from its first `ind` dims to the rest."""
    if ind <= 0:
        raise TorchRuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = a.array.shape
    end, start = shape[ind:], shape[:ind]
    prod_end, prod_start = math.prod(end), math.prod(start)
    if prod_end != prod_start:
        raise TorchRuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) "
                                f"== prod(self.shape[:ind]), but got {prod_end} != {prod_start}")
    square = reshape(a, prod_end, prod_end)
    if a.dtype.is_floating_point and a.array.dtype not in (np.float32, np.float64):
        raise TorchRuntimeError(f"linalg.inv: Low precision dtypes not supported. Got "
                                f"{a.dtype.scalar_type}")
    check_matrices(square, "linalg.inv")
    from .decompositions import _inverse_info

    info = _inverse_info(square)
    result = LinalgInvExBackward0.call(square)
    _raise_not_invertible(info, "inv")
    return reshape(result, end + start)


def tensorsolve(a: Tensor, b: Tensor, dims: Any = None) -> Tensor:
    """X with tensordot(a, X, X.ndim) = b: linalg.solve on `a` flattened to a square
    matrix (the `dims` of `a` moved to the end first)."""
    ndim = a.array.ndim
    if dims is not None:
        dims = list(dims) if not isinstance(dims, int) else [dims]
        a = movedim(a, dims, list(range(ndim - len(dims), ndim)))
    result_shape = a.array.shape[b.array.ndim:]
    result_prod, other_prod = math.prod(result_shape), math.prod(b.array.shape)
    if result_prod != other_prod:
        raise TorchRuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {result_prod} != {other_prod}")
    square = reshape(a, result_prod, result_prod)
    return reshape(_solve(square, flatten(b)), result_shape)


LINALG_FUNCTIONS = {"tensorinv": tensorinv, "tensorsolve": tensorsolve}
