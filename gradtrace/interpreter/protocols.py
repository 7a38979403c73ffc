"""Python's protocols on script values: truth, iteration, items, and building containers
from lazy iterables within the size limit."""
from __future__ import annotations

import collections
import operator
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..engine.batching import BatchedTensor, call
from ..engine.ndarray import ndarray, torch_index
from ..engine.shapes import Size
from ..engine.storage import TypedStorage, UntypedStorage
from ..engine.tensor import Parameter, Tensor
from ..errors import GradtraceError, LimitExceeded, NotSupportedError, ScriptError
from ..source import Span
from . import enums, torch_function_protocol
from .builtin_classes import as_builtin, number_operand
from .collection_types import deque
from .generic_classes import ScriptGenericAlias, subscript_class
from .module_dicts import MODULE_DICT_TYPES, ModuleDict
from .nesting import check_hashable
from .numpy_module import IndexTrick, NdIter
from .objects import (
    MISSING,
    BuiltinType,
    Instance,
    ScriptClass,
    ScriptGenerator,
    ScriptIterator,
    script_message,
    type_name,
)
from .regex_module import Match
from .runtime import PYTHON_ERRORS
from .tensor_subclasses import ScriptTensor
from .text_io import StringIO
from .typed_classes import TypingClass
from .typing_generics import SUBSCRIPTABLE_TYPES, resubscript
from .typing_module import GenericAlias, TypingName

# Python's own iterators over the containers scripts hold (what `iter()`, `zip`,
# `enumerate`, `reversed` and dict views give): their length is bounded by a container's.
PYTHON_ITERATORS = frozenset(type(it) for it in (
    iter([]), iter(()), iter(""), iter({}), iter({}.values()), iter({}.items()),
    iter(range(0)), iter(range(1 << 70)), iter(set()), reversed([]), reversed(range(0)),
    reversed(()), zip(), enumerate(()), iter(b""), reversed({}), iter(deque()),
    reversed(deque()), reversed({}.values()), reversed({}.items()),  # pytorch-flows'
    iter(collections.OrderedDict()),  # `reversed(self._modules.values())`, odict_iterator
))
ITERABLES = (list, tuple, str, bytes, range, dict, Size, set, frozenset, type({}.keys()),
             type({}.values()), type({}.items()), deque, ndarray, *MODULE_DICT_TYPES)
# containers whose length bounds what iterating them produces
SIZED = frozenset(ITERABLES)


# containers a loop's body can resize while it iterates them (Python's RuntimeError)
MUTABLE_HASHED = frozenset((dict, set, type({}.keys()), type({}.values()), type({}.items())))


def _guard_mutation(value: Any, span: Span | None) -> Iterator[Any]:
    """Iterate a dict or set, raising Python's RuntimeError as the script's own (its
    `except RuntimeError` catches it) when the loop changes the container's size."""
    try:
        yield from value
    except RuntimeError as err:
        raise ScriptError(str(err), span, kind="RuntimeError") from None


def _length_hint(iterator: Any) -> int:
    """How many items one of Python's iterators will give, where it can tell: its own
    length hint, or for zip and enumerate (which have none) their iterators' (at most
    a few levels down: deeper nesting is left to the item count)."""
    for _ in range(8):
        kind = type(iterator)
        if kind is enumerate:
            iterator = iterator.__reduce__()[1][0]
        elif kind is zip:
            inner = iterator.__reduce__()[1]
            if len(inner) != 1:
                return min((operator.length_hint(i) for i in inner), default=0)
            iterator = inner[0]
        else:
            return operator.length_hint(iterator)
    return 0


