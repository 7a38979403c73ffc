"""Attribute reads: per-type allow-lists in `stdlib` for the engine's values and Python's
containers, `classes.py` (instances) and `class_attributes.py` (classes, super()) for script
objects; Python's and torch's classes are `type_attributes.py`'s, writes and deletes
`attribute_writes.py`'s. Nothing here calls Python's getattr with a name the script chose."""
from __future__ import annotations

import types
import weakref
from collections.abc import Callable
from functools import cached_property
from typing import Any

from .. import stdlib
from ..engine.custom_function import FunctionCtx
from ..engine.generator import Generator
from ..engine.node import AccumulateGrad, Node
from ..engine.storage import TypedStorage, UntypedStorage
from ..engine.tensor import Tensor
from ..errors import GradtraceError, NotSupportedError, ScriptError
from ..source import Span
from ..tensor_types import ScriptType
from . import descriptors, tensor_subclasses, typing_generics, wrapped
from .builtin_classes import as_builtin, unwrap_str
from .bytes_values import GROWING, grown
from .chaining import CHAIN_NAMES, chain_attribute
from .classes import REFUSED_DUNDERS
from .generic_classes import ScriptGenericAlias, alias_attribute
from .module_dicts import ModuleDict, module_dict_attribute
from .nesting import HASHED, check_all_hashable, check_hashable
from .numpy_module import NumpyFunction
from .objects import MISSING as NO_NAME
from .objects import (
    BuiltinClass,
    BuiltinFunction,
    BuiltinType,
    ClassMethod,
    FunctionWrapper,
    Instance,
    Method,
    NativeFunction,
    OpaqueType,
    Property,
    ScriptClass,
    StaticMethod,
    Super,
    SuperBuiltin,
    UserFunction,
    is_dunder,
    script_message,
    type_name,
)
from .operator_dunders import SLOT_WRAPPERS, number_dunders, tensor_dunders
from .operators import COMPARE
from .runtime import PYTHON_ERRORS
from .suggestions import closest, tensor_dir
from .torch_functions import FUNCTION_ATTRIBUTES as TORCH_FUNCTION_ATTRIBUTES
from .torch_functions import TorchFunction, script_value, tensor_python_method
from .torch_functions import function_attribute as torch_function_attribute
from .typecheck import TypeBuiltin, is_torch_class, torch_class_attribute
from .typed_classes import TypingClass
from .typing_module import NewTypeValue, TypeVarName, TypingName
from .value_attributes import value_attribute

# a tensor's storage (Tensor.untyped_storage(), and the deprecated typed one of
# Tensor.storage()): its device and the read-only methods torch's storages have; nothing
# else of it (its owning array) is reachable
_STORAGE_READ_ONLY = dict.fromkeys(
    ("copy_", "fill_", "resize_", "share_memory_", "zero_", "byteswap", "pin_memory", "clone",
     "cpu", "to", "float", "double", "half", "int", "long", "type"),
    "a storage is read only in gradtrace: its bytes, size and address; change the tensor "
    "instead")
wrapped.register(UntypedStorage, {"device": lambda s: s.device, "is_cuda": lambda s: False,
                                  "is_sparse": lambda s: False},
                 {name: getattr(UntypedStorage, name) for name in (
                     "tolist", "nbytes", "size", "element_size", "data_ptr", "is_shared",
                     "untyped")},
                 _STORAGE_READ_ONLY)
wrapped.register(TypedStorage, {"device": lambda s: s.device, "dtype": lambda s: s.dtype,
                                "is_cuda": lambda s: False, "is_sparse": lambda s: False},
                 {name: getattr(TypedStorage, name) for name in (
                     "tolist", "nbytes", "size", "element_size", "data_ptr", "is_shared",
                     "untyped")},
                 _STORAGE_READ_ONLY)

