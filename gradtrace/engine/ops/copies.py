"""torch's `*_copy` ops (select_copy, transpose_copy, view_copy, unbind_copy, ...): the view
op computed into a new contiguous tensor. torch records the view's derivative under the
name `<ViewNode>_copy` (SelectBackward0_copy, saving what SelectBackward0 saves), except
narrow_copy (NarrowCopyBackward0) and detach_copy (torch::autograd::NotImplemented). The
result is no view: it has its own storage and version counter and no `_base`."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchIndexError, TorchRuntimeError
from ..formulas import undefined, vjp
from ..forward_ad import auto_linear
from ..meta import is_window, meta_array
from ..node import Function
from ..shapes import size_args
from ..tensor import Tensor
from . import joins, matrices, select_views, views, windows
from .select_views import SliceBackwardBackward0
from .views import _wrap, saved_int, signed

_COPIES: dict[type, type] = {}


def _contiguous_copy(data: np.ndarray) -> np.ndarray:
    """The view's values in new row-major memory (of a meta tensor's view: its shape)."""
    if is_window(data):
        return meta_array(data.shape, data.dtype)
    return np.array(data, order="C")


def copy_of(view_cls: type) -> Any:
    """The `_copy` twin of a view node class: same checks, saved values and backward, a
    C-contiguous copy as output, not registered as a view."""
    found = _COPIES.get(view_cls)
    if found is not None:
        return found

    def forward(self: Function, *inputs: Any, **params: Any) -> Any:
        data = view_cls.forward(self, *inputs, **params)
        if view_cls.multi_output:
            return [_contiguous_copy(d) for d in data]
        return _contiguous_copy(data)

    found = type(view_cls.__name__ + "_copy", (view_cls,), {
        "__slots__": (), "__doc__": f"{view_cls.__name__} computed into a new tensor.",
        "returns_view": False, "forward": forward, "call": Function.__dict__["call"],
        "__module__": __name__,
    })
    _COPIES[view_cls] = found
    return found


def select_copy(input: Tensor, dim: int, index: Any) -> Tensor:  # noqa: A002
    index = select_views.select_index(input, dim, index)
    return copy_of(select_views.SelectBackward0).call(input, dim=dim, index=index)


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    return copy_of(views.TransposeBackward0).call(input, dim0=dim0, dim1=dim1)


def permute_copy(input: Tensor, dims: Any) -> Tensor:  # noqa: A002
    return copy_of(views.PermuteBackward0).call(input, dims=size_args((dims,), "dims"))


def view_copy(input: Tensor, size: Any) -> Tensor:  # noqa: A002
    return copy_of(views.ViewBackward0).call(input, shape=size_args((size,), "size"))


def _reshape_alias_copy(input: Tensor, size: Any, stride: Any) -> Tensor:  # noqa: A002
    return copy_of(views.ReshapeAliasBackward0).call(input, shape=size_args((size,), "size"))


def expand_copy(input: Tensor, size: Any, *, implicit: bool = False) -> Tensor:  # noqa: A002
    return copy_of(views.ExpandBackward0).call(input, shape=size_args((size,), "size"))


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0,  # noqa: A002
                  dim2: int = 1) -> Tensor:
    return copy_of(matrices.DiagonalBackward0).call(input, offset=offset, dim1=dim1, dim2=dim2)


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    _wrap(dim, input.array.ndim + 1)
    return copy_of(views.UnsqueezeBackward0).call(input, dim=dim)


def squeeze_copy(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    if dim is None:
        return copy_of(views.SqueezeBackward0).call(input)
    if isinstance(dim, (tuple, list)):
        for d in dim:
            _wrap(d, input.array.ndim)
        return copy_of(views.SqueezeBackward2).call(input, dim=tuple(dim))
    _wrap(dim, input.array.ndim)
    return copy_of(views.SqueezeBackward1).call(input, dim=dim)


def t_copy(input: Tensor) -> Tensor:  # noqa: A002
    return copy_of(views.TBackward0).call(input)


def alias_copy(input: Tensor) -> Tensor:  # noqa: A002
    return copy_of(views.AliasBackward0).call(input)


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    return copy_of(windows.UnfoldBackward0).call(input, dimension=dimension, size=size,
                                                 step=step)


def slice_copy(input: Tensor, dim: int = 0, start: Any = None, end: Any = None,  # noqa: A002
               step: int = 1) -> Tensor:
    """slice_copy saves start and end as given (None stays None), unlike indexing."""
    if input.array.ndim == 0:
        raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
    _wrap(dim, input.array.ndim)
    if step <= 0:
        raise TorchRuntimeError("slice step must be positive")
    return copy_of(select_views.SliceBackward0).call(input, dim=dim, start=start, end=end,
                                                     step=step)


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return tuple(copy_of(joins.UnbindBackward0).call(input, dim=dim))


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return tuple(copy_of(joins.SplitBackward0).call(input, split_size=int(split_size), dim=dim))


def split_with_sizes_copy(input: Tensor, split_sizes: Any,  # noqa: A002
                          dim: int = 0) -> tuple[Tensor, ...]:
    sizes = size_args((split_sizes,), "split_sizes")
    return tuple(copy_of(joins.SplitWithSizesBackward0).call(input, split_sizes=sizes, dim=dim))


class NarrowCopyBackward0(Function):
    """narrow_copy: its own node (narrow is a SliceBackward0 view)."""

    __slots__ = ()
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros({self_sym_sizes}).slice_scatter({grad}, {dim}, {start}, "
                    "{start} + {length})"),)

    def forward(self, a: Tensor, dim: int, start: int, length: int) -> np.ndarray:
        ndim = a.array.ndim
        if not 0 <= dim < ndim and not -ndim <= dim < 0:
            raise TorchRuntimeError(
                "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got "
                "false.  (Could this error message be improved?  If so, please report an "
                "enhancement request to PyTorch.)")
        d = dim % ndim
        size = a.array.shape[d]
        begin = start + size if start < 0 else start
        if not 0 <= begin <= size:
            raise TorchIndexError(
                f"start out of range (expected to be in range of [{-size}, {size}], but got "
                f"{start})")
        if length < 0 or begin + length > size:
            raise TorchRuntimeError(
                f"start ({begin}) + length ({length}) exceeds dimension size ({size}).")
        self.save_attr(dim=saved_int(dim), length=length, self_sym_sizes=a.array.shape,
                       start=saved_int(start))
        key = (slice(None),) * d + (slice(begin, begin + length),)
        return np.array(a.array[key], order="C")

    def backward(self, grad: Tensor) -> Tensor:
        """torch's slice_backward(grad, sizes, dim, start, start + length) with the start as
        given: a negative start whose slice ends at or past 0 selects fewer elements than
        grad has, and torch's copy into it fails."""
        a = self.attrs
        sizes = a["self_sym_sizes"]
        dim = signed(a["dim"]) % len(sizes)
        start, length = signed(a["start"]), a["length"]
        got = len(range(sizes[dim])[start:start + length])
        if got != length:
            raise TorchRuntimeError(
                f"The size of tensor a ({got}) must match the size of tensor b ({length}) at "
                f"non-singleton dimension {dim}")
        return SliceBackwardBackward0.call(grad, sizes=sizes, dim=dim, start=start,
                                           end=start + length, step=1)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    return NarrowCopyBackward0.call(input, dim=dim, start=int(start), length=int(length))


