"""Script classes that subclass Python's builtin types: `class AttrDict(dict)`,
`class Batch(list)`, `class Mode(str, Enum)`, `class Color(int, Enum)`.

Such a class's builtin base is one of the frozen classes below, one per type, shared by
every run like `object`. Its instances are ordinary `Instance`s that also hold `value`: a
plain Python dict, list, str, int, float or tuple, the part of the object the builtin type
owns (made empty for a dict or list and filled by `__init__`; made from the constructor's
arguments for an immutable type, as `str.__new__` does). The frozen class's dunders are
`NativeFunction`s over that value (so `super().__getitem__(k)`, `len`, `in`, iteration,
`==`, hashing and printing reach it through the script's MRO, and a script's own
`__getitem__` or `__missing__` overrides them), and the type's ordinary methods (`keys`,
`append`, `upper`, ...) are looked up in the same allow-listed tables (stdlib) as for a
plain value, bound to the value.

The value is never handed to the script as an object of its own: reading it goes through
these methods, and Python code that needs the plain type (`dict(x)`, `**x`, `json.dumps`,
builtins that walk a container) gets it through `as_builtin`, as CPython's fast paths
read a subclass's storage. `class Point(tuple)` with its own `__new__` is not supported.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import NotSupportedError, ScriptError
from .dunders import OBJECT
from .objects import MISSING, Instance, NativeFunction, ScriptClass, StaticMethod

SUBCLASSABLE = (dict, list, str, int, float, tuple)
MUTABLE = (dict, list)

_BASES: dict[type, ScriptClass] = {}

_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_NUMBER = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
           "lshift", "rshift")


def as_builtin(value: Any) -> Any:
    """A builtin subclass's instance as its plain value (what CPython's fast paths read),
    unless its class iterates its own way; anything else as it is."""
    if type(value) is Instance and value.cls.builtin is not None and plain_iteration(value):
        return value.value
    return value


def plain_iteration(inst: Instance) -> bool:
    """Whether iterating the instance is iterating its value (no `__iter__` override)."""
    found = inst.cls.lookup("__iter__")
    return found is MISSING or type(found) is NativeFunction and found.owner in _OWNERS


def builtin_instances_in(args: Any, kwargs: dict[str, Any]) -> bool:
    """Whether a call's arguments hold a builtin subclass's instance or an IntEnum
    member, at the top level or inside lists and tuples (`torch.tensor([Label.CAT])`)."""
    for a in args:
        if _holds_instance(a):
            return True
    if kwargs:
        for a in kwargs.values():
            if _holds_instance(a):
                return True
    return False


def _holds_instance(value: Any) -> bool:
    kind = type(value)
    if kind is Instance:
        return value.cls.builtin is not None or is_int_enum(value.cls)
    if kind is list or kind is tuple:
        stack = [value]
        seen = {id(value)}
        while stack:  # nested data, walked without recursion, each list once (a list may
            for item in stack.pop():  # hold itself)
                kind = type(item)
                if kind is Instance:
                    if item.cls.builtin is not None or is_int_enum(item.cls):
                        return True
                elif (kind is list or kind is tuple) and id(item) not in seen:
                    seen.add(id(item))
                    stack.append(item)
    return False


def is_int_enum(cls: ScriptClass) -> bool:
    """Whether a class derives from the library's enum.IntEnum or IntFlag (an int
    subclass in Python, so torch reads its members as ints)."""
    return cls.enum is not None and any(
        c.name in ("IntEnum", "IntFlag") and c.module == "enum" for c in cls.mro)


def number_operand(value: Instance) -> Any:
    """An int or float subclass's instance (an IntEnum member) as the number torch's
    operators read it; any other instance as it is."""
    if value.cls.builtin in (int, float):
        return value.value
    if is_int_enum(value.cls):
        return value.attrs["_value_"]
    return value


def inherits_number_dunder(value: Instance, dunder: str) -> bool:
    """Whether the instance's `dunder` is the builtin int's or float's own (which answers
    NotImplemented for a tensor, so Python asks the tensor next)."""
    found = value.cls.lookup(dunder)
    return found is MISSING or type(found) is NativeFunction and found.owner in _OWNERS


def as_builtin_values(args: Any, kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The arguments for the engine, which takes Python's plain types, as torch's argument
    parser reads a subclass: each builtin subclass's instance as its value, an IntEnum
    member as its int, inside lists and tuples too (`torch.tensor([Label.CAT, N(3)])`,
    `torch.tensor(Batch([1, 2]))`, `reduction=Mode.SUM`)."""
    return ([_plain(a) if _holds_instance(a) else a for a in args],
            {k: _plain(v) if _holds_instance(v) else v for k, v in kwargs.items()})


