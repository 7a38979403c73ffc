"""Attributes of the values whose kind gives them a getter or method table: engine values
(dtypes, devices, generators, handles, saved tensors), Python's numbers, containers,
iterators, text and byte streams, and the wrapped library objects. `Attributes` asks here
after its own kinds (script objects, tensors, classes, functions, modules); nothing here
calls Python's getattr with a name the script chose, except on the fixed names a table
lists."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import stdlib
from ..bytes_methods import BYTES_METHODS
from ..engine.device import Device
from ..engine.dtypes import DType, TypeInfo
from ..engine.generator import Generator
from ..engine.ops.reductions import ReturnTypes
from ..engine.profiler import record_function
from ..engine.saved_hooks import RawSavedTensor, saved_tensors_hooks
from ..engine.shapes import Size
from ..engine.tensor import RemovableHandle
from ..errors import NotSupportedError, ScriptError
from . import memory_io, text_io, wrapped
from .chaining import CHAIN_NAMES, chain_attribute
from .collection_types import (
    COUNTER_METHODS,
    DEFAULTDICT_METHODS,
    DEQUE_METHODS,
    MISSING,
    Counter,
    defaultdict,
    deque,
    namedtuple_attribute,
    partial,
)
from .generators import generator_attribute
from .hashlib_module import HashObject, hash_object_attribute
from .numpy_module import array_attribute, is_numpy_value
from .numpy_random import RandomSource, random_source_attribute
from .objects import ClassMethod, Method, ScriptGenerator, ScriptIterator
from .random_module import PyRandom, random_instance_attribute
from .system_modules import StructSequence, struct_attribute
from .typed_classes import NamedTupleNew

STATE_METADATA = "_metadata"
"""The attribute torch's Module.state_dict sets on the OrderedDict it returns (the modules'
versions) and load_state_dict reads back: scripts read, set and delete it too (converting
old checkpoints, `getattr(state_dict, "_metadata", None)` in checkpoint loaders)."""


def state_metadata(state_dict: Any) -> Any:
    """`state_dict._metadata`, or Python's AttributeError where none was set."""
    found = getattr(state_dict, "state_metadata", None)
    if found is None and not hasattr(state_dict, "state_metadata"):
        raise ScriptError(f"'collections.OrderedDict' object has no attribute "
                          f"'{STATE_METADATA}'", kind="AttributeError")
    return found


_COUNTING_METHODS = {Counter: COUNTER_METHODS, defaultdict: DEFAULTDICT_METHODS}

# Python's own iterators over builtin values (`iter(xs)`, zip, ...) and the language's own
# (`map`, `iter(a_dict)`: ScriptIterator), which have `__next__` and an `__iter__` that
# returns themselves
_ITERATORS: tuple[type, ...] = tuple({type(iter(x)) for x in (
    [], (), "", b"", {}, set(), range(0), {}.values(), {}.items(), reversed([]), reversed(()),
    reversed(range(0)), reversed({}))} | {zip, map, filter, enumerate, ScriptIterator})
# the container protocol's dunders a builtin container's value has, and the types having each
_CONTAINER_DUNDERS: dict[str, tuple[type, ...]] = {
    "__getitem__": (list, tuple, str, dict, deque), "__setitem__": (list, dict, deque),
    "__delitem__": (list, dict), "__contains__": (list, tuple, str, dict, set, frozenset, deque),
    "__len__": (list, tuple, str, dict, set, frozenset, deque),
    "__iter__": (list, tuple, str, dict, set, frozenset, deque, *_ITERATORS),
    "__next__": _ITERATORS}


