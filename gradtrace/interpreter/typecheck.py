"""`type(x)`, `isinstance` and `issubclass` over every kind of class object a script has:
script and library classes, Python's own types (an allow-list, as `BuiltinType`s),
`torch.Tensor` and the legacy typed classes, exception types, and opaque class objects
for everything else (printable and comparable, never callable or inspectable)."""
from __future__ import annotations

from typing import Any

from .. import stdlib
from ..engine import grad_mode
from ..engine.anomaly import detect_anomaly, set_detect_anomaly
from ..engine.custom_function import FunctionCtx
from ..engine.device import Device
from ..engine.dtypes import finfo, iinfo
from ..engine.generator import Generator
from ..engine.node import Node
from ..engine.ops.reductions import ReturnTypes
from ..engine.profiler import record_function
from ..engine.saved_hooks import (
    RawSavedTensor,
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)
from ..engine.shapes import Size
from ..engine.storage import TypedStorage, UntypedStorage
from ..engine.tensor import RemovableHandle, Tensor
from ..errors import EXCEPTION_PARENTS, NotSupportedError, ScriptError, TorchTypeError
from ..tensor_types import (
    PARAMETER,
    SIZE,
    TENSOR,
    VALUE_CLASSES,
    ScriptType,
    TorchVersion,
    tensor_class_of,
)
from . import abc_checks
from .dunders import OBJECT
from .generic_classes import ScriptGenericAlias, protocol_instance_check
from .hashlib_module import HashObject
from .module_dicts import ModuleDict
from .numpy_module import NO_INSTANCE_CHECK
from .objects import (
    BuiltinType,
    Instance,
    OpaqueType,
    ScriptClass,
    opaque_type,
    type_name,
)
from .random_module import PyRandom
from .tensor_subclasses import TENSOR_BASE
from .typed_classes import TypingClass
from .typing_generics import alias_check_class
from .typing_module import TypingName
from .union_types import UnionType, union_members


class TypeBuiltin:
    """The builtin `type`: `type(x)` gives x's class; itself the class of classes."""

    __slots__ = ("interp",)
    name = "type"
    module = "builtins"

    def __init__(self, interp: Any):
        self.interp = interp

    def __call__(self, *args: Any) -> Any:
        return self.interp.script_type(*args)

    def __repr__(self) -> str:
        return "<class 'type'>"

# the engine's classes a script holds as torch's class objects (`torch.no_grad`,
# `torch.finfo`, `torch.Generator`, ...; each has torch's __module__ and __qualname__): the
# class of their instances, printable, comparable, usable with isinstance and issubclass,
# their names readable; nothing else of them is reachable
TORCH_CLASSES = frozenset({
    grad_mode.no_grad, grad_mode.enable_grad, grad_mode.set_grad_enabled,
    grad_mode.inference_mode, finfo, iinfo, Device, Generator, detect_anomaly,
    set_detect_anomaly, saved_tensors_hooks, save_on_cpu, record_function})
# those torch writes in C: Python's messages name them by their dotted tp_name
_C_CLASSES = frozenset({finfo, iinfo, Device, Generator})
# torch's own names for the classes of its other values
_TORCH_TYPES: dict[type, tuple[str, str]] = {
    UntypedStorage: ("UntypedStorage", "torch.storage"),
    TypedStorage: ("TypedStorage", "torch.storage"),
    stdlib.Namespace: ("module", "builtins"),
    TorchVersion: ("TorchVersion", "torch.torch_version"),
    RemovableHandle: ("RemovableHandle", "torch.utils.hooks"),
    RawSavedTensor: RawSavedTensor.SCRIPT_CLASS[::-1],  # (name, module)
    # torch's is a @contextmanager function: it makes a _GeneratorContextManager
    disable_saved_tensors_hooks: ("_GeneratorContextManager", "contextlib"),
    PyRandom: ("Random", "random"),
    HashObject: ("HASH", "_hashlib"),
}


def is_torch_class(value: Any) -> bool:
    """Whether `value` is one of TORCH_CLASSES (any value may be asked, hashable or not)."""
    return type(value) is type and value in TORCH_CLASSES


def torch_class_attribute(cls: type, name: str) -> str:
    """`torch.no_grad.__name__`, `.__qualname__`, `.__module__`: torch's names for it."""
    if name == "__module__":
        return cls.__module__
    if name in ("__name__", "__qualname__"):
        return cls.__qualname__
    shown = f"{cls.__module__}.{cls.__qualname__}" if cls in _C_CLASSES else cls.__qualname__
    raise ScriptError(f"type object '{shown}' has no attribute '{name}'",
                      kind="AttributeError")


_CLASS_OBJECTS = (ScriptClass, BuiltinType, OpaqueType, TypeBuiltin)
# torch.autograd.Function and its subclasses are instances of its metaclass, FunctionMeta
FUNCTION_MODULE = "torch.autograd.function"


