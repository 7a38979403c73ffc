"""In-place writes and views: copy_, and the history torch gives a base and its views after
an in-place op on one of them (the base's grad_fn becomes CopySlices, the views'
AsStridedBackward0, regenerated for every live view of the base)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ScriptError, TorchRuntimeError, TorchTypeError
from .. import no_grad_views
from ..formulas import each, local, vjp
from ..forward_ad import auto_linear, linear_in_all
from ..grad_mode import GRAD_MODE
from ..meta import NO_DATA, is_meta
from ..node import Function, Node
from ..shapes import broadcast_shapes, contiguous_strides
from ..tensor import Tensor, gradient_edge, move_retains_grad, type_name
from ._util import INTERNAL_OVERLAP, apply_inplace
from .clones import clone
from .views import _VIEWS, ViewFunction, torch_strides


def refresh_views(t: Tensor) -> None:
    """After an in-place op on `t` (a base or a view): every other live view of the base
    gets `AsStridedBackward0` over the base's new history, like torch."""
    base = t._base if t._base is not None else t
    entry = _VIEWS.get(id(base))
    if entry is None or entry[0]() is not base or not base.requires_grad:
        return
    edge = gradient_edge(base)
    alive = []
    for ref in entry[1]:
        v = ref()
        if v is None or v._base is not base:
            continue
        alive.append(ref)
        if v is not t and no_grad_views.mode_of(v) is None:  # (those are invalid instead)
            _set_as_strided(v, edge)
    entry[1][:] = alive


def refresh_views_untracked(t: Tensor) -> None:
    """After an in-place op on `t` that recorded no history (grad mode off, as an
    optimizer's step writes a parameter): torch regenerates the grad_fn of every view of the
    base made with grad mode on, `t` itself included when it is one, as
    `AsStridedBackward0` over the base's unchanged history the next time it is read (the
    shared version moved on), so a view kept across the step (a distribution's `loc`, an
    `expand` of the parameter) prints as one."""
    base = t._base if t._base is not None else t
    entry = _VIEWS.get(id(base))
    if entry is None or entry[0]() is not base or not base.requires_grad:
        return
    edge = gradient_edge(base)
    for ref in entry[1]:
        v = ref()
        if (v is not None and v._base is base and v.grad_fn is not None
                and no_grad_views.mode_of(v) is None):
            _set_as_strided(v, edge)


class CopyBackwards(Function):
    """`self.copy_(src)`: self's gradient is zero, src gets the gradient (reduced to its shape)."""

    __slots__ = ()
    formulas = (local("self", "0"),
                local("src", "1"))

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def forward(self, a: Tensor, src: Tensor) -> np.ndarray:
        shape = broadcast_shapes(a.array.shape, src.array.shape)
        values = np.broadcast_to(src.array, shape)
        if values.dtype.kind == "c" and not a.dtype.is_complex:
            from .. import complex as complex_dtypes

            return complex_dtypes.to_real(values, a.dtype)
        return values.astype(a.array.dtype)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from .creation import zeros_like

        g_self = zeros_like(grad) if self.needs_input_grad(0) else None
        return g_self, (grad if self.needs_input_grad(1) else None)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        return CopyBackwards.call(t[0], t[1])  # self_t.copy_(src_t)


def copy_(a: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TorchTypeError(
            f"copy_(): argument 'src' (position 1) must be Tensor, not {type_name(src)}")
    if is_meta(src.array) != is_meta(a.array):  # a copy across devices (meta <-> cpu)
        if is_meta(src.array):
            raise ScriptError(NO_DATA, kind="NotImplementedError")
        from .clones import to

        src = to(src, "meta")  # into a meta tensor: the shape and dtype, no values
    return apply_inplace(CopyBackwards, a, src)


def _geometry(view_: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The view's size, stride and storage offset, in elements, relative to its base."""
    base = view_._base.array
    arr = view_.array
    item = arr.itemsize
    offset = (arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return arr.shape, torch_strides(arr), offset


def _strided(storage: np.ndarray, size: tuple[int, ...], stride: tuple[int, ...],
             offset: int) -> np.ndarray:
    item = storage.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], shape=size, strides=tuple(s * item for s in stride))


def _storage_for(shape: tuple[int, ...], strides: tuple[int, ...], extra: int,
                 dtype: np.dtype) -> np.ndarray:
    extent = _region_extent(shape, strides, 0)
    return np.zeros(max(extent, extra), dtype=dtype)


def _region_extent(size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> int:
    if not all(size):
        return offset
    return offset + 1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True))