def _plain(value: Any, within: frozenset[int] = frozenset()) -> Any:
    """`within`: the lists being rebuilt around this one; a list met again inside itself is
    left as it is (the engine then fails on it as torch does)."""
    kind = type(value)
    if kind is Instance:
        if value.cls.builtin is not None:
            return _plain(value.value, within) if value.cls.builtin in MUTABLE or \
                value.cls.builtin is tuple else value.value
        if is_int_enum(value.cls):
            return value.attrs["_value_"]
        return value
    if (kind is list or kind is tuple) and id(value) not in within:
        inner = within | {id(value)}  # (rebuilt whole: one walk, whatever the nesting)
        items = [_plain(v, inner) for v in value]
        return items if kind is list else tuple(items)
    return value


def unwrap_str(value: Any) -> Any:
    """A str subclass's instance (`Mode.TRAIN`) as its str, for Python's str methods."""
    if type(value) is Instance and value.cls.builtin is str:
        return value.value
    return value


def unwrap_builtin(value: Any) -> Any:
    """A builtin subclass's instance as its plain value (json, `**`): anything else as
    it is."""
    if type(value) is Instance and value.cls.builtin is not None:
        return value.value
    return value


_unwrap = unwrap_builtin


# the operators whose result can grow past the limits: checked as the plain operands'
# (expressions._guard_binop), a reflected one with its operands swapped
_GUARDED = {"add": "+", "mul": "*", "mod": "%", "pow": "**", "lshift": "<<",
            "floordiv": "//"}


def _value_of(inst: Any, pytype: type, dunder: str) -> Any:
    """The instance's value, or Python's TypeError for a method called on another object
    (`dict.__repr__` of an AttrDict through its class, `D.__getitem__(5, 0)`)."""
    if type(inst) is Instance and inst.cls.builtin is not None and \
            issubclass(inst.cls.builtin, pytype):
        return inst.value
    from .objects import type_name

    if type(inst) is pytype:
        raise NotSupportedError(f"{pytype.__name__}.{dunder} of a plain {pytype.__name__} "
                                "is not supported (only of a subclass's instance)")
    raise TypeError(f"descriptor '{dunder}' requires a '{pytype.__name__}' object but "
                    f"received a '{type_name(inst)}'")


def _guard(inst: Instance, dunder: str, value: Any, other: Any) -> None:
    name = dunder.strip("_")
    reflected = name.startswith("r") and name[1:] in _GUARDED
    symbol = _GUARDED.get(name[1:] if reflected or name.startswith("i") and
                          name[1:] in _GUARDED else name)
    if symbol is not None:
        a, b = (other, value) if reflected else (value, other)
        inst.cls.interp._guard_binop(symbol, a, b, None)


def _operator(pytype: type, dunder: str) -> Callable[..., Any]:
    """`pytype.dunder` applied to the instance's value (operands unwrapped): the slot
    wrapper Python's subclass inherits."""
    method = getattr(pytype, dunder)  # a fixed name from this module's lists
    if dunder in ("__iadd__", "__imul__", "__ior__"):
        def inplace(inst: Instance, other: Any) -> Any:
            value = _value_of(inst, pytype, dunder)
            other = _unwrap(other)
            _guard(inst, dunder, value, other)
            method(value, other)
            return inst  # `x += [1]` keeps x

        return inplace
    if dunder == "__format__":
        def format_value(inst: Instance, spec: Any) -> Any:
            value = _value_of(inst, pytype, dunder)
            if isinstance(spec, str):
                inst.cls.interp.check_spec(spec, None)
            return method(value, spec)

        return format_value
    guarded = dunder.strip("_") in _GUARDED or dunder.strip("_")[1:] in _GUARDED

    def call(inst: Instance, *args: Any) -> Any:
        value = _value_of(inst, pytype, dunder)
        args = tuple(_unwrap(a) for a in args)
        if guarded and len(args) == 1:
            _guard(inst, dunder, value, args[0])
        return method(value, *args)

    return call


