"""torch's conjugate bit: `x.conj()` of a complex tensor is a view of x's storage that
reads (and writes) conjugated, `is_conj()` True; and its negative bit, the same for a real
view that reads (and writes) negated, `is_neg()` True (`x.conj().imag`, imag of a conj view:
at::imag's `view_as_real(self._conj())._neg_view()`). A bit's kind is its view's dtype:
complex, the conjugate; real, the negation (`_fold`).

gradtrace keeps a conjugated shadow per such view: its `array` holds the conjugated values,
laid out with the storage's strides, so every kernel reads the values torch's kernels
read (conjugation is exact, and elementwise kernels round the same whether the bit or the
values say it: measured), and `STORED` keeps the storage view it stands for. This module
is the one place that decides how a conj view reaches a kernel: `materialise` makes the
shadow; `blas_operand` hands a matrix product the storage with the conjugate as a flag,
as torch hands BLAS (that rounds otherwise than the written-out conjugate); `after_write`
(called by bump_version after every in-place write) writes a write into a shadow through
to the storage conjugated, as torch writes through a conj view, then reads the other
shadows again from their storage; `view_outputs` makes a view of a conj view the conj view
of the storage's same view, as torch's views keep the bit.
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from numpy.lib.array_utils import byte_bounds
from numpy.lib.stride_tricks import as_strided

# id(conj view) -> (a weak reference to it, the storage view it reads conjugated); by id,
# as a tensor's == compares values
STORED: dict[int, tuple[weakref.ref, np.ndarray]] = {}


def has_bit(t: Any) -> bool:
    """Whether t is a conj view or a neg view (a shadow of a storage view)."""
    entry = STORED.get(id(t)) if STORED else None
    return entry is not None and entry[0]() is t


def is_conj(t: Any) -> bool:
    return has_bit(t) and STORED[id(t)][1].dtype.kind == "c"


def is_neg(t: Any) -> bool:
    """torch's is_neg(): a real view reading its storage negated."""
    return has_bit(t) and STORED[id(t)][1].dtype.kind != "c"


def _fold(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """What a bit does to the values: conjugates complex ones, negates real ones (both
    exact, and their own inverses)."""
    return np.conjugate(x, out=out) if x.dtype.kind == "c" else np.negative(x, out=out)


def stored(t: Any) -> np.ndarray:
    """The storage view a conj (neg) view reads conjugated (negated)."""
    return STORED[id(t)][1]


def in_storage(t: Any) -> np.ndarray:
    """The array whose memory holds t's elements (data_ptr, storage_offset, the storage):
    a conj or neg view's storage view, not its shadow."""
    return stored(t) if has_bit(t) else t.array


def blas_operand(t: Any, conj: bool = False) -> tuple[np.ndarray, bool]:
    """A matrix product's operand (`conj`: its conjugate, as a backward formula asks) as
    torch's addmm_impl_cpu_ hands it to BLAS: a conj view's storage with the bit as a flag
    (BLAS's conjugate transpose where the storage is row-major), which rounds otherwise
    than the written-out conjugate (measured: `a @ b.mH`), else the tensor's own array."""
    return (stored(t), not conj) if is_conj(t) else (t.array, conj)


def _views() -> list[tuple[Any, np.ndarray]]:
    """The live conj views and their storage views."""
    return [(t, s) for ref, s in list(STORED.values()) if (t := ref()) is not None]


def _drop(key: int, ref: weakref.ref) -> None:
    entry = STORED.get(key)
    if entry is not None and entry[0] is ref:
        del STORED[key]


def materialise(storage_view: np.ndarray) -> np.ndarray:
    """The conjugated (a real one's: negated) shadow of a storage view: the memory it spans
    folded into a new buffer, viewed with its very strides (an expanded view's zeros, a
    size-1 dim's), so the conj (neg) view reports and overlaps as torch's does."""
    item = storage_view.itemsize
    if storage_view.size == 0:
        return as_strided(np.empty(1, storage_view.dtype), storage_view.shape,
                          storage_view.strides)
    low, high = byte_bounds(storage_view)
    if low != storage_view.__array_interface__["data"][0]:
        return _fold(storage_view)  # (a negative stride: no torch layout has one)
    span = as_strided(storage_view, ((high - low) // item,), (item,))
    return as_strided(_fold(span), storage_view.shape, storage_view.strides)


def mark(t: Any, storage_view: np.ndarray) -> None:
    """Set t's conjugate bit: t.array is the shadow of `storage_view`."""
    key = id(t)
    STORED[key] = (weakref.ref(t, lambda r, key=key: _drop(key, r)), storage_view)


def alias(t: Any, out: Any) -> Any:
    """`out`, a new tensor over t.array (`.data`, `.detach()`), with t's conjugate (negative)
    bit."""
    if has_bit(t):
        mark(out, stored(t))
    return out


def take_bit(t: Any, other: Any) -> None:
    """`t.data = other`: t takes other's conjugate bit with its data (set or cleared)."""
    STORED.pop(id(t), None)
    alias(other, t)


def view_outputs(node: Any, base: Any, outs: list, params: dict) -> None:
    """A view op given a conj view: its outputs are conj views of the same view of the
    storage (the op run again on the storage view), as torch's views keep the bit; a real
    output (`.real`, view_as_real's refusal aside) reads the shadow, no bit."""
    from .tensor import wrap

    if outs[0].dtype.is_complex != (stored(base).dtype.kind == "c"):
        return  # (a conj view's real parts; a neg view viewed as complex is refused)
    data = node.forward(wrap(stored(base)), **params)
    arrays = data if node.multi_output else [data]
    for o, a in zip(outs, arrays, strict=True):
        mark(o, a)


def after_write(t: Any) -> None:
    """An in-place write into `t` has happened: written into a shadow (t a conj view or a
    tensor sharing its memory), it goes to the storage conjugated; then every other shadow
    whose storage may overlap what changed is read again from it."""
    views = _views()
    written = [np.may_share_memory(t.array, c.array) for c, _ in views]
    changed = [t.array]
    for (c, s), w in zip(views, written, strict=True):
        if w:
            _fold(c.array, out=s)
            changed.append(s)
    for (c, s), w in zip(views, written, strict=True):
        if not w and any(np.may_share_memory(s, a) for a in changed):
            _fold(s, out=c.array)