def value_attribute(attrs: Any, obj: Any, name: str) -> Any:
    """`obj.name` of the values whose attributes are a getter or method table of their kind
    (dtypes, devices, numbers, containers, text and byte streams, generators, handles, ...):
    the tail of `Attributes._get_attribute`'s chain, after the script's own objects, tensors,
    classes, functions and modules. `attrs` is the interpreter (its tables and guards)."""
    kind = type(obj)
    table: dict[str, Callable[..., Any]] | None = None
    if kind is ScriptGenerator:
        found = generator_attribute(attrs, obj, name)
        return attrs._missing(obj, name) if found is None else found
    if is_numpy_value(obj):
        return array_attribute(obj, name)
    if kind is RandomSource:
        return random_source_attribute(attrs, obj, name)
    if kind is NamedTupleNew:
        found = obj.attribute(name)
        return attrs._missing(obj, name) if found is MISSING else found
    if kind is PyRandom:
        found = random_instance_attribute(obj, name)
        return attrs._missing(obj, name) if found is None else found
    if kind is HashObject:
        found = hash_object_attribute(obj, name)
        return attrs._missing(obj, name) if found is None else found
    if isinstance(obj, DType):
        getter = stdlib.DTYPE_ATTRIBUTES.get(name)
        if getter is not None:
            return getter(obj, attrs)
    elif isinstance(obj, TypeInfo):
        if name in stdlib.TYPE_INFO_ATTRIBUTES[type(obj)]:
            return getattr(obj, name)
    elif isinstance(obj, Device):
        getter = stdlib.DEVICE_ATTRIBUTES.get(name)
        if getter is not None:
            return getter(obj, attrs)
    elif isinstance(obj, saved_tensors_hooks):
        getter = stdlib.SAVED_TENSORS_HOOKS_ATTRIBUTES.get(name)
        if getter is not None:
            return getter(obj, attrs)
    elif isinstance(obj, record_function):
        getter = stdlib.RECORD_FUNCTION_ATTRIBUTES.get(name)
        if getter is not None:
            return getter(obj, attrs)
    elif isinstance(obj, StructSequence):
        found = struct_attribute(obj, name)
        if found is not None:
            return found
        table = stdlib.TUPLE_METHODS
    elif isinstance(obj, ReturnTypes):
        if name in obj.fields:
            return obj.field(name)
        table = stdlib.TUPLE_METHODS
    elif isinstance(obj, Size):
        table = stdlib.SIZE_METHODS
    elif isinstance(obj, list):
        table = stdlib.LIST_METHODS
    elif isinstance(obj, tuple):
        if kind in attrs.namedtuple_classes:
            found = namedtuple_attribute(obj, name)
            if found is not MISSING:
                return found
            extras = attrs.namedtuple_extras.get(kind)
            if extras is not None and name in extras:  # `class P(NamedTuple)`'s body
                value = extras[name]
                if type(value) is ClassMethod:
                    return Method(attrs.builtin_types[kind], value.function)
                return attrs.bind(value, obj)
        table = stdlib.TUPLE_METHODS
    elif isinstance(obj, dict):
        if kind is stdlib.OrderedDict and name == STATE_METADATA:
            return state_metadata(obj)
        table = stdlib.ORDERED_DICT_METHODS if kind is stdlib.OrderedDict \
            else _COUNTING_METHODS.get(kind, stdlib.DICT_METHODS)
    elif isinstance(obj, str):
        if name == "format":
            return stdlib.BoundMethod(obj, attrs.format_method, name)
        if name == "format_map":
            return stdlib.BoundMethod(obj, attrs.format_map_method, name)
        table = stdlib.STR_METHODS
    elif isinstance(obj, (set, frozenset)):
        table = stdlib.SET_METHODS if kind is set else stdlib.FROZENSET_METHODS
    elif kind is bytes:
        table = BYTES_METHODS
    elif kind is range:
        if name in stdlib.RANGE_ATTRIBUTES:
            return getattr(obj, name)  # (a fixed name)
        table = stdlib.RANGE_METHODS
    elif isinstance(obj, RemovableHandle):
        table = stdlib.HANDLE_METHODS
    elif kind is RawSavedTensor:
        table = stdlib.RAW_SAVED_METHODS
    elif kind is memory_io.BytesIO:
        if name in memory_io.BYTES_IO_ATTRIBUTES:
            return getattr(obj, name)
        table = memory_io.BYTES_IO_METHODS
    elif isinstance(obj, Generator):
        getter = stdlib.GENERATOR_ATTRIBUTES.get(name)
        if getter is not None:
            return getter(obj, attrs)
        table = stdlib.GENERATOR_METHODS
    elif isinstance(obj, ScriptError) and name == "args":
        return getattr(obj, "script_args", (obj.message,))
    elif isinstance(obj, ScriptError) and name in CHAIN_NAMES:
        return chain_attribute(obj, name)
    elif isinstance(obj, ScriptError) and name in getattr(obj, "python_attributes", ()):
        return obj.python_attributes[name]  # (a SyntaxError's msg, lineno, ...)
    elif isinstance(obj, ScriptError) and name == "code" and obj.kind == "SystemExit":
        return getattr(obj, "code", None)
    elif isinstance(obj, ScriptError) and name == "value" and obj.kind == "StopIteration":
        return getattr(obj, "value", None)
    elif kind is text_io.ScriptStream:
        if name == "name":  # sys.stdout.name
            return f"<{obj.name}>"
        table = text_io.STREAM_METHODS
    elif kind is text_io.StringIO:
        if name in text_io.STRING_IO_ATTRIBUTES:
            return obj.closed
        table = text_io.STRING_IO_METHODS
    elif kind is partial and name in ("func", "args", "keywords"):
        return getattr(obj, name)
    elif kind is int or kind is float or kind is bool:
        if name in stdlib.NUMBER_ATTRIBUTES[float if kind is float else int]:
            return getattr(obj, name)
        table = stdlib.FLOAT_METHODS if kind is float else stdlib.INT_METHODS
        if name.startswith("__"):
            dunders = attrs.number_dunder_table[kind]
            if name in dunders:
                return stdlib.BoundMethod(obj, dunders[name], name, wrapper=True)
    elif kind is complex:
        if name in stdlib.NUMBER_ATTRIBUTES[complex]:
            return getattr(obj, name)
        table = stdlib.COMPLEX_METHODS
    elif kind is deque:
        if name == "maxlen":
            return obj.maxlen
        table = DEQUE_METHODS
    elif kind in wrapped.OBJECT_TABLES:
        getters, table = wrapped.OBJECT_TABLES[kind]
        if name in getters:
            return getters[name](obj)
        refused = wrapped.REFUSED.get(kind)
        if refused is not None and name in refused:
            raise NotSupportedError(refused[name])
    if table is not None and name in table:
        return stdlib.BoundMethod(obj, attrs.guarded_method(table[name], name), name)
    if name in _CONTAINER_DUNDERS and isinstance(obj, _CONTAINER_DUNDERS[name]):
        return stdlib.BoundMethod(obj, attrs.container_dunder(name), name)
    return attrs._missing(obj, name)
