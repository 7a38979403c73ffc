"""Python's protocols on script instances, and the class `object`.

`Instance` gets Python-level methods (`__add__`, `__len__`, `__iter__`, `__eq__`,
`__hash__`, `__repr__`, ...) that look the dunder up in the script class and call it
through the interpreter, so every consumer of a protocol -- the interpreter's operators,
`sorted`, `sum`, `in`, dict keys, `print`, f-strings -- sees the script's methods. When
the class lacks a method, each one does what Python does for a type without that slot:
`NotImplemented` for operators (Python then tries the reflected one, then raises its
TypeError), a TypeError with CPython's words otherwise.

`object` is a `ScriptClass` shared by every run, whose methods are `NativeFunction`s.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..errors import ScriptError
from .objects import (
    MISSING,
    ClassMethod,
    Instance,
    NativeFunction,
    ScriptClass,
    StaticMethod,
    type_name,
)


def _call(inst: Instance, fn: Any, *args: Any) -> Any:
    """Call a method found in inst's class, bound to inst as attribute access would."""
    if type(fn) is NativeFunction:
        return fn.fn(inst, *args)
    return inst.cls.interp.call_bound(fn, inst, args)


# ------------------------------------------------------------------ operators

_BINARY = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
    "rshift": ">>",
}


def _binary(name: str) -> tuple[Callable, Callable, Callable]:
    forward, reflected, inplace = f"__{name}__", f"__r{name}__", f"__i{name}__"

    def op(self: Instance, other: Any) -> Any:
        fn = self.cls.lookup(forward)
        result = NotImplemented if fn is MISSING else _call(self, fn, other)
        if result is NotImplemented and type(other) is Instance and other.cls is not self.cls:
            # Python tries the right operand's reflected method only for another Python
            # type; script classes are all one Python type, so try it here
            fn = other.cls.lookup(reflected)
            if fn is not MISSING:
                result = _call(other, fn, self)
        return result

    def rop(self: Instance, other: Any) -> Any:
        fn = self.cls.lookup(reflected)
        return NotImplemented if fn is MISSING else _call(self, fn, other)

    def iop(self: Instance, other: Any) -> Any:
        fn = self.cls.lookup(inplace)
        return NotImplemented if fn is MISSING else _call(self, fn, other)

    return op, rop, iop


def _unary(name: str, message: str) -> Callable:
    dunder = f"__{name}__"

    def op(self: Instance) -> Any:
        fn = self.cls.lookup(dunder)
        if fn is MISSING:
            raise TypeError(message.format(type_name(self)))
        return _call(self, fn)

    return op


def _compare(name: str) -> Callable:
    dunder = f"__{name}__"

    def op(self: Instance, other: Any) -> Any:
        fn = self.cls.lookup(dunder)
        return NotImplemented if fn is MISSING else _call(self, fn, other)

    return op


for _name in _BINARY:
    _op, _rop, _iop = _binary(_name)
    setattr(Instance, f"__{_name}__", _op)
    setattr(Instance, f"__r{_name}__", _rop)
    setattr(Instance, f"__i{_name}__", _iop)
for _name, _message in (("neg", "bad operand type for unary -: '{}'"),
                        ("pos", "bad operand type for unary +: '{}'"),
                        ("invert", "bad operand type for unary ~: '{}'"),
                        ("abs", "bad operand type for abs(): '{}'"),
                        ("float", "float() argument must be a string or a real number, "
                                  "not '{}'"),
                        ("int", "int() argument must be a string, a bytes-like object or a "
                                "real number, not '{}'")):
    setattr(Instance, f"__{_name}__", _unary(_name, _message))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Instance, f"__{_name}__", _compare(_name))


def _complex(self: Instance) -> complex:
    """complex(x): the class's __complex__; without one, CPython's complex() reads the
    number through __float__ or __index__, and refuses an instance with neither."""
    fn = self.cls.lookup("__complex__")
    if fn is not MISSING:
        result = _call(self, fn)
        if not isinstance(result, complex):
            raise TypeError(f"__complex__ returned non-complex (type {type_name(result)})")
        return result
    if self.cls.lookup("__float__") is not MISSING:
        return complex(float(self))
    if self.cls.lookup("__index__") is not MISSING:
        return complex(self.cls.interp.as_index(self))  # (its check of the result)
    raise TypeError("complex() first argument must be a string or a number, not "
                    f"'{type_name(self)}'")


Instance.__complex__ = _complex  # type: ignore[attr-defined]


# ------------------------------------------------------------------ other protocols


def _hash(self: Instance) -> int:
    fn = self.cls.lookup("__hash__")
    if fn is None or fn is MISSING:  # a class with __eq__ and no __hash__ is unhashable
        raise TypeError(f"unhashable type: '{type_name(self)}'")
    result = _call(self, fn)
    if not isinstance(result, int):
        raise TypeError("__hash__ method should return an integer")
    return result


