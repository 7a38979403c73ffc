"""`typing`'s class-making bases, as CPython 3.11's typing.py makes them:
`class P(NamedTuple)` (a namedtuple class, the same one `collections.namedtuple` makes,
with the body's other attributes on it), `class Cfg(TypedDict)` (calling it makes a plain
dict), and `Generic[T]`/`Protocol` (dropped from the bases; the class they make generic
subscripts, and a runtime-checkable protocol answers isinstance: generic_classes.py).
"""
from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

from ..errors import LimitExceeded, ScriptError, TorchTypeError
from ..source import Span
from ..tensor_types import ScriptType
from .collection_types import MISSING
from .objects import BuiltinFunction, BuiltinType
from .typing_module import TypingName

if TYPE_CHECKING:
    from .core import Interpreter

# typing._prohibited / typing._special (3.11)
_PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                         "_field_defaults", "_make", "_replace", "_asdict", "_source"})
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
MAX_FIELDS = 10_000


class NamedTupleNew:
    """`Point.__new__` of a namedtuple class, for what code does with it: read and replace
    its `__defaults__`, the defaults construction fills missing fields from (EfficientNet-
    PyTorch's `GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)`).
    Each namedtuple class has its own `__new__` in Python, so the change is the class's."""

    __slots__ = ("cls",)

    def __init__(self, cls: BuiltinType) -> None:
        self.cls = cls

    def __repr__(self) -> str:
        return f"<function {self.cls.name}.__new__ at 0x{id(self):x}>"

    def attribute(self, name: str) -> Any:
        """`__defaults__`, `__name__` or `__qualname__` (MISSING for any other)."""
        if name == "__defaults__":
            return self.cls.type.__new__.__defaults__
        if name == "__name__":
            return "__new__"
        if name == "__qualname__":
            return f"{self.cls.name}.__new__"
        return MISSING

    def set_defaults(self, value: Any) -> None:
        """`__defaults__ = value`: a tuple (its values the script's own), or None."""
        if value is not None and type(value) is not tuple:
            raise ScriptError("__defaults__ must be set to a tuple object", kind="TypeError")
        self.cls.type.__new__.__defaults__ = value


class TypingClass(TypingName):
    """`typing.Generic` or `typing.Protocol`: a class in Python (printed as one), made
    generic by subscripting (`Generic[T]` prints as `typing.Generic[~T]`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if self.args is None:
            return f"<class 'typing.{self.name}'>"
        return super().__repr__()

    def subscript(self, index: Any) -> Any:
        if self.args is not None:
            raise TorchTypeError(f"{self!r} is not a generic class")
        args = index if type(index) is tuple else (index,)
        return TypingName(self.name, args)


def is_generic_base(base: Any) -> bool:
    """`Generic`, `Generic[T]`, `Protocol`, `Protocol[T]` in a class's bases."""
    return isinstance(base, TypingName) and base.name in ("Generic", "Protocol")


class TypedDictType(ScriptType):
    """A TypedDict class: prints as a class of the script's module, calling it makes a
    plain dict, and isinstance refuses it as Python does."""

    def __init__(self, name: str, module: str, fields: tuple[str, ...], total: bool):
        self.name = name
        self.module = module
        self.fields = fields
        self.total = total

    def instancecheck(self, value: Any) -> bool:
        raise TorchTypeError("TypedDict does not support instance and class checks")

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        try:
            return dict(*args, **kwargs)
        except TypeError as exc:
            raise TorchTypeError(str(exc)) from None

    def attribute(self, name: str) -> Any:
        if name == "__total__":
            return self.total
        return super().attribute(name)


class NamedTupleFactory(BuiltinFunction):
    """`typing.NamedTuple`: the functional form `NamedTuple("P", [("x", int)])`, and, as a
    class's base, what makes `class P(NamedTuple)` a namedtuple class."""


class TypedDictFactory(BuiltinFunction):
    """`typing.TypedDict`: `TypedDict("Cfg", {"lr": float})`, or a class's base."""


def typing_class_kind(bases: list[tuple[Any, Span | None]]) -> str | None:
    """"NamedTuple" or "TypedDict" when the bases make one of those (with CPython's
    errors for the bases they cannot be mixed with), None for an ordinary class."""
    kinds = [type(b) for b, _ in bases]
    if NamedTupleFactory in kinds:
        for base, where in bases:
            if type(base) is not NamedTupleFactory and not is_generic_base(base):
                raise ScriptError("can only inherit from a NamedTuple type and Generic",
                                  where, kind="TypeError")
        return "NamedTuple"
    if TypedDictFactory in kinds or TypedDictType in kinds:
        for base, where in bases:
            if type(base) not in (TypedDictFactory, TypedDictType) and \
                    not is_generic_base(base):
                raise ScriptError("cannot inherit from both a TypedDict type and a "
                                  "non-TypedDict base class", where, kind="TypeError")
        return "TypedDict"
    return None


