"""F.embedding_bag / torch.embedding_bag (node EmbeddingBagBackward0) as ATen's CPU
kernels compute it (EmbeddingBag.cpp): each bag sums (or averages, or takes the max of) the
weight rows its indices look up, in order, skipping the padding row.

`_embedding_bag` returns four tensors; torch saves the last three as result1 (offset2bag:
each index's bag; left empty by the 'sum' fast path, which has no padding row), result2
(bag_size: the rows each bag counted; zeros for 'sum') and result3 (max_indices: the row
each maximum came from in 'max' mode, else bag_size again, or zeros for 'sum')."""
from __future__ import annotations

import numpy as np

from ...errors import (
    ScriptError,
    TorchIndexError,
    TorchRuntimeError,
    TorchValueError,
)
from .. import dtypes
from ..formulas import vjp
from ..node import Function
from ..shapes import Size
from ..tensor import Tensor
from .embedding import _renorm_rows, _sparse_backward
from .views import saved_int, signed

SUM, MEAN, MAX = 0, 1, 2
_MODES = {"sum": SUM, "mean": MEAN, "max": MAX}


def _offset2bag(n: int, starts: np.ndarray) -> np.ndarray:
    """make_offset2bag: each index's bag, from the bags' start offsets."""
    marks = np.zeros(n + 1, np.int64)
    np.add.at(marks, starts, 1)
    marks[0] -= 1
    return np.cumsum(marks)[:n]


def _bags(starts: np.ndarray, end: int) -> list[np.ndarray]:
    """The positions of each bag's indices (the last bag runs to `end`)."""
    ends = np.append(starts[1:], end)
    return [np.arange(s, max(s, e)) for s, e in zip(starts, ends, strict=True)]


