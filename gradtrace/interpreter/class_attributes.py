"""Script classes' own attributes and super(): `Cls.name` (class attributes, methods,
`__mro__`, `__dict__`), writes and deletes on a class, and `super().name` along the MRO."""
from __future__ import annotations

from typing import Any

from .. import stdlib
from ..errors import EXCEPTION_PARENTS, NotSupportedError, ScriptError, TorchTypeError
from . import abc_checks, descriptors, enums
from .abc_checks import ABCMETA
from .classes import attribute_error, missing_dunder
from .dunders import OBJECT
from .function_attributes import class_annotations
from .generic_classes import generic_attribute
from .namedtuple_bases import namedtuple_of
from .objects import (
    MISSING,
    ClassMethod,
    Instance,
    Method,
    NativeFunction,
    ScriptClass,
    StaticMethod,
    Super,
    is_dunder,
    type_name,
)
from .tensor_subclasses import (
    OPERATOR_FUNCS,
    TENSOR_BASE,
    ScriptTensor,
    is_tensor_class,
    own_lookup,
)
from .torch_functions import TorchFunction

# what a class may be given after it is made (functools.total_ordering sets comparisons):
# names every use looks up anew, never cached on the class
_SETTABLE_DUNDERS = frozenset({"__doc__", "__module__", "__lt__", "__le__", "__gt__",
                               "__ge__"})


