"""torch's meta device: tensors with a shape, a dtype and strides, and no data.

A meta tensor's `array` is a `MetaArray`: a numpy array of the tensor's shape whose
strides are all zero over one element, so it costs one element of memory whatever its
size (`torch.empty(10**12, device="meta")` included). It carries the strides torch
reports (`torch_strides`), since its numpy strides say nothing.

Ops run through the engine's own code (`run_forward`, called by `Function.call`), never a
shape table per op:
- inputs whose storage is small get a real zero-filled stand-in with the same shape and
  strides, and the op's forward runs on it as on any CPU tensor: the output's shape,
  dtype and strides are what the engine computes, and so are its errors;
- larger inputs of a view op (`meta_layout_only`) become windows of their shape and
  strides over one element, which the view's forward lays out anew without reading;
- other larger inputs run the forward on the MetaArrays themselves: numpy ufuncs (elementwise
  ops, reductions, matmul) answer from shapes and dtypes alone (`__array_ufunc__`), and
  an op whose arithmetic is not made of them says how large its result is through its
  `meta_forward` (convolution, pooling), the same shape logic its forward checks with.
Every output of an op with a meta input is a meta tensor; reading values raises torch's
errors (`Tensor.item()`, `.tolist()`, `.numpy()`, `.to("cpu")`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import NotSupportedError, ScriptError, TorchRuntimeError
from .shapes import contiguous_strides, dense_strides_like

NO_DATA = "Cannot copy out of meta tensor; no data!"
NO_ITEM = "Tensor.item() cannot be called on meta tensors"
NO_NUMPY = ("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the "
            "tensor to host memory first.")
# a stand-in's storage, in elements, up to which an op runs on real zeros
PROBE_ELEMENTS = 1 << 16


class MetaState:
    """Whether any meta tensor was ever made in this process: until one is, `Function.call`
    skips its meta check (the hottest function of the engine)."""

    __slots__ = ("used", "kernels")

    def __init__(self) -> None:
        self.used = False
        self.kernels = False  # a `meta_kernels` op's forward runs on meta arrays


META = MetaState()


class MetaArray(np.ndarray):
    """A shape and a dtype with no values (see the module's docstring)."""

    torch_strides: tuple[int, ...] | None = None

    def __array_finalize__(self, obj: Any) -> None:
        self.torch_strides = None  # a numpy view of a meta array: contiguous until told

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.pop("out", None)
        if method == "at":
            return None
        samples = [_sample(x) for x in inputs]
        kw = {k: v for k, v in kwargs.items() if k not in ("axis", "keepdims", "initial",
                                                           "where")}
        with np.errstate(all="ignore"):
            if method == "__call__":
                result = ufunc(*samples, **kw)
                shape = np.broadcast_shapes(*(np.shape(x) for x in inputs))
                if ufunc.signature is not None:  # matmul: (n?,k),(k,m?)->(n?,m?)
                    return _meta_like(_matmul_shape(inputs), result, out)
                strides = elementwise_strides(shape, inputs)
                if isinstance(result, tuple):
                    return tuple(_meta_like(shape, r, o, strides) for r, o in
                                 zip(result, out or (None,) * len(result), strict=True))
                return _meta_like(shape, result, out, strides)
            if method == "reduce":
                result = ufunc.reduce(samples[0].reshape(1), **kw)
                return _meta_like(_reduced_shape(np.shape(inputs[0]), kwargs.get("axis", 0),
                                                 kwargs.get("keepdims", False)), result, out)
            if method == "accumulate":
                result = ufunc.accumulate(samples[0].reshape(1), **kw)
                return _meta_like(np.shape(inputs[0]), result, out)
            if method == "outer":
                result = ufunc(*samples, **kw)
                return _meta_like(np.shape(inputs[0]) + np.shape(inputs[1]), result, out)
        raise NotSupportedError(f"numpy.{ufunc.__name__}.{method} on a meta tensor")

    def __array_function__(self, func: Callable, types: Any, args: Any, kwargs: Any) -> Any:
        rule = _FUNCTIONS.get(func.__name__)
        if rule is not None:
            return rule(*args, **kwargs)
        big = _largest(args, kwargs)
        from .limits import LIMITS

        if big > LIMITS.max_elements:
            raise NotSupportedError(
                f"numpy.{func.__name__} on a meta tensor of {big:,} elements: this op cannot "
                "tell its result's shape without computing it")
        plain = _unmeta(args), _unmeta(kwargs)
        with np.errstate(all="ignore"):
            return _remeta(func(*plain[0], **plain[1]))

    def __setitem__(self, key: Any, value: Any) -> None:
        return None  # no data to write

    def fill(self, value: Any) -> None:
        return None

    def copy(self, order: str = "C") -> MetaArray:  # type: ignore[override]
        return meta_array(self.shape, self.dtype)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> MetaArray:  # type: ignore
        return meta_array(self.shape, np.dtype(dtype), self.torch_strides)

    def flatten(self, order: str = "C") -> MetaArray:  # type: ignore[override]
        return meta_array((self.size,), self.dtype)

    def tolist(self) -> Any:
        raise ScriptError(NO_DATA, kind="NotImplementedError")

    @property
    def ctypes(self) -> Any:  # type: ignore[override]
        """No native code gets the address of a meta array's one element."""
        raise NotSupportedError("a meta tensor has no data for this kernel to read")

    def item(self, *args: Any) -> Any:
        raise TorchRuntimeError(NO_ITEM)

    def __reduce__(self) -> Any:
        raise TorchRuntimeError(NO_DATA)


def meta_array(shape: tuple[int, ...], dtype: Any,
               strides: tuple[int, ...] | None = None) -> MetaArray:
    """A MetaArray of `shape` (any size: it owns one element), `strides` in elements."""
    META.used = True
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    one = _BUFFERS.get(dtype)
    if one is None:
        one = _BUFFERS[dtype] = np.zeros(1, dtype)
        one.flags.writeable = False  # (nothing writes into a meta array's element)
        _BUFFER_IDS.add(id(one))
    array = np.ndarray.__new__(MetaArray, shape, dtype, buffer=one,
                               strides=(0,) * len(shape))
    array.torch_strides = None if strides is None else tuple(int(s) for s in strides)
    return array


# the one element every meta array of a dtype stands on: a plain numpy view of a meta
# array (np.asarray of one) is known by it
_BUFFERS: dict[np.dtype, np.ndarray] = {}
_BUFFER_IDS: set[int] = set()


def is_meta(array: Any) -> bool:
    return isinstance(array, MetaArray)


def stands_on_meta(array: Any) -> bool:
    """A meta array, or a plain numpy view of one (np.asarray of a MetaArray)."""
    return isinstance(array, MetaArray) or (
        isinstance(array, np.ndarray) and array.base is not None
        and id(array.base) in _BUFFER_IDS)


def reduced_result(array: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> MetaArray:
    """A reduction kernel's result on a meta array (all dims when `axes` is empty)."""
    return meta_array(_reduced_shape(array.shape, tuple(axes) or None, keepdim), array.dtype)


def elementwise_result(arrays: list[np.ndarray], fn: Callable[..., Any]) -> MetaArray:
    """An elementwise kernel's result on meta arrays: the broadcast shape, and the dtype
    `fn` gives one element of each input's dtype (nothing is computed per element)."""
    with np.errstate(all="ignore"):
        sample = np.asarray(fn(*(np.zeros(1, a.dtype) for a in arrays)))
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return meta_array(shape, sample.dtype, elementwise_strides(shape, tuple(arrays)))


def _sample(x: Any) -> Any:
    """A 0-d value of x's dtype: what the ufunc's result dtype is found from."""
    if isinstance(x, np.ndarray):
        return np.zeros((), x.dtype)
    return x


def _meta_like(shape: tuple[int, ...], result: Any, out: Any,
               strides: tuple[int, ...] | None = None) -> Any:
    if out is not None:
        return out[0] if isinstance(out, tuple) and len(out) == 1 else out
    return meta_array(shape, np.asarray(result).dtype, strides)


def elementwise_strides(shape: tuple[int, ...], inputs: tuple) -> tuple[int, ...]:
    """An elementwise op's output layout, as TensorIterator lays it out from its inputs':
    inputs all of its shape and channels-last take its fast setup (a channels-last output,
    a size-1 dim's stride included), else their strides order its dims."""
    if len(shape) == 4 and inputs and all(
            isinstance(x, np.ndarray) and x.shape == shape and not is_c_contiguous(x)
            for x in inputs):  # (a Python number is an operand of another shape)
        from .layouts import CHANNELS_LAST, format_strides, is_contiguous_as

        if all(is_contiguous_as(x, CHANNELS_LAST) for x in inputs):
            return format_strides(shape, CHANNELS_LAST)
    operands = []
    for x in inputs:
        if isinstance(x, np.ndarray) and x.ndim:
            strides = strides_of(x) if type(x) is MetaArray else \
                tuple(s // x.itemsize for s in x.strides)
            lead = len(shape) - x.ndim
            operands.append((0,) * lead + tuple(
                0 if n == 1 and shape[lead + i] != 1 else s
                for i, (n, s) in enumerate(zip(x.shape, strides, strict=True))))
    return dense_strides_like(shape, *operands)


def _reduced_shape(shape: tuple[int, ...], axis: Any, keepdims: bool) -> tuple[int, ...]:
    ndim = len(shape)
    axes = range(ndim) if axis is None else \
        [a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))]
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _matmul_shape(inputs: tuple) -> tuple[int, ...]:
    a, b = (np.shape(x) for x in inputs)
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(a) == 1:
        return b[:-2] + b[-1:]
    if len(b) == 1:
        return a[:-1]
    batch = np.broadcast_shapes(a[:-2], b[:-2])
    return batch + (a[-2], b[-1])


def _largest(*values: Any) -> int:
    size = 0
    for v in values:
        if isinstance(v, np.ndarray):
            size = max(size, v.size)
        elif isinstance(v, (list, tuple)):
            size = max(size, _largest(*v))
        elif isinstance(v, dict):
            size = max(size, _largest(*v.values()))
    return size


def _unmeta(value: Any) -> Any:
    if isinstance(value, MetaArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_unmeta(v) for v in value)
    if isinstance(value, dict):
        return {k: _unmeta(v) for k, v in value.items()}
    return value


def _remeta(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return meta_array(value.shape, value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_remeta(v) for v in value)
    return value


def _like(a: Any, dtype: Any = None, order: str = "K", subok: bool = True,
          shape: Any = None, **kw: Any) -> MetaArray:
    return meta_array(np.shape(a) if shape is None else shape,
                      np.asarray(a).dtype if dtype is None else dtype)


def _full_like(a: Any, fill_value: Any, dtype: Any = None, *args: Any, **kw: Any) -> MetaArray:
    return _like(a, dtype)


def _copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """No values to write (a plain buffer an op fills from a meta array becomes a meta
    array with the op's output)."""
    return None


def _broadcast_to(array: Any, shape: Any, subok: bool = False) -> MetaArray:
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    np.broadcast_shapes(np.shape(array), shape)
    return meta_array(shape, np.asarray(array).dtype)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "zeros_like": _like, "ones_like": _like, "empty_like": _like, "full_like": _full_like,
    "copyto": _copyto, "broadcast_to": _broadcast_to,
    "shape": lambda a: a.shape, "ndim": lambda a: a.ndim, "size": lambda a, axis=None:
        a.size if axis is None else a.shape[axis],
    "result_type": lambda *arrays: np.result_type(*_unmeta(arrays)),
    "can_cast": lambda a, *args, **kw: np.can_cast(_unmeta(a), *args, **kw),
    "iscomplexobj": lambda a: np.iscomplexobj(_unmeta(a)),
    "isrealobj": lambda a: np.isrealobj(_unmeta(a)),
    "may_share_memory": lambda *args, **kw: False,
    "shares_memory": lambda *args, **kw: False,
}


def base_link(view: Any) -> Any:
    """The object `view`'s memory comes from, or None: an ndarray's `.base`, past the
    holder numpy's as_strided puts between its result and the array it views (a
    `DummyArray` whose `.base` is that array), so every view of an array chains to it."""
    base = getattr(view, "base", None)
    if base is not None and not isinstance(base, np.ndarray) and \
            isinstance(getattr(base, "base", None), np.ndarray) and \
            hasattr(base, "__array_interface__"):
        return base.base
    return base


def memory_owner(array: np.ndarray) -> np.ndarray:
    """The array at the end of `array`'s base chain (`base_link`): the one whose memory
    it is, which a tensor's storage stands for."""
    while isinstance(base := base_link(array), np.ndarray):
        array = base
    return array


def is_c_contiguous(array: np.ndarray) -> bool:
    """`array.flags.c_contiguous` as torch's is_contiguous answers it, for a meta array
    from the strides it reports. (A MetaArray's own numpy flags stay honest, non-contiguous
    zero strides, so no native kernel ever takes its one element for a dense buffer.)"""
    if type(array) is MetaArray:
        shape = array.shape
        return _dense(shape, strides_of(array), reversed(range(len(shape))))
    return bool(array.flags.c_contiguous)


def _dense(shape: tuple[int, ...], strides: tuple[int, ...], order: Any) -> bool:
    expected = 1
    for d in order:
        if shape[d] != 1 and strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def strides_of(array: MetaArray) -> tuple[int, ...]:
    """The strides torch reports for a meta tensor (contiguous unless an op said else)."""
    strides = array.torch_strides
    if strides is None or len(strides) != array.ndim:
        return contiguous_strides(array.shape)
    return strides


# -- devices -----------------------------------------------------------------------------

def device_name(t: Any) -> str:
    return "meta" if isinstance(t.array, MetaArray) else "cpu"


def check_devices(tensors: Any) -> bool:
    """torch's device check of an op's tensor inputs: all on one device, except that a
    0-d CPU tensor (a wrapped number too) goes with any. True when that device is meta."""
    expected = None
    for t in tensors:
        if t is None:
            continue
        if isinstance(t.array, MetaArray):
            if expected is None:
                expected = "meta"
            elif expected != "meta":
                raise TorchRuntimeError(
                    f"Tensor on device meta is not on the expected device {expected}!")
        elif t.array.ndim:
            if expected is None:
                expected = "cpu"
            elif expected != "cpu":
                raise TorchRuntimeError(
                    f"Tensor on device cpu is not on the expected device {expected}!")
    return expected == "meta"


def to_meta(array: Any) -> MetaArray:
    """An op's output as a meta array: a stand-in's strides are kept."""
    if isinstance(array, MetaArray):
        return array
    array = np.asarray(array)
    if array.base is not None and id(array.base) in _BUFFER_IDS:
        return recover_meta(array)  # a plain view of a meta array: its strides say nothing
    from .ops.views import torch_strides

    return meta_array(array.shape, array.dtype, torch_strides(array))


def recover_meta(array: np.ndarray) -> np.ndarray:
    """A plain numpy view of a meta array (np.asarray of one, in a fast path that skips
    `Function.call`) is a meta array again: the values it shows are none."""
    if id(array.base) in _BUFFER_IDS and array.base is _BUFFERS.get(array.base.dtype):
        return meta_array(array.shape, array.dtype)
    return array


def _span(array: MetaArray) -> int:
    return 1 + sum((n - 1) * s for n, s in zip(array.shape, strides_of(array), strict=True)) \
        if array.size else 0


def _probe(array: MetaArray) -> np.ndarray:
    """Zeros laid out as the meta array: its shape, its strides."""
    itemsize = array.dtype.itemsize
    storage = np.zeros(max(_span(array), 1), array.dtype)
    return np.lib.stride_tricks.as_strided(
        storage, array.shape, tuple(s * itemsize for s in strides_of(array)))


class MetaWindow(np.ndarray):
    """A meta tensor's shape and strides over one element, for a view op's forward to lay
    out anew (`meta_layout_only`). Its views are windows too (numpy keeps the subclass);
    reading one past that element would read memory that is not there, so an op that
    copies a view it made asks `is_window` first."""


def is_window(array: Any) -> bool:
    return type(array) is MetaWindow


def _window(array: MetaArray) -> MetaWindow:
    one = _WINDOW_BUFFERS.get(array.dtype)
    if one is None:
        one = _WINDOW_BUFFERS[array.dtype] = np.zeros(1, array.dtype)
    itemsize = array.dtype.itemsize
    return np.lib.stride_tricks.as_strided(
        one, array.shape, tuple(s * itemsize for s in strides_of(array)),
        writeable=False).view(MetaWindow)


# (not _BUFFERS: a view of a window is an op's output with its own strides, while a plain
# view of a meta array's element says nothing of them)
_WINDOW_BUFFERS: dict[np.dtype, np.ndarray] = {}


def _forward_on(node: Any, inputs: tuple, params: dict, metas: list,
                stand_in: Callable[[MetaArray], np.ndarray]) -> Any:
    """The forward with each meta input's array replaced by `stand_in(array)` meanwhile."""
    saved = [(t, t.array) for t in metas]
    try:
        for t, array in saved:
            t.array = stand_in(array)
        return node.forward(*inputs, **params)
    finally:
        for t, array in saved:
            t.array = array


def run_forward(node: Any, inputs: tuple, params: dict) -> Any:
    """`node.forward(*inputs, **params)` for an op with a meta input (see the module's
    docstring): its output(s) as meta arrays."""
    metas = [t for t in inputs if t is not None and isinstance(t.array, MetaArray)]
    if getattr(node, "meta_forward", None) is not None:
        data = node.meta_forward(*inputs, **params)
    elif type(node).meta_kernels and metas:
        # its forward checks and saves, then calls kernels that answer meta arrays with
        # meta arrays (blas): its size reservations are for results never made
        META.kernels = True
        try:
            data = node.forward(*inputs, **params)
        finally:
            META.kernels = False
    elif all(t.array.size <= PROBE_ELEMENTS and _span(t.array) <= PROBE_ELEMENTS
             for t in metas):
        data = _forward_on(node, inputs, params, metas, _probe)
    elif type(node).meta_layout_only:
        data = _forward_on(node, inputs, params, metas, _window)
    else:
        data = node.forward(*inputs, **params)
    if type(node).multi_output:
        return [to_meta(a) for a in data]
    return to_meta(data)
