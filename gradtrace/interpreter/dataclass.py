"""Python's `dataclasses` as training scripts use it for their configs: `@dataclass` (with
or without arguments) makes `__init__`, `__repr__` and `__eq__` from the names the class
body annotates (its bases' first), `field(default=..., default_factory=...)`, `asdict`,
`astuple`, `replace`, `fields`, `frozen=True` (assignment raises FrozenInstanceError,
instances hash by their fields) and `order=True` (`<` and co compare the fields as tuples).
Python's checks and messages: a field without a default after one with one, a
list/dict/set default, the generated `__init__`'s argument errors. Methods the class body
defines are kept (`__init__`, `__repr__`, `__eq__`; `__hash__` by Python's table). The
options that change more than this (unsafe_hash, kw_only, slots) are refused.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import (
    GradtraceError,
    NotSupportedError,
    ScriptError,
    TorchTypeError,
    TorchValueError,
)
from .copying import deep_copy
from .objects import (
    MISSING,
    BuiltinFunction,
    Instance,
    NativeFunction,
    ScriptClass,
)
from .typing_module import TypingName
from .wrapped import register

if TYPE_CHECKING:
    from .core import Interpreter


class Field:
    """What `dataclasses.field(...)` returns: a field's default or default factory."""

    __slots__ = ("default", "default_factory", "repr", "compare", "init", "name", "kw_only")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool,
                 compare: bool, kw_only: Any = MISSING):
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.kw_only = kw_only  # (MISSING: the dataclass's, or KW_ONLY's, decides)
        self.name: Any = None  # set when the class is made

    def __repr__(self) -> str:
        return "Field(...)"


_REFUSED_OPTIONS = ("unsafe_hash", "slots")


class _KwOnlyType:
    """dataclasses.KW_ONLY: annotating a pseudo-field with it (`_: KW_ONLY`) makes the
    fields after it keyword-only."""

    __slots__ = ()
    python_type_name = "_KW_ONLY_TYPE"

    def __repr__(self) -> str:
        return f"<dataclasses._KW_ONLY_TYPE object at {id(self):#x}>"


KW_ONLY = _KwOnlyType()
_ORDER = {"__lt__": lambda a, b: a < b, "__le__": lambda a, b: a <= b,
          "__gt__": lambda a, b: a > b, "__ge__": lambda a, b: a >= b}
register(Field, {name: (lambda spec, name=name: _shown(getattr(spec, name))) for name in (
    "name", "default", "default_factory", "init", "repr", "compare", "kw_only")}, {})


def _shown(value: Any) -> Any:
    """A field's attribute as scripts see it: no default is Python's dataclasses.MISSING."""
    return dataclasses.MISSING if value is MISSING else value


