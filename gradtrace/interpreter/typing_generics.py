"""typing's generic aliases at run time, as CPython 3.11's typing.py has them: what
`get_origin`/`get_args` answer, an alias's `__origin__`/`__args__`/`__parameters__`,
re-subscripting an alias that still has type variables (`Dict[str, T][int]`,
`Box[T][int]`), and the class a typing alias stands for when it is a base class
(`class Batch(List[int])` is a list subclass, `_GenericAlias.__mro_entries__`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import TorchTypeError
from .generic_classes import ScriptGenericAlias, subscript_class
from .objects import MISSING
from .typed_classes import TypingClass
from .typing_module import GenericAlias, TypeVarName, TypingName

if TYPE_CHECKING:
    from .core import Interpreter

# typing's aliases of a builtin or collections class (typing._SpecialGenericAlias): the
# module and name of what they stand for
_ORIGINS: dict[str, tuple[str, str]] = {
    "List": ("builtins", "list"), "Dict": ("builtins", "dict"), "Set": ("builtins", "set"),
    "FrozenSet": ("builtins", "frozenset"), "Tuple": ("builtins", "tuple"),
    "Type": ("builtins", "type"), "OrderedDict": ("collections", "OrderedDict"),
    "DefaultDict": ("collections", "defaultdict"), "Deque": ("collections", "deque"),
    "Counter": ("collections", "Counter"),
    **{name: ("collections.abc", name) for name in (
        "Callable", "Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping",
        "MutableSequence", "Generator", "Hashable", "Sized", "Collection", "Container")},
}
# typing's special forms whose subscription's origin is the form itself
_SELF_ORIGINS = {"Optional": "Union", "Union": "Union", "Literal": "Literal",
                 "Final": "Final", "ClassVar": "ClassVar"}
# the aliases a class may derive from (the others are no classes in Python)
_SUBCLASSABLE = frozenset(n for n, (m, _) in _ORIGINS.items() if m != "collections.abc") \
    - {"Type"} | {"Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping",
                  "MutableSequence", "Hashable", "Sized", "Collection", "Container"}
# Python's types that subscript to a types.GenericAlias (`list[int]`)
SUBSCRIPTABLE_TYPES = (list, tuple, dict, set, frozenset, stdlib.OrderedDict)


def origin_class(interp: Interpreter, name: str) -> Any:
    """The script's value for the class a typing alias stands for (`list`,
    `collections.abc.Callable`), or None."""
    where = _ORIGINS.get(name)
    if where is None:
        return None
    module, attr = where
    if module == "builtins":
        return interp.builtins[attr]
    found = interp.modules[module].table[attr]
    return interp.library.resolve(found) if type(found) is stdlib.LibraryName else found


def none_type(interp: Interpreter) -> Any:
    return interp.builtin_types[type(None)]


def get_origin(interp: Interpreter, tp: Any) -> Any:
    """typing.get_origin."""
    kind = type(tp)
    if kind is ScriptGenericAlias:
        return tp.origin
    if kind is GenericAlias:
        return tp.origin
    if kind is TypingClass:  # `get_origin(Generic) is Generic`
        return tp if tp.name == "Generic" else None
    if kind is TypingName:
        if tp.name in ("Generic", "Protocol"):  # Generic[T]
            return TypingClass(tp.name)
        if tp.name == "Annotated" and tp.args is not None:
            return TypingClass("Annotated")
        if tp.name in _SELF_ORIGINS and tp.args is not None:
            # typing's own object (`get_origin(Optional[int]) is Union`)
            name = _SELF_ORIGINS[tp.name]
            typing_module = interp.modules.get("typing")
            found = typing_module.table.get(name) if typing_module is not None else None
            return found if type(found) is TypingName else TypingName(name)
        return origin_class(interp, tp.name)
    return None


def get_args(interp: Interpreter, tp: Any) -> tuple[Any, ...]:
    """typing.get_args: a Callable's parameters as a list, None as NoneType."""
    kind = type(tp)
    if kind is ScriptGenericAlias:
        return tuple(tp.args)
    if isinstance(tp, TypingName) and tp.args is not None:
        if tp.name in ("Optional", "Union"):
            return args_with_none(interp, tp)
        args = tuple(tp.args)
        if tp.name == "Callable" and len(args) == 2 and type(args[0]) is list:
            return (list(args[0]), args[1])
        return args
    return ()


def args_with_none(interp: Interpreter, tp: TypingName) -> tuple[Any, ...]:
    """An Optional's or Union's arguments as typing keeps them (None as NoneType)."""
    args = tuple(none_type(interp) if a is None else a for a in tp.args or ())
    return (*args, none_type(interp)) if tp.name == "Optional" else args


def parameters(value: Any) -> tuple[Any, ...]:
    """The type variables an alias's arguments hold, first seen first."""
    found: dict[Any, None] = {}
    _collect(value.args or (), found, 0)
    return tuple(found)


