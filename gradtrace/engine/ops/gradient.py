"""torch.gradient: ATen's composite (ReduceOps.cpp gradient_helper / gradient_helper_float),
op for op, so its graph is torch's: slices of the input, differences, the Scalar overloads
of mul and div (MulBackward1, DivBackward1) for a number spacing, tensor arithmetic for
coordinate tensors, and one cat per dimension of the centre with its two edges."""
from __future__ import annotations

from typing import Any

from ...errors import TorchRuntimeError
from .. import dtypes
from ..shapes import wrap_dim
from ..tensor import Tensor
from .arithmetic import add, div, mul, neg, sub
from .joins import cat, diff
from .scalar import div_scalar, mul_scalar
from .select_views import select, slice_op
from .views import INT64_MAX, reshape


def _slice(t: Tensor, dim: int, start: int, end: int = INT64_MAX) -> Tensor:
    return slice_op(t, dim, start, end, 1)


def _check(self_: Tensor, spacing_size: int | None, dims: list[int] | None,
           edge_order: int) -> None:
    """pre_check_gradient."""
    if self_.dtype is dtypes.uint8:
        raise TorchRuntimeError("torch.gradient does not support uint8 input.")
    ndim = self_.array.ndim
    if spacing_size is not None and dims is None and spacing_size != ndim:
        raise TorchRuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {ndim}', since dim argument was not given, but got a list "
            f"of length {spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise TorchRuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise TorchRuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        seen = set()
        for d in dims:
            w = wrap_dim(d, ndim)
            if w in seen:
                raise TorchRuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    for d in (range(ndim) if dims is None else dims):
        if self_.array.shape[d] < edge_order + 1:
            raise TorchRuntimeError("torch.gradient expected each dimension size to be at least "
                                    "edge_order+1")


def _float_spacing(t: Tensor, spacing: list[Any], dims: list[int],
                   edge_order: int) -> tuple[Tensor, ...]:
    """gradient_helper_float: spacing numbers, one per dim."""
    result = []
    for d, dx in zip(dims, spacing, strict=True):
        direction = wrap_dim(d, t.array.ndim)
        center = div_scalar(sub(_slice(t, direction, 2), _slice(t, direction, 0, -2)), dx)
        if edge_order == 1:
            prepend = div_scalar(sub(_slice(t, direction, 1, 2), _slice(t, direction, 0, 1)),
                                 dx)
            append = div_scalar(sub(_slice(t, direction, -1), _slice(t, direction, -2, -1)),
                                dx)
        else:
            prepend = div_scalar(sub(add(mul_scalar(_slice(t, direction, 0, 1), -1.5),
                                         mul_scalar(_slice(t, direction, 1, 2), 2)),
                                     mul_scalar(_slice(t, direction, 2, 3), 0.5)), dx)
            append = div_scalar(add(sub(mul_scalar(_slice(t, direction, -3, -2), 0.5),
                                        mul_scalar(_slice(t, direction, -2, -1), 2)),
                                    mul_scalar(_slice(t, direction, -1), 1.5)), dx)
        result.append(cat([prepend, div_scalar(center, 2), append], direction))
    return tuple(result)


def _coordinate_spacing(t: Tensor, coordinates: list[Tensor], dims: list[int],
                        edge_order: int) -> tuple[Tensor, ...]:
    """gradient_helper: a 1-d tensor of coordinates per dim."""
    result = []
    for d, coords in zip(dims, coordinates, strict=True):
        if coords.array.ndim != 1:
            raise TorchRuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but got "
                f"an element with {coords.array.ndim} dimensions!")
        direction = wrap_dim(d, t.array.ndim)
        shape = [1] * t.array.ndim
        shape[direction] = -1
        dx = diff(coords, 1, 0)
        dx1, dx2 = _slice(dx, 0, 0, -1), _slice(dx, 0, 1)
        a = reshape(div(neg(dx2), mul(dx1, add(dx1, dx2))), shape)
        b = reshape(div(sub(dx2, dx1), mul(dx1, dx2)), shape)
        c = reshape(div(dx1, mul(dx2, add(dx1, dx2))), shape)
        center = add(add(mul(a, _slice(t, direction, 0, -2)), mul(b, _slice(t, direction, 1, -1))),
                     mul(c, _slice(t, direction, 2)))
        first, last = select(dx, 0, 0), select(dx, 0, -1)
        if edge_order == 1:
            prepend = div(sub(_slice(t, direction, 1, 2), _slice(t, direction, 0, 1)), first)
            append = div(sub(_slice(t, direction, -1), _slice(t, direction, -2, -1)), last)
        else:
            d0, d1 = first, select(dx, 0, 1)
            a = div(neg(add(mul_scalar(d0, 2.0), d1)), mul(d0, add(d0, d1)))
            b = div(add(d0, d1), mul(d0, d1))
            c = div(neg(d0), mul(d1, add(d0, d1)))
            prepend = add(add(mul(a, _slice(t, direction, 0, 1)),
                              mul(b, _slice(t, direction, 1, 2))),
                          mul(c, _slice(t, direction, 2, 3)))
            dl, dm = last, select(dx, 0, -2)
            a = div(dl, mul(dm, add(dl, dm)))
            b = div(neg(add(dl, dm)), mul(dl, dm))
            c = div(add(mul_scalar(dl, 2), dm), mul(dl, add(dl, dm)))
            append = add(add(mul(a, _slice(t, direction, -3, -2)),
                             mul(b, _slice(t, direction, -2, -1))),
                         mul(c, _slice(t, direction, -1)))
        result.append(cat([prepend, center, append], direction))
    return tuple(result)


def gradient(input: Tensor, *, spacing: Any = None, dim: Any = None,  # noqa: A002
             edge_order: int = 1) -> tuple[Tensor, ...]:
    """torch.gradient's overloads: spacing None, a number, a list of numbers, or a tuple of
    coordinate tensors; dim None, an int, or a list of ints."""
    ndim = input.array.ndim
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    axes = list(range(ndim)) if dims is None else dims
    if isinstance(spacing, (list, tuple)) and spacing and isinstance(spacing[0], Tensor):
        _check(input, len(spacing), dims, edge_order)
        return _coordinate_spacing(input, list(spacing), axes, edge_order)
    if isinstance(spacing, (list, tuple)):
        _check(input, len(spacing), dims, edge_order)
        return _float_spacing(input, list(spacing), axes, edge_order)
    unit = 1.0 if spacing is None else spacing
    _check(input, None if spacing is None else len(axes), dims, edge_order)
    return _float_spacing(input, [unit] * len(axes), axes, edge_order)


TORCH_FUNCTIONS: dict[str, Any] = {"gradient": gradient}
