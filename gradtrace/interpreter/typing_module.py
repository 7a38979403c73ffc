"""`typing` as scripts use it: names for annotations (kept, never evaluated) and the type
aliases code builds from them at run time (`Batch = Tuple[torch.Tensor, torch.Tensor]`),
which print as Python prints them (`typing.Tuple[torch.Tensor, torch.Tensor]`). Nothing
checks a type: `cast` returns its value, a TypeVar is a name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import ScriptError, TorchTypeError, TorchValueError
from .objects import BuiltinFunction

if TYPE_CHECKING:
    from .core import Interpreter

TYPING_NAMES = ("Any", "Callable", "Dict", "Iterable", "Iterator", "List", "Optional",
                "Sequence", "Set", "Tuple", "Type", "Union", "Literal", "Mapping",
                "MutableMapping", "MutableSequence", "FrozenSet", "DefaultDict", "Deque",
                "Counter", "OrderedDict", "Generator", "Hashable", "Sized", "Collection",
                "Container", "Final", "ClassVar", "Annotated", "NoReturn", "Awaitable",
                "TypeAlias", "Self", "Never", "LiteralString")
"""The names of `typing` a script may import that are only names (`Generic`, `Protocol`,
`NamedTuple` and `TypedDict`, class bases, are in typed_classes.py)."""


# the special forms Python's typing refuses to subscript (`typing.Self` of 3.11's methods
# returning their own instance, `-> Self`)
_UNPARAMETERIZED = frozenset({"TypeAlias", "NoReturn", "Self", "Never", "LiteralString"})


class TypingName:
    """A name from `typing` (`Tuple`), or one subscripted (`Tuple[int, str]`)."""

    __slots__ = ("name", "args")
    python_type_name = "typing._GenericAlias"

    def __init__(self, name: str, args: tuple[Any, ...] | None = None):
        self.name = name
        self.args = args

    def __repr__(self) -> str:
        if self.args is None:
            return f"typing.{self.name}"
        if not self.args:  # Tuple[()]
            return f"typing.{self.name}[()]"
        return f"typing.{self.name}[{', '.join(_type_repr(a) for a in self.args)}]"

    def __eq__(self, other: object) -> bool:
        return type(other) is TypingName and (self.name, self.args) == (other.name, other.args)

    def __hash__(self) -> int:
        return hash((self.name, self.args))

    def subscript(self, index: Any) -> Any:
        """`Name[args]`, normalised as Python's typing does for Optional and Union."""
        if self.name in _UNPARAMETERIZED:  # (special forms that take no parameters)
            raise TorchTypeError(f"{self!r} is not subscriptable")
        if self.name == "Any" and self.args is None:  # a class since Python 3.11
            raise TorchTypeError("type 'Any' is not subscriptable")
        if self.args is not None:
            raise TorchTypeError(f"{self!r} is not a generic class")
        args = index if type(index) is tuple else (index,)
        if self.name == "Optional":
            if len(args) != 1:
                raise TorchTypeError("typing.Optional requires a single type.")
            return TypingName("Optional", args) if args[0] is not None else None
        if self.name == "Union":
            unique = tuple(dict.fromkeys(args))
            if len(unique) == 1:
                return unique[0]
            if len(unique) == 2 and None in unique:
                return TypingName("Optional", tuple(a for a in unique if a is not None))
            return TypingName("Union", unique)
        return TypingName(self.name, args)


class GenericAlias(TypingName):
    """`collections.abc.Sequence[int]`, `list[int]` (types.GenericAlias): printed with its
    module; `origin` is the class subscripted."""

    __slots__ = ("origin",)
    python_type_name = "types.GenericAlias"

    def __init__(self, name: str, args: tuple[Any, ...] | None = None, origin: Any = None):
        super().__init__(name, args)
        self.origin = origin

    def __eq__(self, other: object) -> bool:
        return type(other) is GenericAlias and (self.name, self.args) == \
            (other.name, other.args)

    def __hash__(self) -> int:
        return hash((self.name, self.args))

    def __repr__(self) -> str:
        return f"{self.name}[{', '.join(_type_repr(a) for a in self.args or ())}]"


def _type_repr(value: Any) -> str:
    """typing._type_repr: a class by its dotted name (`int`, `torch.Tensor`), None as the
    type typing makes of it (`NoneType`), `...` as itself, a list of types in brackets
    (Callable's parameters)."""
    if value is None:
        return "NoneType"
    if value is ...:
        return "..."
    if type(value) is list:
        return f"[{', '.join(_type_repr(v) for v in value)}]"
    text = repr(value)
    if text.startswith("<class '") and text.endswith("'>"):
        text = text[len("<class '"):-2]
        return text[len("builtins."):] if text.startswith("builtins.") else text
    return text


