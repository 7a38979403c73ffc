"""isinstance/issubclass against `collections.abc` and `numbers` (their classes are library
code: gradtrace/lib/collections/abc.gt, gradtrace/lib/numbers.gt), answered as CPython's
ABCMeta answers them:

- a script class is a subclass when it derives from the ABC, or, for the ABCs with a
  `__subclasshook__` (Hashable, Iterable, Sized, Callable, ...), when its MRO defines the
  methods `_check_methods` looks for (a method set to None says no);
- Python's own values answer as in Python (`register()`: a list is a MutableSequence, an
  int an Integral), measured on the value itself;
- a tensor answers as torch.Tensor does (it defines `__iter__`, `__len__`,
  `__contains__`, `__reversed__` and `__hash__`; nothing registers it);
- the ABCs among themselves: Sequence is Sized because it defines `__len__`;
- `ABC.register(cls)`: the run's registry of virtual subclasses, which every isinstance
  and issubclass against a class deriving from abc.ABC consults (`registered`).
"""
from __future__ import annotations

import collections
import collections.abc
import numbers
from typing import TYPE_CHECKING, Any

from ..engine.tensor import Tensor
from ..errors import NotSupportedError, ScriptError, TorchTypeError
from ..tensor_types import ScriptType
from .objects import (
    BuiltinType,
    Instance,
    ScriptClass,
    ScriptGenerator,
    ScriptIterator,
    opaque_type,
)

if TYPE_CHECKING:
    from .core import Interpreter

ABCMETA = opaque_type("ABCMeta", "abc")
"""abc.ABCMeta: the metaclass of abc.ABC and of classes declared `metaclass=ABCMeta`
(ScriptClass.metaclass), `type()` of such a class; it cannot be called or inspected."""

# _collections_abc's `__subclasshook__`s: the methods `_check_methods` looks for
HOOKS: dict[str, tuple[str, ...]] = {
    "Hashable": ("__hash__",), "Iterable": ("__iter__",),
    "Iterator": ("__iter__", "__next__"), "Reversible": ("__reversed__", "__iter__"),
    "Generator": ("__iter__", "__next__", "send", "throw", "close"),
    "Sized": ("__len__",), "Container": ("__contains__",),
    "Collection": ("__len__", "__iter__", "__contains__"), "Callable": ("__call__",),
}
# ABCs whose Python twin defines no `__subclasshook__` but whose bases do: they are
# reached by deriving (or registering) only
_PYTHON = {"collections.abc": collections.abc, "numbers": numbers}
# torch.Tensor's answers (measured with torch 2.13)
_TENSOR = frozenset({"Hashable", "Iterable", "Reversible", "Sized", "Container",
                     "Collection"})
_NATIVE = (bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset, range,
           slice, type(None), collections.deque)


def abc_of(interp: Interpreter, cls: Any) -> tuple[str, str] | None:
    """(module, name) if `cls` is one of the library's ABCs."""
    return interp.abc_kinds.get(cls) if type(cls) is ScriptClass else None


def _defines(cls: ScriptClass, methods: tuple[str, ...]) -> bool:
    """_collections_abc._check_methods on a script class's MRO (object included)."""
    for method in methods:
        for klass in cls.mro:
            if method in klass.attrs:
                if klass.attrs[method] is None:
                    return False
                break
        else:
            return False
    return True


def _native(value: Any) -> bool:
    """Whether `value` is one of Python's own values (not an interpreter object)."""
    kind = type(value)
    return isinstance(value, _NATIVE) or kind.__module__ in ("builtins", "numpy")


def instance_check(interp: Interpreter, value: Any, abc: ScriptClass) -> bool:
    module, name = interp.abc_kinds[abc]
    if type(value) is Instance:
        return class_check(interp, value.cls, abc)
    if _native(value):
        return isinstance(value, getattr(_PYTHON[module], name))
    if module == "numbers":
        return False
    if isinstance(value, Tensor):
        return name in _TENSOR
    if isinstance(value, ScriptGenerator):
        return name in ("Generator", "Iterator", "Iterable", "Hashable")
    if isinstance(value, ScriptIterator):
        return name in ("Iterator", "Iterable", "Hashable")
    if name == "Callable":
        return bool(interp.builtins["callable"](value))
    if name == "Hashable":
        return True  # functions, classes, modules: object's __hash__
    return False


def class_check(interp: Interpreter, cls: Any, abc: ScriptClass) -> bool:
    """issubclass(cls, abc)."""
    module, name = interp.abc_kinds[abc]
    if type(cls) is ScriptClass:
        if abc in cls.mro:
            return True
        hook = HOOKS.get(name) if module == "collections.abc" else None
        return hook is not None and _defines(cls, hook)
    if type(cls) is BuiltinType:
        return issubclass(cls.type, getattr(_PYTHON[module], name))
    if isinstance(cls, ScriptType) and cls.module == "torch":
        return module == "collections.abc" and name in _TENSOR
    return False


MAX_REGISTERED = 256


def register(interp: Interpreter, abc: Any, subclass: Any) -> Any:
    """ABCMeta.register: make `subclass` a virtual subclass of `abc` (in this run's
    registry: Python's own ABCs are never touched)."""
    if not interp.is_class(subclass):
        raise TorchTypeError("Can only register classes")
    if interp.issubclass_check(subclass, abc):
        return subclass  # already a subclass
    if interp.issubclass_check(abc, subclass):
        raise ScriptError("Refusing to create an inheritance cycle", kind="RuntimeError")
    if sum(map(len, interp.abc_registry.values())) >= MAX_REGISTERED:
        raise NotSupportedError(f"registering more than {MAX_REGISTERED} virtual subclasses "
                                "is not supported")
    interp.abc_registry.setdefault(abc, []).append(subclass)
    interp.abc_registry_bases.update(abc.mro if type(abc) is ScriptClass else (abc,))
    return subclass


def registered(interp: Interpreter, cls: Any, abc: Any) -> bool:
    """ABCMeta.__subclasscheck__'s registry half: `cls` is a subclass of a class
    registered with `abc` or with one of its subclasses, those registries followed in
    turn (without recursion: a chain of registrations can be long)."""
    registry = interp.abc_registry
    if abc not in interp.abc_registry_bases:  # nothing registered with it or below it
        return False
    todo = [abc]
    seen: set[int] = set()
    while todo:
        target = todo.pop()
        if id(target) in seen:
            continue
        seen.add(id(target))
        if target is not abc and _nominal(interp, cls, target):
            return True
        for owner, subclasses in registry.items():
            if owner is target or type(owner) is ScriptClass and \
                    type(target) is ScriptClass and target in owner.mro:
                todo.extend(subclasses)
    return False


def _nominal(interp: Interpreter, cls: Any, target: Any) -> bool:
    """issubclass(cls, target) without the registries."""
    if cls is target:
        return True
    if type(target) is ScriptClass and target in interp.abc_kinds:
        return class_check(interp, cls, target)
    if type(cls) is ScriptClass and type(target) is ScriptClass:
        return target in cls.mro
    if type(cls) is BuiltinType and type(target) is BuiltinType:
        return issubclass(cls.type, target.type)
    return False
