"""Helpers shared by the op families: operand promotion and in-place application."""
from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import TorchRuntimeError, TorchTypeError
from .. import bfloat16, dtypes, no_grad_views, view_creation
from .. import complex as complex_dtypes
from ..dtypes import DType
from ..events import OBSERVERS, emit
from ..grad_mode import GRAD_MODE
from ..limits import reserve
from ..meta import MetaArray, memory_owner, strides_of
from ..node import Function, SavedTensor
from ..pointwise import iterator_layout
from ..shapes import broadcast_shapes
from ..tensor import Tensor, as_tensor_operand, bump_version, move_retains_grad, type_name

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation.")


def number_argument(value: Any, op: str, name: str, position: int) -> Any:
    """A Scalar parameter as torch's argument parser takes it: a number as it is, a 0-dim
    tensor that requires no grad as its item (a float32 0.2 is 0.20000000298023224, an
    int64 tensor an int); anything else, a one-element 1-d tensor too, its TypeError."""
    if isinstance(value, (bool, int, float, complex, np.number)):
        return value
    if isinstance(value, Tensor) and value.array.ndim == 0 and not value.requires_grad:
        return value.item()
    raise TorchTypeError(f"{op}(): argument '{name}' (position {position}) must be Number, "
                         f"not {type_name(value)}")


def result_dtype(*ts: Tensor) -> DType:
    """torch.result_type over tensors, wrapped Python numbers ranking lowest."""
    tensors = []
    scalars = []
    for t in ts:
        if t._wrapped:
            scalars.append(t.array.item())
        else:
            tensors.append((t.dtype, t.array.ndim))
    return dtypes.result_type(tensors, scalars)


def binary_operands(a: Any, b: Any) -> tuple[Tensor, Tensor, DType]:
    """Both operands as tensors plus their common dtype; checks that they broadcast."""
    ta = as_tensor_operand(a)
    tb = as_tensor_operand(b)
    return ta, tb, common_dtype(ta, tb)


def common_dtype(a: Tensor, b: Tensor) -> DType:
    """The dtype torch computes `a op b` in; checks that they broadcast."""
    if b._wrapped:
        if not a._wrapped and b.dtype.category <= a.dtype.category:
            return a.dtype  # a Python number never widens a tensor of its kind
    elif a._wrapped:
        if a.dtype.category <= b.dtype.category:
            return b.dtype
    else:
        if a.array.shape != b.array.shape:
            reserve(broadcast_shapes(a.array.shape, b.array.shape), 8)
        if a.dtype is b.dtype:
            return a.dtype
    return result_dtype(a, b)


def binary_apply(ufunc: np.ufunc, a: Tensor, b: Tensor, dtype: DType) -> np.ndarray:
    """`ufunc(a, b)` computed in `dtype`, like torch's TensorIterator."""
    # (a wrapped number is a Python number for numpy, but a uint64 one, which numpy cannot
    # take as a number, is cast with C's wrap-around as torch casts it; so is a Python int
    # computed in a barebones unsigned dtype, which numpy refuses past its range: `u16 *
    # 70000`, `u16 * -1`; two wrapped numbers, `torch.add(0.1, 0.2)`, are each cast to
    # `dtype` first; and a Python int past an integer dtype's range, which numpy refuses
    # and torch wraps: `int8 + 300` adds 44)
    plain = not (a._wrapped and b._wrapped) and not dtype.barebones
    x = a.array.item() if a._wrapped and a.dtype is not _UINT64 and plain and \
        _fits(a, dtype) else (a.array if a.dtype is dtype else cast(a.array, dtype))
    y = b.array.item() if b._wrapped and b.dtype is not _UINT64 and plain and \
        _fits(b, dtype) else (b.array if b.dtype is dtype else cast(b.array, dtype))
    if (dtype is _BF16 or dtype is _F16) and not b.array.ndim and ufunc in _OPMATH_SCALAR:
        y = b.array.item()  # torch's mul/div read a 0-dim second operand as a float32
    return values_apply(ufunc, x, y, dtype)


def _fits(number: Tensor, dtype: DType) -> bool:
    """Whether a wrapped number is within `dtype`'s range (always, unless an int and an
    integer dtype)."""
    if dtype.np.kind not in "iu" or number.dtype.np.kind not in "iu":
        return True
    info = np.iinfo(dtype.np)
    return info.min <= number.array.item() <= info.max


def number_apply(ufunc: np.ufunc, a: Tensor, number: float) -> np.ndarray:
    """`binary_apply(ufunc, a, wrap_number(number), a.dtype)` for a floating-point `a` and
    a Python float (which never widens it), without the number's tensor."""
    return values_apply(ufunc, a.array, number, a.dtype)