def _reflected(pytype: type, forward: str) -> Callable[..., Any]:
    """`other + x` where only the left operand is the builtin type (str and list have no
    reflected `+`, and Python never needs one for a true subclass)."""
    method = getattr(pytype, forward)

    def call(inst: Instance, other: Any) -> Any:
        value = _value_of(inst, pytype, "__radd__")
        other = _unwrap(other)
        if not isinstance(other, pytype):
            return NotImplemented
        inst.cls.interp._guard_binop("+", other, value, None)
        return method(other, value)

    return call


def _init_mutable(pytype: type) -> Callable[..., None]:
    def init(inst: Instance, *args: Any, **kwargs: Any) -> None:
        _value_of(inst, pytype, "__init__")
        args = tuple(_unwrap(a) for a in args)
        if pytype is dict:
            inst.value.update(*args, **kwargs)  # dict.__init__ updates what is there
        else:
            if kwargs:
                raise ScriptError("list() takes no keyword arguments", kind="TypeError")
            if len(args) > 1:
                raise ScriptError(f"list expected at most 1 argument, got {len(args)}",
                                  kind="TypeError")
            inst.value.clear()
            if args:
                inst.value.extend(inst.cls.interp.materialize(args[0], "a list() argument"))

    return init


def _init_immutable(inst: Instance, *args: Any, **kwargs: Any) -> None:
    """`object.__init__` of an immutable builtin subclass: the arguments went to `__new__`."""


def _dict_getitem(inst: Instance, key: Any) -> Any:
    """dict.__getitem__: a missing key calls the class's `__missing__` if it has one."""
    value = _value_of(inst, dict, "__getitem__")
    try:
        return value[key]
    except KeyError:
        pass
    missing = inst.cls.lookup("__missing__")
    if missing is MISSING:
        raise KeyError(key)
    return inst.cls.interp.call_bound(missing, inst, (key,))


def _make_base(pytype: type) -> ScriptClass:
    name = pytype.__name__
    natives: dict[str, Callable[..., Any]] = {
        "__init__": _init_mutable(pytype) if pytype in MUTABLE else _init_immutable,
        "__repr__": _operator(pytype, "__repr__"),
        "__len__": _operator(pytype, "__len__") if pytype not in (int, float) else None,
        "__iter__": _operator(pytype, "__iter__") if pytype not in (int, float) else None,
        "__contains__": _operator(pytype, "__contains__")
        if pytype not in (int, float) else None,
    }
    for op in _COMPARE:
        natives[f"__{op}__"] = _operator(pytype, f"__{op}__")
    if pytype in (int, float):
        for op in _NUMBER:
            for dunder in (f"__{op}__", f"__r{op}__"):
                if hasattr(pytype, dunder):
                    natives[dunder] = _operator(pytype, dunder)
        for dunder in ("__neg__", "__pos__", "__abs__", "__int__", "__float__", "__bool__",
                       "__index__", "__invert__", "__round__", "__floor__", "__ceil__",
                       "__trunc__", "__divmod__", "__rdivmod__"):
            if hasattr(pytype, dunder):
                natives[dunder] = _operator(pytype, dunder)
    else:
        natives["__getitem__"] = _dict_getitem if pytype is dict \
            else _operator(pytype, "__getitem__")
        if pytype is dict:
            natives["__or__"] = _operator(dict, "__or__")
            natives["__ror__"] = _operator(dict, "__ror__")
            natives["__ior__"] = _operator(dict, "__ior__")
        else:
            natives["__add__"] = _operator(pytype, "__add__")
            natives["__radd__"] = _reflected(pytype, "__add__")
            natives["__mul__"] = _operator(pytype, "__mul__")
            natives["__rmul__"] = _operator(pytype, "__rmul__")
    if pytype in MUTABLE:
        natives["__setitem__"] = _operator(pytype, "__setitem__")
        natives["__delitem__"] = _operator(pytype, "__delitem__")
    if pytype is list:
        natives["__iadd__"] = _operator(list, "__iadd__")
        natives["__imul__"] = _operator(list, "__imul__")
    if pytype is str:
        natives["__str__"] = _operator(str, "__str__")
        natives["__mod__"] = _operator(str, "__mod__")
    if pytype in (str, int, float):
        natives["__format__"] = _operator(pytype, "__format__")
    if pytype not in MUTABLE:
        natives["__hash__"] = _operator(pytype, "__hash__")
    attrs: dict[str, Any] = {n: NativeFunction(n, name, fn) for n, fn in natives.items()
                             if fn is not None}
    attrs["__new__"] = StaticMethod(NativeFunction("__new__", name, _new(pytype),
                                                   "built-in method"))
    if pytype in MUTABLE:
        attrs["__hash__"] = None  # unhashable, as Python's dict and list
    cls = ScriptClass(name, name, "builtins", OBJECT, attrs, None, frozen=True)
    cls.builtin = pytype
    return cls


