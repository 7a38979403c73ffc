"""The Tensor: a numpy array plus torch's autograd metadata."""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import TorchRuntimeError, TorchTypeError, TorchValueError
from . import conj_bit, dtypes, no_grad_views
from .device import CPU, META, Device
from .dtypes import DType
from .events import OBSERVERS, emit
from .forward_ad import tangent_of
from .grad_mode import GRAD_MODE
from .jit import JIT as _JIT
from .limits import LIMITS as _LIMITS
from .limits import admit
from .meta import META as _META
from .meta import NO_ITEM, MetaArray, recover_meta
from .node import AccumulateGrad, Node
from .saved_hooks import MUTATION_WATCHERS

ONLY_FLOAT_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
NONLEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)


INFERENCE_VERSION = "Inference tensors do not track version counter."
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")


class VersionCounter:
    """Shared by a tensor, its views and its detach()es; bumped by every in-place op."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class InferenceVersion(VersionCounter):
    """The counter of an inference tensor (made in `torch.inference_mode()`): torch keeps
    none, so `_version` raises; views and detach()es share it, hence are inference tensors
    too. (The engine still counts, for its own bookkeeping.)"""

    __slots__ = ()


def _traced_value(what: str) -> None:
    """torch.jit.trace cannot record a tensor turned into a Python value: torch bakes the
    value into the graph with a TracerWarning; gradtrace refuses."""
    from ..errors import NotSupportedError

    raise NotSupportedError(f"converting a tensor to {what} while torch.jit.trace runs the "
                            "function (torch records the value as a constant, with a "
                            "TracerWarning) is not supported by gradtrace")


def bump_version(t: Tensor) -> None:
    """Count an in-place write into `t` and tell the watchers of writes. torch checks an
    inference tensor here, after the write (the values have changed when its error is
    raised)."""
    if conj_bit.STORED:
        conj_bit.after_write(t)
    counter = t._version_counter
    counter.value += 1
    for watch in MUTATION_WATCHERS:
        watch(t, counter.value - 1)
    if type(counter) is InferenceVersion and not GRAD_MODE.inference:
        raise TorchRuntimeError(INFERENCE_INPLACE)


def new_counter() -> VersionCounter:
    """A fresh tensor's counter: an inference tensor's inside inference mode."""
    return InferenceVersion() if GRAD_MODE.inference else VersionCounter()


SCALAR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/"
    "csrc/autograd/generated/python_variable_methods.cpp:822.)")


class Tensor:
    """A torch-like tensor. `array` is the numpy data; everything else is autograd state."""

    __slots__ = (
        "array", "dtype", "requires_grad", "grad", "grad_fn", "output_nr", "_version_counter",
        "_base", "retains_grad", "_hooks", "_post_accumulate_hooks", "_accumulator", "_wrapped",
        "_fw_grad", "pyclass", "__weakref__",
    )
    has_storage = True  # (a BatchedTensor has none of its own: functorch's BatchedTensorImpl)

    def __init__(self, array: Any, dtype: DType | None = None, requires_grad: bool = False):
        if type(array) is MetaArray:
            array = array if dtype is None or array.dtype == dtype.np else array.astype(dtype.np)
        else:
            array = np.asarray(array, dtype=None if dtype is None else dtype.np)
        self.array = array
        self.dtype = dtypes.from_numpy(array.dtype)
        self.requires_grad = False
        self.grad: Tensor | None = None
        self.grad_fn: Node | None = None
        self.output_nr = 0
        self._version_counter = new_counter()
        self._base: Tensor | None = None
        self.retains_grad = False
        self._hooks: list[Callable] | None = None
        self._post_accumulate_hooks: list[Callable] | None = None
        self._accumulator: weakref.ref | None = None
        self._wrapped = False
        self._fw_grad: Any = None  # the tangent at the forward-AD level (engine/forward_ad.py)
        # a script's subclass of torch.Tensor this tensor is an instance of (None: a plain
        # tensor). Opaque to the engine: only its `name` is read, which prints in place of
        # `tensor` (interpreter/tensor_subclasses.py does the rest)
        self.pyclass: Any = None
        admit(self, array)
        if requires_grad:
            if not (self.dtype.is_floating_point or self.dtype.is_complex):
                raise TorchRuntimeError(ONLY_FLOAT_GRAD)
            self.requires_grad = True

    @classmethod
    def _wrap(cls, array: Any) -> Tensor:
        """Fast constructor for op results: no checks, fresh metadata."""
        return wrap(array)

    @classmethod
    def scalar(cls, value: bool | int | float) -> Tensor:
        """A Python number as torch wraps it for an op: float64/int64/bool, lowest priority."""
        return wrap_number(value)

    # -- attributes ---------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        return self._version_counter.value

    @property
    def is_view(self) -> bool:
        return self._base is not None

    def size(self, dim: int | None = None) -> Any:
        from .shapes import Size, wrap_dim

        if dim is None:
            return Size(self.array.shape)
        return self.array.shape[wrap_dim(dim, self.array.ndim)]

    def dim(self) -> int:
        return self.array.ndim

    def numel(self) -> int:
        return int(self.array.size)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        return self.dtype.itemsize

    # -- .data, detach, requires_grad ----------------------------------------

    @property
    def data(self) -> Tensor:
        """Same storage, no autograd history, and its own version counter (unlike detach);
        a conj view's keeps the conjugate bit."""
        return conj_bit.alias(self, Tensor._wrap(self.array))

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TorchTypeError(f"Variable data has to be a tensor, but got {type_name(other)}")
        if self.requires_grad and other.dtype is dtypes.bfloat16:  # (Module.to(torch.bfloat16))
            from .bfloat16 import refuse_autograd

            refuse_autograd()
        self.array = other.array
        self.dtype = other.dtype
        if conj_bit.STORED:
            conj_bit.take_bit(self, other)
        if OBSERVERS:
            emit("data_write", tensor=self)

    def detach(self) -> Tensor:
        """A new leaf sharing storage and version counter (in-place changes are seen), and
        not a view even of a view (torch 2.13: `v.detach()._base` is None), so an in-place
        change of it is no view's in-place change (allowed on a view of a leaf)."""
        t = conj_bit.alias(self, Tensor._wrap(self.array))
        t._version_counter = self._version_counter
        return t

    def detach_copy(self) -> Tensor:
        """A detached tensor with its own copy of the data."""
        return Tensor._wrap(self.array.copy())

    def detach_(self) -> Tensor:
        if self._base is not None and self.grad_fn is not None:
            raise TorchRuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the Optimizer."
                "zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self.requires_grad = False
        self.output_nr = 0
        return self

    def is_inference(self) -> bool:
        return type(self._version_counter) is InferenceVersion

    def script_version(self) -> int:
        """`t._version` as a script reads it (inference tensors have none)."""
        if type(self._version_counter) is InferenceVersion:
            raise TorchRuntimeError(INFERENCE_VERSION)
        return self._version_counter.value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and self.is_inference() and not GRAD_MODE.inference:
            raise TorchRuntimeError(INFERENCE_REQUIRES_GRAD)
        if self.grad_fn is not None:
            if not requires_grad:
                raise TorchRuntimeError(NONLEAF_REQUIRES_GRAD)
            return self
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise TorchRuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.dtype is dtypes.bfloat16:
            from .bfloat16 import refuse_autograd

            refuse_autograd()
        self.requires_grad = bool(requires_grad)
        return self

    def set_requires_grad(self, value: Any) -> None:
        """`t.requires_grad = value` from a script."""
        if not isinstance(value, bool):
            raise TorchTypeError(
                f"requires_grad must be a bool, but got {type_name(value)}")
        if self.grad_fn is not None:
            raise TorchRuntimeError(NONLEAF_REQUIRES_GRAD)
        self.requires_grad_(value)

    def set_grad(self, value: Tensor | None) -> None:
        """`t.grad = value`: None, or a tensor of the same shape (torch's checks)."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TorchTypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type_name(value)}")
            if value.dtype is not self.dtype:
                from .dtypes import C_TYPE_NAMES

                raise TorchRuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{C_TYPE_NAMES.get(value.dtype.name, value.dtype.name)}' to a tensor with "
                    f"grad_dtype '{self.dtype.scalar_type}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
            if value.shape != self.shape:
                got, want = ", ".join(map(str, value.shape)), ", ".join(map(str, self.shape))
                raise TorchRuntimeError(
                    f"attempting to assign a gradient of size '[{got}]' to a tensor of size "
                    f"'[{want}]'. Please ensure that the gradient and the tensor are the same size")
        self.grad = value

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise TorchRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self.retains_grad:
            return
        self.retains_grad = True
        node = self.grad_fn
        if node.retains_grad_hooks is None:
            node.retains_grad_hooks = {}
        node.retains_grad_hooks[self.output_nr] = weakref.ref(self)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """Call `hook(grad)` when this tensor's gradient is computed; a return value replaces it."""
        if not self.requires_grad:
            raise TorchRuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            node = self.grad_fn
            if node.tensor_pre_hooks is None:
                node.tensor_pre_hooks = {}
            hooks = node.tensor_pre_hooks.setdefault(self.output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        """Call `hook(tensor)` after a backward has accumulated into this leaf's `.grad`."""
        if not self.requires_grad:
            raise TorchRuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise TorchRuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        self._post_accumulate_hooks.append(hook)
        return RemovableHandle(self._post_accumulate_hooks, hook)

    # -- values ---------------------------------------------------------------

    def item(self) -> bool | int | float:
        if _JIT.tracing:
            _traced_value("item()")
        if self.array.size != 1:
            raise TorchRuntimeError(
                f"a Tensor with {self.array.size} elements cannot be converted to Scalar")
        if type(self.array) is MetaArray:
            raise TorchRuntimeError(NO_ITEM)
        return self.array.reshape(()).item()

    def tolist(self) -> Any:
        if _JIT.tracing:
            _traced_value("tolist()")
        return self.array.tolist()  # (a meta tensor's raises torch's "no data")

    @property
    def is_meta(self) -> bool:
        return type(self.array) is MetaArray

    def __len__(self) -> int:
        if _JIT.tracing:
            _traced_value("len()")
        if self.array.ndim == 0:
            raise TorchTypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __bool__(self) -> bool:
        if _JIT.tracing:
            _traced_value("a Python boolean")
        if self.array.size != 1:
            raise TorchRuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous")
        if type(self.array) is MetaArray:
            raise TorchRuntimeError(NO_ITEM)
        return bool(self.array.reshape(()))

    def _python_scalar(self, what: str) -> np.generic:
        """The one element `float()` and `complex()` read, after torch's checks (both warn
        once for a tensor that requires grad, before the size check)."""
        if _JIT.tracing:
            _traced_value(f"a Python {what}")
        if self.requires_grad and GRAD_MODE.enabled:  # TORCH_WARN_ONCE
            from .ops.creation import WARNINGS, OnceWarning

            WARNINGS.append(OnceWarning(f"UserWarning: {SCALAR_WARNING}", "float"))
        if self.array.size != 1:
            raise TorchValueError("only one element tensors can be converted to Python scalars")
        if type(self.array) is MetaArray:
            raise TorchRuntimeError(NO_ITEM)
        return self.array.reshape(())[()]

    def __float__(self) -> float:
        return float(self._python_scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._python_scalar("complex"))

    def __int__(self) -> int:
        if _JIT.tracing:
            _traced_value("a Python integer")
        if self.array.size != 1:
            raise TorchValueError("only one element tensors can be converted to Python scalars")
        if type(self.array) is MetaArray:
            raise TorchRuntimeError(NO_ITEM)
        return _as_int64(self)

    def __index__(self) -> int:
        if _JIT.tracing:
            _traced_value("a Python index")
        if self.dtype.is_floating_point or self.array.size != 1:
            raise TorchTypeError(
                "only integer tensors of a single element can be converted to an index")
        if type(self.array) is MetaArray:
            raise TorchRuntimeError(NO_ITEM)
        return _as_int64(self)

    def __format__(self, spec: str) -> str:
        if self.array.ndim == 0 and not self.is_parameter and type(self.array) is not MetaArray \
                and self.pyclass is None:
            # torch: `self.dim() == 0 and not self.is_meta and type(self) is Tensor`
            return format(self.item(), spec)
        if spec:  # torch falls back to object.__format__
            shown = "Tensor" if self.pyclass is None else self.pyclass.name
            raise TorchTypeError(f"unsupported format string passed to {shown}.__format__")
        return repr(self)

    def __repr__(self) -> str:
        from .tensor_str import tensor_repr

        # torch prints the class name: <CopySlices>, not its name() torch::autograd::CopySlices
        grad_fn = type(self.grad_fn).__name__ if self.grad_fn is not None else None
        if self._base is not None and no_grad_views.invalid(self):
            grad_fn = "Invalid"  # (what torch shows when reading grad_fn would raise)
        tangent = tangent_of(self)
        if type(self.array) is MetaArray:
            from .tensor_str import meta_repr

            return meta_repr(self.array.shape, self.dtype, grad_fn=grad_fn,
                             requires_grad=self.requires_grad and grad_fn is None)
        return tensor_repr(self.array, self.dtype, grad_fn=grad_fn,
                           requires_grad=self.requires_grad and grad_fn is None,
                           tangent=None if tangent is None else repr(tangent),
                           prefix="tensor(" if self.pyclass is None else
                           self.pyclass.name + "(")

    __str__ = __repr__

    # -- autograd -------------------------------------------------------------

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        from .backward import backward

        backward([self], None if gradient is None else [gradient], retain_graph, create_graph,
                 inputs=inputs)

    # -- operators (the ops live in engine/ops; these are Python's spellings) --

    # + - * / and unary - are the ops themselves, attached in ops/__init__.py: every
    # operator on a tensor, the engine's own backward formulas included, runs one Python
    # frame fewer than through a method that forwards its arguments.

    def __pow__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.rpow(self, other)

    def __matmul__(self, other: Any) -> Tensor:
        return ops.matmul(self, other)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return ops.abs(self)

    def __invert__(self) -> Tensor:
        return ops.bitwise_not(self)

    def __floordiv__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.floor_divide(Tensor.scalar(other), self)

    def __mod__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.remainder(other, self)

    def __and__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.bitwise_and(self, other)

    __rand__ = __and__

    def __or__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.bitwise_or(self, other)

    __ror__ = __or__

    def __xor__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.bitwise_xor(self, other)

    __rxor__ = __xor__

    # torch's comparison and operator dunders turn the TypeError of an operand they cannot
    # take (None, a str, a list) into NotImplemented (TypeError_to_NotImplemented_), so
    # Python decides: `t == None` is False, `t != None` True, `t < None` Python's TypeError

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return ops.ge(self, other)

    def __iadd__(self, other: Any) -> Tensor:
        return ops.add_(self, other)

    def __isub__(self, other: Any) -> Tensor:
        return ops.sub_(self, other)

    def __imul__(self, other: Any) -> Tensor:
        return ops.mul_(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return ops.div_(self, other)

    def __ipow__(self, other: Any) -> Tensor:
        return ops.pow_(self, other)

    def __lshift__(self, other: Any) -> Tensor:
        return ops.bitwise_left_shift(self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return ops.bitwise_left_shift(other, self)

    def __rshift__(self, other: Any) -> Tensor:
        return ops.bitwise_right_shift(self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return ops.bitwise_right_shift(other, self)

    def __getitem__(self, index: Any) -> Tensor:
        return ops.getitem(self, index)

    def __iter__(self) -> Any:
        if self.array.ndim == 0:
            raise TorchTypeError("iteration over a 0-d tensor")
        return iter(ops.unbind(self, 0))

    def __reversed__(self) -> Tensor:
        """torch's: `reversed(x)` is x flipped along dim 0 (a 0-d tensor is itself), not
        Python's reversed iterator over its rows."""
        return self if self.array.ndim == 0 else ops.TENSOR_METHODS["flip"](self, 0)

    def __contains__(self, element: Any) -> bool:
        return bool((self == element).array.any())

    __hash__ = object.__hash__

    is_parameter = False
    """True for an `nn.Parameter` (the class test the language's isinstance/type use)."""

    is_sparse_layout = False
    """True for a torch.sparse_coo tensor (engine/sparse.py)."""

    @property
    def device(self) -> Device:
        return META if type(self.array) is MetaArray else CPU


class Parameter(Tensor):
    """torch.nn.Parameter: a leaf that requires grad by default and prints as
    `Parameter containing:` + the tensor. It shares storage and version counter with the
    tensor it wraps (torch's `_make_subclass` of `data.detach()`); every op on it returns a
    plain Tensor, and so do `.data`, `.detach()` and `.clone()`."""

    __slots__ = ()
    is_parameter = True

    def __init__(self, data: Any = None, requires_grad: bool = True):
        if data is None:
            data = Tensor(np.empty(0, dtype=dtypes.DEFAULT_FLOAT.np))
        if not isinstance(data, Tensor):  # Parameter.__new__'s custom-tensor path calls
            from ..errors import ScriptError  # data.detach(): Python's AttributeError

            raise ScriptError(f"'{type_name(data)}' object has no attribute 'detach'",
                              kind="AttributeError")
        source = data.detach()
        for name in Tensor.__slots__:
            if name != "__weakref__":
                setattr(self, name, getattr(source, name))
        if requires_grad:
            check_float_for_grad(self.dtype)
            if self.dtype is dtypes.bfloat16:
                from .bfloat16 import refuse_autograd

                refuse_autograd()
            self.requires_grad = True

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


Parameter.__module__ = "torch.nn.parameter"  # repr(type(p)): <class 'torch.nn.parameter...'>

def _as_int64(t: Tensor) -> int:
    """int(t) / t.__index__(): torch reads the value as an int64 (a uint64 past it raises)."""
    value = int(t.array.reshape(()))
    if value > dtypes.INT64_MAX:
        raise TorchRuntimeError("value cannot be converted to type int64_t without overflow")
    return value


_BY_NP = dtypes._BY_NP
_new_tensor = _new_counter = object.__new__


def wrap(array: Any) -> Tensor:
    """A new tensor around `array` (an op's result): fresh metadata, nothing checked."""
    if type(array) is not np.ndarray and type(array) is not MetaArray:
        array = np.asarray(array)
    if _META.used and array.base is not None and type(array) is np.ndarray:
        array = recover_meta(array)
    t = _new_tensor(Tensor)
    t.array = array
    t.dtype = _BY_NP[array.dtype]
    t.requires_grad = False
    t.grad = None
    t.grad_fn = None
    t.output_nr = 0
    if GRAD_MODE.inference:
        t._version_counter = InferenceVersion()
    else:
        counter = _new_counter(VersionCounter)  # VersionCounter() without its __init__ call
        counter.value = 0
        t._version_counter = counter
    t._base = None
    t.retains_grad = False
    t._hooks = None
    t._post_accumulate_hooks = None
    t._accumulator = None
    t._wrapped = False
    t._fw_grad = None
    t.pyclass = None
    if array.size >= _LIMITS.admit_from:
        admit(t, array)
    return t


def wrap_number(value: bool | int | float) -> Tensor:
    """`Tensor.scalar` without the class-method call: every `tensor op number` makes one."""
    # bool, int64 (uint64 from 2**63 on), float64: as torch does; past uint64 either way,
    # Python's OverflowError
    t = wrap(np.array(dtypes.scalar_argument(value)))
    t._wrapped = True
    return t


def gradient_edge(t: Tensor) -> tuple[Node | None, int]:
    """Where a gradient for `t` goes: its grad_fn, or its AccumulateGrad if it is a leaf."""
    if t.grad_fn is not None:
        return (t.grad_fn, t.output_nr)
    if not t.requires_grad:
        return (None, 0)
    if t._base is not None and no_grad_views.mode_of(t) is not None:
        no_grad_views.check_usable(t)
        return (None, 0)  # a view made with grad mode off takes no gradient
    acc = t._accumulator() if t._accumulator is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accumulator = weakref.ref(acc)
    return (acc, 0)


class RemovableHandle:
    """What register_hook returns: `.remove()` unregisters the hook."""

    __slots__ = ("hooks", "hook")
    __module__ = "torch.utils.hooks"  # torch's: the handle's repr
    # the library class a module hook's handle is (lib/torch/utils/hooks.gt): the one class
    # torch has, which isinstance takes this one for
    SCRIPT_CLASS = ("torch.utils.hooks", "RemovableHandle")

    def __init__(self, hooks: list, hook: Callable):
        self.hooks = hooks
        self.hook = hook

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()  # (`with t.register_hook(h):` keeps the hook for the block only)



def move_retains_grad(t: Tensor, old_fn: Node | None, old_nr: int) -> None:
    """torch's update_tensor_hooks_on_new_gradfn: when an in-place op (or a view's
    regenerated history) gives `t` a new grad_fn, its retain_grad moves there, so `.grad`
    is the gradient of the tensor's latest value; hooks registered before stay with the old
    node."""
    if not t.retains_grad or old_fn is None or old_fn is t.grad_fn:
        return
    if old_fn.retains_grad_hooks:
        old_fn.retains_grad_hooks.pop(old_nr, None)
    node = t.grad_fn
    if node.retains_grad_hooks is None:
        node.retains_grad_hooks = {}
    node.retains_grad_hooks[t.output_nr] = weakref.ref(t)


# the language's names for the values it makes ('function', never 'UserFunction'): set
# by the interpreter, which the engine does not import
SCRIPT_TYPE_NAME: list[Callable[[Any], str]] = []


def type_name(value: Any) -> str:
    """The Python type name a script would see for a value."""
    if isinstance(value, Tensor):
        return "Tensor"
    if value is None:
        return "NoneType"
    if SCRIPT_TYPE_NAME:
        return SCRIPT_TYPE_NAME[0](value)
    return type(value).__name__


# what a tensor operator takes as its other operand (anything else: NotImplemented); a
# numpy scalar goes to the op too, whose refusal is the engine's (numpy's reflected
# operator would make an object array of tensors)
OPERAND_TYPES = (Tensor, bool, int, float, complex, np.generic)


def as_tensor_operand(value: Any) -> Tensor:
    """A tensor op's operand: tensors pass through, Python numbers become wrapped scalars."""
    if type(value) is float:  # the commonest number operand, checked first
        return wrap_number(value)
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, complex)):
        return wrap_number(value)
    raise TorchTypeError(f"unsupported operand type: '{type_name(value)}'")


def check_float_for_grad(dtype: DType) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        raise TorchRuntimeError(ONLY_FLOAT_GRAD)


# ops attach Tensor's methods and operators (+ - * / are the ops themselves, one frame
# fewer per operator); importing them here makes `import tensor` enough, whichever of
# the two modules is imported first
from . import ops  # noqa: E402,F401

__all__ = [
    "Tensor", "Parameter", "VersionCounter", "gradient_edge", "RemovableHandle", "TorchValueError",
]


def _bitwise_inplace(name: str) -> Callable[[Tensor, Any], Tensor]:
    """`t &= m`: torch's in-place bitwise op (Tensor.bitwise_and_), found when first used."""
    def op(self: Tensor, other: Any) -> Tensor:
        return ops.TENSOR_METHODS[name](self, other)

    op.__name__ = name
    return op


for _dunder, _method in (("__iand__", "bitwise_and_"), ("__ior__", "bitwise_or_"),
                         ("__ixor__", "bitwise_xor_"), ("__ilshift__", "bitwise_left_shift_"),
                         ("__irshift__", "bitwise_right_shift_")):
    setattr(Tensor, _dunder, _bitwise_inplace(_method))