def dataclasses_namespace(interp: Interpreter) -> stdlib.Namespace:
    """The `dataclasses` module of one run."""
    fields_of: dict[int, tuple[tuple[str, Field], ...]] = {}  # id(class) -> its fields

    def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True,
              repr: bool = True, hash: Any = None, compare: bool = True,
              metadata: Any = None, kw_only: Any = MISSING) -> Field:
        if default is not MISSING and default_factory is not MISSING:
            raise TorchValueError("cannot specify both default and default_factory")
        return Field(default, default_factory, init, repr, compare, kw_only)

    def dataclass(cls: Any = None, /, *, init: bool = True, repr: bool = True,
                  eq: bool = True, order: bool = False, frozen: bool = False,
                  match_args: bool = True, kw_only: bool = False, **options: Any) -> Any:
        for name in options:
            if name not in _REFUSED_OPTIONS:
                raise TorchTypeError(f"dataclass() got an unexpected keyword argument '{name}'")
            if options[name]:
                raise NotSupportedError(f"@dataclass({name}=True) is not supported by gradtrace")
        if order and not eq:
            raise TorchValueError("eq must be true if order is true")

        def wrap(cls: Any) -> Any:
            if type(cls) is not ScriptClass:
                raise NotSupportedError("@dataclass applies to a class defined in the script")
            fields = _collect(cls, fields_of, _annotation_kinds(interp, cls), kw_only)
            fields_of[id(cls)] = fields
            own = cls.attrs  # what the class body defined is kept, as Python's dataclass keeps it
            class_hash = own.get("__hash__", MISSING)
            explicit_hash = not (class_hash is MISSING or
                                 (class_hash is None and "__eq__" in own))
            if init and "__init__" not in own:
                own["__init__"] = NativeFunction("__init__", cls.name,
                                                 _make_init(interp, cls, fields, frozen))
            if repr and "__repr__" not in own:
                own["__repr__"] = NativeFunction("__repr__", cls.name, _make_repr(fields))
            if eq and "__eq__" not in own:
                own["__eq__"] = NativeFunction("__eq__", cls.name, _make_eq(fields))
            if eq and not frozen and not explicit_hash:
                own["__hash__"] = None
            if order:
                for name, compare in _ORDER.items():
                    if name in cls.attrs:
                        raise TorchTypeError(
                            f"Cannot overwrite attribute {name} in class {cls.name}. Consider "
                            "using functools.total_ordering")
                    cls.attrs[name] = NativeFunction(name, cls.name,
                                                     _make_order(fields, compare))
            if frozen:
                for name, fn in _make_frozen(cls, fields).items():
                    if name == "__hash__":
                        if eq and not explicit_hash:
                            own[name] = NativeFunction(name, cls.name, fn)
                        continue
                    if name in own:
                        raise TorchTypeError(f"Cannot overwrite attribute {name} in class "
                                             f"{cls.name}")
                    own[name] = NativeFunction(name, cls.name, fn)
            if match_args and "__match_args__" not in cls.attrs:  # for `case Point(x, y)`
                cls.attrs["__match_args__"] = tuple(name for name, f in fields
                                                    if f.init and not f.kw_only)
            return cls

        return wrap if cls is None else wrap(cls)

    def fields_for(obj: Any, what: str) -> tuple[tuple[str, Field], ...]:
        if type(obj) is not Instance or id(obj.cls) not in fields_of:
            raise TorchTypeError(f"{what}() should be called on dataclass instances")
        return fields_of[id(obj.cls)]

    def convert(value: Any, factory: Callable[[list], Any]) -> Any:
        if type(value) is Instance and id(value.cls) in fields_of:
            return factory([(name, convert(value.attrs.get(name), factory))
                            for name, _ in fields_of[id(value.cls)]])
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v, factory) for v in value)
        if isinstance(value, dict):
            return type(value)((convert(k, factory), convert(v, factory))
                               for k, v in value.items())
        return deep_copy(value, interp.tick)

    def asdict(obj: Any) -> dict:
        fields_for(obj, "asdict")
        return convert(obj, dict)

    def astuple(obj: Any) -> tuple:
        fields_for(obj, "astuple")
        return convert(obj, lambda pairs: tuple(v for _, v in pairs))

    def replace(obj: Any, /, **changes: Any) -> Any:
        for name, spec in fields_for(obj, "replace"):
            if not spec.init:
                if name in changes:
                    raise TorchValueError(f"field {name} is declared with init=False, it "
                                          "cannot be specified with replace()")
            elif name not in changes:
                changes[name] = obj.attrs.get(name)
        return interp.instantiate(obj.cls, [], changes)

    def fields(class_or_instance: Any) -> tuple[Field, ...]:
        cls = class_or_instance.cls if type(class_or_instance) is Instance \
            else class_or_instance
        if type(cls) is not ScriptClass or id(cls) not in fields_of:
            raise TorchTypeError("must be called with a dataclass type or instance")
        return tuple(spec for _, spec in fields_of[id(cls)])

    def is_dataclass(obj: Any) -> bool:
        cls = obj.cls if type(obj) is Instance else obj
        return type(cls) is ScriptClass and id(cls) in fields_of

    table = {"dataclass": dataclass, "field": field, "asdict": asdict, "astuple": astuple,
             "is_dataclass": is_dataclass, "replace": replace, "fields": fields}
    namespace = stdlib.Namespace("dataclasses", {
        key: BuiltinFunction(key, fn, getattr(dataclasses, key)) for key, fn in table.items()})
    namespace.table["FrozenInstanceError"] = stdlib.TorchExceptionType("FrozenInstanceError",
                                                                       "dataclasses")
    namespace.table["MISSING"] = dataclasses.MISSING
    namespace.table["KW_ONLY"] = KW_ONLY
    return namespace