STRFTIME_GROWTH = 12  # the most a format's text can grow: `%c` is 24 characters
_FUNCTION_LIKE = (UserFunction, Method, StaticMethod, ClassMethod, Property, NativeFunction,
                  BuiltinClass, BuiltinFunction, types.BuiltinFunctionType, types.MethodType,
                  NumpyFunction)
# the methods that walk an iterable argument in C: lazy iterables are built first, counted
_CONSUMING = frozenset({"join", "extend", "update", "union", "intersection", "difference",
                        "symmetric_difference", "issubset", "issuperset", "isdisjoint",
                        "intersection_update", "difference_update",
                        "symmetric_difference_update"})



_BUILTIN_TABLES: dict[type, dict[str, Callable[..., Any]]] = {
    dict: stdlib.DICT_METHODS, list: stdlib.LIST_METHODS, str: stdlib.STR_METHODS,
    tuple: stdlib.TUPLE_METHODS,
}
"""The methods of a builtin subclass's value, by its type (int and float have none)."""

_MODULE_NAMES = {"os.path": "posixpath"}
"""A module's `__name__` where it differs from the dotted name a script imports it by."""

_BOUND_METHOD_NAMES: dict[str, Callable[[Any], Any]] = {
    "__name__": lambda m: m.name if m.python is None else m.python[0],
    "__qualname__": lambda m: f"{stdlib.owner_name(m.obj)}.{m.name}" if m.python is None
    else m.python[1],
    "__module__": lambda m: None if m.python is None else m.python[2]}
"""What a method bound to its object (`t.add`, `xs.append`, `t.backward`) tells of its name,
as Python's do (`Tensor.add`, `list.append`; a C method has no module; torch's Python ones
theirs: `Tensor.backward` of `torch._tensor`)."""


class TensorDicts:
    """What a script stores on a tensor object (`inp.g = ...`, fastai's hand-written
    backward): torch keeps it in the Python object's `__dict__`; here a table keyed by the
    tensor's identity whose entry goes when the tensor does."""

    def __init__(self) -> None:
        self._table: dict[int, tuple[weakref.ref, dict[str, Any]]] = {}

    def get(self, tensor: Tensor) -> dict[str, Any] | None:
        entry = self._table.get(id(tensor))
        return None if entry is None else entry[1]

    def lookup(self, tensor: Tensor, name: str) -> Any:
        """What the script stored on `tensor` as `name`, else NO_NAME (checked on every
        tensor method read, so a run that stored nothing answers without a lookup)."""
        if not self._table:
            return NO_NAME
        entry = self._table.get(id(tensor))
        return NO_NAME if entry is None else entry[1].get(name, NO_NAME)

    def swap(self, a: Tensor, b: Tensor) -> None:
        """torch.utils.swap_tensors: each object takes what the script stored on the other."""
        stored_a, stored_b = dict(self.get(a) or {}), dict(self.get(b) or {})
        for tensor, stored in ((a, stored_b), (b, stored_a)):
            if stored or self.get(tensor) is not None:
                own = self.setdefault(tensor)
                own.clear()
                own.update(stored)

    def setdefault(self, tensor: Tensor) -> dict[str, Any]:
        key = id(tensor)
        entry = self._table.get(key)
        if entry is None:
            table = self._table
            entry = table[key] = (weakref.ref(tensor, lambda _ref: table.pop(key, None)), {})
        return entry[1]



# the methods of a plain list, dict and str, which `_get_attribute` reads before its chain of
# other kinds (a str's format and format_map are its own: they check their widths)
_PLAIN_CONTAINER_METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    list: stdlib.LIST_METHODS, dict: stdlib.DICT_METHODS,
    str: {name: fn for name, fn in stdlib.STR_METHODS.items()
          if name not in ("format", "format_map")}}


