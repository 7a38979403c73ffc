"""`torch.Tensor` and the legacy typed tensor classes as class objects scripts can call,
print and use with isinstance; `torch.autograd.Variable`; `torch.__version__`.

Measured against torch 2.13 (CPU):
- `torch.Tensor(data)` is float32 data; `torch.Tensor(t)` of a tensor is an alias of it
  (AliasBackward0, the same storage and version counter), whatever its dtype;
  `torch.Tensor(2, 3)` / `torch.Tensor(torch.Size(...))` / `size=` is uninitialised memory
  in torch, zeros here (as `torch.empty`);
- `torch.FloatTensor`/`DoubleTensor`/`LongTensor`/`IntTensor`/`BoolTensor`/`ByteTensor`/
  `CharTensor`/`ShortTensor`/`HalfTensor` do the same in their dtype (a tensor of another
  dtype is a TypeError); `isinstance(t, torch.FloatTensor)` holds for float32 tensors;
  `type(t)` is `torch.Tensor` for every tensor;
- `Variable(t, requires_grad=False)` is `t.detach()` with requires_grad set (the same
  storage and version counter); `Variable(non_tensor)` is a TypeError.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from .engine import dtypes, lazy
from .engine.dtypes import DType
from .engine.layouts import Layout, MemoryFormat
from .engine.ndarray import ndarray
from .engine.node import Node
from .engine.ops import creation
from .engine.ops.views import alias
from .engine.shapes import Size
from .engine.tensor import Parameter, Tensor
from .errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchTypeError


class ScriptType:
    """A class object of the torch emulation (`torch.Tensor`, `torch.FloatTensor`, ...):
    prints as a class, works with isinstance and `type(x) == ...`; subclasses say what
    calling it does and which attributes it has."""

    name = "type"
    module = "builtins"
    bases: tuple[ScriptType, ...] = ()  # the torch classes it subclasses (issubclass)
    meta: tuple[str, str] | None = None  # its metaclass's name and module, if not `type`

    def instancecheck(self, value: Any) -> bool:
        raise NotImplementedError

    def attribute(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # torch's class has it: a gap
            raise NotSupportedError(f"attribute '{name}' of {self!r} is not available in "
                                    "gradtrace scripts")
        raise ScriptError(f"type object '{self.name}' has no attribute '{name}'",
                          kind="AttributeError")

    def __repr__(self) -> str:
        return f"<class '{self.module}.{self.name}'>"


_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    "{why}"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def _type_word(value: Any) -> str:
    from .interpreter.objects import type_name

    return type_name(value)


class TensorType(ScriptType):
    """`torch.Tensor` (dtype None: float32 data, any tensor aliased) or a legacy typed class
    such as `torch.LongTensor`."""

    module = "torch"

    def __init__(self, name: str, dtype: DType | None):
        self.name = name
        self.dtype = dtype
        self.meta = ("_TensorMeta", "torch._C") if dtype is None else ("tensortype", "torch")

    def instancecheck(self, value: Any) -> bool:
        if not isinstance(value, Tensor):
            return False
        return self.dtype is None or value.dtype is self.dtype

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        dtype = self.dtype or dtypes.DEFAULT_FLOAT
        if kwargs:
            if set(kwargs) == {"size"} and not args:
                return self._sized(kwargs["size"], dtype)
            if set(kwargs) <= {"device"}:
                return self(*args)
            got = ", ".join([_type_word(a) for a in args] +
                            [f"{k}={_kw_word(v)}" for k, v in kwargs.items()])
            bad = ", ".join(k for k in kwargs if k != "device")
            why = f"      didn't match because some of the keywords were incorrect: {bad}\n"
            raise TorchTypeError(
                f"new() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n" + _SIGNATURES.format(why=why))
        if not args:
            return creation.tensor([], dtype=dtype)
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor):
            if self.dtype is not None and first.dtype is not self.dtype:
                raise TorchTypeError(_options_mismatch(self.dtype, first.dtype))
            return alias(first)
        if isinstance(first, Size) or all(isinstance(a, int) and not isinstance(a, bool)
                                          for a in args):
            if len(args) > 1 and isinstance(first, Size):
                raise TorchTypeError(_invalid(args))
            return self._sized(tuple(first) if isinstance(first, Size) else args, dtype)
        if len(args) > 1:
            raise TorchTypeError(_invalid(args))
        if isinstance(first, str):
            raise TorchTypeError("new(): invalid data type 'str'")
        if isinstance(first, range):
            first = list(first)
        if type(first) is ndarray:
            return creation.tensor(first, dtype=dtype)
        if not isinstance(first, creation.SEQUENCES):  # (torch's PySequence_Check)
            raise TorchTypeError(f"new(): data must be a sequence (got {_type_word(first)})")
        return creation.tensor(first, dtype=dtype)

    def _sized(self, size: Any, dtype: DType) -> Tensor:
        shape = tuple(size)
        for s in shape:
            if s < 0:
                raise TorchRuntimeError(
                    f"Trying to create tensor with negative dimension {s}: {list(shape)}")
        return creation.empty(*shape, dtype=dtype)  # uninitialised in torch: zeros here

    def __repr__(self) -> str:
        return f"<class 'torch.{self.name}'>"


def _kw_word(value: Any) -> str:
    if isinstance(value, DType):
        return "torch.dtype"
    return _type_word(value)


def _invalid(args: tuple) -> str:
    got = ", ".join(_type_word(a) for a in args)
    shown = ", ".join(f"!{_describe(a)}!" for a in args)
    why = f"      didn't match because some of the arguments have invalid types: ({shown})\n"
    return (f"new() received an invalid combination of arguments - got ({got}), but expected "
            "one of:\n" + _SIGNATURES.format(why=why))


def _describe(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        inner = ", ".join(dict.fromkeys(_type_word(v) for v in value))
        return f"{_type_word(value)} of [{inner}]"
    return _type_word(value)


# the C++ type names (typeid, demangled) torch's TensorOptions print for each dtype
_OPTION_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                 "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                 "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _options(dtype: DType) -> str:
    return (f"TensorOptions(dtype={_OPTION_NAMES.get(dtype.name, dtype.name)}, device=cpu, "
            "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _options_mismatch(expected: DType, got: DType) -> str:
    return f"expected {_options(expected)} (got {_options(got)})"


class ValueClass(ScriptType):
    """torch's class of a kind of plain value (`torch.dtype`, `torch.layout`,
    `torch.memory_format`): what `type()` of such a value is, for isinstance, `is` and type
    annotations; torch cannot make new instances of it."""

    module = "torch"

    def __init__(self, name: str, pytype: type):
        self.name = name
        self.pytype = pytype

    def instancecheck(self, value: Any) -> bool:
        return isinstance(value, self.pytype)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TorchTypeError(f"cannot create '{self.module}.{self.name}' instances")


VALUE_CLASSES: dict[type, ValueClass] = {
    DType: ValueClass("dtype", DType), Layout: ValueClass("layout", Layout),
    MemoryFormat: ValueClass("memory_format", MemoryFormat)}
"""The class of each value type's values, by its Python type (torch.dtype for DType)."""