def values_apply(ufunc: np.ufunc, x: Any, y: Any, dtype: DType) -> np.ndarray:
    """`ufunc(x, y)` as a `dtype` array; x and y are arrays in `dtype` or Python numbers."""
    if dtype.is_complex:
        return _complex_apply(ufunc, x, y, dtype)
    if dtype is _BF16:  # (in float32, rounded once: torch's opmath)
        return _iterator_laid(bfloat16.arithmetic(ufunc, x, y), x, y)
    if dtype is _F16 and ufunc in _OPMATH_SCALAR and type(y) is not np.ndarray and \
            type(x) is np.ndarray:
        # a float16 tensor times or over a number (its second operand): torch's reduced-
        # float kernels read the number as a float32 (not rounded to float16 first), compute
        # in float32 and round once (x * 0.1 differs from numpy's float16 in 19,896 of the
        # 63,490 finite values, measured)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return ufunc(x.astype(np.float32), np.float32(y)).astype(np.float16)
    if type(x) is np.ndarray and not x.ndim and dtype in _SCALAR_MATH:
        operator_ = _SCALAR_OPERATORS.get(ufunc)
        if operator_ is not None and (type(y) is not np.ndarray or not y.ndim):
            # 0-d operands: numpy's scalar arithmetic rounds exactly as the ufunc does
            # (a Python number is converted to `dtype` first either way), in a third of
            # the time, which is most of what a graph of scalars costs.
            out = np.array(operator_(x[()], y[()] if type(y) is np.ndarray else y))
            if out.dtype == dtype.np:
                return out
    out = ufunc(x, y)
    if type(out) is not np.ndarray or out.dtype != dtype.np:
        # (a meta result keeps its layout: np.asarray would make it a plain view)
        out = out.astype(dtype.np) if type(out) is MetaArray else np.asarray(out, dtype.np)
    return _iterator_laid(out, x, y)


def _iterator_laid(out: np.ndarray, x: Any, y: Any) -> np.ndarray:
    """`out` of a binary op on x and y laid out as TensorIterator lays it out (numpy's ufunc
    lets a row-major operand win where torch follows the first one: `x.T + y` in bfloat16 as
    in float32). A Python number is the wrapped scalar operand torch's TensorIterator has."""
    return iterator_layout(out, x, y) if type(x) is np.ndarray or type(y) is np.ndarray \
        else out


_UINT64 = dtypes.uint64
_BF16 = dtypes.bfloat16
_F16 = dtypes.float16
_OPMATH_SCALAR = frozenset({np.multiply, np.true_divide})
_SCALAR_MATH = frozenset({dtypes.float32, dtypes.float64})
_SCALAR_OPERATORS = {np.add: operator.add, np.subtract: operator.sub,
                     np.multiply: operator.mul, np.true_divide: operator.truediv}


def _complex_apply(ufunc: np.ufunc, x: Any, y: Any, dtype: DType) -> np.ndarray:
    """+ - * / in a complex dtype, as torch's kernels round them (engine/complex.py)."""
    x = x if type(x) is np.ndarray else np.asarray(x, dtype.np)
    y = y if type(y) is np.ndarray else np.asarray(y, dtype.np)
    if ufunc is np.multiply:
        return complex_dtypes.multiply(x, y)
    if ufunc is np.add:
        return complex_dtypes.add(x, y)
    if ufunc is np.subtract:
        return complex_dtypes.add(x, y, -1)
    if ufunc is np.true_divide:
        return complex_dtypes.divide(x, y)
    raise complex_dtypes.refuse(f"{ufunc.__name__} on torch.{dtype.name}")


def cast(array: np.ndarray, dtype: DType) -> np.ndarray:
    if array.dtype == dtype.np:
        return array
    if array.dtype.kind == "c" and not dtype.is_complex:
        return complex_dtypes.to_real(array, dtype)
    if dtype is _BF16 or dtypes.is_bfloat16(array.dtype):  # through float32, as torch does
        return bfloat16.cast(array, dtype.np)
    return array.astype(dtype.np)


def float_dtype(dtype: DType) -> DType:
    """The dtype of a floating op (exp, sqrt, /) on `dtype`: ints become the default float."""
    return dtype if dtype.is_floating_point or dtype.is_complex else dtypes.DEFAULT_FLOAT


def not_implemented(kernel: str, dtype: DType) -> Exception:
    """torch's NotImplementedError for a kernel without a `dtype` version."""
    from ...errors import ScriptError

    return ScriptError(f"\"{kernel}\" not implemented for '{dtype.scalar_type}'",
                       kind="NotImplementedError")