def _bool(self: Instance) -> bool:
    fn = self.cls.lookup("__bool__")
    if fn is not MISSING:
        result = _call(self, fn)
        if type(result) is not bool:
            raise TypeError(f"__bool__ should return bool, returned {type_name(result)}")
        return result
    if self.cls.lookup("__len__") is not MISSING:
        return _len(self) != 0
    return True


def _len(self: Instance) -> int:
    fn = self.cls.lookup("__len__")
    if fn is MISSING:
        raise TypeError(f"object of type '{type_name(self)}' has no len()")
    result = _call(self, fn)
    if not isinstance(result, int):
        raise TypeError(f"'{type_name(result)}' object cannot be interpreted as an integer")
    if result < 0:
        raise ValueError("__len__() should return >= 0")
    return result


def _iter(self: Instance) -> Iterator[Any]:
    fn = self.cls.lookup("__iter__")
    if fn is MISSING:
        if self.cls.lookup("__getitem__") is not MISSING:
            return _sequence_iterator(self)
        raise TypeError(f"'{type_name(self)}' object is not iterable")
    result = _call(self, fn)
    if type(result) is Instance:
        if result.cls.lookup("__next__") is MISSING:
            raise TypeError(f"iter() returned non-iterator of type '{type_name(result)}'")
        return result
    if not hasattr(result, "__next__") or isinstance(result, (list, tuple, dict, str)):
        raise TypeError(f"iter() returned non-iterator of type '{type_name(result)}'")
    return result


def _sequence_iterator(self: Instance) -> Iterator[Any]:
    """Python's iteration of an object that has `__getitem__` but no `__iter__`: items
    0, 1, 2, ... until IndexError (or StopIteration)."""
    fn = self.cls.lookup("__getitem__")
    index = 0
    while True:
        try:
            item = _call(self, fn, index)
        except ScriptError as err:
            if err.matches("IndexError") or err.matches("StopIteration"):
                return
            raise
        yield item
        index += 1


def _next(self: Instance) -> Any:
    fn = self.cls.lookup("__next__")
    if fn is MISSING:
        raise TypeError(f"'{type_name(self)}' object is not an iterator")
    try:
        return _call(self, fn)
    except ScriptError as err:
        if err.kind == "StopIteration":
            raise StopIteration from None
        raise


def _contains(self: Instance, item: Any) -> bool:
    fn = self.cls.lookup("__contains__")
    if fn is not MISSING:
        return bool(_call(self, fn, item))
    try:
        iterator = _iter(self)
    except TypeError:
        raise TypeError(f"argument of type '{type_name(self)}' is not iterable") from None
    return any(x is item or x == item for x in iterator)


def _item(name: str, message: str) -> Callable:
    dunder = f"__{name}__"

    def op(self: Instance, *args: Any) -> Any:
        fn = self.cls.lookup(dunder)
        if fn is MISSING:
            raise TypeError(message.format(type_name(self)))
        return _call(self, fn, *args)

    return op


def _call_instance(self: Instance, *args: Any, **kwargs: Any) -> Any:
    fn = self.cls.lookup("__call__")
    if fn is MISSING:
        raise TypeError(f"'{type_name(self)}' object is not callable")
    return self.cls.interp.call_bound(fn, self, args, kwargs)


def _text(name: str) -> Callable:
    dunder = f"__{name}__"

    def op(self: Instance) -> str:
        result = _call(self, self.cls.lookup(dunder))
        if not isinstance(result, str):
            raise TypeError(f"{dunder} returned non-string (type {type_name(result)})")
        return result

    return op


def _format(self: Instance, spec: str) -> str:
    result = _call(self, self.cls.lookup("__format__"), spec)
    if not isinstance(result, str):
        raise TypeError(f"__format__ must return a str, not {type_name(result)}")
    return result


def _rounding(name: str) -> Callable:
    """round(x), math.floor/ceil/trunc(x): the class's method; without one, round is
    Python's TypeError and the others use `float(x)`, as CPython's math module does."""
    dunder = f"__{name}__"

    def op(self: Instance, *args: Any) -> Any:
        fn = self.cls.lookup(dunder)
        if fn is not MISSING:
            return _call(self, fn, *args)
        if name == "round":
            raise TypeError(f"type {type_name(self)} doesn't define __round__ method")
        import math

        return getattr(math, name)(self.__float__())  # a fixed name: floor, ceil, trunc

    return op


for _name in ("round", "floor", "ceil", "trunc"):
    setattr(Instance, f"__{_name}__", _rounding(_name))
