"""`enum` classes: a class whose base is `enum.Enum` (bundled library code, lib/enum.gt)
is an enumeration. When its body has run, its public plain attributes become its members:
instances of the class made here (never through `__init__`), holding `_name_` and
`_value_`, in definition order; a value seen before makes an alias; `auto()` takes the
last value + 1 (1 first), as Python 3.11's `_generate_next_value_` does for ints.

The class itself then answers Python's EnumType protocols: `Color(1)` looks a member up
by value, `Color["RED"]` by name, `iter`, `len` and `in` see the members, members cannot
be reassigned, and the class prints as `<enum 'Color'>`. Everything is interpreter
objects (ScriptClass, Instance): no route to Python's own enum machinery.

A flag enumeration (`enum.Flag`, `IntFlag`) resolves `auto()` as its body assigns it (the
next power of two, so `RW = R | W` works), lists only its single-bit members, keeps
Python's masks, and `Flag(value)` makes the pseudo-member of a combination
(Flag._missing_: named `A|B`, cached, STRICT refusing unknown bits, KEEP keeping them).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import NotSupportedError, ScriptError, TorchTypeError
from .objects import MISSING, Instance, NativeFunction, Property, ScriptClass

MAX_MEMBERS = 100_000


class EnumInfo:
    """An enumeration's members: in order (aliases left out), by name and by value.
    A flag enumeration (`flag` is "strict" for enum.Flag, "keep" for IntFlag, its
    FlagBoundary) also keeps Python's masks: every member's bits, the single-bit members'
    bits, and all bits up to the highest."""

    __slots__ = ("members", "by_name", "by_value", "values", "auto", "flag", "flag_mask",
                 "singles_mask", "all_bits")

    def __init__(self, auto: ScriptClass | None = None, flag: str | None = None) -> None:
        self.members: list[Instance] = []
        self.by_name: dict[str, Instance] = {}
        self.by_value: dict[Any, Instance] = {}
        self.values: list[tuple[Any, Instance]] = []  # unhashable values, searched by ==
        self.auto = auto
        self.flag = flag
        self.flag_mask = 0
        self.singles_mask = 0
        self.all_bits = 0


class EnumNamespace(dict):
    """The namespace an enumeration's body runs in (Python's _EnumDict): `auto()` takes
    its value when it is assigned, so later lines of the body can use it (`RW = R | W`)."""

    def __init__(self, initial: dict[str, Any], info: EnumInfo) -> None:
        super().__init__(initial)
        self.info = info
        self.last_values: list[Any] = []

    def __setitem__(self, name: str, value: Any) -> None:
        if not name.startswith("_") and _is_member_value(value):
            info = self.info
            if info.auto is not None and type(value) is Instance and value.cls is info.auto:
                value = _flag_next_value(self.last_values) if info.flag is not None \
                    else _next_value(self.last_values)
            if name not in self:
                self.last_values.append(value)
        super().__setitem__(name, value)


def _is_member_value(value: Any) -> bool:
    """Not a descriptor (Python 3.11's enum._is_descriptor): functions, methods and
    properties stay attributes; a class is a member (`lstm = nn.LSTM`) unless it defines
    __get__, __set__ or __delete__ (a class made in the body too: 3.11 makes it a member
    and warns that 3.13 will not)."""
    from .objects import ClassMethod, NativeFunction, StaticMethod, UserFunction

    if isinstance(value, ScriptClass):
        return all(value.lookup(name) is MISSING for name in ("__get__", "__set__", "__delete__"))
    return not isinstance(value, (UserFunction, NativeFunction, StaticMethod, ClassMethod,
                                  Property))


def _next_value(values: list[Any]) -> Any:
    """Python 3.11's Enum._generate_next_value_: 1 first, then the last value + 1."""
    for v in reversed(values):
        if isinstance(v, int) and not isinstance(v, bool):
            return v + 1
    if values:
        raise NotSupportedError("auto() after a non-integer value is not supported")
    return 1


def _flag_next_value(values: list[Any]) -> Any:
    """Flag._generate_next_value_: 1 first, then the power of two above the highest."""
    if not values:
        return 1
    if not all(type(v) is int for v in values):
        raise NotSupportedError("auto() after a non-integer flag value is not supported")
    return 2 ** max(values).bit_length()


def namespace(base: ScriptClass, initial: dict[str, Any]) -> dict[str, Any]:
    """The namespace a class body runs in: an enumeration's resolves `auto()`."""
    if base.enum is None:
        return initial
    return EnumNamespace(initial, base.enum)


def make_enum(cls: ScriptClass) -> None:
    """Turn the new class `cls` (whose base is an enumeration) into one."""
    base = next((b for b in cls.bases if b.enum is not None), cls.base)
    if base is not None and base.enum is not None and base.enum.members:
        raise TorchTypeError(f"<enum '{cls.name}'> cannot extend <enum '{base.name}'>")
    root = base.enum if base is not None and base.enum is not None else EnumInfo()
    info = EnumInfo(root.auto, root.flag)
    seen: list[Any] = []
    for name, value in list(cls.attrs.items()):
        if name.startswith("_") or not _is_member_value(value):
            continue
        if len(info.by_name) >= MAX_MEMBERS:
            raise NotSupportedError(f"an enumeration of more than {MAX_MEMBERS} members")
        if info.auto is not None and type(value) is Instance and value.cls is info.auto:
            value = _flag_next_value(seen) if info.flag is not None else _next_value(seen)
        seen.append(value)
        if info.flag is not None:
            _add_flag_bits(info, value)
        # `class Mode(str, Enum)`: the member is a str, found by it (Python 3.11.7 keys
        # _value2member_map_ by `member_type(*args)` and keeps `_value_` as written)
        data = MISSING if cls.builtin is None else _data_value(cls.builtin, value)
        key = value if data is MISSING else data
        member = _lookup(info, key)
        if member is None:
            member = Instance(cls)
            member.attrs["_name_"] = name
            member.attrs["_value_"] = value
            if data is not MISSING:
                member.value = data
            if info.flag is None or _single_bit(value):
                info.members.append(member)
            try:
                info.by_value[key] = member
            except TypeError:
                info.values.append((key, member))
        info.by_name[name] = member
        cls.attrs[name] = member
    cls.enum = info
    if cls.builtin is not None and base is not None:
        _enum_methods(cls, base)


def _data_value(pytype: type, value: Any) -> Any:
    """The data type's part of a mixed-in member: `str(value)`, `int(*args)` (a tuple
    value gives the arguments), as EnumType calls `member_type.__new__`."""
    args = value if type(value) is tuple else (value,)
    try:
        return pytype(*args)
    except (TypeError, ValueError) as err:
        raise ScriptError(str(err), kind=type(err).__name__) from None


def _enum_methods(cls: ScriptClass, enum_base: ScriptClass) -> None:
    """EnumType.__new__: the enumeration's `__repr__`, `__str__` and `__format__` are
    Enum's, not the mixed-in data type's (unless the class or a mixin defines them)."""
    from .dunders import OBJECT

    for name in ("__repr__", "__str__", "__format__"):
        if name in cls.attrs:
            continue
        found = cls.lookup(name)
        owner = next((c for c in cls.mro if name in c.attrs), None)
        if owner is OBJECT or owner is not None and owner.frozen and \
                owner.builtin is not None and owner.attrs[name] is found:
            cls.attrs[name] = _MIXED_REPR if name == "__repr__" else enum_base.lookup(name)


def _mixed_repr(member: Instance) -> str:
    """Enum.__repr__ of a mixed-in member: its value as the data type shows it."""
    return f"<{member.cls.name}.{member.attrs.get('_name_')}: {member.value!r}>"


_MIXED_REPR = NativeFunction("__repr__", "Enum", _mixed_repr, "function")


def _single_bit(value: Any) -> bool:
    return type(value) is int and value > 0 and value & (value - 1) == 0


def _add_flag_bits(info: EnumInfo, value: Any) -> None:
    """EnumType's bookkeeping of a flag member's bits."""
    if type(value) is not int:
        if type(value) is Instance and type(value.attrs.get("_value_")) is int:
            value = value.attrs["_value_"]
        else:
            raise TorchTypeError(f"unsupported operand type(s) for |=: 'int' and "
                                 f"'{_name(value)}'")
    info.flag_mask |= value
    if _single_bit(value):
        info.singles_mask |= value
    info.all_bits = 2 ** info.flag_mask.bit_length() - 1


def mark_root(cls: ScriptClass, auto: ScriptClass, flag: str | None = None) -> None:
    """The library's `Enum` (or `Flag`, `IntFlag` with their boundary): the base that makes
    enumerations (and `auto`'s class)."""
    cls.enum = EnumInfo(auto, flag)


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
        if cls.enum.flag is not None:
            return flag_missing(cls, value)
        raise ScriptError(f"{value!r} is not a valid {cls.qualname}", kind="ValueError")
    return member


def _bin(num: int, max_bits: int) -> str:
    """enum.bin: two's complement with the sign bit first, padded to max_bits."""
    ceiling = 2 ** num.bit_length()
    if num >= 0:
        s = bin(num + ceiling).replace("1", "0", 1)
    else:
        s = bin(~num ^ (ceiling - 1) + ceiling)
    sign, digits = s[:3], s[3:]
    if len(digits) < max_bits:
        digits = (sign[-1] * max_bits + digits)[-max_bits:]
    return f"{sign} {digits}"


def _bits(num: int) -> Iterator[int]:
    while num:
        b = num & (~num + 1)
        yield b
        num ^= b


def flag_members(cls: ScriptClass, value: int) -> list[Any]:
    """Flag._iter_member_by_value_: the single-bit members in `value`, lowest bit first
    (None for a bit only an alias covers)."""
    info = cls.enum
    found = [info.by_value.get(b) for b in _bits(value & info.flag_mask)]
    values = [m.attrs["_value_"] for m in info.members]
    if values != sorted(values):  # EnumType then iterates in definition order
        if None in found:  # as sorted() by _sort_order_ fails in Python
            raise ScriptError("'NoneType' object has no attribute '_sort_order_'",
                              kind="AttributeError")
        order = {id(m): i for i, m in enumerate(info.members)}
        found.sort(key=lambda m: order.get(id(m), -1))
    return found


def flag_missing(cls: ScriptClass, value: Any) -> Instance:
    """Flag._missing_ (Python's own ValueError for a value too long to print)."""
    try:
        return _flag_missing(cls, value)
    except ValueError as err:
        raise ScriptError(str(err), kind="ValueError") from None


def _flag_missing(cls: ScriptClass, value: Any) -> Instance:
    """Flag._missing_: the pseudo-member for a combination of members' bits (named
    `A|B`, or None when no member is in it), made once and kept; outside the members'
    bits a Flag refuses the value (STRICT), an IntFlag keeps it (KEEP)."""
    info = cls.enum
    if not isinstance(value, int):
        raise ScriptError(f"{value!r} is not a valid {cls.qualname}", kind="ValueError")
    value = int(value)
    flag_mask, singles_mask, all_bits = info.flag_mask, info.singles_mask, info.all_bits
    strict = info.flag == "strict"
    neg_value = None
    if not ~all_bits <= value <= all_bits or value & (all_bits ^ flag_mask):
        if strict:
            max_bits = max(value.bit_length(), flag_mask.bit_length())
            raise ScriptError(f"{cls!r} invalid value {value!r}\n    given "
                              f"{_bin(value, max_bits)}\n  allowed {_bin(flag_mask, max_bits)}",
                              kind="ValueError")
        if value < 0:
            value = max(all_bits + 1, 2 ** value.bit_length()) + value
    if value < 0:
        neg_value = value
        value = all_bits + 1 + value
    aliases = value & ~singles_mask
    member_value = value & singles_mask
    name: Any = None
    if member_value or aliases:
        found: list[Any] = []
        combined = 0
        for m in flag_members(cls, member_value):
            found.append(m)
            combined |= m.attrs["_value_"]
        if aliases:
            value = member_value | aliases
            for pm in info.by_name.values():
                v = pm.attrs["_value_"]
                if pm not in found and v and v & value == v:
                    found.append(pm)
                    combined |= v
        unknown = value ^ combined
        name = "|".join(m.attrs["_name_"] for m in found)
        if not combined:
            name = None
        elif unknown and strict:
            raise ScriptError(f"{cls!r}: no members with value {unknown!r}", kind="ValueError")
        elif unknown:
            name += f"|{unknown!r}"
    member = info.by_value.get(value)
    if member is None:
        member = Instance(cls)
        member.attrs["_name_"] = name
        member.attrs["_value_"] = value
        info.by_value[value] = member
    if neg_value is not None:
        info.by_value[neg_value] = member
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
    if type(item) is Instance and item.cls.enum is not None:
        return cls in item.cls.mro and item.attrs.get("_name_") in cls.enum.by_name
    raise TorchTypeError(f"unsupported operand type(s) for 'in': '{_name(item)}' and "
                         "'EnumType'")


def _name(value: Any) -> str:
    from .objects import type_name

    return type_name(value)


def check_setattr(cls: ScriptClass, name: str) -> None:
    """Members cannot be reassigned (EnumType.__setattr__)."""
    if name in cls.enum.by_name:
        raise ScriptError(f"cannot reassign member '{name}'", kind="AttributeError")