class Attributes:
    """Reading attributes of script values (writes: attribute_writes.py)."""

    tensor_dicts: TensorDicts
    namedtuple_classes: set[type]
    module_dicts: dict[int, ModuleDict]
    modules: dict[str, stdlib.Namespace]
    module_attributes: dict[str, dict[str, Any]]

    def get_attribute(self, obj: Any, name: str, span: Span) -> Any:
        """Attribute access through the per-type tables in `stdlib` only."""
        try:
            result = self._get_attribute(obj, name)
        except GradtraceError as err:
            err.at(span)
            raise
        if self.tracer is not None:
            self.tracer.attribute_read(obj, name, result)
        return result

    def namespace_offers(self, namespace: stdlib.Namespace, name: str) -> bool:
        """Whether attribute lookup finds `name` in the module's table or among the names
        the script added to it (`_get_attribute`'s Namespace branch)."""
        return name in namespace.table or \
            name in self.module_attributes.get(namespace.name, ())

    def namespace_names(self, namespace: stdlib.Namespace) -> list[str]:
        """The names attribute lookup finds on a module (`_get_attribute`'s Namespace
        branch: its table, then the names the script added), in that order."""
        added = self.module_attributes.get(namespace.name, ())
        return [*namespace.table, *(name for name in added if name not in namespace.table)]

    def is_module(self, namespace: stdlib.Namespace) -> bool:
        """Whether a namespace stands for a module a script may import (not for an object
        torch puts in one: `torch.backends.cuda.matmul`, whose `__dict__` is its own)."""
        return self.modules.get(namespace.name) is namespace

    def module_dict(self, namespace: stdlib.Namespace) -> ModuleDict:
        """`module.__dict__` and `vars(module)`: one view per module and run, so
        `vars(m) is m.__dict__` as in Python."""
        view = self.module_dicts.get(id(namespace))
        if view is None:  # (the view holds the namespace: its id stays its own)
            view = self.module_dicts[id(namespace)] = ModuleDict(self, namespace)
        return view

    @cached_property
    def tensor_dunder_table(self) -> dict[str, Callable[..., Any]]:
        """A tensor's protocol methods (operator_dunders), built on first use."""
        return tensor_dunders(self)

    @cached_property
    def number_dunder_table(self) -> dict[type, dict[str, Callable[..., Any]]]:
        """An int's, bool's and float's protocol methods, built on first use."""
        return number_dunders(self)

    @cached_property
    def _guarded_methods(self) -> dict[tuple[Callable[..., Any], str], Callable[..., Any]]:
        return {}

    def guarded_method(self, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        """`guarded(fn, name)`, made once per run: a loop's `xs.append(x)` reads it again
        and again."""
        key = (fn, name)
        found = self._guarded_methods.get(key)
        if found is None:
            found = self._guarded_methods[key] = self.guarded(fn, name)
        return found

    def _get_attribute(self, obj: Any, name: str) -> Any:
        kind = type(obj)
        if kind is list or kind is dict or kind is str:  # (the commonest: before the chain)
            fn = _PLAIN_CONTAINER_METHODS[kind].get(name)
            if fn is not None:
                return stdlib.BoundMethod(obj, self.guarded_method(fn, name), name)
        if kind is Instance:
            if name in CHAIN_NAMES and obj.cls.exception_kind is not None:
                return chain_attribute(obj, name)
            return self.instance_getattr(obj, name)
        if name == "__class__":  # what `type(obj)` gives: `loss.grad_fn.__class__.__name__`
            return self.type_of(obj)
        if kind is tensor_subclasses.ScriptTensor:  # class MyTensor(torch.Tensor)
            found = tensor_subclasses.instance_attribute(self, obj, name)
            if found is not NO_NAME:
                return found
            getter = stdlib.TENSOR_ATTRIBUTES.get(name)
            if getter is not None:
                return tensor_subclasses.property_read(self, obj, name, getter)
            if name == "as_subclass":
                return stdlib.BoundMethod(obj, tensor_subclasses.as_subclass, name)
            hook = tensor_subclasses.own_lookup(obj.pyclass, "__getattr__")
            if hook is not NO_NAME:
                try:
                    return self.tensor_attribute(obj, name)
                except ScriptError as err:
                    if err.kind != "AttributeError":
                        raise
                return self.call_bound(hook, obj, (name,))
        if isinstance(obj, Tensor):
            return self.tensor_attribute(obj, name)
        return self._other_attribute(obj, kind, name)

    def tensor_attribute(self, obj: Tensor, name: str) -> Any:
        """A tensor's own attribute (a subclass instance's too, past its class's)."""
        if name == "as_subclass":  # t.as_subclass(MyTensor)
            return stdlib.BoundMethod(obj, tensor_subclasses.as_subclass, name)
        if self.tensor_class_attributes.by_class:  # `torch.Tensor.ndim = property(..)`
            patched = self.tensor_class_attributes.on_tensor(obj, name)
            if patched is not NO_NAME:
                return self.patched_tensor_attribute(obj, name, patched)
        getter = stdlib.TENSOR_ATTRIBUTES.get(name)
        if getter is not None:
            return getter(obj, self)
        method = stdlib.TENSOR_METHODS.get(name)
        written = None if method is not None else stdlib.TENSOR_LIBRARY_METHODS.get(name)
        if method is None and written is None and name in stdlib.NOT_SUPPORTED_METHODS:
            raise NotSupportedError(stdlib.NOT_SUPPORTED_METHODS[name])
        # an attribute the script set shadows a method, as in Python (a notebook's
        # `target.requires_grad_ = True`)
        stored = self.tensor_dicts.lookup(obj, name)
        if stored is not NO_NAME:
            return stored
        if method is not None:
            return stdlib.BoundMethod(obj, method, name, tensor_python_method(name))
        if written is not None:
            return Method(obj, self.library.resolve(written))
        if name == "__dict__":  # the attributes the script set: live, as torch's
            return self.tensor_dicts.setdefault(obj)
        if name.startswith("__"):
            dunders = self.tensor_dunder_table
            if name in dunders:
                return stdlib.BoundMethod(obj, dunders[name], name,
                                          tensor_python_method(name),
                                          name in SLOT_WRAPPERS)
        return self._missing(obj, name)

    def _other_attribute(self, obj: Any, kind: type, name: str) -> Any:
        if kind is ScriptClass:
            return self.class_getattr(obj, name)
        if kind is ScriptGenericAlias:
            return alias_attribute(self, obj, name)
        if kind is NewTypeValue:
            return obj.attribute(name)
        if isinstance(obj, TypingName) and type(obj) is not TypingClass or \
                kind is TypeVarName:
            found = typing_generics.alias_attribute(self, obj, name) if kind is not \
                TypeVarName else typing_generics.typevar_attribute(obj, name)
            return found if found is not typing_generics.MISSING else self._missing(obj, name)
        if kind is Super:
            return self.super_getattr(obj, name)
        if kind is SuperBuiltin:  # the class `super` itself
            found = obj.attribute(name)
            if found is NO_NAME:
                if stdlib.is_private(name):
                    raise stdlib.not_supported_attribute(obj, name)
                raise ScriptError(f"type object 'super' has no attribute '{name}'",
                                  kind="AttributeError")
            return found
        if kind is stdlib.BoundMethod and name in _BOUND_METHOD_NAMES:
            return _BOUND_METHOD_NAMES[name](obj)
        if kind is TorchFunction:
            if name in TORCH_FUNCTION_ATTRIBUTES:
                return torch_function_attribute(obj, name)
            return self._missing(obj, name)
        if kind in _FUNCTION_LIKE or isinstance(obj, FunctionWrapper):
            return self.function_getattr(obj, name)
        if isinstance(obj, stdlib.Namespace):  # (module_dicts.py's view reads this too)
            value = obj.table.get(name)
            if value is not None or name in obj.table:  # np.newaxis is None
                if type(value) is float and self.module_attributes:  # torch.pi replaced
                    added = self.module_attributes.get(obj.name)
                    if added is not None and name in added:
                        return added[name]
                return self.library.resolve(value) if type(value) is stdlib.LibraryName \
                    else script_value(obj.name, name, value)
            added = self.module_attributes.get(obj.name)
            if added is not None and name in added:
                return added[name]
            if name == "__name__":  # `scheduler.__module__ == lr_scheduler.__name__` (d2l)
                return _MODULE_NAMES.get(obj.name, obj.name)
            if name == "__dict__" and self.is_module(obj):  # a lookup-only view
                return self.module_dict(obj)  # (`torch.optim.__dict__[name]`)
            raise stdlib.missing_namespace_name(obj, name)
        if kind is ModuleDict:
            found = module_dict_attribute(obj, name)
            return self._missing(obj, name) if found is NO_NAME else found
        if kind is BuiltinType or kind is OpaqueType or kind is TypeBuiltin or \
                isinstance(obj, (stdlib.ExceptionType, ScriptType)):
            return self.type_getattr(obj, name)
        if obj is Generator and name in stdlib.GENERATOR_METHODS:
            return self.generator_method_descriptor(name)
        if is_torch_class(obj):
            return torch_class_attribute(obj, name)
        if isinstance(obj, FunctionCtx):  # a custom Function's ctx, which is its grad_fn
            return stdlib.ctx_attribute(obj, name)
        if isinstance(obj, Node):
            if name == "variable" and isinstance(obj, AccumulateGrad):
                return obj.variable
            getter = stdlib.NODE_ATTRIBUTES.get(name)
            if getter is not None:
                return getter(obj, self)
            method = stdlib.NODE_METHODS.get(name)
            if method is not None:
                return stdlib.BoundMethod(obj, method, name)
            if name.startswith("_saved_"):
                return stdlib.node_saved(obj, name)
            if name.startswith("_raw_saved_"):
                return stdlib.node_raw_saved(obj, name)
            if name in stdlib.node_dir(obj):  # torch's node has it (dir lists it)
                raise stdlib.not_supported_attribute(obj, name)
            return self._missing(obj, name)
        return value_attribute(self, obj, name)

    def container_dunder(self, name: str) -> Callable[..., Any]:
        """`d.__setitem__`, `xs.__getitem__`, `s.__contains__`, `xs.__len__`, `it.__next__`
        of a builtin container or iterator as a value (`hook=lambda m, i, o:
        feats.__setitem__("out", o)`): the operation the syntax runs, checks and errors
        included."""
        if name == "__getitem__":
            return lambda obj, key, /: self.get_item(obj, key)
        if name == "__setitem__":
            return lambda obj, key, value, /: self.set_item(obj, key, value)
        if name == "__delitem__":
            return lambda obj, key, /: self.del_item(obj, key)
        if name == "__contains__":
            return lambda obj, item, /: COMPARE["in"](item, obj)
        if name == "__iter__":
            return self.builtins["iter"]
        if name == "__next__":
            return self.builtins["next"]
        return lambda obj, /: len(obj)

    def guarded(self, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        """A Python method of a list/str/dict/set: its errors become the script's errors;
        one that walks an iterable argument gets lazy ones built first, within the limit."""
        consuming = name in _CONSUMING
        keyed = name == "fromkeys"  # dict.fromkeys(keys) or d.fromkeys(keys)
        width = name in stdlib.STR_WIDTH_METHODS
        materialize = self.materialize

        def call(*args: Any, **kwargs: Any) -> Any:
            if args and type(args[0]) is Instance and args[0].cls.builtin is not None:
                args = (args[0].value, *args[1:])  # `str.lower(Mode.TRAIN)`, `L.append(l, 1)`
            if args and type(args[0]) is str:  # `"trainer".startswith(Mode.TRAIN)`
                args = tuple(unwrap_str(a) for a in args)
                if name == "join" and len(args) == 2:
                    args = (args[0], [unwrap_str(a) for a in materialize(args[1],
                                                                        "a join() argument")])
            if consuming:
                args = (args[0],) + tuple(materialize(a, f"a {name}() argument")
                                          for a in args[1:])
            elif keyed and len(args) > 1:  # the keys (not the value)
                args = (args[0], materialize(args[1], f"a {name}() argument"), *args[2:])
            if keyed or args and isinstance(args[0], HASHED):  # keys and items are hashed
                for arg in args:
                    check_hashable(arg)
                    if consuming or keyed:
                        check_all_hashable(arg)
            if width and len(args) > 1 and isinstance(args[1], int):
                self.check_size(args[1], f"a {name}() result")
            elif name in GROWING:
                args = grown(self, name, args, kwargs)
            elif name == "strftime" and len(args) > 1 and isinstance(args[1], str):
                self.check_size(len(args[1]) * STRFTIME_GROWTH, "a strftime() result")
            try:
                return fn(*args, **kwargs)
            except PYTHON_ERRORS as err:
                raise ScriptError(script_message(str(err), args), kind=type(err).__name__) \
                    from None

        return call

    def builtin_method(self, obj: Instance, name: str) -> Any:
        """A builtin subclass instance's method of its builtin type (`cfg.keys()`,
        `batch.append(x)`), from the same allow-list as the plain value's, bound to the
        value (operands that are builtin subclass instances passed as their values);
        None when the type has no such method."""
        value = obj.value
        if type(value) is str and name == "format":
            fn: Any = self.format_method
        else:
            table = _BUILTIN_TABLES.get(type(value))
            if table is None or name not in table:
                return None
            fn = self.guarded(table[name], name)

        def call(target: Any, *args: Any, **kwargs: Any) -> Any:
            args = tuple(as_builtin(a) for a in args)
            result = fn(target, *args, **kwargs)
            return obj if result is target else result

        return stdlib.BoundMethod(value, call, name)

    def exception_link(self, value: Any) -> Any:
        """What `e.__cause__ = value` links to: the error of an exception instance (the
        value itself when it is not one: set_chain_attribute refuses it)."""
        if type(value) is Instance and value.cls.exception_kind is not None:
            from .exception_classes import instance_error

            return instance_error(value)
        return value

    def _missing(self, obj: Any, name: str) -> Any:
        """No such attribute: Python's internals and undocumented `_names` are refused;
        anything else (an unknown dunder included) is Python's AttributeError."""
        script_own = isinstance(obj, Tensor) and not is_dunder(name) and \
            not stdlib.torch_has(obj, name)  # (a name only a script may give a tensor)
        if stdlib.is_private(name) and (not is_dunder(name) or name in REFUSED_DUNDERS) and \
                not script_own:
            raise stdlib.not_supported_attribute(obj, name)
        if isinstance(obj, Tensor) and stdlib.torch_has(obj, name):
            raise NotSupportedError(f"'Tensor.{name}' is not supported by gradtrace")
        err = ScriptError(f"'{type_name(obj)}' object has no attribute '{name}'",
                          kind="AttributeError")
        if isinstance(obj, Tensor):
            own = [key for key in self.tensor_dicts.get(obj) or () if type(key) is str]
            err.suggest = lambda: closest(name, tensor_dir(own))
        raise err

    def patched_tensor_attribute(self, obj: Tensor, name: str, value: Any) -> Any:
        """A name the script set on torch.Tensor (or nn.Parameter), read through a tensor:
        Python's order, a data descriptor before the tensor's own attributes, anything
        else after them."""
        kind = type(value)
        if kind is Property or kind is Instance and descriptors.is_data_descriptor(value):
            return self.bind(value, obj)
        stored = self.tensor_dicts.lookup(obj, name)
        if stored is not NO_NAME:
            return stored
        if kind is ClassMethod:
            return Method(self.type_of(obj), value.function)
        return self.bind(value, obj)
