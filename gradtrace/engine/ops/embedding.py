"""F.embedding (EmbeddingBackward0; its backward EmbeddingDenseBackwardBackward0) and
F.one_hot."""
from __future__ import annotations

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from .. import dtypes
from ..formulas import Formula, vjp
from ..forward_ad import auto_linear
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..node import Function
from ..tensor import Tensor
from .views import saved_int, signed


def _check_indices(indices: Tensor, size: int) -> None:
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        dtype = indices.dtype  # (bool and the barebones types have no legacy type: measured)
        shown = f"CPU{dtype.scalar_type}Type" if dtype is dtypes.bool_ or dtype.barebones \
            else f"torch.{dtype.tensor_type}"
        raise TorchRuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {shown} instead (while checking arguments for "
            "embedding)")
    arr = indices.array
    if arr.size and ((arr < 0) | (arr >= size)).any():
        raise TorchIndexError("index out of range in self")


NO_PADDING = saved_int(-1)  # padding_idx as torch saves "no padding row"


def _embedding_formulas() -> tuple[Formula, ...]:
    """Each row of the weight gets the gradients of the places that looked it up (divided
    by how often it was looked up with scale_grad_by_freq); the padding row gets none. With
    sparse=True the gradient is a sparse tensor of one entry per lookup."""
    rows = "{grad}.flatten(0, -2)"
    scaled = "({grad} / {indices}.bincount()[{indices}].unsqueeze(-1)).flatten(0, -2)"
    kept = "{indices}.flatten() != {padding_idx}"
    out = [vjp("weight", "sparse_coo_tensor({indices}.reshape(1, -1), {grad}.flatten(0, -2))",
               when=(("sparse", True), ("padding_idx", NO_PADDING))),
           vjp("weight", f"sparse_coo_tensor({{indices}}.flatten()[{kept}].reshape(1, -1), "
                         f"{{grad}}.flatten(0, -2)[{kept}])", when=(("sparse", True),))]
    for scale in (False, True):
        summed = ("zeros_like({weight}).index_add(0, {indices}.flatten(), "
                  + (scaled if scale else rows) + ")")
        out.append(vjp("weight", summed, when=(("padding_idx", NO_PADDING),
                                               ("scale_grad_by_freq", scale))))
        out.append(vjp("weight", summed + ".index_fill(0, {padding_idx}, 0)",
                       when=(("scale_grad_by_freq", scale),)))
    return tuple(out)


