"""torch's composite shape functions, built from the view and join ops as ATen builds
them, so they record the same nodes: atleast_1d/2d/3d, hstack/vstack/dstack/column_stack,
tensor_split and hsplit/vsplit/dsplit, meshgrid, broadcast_tensors/broadcast_to/
broadcast_shapes, take_along_dim, fliplr/flipud, ravel."""
from __future__ import annotations

from typing import Any

from ...errors import TorchRuntimeError, TorchTypeError
from ..shapes import Size, wrap_dim
from ..shapes import broadcast_shapes as broadcast_two
from ..tensor import Tensor
from .clones import contiguous, flip
from .indexing import gather
from .joins import _tensor_list, cat
from .select_views import slice_op
from .views import expand, reshape, unsqueeze, view


def _tensors(args: tuple[Any, ...]) -> tuple[list[Tensor], bool]:
    """atleast_*'s arguments: one tensor, several, or one list of them; and whether a
    single tensor was given (then a tensor is returned, else a tuple)."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        return [args[0]], True
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0]), False
    return list(args), False


def _atleast(args: tuple[Any, ...], one: Any) -> Any:
    tensors, single = _tensors(args)
    out = tuple(one(t) for t in tensors)
    return out[0] if single else out


def _atleast_1d(t: Tensor) -> Tensor:
    return reshape(t, 1) if t.array.ndim == 0 else t


def _atleast_2d(t: Tensor) -> Tensor:
    if t.array.ndim == 0:
        return reshape(t, 1, 1)
    return unsqueeze(t, 0) if t.array.ndim == 1 else t


def _atleast_3d(t: Tensor) -> Tensor:
    ndim = t.array.ndim
    if ndim == 0:
        return reshape(t, 1, 1, 1)
    if ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if ndim == 2 else t


def atleast_1d(*tensors: Any) -> Any:
    return _atleast(tensors, _atleast_1d)


def atleast_2d(*tensors: Any) -> Any:
    return _atleast(tensors, _atleast_2d)


def atleast_3d(*tensors: Any) -> Any:
    return _atleast(tensors, _atleast_3d)


def _stack_list(tensors: Any, name: str) -> list[Tensor]:
    tensors = _tensor_list(tensors, name)
    if not tensors:
        raise TorchRuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors: Any) -> Tensor:
    tensors = [_atleast_1d(t) for t in _stack_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0].array.ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    return cat([_atleast_2d(t) for t in _stack_list(tensors, "vstack")], 0)


def dstack(tensors: Any) -> Tensor:
    return cat([_atleast_3d(t) for t in _stack_list(tensors, "dstack")], 2)


def column_stack(tensors: Any) -> Tensor:
    tensors = _stack_list(tensors, "column_stack")
    return cat([reshape(t, t.array.size, 1) if t.array.ndim <= 1 else t for t in tensors], 1)


# -- tensor_split and the h/v/d splits -------------------------------------------------


def tensor_split(a: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Slices (SliceBackward0 views): `n` sections (the first size % n one longer), or the
    pieces between the given indices."""
    if a.array.ndim == 0:
        raise TorchRuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 "
            "dims")
    d = wrap_dim(dim, a.array.ndim)
    size = a.array.shape[d]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        if spec.dtype.is_floating_point or spec.dtype.name == "bool":
            raise TorchRuntimeError(
                "tensor_split expected tensor_indices_or_sections to have integral dtype, but "
                f"got {spec.dtype}")
        if spec.array.ndim > 1:
            raise TorchRuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {spec.array.ndim} dims")
        spec = spec.array.item() if spec.array.ndim == 0 else spec.array.tolist()
    if isinstance(spec, bool) or not isinstance(spec, (int, list, tuple)):
        raise TorchTypeError("tensor_split(): argument 'indices' must be tuple of ints")
    if isinstance(spec, int):
        if spec <= 0:
            raise TorchRuntimeError(f"number of sections must be larger than 0, got {spec}")
        small, extra = divmod(size, spec)
        bounds, start = [], 0
        for i in range(spec):
            end = start + small + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    else:
        edges = [0, *(int(i) for i in spec), size]
        bounds = list(zip(edges[:-1], edges[1:]))
    return tuple(slice_op(a, d, start, end, 1) for start, end in bounds)


def _split_along(name: str, a: Tensor, spec: Any, dim: int, least: int) -> tuple[Tensor, ...]:
    ndim = a.array.ndim
    if ndim < least:
        raise TorchRuntimeError(
            f"torch.{name} requires a tensor with at least {least} dimension, but got a "
            f"tensor with {ndim} dimensions!")
    if isinstance(spec, int) and not isinstance(spec, bool):
        size = a.array.shape[dim]
        if spec == 0 or size % spec:
            raise TorchRuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {spec}!")
    return tensor_split(a, spec, dim)


