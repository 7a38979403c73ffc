"""The interpreter's own objects: script functions, classes, instances, bound methods,
`super`, descriptors (staticmethod, classmethod, property), generators and iterators.

None of these is a Python class made from script text: a script class is a
`ScriptClass` holding a dict, an instance is an `Instance` holding its class and a dict.
Python's protocols reach a script's dunder methods through the Python-level methods of
`Instance` (in `dunders`), which call into the interpreter; nothing here exposes a
Python attribute to a script (the attribute layer, `attributes.py`, decides what a
script can read).
"""
from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NotSupportedError, TorchTypeError
from .memory_io import BytesIO, BytesValue
from .text_io import ScriptStream, StringIO

if TYPE_CHECKING:
    from .core import Interpreter
    from .runtime import Frame
    from .signature import Signature

MISSING: Any = object()  # "no such attribute" in class lookups (None is a value)
ANNOTATED = "<annotated>"  # where a class body notes the names it annotates (no script
# can name this key): they become the class's `annotated`, the fields of a @dataclass


class ClassCell:
    """The class a `class` statement made, for `super()` in the functions of its body
    (Python's `__class__` cell): filled in once the class exists."""

    __slots__ = ("cls",)

    def __init__(self) -> None:
        self.cls: ScriptClass | None = None