def not_differentiable(name: str, argument: str, t: Tensor | None) -> None:
    """VariableType's check_no_requires_grad: an argument the op has no derivative for
    (a loss's `weight` or `pos_weight`, a margin loss's target, batch norm's
    running statistics) refused while grad mode records,
    before the kernel's own checks."""
    if t is not None and t.requires_grad and GRAD_MODE.enabled:
        raise TorchRuntimeError(
            f"The function '{name}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True.")


def no_derivative(what: str) -> Exception:
    """torch's NotImplementedError from the backward of a node derivatives.yaml gives no
    formula (`not_implemented("what")`)."""
    from ...errors import ScriptError

    return ScriptError(f"the derivative for '{what}' is not implemented.",
                       kind="NotImplementedError")


def check_inplace(self: Tensor) -> None:
    """torch's checks before an in-place op on `self`."""
    if GRAD_MODE.enabled and self._base is not None:
        no_grad_views.check_inplace(self)
    if GRAD_MODE.enabled and self.requires_grad:
        if self.grad_fn is None:
            if self._base is not None:
                raise TorchRuntimeError(VIEW_OF_LEAF_INPLACE)
            raise TorchRuntimeError(LEAF_INPLACE)
        if self._base is not None:
            _check_view_output(self)
    if self._base is not None and GRAD_MODE.enabled:
        base = self._base
        if base.requires_grad and base.grad_fn is None:
            raise TorchRuntimeError(VIEW_OF_LEAF_INPLACE)


def _check_view_output(view_: Tensor) -> None:
    """torch's handle_view_on_rebase: views that a multi-output op or a custom Function
    returned must not be modified in place."""
    node = view_.grad_fn
    custom = getattr(node, "num_diff_outputs", None)  # a custom Function's node
    if custom is None and not getattr(node, "multi_output", False):
        meta = view_creation.inherited(view_)  # a view of such a view (torch propagates)
        if meta is None:
            return
        custom = meta[1] if meta[0] == "custom" else None
    name = re.sub(r"Backward\d*$", "", node.name())
    prefix = f"Output {view_.output_nr} of {name} is a view and is being modified inplace. "
    if custom is None or custom > 1:
        raise TorchRuntimeError(
            prefix + "This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should "
            "replace the inplace operation by an out-of-place one.")
    raise TorchRuntimeError(
        prefix + "This view was created inside a custom Function (or because an input was "
        "returned as-is) and the autograd logic to handle view+inplace would override the "
        "custom backward associated with the custom Function, leading to incorrect gradients. "
        "This behavior is forbidden. You can fix this by cloning the output of the custom "
        "Function.")


def _save_original_self(node: Function, source: Tensor) -> None:
    """torch saves `self.clone()` (CloneBackward0) as an in-place op's `_saved_self`."""
    saved = node.saved.get("self") if node.saved else None
    if saved is not None and not saved.is_output and saved.packed is None:  # hooks packed it
        from .clones import clone

        node.saved["self"] = SavedTensor(clone(source), is_output=False)