class SizeType(ScriptType):
    """`torch.Size`: callable (`torch.Size([2, 3])`), the type of every shape."""

    name = "Size"
    module = "torch"

    def instancecheck(self, value: Any) -> bool:
        return isinstance(value, Size)

    def __call__(self, *args: Any) -> Size:
        return Size(*args)


class ParameterType(TensorType):
    """`torch.nn.Parameter`: the engine's Parameter (a leaf that requires grad by default),
    a subclass of `torch.Tensor` for isinstance/issubclass."""

    module = "torch.nn.parameter"

    def __init__(self) -> None:
        super().__init__("Parameter", None)
        self.meta = ("_ParameterMeta", "torch.nn.parameter")

    def instancecheck(self, value: Any) -> bool:
        return isinstance(value, Tensor) and value.is_parameter

    def __call__(self, *args: Any, **kwargs: Any) -> Parameter:
        data = args[0] if args else kwargs.get("data")
        if isinstance(data, Tensor) and data.pyclass is not None:  # torch's custom-tensor path
            from .errors import NotSupportedError

            raise NotSupportedError("nn.Parameter of an instance of a subclass of "
                                    "torch.Tensor is not supported")
        return Parameter(*args, **kwargs)

    def __repr__(self) -> str:
        return "<class 'torch.nn.parameter.Parameter'>"


