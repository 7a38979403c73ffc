"""What torch checks when a backward hook returns a value (python_hook.cpp).

A tensor hook may return None (keep the gradient) or a tensor of the same dtype and
shape; a node pre-hook or post-hook may return None or a tuple with one entry per
gradient, each checked the same way.  Violations raise torch's exact messages, naming
the hook the way torch does (its `__name__`, `<lambda>` for a lambda).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import TorchRuntimeError, TorchTypeError
from .tensor import Tensor


def hook_name(hook: Any) -> str:
    name = getattr(hook, "name", None)  # a script's def/lambda
    if isinstance(name, str):
        return name
    return getattr(hook, "__name__", repr(hook))


def _type_name(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _check_variable(original: Tensor, result: Tensor, hook: Any) -> None:
    if result.dtype is not original.dtype:
        raise TorchRuntimeError(
            f"hook '{hook_name(hook)}' has changed the type of value (was "
            f"torch.{original.dtype.tensor_type} got torch.{result.dtype.tensor_type})")
    if result.array.shape != original.array.shape:
        raise TorchRuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def _check_single(original: Tensor | None, result: Any, hook: Any) -> None:
    if result is None:
        return
    if original is None:
        raise TorchRuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TorchTypeError(f"expected Variable, but hook returned '{_type_name(result)}'")
    _check_variable(original, result, hook)


def tensor_hook_result(hook: Any, original: Tensor, result: Any) -> Tensor | None:
    """A tensor hook's return value, checked: the replacement gradient, or None to keep it."""
    _check_single(original, result, hook)
    return result


def node_hook_result(hook: Any, originals: Sequence[Tensor | None],
                     result: Any) -> list[Tensor | None] | None:
    """A node hook's return value, checked: the replacement gradients, or None to keep them."""
    if result is None:
        return None
    if not isinstance(result, tuple):
        raise TorchTypeError(f"expected tuple, but hook returned '{_type_name(result)}'")
    if len(result) != len(originals):
        raise TorchRuntimeError(
            f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(originals)})")
    for original, value in zip(originals, result):
        _check_single(original, value, hook)
    return list(result)