class EmbeddingBackward0(Function):
    """embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): one input."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = _embedding_formulas()

    def forward(self, weight: Tensor, indices: Tensor, padding_idx: int,
                scale_grad_by_freq: bool, sparse: bool) -> np.ndarray:
        _check_indices(indices, weight.array.shape[0])
        self.save("indices", indices)
        self.save_attr(padding_idx=saved_int(padding_idx),
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse,
                       weight_sym_argsize_0=weight.array.shape[0])
        return weight.array[indices.array]

    def backward(self, grad: Tensor) -> Tensor:
        a = self.attrs
        if a["sparse"]:  # a sparse COO weight.grad
            return _sparse_backward(grad, self.unpack("indices"), a["weight_sym_argsize_0"],
                                    signed(a["padding_idx"]), a["scale_grad_by_freq"])
        return EmbeddingDenseBackwardBackward0.call(
            grad, indices=self.unpack("indices"), num_weights=a["weight_sym_argsize_0"],
            padding_idx=signed(a["padding_idx"]), scale_grad_by_freq=a["scale_grad_by_freq"])


def _sparse_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                     scale_grad_by_freq: bool) -> Tensor:
    """torch's embedding_sparse_backward: one entry per lookup, in the order of the indices
    (the padding index's left out), its values the gradient's rows as a view of it."""
    from ..sparse import make

    if scale_grad_by_freq:
        raise TorchRuntimeError(
            "embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    idx = indices.array.reshape(-1)
    width = grad.array.shape[-1]
    rows = grad.array.reshape(-1, width)
    if padding_idx != -1:
        keep = idx != padding_idx
        idx, rows = idx[keep], rows[keep]
    if idx.size == 0:
        return make(np.zeros((1, 0), np.int64), Tensor._wrap(np.zeros((0, width), rows.dtype)),
                    (num_weights, width))
    return make(idx.reshape(1, -1), Tensor._wrap(rows), (num_weights, width))


class EmbeddingDenseBackwardBackward0(Function):
    """embedding_dense_backward(grad_output, indices, ...) as an op (input: grad_output)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("grad_output", "{grad}[{indices}]", when=(("padding_idx", NO_PADDING),)),
                vjp("grad_output", "{grad}[{indices}].masked_fill(({indices} == {padding_idx})"
                    ".unsqueeze(-1), 0)"))

    def forward(self, grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                scale_grad_by_freq: bool) -> np.ndarray:
        self.save("indices", indices)
        self.save_attr(padding_idx=saved_int(padding_idx))
        g = grad.array
        width = g.shape[-1]
        idx = indices.array.reshape(-1)
        rows = g.reshape(-1, width)
        if scale_grad_by_freq:
            counts = np.bincount(idx, minlength=num_weights)
            rows = rows / counts[idx][:, None].astype(g.dtype)
        keep = idx != padding_idx
        out = np.zeros((num_weights, width), dtype=g.dtype)
        np.add.at(out, idx[keep], rows[keep])
        return out

    def backward(self, gg: Tensor) -> Tensor:
        """embedding_dense_double_backward: gg.index_select(0, indices.reshape(-1)), padding
        rows zeroed, viewed as indices.shape + [-1]."""
        from .indexing import index_select, masked_fill_

        indices = self.unpack("indices")
        out = index_select(gg, 0, indices.reshape(-1))
        padding_idx = signed(self.attrs["padding_idx"])
        if padding_idx >= 0:
            out = masked_fill_(out, (indices == padding_idx).reshape(-1, 1), 0)
        return out.view(tuple(indices.shape) + (-1,))


def _renorm_rows(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """torch.embedding_renorm_ under no_grad: rows used whose norm exceeds max_norm shrink."""
    previous = GRAD_MODE.enabled
    GRAD_MODE.enabled = False
    try:
        rows = np.unique(indices.array.reshape(-1))
        w = weight.array
        norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        w[rows] = (w[rows] * scale[:, None].astype(w.dtype)).astype(w.dtype)
        # counted without bump_version's inference-tensor check: torch 2.13 renorms an
        # inference weight outside inference mode without raising (measured)
        weight._version_counter.value += 1
    finally:
        GRAD_MODE.enabled = previous


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    num = weight.array.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= num:
            raise _assertion("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -num:
                raise _assertion("Padding_idx must be within num_embeddings")
            padding_idx = num + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _check_indices(input, num)
        _renorm_rows(weight, input, max_norm, norm_type)
    return EmbeddingBackward0.call(weight, indices=input, padding_idx=padding_idx,
                                   scale_grad_by_freq=bool(scale_grad_by_freq),
                                   sparse=bool(sparse))


def torch_embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
                    scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """torch.embedding(weight, indices, ...): the aten op, weight first."""
    return EmbeddingBackward0.call(weight, indices=indices, padding_idx=padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _assertion(message: str) -> Exception:
    """torch.nn.functional asserts these with Python's `assert` (an AssertionError)."""
    from ...errors import ScriptError

    return ScriptError(message, kind="AssertionError")


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype is not dtypes.int64:
        raise TorchRuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    arr = tensor.array
    if arr.size and arr.min() < 0:
        raise TorchRuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not arr.size:
            raise TorchRuntimeError(
                "Can not infer total number of classes from empty tensor.")
        num_classes = int(arr.max()) + 1
    elif arr.size and arr.max() >= num_classes:
        raise TorchRuntimeError("Class values must be smaller than num_classes.")
    reserve(arr.shape + (num_classes,), 8)
    out = np.zeros(arr.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, arr[..., None], 1, axis=-1)
    result = Tensor._wrap(out)
    result._version_counter.value = 2  # torch fills it in place twice (zero_, scatter_)
    return result