def is_autograd_function(cls: ScriptClass) -> bool:
    """Whether `cls` derives from torch.autograd.Function (its metaclass is FunctionMeta)."""
    return any(c.name == "Function" and c.module == FUNCTION_MODULE for c in cls.mro)


class TypeChecks:
    """type(), isinstance(), issubclass() (a mixin of the Interpreter)."""

    def type_of(self, value: Any) -> Any:
        kind = type(value)
        if kind is Instance:
            return value.cls
        if isinstance(value, Tensor):
            if value.pyclass is not None:  # an instance of a subclass of torch.Tensor
                return value.pyclass
            return tensor_class_of(value)
        if isinstance(value, Size):
            return SIZE
        if kind in TORCH_CLASSES:
            return kind
        builtin = self.builtin_types.get(kind)
        if builtin is not None:
            return builtin
        if value is Generator:  # a pybind11 class of torch's own metaclass
            return opaque_type("OpaqueBaseMeta", "torch._opaque_base")
        if isinstance(value, ScriptType) and value.meta is not None:  # torch.Tensor's
            return opaque_type(*value.meta)
        if kind is ScriptClass and value.metaclass is not None:
            return value.metaclass  # abc.ABCMeta
        if kind is ScriptClass and is_autograd_function(value):
            return opaque_type("FunctionMeta", FUNCTION_MODULE)  # autograd Function's
        if kind in _CLASS_OBJECTS or isinstance(value, (ScriptType, stdlib.ExceptionType)) \
                or is_torch_class(value):
            return self.builtins["type"]
        if isinstance(value, ScriptError):
            return self.builtins.get(value.kind) or stdlib.TORCH_EXCEPTION_TYPES.get(
                value.kind) or stdlib.ExceptionType(value.kind)
        value_class = VALUE_CLASSES.get(kind)  # torch.dtype, torch.layout, torch.memory_format
        if value_class is not None:
            return value_class
        for pytype, (name, module) in _TORCH_TYPES.items():
            if isinstance(value, pytype):
                return opaque_type(name, module)
        if type(value) is UnionType:
            return opaque_type("UnionType", "types")
        if isinstance(value, ReturnTypes):  # torch.return_types.max, .frexp, ...
            return opaque_type(value.type_name, "torch.return_types")
        if isinstance(value, FunctionCtx):  # <Name>Backward, made by torch's FunctionMeta
            return opaque_type(type_name(value), "torch.autograd.function")
        if isinstance(value, Node):
            return opaque_type(type_name(value))
        module, _, name = type_name(value).rpartition(".")  # `numpy.ndarray`, `re.Match`
        return opaque_type(name, module or "builtins")

    def none_type(self, member: Any) -> Any:
        """A union's member as a class: None stands for NoneType."""
        return self.builtin_types[type(None)] if member is None else member

    def isinstance_check(self, value: Any, classinfo: Any) -> bool:
        if isinstance(classinfo, tuple):
            return any(self.isinstance_check(value, c) for c in classinfo)
        members = union_members(classinfo)  # `int | None`, Optional[int]
        if members is not None:
            return any(self.isinstance_check(value, self.none_type(c)) for c in members)
        if isinstance(classinfo, TypingName) and type(classinfo) is not TypingClass:
            classinfo = alias_check_class(self, classinfo, "isinstance")
        kind = type(classinfo)
        if kind is ScriptClass:
            if classinfo is OBJECT:
                return True
            if self.abc_registry and abc_checks.registered(self, self.type_of(value),
                                                            classinfo):
                return True
            if classinfo in self.abc_kinds:
                return abc_checks.instance_check(self, value, classinfo)
            if classinfo in self.protocol_classes:
                if classinfo in self.runtime_protocols:
                    return protocol_instance_check(self, value, classinfo)
                raise TorchTypeError("Instance and class checks can only be used with "
                                     "@runtime_checkable protocols")
            if type(value) is RemovableHandle:  # a tensor hook's handle is torch's class
                return (classinfo.module, classinfo.name) == RemovableHandle.SCRIPT_CLASS
            if isinstance(value, Tensor) and value.pyclass is not None:
                return classinfo in value.pyclass.mro
            return type(value) is Instance and classinfo in value.cls.mro
        if kind is BuiltinType:
            if classinfo.type in NO_INSTANCE_CHECK:
                raise NotSupportedError(NO_INSTANCE_CHECK[classinfo.type])
            if type(value) is Instance:  # an IntEnum's members are ints
                if self.namedtuple_bases.get(classinfo.type) in value.cls.mro:
                    return True  # `class Q(P)`, P a namedtuple class
                builtin = value.cls.builtin  # an AttrDict is a dict
                if builtin is not None and issubclass(builtin, classinfo.type):
                    return True
                return classinfo.type is int and _is_int_enum(value.cls)
            if type(value) is ModuleDict:  # a module's __dict__ is a dict
                return classinfo.type is dict
            return isinstance(value, classinfo.type)
        if isinstance(classinfo, ScriptType):
            return classinfo.instancecheck(value)
        if kind is stdlib.ExceptionType or kind is stdlib.TorchExceptionType:
            if type(value) is Instance and value.cls.exception_kind is not None:
                return _derives(value.cls.exception_kind, classinfo.kind)
            return isinstance(value, ScriptError) and value.matches(classinfo.kind)
        if kind is OpaqueType:
            return self.type_of(value) is classinfo
        if is_torch_class(classinfo):
            return isinstance(value, classinfo)
        if kind is TypeBuiltin:
            return self.is_class(value)
        if kind is ScriptGenericAlias:
            raise TorchTypeError(SUBSCRIPTED_CHECK)
        raise TorchTypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")

    def issubclass_check(self, cls: Any, classinfo: Any) -> bool:
        if not self.is_class(cls):
            raise TorchTypeError("issubclass() arg 1 must be a class")
        if isinstance(classinfo, tuple):
            return any(self.issubclass_check(cls, c) for c in classinfo)
        members = union_members(classinfo)
        if members is not None:
            return any(self.issubclass_check(cls, self.none_type(c)) for c in members)
        if isinstance(classinfo, TypingName) and type(classinfo) is not TypingClass:
            classinfo = alias_check_class(self, classinfo, "issubclass")
        if type(classinfo) is ScriptGenericAlias:
            raise TorchTypeError(SUBSCRIPTED_CHECK)
        if not self.is_class(classinfo):
            raise TorchTypeError("issubclass() arg 2 must be a class, a tuple of classes, or a "
                                 "union")
        if classinfo is OBJECT or cls is classinfo:
            return True
        if type(classinfo) is ScriptClass and self.abc_registry and \
                abc_checks.registered(self, cls, classinfo):
            return True
        if type(classinfo) is ScriptClass and classinfo in self.abc_kinds:
            return abc_checks.class_check(self, cls, classinfo)
        if type(cls) is ScriptClass and type(classinfo) is ScriptClass:
            return cls.is_subclass(classinfo)
        if type(cls) is ScriptClass and classinfo is TENSOR:  # class MyTensor(torch.Tensor)
            return TENSOR_BASE in cls.mro
        if classinfo is TENSOR_BASE and (cls is TENSOR or cls is PARAMETER):
            return True
        if isinstance(cls, ScriptType):  # nn.Parameter is a torch.Tensor
            return classinfo in cls.bases
        if is_torch_class(cls) and is_torch_class(classinfo):  # save_on_cpu's base
            return issubclass(cls, classinfo)
        if type(cls) is ScriptClass and type(classinfo) is BuiltinType and (
                cls.builtin is not None and issubclass(cls.builtin, classinfo.type) or
                self.namedtuple_bases.get(classinfo.type) in cls.mro):
            return True
        if type(cls) is ScriptClass and type(classinfo) is BuiltinType and \
                classinfo.type is int:
            return _is_int_enum(cls)
        if type(cls) is BuiltinType and type(classinfo) is BuiltinType:
            return issubclass(cls.type, classinfo.type)
        if isinstance(cls, stdlib.ExceptionType) and isinstance(classinfo, stdlib.ExceptionType):
            return _derives(cls.kind, classinfo.kind)
        if type(cls) is ScriptClass and cls.exception_kind is not None and \
                isinstance(classinfo, stdlib.ExceptionType):  # issubclass(StopTraining, Exception)
            return _derives(cls.exception_kind, classinfo.kind)
        return False

    def is_class(self, value: Any) -> bool:
        return type(value) in _CLASS_OBJECTS or isinstance(
            value, (ScriptType, stdlib.ExceptionType)) or is_torch_class(value)

    def script_type(self, *args: Any) -> Any:
        """The builtin `type(x)`, and `type(name, bases, dict)` making a class."""
        if len(args) == 1:
            return self.type_of(args[0])
        if len(args) == 3:
            return self.type_new(*args)
        raise TorchTypeError("type() takes 1 or 3 arguments")


SUBSCRIPTED_CHECK = "Subscripted generics cannot be used with class and instance checks"


def _is_int_enum(cls: ScriptClass) -> bool:
    """Whether a class derives from the library's enum.IntEnum or IntFlag (an int in
    Python)."""
    return any(c.name in ("IntEnum", "IntFlag") and c.module == "enum" for c in cls.mro)


def _derives(kind: str | None, ancestor: str) -> bool:
    """Whether the builtin exception `kind` is `ancestor` or derives from it."""
    while kind is not None:
        if kind == ancestor:
            return True
        kind = EXCEPTION_PARENTS.get(kind)
    return False