def make_namedtuple_class(interp: Interpreter, name: str, module: str,
                          attrs: dict[str, Any], fields: tuple[str, ...]) -> BuiltinType:
    """typing.NamedTupleMeta.__new__: the annotated names are the fields, those with a
    value in the body their defaults (no field without one after one with one); the
    body's other attributes (methods, properties, constants) go on the class."""
    defaults: list[str] = []
    for field in fields:
        if field in attrs:
            defaults.append(field)
        elif defaults:
            raise TorchTypeError(f"Non-default namedtuple field {field} cannot follow "
                                 f"default field{'s' if len(defaults) > 1 else ''} "
                                 f"{', '.join(defaults)}")
    made = make_namedtuple(interp, name, list(fields), [attrs[f] for f in defaults], module)
    extras: dict[str, Any] = {}
    for key, value in attrs.items():
        if key in _PROHIBITED:
            raise ScriptError("Cannot overwrite NamedTuple attribute " + key,
                              kind="AttributeError")
        if key not in _SPECIAL and key not in fields and key not in ("__qualname__",):
            extras[key] = value
    doc = extras.pop("__doc__", None)
    if doc is not None:
        made.type.__doc__ = doc
    interp.namedtuple_extras[made.type] = extras
    return made


def make_namedtuple(interp: Interpreter, typename: str, fields: list[str],
                    defaults: Any, module: str, rename: bool = False) -> BuiltinType:
    """A namedtuple class the script sees as a class of its module (`collections.
    namedtuple`, `typing.NamedTuple` share it)."""
    names = fields.replace(",", " ").split() if isinstance(fields, str) else fields
    if len(names) > MAX_FIELDS:  # Python builds the class in one uninterruptible step
        raise LimitExceeded(f"a namedtuple of more than {MAX_FIELDS} fields")
    try:
        cls = collections.namedtuple(typename, fields, rename=rename, defaults=defaults,
                                     module=module)
    except (TypeError, ValueError) as exc:  # its checks of the names, in Python's words
        raise ScriptError(str(exc), kind=type(exc).__name__) from None
    made = BuiltinType(cls, cls)
    made.module = module
    interp.builtin_types[cls] = made
    interp.namedtuple_classes.add(cls)
    return made


def make_typed_dict(name: str, module: str, fields: tuple[str, ...], bases: list[Any],
                    total: bool) -> TypedDictType:
    inherited: list[str] = []
    for base in bases:
        if type(base) is TypedDictType:
            inherited += [f for f in base.fields if f not in inherited]
    return TypedDictType(name, module, tuple(inherited) + tuple(
        f for f in fields if f not in inherited), total)


def _named_tuple_signature(typename: Any, fields: Any = None, /, **kwargs: Any) -> None:
    """typing.NamedTuple's signature, for the words of a call that does not fit it."""


def _typed_dict_signature(typename: Any, fields: Any = None, /, *, total: Any = True,
                          **kwargs: Any) -> None:
    """typing.TypedDict's signature, for the words of a call that does not fit it."""


_named_tuple_signature.__qualname__ = "NamedTuple"
_typed_dict_signature.__qualname__ = "TypedDict"


def typing_bases(interp: Interpreter) -> dict[str, Any]:
    """`NamedTuple`, `TypedDict`, `Generic`, `Protocol` for typing's namespace."""

    def named_tuple(typename: Any, fields: Any = None, /, **kwargs: Any) -> BuiltinType:
        if fields is None:
            pairs = list(kwargs.items())
        elif kwargs:
            raise TorchTypeError("Either list of fields or keywords can be provided to "
                                 "NamedTuple, not both")
        else:
            pairs = [tuple(pair) for pair in interp.materialize(fields, "NamedTuple fields")]
        names = []
        for pair in pairs:
            if len(pair) != 2:
                raise TorchTypeError(f"expected 2 items, got {len(pair)}")
            names.append(pair[0])
        return make_namedtuple(interp, typename, names, None, "__main__")

    def typed_dict(typename: Any, fields: Any = None, /, *, total: Any = True,
                   **kwargs: Any) -> TypedDictType:
        if fields is None:
            fields = kwargs
        if not isinstance(fields, dict):
            raise TorchTypeError("TypedDict() second argument must be a dict")
        return TypedDictType(str(typename), "__main__", tuple(fields), bool(total))

    return {
        "NamedTuple": NamedTupleFactory("NamedTuple", named_tuple, _named_tuple_signature),
        "TypedDict": TypedDictFactory("TypedDict", typed_dict, _typed_dict_signature),
        "Generic": TypingClass("Generic"),
        "Protocol": TypingClass("Protocol"),
    }