def _same_layout_copy(array: np.ndarray) -> np.ndarray:
    """A copy with the very strides of `array` (over new memory as long as they reach): an
    op run on the copy iterates as on the original, so a strided chunk's sigmoid_ takes
    ATen's scalar loop row by row, as torch's in-place kernel does on the chunk itself."""
    if array.flags.c_contiguous or any(s < 0 for s in array.strides) or not array.size:
        return array.copy()
    item = array.itemsize
    span = 1 + sum((n - 1) * (s // item) for n, s in zip(array.shape, array.strides))
    out = np.lib.stride_tricks.as_strided(np.empty(span, array.dtype), array.shape,
                                          array.strides)
    out[...] = array
    return out


INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.")


def internal_overlap(array: np.ndarray) -> bool:
    """at::has_internal_overlap's certain case: a dim of size > 1 with stride 0 (a meta
    array's numpy strides are all 0: its own are the ones torch reports)."""
    if 0 not in array.strides or array.size == 0:  # (an empty tensor is dense)
        return False
    strides = strides_of(array) if type(array) is MetaArray else array.strides
    return any(n > 1 and st == 0 for n, st in zip(array.shape, strides, strict=True))


def writable(array: np.ndarray) -> np.ndarray:
    """`array`, or when numpy refuses writes into it, an array over the very same memory
    that takes them: an expand (and every view of one) is read-only by construction, as
    nothing in the engine may add into its shared elements, and the writes torch does
    make into them (zero_, fill_, a view's own write) go through this window."""
    if array.flags.writeable or type(array) is not np.ndarray:
        return array
    owner = memory_owner(array)
    if not owner.flags.writeable or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return array  # memory nothing may write (numpy's refusal stands)
    flat = owner.reshape(-1, order="A")
    offset = array.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    return np.ndarray(array.shape, array.dtype, buffer=flat, offset=offset,
                      strides=array.strides)


def write_every(inputs: tuple, params: dict[str, Any]
                ) -> Callable[[np.ndarray, np.ndarray], None]:
    """The overlap_write of a kernel that writes one value into every element (zero_,
    fill_ with a number): torch runs it into shared memory, which ends holding that value."""
    return lambda window, out: np.copyto(window, out, casting="unsafe")


def write_where(mask: np.ndarray) -> Callable[[np.ndarray, np.ndarray], None]:
    """A writer of the elements `mask` (or an index key) picks, in their order: memory an
    expand shares ends holding the last value written into it, as torch's serial loop
    leaves it (`out` at a picked position holds the last value put there)."""
    def write(window: np.ndarray, out: np.ndarray) -> None:
        window[mask] = out[mask]
    return write


def apply_inplace(op: type[Function], self: Tensor, *others: Any, **params: Any) -> Tensor:
    """Run `op` out of place, write the result into `self`, bump its version, rebase history.

    The node saves a snapshot of `self` as it was (torch's `original_self`), so
    backward is unaffected by the write itself. A `self` whose elements share memory (an
    expand) takes only the writes of the kernels torch runs into it (`op.overlap_write`).
    """
    check_inplace(self)
    writer = None
    if type(self.array) is np.ndarray and internal_overlap(self.array):  # (meta: no check)
        if op.overlap_write is None:  # TensorIterator's in-place ops refuse it
            raise TorchRuntimeError(INTERNAL_OVERLAP)
        writer = op.overlap_write((self, *others), params)
    recording = GRAD_MODE.enabled and (
        self.requires_grad or any(isinstance(o, Tensor) and o.requires_grad for o in others))
    if recording:
        source = Tensor._wrap(_same_layout_copy(self.array))
        source.requires_grad = self.requires_grad
        source.grad_fn = self.grad_fn
        source.output_nr = self.output_nr
        source._accumulator = self._accumulator
        source._fw_grad = self._fw_grad  # the tangent of the value before the write
    else:
        source = self
    if self.dtype.is_complex:  # (torch's kernels round an aliased output differently)
        with complex_dtypes.into_operand():
            out = op.call(source, *others, **params)
    else:
        out = op.call(source, *others, **params)
    if recording and out.grad_fn is not None:
        _save_original_self(out.grad_fn, source)
    if not dtypes.can_cast(out.dtype, self.dtype):
        raise TorchRuntimeError(
            f"result type {out.dtype.scalar_type} can't be cast to the desired output type "
            f"{self.dtype.scalar_type}")
    if out.array.shape != self.array.shape and op.structured_inplace:
        raise TorchRuntimeError(
            f"Bad in-place call: input tensor size [{', '.join(map(str, self.array.shape))}] "
            f"and output tensor size [{', '.join(map(str, out.array.shape))}] should match")
    if out.array.shape != self.array.shape:
        raise TorchRuntimeError(
            f"output with shape [{', '.join(map(str, self.array.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, out.array.shape))}]")
    if writer is not None and type(self.array) is np.ndarray:
        writer(writable(self.array), out.array)
    else:  # (a view of an expand is read-only too: a window writes its memory)
        dest = self.array if self._base is None else writable(self.array)
        np.copyto(dest, out.array, casting="unsafe")
    bump_version(self)
    if out._fw_grad is not None:
        from ..forward_ad import inplace_tangent

        inplace_tangent(self, out)
    node = out.grad_fn
    if node is not None:
        from .view_inplace import rebase_view, refresh_views

        if self._base is not None:
            rebase_view(self, node)
        else:
            old_fn, old_nr = self.grad_fn, self.output_nr
            self.grad_fn = node
            self.requires_grad = True
            self.output_nr = 0
            move_retains_grad(self, old_fn, old_nr)
        refresh_views(self)  # other views of the same base get their new history
        for saved in (node.saved or {}).values():
            if saved is not None and saved.is_output:
                saved.tensor = self.detach()
                saved.version = self._version_counter.value
    elif self.requires_grad:
        from .view_inplace import refresh_views_untracked

        refresh_views_untracked(self)
    if OBSERVERS:
        emit("inplace", tensor=self, version=self._version_counter.value, node=node,
             name=op.__name__)
    return self

