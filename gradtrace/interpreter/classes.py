"""Script classes at run time: making instances, attribute lookup on instances, classes
and `super()`, binding functions into methods, and the descriptors (property,
staticmethod, classmethod).

Dunder attributes: a script reads a dunder only when a class in the MRO defines it
(`super().__init__`, `Base.__init__(self)`, `obj.__len__()`), or from a short list of
harmless ones (`__name__`, `__qualname__`, `__module__`, `__doc__`, `__class__` of an
instance). Python's own internals (`__dict__`, `__mro__`, `__subclasses__`, `__globals__`,
... `REFUSED_DUNDERS`) are refused with a NotSupportedError; any other missing dunder is
an AttributeError, as in Python (so `hasattr(obj, "__len__")` works). No dunder can be set
on a class (but the comparisons functools.total_ordering adds), nor a special name of
Python's or its internals on an instance; an instance's own dunder (`self.__mu__`) is an
ordinary attribute.
"""
from __future__ import annotations

import functools
import types
from types import BuiltinFunctionType, MethodType
from typing import Any

from .. import stdlib
from ..errors import NotSupportedError, ScriptError, TorchTypeError
from . import descriptors, enums
from .builtin_classes import initial_value, is_builtin_new
from .collection_types import partial
from .dunders import OBJECT
from .function_attributes import FUNCTION_INTROSPECTION, function_attribute
from .numpy_module import NumpyFunction
from .objects import (
    MISSING,
    BuiltinClass,
    BuiltinFunction,
    CachedProperty,
    ClassMethod,
    FunctionWrapper,
    Instance,
    Method,
    NativeFunction,
    PartialMethod,
    Property,
    ScriptClass,
    StaticMethod,
    UserFunction,
    is_dunder,
    type_name,
)
from .slots import check_slot, slot_names
from .suggestions import closest, instance_dir, library_instance_dir
from .tensor_subclasses import (
    ScriptTensor,
)

REFUSED_DUNDERS = frozenset(dir(object)) | frozenset((  # fixed names: Python's internals
    "__dict__", "__weakref__", "__slots__", "__mro__", "__bases__", "__base__",
    "__subclasses__", "__globals__", "__code__", "__closure__", "__defaults__",
    "__kwdefaults__", "__builtins__", "__annotations__", "__wrapped__", "__objclass__",
    "__basicsize__", "__itemsize__", "__flags__", "__weakrefoffset__", "__dictoffset__",
    "__instancecheck__", "__subclasscheck__", "__prepare__", "__traceback__", "__cause__",
    "__context__", "__loader__", "__spec__", "__package__", "__file__", "__path__",
    "__self__", "__func__", "__get__", "__set__", "__delete__", "__set_name__",
    "__class_getitem__", "__orig_bases__", "__parameters__", "__type_params__",
)) - frozenset(("__doc__", "__module__", "__name__", "__qualname__"))

_OBJECT_INIT = OBJECT.attrs["__init__"]
_OBJECT_NEW = OBJECT.attrs["__new__"]
_OBJECT_SETATTR = OBJECT.attrs["__setattr__"]
_OBJECT_DELATTR = OBJECT.attrs["__delattr__"]


# object's data descriptors, which an instance's own dict never shadows (only an
# AttrDict's `self.__dict__ = self` can hold such keys: `d["__class__"] = int`)
_DATA_DESCRIPTORS = frozenset(("__class__", "__dict__"))
# bundled library classes whose instances' attribute dicts are Python's own (dict_live)
_LIVE_DICT_LIBRARY_CLASSES = frozenset((("torch.nn.modules.module", "Module"),
                                        ("types", "SimpleNamespace"),
                                        ("argparse", "Namespace")))


def refused(owner: str, name: str) -> NotSupportedError:
    return NotSupportedError(f"attribute '{name}' of {owner} is not available in gradtrace "
                             "scripts")


def missing_dunder(owner: str, name: str, message: str) -> Exception:
    """A dunder nothing defines: Python's internals are refused, others missing."""
    if name in REFUSED_DUNDERS:
        return refused(owner, name)
    return attribute_error(message)


def attribute_error(message: str) -> ScriptError:
    return ScriptError(message, kind="AttributeError")