def bag_results(w: np.ndarray, weights: np.ndarray | None, indices: np.ndarray,
                offsets: np.ndarray, mode: int, include_last_offset: bool, padding_idx: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """_embedding_bag_cpu's four results: output, offset2bag, bag_size, max_indices."""
    idx = indices.astype(np.int64)
    num, dim = w.shape
    if idx.size and ((idx < 0) | (idx >= num)).any():
        raise TorchRuntimeError(
            "Expected i < index_size to be true, but got false.  (Could this error message "
            "be improved?  If so, please report an enhancement request to PyTorch.)")
    if offsets.size and offsets[0] != 0:
        raise TorchRuntimeError(
            f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
            f"start from position 0. However, got {offsets[0]}")
    if offsets.size and offsets[-1] > idx.size:
        raise TorchRuntimeError(
            f"offsets[-1] can not be greater than input's length {idx.size} but got "
            f"offsets[-1] of {offsets[-1]}")
    starts = offsets.astype(np.int64)
    # the 'sum' fast path (fbgemm, float32 rows, no padding row) ends the last bag at the
    # last offset under include_last_offset; the other paths read offset2bag, where it
    # runs to the end of the input
    fast_sum = mode == SUM and padding_idx < 0 and w.dtype == np.float32
    end = starts[-1] if include_last_offset and fast_sum and starts.size else idx.size
    starts = starts[:-1] if include_last_offset else starts
    bags = _bags(starts, end)
    out = np.zeros((len(bags), dim), w.dtype)
    bag_size = np.zeros(len(bags), np.int64)
    max_indices = np.zeros((len(bags), dim), np.int64)
    with np.errstate(all="ignore"):
        for b, positions in enumerate(bags):
            rows = positions[idx[positions] != padding_idx]
            if mode != SUM:
                bag_size[b] = rows.size
            if mode == MAX:
                if rows.size:
                    values = w[idx[rows]]
                    first = np.argmax(values, axis=0)  # the first maximum, as `>` keeps it
                    out[b] = values[first, np.arange(dim)]
                    max_indices[b] = idx[rows][first]
                continue
            acc = np.zeros(dim, w.dtype)
            for p in rows:  # each row added in turn, as index_select_add does
                acc = acc + (w[idx[p]] if weights is None else weights[p] * w[idx[p]])
            out[b] = acc
        if mode == MEAN:
            out = out / np.maximum(bag_size, 1)[:, None].astype(w.dtype)
    offset2bag = np.zeros(0, np.int64) if fast_sum else _offset2bag(idx.size, starts)
    result3 = max_indices if mode == MAX else (
        bag_size.copy() if mode == MEAN else np.zeros(len(bags), np.int64))
    return out, offset2bag, bag_size, result3


class EmbeddingBagBackward0(Function):
    """_embedding_bag(weight, indices, offsets, ...): inputs (weight, per_sample_weights)."""

    __slots__ = ()
    no_forward_ad = "_embedding_bag"  # torch has no forward-mode formula (measured)
    formulas = (vjp("weight", "_embedding_bag_backward({grad}, {indices}, {offsets}, ...)"),
                vjp("per_sample_weights",
                    "_embedding_bag_per_sample_weights_backward({grad}, {weight}, {indices}, "
                    "{offsets}, {result1}, {mode}, {padding_idx})"))

    def forward(self, weight: Tensor, psw: Tensor | None, indices: Tensor, offsets: Tensor,
                scale_grad_by_freq: bool, mode: int, sparse: bool, include_last_offset: bool,
                padding_idx: int) -> np.ndarray:
        out, *results = bag_results(weight.array, None if psw is None else psw.array,
                                    indices.array, offsets.array, mode, include_last_offset,
                                    padding_idx)
        self.save("indices", indices)
        self.save("offsets", offsets)
        self.save("per_sample_weights", psw)
        self.save("weight", weight if psw is not None and psw.requires_grad else None)
        self.save_attr(mode=mode, padding_idx=saved_int(padding_idx),
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse,
                       weight_sym_argsize_0=weight.array.shape[0])
        for i, r in enumerate(results, 1):
            self.save(f"result{i}", Tensor._wrap(r))
        return out

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a = self.attrs
        indices = self.unpack("indices")
        idx = indices.array.astype(np.int64)
        offsets = self.unpack("offsets").array.astype(np.int64)
        offset2bag = self.unpack("result1").array
        if offset2bag.size != idx.size:  # the 'sum' fast path left it empty
            offset2bag = _offset2bag(idx.size, offsets)
        bag_size = self.unpack("result2").array
        psw = self.unpack("per_sample_weights")
        padding_idx, mode = signed(a["padding_idx"]), a["mode"]
        g = grad.array
        g_weight = g_psw = None
        if self.needs_input_grad(0) and a["sparse"]:
            g_weight = _sparse_weight_grad(g, indices, offset2bag, bag_size, psw, a)
        elif self.needs_input_grad(0):
            out = np.zeros((a["weight_sym_argsize_0"], g.shape[1]), g.dtype)
            if mode == MAX:
                max_indices = self.unpack("result3").array
                for b in range(g.shape[0]):
                    if bag_size[b]:
                        np.add.at(out, (max_indices[b], np.arange(g.shape[1])), g[b])
            else:
                # _embedding_bag_dense_backward_cpu_sum_mean: the scale in double, cast to
                # the dtype; with scale_grad_by_freq it divides by counts[sorted[i]] for
                # the i-th distinct row (torch indexes the sorted indices by the row's rank)
                counts = np.bincount(idx, minlength=out.shape[0])
                ordered, distinct = np.sort(idx), np.unique(idx)
                for p in np.argsort(idx, kind="stable"):
                    row = idx[p]
                    # (past the last bag: indices the 'sum' fast path left out under
                    # include_last_offset, where torch reads past its gradient)
                    if row == padding_idx or offset2bag[p] >= g.shape[0]:
                        continue
                    scale = 1.0
                    if psw is not None:
                        scale = float(psw.array[p])
                    if a["scale_grad_by_freq"]:
                        scale /= counts[ordered[np.searchsorted(distinct, row)]]
                    if mode == MEAN and bag_size[offset2bag[p]]:
                        scale /= bag_size[offset2bag[p]]
                    out[row] = out[row] + g.dtype.type(scale) * g[offset2bag[p]]
            g_weight = Tensor._wrap(out)
        if self.needs_input_grad(1):
            weight = self.unpack("weight").array
            dots = np.array([0 if idx[p] == padding_idx else
                             np.dot(g[offset2bag[p]], weight[idx[p]])
                             for p in range(idx.size)], g.dtype)
            g_psw = Tensor._wrap(dots)
        return g_weight, g_psw


def _sparse_weight_grad(g: np.ndarray, indices: Tensor, offset2bag: np.ndarray,
                        bag_size: np.ndarray, psw: Tensor | None, a: dict) -> Tensor:
    """_embedding_bag_sparse_backward: each index's bag gradient (index_select by
    offset2bag), times the reciprocal of its bag's size (in the gradient's dtype) under
    'mean' and by its per-sample weight, handed to embedding's sparse backward: a sparse
    COO gradient of one entry per index, the padding row's left out."""
    if offset2bag.size and offset2bag.max() >= g.shape[0]:  # (include_last_offset's tail)
        raise TorchIndexError("index out of range in self")
    rows = g[offset2bag]
    if a["mode"] == MEAN:
        with np.errstate(divide="ignore"):
            inverse = g.dtype.type(1) / bag_size.astype(g.dtype)
        rows = rows * inverse[offset2bag][:, None]
    if psw is not None:
        rows = rows * psw.array[:, None]
    return _sparse_backward(Tensor._wrap(rows), indices, a["weight_sym_argsize_0"],
                            signed(a["padding_idx"]), a["scale_grad_by_freq"])


def torch_embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor,
                        scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                        per_sample_weights: Tensor | None = None,
                        include_last_offset: bool = False,
                        padding_idx: int | None = None) -> tuple[Tensor, ...]:
    """torch.embedding_bag: the aten op (weight first; mode 0 sum, 1 mean, 2 max), its four
    results."""
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        raise TorchRuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{indices.dtype.tensor_type} instead (while "
            "checking arguments for embedding_bag)")
    num = weight.array.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -num <= padding_idx < num:
        raise TorchRuntimeError(f"padding_idx must be within the number of embeddings, "
                                f"-{num} through {num - 1}, but got {padding_idx}")
    elif padding_idx < 0:
        padding_idx += num
    out = EmbeddingBagBackward0.call(
        weight, per_sample_weights, indices=indices, offsets=offsets,
        scale_grad_by_freq=bool(scale_grad_by_freq), mode=int(mode), sparse=bool(sparse),
        include_last_offset=bool(include_last_offset), padding_idx=padding_idx)
    node = out.grad_fn
    if node is not None and node.saved:
        results = [node.saved[f"result{i}"].unpack(node) for i in (1, 2, 3)]
    else:
        _, *arrays = bag_results(weight.array, None, indices.array, offsets.array, int(mode),
                                 bool(include_last_offset), padding_idx)
        results = [Tensor._wrap(r) for r in arrays]
    return (out, *results)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,  # noqa: A002
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """F.embedding_bag: torch/nn/functional.py's checks, then torch.embedding_bag."""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise TorchValueError(
            f"embedding_bag: If per_sample_weights ({Size(per_sample_weights.shape)}) is not "
            f"None, then it must have the same shape as the input ({Size(input.shape)})")
    if weight.array.ndim != 2:
        raise TorchValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.array.ndim}")
    if input.array.ndim == 2:
        if offsets is not None:
            raise TorchValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                "<class 'torch.Tensor'>")
        rows, cols = input.array.shape
        offsets = Tensor._wrap(np.arange(0, rows * cols, max(cols, 1), dtype=input.array.dtype))
        input = input.reshape(-1)  # noqa: A001
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.array.ndim == 1:
        if offsets is None:
            raise TorchValueError("offsets has to be a 1D Tensor but got None")
        if offsets.array.ndim != 1:
            raise TorchValueError("offsets has to be a 1D Tensor")
    else:
        raise TorchValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.array.ndim}")
    if mode not in _MODES:
        raise TorchValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise TorchValueError(
                "max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise TorchValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise ScriptError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            f"GitHub.", kind="NotImplementedError")
    return torch_embedding_bag(weight, input, offsets, scale_grad_by_freq, _MODES[mode],
                               sparse, per_sample_weights, include_last_offset, padding_idx)[0]


__all__ = ["embedding_bag", "torch_embedding_bag"]