def _collect(args: Any, found: dict[Any, None], depth: int) -> None:
    """(Aliases nest as deep as the script built them: Python's recursion limit, which
    the run turns into its call-depth LimitError, bounds the walk as it bounds typing's.)"""
    for arg in args:
        if type(arg) is TypeVarName:
            found[arg] = None
        elif type(arg) is list:
            _collect(arg, found, depth + 1)
        elif type(arg) is ScriptGenericAlias or isinstance(arg, TypingName):
            _collect(arg.args or (), found, depth + 1)


def resubscript(interp: Interpreter, alias: Any, index: Any) -> Any:
    """`alias[args]` for an alias with type variables left (typing's
    _GenericAlias.__getitem__): each variable replaced, wherever it is nested."""
    params = parameters(alias)
    if not params:
        raise TorchTypeError(f"{alias!r} is not a generic class")
    args = index if type(index) is tuple else (index,)
    if len(args) != len(params):
        raise TorchTypeError(f"Too {'many' if len(args) > len(params) else 'few'} arguments "
                             f"for {alias!r}; actual {len(args)}, expected {len(params)}")
    return _substitute(interp, alias, dict(zip(params, args)), 0)


def _substitute(interp: Interpreter, value: Any, mapping: dict[Any, Any], depth: int) -> Any:
    kind = type(value)
    if kind is TypeVarName:
        return mapping.get(value, value)
    if kind is list:
        return [_substitute(interp, v, mapping, depth + 1) for v in value]
    if kind is ScriptGenericAlias:
        args = tuple(_substitute(interp, a, mapping, depth + 1) for a in value.args)
        return subscript_class(interp, value.origin, args)
    if isinstance(value, TypingName) and value.args is not None:
        args = tuple(_substitute(interp, a, mapping, depth + 1) for a in value.args)
        if kind is GenericAlias:
            return GenericAlias(value.name, args, value.origin)
        if value.name == "Optional":  # the Union it is, normalised again
            return TypingName("Union").subscript((*args, None))
        if value.name == "Union":
            return TypingName("Union").subscript(args)
        return TypingName(value.name, args)
    return value


def alias_attribute(interp: Interpreter, alias: TypingName, name: str) -> Any:
    """A typing alias's `__origin__`, `__args__`, `__parameters__`, `__name__`,
    `__module__` (what inspect's formatannotation tests)."""
    if name == "__origin__":
        origin = get_origin(interp, alias)
        if origin is not None:
            return origin
    elif name == "__args__" and alias.args is not None:
        if alias.name in ("Optional", "Union"):
            return args_with_none(interp, alias)
        return tuple(alias.args)
    elif name == "__parameters__" and (alias.args is not None or alias.name in _ORIGINS):
        return parameters(alias)
    elif name in ("__name__", "__qualname__") and type(alias) is not GenericAlias:
        return "Optional" if alias.name == "Optional" and alias.args is not None else \
            alias.name
    elif name == "__module__":
        return "builtins" if type(alias) is GenericAlias else "typing"
    return MISSING  # (the caller's refusal or AttributeError, as for any value)


def typevar_attribute(var: TypeVarName, name: str) -> Any:
    """A TypeVar's name, bound, constraints and variance."""
    if name == "__name__":
        return var.name
    if name == "__bound__":
        return var.bound
    if name == "__constraints__":
        return var.constraints
    if name == "__covariant__":
        return var.covariant
    if name == "__contravariant__":
        return var.contravariant
    return MISSING


def base_class(interp: Interpreter, base: Any) -> Any:
    """What a typing alias in a class's bases stands for (`List[int]` -> list), or the
    base itself."""
    if isinstance(base, TypingName) and type(base) is not TypingClass:
        if base.name in _SUBCLASSABLE:
            return origin_class(interp, base.name)
        if type(base) is GenericAlias and base.origin is not None:
            return base.origin
    return base


def is_alias_base(base: Any) -> bool:
    """A subscripted or plain typing alias whose class a new class derives from."""
    return isinstance(base, TypingName) and type(base) is not TypingClass and (
        base.name in _SUBCLASSABLE or type(base) is GenericAlias and base.origin is not None)


def alias_check_class(interp: Interpreter, alias: TypingName, check: str) -> Any:
    """The class isinstance/issubclass checks against for a typing alias (`List` is
    list); a subscripted alias or a special form is Python's TypeError."""
    if type(alias) is GenericAlias:
        raise TorchTypeError(f"{check}() argument 2 cannot be a parameterized generic")
    if alias.args is not None:
        raise TorchTypeError("Subscripted generics cannot be used with class and instance "
                             "checks")
    origin = origin_class(interp, alias.name)
    if origin is None:
        raise TorchTypeError(f"{alias!r} cannot be used with {check}()")
    return origin