# Python's special names (the dunders of its builtin types and the protocols' own): an
# instance is never given one, though Python would store it in the instance's dict
_SPECIAL_NAMES = frozenset(
    name for pytype in (int, float, complex, str, bytes, list, tuple, dict, set, frozenset,
                        type, BaseException, property, staticmethod, classmethod, slice,
                        range, memoryview, bytearray, types.FunctionType, types.MethodType,
                        types.GeneratorType, types.CoroutineType, types.ModuleType)
    for name in dir(pytype) if is_dunder(name)) | frozenset((
        "__enter__", "__exit__", "__aenter__", "__aexit__", "__aiter__", "__anext__",
        "__await__", "__call__", "__getattr__", "__missing__", "__fspath__", "__index__",
        "__length_hint__", "__copy__", "__deepcopy__", "__post_init__", "__match_args__",
        "__dataclass_fields__", "__dataclass_params__", "__torch_function__",
        "__torch_dispatch__", "__array__", "__array_ufunc__", "__array_function__",
        "__array_priority__", "__array_interface__", "__array_wrap__", "__bool__",
        "__abstractmethods__", "__final__", "__orig_class__"))


def instance_dunder_settable(name: str) -> bool:
    """A dunder name that is no special name of Python's (`self.__mu__ = ...`, as PyG's
    VGAE.encode keeps its mean): an ordinary attribute of the instance, as in Python."""
    return name not in REFUSED_DUNDERS and name not in _SPECIAL_NAMES


