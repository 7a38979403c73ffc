"""Everything a script can reach: builtins, the torch namespaces, and per-type attribute tables.

Nothing here is looked up with `getattr` on a name taken from the script: each
type has an explicit table of the attributes and methods the language supports.
"""
from __future__ import annotations
import __future__

import collections
import functools
import json
import pathlib
from collections.abc import Callable
from typing import Any

from .bytes_methods import BYTES_TYPE_METHODS, STR_CODEC_METHODS
from .engine import anomaly, api, dtypes, layouts, ndarray, no_grad_views, ops
from .engine import sparse as sparse_ops
from .engine.anomaly import detect_anomaly, set_detect_anomaly
from .engine.batching import call
from .engine.custom_function import CTX_METHODS, CTX_PROPERTIES, FunctionCtx
from .engine.device import CPU, Device
from .engine.dtypes import DType, TypeInfo, finfo, iinfo
from .engine.generator import Generator
from .engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .engine.node import AccumulateGrad, Node
from .engine.ops import sampling, tensor_info
from .engine.ops.views import tensor_strides
from .engine.profiler import record_function
from .engine.saved_hooks import RawSavedTensor, disable_saved_tensors_hooks, saved_tensors_hooks
from .engine.shapes import Size, wrap_dim
from .engine.sparse import SparseTensor
from .engine.storage import data_ptr, storage, untyped_storage
from .engine.tensor import RemovableHandle, Tensor
from .errors import (
    EXCEPTION_NAMES,
    EXCEPTION_PARENTS,
    NOT_BUILTIN_EXCEPTIONS,
    GradtraceError,
    NotSupportedError,
    ScriptError,
)
from .tensor_types import ScriptType