class UserFunction:
    """A `def` or `lambda` from the script (or a library module); Python-callable so hooks,
    `key=` and `map` can call it."""

    python_type_name = "function"  # for the engine's messages (torch.device(f))
    __slots__ = ("name", "qualname", "signature", "defaults", "body", "closure", "interp",
                 "is_generator", "cell", "doc", "module", "library", "annotate",
                 "annotations", "lines", "layout", "attrs", "__weakref__")

    def __init__(self, name: str, qualname: str, signature: Signature, defaults: dict[str, Any],
                 body: Callable[[Frame], Any], closure: Frame, interp: Interpreter,
                 is_generator: bool = False, cell: ClassCell | None = None,
                 doc: str | None = None, module: str = "__main__", library: bool = False):
        self.name = name
        self.qualname = qualname
        self.signature = signature
        self.defaults = defaults
        self.body = body
        self.closure = closure
        self.interp = interp
        self.is_generator = is_generator
        self.cell = cell
        self.doc = doc
        self.module = module
        self.library = library  # defined by a bundled library module
        self.annotate: Callable[[], dict[str, Any]] | None = None  # (function_attributes)
        self.annotations: dict[str, Any] | None = None  # once read
        self.lines: tuple[int, int, int | None] | None = None  # (definitions.py)
        # its frame's localsplus names (frame_locals.frame_layout), made when first asked
        self.layout: Callable[[], tuple[tuple[str, ...], tuple[str, ...]]] | None = None
        # the attributes a script sets on it (Python's function `__dict__`: fairseq's
        # `buffered_arange.buf`), made when first set
        self.attrs: dict[str, Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.interp.call_function(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.qualname} at {id(self):#x}>"


class FunctionWrapper:
    """A callable the interpreter made around a script function (a decorator's result,
    such as `@torch.no_grad()`'s): it binds as a method, like the function it wraps."""

    python_type_name = "function"  # for the engine's messages (torch.device(f))
    __slots__ = ("wrapped",)

    def __init__(self, wrapped: Any):
        self.wrapped = wrapped

    def __repr__(self) -> str:
        qualname = getattr(self.wrapped, "qualname", None) or type_name(self.wrapped)
        return f"<function {qualname} at {id(self):#x}>"


class GradModeFunction(FunctionWrapper):
    """A function decorated with a grad-mode context manager (`@torch.no_grad()`): each
    call runs it inside a fresh manager made by `factory`."""

    __slots__ = ("factory",)

    def __init__(self, wrapped: Any, factory: Callable[[], Any]):
        super().__init__(wrapped)
        self.factory = factory

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self.factory():
            return self.wrapped(*args, **kwargs)


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name[:2] == "__" and name[-2:] == "__"


# Python's builtin classes by name (`object`, `dict`, `super`, `BaseException`, ...): the
# owners whose slot wrappers are C descriptors
_BUILTIN_TYPE_NAMES = frozenset(name for name, value in vars(builtins).items()
                                if isinstance(value, type))


class NativeFunction:
    """A method the interpreter implements in Python (`object.__init__`, `object.__setattr__`,
    ...): called with the object first, like a script method."""

    __slots__ = ("name", "owner", "fn", "kind")

    def __init__(self, name: str, owner: str, fn: Callable[..., Any],
                 kind: str = "slot wrapper"):
        self.name = name
        self.owner = owner
        self.fn = fn
        self.kind = kind  # how Python prints it: "slot wrapper", "method"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args and self.kind == "slot wrapper" and self.owner in _BUILTIN_TYPE_NAMES:
            # `object.__init__()`, `super.__init__()`: a builtin type's slot wrapper
            raise TorchTypeError(f"descriptor '{self.name}' of '{self.owner}' object needs an "
                                 "argument")
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        if self.kind == "method-wrapper":  # a torch property's `__get__` / `__set__`
            return f"<method-wrapper '{self.name}' of getset_descriptor object at {id(self):#x}>"
        return f"<{self.kind} '{self.name}' of '{self.owner}' objects>"


class BuiltinFunction:
    """A Python builtin the interpreter implements itself (`print`, `getattr`, `next`, ...),
    shown and reported under Python's name: `<built-in function print>`, and Python's own
    words when the call's arguments do not fit (`getattr expected at least 2 arguments,
    got 1`), which `twin`, Python's builtin, gives for placeholder arguments of the same
    shape (never the script's values)."""

    __slots__ = ("name", "fn", "twin")

    def __init__(self, name: str, fn: Callable[..., Any], twin: Callable[..., Any]):
        self.name = name
        self.fn = fn
        self.twin = twin

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self.fn(*args, **kwargs)
        except TypeError as err:
            if err.__traceback__ is None or err.__traceback__.tb_next is not None:
                raise  # raised inside the builtin, not by binding its arguments
            raise TorchTypeError(self.arguments_message(len(args), kwargs)) from None

    def arguments_message(self, count: int, kwargs: dict[str, Any]) -> str:
        try:
            self.twin(*[None] * count, **dict.fromkeys(kwargs))
        except TypeError as err:
            return str(err)
        return f"{self.name}() got unexpected arguments"  # our signature is narrower

    def __repr__(self) -> str:
        twin = self.twin
        if isinstance(twin, type):  # `<class 'int'>`, `<class 'itertools.count'>`
            module = "" if twin.__module__ == "builtins" else f"{twin.__module__}."
            return f"<class '{module}{twin.__qualname__}'>"
        if isinstance(twin, types.FunctionType):  # written in Python (pprint's functions)
            return f"<function {twin.__qualname__} at {id(self):#x}>"
        return f"<built-in function {self.name}>"


class BuiltinClass(BuiltinFunction):
    """A builtin that is a class in Python with class attributes scripts use
    (`itertools.chain.from_iterable`)."""

    __slots__ = ("attributes",)

    def __init__(self, name: str, fn: Callable[..., Any], twin: Callable[..., Any],
                 attributes: dict[str, Any]):
        super().__init__(name, fn, twin)
        self.attributes = attributes


class Method:
    """A function bound to an object (an instance, or a class for a classmethod)."""

    python_type_name = "method"  # for the engine's messages (torch.device(f))
    __slots__ = ("obj", "function")

    def __init__(self, obj: Any, function: Any):
        self.obj = obj
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(self.obj, *args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return (type(other) is Method and other.obj is self.obj
                and other.function is self.function)

    def __hash__(self) -> int:
        return hash((id(self.obj), id(self.function)))

    def __repr__(self) -> str:
        fn = self.function
        if isinstance(fn, NativeFunction) and fn.kind == "python":  # torch's Python methods
            return f"<bound method {fn.owner}.{fn.name} of {self.obj!r}>"
        if isinstance(fn, NativeFunction):
            return (f"<method-wrapper '{fn.name}' of {type_name(self.obj)} object at "
                    f"{id(self.obj):#x}>")
        name = getattr(fn, "qualname", None) or type_name(fn)
        return f"<bound method {name} of {self.obj!r}>"


class StaticMethod:
    __slots__ = ("function",)

    def __init__(self, function: Any):
        self.function = function

    def __repr__(self) -> str:
        return f"<staticmethod({self.function!r})>"


class ClassMethod:
    __slots__ = ("function",)

    def __init__(self, function: Any):
        self.function = function

    def __repr__(self) -> str:
        return f"<classmethod({self.function!r})>"


class Property:
    """`@property`: fget/fset/fdel run when an instance's attribute is read/set/deleted."""

    __slots__ = ("fget", "fset", "fdel", "doc", "name")

    def __init__(self, fget: Any = None, fset: Any = None, fdel: Any = None,
                 doc: Any = None):
        self.fget = fget
        self.fset = fset
        self.fdel = fdel
        self.doc = doc if doc is not None else getattr(fget, "doc", None)
        self.name = getattr(fget, "name", None)

    def getter(self, fget: Any) -> Property:
        return Property(fget, self.fset, self.fdel, self.doc)

    def setter(self, fset: Any) -> Property:
        return Property(self.fget, fset, self.fdel, self.doc)

    def deleter(self, fdel: Any) -> Property:
        return Property(self.fget, self.fset, fdel, self.doc)

    def __repr__(self) -> str:
        return f"<property object at {id(self):#x}>"


class CachedProperty:
    """`@functools.cached_property`: the first read through an instance calls `func` and
    keeps the value in the instance's attributes, which later reads find first (it has no
    `__set__`: assigning or deleting the attribute is plain)."""

    __slots__ = ("func", "attrname", "doc")
    python_type_name = "cached_property"

    def __init__(self, func: Any):
        self.func = func
        self.attrname = getattr(func, "name", None)
        self.doc = getattr(func, "doc", None)

    def __repr__(self) -> str:
        return f"<functools.cached_property object at {id(self):#x}>"


class PartialMethod:
    """`functools.partialmethod(func, *args, **keywords)`: read through an instance, a
    `functools.partial` of the bound method."""

    __slots__ = ("func", "args", "keywords")
    python_type_name = "partialmethod"

    def __init__(self, func: Any, args: tuple[Any, ...], keywords: dict[str, Any]):
        self.func = func
        self.args = args
        self.keywords = keywords

    def __repr__(self) -> str:
        args = ", ".join(map(repr, self.args))
        keywords = ", ".join(f"{k}={v!r}" for k, v in self.keywords.items())
        return f"functools.partialmethod({self.func!r}, {args}, {keywords})"


def c3_merge(bases: tuple[ScriptClass, ...]) -> tuple[ScriptClass, ...]:
    """The part of a class's MRO after itself: its bases' MROs and the bases merged so
    that each class precedes its bases and the bases keep their order (C3); Python's
    TypeError when no such order exists."""
    sequences = [list(b.mro) for b in bases] + [list(bases)]
    merged: list[ScriptClass] = []
    while True:
        sequences = [seq for seq in sequences if seq]
        if not sequences:
            return tuple(merged)
        for seq in sequences:
            head = seq[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            heads = ", ".join(c.name for c in dict.fromkeys(seq[0] for seq in sequences))
            raise TorchTypeError("Cannot create a consistent method resolution\n"
                                 f"order (MRO) for bases {heads}")
        merged.append(head)
        for seq in sequences:
            if seq[0] is head:
                del seq[0]


class ScriptClass:
    """A class: its name, module, bases (none only for `object`), its namespace, and its
    method resolution order (Python's C3 linearization of itself and its bases)."""

    __slots__ = ("name", "qualname", "module", "base", "bases", "attrs", "mro", "interp",
                 "frozen", "annotated", "exception_kind", "enum", "builtin", "metaclass",
                 "__weakref__")

    def __init__(self, name: str, qualname: str, module: str,
                 base: ScriptClass | tuple[ScriptClass, ...] | None, attrs: dict[str, Any],
                 interp: Interpreter | None, frozen: bool = False):
        bases = base if isinstance(base, tuple) else () if base is None else (base,)
        self.name = name
        self.qualname = qualname
        self.module = module
        self.bases = bases
        self.base = bases[0] if bases else None  # the first, as `__bases__[0]`
        self.attrs = attrs
        self.mro: tuple[ScriptClass, ...] = (self,) + (
            bases[0].mro if len(bases) == 1 else c3_merge(bases))
        self.interp = interp
        self.frozen = frozen  # `object`, shared by every run: its namespace never changes
        self.annotated: tuple[str, ...] = ()  # the names its body annotates (`x: int`)
        # the builtin exception at its root (`class E(ValueError)`), None if not one
        self.exception_kind: str | None = next(
            (b.exception_kind for b in bases if b.exception_kind is not None), None)
        self.enum: Any = None  # an enumeration's members (interpreter/enums.py)
        # the builtin type it derives from (`class AttrDict(dict)`: builtin_classes.py)
        self.builtin: type | None = next(
            (b.builtin for b in bases if b.builtin is not None), None)
        # abc.ABCMeta (`metaclass=ABCMeta`, or a base's), None for `type` itself
        self.metaclass: OpaqueType | None = next(
            (b.metaclass for b in bases if b.metaclass is not None), None)

    def lookup(self, name: str) -> Any:
        """The attribute `name` from the first class in the MRO that has it, else MISSING."""
        for cls in self.mro:
            value = cls.attrs.get(name, MISSING)
            if value is not MISSING:
                return value
        return MISSING

    def is_subclass(self, other: ScriptClass) -> bool:
        return other in self.mro

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.interp is None:  # `object` itself, shared by every run
            raise NotSupportedError("calling `object` from Python code is not supported")
        return self.interp.instantiate(self, list(args), kwargs)

    def __bool__(self) -> bool:
        return True  # a class is true (its __len__ is an enumeration's member count)

    def __len__(self) -> int:
        if self.enum is None:
            raise TypeError("object of type 'type' has no len()")
        return len(self.enum.members)

    def __contains__(self, item: Any) -> bool:
        if self.enum is None:
            raise TypeError("argument of type 'type' is not iterable")
        from .enums import contains

        return contains(self, item)

    def __repr__(self) -> str:
        if self.enum is not None:
            return f"<{'enum' if self.enum.flag is None else 'flag'} '{self.name}'>"
        if self.module == "builtins":
            return f"<class '{self.qualname}'>"
        return f"<class '{self.module}.{self.qualname}'>"


class Instance:
    """An instance of a script class: its class and its attributes. Python's protocols on
    it (operators, `len`, `iter`, `str`, hashing, ...) are defined in `dunders`."""

    __slots__ = ("cls", "attrs", "chain", "value", "__weakref__")

    def __init__(self, cls: ScriptClass):
        self.cls = cls
        self.attrs: dict[str, Any] = {}
        # (an exception's: its __cause__/__context__, errors.ExceptionChain, set when raised)
        # (a builtin subclass's: `value`, its dict, list, str, ...: builtin_classes.py)


class Super:
    """`super()` / `super(C, obj)`: attribute lookup starting after `cls` in obj's MRO;
    `super(C)` (obj None) is Python's unbound super object, whose `__init__()` does nothing
    (real code calls `super(C).__init__()` by mistake for `super(C, self).__init__()`)."""

    __slots__ = ("cls", "obj")

    def __init__(self, cls: ScriptClass, obj: Any):
        self.cls = cls
        self.obj = obj

    def __repr__(self) -> str:
        obj = self.obj
        cls = f"<class '{self.cls.name}'>"  # Python shows the type's own name, no module
        if obj is None:
            return f"<super: {cls}, NULL>"
        of = obj.name if type(obj) is ScriptClass else obj.cls.name \
            if isinstance(obj, Instance) else type_name(obj)
        return f"<super: {cls}, <{of} object>>"


class SuperBuiltin:
    """The builtin `super`: `super(C, obj)` here; a bare `super()` is made where it is
    called (it needs the caller's frame: see `Interpreter.zero_arg_super`)."""

    __slots__ = ("interp",)

    def __init__(self, interp: Interpreter):
        self.interp = interp

    def __call__(self, *args: Any) -> Super:
        if len(args) == 2:
            return self.interp.make_super(*args)
        if not args:
            raise NotSupportedError("super() without arguments only works directly in a "
                                    "method's code")
        if len(args) == 1:
            return self.interp.make_super(args[0], None)
        raise TorchTypeError(f"super() takes at most 2 arguments ({len(args)} given)")

    def attribute(self, name: str) -> Any:
        """The class `super`'s own attributes scripts reach: its name, and its `__init__`
        unbound (`super.__init__()` written for `super().__init__()`); MISSING for others."""
        if name in ("__name__", "__qualname__"):
            return "super"
        if name == "__module__":
            return "builtins"
        if name == "__init__":
            return NativeFunction("__init__", "super", _super_init)
        return MISSING

    def __repr__(self) -> str:
        return "<class 'super'>"


def _super_init(obj: Any, *args: Any, **kwargs: Any) -> None:
    """`super.__init__(obj, ...)`: Python's TypeError unless obj is a super object (whose
    re-initialisation gradtrace does not offer)."""
    if type(obj) is not Super:
        raise TorchTypeError(f"descriptor '__init__' requires a 'super' object but received "
                             f"a '{type_name(obj)}'")
    raise NotSupportedError("super.__init__ of a super object is not supported")


class ScriptGenerator:
    """A generator made by calling a script function that contains `yield`: a Python
    generator running the function's compiled body, resumed through the interpreter
    (which counts the call depth). `frame` is the function's frame (None for a generator
    expression's), the frame running while it is resumed."""

    __slots__ = ("qualname", "gen", "interp", "library", "frame", "__weakref__")

    def __init__(self, qualname: str, gen: Iterator[Any], interp: Interpreter,
                 library: bool = False, frame: Frame | None = None):
        self.qualname = qualname
        self.gen = gen
        self.interp = interp
        self.library = library
        self.frame = frame

    def __iter__(self) -> ScriptGenerator:
        return self

    def __next__(self) -> Any:
        return self.interp.resume(self)

    def __repr__(self) -> str:
        return f"<generator object {self.qualname} at {id(self):#x}>"


class ScriptIterator:
    """A lazy iterator the language hands out (`map`, `filter`, a generator expression,
    `iter()` of an instance): `kind` is the type name scripts see."""

    __slots__ = ("kind", "it")

    def __init__(self, kind: str, it: Iterator[Any]):
        self.kind = kind
        self.it = it

    def __iter__(self) -> ScriptIterator:
        return self

    def __next__(self) -> Any:
        return next(self.it)

    def __repr__(self) -> str:
        return f"<{self.kind} object at {id(self):#x}>"


class OpaqueType:
    """What `type(x)` gives for values whose Python class scripts must not touch: a class
    object that prints, compares, and works with isinstance, but cannot be called or
    inspected."""

    __slots__ = ("name", "module")

    def __init__(self, name: str, module: str = "builtins"):
        self.name = name
        self.module = module

    def __repr__(self) -> str:
        if self.module == "builtins":
            return f"<class '{self.name}'>"
        return f"<class '{self.module}.{self.name}'>"


class BuiltinType:
    """One of Python's types as scripts see it (`int`, `list`, `dict`, `NoneType`, ...):
    callable (through `make`, size-checked where it builds a container), usable with
    isinstance and `type(x) == list`, printed as `<class 'list'>`."""

    __slots__ = ("type", "make", "name", "module")

    def __init__(self, pytype: type, make: Callable[..., Any]):
        self.type = pytype
        self.make = make
        self.name = pytype.__name__
        self.module = "builtins"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.make(*args, **kwargs)

    def __eq__(self, other: object) -> Any:
        """A type numpy reads as a dtype (np.float32, float, int, bool) equals a numpy dtype of
        it, as numpy's dtype.__eq__ makes it: `x.dtype in (np.uint8, np.float32)` compares
        the tuple's items first (BasicSR's colour conversions check their dtype so); any
        other comparison is identity, as before."""
        if isinstance(other, np.dtype) and (issubclass(self.type, np.generic) or
                                            self.type in (bool, int, float, complex)):
            return bool(other == self.type)
        return NotImplemented

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        if self.module == "builtins":
            return f"<class '{self.name}'>"
        return f"<class '{self.module}.{self.name}'>"


_OPAQUE: dict[tuple[str, str], OpaqueType] = {}


def opaque_type(name: str, module: str = "builtins") -> OpaqueType:
    """The one OpaqueType per name, so `type(f) == type(g)` holds for two functions."""
    key = (name, module)
    found = _OPAQUE.get(key)
    if found is None:
        found = _OPAQUE[key] = OpaqueType(name, module)
    return found


# script-visible type names of the interpreter's own Python classes
_TYPE_NAMES: dict[type, str] = {
    UserFunction: "function", FunctionWrapper: "function", GradModeFunction: "function",
    Method: "method",
    NativeFunction: "wrapper_descriptor",
    StaticMethod: "staticmethod", ClassMethod: "classmethod", Property: "property",
    ScriptClass: "type", OpaqueType: "type", BuiltinType: "type", Super: "super",
    ScriptGenerator: "generator", BytesIO: "_io.BytesIO", BytesValue: "bytes",
    ScriptStream: "_io.TextIOWrapper", StringIO: "_io.StringIO",
}


def type_name(value: Any) -> str:
    """The type's name as Python would print it for the script's value."""
    cls = type(value)
    if cls is Instance:
        return value.cls.name
    if getattr(cls, "script_subclass", False):
        return value.pyclass.name  # an instance of a subclass of torch.Tensor
    if cls is NativeFunction and value.kind == "built-in method":  # `object.__new__`
        return "builtin_function_or_method"
    if cls is NativeFunction and value.kind == "method":  # `str.lower`, `torch.Tensor.add`
        return "method_descriptor"
    name = _TYPE_NAMES.get(cls)
    if name is not None:
        return name
    if cls.__module__ == "numpy" or cls.__module__ == "gradtrace.engine.ndarray":
        return f"numpy.{cls.__name__}"  # numpy's arrays and scalars, as Python names them
    if cls is ScriptIterator:
        return value.kind
    if value is None:
        return "NoneType"
    shown = getattr(cls, "python_type_name", None)  # what Python calls the object it stands
    if type(shown) is str:  # for (`re.Match`, `torch.return_types.max`)
        return shown
    from ..engine.node import Node
    from ..engine.tensor import Tensor
    from ..stdlib import BoundMethod, ExceptionType, Namespace
    from .torch_functions import TorchFunction

    if cls is TorchFunction:
        return value.type_name()

    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, Node):
        return value.name().rsplit("::", 1)[-1]
    if cls is Namespace:
        return "module"
    if cls is BoundMethod:  # (a method torch writes in Python is a bound `method`, a
        if value.wrapper:  # type slot's a `method-wrapper`: `(3).__add__`, `g.__next__`)
            return "method-wrapper"
        return "builtin_function_or_method" if value.python is None else "method"
    if cls is ExceptionType or isinstance(value, type):
        return "type"
    from ..errors import ScriptError

    if isinstance(value, ScriptError):
        return value.kind
    if callable(value) and cls.__module__.startswith("gradtrace"):
        return "builtin_function_or_method"
    return cls.__name__


def script_message(message: str, operands: Any) -> str:
    """Python's error text with our Python class names replaced by the script's type names
    (`'Instance'` -> `'Value'`), operand by operand in order."""
    for value in operands:
        python_name = type(value).__name__
        shown = type_name(value)
        if python_name == shown:
            continue
        quoted = f"'{python_name}'"
        if quoted in message:
            message = message.replace(quoted, f"'{shown}'", 1)
        elif f" {python_name}" in message:
            message = message.replace(f" {python_name}", f" {shown}", 1)
    return message