class DetachCopyNotImplemented(Function):
    """detach_copy has no derivative in torch: its node is torch::autograd::NotImplemented,
    whose backward raises."""

    __slots__ = ()
    formulas = (undefined("self"),)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, a: Tensor) -> np.ndarray:
        return np.array(a.array, order="C")

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError("derivative for aten::detach_copy is not implemented")


DetachCopyNotImplemented.__name__ = "NotImplemented"


def detach_copy(input: Tensor) -> Tensor:  # noqa: A002
    return DetachCopyNotImplemented.call(input)


def _sparse_only(name: str, layout: str) -> Any:
    def refuse(input: Tensor) -> Tensor:  # noqa: A002
        raise TorchRuntimeError(f"{name} expected {layout} layout but got Strided")

    refuse.__name__ = f"{name}_copy"
    return refuse


TORCH_FUNCTIONS: dict[str, Any] = {
    "select_copy": select_copy, "transpose_copy": transpose_copy,
    "permute_copy": permute_copy, "view_copy": view_copy, "expand_copy": expand_copy,
    "diagonal_copy": diagonal_copy, "narrow_copy": narrow_copy,
    "unsqueeze_copy": unsqueeze_copy, "squeeze_copy": squeeze_copy, "t_copy": t_copy,
    "detach_copy": detach_copy, "unbind_copy": unbind_copy, "split_copy": split_copy,
    "split_with_sizes_copy": split_with_sizes_copy, "slice_copy": slice_copy,
    "alias_copy": alias_copy, "unfold_copy": unfold_copy,
    "_reshape_alias_copy": _reshape_alias_copy,
    "values_copy": _sparse_only("values", "sparse tensor"),
    "indices_copy": _sparse_only("indices", "sparse coordinate tensor"),
    "ccol_indices_copy": _sparse_only("ccol_indices", "sparse column compressed tensor"),
}

TENSOR_METHODS: dict[str, Any] = {"narrow_copy": narrow_copy}
