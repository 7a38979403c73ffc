"""`enum` classes: a class whose base is `enum.Enum` (bundled library code, lib/enum.gt)
is an enumeration. When its body has run, its public plain attributes become its members:
instances of the class made here (never through `__init__`), holding `_name_` and
`_value_`, in definition order; a value seen before makes an alias; `auto()` takes the
last value + 1 (1 first), as Python 3.11's `_generate_next_value_` does for ints.

The class itself then answers Python's EnumType protocols: `Color(1)` looks a member up
by value, `Color["RED"]` by name, `iter`, `len` and `in` see the members, members cannot
be reassigned, and the class prints as `<enum 'Color'>`. Everything is interpreter
objects (ScriptClass, Instance): no route to Python's own enum machinery.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import NotSupportedError, ScriptError, TorchTypeError
from .objects import Instance, Property, ScriptClass

MAX_MEMBERS = 100_000


class EnumInfo:
    """An enumeration's members: in order (aliases left out), by name and by value."""

    __slots__ = ("members", "by_name", "by_value", "values", "auto")

    def __init__(self, auto: ScriptClass | None = None) -> None:
        self.members: list[Instance] = []
        self.by_name: dict[str, Instance] = {}
        self.by_value: dict[Any, Instance] = {}
        self.values: list[tuple[Any, Instance]] = []  # unhashable values, searched by ==
        self.auto = auto


def _is_member_value(value: Any) -> bool:
    from .objects import ClassMethod, NativeFunction, StaticMethod, UserFunction

    return not isinstance(value, (UserFunction, NativeFunction, StaticMethod, ClassMethod,
                                  Property, ScriptClass))


def _next_value(values: list[Any]) -> Any:
    """Python 3.11's Enum._generate_next_value_: 1 first, then the last value + 1."""
    for v in reversed(values):
        if isinstance(v, int) and not isinstance(v, bool):
            return v + 1
    if values:
        raise NotSupportedError("auto() after a non-integer value is not supported")
    return 1


def make_enum(cls: ScriptClass) -> None:
    """Turn the new class `cls` (whose base is an enumeration) into one."""
    base = cls.base
    if base is not None and base.enum is not None and base.enum.members:
        raise TorchTypeError(f"<enum '{cls.name}'> cannot extend <enum '{base.name}'>")
    root = base.enum if base is not None and base.enum is not None else EnumInfo()
    info = EnumInfo(root.auto)
    seen: list[Any] = []
    for name, value in list(cls.attrs.items()):
        if name.startswith("_") or not _is_member_value(value):
            continue
        if len(info.by_name) >= MAX_MEMBERS:
            raise NotSupportedError(f"an enumeration of more than {MAX_MEMBERS} members")
        if info.auto is not None and type(value) is Instance and value.cls is info.auto:
            value = _next_value(seen)
        seen.append(value)
        member = _lookup(info, value)
        if member is None:
            member = Instance(cls)
            member.attrs["_name_"] = name
            member.attrs["_value_"] = value
            info.members.append(member)
            try:
                info.by_value[value] = member
            except TypeError:
                info.values.append((value, member))
        info.by_name[name] = member
        cls.attrs[name] = member
    cls.enum = info


def mark_root(cls: ScriptClass, auto: ScriptClass) -> None:
    """The library's `Enum`: the base that makes enumerations (and `auto`'s class)."""
    cls.enum = EnumInfo(auto)


def _lookup(info: EnumInfo, value: Any) -> Instance | None:
    try:
        found = info.by_value.get(value)
    except TypeError:
        found = None
    if found is not None:
        return found
    for v, member in info.values:
        if v is value or (type(v) is type(value) and v == value):
            return member
    return None


def call(cls: ScriptClass, args: list[Any], kwargs: dict[str, Any]) -> Instance:
    """`Color(value)`: the member with that value (or the member itself)."""
    if kwargs or len(args) != 1:
        raise NotSupportedError("creating an enumeration by calling Enum (the functional "
                                "API) is not supported")
    value = args[0]
    if type(value) is Instance and value.cls is cls:
        return value
    member = _lookup(cls.enum, value)
    if member is None:
        raise ScriptError(f"{value!r} is not a valid {cls.qualname}", kind="ValueError")
    return member


def getitem(cls: ScriptClass, name: Any) -> Instance:
    """`Color["RED"]`."""
    member = cls.enum.by_name.get(name) if isinstance(name, str) else None
    if member is None:
        raise ScriptError(repr(name), kind="KeyError")
    return member


def iterate(cls: ScriptClass) -> Iterator[Instance]:
    return iter(list(cls.enum.members))


def contains(cls: ScriptClass, item: Any) -> bool:
    if type(item) is Instance:
        return item.cls is cls and item in cls.enum.members
    raise TorchTypeError(f"unsupported operand type(s) for 'in': '{_name(item)}' and "
                         "'EnumType'")


def _name(value: Any) -> str:
    from .objects import type_name

    return type_name(value)


def check_setattr(cls: ScriptClass, name: str) -> None:
    """Members cannot be reassigned (EnumType.__setattr__)."""
    if name in cls.enum.by_name:
        raise ScriptError(f"cannot reassign member '{name}'", kind="AttributeError")