def _annotation_kinds(interp: Any, cls: ScriptClass) -> dict[str, str]:
    """The annotated names that are no ordinary fields: "ClassVar" (`typing.ClassVar[int]`,
    or its string under PEP 563: a class attribute; dataclasses._is_classvar) and
    "KW_ONLY" (`_: KW_ONLY`: the fields after it are keyword-only). An annotation that
    cannot be evaluated is taken as a field's, as gradtrace took every one before."""
    pending = interp.class_annotations.get(cls, {})
    found: dict[str, str] = {}
    for name, read in pending.items():
        try:
            value = read()
        except GradtraceError:
            continue
        if isinstance(value, str):
            match = _CLASSVAR_TEXT.match(value)
            if match is not None and match.group(2) in ("ClassVar", "KW_ONLY") and \
                    match.group(1) in (None, "typing", "dataclasses"):
                found[name] = match.group(2)
        elif type(value) is TypingName and value.name == "ClassVar":
            found[name] = "ClassVar"
        elif value is KW_ONLY:
            found[name] = "KW_ONLY"
    return found


_CLASSVAR_TEXT = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")  # dataclasses._MODULE_IDENTIFIER_RE


def _collect(cls: ScriptClass, fields_of: dict[int, Any], kinds: dict[str, str],
             kw_only: bool) -> tuple[tuple[str, Field], ...]:
    """The fields: the dataclass bases' first, then the names this class annotates (but
    ClassVars), each with its default (the class attribute, or what `field()` gave) and
    whether it is keyword-only (the field's own say, else after `_: KW_ONLY`, else the
    dataclass's `kw_only`)."""
    fields: dict[str, Field] = {}
    for base in reversed(cls.mro[1:]):
        fields.update(fields_of.get(id(base), ()))
    marker = None
    for name in cls.annotated:
        kind = kinds.get(name)
        if kind == "ClassVar":
            continue
        if kind == "KW_ONLY":
            if marker is not None:
                raise TorchTypeError(f"'{name}' is KW_ONLY, but KW_ONLY has already been "
                                     "specified")
            marker = name
            kw_only = True
            continue
        value = cls.attrs.get(name, MISSING)
        if type(value) is Field:
            spec = value
            if value.default is MISSING:
                del cls.attrs[name]
            else:
                cls.attrs[name] = value.default
        else:
            spec = Field(value, MISSING, True, True, True)
        spec.name = name
        if spec.kw_only is MISSING:
            spec.kw_only = kw_only
        if type(spec.default) in (list, dict, set):
            raise TorchValueError(f"mutable default <class '{type(spec.default).__name__}'> "
                                  f"for field {name} is not allowed: use default_factory")
        fields[name] = spec
    seen_default = False
    for name, spec in fields.items():
        if not spec.init or spec.kw_only:
            continue
        has_default = spec.default is not MISSING or spec.default_factory is not MISSING
        if seen_default and not has_default:
            raise TorchTypeError(f"non-default argument '{name}' follows default argument")
        seen_default = seen_default or has_default
    return tuple(fields.items())


