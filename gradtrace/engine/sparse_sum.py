"""torch.sparse.sum: graph code reads a sparse adjacency matrix's degrees with
`torch.sparse.sum(adj, dim=1).to_dense()`. What it computes, and in which order, is torch
2.13's `_sparse_sum` (aten/src/ATen/native/sparse/SparseTensorMath.cpp): over every
dimension, the coalesced values' sum; over some, the values summed over the dense dims
asked for, then over the entries (a dense result) when every sparse dim goes, else a new
sparse tensor of the kept indices, coalesced (its duplicates added in coalesce's order)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotSupportedError, TorchRuntimeError
from .ops.reductions import raw_dims
from .ops.reductions import sum as dense_sum
from .shapes import wrap_dim
from .sparse import SparseTensor, coalesce, make, to
from .tensor import Tensor, wrap


def sparse_sum(input: Any, dim: Any = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """torch.sparse.sum(input, dim=None, dtype=None)."""
    if not isinstance(input, SparseTensor):
        if dim is None:  # torch coalesces first
            raise TorchRuntimeError("coalesce expected sparse coordinate tensor layout but got "
                                    "Strided")
        raise NotSupportedError("torch.sparse.sum of a dense tensor is not supported by "
                                "gradtrace")
    if dtype is not None:
        input = to(input, dtype)  # noqa: A001
    if dim is None:
        return dense_sum(coalesce(input).values)
    ndim = len(input.sparse_size)
    summed = {wrap_dim(d, ndim) for d in raw_dims(dim, ndim)}
    sparse_dim = input.indices.shape[0]
    keep = [d for d in range(ndim) if d not in summed]
    dense_dims = [d + 1 - sparse_dim for d in range(ndim) if d in summed and d >= sparse_dim]
    values = input.values
    new_values = (dense_sum(values, dense_dims) if dense_dims
                  else wrap(np.ascontiguousarray(values.array).copy()))
    if len(summed) - len(dense_dims) == sparse_dim:  # every sparse dim: a dense tensor
        return dense_sum(new_values, 0)
    rows = [d for d in keep if d < sparse_dim]
    return coalesce(make(input.indices[rows].copy(), new_values,
                         tuple(input.sparse_size[d] for d in keep)))