class UninitializedType(TensorType):
    """`torch.nn.parameter.UninitializedParameter` / `UninitializedBuffer`: a lazy module's
    placeholders (engine/lazy.py), subclasses of Parameter / Tensor for isinstance."""

    module = "torch.nn.parameter"

    def __init__(self, cls: type) -> None:
        super().__init__(cls.__name__, None)
        self.cls = cls
        if cls is lazy.UninitializedParameter:
            self.meta = ("_ParameterMeta", "torch.nn.parameter")

    def instancecheck(self, value: Any) -> bool:
        return isinstance(value, self.cls)

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        return self.cls(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<class 'torch.nn.parameter.{self.name}'>"


class NodeType(ScriptType):
    """`torch.autograd.graph.Node`: the abstract class of every grad_fn (isinstance)."""

    name = "Node"
    module = "torch.autograd.graph"
    meta = ("ABCMeta", "abc")

    def instancecheck(self, value: Any) -> bool:
        return isinstance(value, Node)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TorchTypeError(
            "Can't instantiate abstract class Node with abstract methods _input_metadata, "
            "_register_hook_dict, _sequence_nr, metadata, name, next_functions, register_hook, "
            "register_prehook")


NODE = NodeType()
UNINITIALIZED_PARAMETER = UninitializedType(lazy.UninitializedParameter)
UNINITIALIZED_BUFFER = UninitializedType(lazy.UninitializedBuffer)
SIZE = SizeType()
TENSOR = TensorType("Tensor", None)
PARAMETER = ParameterType()
PARAMETER.bases = (TENSOR,)
# what `type(t)` is for each Python class of tensors
TENSOR_CLASSES: dict[type, TensorType] = {Tensor: TENSOR, Parameter: PARAMETER}


def tensor_class_of(t: Tensor) -> TensorType:
    return TENSOR_CLASSES.get(type(t), TENSOR)


LEGACY = {name: TensorType(name, dtypes.ALIASES[dtype]) for name, dtype in (
    ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("LongTensor", "int64"),
    ("IntTensor", "int32"), ("BoolTensor", "bool"), ("ByteTensor", "uint8"),
    ("CharTensor", "int8"), ("ShortTensor", "int16"), ("HalfTensor", "float16"))}


_SET_DEFAULT_TENSOR_TYPE_WARNING = (
    "UserWarning: torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
    "internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)")


def set_default_tensor_type(t: Any, /) -> None:
    """torch.set_default_tensor_type (deprecated): a legacy CPU tensor class, or its name,
    whose dtype becomes the default float dtype; torch's errors for the rest."""
    from .engine.ops.creation import WARNINGS, OnceWarning

    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module == "torch.cuda":
            raise TorchTypeError(f"type {t} not available. Torch not compiled with CUDA "
                                 "enabled.")
        if module != "torch":
            raise ScriptError(f"No module named '{t.partition('.')[0]}'",
                              kind="ModuleNotFoundError")
        if name not in LEGACY:
            raise ScriptError(f"module 'torch' has no attribute '{name}'", kind="AttributeError")
        t = LEGACY[name]
    WARNINGS.append(OnceWarning(_SET_DEFAULT_TENSOR_TYPE_WARNING, "set_default_tensor_type"))
    if type(t) is not TensorType or t.dtype is None:
        raise TorchTypeError("invalid type object: only floating-point types are supported as "
                             "the default type")
    if not t.dtype.is_floating_point:
        raise TorchTypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(t.dtype)


def _unsigned_byte(value: Any) -> int:
    """PyArg_ParseTupleAndKeywords' "b" format, which torch's legacy Variable constructor
    reads its requires_grad and volatile flags with: an integer from 0 to 255."""
    if not isinstance(value, (int, np.integer)):
        raise ScriptError(f"'{_type_word(value)}' object cannot be interpreted as an integer",
                          kind="TypeError")
    if value < 0:
        raise ScriptError("unsigned byte integer is less than minimum", kind="OverflowError")
    if value > 255:
        raise ScriptError("unsigned byte integer is greater than maximum",
                          kind="OverflowError")
    return int(value)


def variable(data: Any, requires_grad: Any = False, volatile: Any = False) -> Tensor:
    """`torch.autograd.Variable(t, requires_grad=...)`: the tensor detached, requires_grad
    set (a leaf sharing its storage and version counter), as torch 2.13 does; a true
    `volatile` only warns that it is gone (THPVariable_pynew)."""
    requires_grad, volatile = _unsigned_byte(requires_grad), _unsigned_byte(volatile)
    if not isinstance(data, Tensor):
        raise TorchTypeError(f"Variable data has to be a tensor, but got {_type_word(data)}")
    if volatile:
        from .engine.ops.creation import WARNINGS
        from .stdlib import VOLATILE_SET_WARNING

        WARNINGS.append(VOLATILE_SET_WARNING)
    out = data.detach()
    if requires_grad:
        out.requires_grad_(True)
    return out


class VariableType(TensorType):
    """`torch.autograd.Variable`: callable as above; every tensor is an instance."""

    module = "torch.autograd.variable"

    def __init__(self) -> None:
        super().__init__("Variable", None)
        self.meta = ("VariableMeta", "torch.autograd.variable")

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        return variable(*args, **kwargs)

    def __repr__(self) -> str:
        return "<class 'torch.autograd.variable.Variable'>"


VARIABLE = VariableType()

_VERSION = re.compile(r"^(\d+(?:\.\d+)*)(?:\+([0-9A-Za-z.]+))?$")


class TorchVersion(str):
    """`torch.__version__`: a str that compares as a version (`>= "2.0"`), as torch's does;
    anything that does not parse as a version compares as text."""

    def _key(self, other: Any) -> tuple[tuple, tuple] | None:
        if isinstance(other, tuple):
            other = ".".join(str(x) for x in other)
        if not isinstance(other, str):
            return None
        mine, theirs = _VERSION.match(str(self)), _VERSION.match(other)
        if mine is None or theirs is None:
            return None
        return _version_key(mine), _version_key(theirs)

    def _compare(self, other: Any, op: str) -> bool:
        keys = self._key(other)
        if keys is None:
            if not isinstance(other, str):
                raise ScriptError(f"'{op}' not supported between instances of 'TorchVersion' "
                                  f"and '{_type_word(other)}'", kind="TypeError")
            a, b = str(self), other
        else:
            a, b = keys  # type: ignore[assignment]
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]

    def __lt__(self, other: Any) -> bool:
        return self._compare(other, "<")

    def __le__(self, other: Any) -> bool:
        return self._compare(other, "<=")

    def __gt__(self, other: Any) -> bool:
        return self._compare(other, ">")

    def __ge__(self, other: Any) -> bool:
        return self._compare(other, ">=")

    def __eq__(self, other: Any) -> bool:
        keys = self._key(other)
        return str(self) == other if keys is None else keys[0] == keys[1]

    def __ne__(self, other: Any) -> bool:
        return not self == other

    __hash__ = str.__hash__


def _version_key(match: re.Match) -> tuple:
    release = [int(p) for p in match.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    local = match.group(2)
    return (tuple(release), (1, local) if local else (0, ""))


VERSION = TorchVersion("2.13.0+cpu")  # what torch 2.13's CPU wheel reports
