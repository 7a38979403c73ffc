"""Attributes of classes: Python's builtin types, torch.Tensor and torch.Generator
(their methods unbound, as `map(torch.Tensor.item, losses)` and `str.lower` take them),
a namedtuple class's. Reads of values' attributes are `attributes.py`'s."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import stdlib
from ..engine.generator import Generator
from ..engine.tensor import Tensor
from ..errors import NotSupportedError, ScriptError
from ..tensor_types import TENSOR, ScriptType, TensorType
from . import datetime_module, tensor_subclasses
from .builtin_classes import base_dunder
from .dunders import OBJECT
from .objects import MISSING as NO_NAME
from .objects import (
    BuiltinType,
    ClassMethod,
    Method,
    NativeFunction,
    StaticMethod,
    is_dunder,
    type_name,
)
from .operator_dunders import SLOT_WRAPPERS
from .tensor_class_attributes import PATCHABLE as PATCHABLE_TENSOR_CLASSES
from .torch_functions import TorchFunction, tensor_python_method
from .typed_classes import NamedTupleNew


class TypeAttributes:
    """The Interpreter's mixin for `cls.name` of the classes scripts do not write."""

    namedtuple_classes: set[type]

    def namedtuple_make(self, cls: Any) -> Callable[[Any], Any]:
        """A namedtuple class's `_make(iterable)`, the iterable built within the limits."""
        def make(iterable: Any) -> Any:
            items = self.materialize(iterable, "a _make() argument")
            try:
                return cls.type._make(items)
            except TypeError as exc:
                raise ScriptError(str(exc), kind="TypeError") from None

        return make

    def type_getattr(self, cls: Any, name: str) -> Any:
        """A Python type's, torch.Tensor's or an opaque class object's attributes: its name,
        and a builtin type's methods unbound (`str.lower` as a `key=`)."""
        if name in ("__name__", "__qualname__"):
            return cls.name
        if name == "__module__":
            return cls.module
        if self.tensor_class_attributes.by_class and cls in PATCHABLE_TENSOR_CLASSES:
            patched = self.tensor_class_attributes.on_class(cls, name)
            if patched is not NO_NAME:
                return self.read_through_class(patched, cls)
        if type(cls) is BuiltinType and name in ("__mro__", "__bases__") and \
                cls.module == "builtins":  # `int.__mro__`: the classes scripts can name
            chain = cls.type.__mro__ if name == "__mro__" else cls.type.__bases__
            return tuple(OBJECT if t is object else self.builtin_types[t] for t in chain
                         if t is object or t in self.builtin_types)
        if type(cls) is BuiltinType:
            if cls.module == "datetime":  # datetime.now, timedelta.max
                found = datetime_module.class_attribute(cls, name)
                if found is not None:
                    return found
            if cls.type in self.namedtuple_classes:
                if name in ("_fields", "_field_defaults", "__doc__"):
                    return getattr(cls.type, name)
                if name == "__new__":  # (its __defaults__, which scripts replace)
                    return NamedTupleNew(cls)
                if name == "_make":
                    return NativeFunction("_make", cls.name, self.namedtuple_make(cls),
                                          "method")
                extras = self.namedtuple_extras.get(cls.type)
                if extras is not None and name in extras:
                    value = extras[name]
                    if type(value) is StaticMethod:
                        return value.function
                    if type(value) is ClassMethod:
                        return Method(cls, value.function)
                    return value
            if is_dunder(name) and cls.module == "builtins":
                found = base_dunder(cls.type, name)  # `dict.__setitem__(self, k, v)`
                if found is not None:
                    return found
            table = stdlib.TYPE_METHOD_TABLES.get(cls.type)
            if name == "fromkeys" and table is not None and name in table:  # a classmethod
                return stdlib.BoundMethod(cls.type(), self.guarded(table[name], name), name)
            if name in stdlib.TYPE_CLASS_FUNCTIONS.get(cls.type, ()):  # `int.from_bytes`
                return NativeFunction(name, cls.name, self.guarded(table[name], name),
                                      "method")
            if table is not None and name in table:
                return NativeFunction(name, cls.name, self.guarded(table[name], name), "method")
        if cls is TENSOR and name in tensor_subclasses.TENSOR_BASE.attrs:
            return self.class_getattr(tensor_subclasses.TENSOR_BASE, name)  # _make_subclass
        if cls is TENSOR and name in tensor_subclasses.TORCH_DUNDERS and \
                name not in stdlib.TENSOR_METHODS and \
                name not in tensor_subclasses.OPERATOR_FUNCS.values():
            return tensor_subclasses.TORCH_DUNDERS[name]  # super().__add__(other)
        if cls is TENSOR and name in tensor_subclasses.REFUSED_CLASS_ATTRIBUTES:
            raise NotSupportedError(tensor_subclasses.REFUSED_CLASS_ATTRIBUTES[name])
        if type(cls) is TensorType and (name in stdlib.TENSOR_METHODS or cls is TENSOR and
                                        name in tensor_subclasses.OPERATOR_FUNCS.values()):
            return self.tensor_method_descriptor(name)
        if type(cls) is TensorType and name in stdlib.TENSOR_LIBRARY_METHODS:
            return self.library.resolve(stdlib.TENSOR_LIBRARY_METHODS[name])
        if isinstance(cls, ScriptType):
            return cls.attribute(name)
        if is_dunder(name) or name.startswith("_"):
            raise NotSupportedError(f"attribute '{name}' of {cls!r} is not available in "
                                    "gradtrace scripts")
        raise ScriptError(f"type object '{cls.name}' has no attribute '{name}'",
                          kind="AttributeError")

    def tensor_method_descriptor(self, name: str) -> NativeFunction | TorchFunction:
        """`torch.Tensor.add` unbound: called with a tensor first, it is that tensor's method
        (`map(torch.Tensor.item, losses)`); anything else first is torch's TypeError. One
        torch writes in Python (`torch.Tensor.backward`) is a function, printed as torch's."""
        made = self.tensor_descriptors.get(name)
        if made is not None:  # (the same object each time, as torch's: a dict key)
            return made
        owner = "torch._C.TensorBase"
        unbound = self._unbound_method(name, Tensor, owner)
        python = tensor_python_method(name)
        if python is not None:
            shown, qualname, module = python
            made = TorchFunction(unbound, "function", shown, module, qualname)
        else:
            made = NativeFunction(name, owner, unbound,
                                  "slot wrapper" if name in SLOT_WRAPPERS else "method")
        self.tensor_descriptors[name] = made
        return made

    def generator_method_descriptor(self, name: str) -> NativeFunction:
        """`torch.Generator.manual_seed` unbound: torch's C method descriptor."""
        owner = "torch._C.Generator"
        return NativeFunction(name, owner, self._unbound_method(name, Generator, owner),
                              "method")

    def _unbound_method(self, name: str, cls: type, owner: str) -> Callable[..., Any]:
        """A C method taken from its class: called with an instance first, that instance's
        method; anything else first is Python's TypeError, naming `owner` as C types do."""
        short = owner.rpartition(".")[2]

        def unbound(*args: Any, **kwargs: Any) -> Any:
            if not args:
                raise ScriptError(f"unbound method {short}.{name}() needs an argument",
                                  kind="TypeError")
            if not isinstance(args[0], cls):
                raise ScriptError(f"descriptor '{name}' for '{owner}' objects doesn't apply "
                                  f"to a '{type_name(args[0])}' object", kind="TypeError")
            if cls is Tensor:  # torch's method, not one a subclass of Tensor overrides
                if type(args[0]) is tensor_subclasses.ScriptTensor and not kwargs and \
                        name in tensor_subclasses.OPERATOR_FUNCS:  # (torch's __repr__)
                    return tensor_subclasses.torch_dunder(args[0], name, args[1:])
                return self.tensor_attribute(args[0], name)(*args[1:], **kwargs)
            return self.get_attribute(args[0], name, None)(*args[1:], **kwargs)

        return unbound