class ClassAttributes:
    """The Interpreter's mixin for `Cls.name` of script classes and for `super()`."""

    def class_getattr(self, cls: ScriptClass, name: str) -> Any:
        if name in ("__mro__", "__bases__", "__base__"):  # type's own data descriptors
            return self.class_links(cls, name)  # (they win over the class's namespace)
        if name in ("__parameters__", "__orig_bases__"):
            found = generic_attribute(self, cls, name)
            if found is not MISSING:
                return found
        if name == "__annotations__" and not cls.frozen:  # its own, evaluated when read
            return class_annotations(self, cls)
        tensor_class = TENSOR_BASE in cls.mro
        value = own_lookup(cls, name) if tensor_class else cls.lookup(name)
        if value is MISSING and tensor_class and name not in ("__name__", "__qualname__",
                                                              "__module__", "mro") and \
                (not is_dunder(name) or name in OPERATOR_FUNCS):
            from ..tensor_types import TENSOR  # torch.Tensor's own: `MyTensor.add`

            return self.type_getattr(TENSOR, name)
        if value is MISSING:
            if name == "__members__" and cls.enum is not None:
                return enums.members(cls)
            if name == "__name__":
                return cls.name
            if name == "__qualname__":
                return cls.qualname
            if name == "__module__":  # (only `object`'s namespace lacks it: builtins)
                return cls.module
            if name == "mro":
                return stdlib.BoundMethod(cls, lambda c: list(self.class_links(c, "__mro__")),
                                          "mro")
            if name == "register" and cls.metaclass is ABCMETA:  # ABCMeta.register (Python)
                return stdlib.BoundMethod(
                    cls, lambda c, subclass: abc_checks.register(self, c, subclass), name,
                    ("register", "ABCMeta.register", "abc"))
            if name == "fromkeys" and cls.builtin is dict:  # `D.fromkeys(keys)` makes a D
                return stdlib.BoundMethod(cls, self.subclass_fromkeys, name)
            if cls.builtin is not None and not name.startswith("_"):
                builtin = self.builtin_types[cls.builtin]  # `Batch.append`: list's, unbound
                table = stdlib.TYPE_METHOD_TABLES.get(builtin.type)
                if table is not None and name in table:
                    return self.type_getattr(builtin, name)
            raise missing_dunder(f"class {cls.name}", name,
                                 f"type object '{cls.name}' has no attribute '{name}'")
        return self.read_through_class(value, cls)

    def read_through_class(self, value: Any, cls: Any) -> Any:
        """What a class attribute is when read through the class (a script class, or
        torch.Tensor's script-set names): Python's descriptor protocol with no instance."""
        kind = type(value)
        if kind is StaticMethod:
            return value.function
        if kind is ClassMethod:
            return Method(cls, value.function)
        if kind is Instance and descriptors.getter(value) is not MISSING:
            return descriptors.describe(self, value, None, cls)  # `__get__(None, cls)`
        return value

    def subclass_fromkeys(self, cls: ScriptClass, iterable: Any, value: Any = None) -> Any:
        """dict.fromkeys called through a dict subclass: `cls()`, then each key set through
        the class's own `__setitem__` (CPython's path for anything but an exact dict)."""
        made = self.instantiate(cls, [], {})
        for key in self.materialize(iterable, "a fromkeys() argument"):
            self.set_item(made, key, value)
        return made

    def class_links(self, cls: ScriptClass, name: str) -> Any:
        """`C.__mro__`, `C.__bases__`, `C.__base__`: classes the script can already name,
        a builtin exception's class shown as Python's (with its own bases in the MRO)."""
        if name == "__base__":
            return None if cls.base is None else self._visible_class(cls.base)
        if name == "__bases__":
            return tuple(self._visible_class(b) for b in cls.bases)
        shown: list[Any] = []
        for c in cls.mro:
            kind = c.exception_kind if c.frozen else None
            if kind is None or c.interp is not None:
                shown.append(self._visible_class(c))
                continue
            while kind is not None:  # ValueError, Exception, BaseException
                shown.append(self._visible_class(kind))
                kind = EXCEPTION_PARENTS.get(kind)
        return tuple(shown)

    def _visible_class(self, cls: ScriptClass | str) -> Any:
        """A builtin exception's or builtin type's frozen base class (or an exception's
        kind) as scripts name it."""
        if cls is TENSOR_BASE:  # `MyTensor.__base__ is torch.Tensor`
            from ..tensor_types import TENSOR

            return TENSOR
        if type(cls) is ScriptClass and cls.frozen and cls.interp is None and \
                cls.builtin is not None:
            return self.builtin_types[cls.builtin]
        if type(cls) is ScriptClass and cls.builtin is tuple and "_fields" in cls.attrs:
            shown = namedtuple_of(self, cls)  # `class Q(P)`'s base is P
            if shown is not None:
                return shown
        if type(cls) is ScriptClass:
            if cls.interp is not None or not cls.frozen or cls.exception_kind is None:
                return cls
            cls = cls.exception_kind
        found = self.builtins.get(cls)
        return found if isinstance(found, stdlib.ExceptionType) else stdlib.ExceptionType(cls)

    def class_setattr(self, cls: ScriptClass, name: str, value: Any) -> None:
        if cls.frozen:
            raise TorchTypeError(f"cannot set '{name}' attribute of immutable type "
                                 f"'{cls.name}'")
        if is_dunder(name) and name not in _SETTABLE_DUNDERS:
            raise NotSupportedError(f"setting attribute '{name}' of class {cls.name} is not "
                                    "supported")
        if cls.enum is not None:
            enums.check_setattr(cls, name)
        cls.attrs[name] = value
        if name == "__module__" and isinstance(value, str):  # what reprs name it by
            cls.module = value

    def class_delattr(self, cls: ScriptClass, name: str) -> None:
        if cls.frozen:
            raise TorchTypeError(f"cannot delete '{name}' attribute of immutable type "
                                 f"'{cls.name}'")
        if is_dunder(name):
            raise NotSupportedError(f"deleting attribute '{name}' of class {cls.name} is not "
                                    "supported")
        if name not in cls.attrs:
            raise attribute_error(name)
        del cls.attrs[name]

    # ------------------------------------------------------------------ super

    def make_super(self, cls: Any, obj: Any) -> Super:
        """`super(cls, obj)`, checked as Python checks it."""
        if type(cls) is not ScriptClass:
            raise TorchTypeError(f"super() argument 1 must be a type, not {type_name(cls)}")
        if obj is None:  # super(C): unbound
            return Super(cls, None)
        of = obj if type(obj) is ScriptClass else obj.cls if type(obj) is Instance else \
            obj.pyclass if type(obj) is ScriptTensor else None
        if of is None or not of.is_subclass(cls):
            raise TorchTypeError("super(type, obj): obj must be an instance or subtype of type")
        return Super(cls, obj)

    def zero_arg_super(self, frame: Any, span: Any) -> Super:
        """`super()` in a method: the class its `def` was in, and its first argument."""
        f = frame
        while f is not None and f.function is None:  # out of comprehensions
            f = f.parent
        fn = f.function if f is not None else None
        if fn is None or fn.cell is None or fn.cell.cls is None:
            raise ScriptError("super(): __class__ cell not found", span, kind="RuntimeError")
        names = fn.signature.positional
        if not names:
            raise ScriptError("super(): no arguments", span, kind="RuntimeError")
        obj = f.vars.get(names[0], MISSING)
        if obj is MISSING:
            raise ScriptError("super(): arg[0] deleted", span, kind="RuntimeError")
        return self.make_super(fn.cell.cls, obj)

    def super_getattr(self, sup: Super, name: str) -> Any:
        obj = sup.obj
        if obj is None:  # super(C).__init__(): Python re-initialises the super object
            if name == "__init__":
                return stdlib.BoundMethod(sup, lambda _sup, *args: None, "__init__")
            raise missing_dunder("'super' objects", name,
                                 f"'super' object has no attribute '{name}'")
        of = obj if type(obj) is ScriptClass else obj.pyclass if type(obj) is ScriptTensor \
            else obj.cls
        mro = of.mro
        for cls in mro[mro.index(sup.cls) + 1:]:
            if (cls is TENSOR_BASE.base or cls is OBJECT and TENSOR_BASE in mro) and \
                    name not in ("__init__", "__init_subclass__"):
                continue  # (torch.Tensor's methods replace object's; a mixin may follow)
            value = cls.attrs.get(name, MISSING)
            if value is MISSING:
                continue
            if type(obj) is ScriptClass:  # super() in a classmethod: functions stay plain
                kind = type(value)
                if kind is ClassMethod:
                    return Method(obj, value.function)
                if kind is StaticMethod:
                    return value.function
                return value
            return self.bind(value, obj)
        if type(obj) is Instance and obj.cls.builtin is not None and not is_dunder(name):
            method = self.builtin_method(obj, name)  # super().keys(), super().append(x)
            if method is not None:
                return method
        if is_tensor_class(of) and name not in ("__init__",):  # torch.Tensor's own:
            from ..tensor_types import TENSOR  # `super().__repr__()`, `super().add(o)`

            found = self.type_getattr(TENSOR, name)
            if type(obj) is ScriptClass or not isinstance(found, (NativeFunction,
                                                                   TorchFunction)):
                return found
            return Method(obj, found)
        raise missing_dunder("'super' objects", name,
                             f"'super' object has no attribute '{name}'")

    # ------------------------------------------------------------------ functions