def hsplit(a: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    dim = 1 if a.array.ndim > 1 else 0
    return _split_along("hsplit", a, indices_or_sections, dim, 1)


def vsplit(a: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("vsplit", a, indices_or_sections, 0, 2)


def dsplit(a: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("dsplit", a, indices_or_sections, 2, 3)


# -- broadcasting and grids -------------------------------------------------------------


def broadcast_shapes(*shapes: Any) -> Size:
    """torch.broadcast_shapes: ints are 1-d shapes; the message is torch._refs'."""
    result: tuple[int, ...] = ()
    as_tuples = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    for index, shape in enumerate(as_tuples):
        for size in shape:
            if size < 0:
                raise TorchRuntimeError(
                    f"Trying to create tensor with negative dimension ({size}): ({size})")
        try:
            result = broadcast_two(result, shape)
        except TorchRuntimeError:
            n = max(len(result), len(shape))
            padded = (1,) * (n - len(result)) + result
            bad = next(i for i in range(-1, -len(shape) - 1, -1)
                       if shape[i] not in (1, padded[i]) and padded[i] != 1)
            raise TorchRuntimeError(
                f"Attempting to broadcast a dimension of length {shape[bad]} at {bad}! "
                f"Mismatching argument at index {index} had {shapes[index]}; but expected shape "
                f"should be broadcastable to [{', '.join(map(str, padded))}]") from None
    return Size(result)


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """Each tensor expanded to the common shape (itself where it has that shape already)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = tuple(_tensor_list(list(tensors), "broadcast_tensors"))
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = broadcast_two(shape, t.array.shape)
    return tuple(t if t.array.shape == shape else expand(t, shape) for t in tensors)


def broadcast_to(a: Tensor, size: Any) -> Tensor:
    return expand(a, tuple(size))


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Each 1-d input viewed along its own dim and expanded (the first two dims swapped
    for indexing='xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = tuple(_tensor_list(list(tensors), "meshgrid"))
    if not tensors:
        raise TorchRuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:  # TORCH_WARN_ONCE: once per run, whichever line calls it
        from .creation import WARNINGS, OnceWarning

        WARNINGS.append(OnceWarning(
            "UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass "
            "the indexing argument. (Triggered internally at /__w/pytorch/pytorch/aten/src/"
            "ATen/native/TensorShape.cpp:4215.)", "meshgrid"))
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise TorchRuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.array.ndim > 1:  # (torch prints the tensor itself after "got:")
            raise TorchRuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"{t.array.ndim}D tensor")
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise TorchRuntimeError("meshgrid expects all tensors to have the same dtype")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    sizes = [tensors[i].array.size for i in order]
    out = []
    for i, t in enumerate(tensors):
        pos = order.index(i)
        shape = [1] * len(tensors)
        shape[pos] = -1
        out.append(expand(view(t, *shape), tuple(sizes)))
    return tuple(out)


def take_along_dim(a: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """gather over the broadcast of both shapes (all but `dim`); without a dim, over the
    flattened input."""
    if indices.dtype.name != "int64":
        raise TorchRuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices.dtype.scalar_type}")
    if dim is None:
        return gather(view(a, -1), 0, view(indices, -1))
    ndim = a.array.ndim
    if ndim != indices.array.ndim:
        raise TorchRuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {ndim} dimensions for input, and {indices.array.ndim} "
            "dimensions for indices")
    d = wrap_dim(dim, ndim)
    a_shape, i_shape = list(a.array.shape), list(indices.array.shape)
    a_shape[d] = i_shape[d] = 1
    common = list(broadcast_two(tuple(a_shape), tuple(i_shape)))
    common[d] = a.array.shape[d]
    a_target = tuple(common)
    common[d] = indices.array.shape[d]
    i_target = tuple(common)
    return gather(expand(a, a_target), d, expand(indices, i_target))


def fliplr(a: Tensor) -> Tensor:
    if a.array.ndim < 2:
        raise TorchRuntimeError("Input must be >= 2-d.")
    return flip(a, 1)


def flipud(a: Tensor) -> Tensor:
    if a.array.ndim < 1:
        raise TorchRuntimeError("Input must be >= 1-d.")
    return flip(a, 0)


def ravel(a: Tensor) -> Tensor:
    """torch: self.contiguous().view(-1) (a CloneBackward0 first when not contiguous)."""
    return view(contiguous(a), -1)