class AsStridedBackward0(Function):
    """A view's grad_fn after an in-place op on it: the view as a strided window of its base."""

    __slots__ = ("base_strides",)
    jvp = auto_linear  # derivatives.yaml: result: auto_linear
    formulas = (vjp("self", "zeros_like({self}).as_strided_scatter({grad}, {size}, {stride}, "
                    "{storage_offset})"),)

    def forward(self, a: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int, base_strides: tuple[int, ...]) -> np.ndarray:
        self.save_attr(size=tuple(size), storage_offset=storage_offset, stride=tuple(stride))
        self.base_strides = base_strides
        storage = _storage_for(a.array.shape, base_strides,
                               _region_extent(size, stride, storage_offset), a.array.dtype)
        _strided(storage, a.array.shape, base_strides, 0)[...] = a.array
        return _strided(storage, size, stride, storage_offset).copy()

    def backward(self, grad: Tensor) -> Tensor:
        from .creation import zeros

        shape, dtype = self.input_meta[0]
        a = dict(self.attrs)
        if any(n > 1 and st == 0 for n, st in zip(a["size"], a["stride"], strict=True)):
            # torch's as_strided_backward, step 0: an expanded dim's gradient is summed
            size, stride = list(a["size"]), list(a["stride"])
            for i in reversed(range(len(size))):
                if size[i] > 1 and stride[i] == 0:
                    grad = grad.sum(dim=i)
                    del size[i], stride[i]
            a["size"], a["stride"] = tuple(size), tuple(stride)
        if GRAD_MODE.enabled and not (_maybe_overlapping(a["size"], a["stride"])
                                      or _maybe_overlapping(shape, self.base_strides)):
            return _as_strided_backward(grad, shape, self.base_strides, a)
        return AsStridedScatterBackward0.call(
            zeros(shape, dtype=dtype), grad, size=a["size"], stride=a["stride"],
            storage_offset=a["storage_offset"], base_strides=self.base_strides)


