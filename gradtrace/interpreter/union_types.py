"""PEP 604 unions (`int | None`, `torch.Tensor | None`, `list[int] | None`), what `X | Y` of
two classes or parameterized builtins makes in Python 3.10+ (types.UnionType): printed
`int | None`, flattened and without repeats, equal whatever the order of its members, and
accepted by isinstance/issubclass like a tuple of its members, as are typing's `Union[...]`
and `Optional[...]`.
"""
from __future__ import annotations

from typing import Any

from ..tensor_types import ScriptType
from .objects import BuiltinType, OpaqueType, ScriptClass
from .typing_module import GenericAlias, TypingName, _type_repr


class UnionType:
    """`X | Y`: its members in order (None for NoneType, as written)."""

    __slots__ = ("args",)
    python_type_name = "types.UnionType"

    def __init__(self, args: tuple[Any, ...]):
        self.args = args

    def __repr__(self) -> str:
        return " | ".join("None" if a is None else _type_repr(a) for a in self.args)

    def __eq__(self, other: object) -> bool:
        return type(other) is UnionType and set(map(_key, self.args)) == \
            set(map(_key, other.args))

    def __hash__(self) -> int:
        return hash(frozenset(map(_key, self.args)))


def _key(value: Any) -> Any:
    return id(value) if not _hashable(value) else value


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


_CLASS_LIKE = (ScriptClass, BuiltinType, OpaqueType, UnionType)


def is_union_operand(value: Any) -> bool:
    """What `|` joins into a union: a class (a script's, Python's, torch's: the emulation's
    classes and the engine's own, `torch.device`, `torch.Generator`), None, a union, a
    types.GenericAlias (`Iterable[torch.Tensor] | Iterable[dict[str, Any]]`, torch's
    ParamsT)."""
    return value is None or isinstance(value, _CLASS_LIKE) or isinstance(value, ScriptType) \
        or type(value) is GenericAlias or isinstance(value, type)


def union(a: Any, b: Any) -> Any:
    """`a | b` of two classes (one may be None): the union, or the one class if the other
    repeats it (`int | int` is int)."""
    members: dict[Any, Any] = {}  # (by key: one pass however many members)
    for value in (a, b):
        for member in (value.args if type(value) is UnionType else (value,)):
            members.setdefault(_key(member), member)
    found = tuple(members.values())
    return found[0] if len(found) == 1 else UnionType(found)


def union_members(classinfo: Any) -> tuple[Any, ...] | None:
    """The classes a union (PEP 604's, or typing's Union/Optional) stands for in
    isinstance/issubclass; None if `classinfo` is not one."""
    if type(classinfo) is UnionType:
        return classinfo.args
    if type(classinfo) is TypingName and classinfo.args is not None and \
            classinfo.name in ("Union", "Optional"):
        return classinfo.args + ((None,) if classinfo.name == "Optional" else ())
    return None
