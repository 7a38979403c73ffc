"""Tensor.apply_(callable) and Tensor.map_(other, callable): torch's CPU-only in-place loops
that call a Python function once per element (in the tensor's logical, row-major order) with
the element as a Python number and store what it returns, converted to the tensor's dtype.
Neither records history nor bumps the version counter (measured), and both refuse tensors
that require grad, whatever the grad mode."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError
from ..tensor import Tensor, type_name


def _refuse_grad(name: str, *tensors: Tensor) -> None:
    if any(t.requires_grad for t in tensors):
        raise TorchRuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                                f"var.detach().{name}() instead.")


def _store(t: Tensor, index: tuple[int, ...], value: Any) -> None:
    """One element written as torch's unpack for the dtype converts a Python value."""
    if isinstance(value, Tensor) or not isinstance(value, (int, float, bool, np.generic)):
        raise TorchTypeError(f"must be real number, not {type_name(value)}")
    if t.dtype.is_floating_point:
        t.array[index] = float(value)
    elif t.dtype.np == np.bool_:
        t.array[index] = bool(value)
    else:
        t.array[index] = int(value)


def _call(fn: Any, *args: Any) -> Any:
    if not callable(fn):
        raise TorchTypeError(f"'{type_name(fn)}' object is not callable")
    return fn(*args)


def apply_(t: Tensor, callable: Callable[[Any], Any]) -> Tensor:  # noqa: A002
    _refuse_grad("apply_", t)
    for index in np.ndindex(t.array.shape):
        _store(t, index, _call(callable, t.array[index].item()))
    return t


def map_(t: Tensor, tensor: Any, callable: Callable[[Any, Any], Any]) -> Tensor:  # noqa: A002
    if not isinstance(tensor, Tensor):
        raise TorchTypeError(f"map_(): argument 'other' (position 1) must be Tensor, not "
                             f"{type_name(tensor)}")
    _refuse_grad("map_", t, tensor)
    if tensor.dtype is not t.dtype:
        raise TorchTypeError(f"map_: expected torch.{t.dtype.tensor_type} for 'other' (got "
                             f"torch.{tensor.dtype.tensor_type})")
    from .views import expand

    other = expand(tensor, t.array.shape).array
    for index in np.ndindex(t.array.shape):
        _store(t, index, _call(callable, t.array[index].item(), other[index].item()))
    return t


TENSOR_METHODS: dict[str, Any] = {"apply_": apply_, "map_": map_}
