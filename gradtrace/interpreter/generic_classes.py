"""typing's run-time side for a script's own classes, as CPython 3.11's typing.py has it:

- a class deriving from `Generic[T, ...]` (or `Protocol[T]`, or another generic class
  subscripted with type variables, `Box[T]`) is generic in those parameters: `Box[int]`
  is a `typing._GenericAlias` that prints as `__main__.Box[int]`, compares by origin and
  arguments, forwards plain attributes to the class, and constructs a Box when called
  (setting the instance's `__orig_class__`); the wrong number of arguments, subscripting
  a non-generic subclass and isinstance against an alias are Python's TypeErrors;
- a class defining `__class_getitem__` has it called (implicitly a classmethod);
- `@runtime_checkable` protocols answer isinstance structurally
  (`_ProtocolMeta.__instancecheck__`: every protocol member present, a method not None);
- `@overload` stubs are replaced by the definition that follows; calling one is Python's
  NotImplementedError.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..engine.tensor import Tensor
from ..errors import NotSupportedError, ScriptError, TorchTypeError
from .objects import MISSING, BuiltinFunction, ClassMethod, Instance, ScriptClass, StaticMethod
from .typing_module import TypeVarName, TypingName, _type_repr

if TYPE_CHECKING:
    from .core import Interpreter

# typing._TYPING_INTERNALS + _SPECIAL_NAMES (3.11): never protocol members
_EXCLUDED = frozenset({"__parameters__", "__orig_bases__", "__orig_class__", "_is_protocol",
                       "_is_runtime_protocol", "__final__", "__abstractmethods__",
                       "__annotations__", "__dict__", "__doc__", "__init__", "__module__",
                       "__new__", "__slots__", "__subclasshook__", "__weakref__",
                       "__class_getitem__", "_MutableMapping__marker", "__qualname__"})
# torch.Tensor's dunder names (dir(torch.Tensor), torch 2.13), which the language does not
# hand out: a protocol's check asks about them
TENSOR_DUNDERS = frozenset({
    '__abs__', '__add__', '__and__', '__annotations__', '__array__',
    '__array_priority__', '__array_wrap__', '__bool__', '__class__', '__complex__',
    '__contains__', '__cuda_array_interface__', '__deepcopy__', '__delattr__',
    '__delitem__', '__dict__', '__dir__', '__div__', '__dlpack__',
    '__dlpack_c_exchange_api__', '__dlpack_device__', '__doc__', '__eq__', '__float__',
    '__floordiv__', '__format__', '__ge__', '__getattribute__', '__getitem__',
    '__getstate__', '__gt__', '__hash__', '__iadd__', '__iand__', '__idiv__',
    '__ifloordiv__', '__ilshift__', '__imod__', '__imul__', '__index__', '__init__',
    '__init_subclass__', '__int__', '__invert__', '__ior__', '__ipow__', '__irshift__',
    '__isub__', '__iter__', '__itruediv__', '__ixor__', '__le__', '__len__', '__long__',
    '__lshift__', '__lt__', '__matmul__', '__mod__', '__module__', '__mul__', '__ne__',
    '__neg__', '__new__', '__nonzero__', '__or__', '__pos__', '__pow__', '__radd__',
    '__rand__', '__rdiv__', '__reduce__', '__reduce_ex__', '__repr__', '__reversed__',
    '__rfloordiv__', '__rlshift__', '__rmatmul__', '__rmod__', '__rmul__', '__ror__',
    '__rpow__', '__rrshift__', '__rshift__', '__rsub__', '__rtruediv__', '__rxor__',
    '__setattr__', '__setitem__', '__setstate__', '__sizeof__', '__str__', '__sub__',
    '__subclasshook__', '__torch_dispatch__', '__torch_function__', '__truediv__',
    '__weakref__', '__xor__'})
OVERLOAD_MESSAGE = ("You should not call an overloaded function. A series of @overload-"
                    "decorated functions outside a stub module should always be followed "
                    "by an implementation that is not @overload-ed.")


class ScriptGenericAlias:
    """`Box[int]` for a script's generic class `Box` (typing._GenericAlias)."""

    __slots__ = ("origin", "args")
    python_type_name = "typing._GenericAlias"

    def __init__(self, origin: ScriptClass, args: tuple[Any, ...]):
        self.origin = origin
        self.args = args

    def parameters(self) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(a for a in self.args if type(a) is TypeVarName))

    def __repr__(self) -> str:
        args = ", ".join(repr(a) if type(a) is list else _type_repr(a) for a in self.args)
        return f"{self.origin.module}.{self.origin.qualname}[{args}]"

    def __eq__(self, other: object) -> bool:
        return type(other) is ScriptGenericAlias and self.origin is other.origin and \
            self.args == other.args

    def __hash__(self) -> int:
        return hash((id(self.origin), self.args))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        interp = self.origin.interp
        result = interp.instantiate(self.origin, list(args), kwargs)
        if type(result) is Instance:  # `result.__orig_class__ = self`
            result.attrs["__orig_class__"] = self
        return result


def generic_parameters(bases: list[Any], aliased: bool = False) -> tuple[Any, ...] | None:
    """The type parameters a new class's bases give it (Generic[...]'s own list, else
    the type variables in its subscripted bases, in order); None if it is not generic.
    `aliased`: a typing alias (`List[T]`) is among the bases, which makes it generic."""
    generic = aliased
    for base in bases:
        if isinstance(base, TypingName) and base.name in ("Generic", "Protocol"):
            if base.args is not None:
                return tuple(base.args)
            generic = generic or base.name == "Generic"
        elif type(base) is ScriptGenericAlias or type(base) is ScriptClass and \
                base.interp is not None and base in base.interp.generic_classes:
            generic = True
    if not generic and not any(isinstance(b, TypingName) and b.name == "Protocol"
                               for b in bases):
        return None
    found: dict[Any, None] = {}
    for base in bases:
        _collect(base, found, 0)
    return tuple(found)


