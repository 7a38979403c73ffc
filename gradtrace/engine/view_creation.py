"""The CreationMeta a view inherits from the view it was made from (torch's
propagate_creation_meta).

A view of a multi-output view op's output (unbind, split, chunk: MULTI_OUTPUT_NODE) or of a
custom Function's output view (IN_CUSTOM_FUNCTION) keeps that creation meta, so modifying
it in place is refused as modifying the first view would be, whatever op made it: torch
names the new view's own grad_fn and output number in the error (`x.unbind()[0].narrow(0,
0, 2).mul_(2)`: "Output 0 of Slice is a view ..."). The direct case is read from the view's
grad_fn (ops/_util.py's _check_view_output); the inherited ones, few, are kept aside by
identity, as no_grad_views keeps its views.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tensor import Tensor

# id(view) -> (weak reference, the creation meta: ("multi",) or ("custom", diff outputs))
_VIEWS: dict[int, tuple[weakref.ref, tuple[Any, ...]]] = {}


def own(view: Tensor) -> tuple[Any, ...] | None:
    """The creation meta `view`'s grad_fn gives it (a multi-output op's or a custom
    Function's view output), else what it inherited, else None (DEFAULT)."""
    node = view.grad_fn
    custom = getattr(node, "num_diff_outputs", None)  # a custom Function's node
    if custom is not None:
        return ("custom", custom)
    if getattr(node, "multi_output", False):
        return ("multi",)
    entry = _VIEWS.get(id(view))
    return entry[1] if entry is not None and entry[0]() is view else None


def inherited(view: Tensor) -> tuple[Any, ...] | None:
    entry = _VIEWS.get(id(view))
    return entry[1] if entry is not None and entry[0]() is view else None


def propagate(base: Tensor, outs: list[Tensor]) -> None:
    """Views `outs` were just made (with grad) from `base`: a view that is not DEFAULT
    passes its creation meta on."""
    if base._base is None:
        return
    meta = own(base)
    if meta is None:
        return
    for out in outs:
        key = id(out)
        _VIEWS[key] = (weakref.ref(out, lambda _, key=key: _VIEWS.pop(key, None)), meta)