class ClassRuntime:
    """Instances of script classes and functions' attributes at run time (a mixin of the
    Interpreter; classes' own attributes and super(): class_attributes.py)."""

    def instantiate(self, cls: ScriptClass, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """`Cls(...)` as type.__call__ does it: `__new__` (object's makes a plain instance),
        then, if that gave an instance of `cls`, its class's `__init__`."""
        if cls.enum is not None:
            return enums.call(cls, args, kwargs)
        if cls in self.protocol_classes:
            raise TorchTypeError("Protocols cannot be instantiated")
        new = cls.lookup("__new__")
        if new is _OBJECT_NEW:
            inst = self.new_object(cls, args, kwargs)
        elif cls.builtin is not None and is_builtin_new(new):  # `class AttrDict(dict)`
            self.check_abstract(cls)
            inst = Instance(cls)
            inst.value = initial_value(cls, args, kwargs)
        else:  # the class's own `__new__` (`class Point(tuple)`, a singleton, a factory)
            made = self.call(new.function if type(new) is StaticMethod else new,
                             [cls, *args], kwargs, None)
            if type(made) is ScriptTensor and cls in made.pyclass.mro:  # a Tensor subclass's
                init = made.pyclass.lookup("__init__")
                if init is not _OBJECT_INIT:
                    result = self.call_bound(init, made, args, kwargs)
                    if result is not None:
                        raise TorchTypeError("__init__() should return None, not "
                                             f"'{type_name(result)}'")
                return made
            if type(made) is not Instance or cls not in made.cls.mro:
                return made  # Python calls `__init__` only on an instance of cls
            inst = made
        if cls.exception_kind is not None and new is _OBJECT_NEW:
            inst.attrs["args"] = tuple(args)  # BaseException.__new__ keeps the arguments
        init = inst.cls.lookup("__init__")
        if init is _OBJECT_INIT:
            return inst  # (object.__new__ refused arguments neither method takes)
        result = self.call_bound(init, inst, args, kwargs)
        if result is not None:
            raise TorchTypeError(f"__init__() should return None, not '{type_name(result)}'")
        return inst

    def new_object(self, cls: ScriptClass, args: list[Any], kwargs: dict[str, Any]
                   ) -> Instance:
        """object.__new__(cls, *args): CPython's object_new, whose extra arguments are
        an error unless the class has its own `__init__` and not its own `__new__`."""
        if cls.builtin is not None:  # (tp_new_wrapper: the first class without its own)
            safe = next(c for c in cls.mro if is_builtin_new(c.lookup("__new__")))
            raise TorchTypeError(f"object.__new__({cls.name}) is not safe, use "
                                 f"{safe.name}.__new__()")
        if cls.enum is not None:
            raise NotSupportedError(f"object.__new__ of the enumeration {cls.name} is not "
                                    "supported")
        if (args or kwargs) and cls.exception_kind is None:
            if cls.lookup("__new__") is not _OBJECT_NEW:
                raise TorchTypeError("object.__new__() takes exactly one argument (the type "
                                     "to instantiate)")
            if cls.lookup("__init__") is _OBJECT_INIT:
                raise TorchTypeError(f"{cls.name}() takes no arguments")
        self.check_abstract(cls)
        inst = Instance(cls)
        if cls.exception_kind is not None:
            inst.attrs["args"] = tuple(args)
        return inst

    def check_abstract(self, cls: ScriptClass) -> None:
        """abc.ABCMeta's check when an instance is made: every abstract method implemented."""
        self.abstracts.check(cls)

    def bind(self, value: Any, obj: Any) -> Any:
        """What a class attribute becomes when read through an instance (Python's
        descriptor protocol, for the descriptors the language has)."""
        kind = type(value)
        if kind is UserFunction or kind is NativeFunction or isinstance(value, FunctionWrapper):
            return Method(obj, value)
        if kind is StaticMethod:
            return value.function
        if kind is ClassMethod:
            return Method(obj.cls if type(obj) is Instance else obj.pyclass
                          if type(obj) is ScriptTensor else obj, value.function)
        if kind is Property:
            return self.property_get(value, obj)
        if kind is CachedProperty:
            result = self.call(value.func, [obj], {}, None)
            if type(obj) is Instance and value.attrname is not None:
                obj.attrs[value.attrname] = result
            return result
        if kind is PartialMethod:
            return partial(self.call_partial, Method(obj, value.func), *value.args,
                           **value.keywords)
        if kind is Instance and descriptors.getter(value) is not MISSING:  # its __get__
            return descriptors.describe(self, value, obj,
                                        obj.cls if type(obj) is Instance else self.type_of(obj))
        return value

    def call_partial(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.call(fn, args, kwargs, None)

    def property_get(self, prop: Property, obj: Any) -> Any:
        if prop.fget is None:
            raise attribute_error(f"property '{prop.name}' of '{type_name(obj)}' object has "
                                  "no getter")
        return self.call(prop.fget, [obj], {}, None)

    # ------------------------------------------------------------------ instances

    def instance_getattr(self, obj: Instance, name: str) -> Any:
        cls = obj.cls
        value = cls.lookup(name)
        if type(value) is Property:
            return self.property_get(value, obj)
        if type(value) is Instance and descriptors.is_data_descriptor(value):
            return self.bind(value, obj)  # (a data descriptor wins over the instance's own)
        found = obj.attrs.get(name, MISSING)
        if found is not MISSING and name not in _DATA_DESCRIPTORS:
            return found
        if value is not MISSING:
            return self.bind(value, obj)
        if name == "fromkeys" and cls.builtin is dict:  # a classmethod: the class's own
            return stdlib.BoundMethod(cls, self.subclass_fromkeys, name)
        if cls.builtin is not None and not is_dunder(name):
            method = self.builtin_method(obj, name)
            if method is not None:
                return method
        if is_dunder(name):
            if name == "__class__":
                return cls
            if name == "__dict__" and cls.builtin is dict and obj.attrs is obj.value:
                return obj  # `self.__dict__ = self` (then `self.__dict__.update(kw)`)
            if name == "__dict__" and self.dict_live(cls):
                if slot_names(self, cls) is None:  # (else it has none: AttributeError)
                    return obj.attrs  # live, as Python's: `fmt.format(**self.__dict__)`
            elif name in REFUSED_DUNDERS:
                raise refused(f"'{cls.name}' objects", name)
        hook = cls.lookup("__getattr__")
        if hook is not MISSING:
            try:
                return self.call_bound(hook, obj, (name,))
            except ScriptError as err:
                # (Python gives an AttributeError its load's object and name when it has
                # none, for the suggestion it shows uncaught)
                if err.kind == "AttributeError" and err.suggest is None:
                    err.suggest = lambda: self.suggestion(obj, name)
                raise
        err = attribute_error(f"'{cls.name}' object has no attribute '{name}'")
        err.suggest = lambda: self.suggestion(obj, name)
        raise err

    def suggestion(self, obj: Instance, name: str) -> str | None:
        """Python's "Did you mean" for `obj.name`, searching dir(obj): torch's names for
        what derives from bundled library code (whose own helpers are not torch's); none
        for an exception or enumeration, whose builtin names gradtrace does not list."""
        cls = obj.cls
        if self.dict_readable(cls):
            return closest(name, instance_dir(obj))
        if cls.exception_kind is not None or cls.enum is not None:
            return None
        names = library_instance_dir(obj, self.library.modules)
        return None if names is None else closest(name, names)

    def dict_readable(self, cls: ScriptClass) -> bool:
        """Whether a script may read `__dict__` of a `cls` instance: its attributes are
        Python's own only when no library class (a Module's or optimizer's attributes are
        not torch's), builtin exception (its `args`) or enumeration is behind it."""
        modules = self.library.modules
        return (cls.exception_kind is None and cls.enum is None
                and not any(klass.module in modules for klass in cls.mro))

    def dict_live(self, cls: ScriptClass) -> bool:
        """Whether `__dict__` (and vars()) of a `cls` instance is its live attribute dict:
        where dict_readable says so, and for an nn.Module, whose attributes the bundled
        Module keeps as torch's own (Module.__init__'s tables, in its order, then what
        the module sets): autograd-hacks keeps its hook handles by
        `model.__dict__.setdefault(...)`; and for types.SimpleNamespace, whose attributes
        are the keywords it was given (`models.__dict__[name]` of a namespace of models);
        and for argparse.Namespace, whose attributes are the parsed arguments
        (`sorted(args.__dict__.items())` printing a configuration)."""
        if self.dict_readable(cls):
            return True
        return cls.exception_kind is None and any(
            (klass.module, klass.qualname) in _LIVE_DICT_LIBRARY_CLASSES
            and klass.module in self.library.modules for klass in cls.mro)

    def instance_setattr(self, obj: Instance, name: str, value: Any) -> None:
        hook = obj.cls.lookup("__setattr__")
        if hook is _OBJECT_SETATTR:
            self.plain_setattr(obj, name, value)
        else:
            self.call_bound(hook, obj, (name, value))

    def instance_delattr(self, obj: Instance, name: str) -> None:
        hook = obj.cls.lookup("__delattr__")
        if hook is _OBJECT_DELATTR:
            self.plain_delattr(obj, name)
        else:
            self.call_bound(hook, obj, (name,))

    def plain_setattr(self, obj: Instance, name: Any, value: Any) -> None:
        """`object.__setattr__`: a property's setter, else the instance's own dict."""
        name = _attribute_name(name)
        if is_dunder(name):
            if name == "__dict__" and value is obj and obj.cls.builtin is dict:
                obj.attrs = obj.value  # `self.__dict__ = self`: its items are its attributes
                return
            if name == "__dict__" and self.dict_live(obj.cls) and \
                    slot_names(self, obj.cls) is None:
                # the given dict becomes the attributes (learn2learn's clone_module:
                # `clone.__dict__ = module.__dict__.copy()` on a Module made by __new__)
                if type(value) is dict:
                    obj.attrs = value
                    return
                if not (type(value) is Instance and value.cls.builtin is dict):
                    raise TorchTypeError("__dict__ must be set to a dictionary, not a "
                                         f"'{type_name(value)}'")
            if not instance_dunder_settable(name):
                raise NotSupportedError(f"setting attribute '{name}' of '{obj.cls.name}' "
                                        "objects is not supported")
        if obj.cls is OBJECT:
            raise attribute_error(f"'object' object has no attribute '{name}'")
        prop = obj.cls.lookup(name)
        if type(prop) is Property:
            if prop.fset is None:
                raise attribute_error(f"property '{name}' of '{obj.cls.name}' object has no "
                                      "setter")
            self.call(prop.fset, [obj, value], {}, None)
            return
        if type(prop) is Instance and descriptors.is_data_descriptor(prop):
            descriptors.assign(self, prop, obj, name, value)
            return
        if name not in obj.attrs:  # (a name already set passed this check)
            check_slot(self, obj, name)
        obj.attrs[name] = value

    def plain_delattr(self, obj: Instance, name: Any) -> None:
        name = _attribute_name(name)
        if is_dunder(name) and not instance_dunder_settable(name):
            raise NotSupportedError(f"deleting attribute '{name}' of '{obj.cls.name}' objects "
                                    "is not supported")
        prop = obj.cls.lookup(name)
        if type(prop) is Property:
            if prop.fdel is None:
                raise attribute_error(f"property '{name}' of '{obj.cls.name}' object has no "
                                      "deleter")
            self.call(prop.fdel, [obj], {}, None)
            return
        if type(prop) is Instance and descriptors.is_data_descriptor(prop):
            descriptors.remove(self, prop, obj)
            return
        if name not in obj.attrs:
            raise attribute_error(f"'{obj.cls.name}' object has no attribute '{name}'")
        del obj.attrs[name]

    # ------------------------------------------------------------------ classes

    def function_getattr(self, fn: Any, name: str) -> Any:
        """The few attributes of a function (or method, descriptor) a script may read."""
        kind = type(fn)
        if kind is Method:
            if name == "__self__":
                return fn.obj
            if name == "__func__":
                return fn.function
            return self.function_getattr(fn.function, name)
        if name == "__isabstractmethod__" and kind in (StaticMethod, ClassMethod, Property):
            return self.abstracts.is_abstract(fn)  # Python's descriptors answer False too
        if kind is StaticMethod or kind is ClassMethod:
            if name == "__func__":
                return fn.function
        if kind is Property:
            if name in ("fget", "fset", "fdel"):
                return getattr(fn, name)  # a fixed name, not the script's
            if name in ("getter", "setter", "deleter"):
                return NativeFunction(name, "property", getattr(fn, name))
            if name == "__doc__":
                return fn.doc
        if kind is UserFunction or isinstance(fn, FunctionWrapper):
            target = fn.wrapped if isinstance(fn, FunctionWrapper) else fn
            if name == "__name__":
                return target.name
            if name == "__qualname__":
                return target.qualname
            if name == "__doc__":
                return target.doc
            if name == "__module__":
                return target.module
            if name in FUNCTION_INTROSPECTION and type(target) is UserFunction:
                return function_attribute(target, name)
            if name == "__isabstractmethod__" and self.abstracts.is_abstract(target):
                return True  # abc.abstractmethod's mark (a function unmarked has none)
            own = target.attrs if type(target) is UserFunction else None
            if own is not None and name in own:  # (one the script set on it)
                return own[name]
        if kind is NativeFunction and name == "__name__":
            return fn.name
        if kind is NativeFunction and name == "__qualname__":  # `TensorBase.add`, `str.lower`
            return f"{fn.owner.rpartition('.')[2]}.{fn.name}"
        if kind is BuiltinClass and name in fn.attributes:
            return fn.attributes[name]
        if kind is BuiltinFunction or kind is BuiltinClass or kind in _PYTHON_CALLABLES \
                or kind is NumpyFunction:
            found = fn.dunder_name(name) if kind is NumpyFunction else builtin_name(fn, name)
            if found is not MISSING:
                return found
        if name.startswith("_") and not is_dunder(name):
            raise refused(f"'{type_name(fn)}' objects", name)
        raise missing_dunder(f"'{type_name(fn)}' objects", name,
                             f"'{type_name(fn)}' object has no attribute '{name}'")


# Python's own callables a script may hold: `len`, `random.random` and `random.choice`
_PYTHON_CALLABLES = (BuiltinFunctionType, MethodType)


def builtin_name(fn: Any, name: str) -> Any:
    """`len.__name__`, `math.sqrt.__module__`, `random.choice.__qualname__`: the names of the
    Python builtin or bound method a builtin is or stands for (its twin), a string or None
    as Python's (`random.random.__module__` is None); MISSING for a module where the twin
    is one of gradtrace's own signatures."""
    if name not in ("__name__", "__qualname__", "__module__"):
        return MISSING
    raw = type(fn) in _PYTHON_CALLABLES
    twin = fn if raw else fn.twin
    if isinstance(twin, functools.partial) or \
            (getattr(twin, "__module__", None) or "").startswith("gradtrace"):
        return fn.name if name != "__module__" and not raw else MISSING
    value = getattr(twin, name, MISSING)
    return value if type(value) is str or value is None else MISSING


def _attribute_name(name: Any) -> str:
    if not isinstance(name, str):
        raise TorchTypeError(f"attribute name must be string, not '{type_name(name)}'")
    return name