def _names(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _make_init(interp: Interpreter, cls: ScriptClass, fields: tuple[tuple[str, Field], ...],
               frozen: bool) -> Callable[..., None]:
    params = [(name, spec) for name, spec in fields if spec.init and not spec.kw_only]
    keyword_only = [(name, spec) for name, spec in fields if spec.init and spec.kw_only]
    required = sum(1 for _, s in params
                   if s.default is MISSING and s.default_factory is MISSING)
    where = f"{cls.qualname}.__init__()"
    names = [name for name, _ in params]
    accepted = set(names) | {name for name, _ in keyword_only}

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(params):
            takes = (f"{len(params) + 1}" if required == len(params)
                     else f"from {required + 1} to {len(params) + 1}")
            plural = "argument" if takes == "1" else "arguments"
            raise TorchTypeError(f"{where} takes {takes} positional {plural} but "
                                 f"{len(args) + 1} were given")
        for key in kwargs:
            if key not in accepted:
                raise TorchTypeError(f"{where} got an unexpected keyword argument '{key}'")
            if key in names and names.index(key) < len(args):
                raise TorchTypeError(f"{where} got multiple values for argument '{key}'")
        values = dict(zip(names, args))
        values.update(kwargs)
        for group, word in ((params, "positional"), (keyword_only, "keyword-only")):
            missing = [name for name, spec in group if name not in values
                       and spec.default is MISSING and spec.default_factory is MISSING]
            if missing:
                plural = "argument" if len(missing) == 1 else "arguments"
                raise TorchTypeError(f"{where} missing {len(missing)} required {word} "
                                     f"{plural}: {_names(missing)}")
        for name, spec in fields:
            if name in values:
                value = values[name]
            elif spec.default_factory is not MISSING:
                value = interp.call(spec.default_factory, [], {}, None)
            elif spec.default is not MISSING:
                value = spec.default
            else:
                continue
            if frozen:  # object.__setattr__, past the frozen class's own
                interp.plain_setattr(self, name, value)
            else:
                interp.set_attribute(self, name, value)
        post_init = self.cls.lookup("__post_init__")
        if post_init is not MISSING:
            interp.call_bound(post_init, self, [], {})

    return __init__


def _make_repr(fields: tuple[tuple[str, Field], ...]) -> Callable[[Any], str]:
    shown = [name for name, spec in fields if spec.repr]
    running: set[int] = set()

    def __repr__(self: Any) -> str:
        if id(self) in running:  # dataclasses' _recursive_repr: an instance met inside itself
            return "..."
        running.add(id(self))
        try:
            inner = ", ".join(f"{name}={self.attrs.get(name)!r}" for name in shown)
        finally:
            running.discard(id(self))
        return f"{self.cls.qualname}({inner})"

    __repr__.shown_fields = tuple(shown)  # type: ignore[attr-defined]  # (pprint lays them out)
    return __repr__


def repr_fields(obj: Any) -> tuple[str, ...] | None:
    """The fields a dataclass instance's generated `__repr__` shows, which pprint lays out
    one per line when the repr is too wide (CPython's `_pprint_dataclass`); None for any
    other value, or a dataclass whose class writes its own `__repr__`."""
    if type(obj) is not Instance:
        return None
    found = obj.cls.lookup("__repr__")
    return getattr(found.fn, "shown_fields", None) if type(found) is NativeFunction else None


def _make_eq(fields: tuple[tuple[str, Field], ...]) -> Callable[[Any, Any], Any]:
    compared = [name for name, spec in fields if spec.compare]

    def __eq__(self: Any, other: Any) -> Any:
        if type(other) is not Instance or other.cls is not self.cls:
            return NotImplemented
        return (tuple(self.attrs.get(n) for n in compared)
                == tuple(other.attrs.get(n) for n in compared))

    return __eq__


def _make_order(fields: tuple[tuple[str, Field], ...],
                compare: Callable[[tuple, tuple], bool]) -> Callable[[Any, Any], Any]:
    """order=True's `__lt__` and co: the compared fields as tuples, for the same class."""
    compared = [name for name, spec in fields if spec.compare]

    def method(self: Any, other: Any) -> Any:
        if type(other) is not Instance or other.cls is not self.cls:
            return NotImplemented
        return compare(tuple(self.attrs.get(n) for n in compared),
                       tuple(other.attrs.get(n) for n in compared))

    return method


def _make_frozen(cls: ScriptClass, fields: tuple[tuple[str, Field], ...]
                 ) -> dict[str, Callable[..., Any]]:
    """A frozen dataclass's __setattr__/__delattr__ (FrozenInstanceError for its fields, or
    any name on the class itself) and __hash__ (of its compared fields)."""
    names = {name for name, _ in fields}
    compared = [name for name, spec in fields if spec.compare]

    def refuse(verb: str) -> Callable[..., None]:
        def method(self: Any, name: Any, *value: Any) -> None:
            if self.cls is cls or name in names:
                raise ScriptError(f"cannot {verb} field {name!r}", kind="FrozenInstanceError")
            interp = cls.interp
            if value:
                interp.plain_setattr(self, name, value[0])
            else:
                interp.plain_delattr(self, name)
        return method

    def __hash__(self: Any) -> int:
        return hash(tuple(self.attrs.get(n) for n in compared))

    return {"__setattr__": refuse("assign to"), "__delattr__": refuse("delete"),
            "__hash__": __hash__}
