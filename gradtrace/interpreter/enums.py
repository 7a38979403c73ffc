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
from .objects import MISSING, Instance, Property, ScriptClass

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


def call(cls: ScriptClass, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`Color(value)`: the member with that value (or the member itself); with names,
    `Enum("Color", "RED GREEN")`, a new enumeration (EnumType._create_)."""
    if len(args) > 2 or set(kwargs) - {"names", "module", "qualname", "start", "value"}:
        unexpected = next((k for k in kwargs if k not in ("names", "module", "qualname",
                                                         "start", "value")), None)
        if unexpected is not None:
            raise TorchTypeError("EnumType.__call__() got an unexpected keyword argument "
                                 f"'{unexpected}'")
        raise TorchTypeError(f"EnumType.__call__() takes from 2 to 3 positional arguments "
                             f"but {len(args) + 1} were given")
    if len(args) == 2 or "names" in kwargs:
        names = args[1] if len(args) == 2 else kwargs["names"]
        value = args[0] if args else kwargs.get("value")
        return create(cls, value, names, kwargs.get("module"), kwargs.get("qualname"),
                      kwargs.get("start", 1))
    if not args:
        raise TorchTypeError("EnumType.__call__() missing 1 required positional argument: "
                             "'value'")
    value = args[0]
    if type(value) is Instance and value.cls is cls:
        return value
    member = _lookup(cls.enum, value)
    if member is None:
        raise ScriptError(f"{value!r} is not a valid {cls.qualname}", kind="ValueError")
    return member


def create(cls: ScriptClass, name: Any, names: Any, module: Any, qualname: Any,
           start: Any) -> ScriptClass:
    """EnumType._create_: the names as a string (split at commas and spaces) or a list
    (values from `start` up), a list of (name, value) pairs, or a mapping."""
    if not isinstance(name, str):
        raise TorchTypeError(f"{name!r} is not a valid enum name")
    if cls.enum is not None and cls.enum.members:
        raise TorchTypeError(f"<enum {name!r}> cannot extend {cls!r}")
    interp = cls.interp
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    if isinstance(names, dict):
        pairs = list(names.items())
    else:
        items = list(interp.materialize(names, "enum member names"))
        if items and all(isinstance(n, str) for n in items):
            pairs = [(n, start + i) for i, n in enumerate(items)]
        else:
            pairs = []
            for item in items:
                item = tuple(interp.materialize(item, "an enum member"))
                if len(item) != 2:
                    raise TorchTypeError(f"expected 2 items, got {len(item)}")
                pairs.append(item)
    if len(pairs) > MAX_MEMBERS:
        raise NotSupportedError(f"an enumeration of more than {MAX_MEMBERS} members")
    attrs: dict[str, Any] = {"__module__": module if isinstance(module, str) else "__main__"}
    for key, value in pairs:
        if not isinstance(key, str):
            raise TorchTypeError(f"{key!r} is not a valid enum member name")
        if key.startswith("_"):
            raise NotSupportedError(f"enum member names starting with '_' ({key!r}) are not "
                                    "supported")
        if key in attrs:
            raise TorchTypeError(f"{key!r} already defined as {attrs[key]!r}")
        if cls.lookup(key) is not MISSING:
            raise ScriptError(f"invalid enum member name(s) {key!r}", kind="ValueError")
        attrs[key] = value
    made = ScriptClass(name, qualname if isinstance(qualname, str) else name,
                       attrs.pop("__module__"), cls, attrs, interp)
    make_enum(made)
    return made


def members(cls: ScriptClass) -> dict[str, Instance]:
    """`Color.__members__`: every name, aliases too, in definition order (a copy)."""
    return dict(cls.enum.by_name)


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