Instance.__hash__ = _hash  # type: ignore[assignment]
Instance.__bool__ = _bool  # type: ignore[attr-defined]
Instance.__len__ = _len  # type: ignore[attr-defined]
Instance.__iter__ = _iter  # type: ignore[attr-defined]
Instance.__next__ = _next  # type: ignore[attr-defined]
Instance.__contains__ = _contains  # type: ignore[attr-defined]
Instance.__getitem__ = _item("getitem", "'{}' object is not subscriptable")  # type: ignore
Instance.__setitem__ = _item(  # type: ignore[attr-defined]
    "setitem", "'{}' object does not support item assignment")
Instance.__delitem__ = _item(  # type: ignore[attr-defined]
    "delitem", "'{}' object doesn't support item deletion")
Instance.__call__ = _call_instance  # type: ignore[attr-defined]
Instance.__repr__ = _text("repr")  # type: ignore[assignment]
Instance.__str__ = _text("str")  # type: ignore[assignment]
Instance.__format__ = _format  # type: ignore[assignment]


# ------------------------------------------------------------------ object


def default_repr(obj: Instance) -> str:
    cls = obj.cls
    where = cls.qualname if cls.module == "builtins" else f"{cls.module}.{cls.qualname}"
    return f"<{where} object at {id(obj):#x}>"


def _object_new(*args: Any, **kwargs: Any) -> Instance:
    """`object.__new__(cls, ...)`, what a class's own `__new__` reaches through
    `super().__new__(cls)`: a new instance of the script class `cls` (classes.py)."""
    if not args:
        raise TypeError("object.__new__(): not enough arguments")
    cls, *rest = args
    if type(cls) is not ScriptClass:
        raise TypeError(f"object.__new__(X): X is not a type object ({type_name(cls)})")
    if cls.interp is None:  # `object.__new__(object)`; a builtin type's frozen base
        if cls is not OBJECT:
            raise TypeError(f"object.__new__({cls.name}) is not safe, use "
                            f"{cls.name}.__new__()")
        if rest or kwargs:
            raise TypeError("object() takes no arguments")
        return Instance(OBJECT)
    return cls.interp.new_object(cls, rest, kwargs)


def _object_init_subclass(cls: Any, **kwargs: Any) -> None:
    """object.__init_subclass__: a class statement's keywords nobody took are an error."""
    if kwargs:
        raise TypeError(f"{getattr(cls, 'name', '?')}.__init_subclass__() takes no keyword "
                        "arguments")


def _object_init(obj: Instance, *args: Any, **kwargs: Any) -> None:
    if args or kwargs:
        overridden = obj.cls.lookup("__init__") is not OBJECT.attrs["__init__"]
        if not overridden and obj.cls.lookup("__new__") is not OBJECT.attrs["__new__"]:
            return  # object_init: the arguments were the class's own __new__'s
        owner = "object" if overridden else type_name(obj)
        raise TypeError(f"{owner}.__init__() takes exactly one argument (the instance to "
                        "initialize)")


def _object_eq(obj: Instance, other: Any) -> Any:
    return True if obj is other else NotImplemented


def _object_ne(obj: Instance, other: Any) -> Any:
    result = obj.__eq__(other)
    return result if result is NotImplemented else not result


def _object_format(obj: Instance, spec: str) -> str:
    if spec:
        raise TypeError(f"unsupported format string passed to {type_name(obj)}.__format__")
    return str(obj)


def _object_setattr(obj: Instance, name: Any, value: Any) -> None:
    _interpreter(obj, "__setattr__", name).plain_setattr(obj, name, value)


def _object_delattr(obj: Instance, name: Any) -> None:
    _interpreter(obj, "__delattr__", name).plain_delattr(obj, name)


def _interpreter(obj: Any, method: str, name: Any) -> Any:
    if type(obj) is not Instance:
        raise TypeError(f"descriptor '{method}' requires a 'object' object but received a "
                        f"'{type_name(obj)}'")
    if obj.cls.interp is None:  # a bare object() has no attributes
        raise AttributeError(f"'object' object has no attribute '{name}'")
    return obj.cls.interp


def _make_object() -> ScriptClass:
    natives: dict[str, Callable[..., Any]] = {
        "__init__": _object_init, "__repr__": default_repr, "__str__": lambda o: repr(o),
        "__eq__": _object_eq, "__ne__": _object_ne, "__hash__": object.__hash__,
        "__format__": _object_format, "__setattr__": _object_setattr,
        "__delattr__": _object_delattr,
    }
    attrs: dict[str, Any] = {name: NativeFunction(name, "object", fn)
                             for name, fn in natives.items()}
    attrs["__new__"] = StaticMethod(NativeFunction("__new__", "object", _object_new,
                                                   "built-in method"))
    attrs["__init_subclass__"] = ClassMethod(NativeFunction(
        "__init_subclass__", "object", _object_init_subclass, "built-in method"))
    attrs["__doc__"] = "The base class of the class hierarchy."
    return ScriptClass("object", "object", "builtins", None, attrs, None, frozen=True)


OBJECT = _make_object()
"""The root of every script class (`class A:`, `class A(object):`)."""