class Protocols:
    """Truth, iteration and subscripts of script values."""

    def truth(self, value: Any, span: Span | None) -> bool:
        try:
            return bool(value)
        except GradtraceError as err:
            err.at(span)
            raise
        except PYTHON_ERRORS as err:
            raise ScriptError(script_message(str(err), (value,)), span,
                              kind=type(err).__name__) from None

    def iterate(self, value: Any, span: Span | None, label: Span | None = None) -> Iterator[Any]:
        """Iterate a script value (a tensor unbinds, like torch's Tensor.__iter__).

        Errors point at `span`; the unbind is labelled with `label` (an assignment's
        statement), else with `span`.
        """
        kind = type(value)
        if kind is ScriptTensor and not torch_function_protocol.is_disabled():
            # torch's Tensor.__iter__: dim() and unbind(0), each through the class's hook
            if self.call(self.get_attribute(value, "dim", span), [], {}, span) == 0:
                raise ScriptError("iteration over a 0-d tensor", span, kind="TypeError")
            return iter(self.call(self.get_attribute(value, "unbind", span), [0], {}, span))
        if kind is Tensor or kind is Parameter or kind is BatchedTensor or kind is ScriptTensor:
            if value.ndim == 0:
                raise ScriptError("iteration over a 0-d tensor", span, kind="TypeError")
            where = label or span
            if where is not None:
                self.current_span = where
            try:
                return iter(call(type(value).unbind, value, 0))
            except GradtraceError as err:
                err.at(span)
                raise
        if kind in MUTABLE_HASHED:
            return _guard_mutation(value, span)
        if kind in SIZED or kind in PYTHON_ITERATORS or kind is ScriptGenerator or \
                kind is ScriptIterator or isinstance(value, ITERABLES):
            return iter(value)
        if kind is ScriptClass and value.enum is not None:
            return enums.iterate(value)
        if kind is NdIter:
            raise NotSupportedError("iterating an np.nditer's elements is not supported by "
                                    "gradtrace: index the array with it.multi_index", span)
        if kind is StringIO:  # its lines, read as the loop goes (bounded by its size)
            try:
                return iter(value)
            except GradtraceError as err:
                err.at(span)
                raise
        if kind is Instance:
            try:
                return iter(value)
            except GradtraceError as err:
                err.at(span)
                raise
            except PYTHON_ERRORS as err:
                raise ScriptError(script_message(str(err), (value,)), span,
                                  kind=type(err).__name__) from None
        error = ScriptError(f"'{type_name(value)}' object is not iterable", span,
                            kind="TypeError")
        error.not_iterable = value  # (a call's `*value` words it as Python's call does)
        raise error

    def materialize(self, value: Any, what: str, span: Span | None = None) -> Any:
        """An iterable's items for a builtin that walks its argument in C: a sized container
        as it is (its length checked), anything else as a list built here, counted against
        --max-sequence (a non-iterable is Python's TypeError)."""
        if type(value) is Instance and value.cls.builtin is not None:
            value = as_builtin(value)  # an AttrDict's dict, unless it iterates its own way
        if type(value) in SIZED or isinstance(value, ITERABLES):
            if type(value) is ndarray and not value.a.ndim:
                raise ScriptError("iteration over a 0-d array", span, kind="TypeError")
            self.check_size(len(value), what)
            return value
        limit = self.limits.max_sequence
        if type(value) in PYTHON_ITERATORS:  # reversed(range(10**15)) tells its length
            self.check_size(_length_hint(value), what)
        out: list[Any] = []
        for item in self.iterate(value, span):
            out.append(item)
            if len(out) > limit:
                self.check_size(len(out), what)
        return out

    def mapping_items(self, mapping: Instance, what: str) -> list[tuple[Any, Any]]:
        """dict(m) of an object with `keys()` (a collections.abc.Mapping): each key of
        `m.keys()` with `m[key]`, as dict's merge does for a non-dict mapping."""
        keys = self.materialize(self.call_bound(mapping.cls.lookup("keys"), mapping, ()),
                                what)
        return [(key, self.get_item(mapping, key)) for key in keys]

    def unpacked_mapping(self, value: Any, what: str) -> dict | None:
        """What `**value` unpacks (a dict display's, a call's): a dict, or a dict of the
        keys() and items of an object with `keys()` (a collections.abc.Mapping such as a
        ChainMap), as Python's; None for anything else."""
        value = as_builtin(value)
        if isinstance(value, dict):
            return value
        if type(value) is ModuleDict:  # `f(**vars(module))`: the names offered
            return value.copy()
        if type(value) is Instance and value.cls.builtin is None and \
                value.cls.lookup("keys") is not MISSING:
            return dict(self.mapping_items(value, what))
        return None

    def check_size(self, n: int, what: str) -> None:
        if n > self.limits.max_sequence:
            raise LimitExceeded(
                f"{what} of {n} items exceeds the limit of {self.limits.max_sequence} "
                "(raise it with --max-sequence)")

    def get_item(self, obj: Any, index: Any) -> Any:
        kind = type(obj)
        if kind is Tensor or kind is Parameter or kind is BatchedTensor or kind is ScriptTensor:
            if type(index) is tuple or type(index) is ndarray or isinstance(index, np.generic):
                index = torch_index(index)
            elif type(index) is Instance:  # an IntEnum member, anything with __index__
                index = self.as_index(index)
            return obj[index]
        if kind is ndarray:
            return obj[index]
        if kind is IndexTrick:
            return obj.getitem(index)
        if kind is ModuleDict:  # `torch.optim.__dict__[name]`
            return obj[index]
        if kind is UntypedStorage or kind is TypedStorage:
            return obj.getitem(index.item() if isinstance(index, np.integer) else index)
        if kind is ScriptClass and obj.enum is not None:
            return enums.getitem(obj, index)
        if kind is Instance or isinstance(obj, (list, tuple, str, bytes, dict, Size, range,
                                                 deque)):
            if isinstance(obj, dict):
                check_hashable(index)
            elif type(index) is Instance and kind is not Instance:
                index = self.as_index(index)
            try:
                return obj[index]
            except PYTHON_ERRORS as err:
                message = repr(index) if isinstance(err, KeyError) else str(err)
                raise ScriptError(script_message(message, (obj, index)),
                                  kind=type(err).__name__) from None
        if kind is ScriptClass and obj in self.abc_kinds \
                and self.abc_kinds[obj][0] == "collections.abc":  # Sequence[int]
            return GenericAlias(f"collections.abc.{obj.name}",
                                index if type(index) is tuple else (index,), obj)
        if kind is ScriptClass:  # Box[int] (Generic), a class's own __class_getitem__
            found = subscript_class(self, obj, index)
            if found is not MISSING:
                return found
        if kind is BuiltinType and obj.type in SUBSCRIPTABLE_TYPES:  # list[int]
            name = obj.name if obj.module == "builtins" else f"{obj.module}.{obj.name}"
            return GenericAlias(name, index if type(index) is tuple else (index,), obj)
        if kind is ScriptGenericAlias or isinstance(obj, TypingName) and \
                obj.args is not None and type(obj) is not TypingClass:
            return resubscript(self, obj, index)  # Dict[str, T][int], Box[T][int]
        if isinstance(obj, TypingName):  # Tuple[torch.Tensor, torch.Tensor], Generic[T]
            return obj.subscript(index)
        if kind is Match:
            try:
                return obj[index]
            except PYTHON_ERRORS as err:
                raise ScriptError(str(err), kind=type(err).__name__) from None
        raise ScriptError(f"'{type_name(obj)}' object is not subscriptable", kind="TypeError")

    def as_index(self, value: Instance) -> Any:
        """An instance used as a sequence index: its `__index__()` (an int), if it has one."""
        fn = value.cls.lookup("__index__")
        if fn is MISSING:
            return value
        result = self.call_bound(fn, value, ())
        if type(result) is not int:
            raise ScriptError(f"__index__ returned non-int (type {type_name(result)})",
                              kind="TypeError")
        return result

    def set_item(self, obj: Any, index: Any, value: Any) -> None:
        kind = type(obj)
        if kind is ScriptTensor and not torch_function_protocol.is_disabled():
            obj[index] = value  # (the class's __setitem__, or torch's through its hook)
            return
        if kind is Tensor or kind is Parameter or kind is BatchedTensor or kind is ScriptTensor:
            from ..engine.ops.subscript import setitem

            if type(index) is tuple or type(index) is ndarray or isinstance(index, np.generic):
                index = torch_index(index)
            elif type(index) is Instance:  # an IntEnum member, anything with __index__
                index = self.as_index(index)
            if isinstance(value, (np.integer, float, complex)) and isinstance(value, np.generic):
                value = value.item()  # (other numpy scalars: torch's TypeError, in setitem)
            elif type(value) is Instance:  # `x[0] = Label.CAT`: torch reads an int subclass
                value = number_operand(value)
            call(setitem, obj, index, value)  # (through vmap's rules when batched)
            return
        if kind is ndarray:
            obj[index] = value
            return
        if kind is TypedStorage:
            obj.setitem(index, value.item() if isinstance(value, np.generic) else value)
            return
        if kind is ModuleDict:  # a module's __dict__: read-only (this raises)
            obj.set_item(index)
        if kind is Instance or isinstance(obj, (list, dict, deque)):
            if isinstance(obj, dict):
                check_hashable(index)
            try:
                obj[index] = value
            except PYTHON_ERRORS as err:
                raise ScriptError(script_message(str(err), (obj, index)),
                                  kind=type(err).__name__) from None
            return
        raise ScriptError(f"'{type_name(obj)}' object does not support item assignment",
                          kind="TypeError")

    def del_item(self, obj: Any, index: Any) -> None:
        if type(obj) is ModuleDict:  # a module's __dict__: read-only (this raises)
            obj.del_item(index)
        if type(obj) is Instance or isinstance(obj, (list, dict)):
            if isinstance(obj, dict):
                check_hashable(index)
            try:
                del obj[index]
            except PYTHON_ERRORS as err:
                message = repr(index) if isinstance(err, KeyError) else str(err)
                raise ScriptError(script_message(message, (obj, index)),
                                  kind=type(err).__name__) from None
            return
        if isinstance(obj, Tensor):
            raise ScriptError("Tensor does not support deleting items", kind="TypeError")
        raise ScriptError(f"'{type_name(obj)}' object doesn't support item deletion",
                          kind="TypeError")
