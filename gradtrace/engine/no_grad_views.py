"""Views made while grad mode was off, of a tensor that requires grad (torch's CreationMeta
NO_GRAD_MODE and INFERENCE_MODE).

Such a view requires grad as its base does, is a leaf, and gradients never flow into it
(an op that uses it has no edge to it: next_functions shows `(None, 0)`). Torch forbids
what would be ambiguous: modifying the view in place with grad mode on, and using it once
it or its base was modified in place (its grad_fn is then `<Invalid>` in its repr, and
reading it raises). The views are few, so they are kept aside by identity, with the
version their storage had when they were made, rather than on every tensor.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from ..errors import TorchRuntimeError

if TYPE_CHECKING:
    from .tensor import Tensor

# id(view) -> (weak reference, version when made, "no_grad" or "inference")
_VIEWS: dict[int, tuple[weakref.ref, int, str]] = {}

_BLOCK = {"no_grad": ("no_grad mode", "with grad mode enabled", "no_grad"),
          "inference": ("inference mode", "in normal mode", "inference_mode")}


def mark(view: Tensor, inference: bool) -> None:
    """`view` was made with grad mode off from a base that requires grad."""
    key = id(view)
    _VIEWS[key] = (weakref.ref(view, lambda _, key=key: _VIEWS.pop(key, None)),
                   view._version_counter.value, "inference" if inference else "no_grad")


def forget(t: Tensor) -> None:
    """`t` is a custom Function's output: torch gives it that creation meta instead."""
    entry = _VIEWS.get(id(t))
    if entry is not None and entry[0]() is t:
        del _VIEWS[id(t)]


def mode_of(t: Tensor) -> str | None:
    """"no_grad" or "inference" for such a view, else None."""
    entry = _VIEWS.get(id(t))
    return entry[2] if entry is not None and entry[0]() is t else None


def invalid(t: Tensor) -> bool:
    """Whether such a view or its base was modified in place since it was made."""
    entry = _VIEWS.get(id(t))
    return entry is not None and entry[0]() is t and t._version_counter.value != entry[1]


def check_usable(t: Tensor) -> None:
    """torch's error for reading the grad_fn of such a view after an in-place change."""
    if invalid(t):
        made, when, block = _BLOCK[_VIEWS[id(t)][2]]
        raise TorchRuntimeError(
            f"A view was created in {made} and its base or another view of its base has been "
            f"modified inplace {when}. {_ADVICE.format(block=block)}")


def check_inplace(t: Tensor) -> None:
    """torch's error for modifying such a view in place with grad mode on."""
    mode = mode_of(t)
    if mode is not None:
        made, when, block = _BLOCK[mode]
        raise TorchRuntimeError(f"A view was created in {made} and is being modified inplace "
                                f"{when}. {_ADVICE.format(block=block)}")


_ADVICE = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can "
           "clarify your code by moving both the view and the inplace either both inside the "
           "{block} block (if you don't want the inplace to be tracked) or both outside (if "
           "you want the inplace to be tracked).")
