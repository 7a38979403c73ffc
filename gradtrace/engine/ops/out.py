"""The `out=` keyword of torch functions: the result written into a given tensor.

torch refuses `out=` when autograd would have to record (grad mode on and an input or
`out` requiring grad), resizes an `out` of another shape (warning unless it was empty),
casts into its dtype when the result's kind allows, and bumps its version once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError
from .. import dtypes
from ..events import OBSERVERS, emit
from ..grad_mode import GRAD_MODE
from ..tensor import Tensor, bump_version, type_name
from ._util import INTERNAL_OVERLAP, internal_overlap
from .reductions import ReturnTypes
from .views import warn

# torch functions whose out= reaches a kernel of another name (the name torch's error uses)
KERNEL_NAMES = {"clip": "clamp", "concat": "cat", "concatenate": "cat", "ger": "mul",
                "outer": "mul", "square": "pow", "true_divide": "div", "divide": "div",
                "multiply": "mul", "subtract": "sub", "arccos": "acos", "arcsin": "asin",
                "arctan": "atan", "absolute": "abs", "negative": "neg", "fix": "trunc",
                "spmm": "mm"}

# functions without a derivative (measured): their out= is taken whatever requires grad
NOT_DIFFERENTIABLE = frozenset("""
all any argmax argmin eq ge gt le logical_and logical_not logical_or logical_xor
lt ne""".split())

RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape [{old}], which does "
    "not match the required output shape [{new}]. This behavior is deprecated, and in a "
    "future PyTorch release outputs will not be resized unless they have zero elements. You "
    "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "Resize.cpp:30.)")


def _tensors_in(values: Any) -> list[Tensor]:
    found = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            found += _tensors_in(v)
    return found


def _shape_text(shape: tuple[int, ...]) -> str:
    return ", ".join(map(str, shape))


def write_into(out: Tensor, result: Tensor) -> Tensor:
    """Resize `out` to the result's shape if needed, cast-copy the result in, bump version."""
    if not isinstance(out, Tensor):
        raise TorchTypeError(f"argument 'out' must be Tensor, not {type_name(out)}")
    if type(out.array) is np.ndarray and internal_overlap(out.array):  # (meta: unchecked)
        # the kernels out= reaches check it first (measured)
        raise TorchRuntimeError(INTERNAL_OVERLAP)
    if not dtypes.can_cast(result.dtype, out.dtype):
        raise TorchRuntimeError(
            f"result type {result.dtype.scalar_type} can't be cast to the desired output type "
            f"{out.dtype.scalar_type}")
    if out.array.shape != result.array.shape:
        if out.array.size:
            warn(RESIZE_WARNING.format(old=_shape_text(out.array.shape),
                                       new=_shape_text(result.array.shape)))
        out.array = np.empty(result.array.shape, dtype=out.dtype.np)
    np.copyto(out.array, result.array, casting="unsafe")
    bump_version(out)
    return out


def call_with_out(name: str, fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any],
                  out: Any) -> Any:
    """`fn(*args, **kwargs)` with its result written into `out` (a tensor or a tuple)."""
    kernel = KERNEL_NAMES.get(name, name)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if GRAD_MODE.enabled and name not in NOT_DIFFERENTIABLE and any(t.requires_grad
                                 for t in _tensors_in(list(args) + list(kwargs.values()) + outs)):
        raise TorchRuntimeError(
            f"{kernel}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    previous = GRAD_MODE.enabled
    GRAD_MODE.enabled = False  # nothing is recorded (torch runs the out= kernel)
    try:
        result = fn(*args, **kwargs)
    finally:
        GRAD_MODE.enabled = previous
    if isinstance(out, (tuple, list)):
        results = list(result)
        if len(outs) != len(results):
            raise TorchTypeError(f"{name}(): argument 'out' must be tuple of {len(results)} "
                                 f"Tensors, not {len(outs)}")
        for o, r in zip(outs, results, strict=True):
            write_into(o, r)
        _emit(kernel, outs)
        if isinstance(result, ReturnTypes):
            return out_return_type(type(result))(*outs)
        return tuple(outs)
    write_into(out, result)
    _emit(kernel, outs)
    return out


_OUT_TYPES: dict[type, type] = {}


def out_return_type(cls: type[ReturnTypes]) -> type[ReturnTypes]:
    """torch.return_types.max_out & co, what a multi-output function returns with out=."""
    out_cls = _OUT_TYPES.get(cls)
    if out_cls is None:
        out_cls = type(cls.__name__ + "Out", (cls,), {"__slots__": (),
                                                     "type_name": cls.type_name + "_out"})
        _OUT_TYPES[cls] = out_cls
    return out_cls


def _emit(kernel: str, outs: list[Tensor]) -> None:
    if OBSERVERS:
        for o in outs:
            emit("inplace", tensor=o, version=o._version_counter.value, node=None,
                 name=f"{kernel}(out=)")


def accepting_out(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` as the torch function `name`, which takes `out=`."""
    def call(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        return call_with_out(name, fn, args, kwargs, out)

    call.__name__ = name
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn  # type: ignore[attr-defined]  # its parameters, for keywords
    return call