_OWNERS = frozenset(t.__name__ for t in SUBCLASSABLE)


def builtin_base(pytype: type, where: Any = None, name: str | None = None) -> ScriptClass:
    """The class a script's `class C(pytype)` derives from."""
    if pytype is bool:
        raise ScriptError("type 'bool' is not an acceptable base type", where,
                          kind="TypeError")
    if pytype not in SUBCLASSABLE:
        raise NotSupportedError(f"subclassing <class '{name or pytype.__name__}'> is not "
                                "supported "
                                "(dict, list, str, int, float and tuple can be subclassed)",
                                where)
    found = _BASES.get(pytype)
    if found is None:
        found = _BASES[pytype] = _make_base(pytype)
    return found


def _new(pytype: type) -> Callable[..., Instance]:
    """`pytype.__new__(cls, *args)`, what a subclass's own `__new__` calls through
    `super().__new__(cls, ...)`: a new instance of the script class `cls`."""
    def new(cls: Any = None, *args: Any, **kwargs: Any) -> Instance:
        from .objects import type_name

        if type(cls) is not ScriptClass or cls.builtin is None or \
                not issubclass(cls.builtin, pytype) or cls.interp is None:
            if type(cls) is not ScriptClass:
                raise TypeError(f"{pytype.__name__}.__new__(X): X is not a type object "
                                f"({type_name(cls)})")
            shown = cls.name
            raise TypeError(f"{pytype.__name__}.__new__({shown}): {shown} is not a subtype "
                            f"of {pytype.__name__}")
        if cls.enum is not None:  # members are made once, by the class statement
            raise NotSupportedError(f"{pytype.__name__}.__new__ of an enumeration is not "
                                    "supported")
        inst = Instance(cls)
        inst.value = initial_value(cls, list(args), kwargs)
        return inst

    return new


def base_dunder(pytype: type, name: str) -> Any:
    """`dict.__setitem__`, `str.__new__`, ... read from the builtin type: the method a
    subclass inherits (None when it is not one of them)."""
    if pytype not in SUBCLASSABLE:
        return None
    found = builtin_base(pytype).attrs.get(name)
    return found.function if type(found) is StaticMethod else found


def is_builtin_new(found: Any) -> bool:
    """Whether a class's `__new__` is its builtin base's (not one of its own)."""
    return type(found) is StaticMethod and type(found.function) is NativeFunction and \
        found.function.owner in _OWNERS


def initial_value(cls: ScriptClass, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """What `pytype.__new__(cls, *args, **kwargs)` gives the instance: an empty dict or list
    (`__init__` fills it), an immutable value made from the arguments."""
    pytype = cls.builtin
    if pytype in MUTABLE:
        return pytype()
    args = [_unwrap(a) for a in args]
    if pytype is tuple and args:
        args[0] = cls.interp.materialize(args[0], "a tuple() argument")
    return pytype(*args, **kwargs)