def typing_namespace(interp: Interpreter) -> stdlib.Namespace:
    def cast(typ: Any, val: Any) -> Any:
        return val

    def type_var(name: Any, *constraints: Any, bound: Any = None, covariant: bool = False,
                 contravariant: bool = False) -> TypeVarName:
        if not isinstance(name, str):
            raise TorchTypeError("TypeVar name must be a string")
        if covariant and contravariant:
            raise TorchValueError("Bivariant types are not supported.")
        if len(constraints) == 1:
            raise TorchTypeError("A single constraint is not allowed")
        if constraints and bound is not None:
            raise TorchTypeError("Constraints cannot be combined with bound=...")
        if isinstance(bound, str):  # a forward reference, kept as typing keeps it
            bound = ForwardRef(bound)
        return TypeVarName(name, bound, constraints, bool(covariant), bool(contravariant))

    import typing

    from . import generic_classes, typed_classes, typing_generics

    table: dict[str, Any] = {n: TypingName(n) for n in TYPING_NAMES}
    table["TYPE_CHECKING"] = False
    table["cast"] = BuiltinFunction("cast", cast, typing.cast)
    table["TypeVar"] = BuiltinFunction("TypeVar", type_var, typing.TypeVar)
    table["NewType"] = BuiltinFunction("NewType", new_type, typing.NewType)
    table["runtime_checkable"] = BuiltinFunction(
        "runtime_checkable", lambda cls: generic_classes.runtime_checkable(interp, cls),
        typing.runtime_checkable)
    table["overload"] = BuiltinFunction("overload", generic_classes.overload, typing.overload)
    table["get_origin"] = BuiltinFunction(
        "get_origin", lambda tp: typing_generics.get_origin(interp, tp), typing.get_origin)
    table["get_args"] = BuiltinFunction(
        "get_args", lambda tp: typing_generics.get_args(interp, tp), typing.get_args)
    table.update(typed_classes.typing_bases(interp))
    return stdlib.Namespace("typing", table)


class TypeVarName:
    """`T = TypeVar("T", bound=int)`: prints as Python's (`~T`, `+T_co`, `-T_contra`);
    its bound, constraints and variance are what the script gave."""

    __slots__ = ("name", "bound", "constraints", "covariant", "contravariant")
    python_type_name = "typing.TypeVar"

    def __init__(self, name: str, bound: Any = None, constraints: tuple[Any, ...] = (),
                 covariant: bool = False, contravariant: bool = False):
        self.name = name
        self.bound = bound
        self.constraints = constraints
        self.covariant = covariant
        self.contravariant = contravariant

    def __repr__(self) -> str:
        return f"{'+' if self.covariant else '-' if self.contravariant else '~'}{self.name}"


def new_type(name: Any, tp: Any) -> NewTypeValue:
    """typing.NewType(name, tp) as Python 3.11 makes it in a script's module."""
    if not isinstance(name, str):
        from .objects import type_name  # (objects imports nothing of this module's)

        raise TorchTypeError(f"argument of type '{type_name(name)}' is not iterable")
    return NewTypeValue(name, tp)


class NewTypeValue:
    """`UserId = NewType("UserId", int)`: a callable that returns its argument unchanged
    (Python 3.11's typing.NewType: `__call__ = _idfunc`), printed as `__main__.UserId`;
    `__name__`, `__qualname__`, `__supertype__` and `__module__` read as Python's."""

    __slots__ = ("qualname", "supertype")
    python_type_name = "typing.NewType"

    def __init__(self, name: str, tp: Any):
        self.qualname = name
        self.supertype = tp

    def __repr__(self) -> str:
        return f"__main__.{self.qualname}"

    def __call__(self, x: Any) -> Any:
        return x

    def attribute(self, name: str) -> Any:
        """An attribute of Python's NewType instance: the four it sets, a dunder refused as
        not offered, any other name Python's AttributeError."""
        if name == "__name__":
            return self.qualname.rpartition(".")[-1]
        if name == "__qualname__":
            return self.qualname
        if name == "__supertype__":
            return self.supertype
        if name == "__module__":
            return "__main__"
        if name.startswith("__") and name.endswith("__"):  # (its __call__, __dict__, ...)
            raise stdlib.not_supported_attribute(self, name)
        raise ScriptError(f"'NewType' object has no attribute '{name}'", kind="AttributeError")


class ForwardRef:
    """`TypeVar("T", bound="Model")`'s bound: a name typing has not evaluated."""

    __slots__ = ("name",)
    python_type_name = "typing.ForwardRef"

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"ForwardRef({self.name!r})"
