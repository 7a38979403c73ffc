"""`class Q(P)` where P is a namedtuple class (`collections.namedtuple`, `typing.NamedTuple`),
as torch's PackedSequence derives from its NamedTuple: Q's instances are tuple-subclass
instances (builtin_classes.py) whose base class, made here once per namedtuple class and
run, gives what collections.namedtuple's class body gives: the fields (read-only, by
position), `__new__` (P's own, so its arity errors name `P.__new__()`), `_make`,
`_replace` (both build the subclass without calling its `__new__`, as tuple.__new__ does),
`_asdict`, `_fields`, `_field_defaults` and the `Q(x=1, y=2)` repr; a `typing.NamedTuple`
body's methods come along. `isinstance(q, P)` holds.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ScriptError, TorchTypeError
from .builtin_classes import builtin_base
from .objects import (
    BuiltinType,
    ClassMethod,
    Instance,
    NativeFunction,
    Property,
    ScriptClass,
    StaticMethod,
)

if TYPE_CHECKING:
    from .core import Interpreter


def namedtuple_base(interp: Interpreter, made: BuiltinType) -> ScriptClass:
    """The class a script's `class Q(P)` derives from when P is the namedtuple `made`."""
    found = interp.namedtuple_bases.get(made.type)
    if found is None:
        found = interp.namedtuple_bases[made.type] = _make_base(interp, made)
    return found


def _make_base(interp: Interpreter, made: BuiltinType) -> ScriptClass:
    pytype = made.type
    name = made.name
    fields: tuple[str, ...] = pytype._fields

    def new(cls: Any, *args: Any, **kwargs: Any) -> Instance:
        try:
            values = pytype.__new__(pytype, *args, **kwargs)
        except TypeError as err:
            raise TorchTypeError(str(err)) from None
        return _instance(cls, tuple(values))

    def make(cls: Any, iterable: Any) -> Instance:
        values = tuple(interp.materialize(iterable, "a _make() argument"))
        if len(values) != len(fields):
            raise TorchTypeError(f"Expected {len(fields)} arguments, got {len(values)}")
        return _instance(cls, values)

    def replace(self: Instance, **changes: Any) -> Instance:
        values = tuple(changes.pop(f, v) for f, v in zip(fields, self.value))
        if changes:
            raise ScriptError(f"Got unexpected field names: {list(changes)!r}",
                              kind="ValueError")
        return _instance(self.cls, values)

    def representation(self: Instance) -> str:
        shown = ", ".join(f"{f}={v!r}" for f, v in zip(fields, self.value))
        return f"{self.cls.name}({shown})"

    def field(index: int) -> Property:
        def read(self: Instance) -> Any:
            return self.value[index]

        def refuse(self: Instance, value: Any) -> None:
            raise ScriptError("can't set attribute", kind="AttributeError")

        return Property(NativeFunction(fields[index], name, read, "method"),
                        NativeFunction(fields[index], name, refuse, "method"),
                        doc=f"Alias for field number {index}")

    attrs: dict[str, Any] = {f: field(i) for i, f in enumerate(fields)}
    attrs.update({
        "__new__": StaticMethod(NativeFunction("__new__", name, new, "function")),
        "_make": ClassMethod(NativeFunction("_make", name, make, "method")),
        "_replace": NativeFunction("_replace", name, replace, "method"),
        "_asdict": NativeFunction("_asdict", name,
                                  lambda self: dict(zip(fields, self.value)), "method"),
        "__repr__": NativeFunction("__repr__", name, representation, "method"),
        "_fields": fields, "_field_defaults": dict(pytype._field_defaults),
        "__match_args__": fields, "__doc__": pytype.__doc__, "__slots__": (),
    })
    attrs.update(interp.namedtuple_extras.get(pytype, {}))  # a NamedTuple body's methods
    base = ScriptClass(name, name, made.module, builtin_base(tuple), attrs, interp)
    return base


def _instance(cls: Any, values: tuple) -> Instance:
    """tuple.__new__(cls, values): an instance of the subclass, its `__new__` not run."""
    if type(cls) is not ScriptClass or cls.builtin is not tuple:
        raise TorchTypeError("tuple.__new__(X): X is not a subtype of tuple")
    inst = Instance(cls)
    inst.value = values
    return inst


def namedtuple_of(interp: Interpreter, cls: ScriptClass) -> BuiltinType | None:
    """The namedtuple class a base made here stands for (what `Q.__bases__` shows)."""
    for pytype, base in interp.namedtuple_bases.items():
        if base is cls:
            return interp.builtin_types.get(pytype)
    return None