NONLEAF_GRAD_WARNING = (
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
    "Its .grad attribute won't be populated during autograd.backward(). If you indeed want the "
    ".grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
    "Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)

# Variable's `volatile` flag is gone (torch 0.4): reading it warns and gives False, setting it
# warns and changes nothing (THPVariable_get_volatile / THPVariable_set_volatile)
VOLATILE_READ_WARNING = "UserWarning: volatile was removed (Variable.volatile is always False)"
VOLATILE_SET_WARNING = ("UserWarning: volatile was removed and now has no effect. Use "
                        "`with torch.no_grad():` instead.")

# Underscore names torch documents and scripts may use; every other `_name` is refused.
PUBLIC_UNDERSCORE = ("_version", "_saved_", "_raw_saved_", "_base", "_is_view")


class FutureFeature:
    """A `__future__` name (`print_function`): Python 3 already behaves so; it prints as
    Python's `_Feature` does."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return repr(getattr(__future__, self.name))


# How CPython 3.11 (the recording machine's build) shows the importable modules it reads
# from no file: built into the interpreter, or frozen in it (`os.path` is posixpath)
NO_FILE_MODULES = {"sys": "'sys' (built-in)", "itertools": "'itertools' (built-in)",
                   "time": "'time' (built-in)", "os": "'os' (frozen)", "abc": "'abc' (frozen)",
                   "io": "'io' (frozen)", "os.path": "'posixpath' (frozen)"}


class Namespace:
    """A module-like object (`torch`, `torch.nn.functional`) backed by a name table.

    A table entry may be a `LibraryName`: a name a bundled library module defines, loaded
    on first use (see `interpreter/library.py`)."""

    __slots__ = ("name", "table")

    def __init__(self, name: str, table: dict[str, Any]):
        self.name = name
        self.table = table

    def __repr__(self) -> str:
        """Python's module repr; one read from a file (torch's, numpy's, most of the standard
        library's) names the file, `from '/.../site-packages/torch/nn/__init__.py'`: that
        path is the machine's, which a script does not learn, so it is left out."""
        return f"<module {NO_FILE_MODULES.get(self.name, repr(self.name))}>"


class LibraryName:
    """A namespace entry defined by a bundled `.gt` library module (`module`, `name`)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module = module
        self.name = name


class Intrinsic:
    """A Python function that only bundled library code may call (never a script): the
    interpreter passes itself as the first argument."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Callable[..., Any]):
        self.name = name
        self.fn = fn

    def __repr__(self) -> str:
        return f"<gradtrace intrinsic {self.name}>"


class ExceptionType:
    """A Python exception class as scripts see it: callable, and usable in `except`."""

    __slots__ = ("kind",)
    module = "builtins"

    def __init__(self, kind: str):
        self.kind = kind

    @property
    def name(self) -> str:
        return EXCEPTION_NAMES.get(self.kind, self.kind)

    def __call__(self, *args: Any) -> ScriptError:
        if len(args) == 1:  # a KeyError shows its key as repr, as Python's does
            message = repr(args[0]) if self.kind == "KeyError" else str(args[0])
        else:
            message = "" if not args else str(args)
        error = ScriptError(message, kind=self.kind)
        error.script_args = args  # type: ignore[attr-defined]  # its `.args` (and repr)
        if self.kind == "SystemExit":  # `raise SystemExit(2)` ends the run with status 2
            error.code = args[0] if len(args) == 1 else (args or None)  # type: ignore[attr-defined]
        elif self.kind == "StopIteration" and args:  # its `.value`
            error.value = args[0]  # type: ignore[attr-defined]
        return error

    def __repr__(self) -> str:
        return f"<class '{self.kind}'>"


TORCH_EXCEPTION_TYPES: dict[str, ExceptionType] = {}
"""torch's exception classes by kind: what `type(error)` gives for one raised."""


class TorchExceptionType(ExceptionType):
    """One of torch's exception classes, which prints with its module
    (torch.linalg.LinAlgError is `<class 'torch._C._LinAlgError'>`)."""

    __slots__ = ("module",)

    def __init__(self, kind: str, module: str):
        super().__init__(kind)
        self.module = module
        TORCH_EXCEPTION_TYPES[kind] = self

    def __repr__(self) -> str:
        return f"<class '{self.module}.{self.kind}'>"


class BoundMethod:
    """`obj.method` as a value: calling it calls `fn(obj, ...)`. `python` is torch's
    (__name__, __qualname__, __module__) of a method torch writes in Python
    (`t.backward`, a bound `method`), None for a C one (a `builtin_function_or_method`, or
    with `wrapper` a type slot's `method-wrapper`: `x.__getitem__`, `(3).__add__`)."""

    __slots__ = ("obj", "fn", "name", "python", "wrapper")

    def __init__(self, obj: Any, fn: Callable[..., Any], name: str,
                 python: tuple[str, str, str] | None = None, wrapper: bool = False):
        self.obj = obj
        self.fn = fn
        self.name = name
        self.python = python
        self.wrapper = wrapper

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(self.obj, *args, **kwargs)

    def __repr__(self) -> str:
        if self.python is not None:
            return f"<bound method {self.python[1]} of {self.obj!r}>"
        owner = owner_name(self.obj)
        kind = "method-wrapper '" + self.name + "'" if self.wrapper \
            else f"built-in method {self.name}"
        return f"<{kind} of {owner} object at {id(self.obj):#x}>"


def owner_name(obj: Any) -> str:
    if isinstance(obj, Tensor):
        return "Tensor"
    if isinstance(obj, Node):
        return obj.name().rsplit("::", 1)[-1]
    if type(obj) is Generator:  # a C type's full name
        return "torch._C.Generator"
    if isinstance(obj, ScriptType):  # a class (torch.Tensor, torch.Size), not a function
        return f"type object '{obj.name}'"
    if type(obj).__module__.startswith("gradtrace."):  # the script's name, never ours
        from .interpreter.objects import type_name

        return type_name(obj)
    return type(obj).__name__


# ---------------------------------------------------------------- attribute tables


def _grad_fn(t: Tensor) -> Any:
    """t.grad_fn, which raises for a view made with grad mode off once it was modified."""
    if t._base is not None:
        no_grad_views.check_usable(t)
    return t.grad_fn


def _volatile(t: Tensor, ctx: Any) -> bool:
    ctx.warn(VOLATILE_READ_WARNING)
    return False


def _set_volatile(t: Tensor, value: Any) -> None:
    from .engine.ops.creation import WARNINGS

    WARNINGS.append(VOLATILE_SET_WARNING)


def _tensor_grad(t: Tensor, ctx: Any) -> Any:
    if t.grad_fn is not None and not t.retains_grad:
        ctx.warn(NONLEAF_GRAD_WARNING)
    return t.grad


# (through the batching rules: a BatchedTensor converts its value, as torch's to() under vmap)
def _float(t: Tensor) -> Tensor:
    return call(ops.to, t, api.DTYPES["float32"])


def _double(t: Tensor) -> Tensor:
    return call(ops.to, t, api.DTYPES["float64"])


def _long(t: Tensor) -> Tensor:
    return call(ops.to, t, api.DTYPES["int64"])


def _int(t: Tensor) -> Tensor:
    return call(ops.to, t, api.DTYPES["int32"])


def _bool(t: Tensor) -> Tensor:
    return call(ops.to, t, api.DTYPES["bool"])


def _type(t: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """Tensor.type(): the legacy type name (`torch.FloatTensor`), or the tensor converted to
    a dtype given as a dtype, a legacy class or its name (the tensor itself if it has it);
    `torch.Tensor` (the class or "torch.Tensor") is the default tensor type, torch's
    `torch.from_numpy(x).type(torch.Tensor)` that makes float64 data float32."""
    from .tensor_types import TensorType

    if dtype is None:
        return f"torch.{t.dtype.tensor_type}"
    if isinstance(dtype, str):
        found = dtypes.get_default_dtype() if dtype == "torch.Tensor" else \
            next((d for d in api.DTYPES.values() if f"torch.{d.tensor_type}" == dtype), None)
        if found is None:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = found
    elif isinstance(dtype, TensorType) and dtype.dtype is None:
        dtype = dtypes.get_default_dtype()
    elif not isinstance(dtype, DType):
        dtype = getattr(dtype, "dtype", None)  # a legacy class: torch.LongTensor
        if not isinstance(dtype, DType):
            raise TypeError("dtype must be a type, str, or dtype object")
    return ops.to(t, dtype)


def _is_contiguous(t: Tensor, memory_format: Any = None) -> bool:
    from .engine.layouts import is_contiguous_as

    return is_contiguous_as(t.array, memory_format)


def _is_view(t: Tensor) -> bool:
    """Tensor._is_view(): whether `t` is a view autograd tracks, the tensors whose `_base` is
    set (torch's THPVariable_get_base answers from the same is_view())."""
    return t._base is not None


def _is_pinned(t: Tensor, device: Any = None) -> bool:
    """Tensor.is_pinned(): False, a CPU tensor's memory is never pinned (pin_memory needs an
    accelerator torch does not have here); torch's deprecated `device` argument, which it
    answers with a DeprecationWarning, is refused."""
    if device is not None:
        raise NotSupportedError("Tensor.is_pinned's deprecated `device` argument is not "
                                "supported by gradtrace")
    return False


def _stride(t: Tensor, dim: Any = None) -> Any:
    strides = tensor_strides(t)
    if dim is None:
        return strides
    return strides[wrap_dim(dim, t.array.ndim)] if t.array.ndim else 1


DEVICE_ATTRIBUTES: dict[str, Callable[[Device, Any], Any]] = {
    "type": lambda d, ctx: d.type,
    "index": lambda d, ctx: d.index,
}


def _property_getter(fn: Callable[[Tensor], Any]) -> Callable[[Tensor, Any], Any]:
    from .engine.batching import call  # (x.T of a BatchedTensor goes through its rules)

    return lambda t, ctx: call(fn, t)


# attribute name -> getter(obj, ctx)
TENSOR_ATTRIBUTES: dict[str, Callable[[Tensor, Any], Any]] = {
    "grad": _tensor_grad,
    "grad_fn": lambda t, ctx: _grad_fn(t),
    "requires_grad": lambda t, ctx: t.requires_grad,
    "is_leaf": lambda t, ctx: t.is_leaf,
    "data": lambda t, ctx: t.data,
    "shape": lambda t, ctx: Size(t.shape),
    "dtype": lambda t, ctx: t.dtype,
    "ndim": lambda t, ctx: t.ndim,
    "_version": lambda t, ctx: t.script_version(),
    "_base": lambda t, ctx: t._base,
    "retains_grad": lambda t, ctx: t.retains_grad,
    "volatile": _volatile,
    "output_nr": lambda t, ctx: t.output_nr,
    "is_cuda": lambda t, ctx: False,
    "is_meta": lambda t, ctx: t.is_meta,
    "is_cpu": lambda t, ctx: not t.is_meta,
    "layout": lambda t, ctx: layouts.SPARSE_COO if type(t) is SparseTensor
    else layouts.STRIDED,
    "is_sparse": lambda t, ctx: type(t) is SparseTensor,
    "device": lambda t, ctx: t.device,
    "nbytes": lambda t, ctx: tensor_info.nbytes(t),
    "itemsize": lambda t, ctx: tensor_info.itemsize(t),
    **{name: _property_getter(fn) for name, fn in ops.TENSOR_PROPERTIES.items()},
}

TENSOR_METHODS: dict[str, Callable[..., Any]] = {
    **ops.TENSOR_METHODS,
    "backward": Tensor.backward, "detach": Tensor.detach, "detach_": Tensor.detach_,
    "requires_grad_": Tensor.requires_grad_, "retain_grad": Tensor.retain_grad,
    "register_hook": Tensor.register_hook,
    "register_post_accumulate_grad_hook": Tensor.register_post_accumulate_grad_hook,
    "item": Tensor.item, "tolist": Tensor.tolist,
    "size": Tensor.size, "dim": Tensor.dim, "numel": Tensor.numel, "nelement": Tensor.numel,
    "is_floating_point": Tensor.is_floating_point, "element_size": Tensor.element_size,
    "is_inference": Tensor.is_inference,
    "float": _float, "double": _double, "long": _long, "int": _int, "bool": _bool,
    "type": _type, "is_contiguous": _is_contiguous, "stride": _stride, "is_pinned": _is_pinned,
    "_is_view": _is_view,
    "byte": tensor_info.byte, "char": tensor_info.char, "short": tensor_info.short,
    "half": tensor_info.half, "bfloat16": tensor_info.bfloat16,
    "ndimension": tensor_info.ndimension,
    "storage_offset": tensor_info.storage_offset, "is_complex": tensor_info.is_complex,
    "is_signed": tensor_info.is_signed, "is_nonzero": tensor_info.is_nonzero,
    "is_same_size": tensor_info.is_same_size, "sum_to_size": tensor_info.sum_to_size,
    "numpy": ndarray.tensor_numpy,
    "untyped_storage": untyped_storage, "data_ptr": data_ptr, "storage": storage,
    **sparse_ops.DENSE_METHODS,
}

TENSOR_LIBRARY_METHODS: dict[str, LibraryName] = {
    "resize": LibraryName("torch._tensor", "resize"),
    **{name: LibraryName("torch._tensor", name) for name in ("solve", "lstsq", "eig", "symeig")},
}
"""Tensor methods torch writes in Python (torch/_tensor.py), run as that Python: a script's
`t.resize(2, 3)` calls the library function with `t` first."""

TENSOR_SETTERS: dict[str, Callable[[Tensor, Any], None]] = {
    "grad": Tensor.set_grad,
    "requires_grad": Tensor.set_requires_grad,
    "data": lambda t, v: setattr(t, "data", v),
    "volatile": _set_volatile,
}

NOT_SUPPORTED_METHODS: dict[str, str] = {}
"""Tensor methods torch has that gradtrace refuses, with why (none today)."""


NODE_ATTRIBUTES: dict[str, Callable[[Node, Any], Any]] = {
    "next_functions": lambda n, ctx: n.next_functions,
    "metadata": lambda n, ctx: anomaly.metadata(n),
}

NODE_METHODS: dict[str, Callable[..., Any]] = {
    "name": lambda node: node.name(),
    "register_hook": Node.register_hook,
    "register_prehook": Node.register_prehook,
}


def node_saved(node: Node, name: str) -> Any:
    """`grad_fn._saved_<key>`: a saved tensor (checked like torch) or a saved value."""
    key = name[len("_saved_"):]
    if node.attrs and key in node.attrs:
        if key in node.saved_lists:
            node.check_saved_lists()
        return _saved_value(node.attrs[key])
    if node.saved and key in node.saved:  # unpack raises torch's error once freed
        return node.unpack(key, always_reattach=True)
    raise ScriptError(f"'{node.name()}' object has no attribute '{name}'", kind="AttributeError")


def node_raw_saved(node: Node, name: str) -> RawSavedTensor:
    """`grad_fn._raw_saved_<key>`: the SavedTensor object of saved tensor `key` (torch has
    none for saved values; a saved list of tensors has a tuple of them, not modelled)."""
    key = name[len("_raw_saved_"):]
    if node.saved and key in node.saved:
        return RawSavedTensor(node, key)
    if key in node.saved_lists and node.attrs and key in node.attrs:
        raise NotSupportedError(f"'{name}' (the SavedTensor objects of a saved list of "
                                "tensors) is not supported")
    raise ScriptError(f"'{node.name()}' object has no attribute '{name}'", kind="AttributeError")


# dir() of torch's C++ autograd nodes, measured on torch 2.13: these for every node, then
# `_saved_<key>` for each saved value and also `_raw_saved_<key>` for each saved tensor or
# list of tensors; AccumulateGrad adds `variable`
NODE_DIR = (
    "__call__", "__class__", "__delattr__", "__dir__", "__doc__", "__eq__", "__format__",
    "__ge__", "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__",
    "__init_subclass__", "__le__", "__lt__", "__ne__", "__new__", "__reduce__",
    "__reduce_ex__", "__repr__", "__setattr__", "__sizeof__", "__str__", "__subclasshook__",
    "_input_metadata", "_register_hook_dict", "_sequence_nr", "_set_sequence_nr",
    "metadata", "name", "next_functions", "register_hook", "register_prehook",
    "requires_grad")
# dir() of a custom Function's node (torch.autograd.function.BackwardCFunction, measured);
# its own class adds `_autograd_function_id` and `_forward_cls`, its ctx what the script
# stored on it
CUSTOM_NODE_DIR = (
    "__class__", "__delattr__", "__dict__", "__dir__", "__doc__", "__eq__", "__format__",
    "__ge__", "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__",
    "__init_subclass__", "__le__", "__lt__", "__module__", "__ne__", "__new__", "__reduce__",
    "__reduce_ex__", "__repr__", "__setattr__", "__sizeof__", "__str__", "__subclasshook__",
    "__weakref__", "_compiled_autograd_backward_state", "_compiled_autograd_key",
    "_get_compiled_autograd_symints", "_get_user_fn", "_input_metadata", "_is_pure_view",
    "_materialize_non_diff_grads", "_raw_saved_tensors", "_register_hook",
    "_register_hook_dict", "_sequence_nr", "_set_sequence_nr", "apply", "apply_boxed",
    "apply_jvp", "dirty_tensors", "mark_dirty", "mark_non_differentiable",
    "mark_shared_storage", "materialize_grads", "maybe_clear_saved_tensors", "metadata",
    "name", "needs_input_grad", "next_functions", "non_differentiable", "register_hook",
    "register_prehook", "requires_grad", "save_for_backward", "save_for_forward",
    "saved_for_forward", "saved_tensors", "saved_variables", "set_materialize_grads",
    "to_save", "_autograd_function_id", "_forward_cls")


def node_dir(node: Node) -> list[str]:
    """dir(grad_fn): the names torch lists for the node, sorted as dir() sorts them
    (torchviz's `show_saved` walks them for the `_saved_` ones)."""
    if isinstance(node, FunctionCtx):
        return sorted({*CUSTOM_NODE_DIR, *(node.user_attrs or ())})
    names = set(NODE_DIR)
    if isinstance(node, AccumulateGrad):
        names.add("variable")
    for key in node.saved or ():
        names.update((node.saved_attribute(key), f"_raw_saved_{key}"))
    for key in node.attrs or ():
        names.add(node.saved_attribute(key))
        if key in node.saved_lists:
            names.add(f"_raw_saved_{key}")
    return sorted(names)


RAW_SAVED_METHODS: dict[str, Callable[..., Any]] = {
    "register_hooks": RawSavedTensor.register_hooks}


def _saved_value(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(value)
    return value


def ctx_attribute(ctx: FunctionCtx, name: str) -> Any:
    """An attribute of a custom Function's ctx (its grad_fn): torch's properties, what the
    script stored on it, then the ctx and node methods; dunders are refused."""
    if name.startswith("__"):
        raise not_supported_attribute(ctx, name)
    stored = ctx.user_attrs is not None and name in ctx.user_attrs
    if name in CTX_PROPERTIES or stored:
        return ctx.get_attribute(name)
    method = CTX_METHODS.get(name) or NODE_METHODS.get(name)
    if method is not None:
        return BoundMethod(ctx, method, name)
    if is_private(name):
        raise not_supported_attribute(ctx, name)
    return ctx.get_attribute(name)  # torch's AttributeError (or "not readable")


def set_ctx_attribute(ctx: FunctionCtx, name: str, value: Any) -> None:
    """`ctx.name = value`: any name but a dunder (what the script stores lives in a dict)."""
    if name.startswith("__"):
        raise not_supported_attribute(ctx, name)
    ctx.set_attribute(name, value)


DTYPE_ATTRIBUTES: dict[str, Callable[[DType, Any], Any]] = {
    "is_floating_point": lambda d, ctx: d.is_floating_point,
    "itemsize": lambda d, ctx: d.itemsize,
    "is_signed": lambda d, ctx: d.is_signed,
    "is_complex": lambda d, ctx: d.is_complex,
    "to_complex": lambda d, ctx: BoundMethod(d, dtypes.to_complex, "to_complex"),
    "to_real": lambda d, ctx: BoundMethod(d, dtypes.to_real, "to_real"),
}

# torch.finfo / torch.iinfo: the attributes they have, their slots (all plain values)
TYPE_INFO_ATTRIBUTES: dict[type, frozenset[str]] = {
    cls: frozenset(TypeInfo.__slots__ + cls.__slots__) for cls in (finfo, iinfo)}

SIZE_METHODS: dict[str, Callable[..., Any]] = {"numel": Size.numel, "count": tuple.count,
                                               "index": tuple.index}

# int's and float's methods and attributes (bool's are int's); Python 3.11's, which has no
# int.is_integer
INT_METHODS: dict[str, Callable[..., Any]] = {
    "bit_length": int.bit_length, "bit_count": int.bit_count, "conjugate": int.conjugate,
    "as_integer_ratio": int.as_integer_ratio, "to_bytes": int.to_bytes,
}
FLOAT_METHODS: dict[str, Callable[..., Any]] = {
    "is_integer": float.is_integer, "hex": float.hex, "conjugate": float.conjugate,
    "as_integer_ratio": float.as_integer_ratio,
}
# complex's (a complex tensor's item() and tolist() give them; `1j` literals too)
COMPLEX_METHODS: dict[str, Callable[..., Any]] = {"conjugate": complex.conjugate}
NUMBER_ATTRIBUTES: dict[type, frozenset[str]] = {
    int: frozenset(("real", "imag", "numerator", "denominator")),
    float: frozenset(("real", "imag")), complex: frozenset(("real", "imag")),
}

LIST_METHODS: dict[str, Callable[..., Any]] = {
    "append": list.append, "extend": list.extend, "pop": list.pop, "insert": list.insert,
    "index": list.index, "count": list.count, "reverse": list.reverse, "copy": list.copy,
    "clear": list.clear, "remove": list.remove, "sort": list.sort,
}
TUPLE_METHODS: dict[str, Callable[..., Any]] = {"index": tuple.index, "count": tuple.count}
RANGE_METHODS: dict[str, Callable[..., Any]] = {"index": range.index, "count": range.count}
RANGE_ATTRIBUTES = frozenset(("start", "stop", "step"))
DICT_METHODS: dict[str, Callable[..., Any]] = {
    "keys": dict.keys, "values": dict.values, "items": dict.items, "get": dict.get,
    "pop": dict.pop, "update": dict.update, "copy": dict.copy, "setdefault": dict.setdefault,
    "popitem": dict.popitem, "clear": dict.clear,
    # a classmethod: `d.fromkeys(keys)` and `dict.fromkeys(keys)` build the type of `d`
    "fromkeys": lambda d, keys, value=None: type(d).fromkeys(keys, value),
}


class OrderedDict(collections.OrderedDict):
    """`collections.OrderedDict` as scripts see it: printed as CPython 3.11 prints it
    (`OrderedDict([('a', 1)])`) whatever Python gradtrace runs on."""

    def __repr__(self) -> str:
        if not self:
            return "OrderedDict()"
        return f"OrderedDict({list(self.items())!r})"

    __str__ = __repr__

    def copy(self) -> OrderedDict:
        return OrderedDict(self)


OrderedDict.__module__ = "collections"
ORDERED_DICT_METHODS: dict[str, Callable[..., Any]] = {  # its own order, not dict's
    **{name: getattr(collections.OrderedDict, name) for name in DICT_METHODS
       if name != "fromkeys"}, "fromkeys": DICT_METHODS["fromkeys"],
    "copy": OrderedDict.copy, "move_to_end": collections.OrderedDict.move_to_end,
}
STR_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(str, name) for name in (  # fixed names: Python's pure str methods
        "join", "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit",
        "splitlines", "replace", "startswith", "endswith", "ljust", "rjust", "center", "zfill",
        "title", "capitalize", "swapcase", "casefold", "count", "find", "rfind", "index",
        "rindex", "partition", "rpartition", "isdigit", "isalpha", "isalnum", "isspace",
        "isupper", "islower", "istitle", "isnumeric", "isdecimal", "isidentifier",
        "removeprefix", "removesuffix")
}
STR_METHODS.update(STR_CODEC_METHODS)  # (encode, translate, ...: bytes_methods.py)
STR_WIDTH_METHODS = frozenset({"ljust", "rjust", "center", "zfill"})  # build `width` chars
SET_METHODS: dict[str, Callable[..., Any]] = {
    "add": set.add, "discard": set.discard, "remove": set.remove, "pop": set.pop,
    "clear": set.clear, "copy": set.copy, "update": set.update, "union": set.union,
    "intersection": set.intersection, "difference": set.difference,
    "symmetric_difference": set.symmetric_difference, "issubset": set.issubset,
    "issuperset": set.issuperset, "isdisjoint": set.isdisjoint,
    "intersection_update": set.intersection_update,
    "difference_update": set.difference_update,
    "symmetric_difference_update": set.symmetric_difference_update,
}
FROZENSET_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(frozenset, name) for name in (  # fixed names, not the script's
        "copy", "union", "intersection", "difference", "symmetric_difference", "issubset",
        "issuperset", "isdisjoint")
}
HANDLE_METHODS: dict[str, Callable[..., Any]] = {"remove": RemovableHandle.remove}
GENERATOR_METHODS: dict[str, Callable[..., Any]] = dict(sampling.GENERATOR_METHODS)
GENERATOR_ATTRIBUTES: dict[str, Callable[[Generator, Any], Any]] = {
    "device": lambda g, ctx: CPU,
}
SAVED_TENSORS_HOOKS_ATTRIBUTES: dict[str, Callable[[saved_tensors_hooks, Any], Any]] = {
    "pack_hook": lambda h, ctx: h.pack_hook,
    "unpack_hook": lambda h, ctx: h.unpack_hook,
}
RECORD_FUNCTION_ATTRIBUTES: dict[str, Callable[[record_function, Any], Any]] = {
    "name": lambda r, ctx: r.name,
    "args": lambda r, ctx: r.args,
    "run_callbacks_on_exit": lambda r, ctx: r.run_callbacks_on_exit,
}
GRAD_MODE_TYPES = (no_grad, enable_grad, set_grad_enabled, inference_mode)  # decorators too
GRAD_MODE_CLASSES = (no_grad, enable_grad, inference_mode)  # usable bare as decorators
# managers whose instance decorates a function: each call runs inside a fresh `clone()`
DECORATING_CONTEXTS = (*GRAD_MODE_TYPES, disable_saved_tensors_hooks, record_function)
CONTEXT_TYPES = (*GRAD_MODE_TYPES, set_detect_anomaly, detect_anomaly, saved_tensors_hooks,
                 disable_saved_tensors_hooks, ndarray.ErrState, ndarray.PrintOptions, Device,
                 record_function, RemovableHandle)


def exception_types() -> dict[str, ExceptionType]:
    """Python's exception classes, as builtins (torch's own, like GradcheckError, are not)."""
    return {kind: ExceptionType(kind) for kind in EXCEPTION_PARENTS
            if kind not in NOT_BUILTIN_EXCEPTIONS}


def is_private(name: str) -> bool:
    """Names a script may not touch: dunders and undocumented `_` names."""
    return name.startswith("_") and not any(
        name == p or (p.endswith("_") and name.startswith(p)) for p in PUBLIC_UNDERSCORE)


@functools.cache
def _recorded_names() -> dict[str, Any]:
    return json.loads((pathlib.Path(__file__).parent / "torch_names.json").read_text())


@functools.cache
def _torch_names() -> dict[str, frozenset[str]]:
    return {owner: frozenset(names) for owner, names in _recorded_names()["names"].items()}


def star_exports(module: str) -> list[str] | None:
    """What `from module import *` binds under torch 2.13, in Python's order (the module's
    `__all__`, else its public names), as recorded by tests/tools/record_torch_names.py;
    None for a module not recorded (a bundled library's own)."""
    return _recorded_names()["star"].get(module)


def torch_has(owner: Any, name: str) -> bool:
    """Whether torch 2.13 (or the Python module) has `name` on `owner` (a namespace or a
    tensor), as recorded by tests/tools/record_torch_names.py: what gradtrace lacks is then
    "not supported", what nobody has is Python's AttributeError, and `hasattr` answers as
    under torch."""
    if isinstance(owner, Tensor):
        key = "torch.Tensor"
    elif isinstance(owner, Namespace):
        key = owner.name
    else:
        return False
    return name in _torch_names().get(key, ())


def missing_namespace_name(namespace: Namespace, name: str) -> GradtraceError:
    """A name a namespace lacks: gradtrace's gap if torch has it, else Python's error."""
    if namespace.name == "numpy":
        from .interpreter.numpy_module import REMOVED_NAMES, removed_name_error

        if name in REMOVED_NAMES:
            return removed_name_error(name)
    from .interpreter.import_effects import LOADED_SUBMODULES

    if name == "__dict__":  # a namespace that stands for an object, not a module
        # (`torch.backends.cuda.matmul`): a module's is a view (interpreter/module_dicts.py)
        return NotSupportedError(f"attribute '__dict__' of '{namespace.name}' is not "
                                 "available in gradtrace scripts")
    if namespace.name == "__main__":  # the script's own module: its variables
        return ScriptError(f"module '__main__' has no attribute '{name}'",
                           kind="AttributeError")
    if namespace.name in _torch_names() and not torch_has(namespace, name) or \
            (namespace.name, name) in LOADED_SUBMODULES:  # (`collections.abc` not loaded)
        return ScriptError(f"module '{namespace.name}' has no attribute '{name}'",
                           kind="AttributeError")
    if is_private(name):
        return not_supported_attribute(namespace, name)
    return NotSupportedError(f"'{namespace.name}.{name}' is not supported by gradtrace")


def not_supported_attribute(obj: Any, name: str) -> NotSupportedError:
    return NotSupportedError(
        f"attribute '{name}' of {owner_name(obj)} is not available in gradtrace scripts")


# Python builtins a script may reach for but gradtrace deliberately does not offer.
NOT_SUPPORTED_BUILTINS = {
    name: f"`{name}` is not supported: gradtrace scripts cannot compile or exec code "
          "(eval of an expression runs as the script's own code), reach files or the "
          "system, or inspect Python objects"
    for name in ("exec", "compile", "open", "input", "__import__",
                 "breakpoint", "help", "memoryview", "bytearray", "complex", "aiter", "anext")
}


# The methods of Python's types as unbound functions (`str.lower` as a sort key).
TYPE_METHOD_TABLES: dict[type, dict[str, Callable[..., Any]]] = {
    str: {**STR_METHODS, "maketrans": str.maketrans}, list: LIST_METHODS,
    tuple: TUPLE_METHODS, dict: DICT_METHODS, range: RANGE_METHODS,
    set: SET_METHODS, frozenset: FROZENSET_METHODS, OrderedDict: ORDERED_DICT_METHODS,
    int: {**INT_METHODS, "from_bytes": int.from_bytes},
    float: {**FLOAT_METHODS, "fromhex": float.fromhex}, bytes: BYTES_TYPE_METHODS,
}
# the classmethods and staticmethods among them: read from the type, nothing is bound
TYPE_CLASS_FUNCTIONS: dict[type, frozenset[str]] = {
    float: frozenset({"fromhex"}), int: frozenset({"from_bytes"}),
    bytes: frozenset({"fromhex", "maketrans"}), str: frozenset({"maketrans"})}