def _collect(value: Any, found: dict[Any, None], depth: int) -> None:
    if depth > 50:  # aliases nest only as deep as the script wrote them
        return
    if type(value) is TypeVarName:
        found[value] = None
    elif type(value) is ScriptGenericAlias or isinstance(value, TypingName):
        for arg in value.args or ():
            _collect(arg, found, depth + 1)
    elif type(value) is list:  # Callable[[T], T]'s parameters
        for arg in value:
            _collect(arg, found, depth + 1)


def subscript_class(interp: Interpreter, cls: ScriptClass, index: Any) -> Any:
    """`Cls[index]`: a user `__class_getitem__`, or Generic's; MISSING if neither."""
    hook = cls.lookup("__class_getitem__")
    if hook is not MISSING:
        if type(hook) is ClassMethod:
            hook = hook.function
        if type(hook) is StaticMethod:
            return interp.call(hook.function, [index], {}, None)
        return interp.call(hook, [cls, index], {}, None)
    owner = next((c for c in cls.mro if c in interp.generic_classes), None)
    if owner is None:
        return MISSING
    params = interp.generic_classes.get(cls, ())
    if not params:
        raise TorchTypeError(f"{cls!r} is not a generic class")
    args = index if type(index) is tuple else (index,)
    if len(args) != len(params):
        raise TorchTypeError(f"Too {'many' if len(args) > len(params) else 'few'} arguments "
                             f"for {cls!r}; actual {len(args)}, expected {len(params)}")
    none = interp.builtin_types[type(None)]
    args = tuple(none if a is None else a for a in args)
    cache = interp.generic_aliases
    key = (id(cls), args)
    try:
        found = cache.get(key)
    except TypeError:  # an unhashable argument (a list): typing makes a new alias
        return ScriptGenericAlias(cls, args)
    if found is None:
        found = cache[key] = ScriptGenericAlias(cls, args)
    return found


def alias_attribute(interp: Interpreter, alias: ScriptGenericAlias, name: str) -> Any:
    """_BaseGenericAlias.__getattr__: its own fields, else the class's plain names."""
    if name == "__origin__":
        return alias.origin
    if name == "__args__":
        return alias.args
    if name == "__parameters__":
        return alias.parameters()
    if name in ("__name__", "__qualname__", "__module__"):
        return interp.get_attribute(alias.origin, name, None)
    if name.startswith("__") and name.endswith("__"):
        raise ScriptError(name, kind="AttributeError")
    return interp.get_attribute(alias.origin, name, None)


def runtime_checkable(interp: Interpreter, cls: Any) -> Any:
    """typing.runtime_checkable: mark a protocol class for isinstance."""
    if cls not in interp.protocol_classes:
        raise TorchTypeError("@runtime_checkable can be only applied to protocol classes, "
                             f"got {cls!r}")
    interp.runtime_protocols.add(cls)
    return cls


def protocol_members(cls: ScriptClass) -> list[str]:
    """typing._get_protocol_attrs: the names each class of the protocol's MRO defines or
    annotates (object's left out)."""
    names: dict[str, None] = {}
    for klass in cls.mro[:-1]:
        for name in list(klass.attrs) + list(klass.annotated):
            if not name.startswith("_abc_") and name not in _EXCLUDED:
                names[name] = None
    return list(names)


def protocol_instance_check(interp: Interpreter, value: Any, cls: ScriptClass) -> bool:
    """_ProtocolMeta.__instancecheck__ for a runtime-checkable protocol."""
    members = protocol_members(cls)
    methods = {name: interp.is_callable(cls.lookup(name)) for name in members}
    if all(methods.values()) and type(value) is Instance and cls in value.cls.mro:
        return True
    for name in members:
        found = _attribute(interp, value, name)
        if found is MISSING or methods[name] and found is None:
            return type(value) is Instance and cls in value.cls.mro
    return True


def _attribute(interp: Interpreter, value: Any, name: str) -> Any:
    """getattr(value, name) for the check, MISSING when it has none; Python's own values
    are asked about their dunder methods directly (the language does not hand those
    out)."""
    if type(value) is not Instance and name.startswith("__") and name.endswith("__") and \
            type(value).__module__ == "builtins":
        return True if hasattr(value, name) else MISSING
    try:
        return interp.get_attribute(value, name, None)
    except ScriptError as err:
        if not err.matches("AttributeError"):
            raise
    except NotSupportedError:  # a name the sandbox refuses: torch's answer if it has one
        pass
    if isinstance(value, Tensor) and name in TENSOR_DUNDERS:
        return True
    return True if stdlib.torch_has(value, name) else MISSING


def _overload_dummy(*args: Any, **kwargs: Any) -> Any:
    raise ScriptError(OVERLOAD_MESSAGE, kind="NotImplementedError")


def overload(func: Any) -> BuiltinFunction:
    """typing.overload: the stub is dropped; what stands in for it refuses to run."""
    return BuiltinFunction("_overload_dummy", _overload_dummy, _overload_dummy)


def generic_attribute(interp: Interpreter, cls: ScriptClass, name: str) -> Any:
    """A class's `__parameters__` (every subclass of a generic class has one, set by
    Generic.__init_subclass__) and `__orig_bases__` (the bases as written when typing
    aliases were among them, inherited like any class attribute); MISSING if none."""
    for klass in cls.mro:
        if name == "__orig_bases__" and klass in interp.orig_bases:
            return interp.orig_bases[klass]
        if name == "__parameters__" and klass in interp.generic_classes:
            return interp.generic_classes[klass]
    return MISSING