def _maybe_overlapping(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """torch's _maybe_overlapping_memory."""
    max_index = 0
    for stride, size in sorted(zip(strides, sizes), key=lambda p: p[0]):
        if stride <= max_index:
            return True
        max_index += stride * (size - 1)
    return False


def _as_strided_backward(grad: Tensor, shape: tuple[int, ...], strides: tuple[int, ...],
                         out: dict[str, Any]) -> Tensor:
    """torch's as_strided_backward (no overlap) op for op, so create_graph records it:
    zeros storage; storage.as_strided(out).copy_(grad); storage.as_strided(input)."""
    base_size = max(_region_extent(shape, strides, 0),
                    _region_extent(out["size"], out["stride"], out["storage_offset"]))
    storage = Tensor._wrap(np.zeros(base_size, dtype=grad.array.dtype))
    window = AsStridedViewBackward0.call(storage, size=out["size"], stride=out["stride"],
                                         storage_offset=out["storage_offset"], base_strides=(1,))
    copy_(window, grad)
    return AsStridedViewBackward0.call(storage, size=tuple(shape), stride=tuple(strides),
                                       storage_offset=0, base_strides=(1,))


class AsStridedScatterBackward0(Function):
    """`self` with a strided window replaced by `src` (CopySlices' gradient for the base)."""

    __slots__ = ("base_strides",)
    jvp = linear_in_all  # derivatives.yaml: auto_linear in every input
    formulas = (vjp("self", "{grad}.as_strided_scatter(zeros({size}), {size}, {stride}, "
                    "{storage_offset})"),
                vjp("src", "{grad}.as_strided({size}, {stride}, {storage_offset})"))

    def forward(self, a: Tensor, src: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int, base_strides: tuple[int, ...]) -> np.ndarray:
        self.save_attr(size=tuple(size), storage_offset=storage_offset, stride=tuple(stride))
        self.base_strides = base_strides
        storage = _storage_for(a.array.shape, base_strides,
                               _region_extent(size, stride, storage_offset), a.array.dtype)
        base_view = _strided(storage, a.array.shape, base_strides, 0)
        base_view[...] = a.array
        _strided(storage, size, stride, storage_offset)[...] = src.array
        return base_view.copy()

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a = self.attrs
        geometry = dict(size=a["size"], stride=a["stride"], storage_offset=a["storage_offset"],
                        base_strides=self.base_strides)
        g_self = g_src = None
        if self.needs_input_grad(0):
            zero = Tensor._wrap(np.zeros(a["size"], dtype=grad.array.dtype))
            g_self = AsStridedScatterBackward0.call(grad, zero, **geometry)
        if self.needs_input_grad(1):
            g_src = AsStridedBackward0.call(grad, **geometry)
        return g_self, g_src


class AsStridedViewBackward0(ViewFunction, AsStridedBackward0):
    """as_strided as a real view of a contiguous tensor: what CopySlices' backward takes of
    its result under create_graph (torch names it AsStridedBackward0 too)."""

    __slots__ = ()

    def forward(self, a: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                storage_offset: int, base_strides: tuple[int, ...]) -> np.ndarray:
        self.save_attr(size=tuple(size), storage_offset=storage_offset, stride=tuple(stride))
        self.base_strides = base_strides
        return _strided(a.array.reshape(-1), size, stride, storage_offset)


AsStridedViewBackward0.__name__ = "AsStridedBackward0"


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views (torch's CopySlices).

    Backward: the base's gradient with the view's window replaced by what the in-place
    op `fn` returns for its self input; `fn`'s other inputs get its other gradients.
    """

    __slots__ = ("fn", "size", "stride", "storage_offset", "base_strides")
    formulas = (vjp("self", "{grad}.as_strided_scatter(fn.backward({grad}.as_strided(view))[0], "
                    "view)"),
                each("other", "fn.backward({grad}.as_strided(view))[{i}]"))

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def saved_names(self) -> list[str]:
        return []

    def release(self) -> None:
        self.fn.release()

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        grad = grads[0]
        if grad is None:
            return (None,) * len(self.next_functions)
        geometry = dict(size=self.size, stride=self.stride, storage_offset=self.storage_offset,
                        base_strides=self.base_strides)
        shape, dtype = self.input_meta[0]
        if GRAD_MODE.enabled and self.base_strides == contiguous_strides(shape):
            return self._apply_recorded(grad, shape, dtype, geometry)
        grad_slice = AsStridedBackward0.call(grad, **geometry)
        res = list(self.fn.apply([grad_slice]))
        res += [None] * (len(self.next_functions) - len(res))
        out: list[Tensor | None] = [None] * len(self.next_functions)
        if self.next_functions[0][0] is not None and res[0] is not None:
            if any(n > 1 and st == 0 for n, st in zip(self.size, self.stride, strict=True)):
                raise TorchRuntimeError(INTERNAL_OVERLAP)  # torch's grad_slice.copy_(res[0])
            src = res[0]
            if src.array.shape != tuple(self.size):
                src = src.expand(self.size)
            if src.dtype is not grad.dtype:
                src = src.to(grad.dtype)
            out[0] = AsStridedScatterBackward0.call(grad, src, **geometry)
        for i in range(1, len(out)):
            out[i] = res[i]
        return tuple(out)


    def _apply_recorded(self, grad: Tensor, shape: tuple[int, ...], dtype: Any,
                        geometry: dict[str, Any]) -> tuple[Tensor | None, ...]:
        """torch's CopySlices::apply op for op, so create_graph records its nodes: result =
        empty.copy_(grad); fn(result.as_strided(...).clone()); grad_slice.copy_(res[0])."""
        result = copy_(Tensor._wrap(np.empty(shape, dtype=dtype.np)), grad)
        grad_slice = AsStridedViewBackward0.call(result, **geometry)
        res = list(self.fn.apply([clone(grad_slice)]))
        res += [None] * (len(self.next_functions) - len(res))
        out: list[Tensor | None] = [None] * len(self.next_functions)
        if self.next_functions[0][0] is not None and res[0] is not None:
            copy_(grad_slice, res[0])
            out[0] = result
        for i in range(1, len(out)):
            out[i] = res[i]
        return tuple(out)


def rebase_view(view_: Tensor, node: Node) -> None:
    """History after in-place op `node` on a view: base -> CopySlices, view -> AsStrided."""
    base = view_._base
    size, stride, offset = _geometry(view_)
    base_strides = tuple(s // base.array.itemsize for s in base.array.strides)
    copy_slices = CopySlices()
    copy_slices.fn = node
    copy_slices.size, copy_slices.stride = size, stride
    copy_slices.storage_offset, copy_slices.base_strides = offset, base_strides
    copy_slices.next_functions = (gradient_edge(base),) + tuple(node.next_functions[1:])
    copy_slices.input_meta = ((base.array.shape, base.dtype),) + tuple(node.input_meta[1:])
    copy_slices.output_meta = ((base.array.shape, base.dtype),)
    old_fn, old_nr = base.grad_fn, base.output_nr
    base.grad_fn = copy_slices
    base.requires_grad = True
    base.output_nr = 0
    move_retains_grad(base, old_fn, old_nr)

    _set_as_strided(view_, (copy_slices, 0))


def _set_as_strided(view_: Tensor, edge: tuple[Node | None, int]) -> None:
    """Give a view the grad_fn torch regenerates for it: AsStridedBackward0 over `edge`."""
    base = view_._base
    size, stride, offset = _geometry(view_)
    node = AsStridedBackward0.__new__(AsStridedBackward0)
    node.recording = True
    Node.__init__(node)
    node.save_attr(size=size, storage_offset=offset, stride=stride)
    node.base_strides = tuple(s // base.array.itemsize for s in base.array.strides)
    node.next_functions = (edge,)
    node.input_meta = ((base.array.shape, base.dtype),)
    node.output_meta = ((view_.array.shape, view_.dtype),)
    old_fn, old_nr = view_.grad_fn, view_.output_nr
    view_.grad_fn = node
    view_.requires_grad = True
    view_.output_nr = 0
    move_retains_grad(view_, old_fn, old_nr)
