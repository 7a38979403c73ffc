"""When torch's engine reuses a gradient's memory instead of allocating: use counts.

Two places in torch's backward depend on whether a gradient tensor is referenced
anywhere else, and both show in `_version`:

* the input buffer of a node adds a second gradient *in place* into the first
  one (`old.add_(new)`, version + 1) when grad mode is off and the first is a
  dense tensor that only the buffer holds (torch's `can_accumulate_inplace`);
* `AccumulateGrad` *steals* the incoming gradient as the new `.grad` when only
  the engine holds it and its strides match the variable's; otherwise it copies
  it into a fresh tensor with `copy_` (version 1, and `CopyBackwards` under
  `create_graph=True`).

torch decides with C++ use counts; gradtrace uses CPython reference counts,
which the engine keeps in the same pattern (a gradient lives in its buffer slot,
the user's and Python's references are extra).  The baselines are measured once
at import, so they do not depend on the interpreter's counting details.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from . import conj_bit
from .grad_mode import GRAD_MODE
from .meta import MetaArray, base_link, is_c_contiguous, strides_of

if TYPE_CHECKING:
    from .tensor import Tensor


def _slot_refs(buffer: list, index: int) -> int:
    return sys.getrefcount(buffer[index])


def _array_refs(t: Tensor) -> int:
    return sys.getrefcount(t.array)


def _link_refs(view: np.ndarray) -> int:
    return sys.getrefcount(base_link(view))


def _layout(array: np.ndarray) -> tuple[tuple[int, ...], int]:
    """(strides, the stride of one element): numpy's byte strides, or for a meta array the
    strides torch reports, in elements (its numpy strides are zeros)."""
    if type(array) is MetaArray:
        return strides_of(array), 1
    return array.strides, array.itemsize


def is_non_overlapping_and_dense(array: np.ndarray) -> bool:
    if type(array) is not MetaArray and (array.flags.c_contiguous or array.flags.f_contiguous):
        return True
    strides, expected = _layout(array)
    dims = sorted((abs(s), n) for s, n in zip(strides, array.shape) if n != 1)
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def obeys_layout_contract(grad: np.ndarray, variable: np.ndarray) -> bool:
    """torch's check that a gradient has its variable's strides (size-1 dims aside)."""
    if grad.shape != variable.shape:
        return False
    if is_non_overlapping_and_dense(variable):
        for size, gs, vs in zip(grad.shape, _layout(grad)[0], _layout(variable)[0]):
            if size != 1:
                if gs != vs:
                    return False
            elif gs == 0:
                return False
        return True
    return is_c_contiguous(grad)


def _storage_unshared(t: Tensor) -> bool:
    """Only `t` holds its memory (torch: storage use count 1): its array, and each link of
    the array's base chain, is held by the one before it alone (a view that as_strided
    made, such as unsqueeze's, chains to the array it views: a gradient that views the
    user's `grad_outputs` tensor must not be added into in place)."""
    if _array_refs(t) != _ARRAY_ALONE:
        return False
    view = t.array
    while base_link(view) is not None:
        if _link_refs(view) != _BASE_ALONE:
            return False
        view = base_link(view)
    return True


def add_to_buffer(buffer: list, index: int, grad: Tensor) -> None:
    """Add `grad` into `buffer[index]` the way torch's InputBuffer does.

    The caller must not hold a reference to the slot's current tensor.
    """
    if buffer[index] is None:
        buffer[index] = grad
        return
    if _SLOT_ALONE < 0:
        calibrate()
    if (not GRAD_MODE.enabled and _slot_refs(buffer, index) == _SLOT_ALONE
            and _accumulable_inplace(buffer[index], grad)):
        from .forward_ad import add_tangent_into_buffer
        from .tensor import bump_version

        old = buffer[index]
        np.add(old.array, grad.array, out=old.array, casting="unsafe")
        bump_version(old)
        add_tangent_into_buffer(old, grad)
        return
    buffer[index] = buffer[index] + grad


def _accumulable_inplace(old: Tensor, grad: Tensor) -> bool:
    """torch's can_accumulate_inplace. A conj view (ConjBackward0's gradient) shares its
    base's storage: never added into in place (measured: the conj gradient arriving first
    at a leaf, a plain one second, torch's sum is a plain tensor)."""
    # no local name for old.array: it would count as a reference to the storage
    return (old.array.shape == grad.array.shape and old.array.dtype == grad.array.dtype
            and old.array.flags.writeable and is_non_overlapping_and_dense(old.array)
            and not conj_bit.is_conj(old) and _storage_unshared(old))


def can_steal(grads: list, index: int, variable: Tensor) -> bool:
    """AccumulateGrad may keep `grads[index]` itself as the variable's first `.grad`.

    Call before binding the gradient to a local name.
    """
    if _SLOT_ALONE < 0:
        calibrate()
    return (not GRAD_MODE.enabled and _slot_refs(grads, index) == _SLOT_ALONE
            and obeys_layout_contract(grads[index].array, variable.array))


def copy_grad(new: Tensor, variable: Tensor) -> Tensor:
    """torch's clone_obey_contract: a copy with the variable's strides when the variable
    is dense (a permuted leaf's `.grad` is laid out as the leaf), else row-major;
    `new_empty_strided(...).copy_(new)`, so version 1."""
    from .ops.clones import empty_laid_out
    from .ops.views import torch_strides
    from .shapes import contiguous_strides
    from .tensor import Tensor

    array, like = new.array, variable.array
    dense = (type(array) is not MetaArray and type(like) is not MetaArray
             and like.shape == array.shape and not like.flags.c_contiguous
             and is_non_overlapping_and_dense(like))
    strides = torch_strides(like) if dense else contiguous_strides(array.shape)
    if GRAD_MODE.enabled:
        from .ops.view_inplace import copy_

        return copy_(Tensor._wrap(empty_laid_out(array.shape, strides, array.dtype)), new)
    if type(array) is MetaArray:  # (no values to copy)
        out = Tensor._wrap(array.copy())
    else:
        copied = empty_laid_out(array.shape, strides, array.dtype)
        np.copyto(copied, array)
        out = Tensor._wrap(copied)
    out._version_counter.value = 1
    return out


def calibrate() -> None:
    """Measure the reference counts of a tensor only a list slot holds (once, at import)."""
    global _SLOT_ALONE, _ARRAY_ALONE, _BASE_ALONE
    from .tensor import Tensor

    slot = [Tensor._wrap(np.zeros(4, dtype=np.float32))]
    viewing = [Tensor._wrap(np.zeros(4, dtype=np.float32)[1:])]
    _SLOT_ALONE, _ARRAY_ALONE, _BASE_ALONE = (
        _slot_refs(slot, 0), _array_refs(slot[0]), _link_refs(viewing[0].array))


_SLOT_ALONE = _ARRAY_ALONE = _BASE_ALONE = -1  # set by calibrate() once Tensor exists
