"""Subclasses of torch.Tensor a script writes (`class MyTensor(torch.Tensor)`, the docs'
"Extending torch: Subclassing torch.Tensor").

An instance is an engine tensor whose `pyclass` slot holds the script class and whose Python
class is `ScriptTensor` (a Tensor with no slot of its own, so an op's result becomes one in
place: the tracer, the graph and the views see the very tensor the script holds). Every
`type(t) is Tensor` fast path of the interpreter passes it by, to the routes here:

- `torch.Tensor` as a base is `TENSOR_BASE`, a frozen class whose MRO is torch's
  (Tensor, torch._C.TensorBase, object), holding torch's `__new__` (the legacy
  constructor, then the class), `_make_subclass`, `as_subclass` and the default
  `__torch_function__`;
- attribute lookup: the script classes' attributes (properties, methods) first, then what
  the script set on the tensor, then the tensor's own (a property read goes through
  `__torch_function__` with torch's `__get__`);
- Python's protocols (operators, indexing, len, bool, float, repr, format, ...) and every
  torch function, tensor method and property read go through the class's
  `__torch_function__` (torch_function_protocol.py) with the function torch hands it
  (`torch.Tensor.add` for `+`, `torch.Tensor.__rsub__` for `2 - t`);
- the default `__torch_function__` runs the function with the protocol off, then makes each
  tensor result that is not already an instance of the class one by `as_subclass` (an
  AliasBackward0 over the op's node when grad is recorded), except for the getters torch
  never wraps (`.grad`, `._base`).

`__torch_dispatch__` and `_make_wrapper_subclass` are refused."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..engine.ops import views
from ..engine.ops.reductions import ReturnTypes
from ..engine.tensor import Tensor, check_float_for_grad
from ..errors import NotSupportedError, ScriptError
from . import torch_function_protocol as protocol
from .dunders import OBJECT
from .objects import (
    MISSING,
    ClassMethod,
    Instance,
    NativeFunction,
    ScriptClass,
    StaticMethod,
    type_name,
)

if TYPE_CHECKING:
    from .core import Interpreter


class ScriptTensor(Tensor):
    """An instance of a script's subclass of torch.Tensor (its class in `pyclass`). Its
    Python protocols (`_install`) are the script's when the interpreter applies them, and
    torch's own when the engine, the tracer or the views do."""

    __slots__ = ()
    script_subclass = True  # (objects.type_name: the script class's name)


def make_instance(t: Tensor, cls: ScriptClass) -> ScriptTensor:
    """`t` itself, made an instance of the script class `cls`."""
    t.__class__ = ScriptTensor
    t.pyclass = cls
    return t  # type: ignore[return-value]


NOT_A_TENSOR_CLASS = ("Creating a Tensor subclass from a class that does not inherit from "
                      "Tensor is not possible. Make sure your class inherits from Tensor.")

_TENSORBASE = ScriptClass("TensorBase", "TensorBase", "torch._C", OBJECT, {}, None,
                          frozen=True)


def is_tensor_class(cls: Any) -> bool:
    """Whether `cls` is a script class deriving from torch.Tensor."""
    return type(cls) is ScriptClass and TENSOR_BASE in cls.mro


def own_lookup(cls: ScriptClass, name: str) -> Any:
    """`name` from the script classes of a tensor class's MRO and torch.Tensor's own
    attributes here, not from `object` (whose methods torch.Tensor replaces)."""
    for klass in cls.mro:
        if klass is _TENSORBASE or klass is OBJECT:  # (a mixin may follow them)
            continue
        value = klass.attrs.get(name, MISSING)
        if value is not MISSING:
            return value
    return MISSING


def _interp(cls: Any) -> Interpreter:
    interp = protocol.STATE.interp()
    if cls is TENSOR_BASE and interp is not None:
        return interp  # torch.Tensor.__torch_function__(func, types, ...)
    if type(cls) is not ScriptClass or cls.interp is None:
        raise ScriptError(NOT_A_TENSOR_CLASS, kind="TypeError")
    return cls.interp


def as_subclass(t: Any, cls: Any) -> Tensor:
    """`t.as_subclass(cls)`: an alias of t (AliasBackward0 when grad is recorded) that is an
    instance of cls; torch.Tensor itself gives a plain alias."""
    from ..tensor_types import TENSOR

    if not isinstance(t, Tensor):
        raise ScriptError("as_subclass() needs a tensor", kind="TypeError")
    if cls is TENSOR:
        return views.alias(t)
    if not is_tensor_class(cls):
        raise ScriptError(NOT_A_TENSOR_CLASS, kind="TypeError")
    return make_instance(views.alias(t), cls)


def make_subclass(cls: Any, data: Any, require_grad: bool = False, *args: Any,
                  **kwargs: Any) -> Tensor:
    """`torch.Tensor._make_subclass(cls, data, require_grad=False)`: a leaf of class cls
    sharing data's storage and version counter."""
    from ..tensor_types import TENSOR

    if args or kwargs:
        raise NotSupportedError("torch.Tensor._make_subclass with arguments past "
                                "require_grad is not supported")
    plain = cls is TENSOR or cls is TENSOR_BASE  # torch.Tensor itself: a plain tensor
    if not plain and not is_tensor_class(cls):
        raise ScriptError(NOT_A_TENSOR_CLASS, kind="TypeError")
    if not isinstance(data, Tensor):
        raise ScriptError("_make_subclass(): argument 'data' (position 2) must be Tensor, "
                          f"not {type_name(data)}", kind="TypeError")
    made = data.detach() if plain else make_instance(data.detach(), cls)
    if require_grad:
        check_float_for_grad(made.dtype)
        made.requires_grad = True
    return made


def tensor_new(cls: Any, *args: Any, **kwargs: Any) -> Tensor:
    """`torch.Tensor.__new__(cls, ...)`: torch's legacy constructor (`MyTensor([1., 2.])`,
    an alias of a tensor given), made an instance of cls."""
    from ..tensor_types import TENSOR

    if cls is TENSOR_BASE or cls is TENSOR:
        return TENSOR(*args, **kwargs)
    _interp(cls)
    if not is_tensor_class(cls):
        raise ScriptError(NOT_A_TENSOR_CLASS, kind="TypeError")
    made = TENSOR(*args, **kwargs)
    if args and made is args[0]:  # (the constructor hands a tensor back as it is)
        made = views.alias(made)
    return make_instance(made, cls)


# tensor methods torch runs without __torch_function__ (torch.overrides'
# get_ignored_functions)
UNHOOKED_METHODS = frozenset({"as_subclass", "_make_subclass", "__torch_function__"})

_BACKWARD_PARAMETERS = ("gradient", "retain_graph", "create_graph", "inputs")


def backward_keywords(args: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keywords Tensor.backward hands __torch_function__: each of its parameters."""
    if len(args) > len(_BACKWARD_PARAMETERS):
        raise ScriptError(f"Tensor.backward() takes from 1 to 5 positional arguments but "
                          f"{len(args) + 1} were given", kind="TypeError")
    passed = dict(zip(_BACKWARD_PARAMETERS, args))
    for name, value in kwargs.items():
        if name not in _BACKWARD_PARAMETERS:
            raise ScriptError(f"Tensor.backward() got an unexpected keyword argument "
                              f"'{name}'", kind="TypeError")
        if name in passed:
            raise ScriptError(f"Tensor.backward() got multiple values for argument "
                              f"'{name}'", kind="TypeError")
        passed[name] = value
    return {"gradient": passed.get("gradient"), "retain_graph": passed.get("retain_graph"),
            "create_graph": passed.get("create_graph", False),
            "inputs": passed.get("inputs")}


# getters torch never wraps (torch.overrides.get_default_nowrap_functions)
_NOWRAP_ATTRIBUTES = frozenset({"grad", "_grad", "_base"})


def default_torch_function(cls: Any, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
    """torch.Tensor.__torch_function__: NotImplemented unless cls derives from every class in
    types; else func with the protocol off, its tensor results made instances of cls."""
    interp = _interp(cls)
    for klass in types if isinstance(types, (tuple, list)) else ():
        if not interp.issubclass_check(cls, klass):
            return NotImplemented
    kwargs = dict(kwargs or {})
    if kwargs.get("tensor_contents", 0) is None and getattr(func, "name", "") == "__repr__":
        del kwargs["tensor_contents"]  # (Tensor.__repr__'s default)
    with protocol.disabled():
        result = interp.call(func, list(args), kwargs, None)
    if type(func) is NativeFunction and func.name == "__get__" and \
            func.owner in _NOWRAP_ATTRIBUTES or cls is TENSOR_BASE:
        return result
    return convert(result, cls)


def convert(value: Any, cls: ScriptClass) -> Any:
    """torch's `_convert`: a tensor not already a `cls` instance becomes one (as_subclass);
    a tuple's or list's items likewise."""
    if isinstance(value, Tensor):
        if type(value) is ScriptTensor and cls in value.pyclass.mro:
            return value
        return make_instance(views.alias(value), cls)
    if type(value) is tuple or type(value) is list:
        return type(value)(convert(item, cls) for item in value)
    if isinstance(value, ReturnTypes):  # torch.return_types.max
        return type(value)(*(convert(item, cls) for item in value))
    return value


TENSOR_BASE = ScriptClass("Tensor", "Tensor", "torch", _TENSORBASE, {
    "__torch_function__": ClassMethod(NativeFunction(
        "__torch_function__", "Tensor", default_torch_function, "python")),
    "__new__": StaticMethod(NativeFunction("__new__", "Tensor", tensor_new,
                                           "built-in method")),
    "_make_subclass": StaticMethod(NativeFunction("_make_subclass", "Tensor",
                                                  make_subclass, "built-in method")),
}, None, frozen=True)
"""torch.Tensor as a script class's base."""

REFUSED_CLASS_ATTRIBUTES = {
    "_make_wrapper_subclass": "torch.Tensor._make_wrapper_subclass (a wrapper subclass, "
                              "which needs __torch_dispatch__) is not supported",
}

REFUSED_HOOKS = {
    "__torch_dispatch__": "__torch_dispatch__ (a tensor subclass's dispatch hook) is not "
                          "supported: gradtrace runs __torch_function__ only",
}


def check_class(cls: ScriptClass, span: Any = None) -> None:
    """What a tensor subclass may not be: one with a dispatch hook, or also a subclass of
    a builtin type or an exception."""
    for name, message in REFUSED_HOOKS.items():
        if name in cls.attrs:
            raise NotSupportedError(message, span)
    if cls.builtin is not None or cls.exception_kind is not None or cls.enum is not None:
        raise NotSupportedError("a subclass of torch.Tensor that also derives from a builtin "
                                "type or an exception is not supported", span)


# ------------------------------------------------------------------ dispatch

# Python's operators and protocols: the function torch hands __torch_function__ (the
# tensor method of that name) and whether the operands swap (`u @ t`: matmul of (u, t))
OPERATOR_FUNCS: dict[str, str] = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "__rsub__",
    "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "__rdiv__",
    "__floordiv__": "__floordiv__", "__rfloordiv__": "__rfloordiv__",
    "__mod__": "remainder", "__rmod__": "__rmod__", "__pow__": "__pow__", "__rpow__": "__rpow__",
    "__matmul__": "matmul", "__rmatmul__": "matmul",
    "__and__": "__and__", "__rand__": "__rand__", "__or__": "__or__", "__ror__": "__ror__",
    "__xor__": "__xor__", "__rxor__": "__rxor__",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__eq__": "__eq__", "__ne__": "ne",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__ipow__": "__ipow__",
    "__neg__": "neg", "__pos__": "positive", "__abs__": "abs", "__invert__": "__invert__",
    "__getitem__": "__getitem__", "__setitem__": "__setitem__", "__len__": "__len__",
    "__bool__": "__bool__", "__float__": "__float__", "__int__": "__int__",
    "__index__": "__index__", "__contains__": "__contains__", "__format__": "__format__",
    "__repr__": "__repr__",
}
# a plain tensor on the left of a subclass's operator: Python asks the subclass's
# reflected method first, torch's forward operator of (plain, subclass) answers
_FORWARD_OF = {"__rsub__": "sub", "__rtruediv__": "div", "__rmatmul__": "matmul",
               "__radd__": "add", "__rmul__": "mul", "__rfloordiv__": "__floordiv__",
               "__rmod__": "remainder", "__rpow__": "__pow__"}
# the operand order torch passes for a reflected operator it implements in C
_SWAPPED = frozenset({"__rmatmul__"})


def run_dunder(t: ScriptTensor, name: str, args: tuple[Any, ...]) -> Any:
    """Python's protocol `name` on a subclass instance: the script class's own method if it
    has one, else torch's (through __torch_function__ unless the protocol is off)."""
    cls = t.pyclass
    fn = own_lookup(cls, name)
    if name == "__str__":  # str(): the class's own __str__, else its repr (object's)
        name = "__repr__"
        if fn is MISSING:
            fn = own_lookup(cls, name)
    if fn is not MISSING and fn is not None:
        return cls.interp.call_bound(fn, t, args)
    return torch_dunder(t, name, args)


def torch_dunder(t: Any, name: str, args: tuple[Any, ...]) -> Any:
    """torch.Tensor's own protocol `name` (`super().__add__(o)`): through the class's
    __torch_function__ unless the protocol is off."""
    if not isinstance(t, Tensor):
        raise ScriptError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't "
                          f"apply to a '{type_name(t)}' object", kind="TypeError")
    if type(t) is not ScriptTensor:
        return getattr(Tensor, name)(t, *args)
    interp = t.pyclass.interp
    operands: tuple[Any, ...] = (t, *args)
    func_name = OPERATOR_FUNCS[name]
    if name in _FORWARD_OF and args and isinstance(args[0], Tensor) and \
            type(args[0]) is not ScriptTensor:
        func_name, operands = _FORWARD_OF[name], (args[0], t)
    elif name in _SWAPPED and args:
        operands = (args[0], t)
    if protocol.is_disabled():
        return _plain_dunder(interp, name, t, args, func_name)
    func = interp.tensor_method_descriptor(func_name)
    kwargs: dict[str, Any] = {}
    if name == "__repr__":
        kwargs = {"tensor_contents": None}
    # (torch's `==` asks the hook of its left operand only)
    found = protocol.overloaded((t,) if name == "__eq__" else operands, {})
    if name not in BINARY_OPERATORS:
        return protocol.dispatch(interp, func, found, operands, kwargs, None)
    try:  # torch's binary operators answer a TypeError with NotImplemented
        return protocol.dispatch(interp, func, found, operands, kwargs, None)
    except ScriptError as err:
        if err.kind != "TypeError":
            raise
        return NotImplemented


# the operators whose TypeError torch turns into NotImplemented (Python then tries the
# other operand's reflected method, then raises its own TypeError)
BINARY_OPERATORS = frozenset(
    name for name in OPERATOR_FUNCS if name not in (
        "__neg__", "__pos__", "__abs__", "__invert__", "__getitem__", "__setitem__",
        "__len__", "__bool__", "__float__", "__int__", "__index__", "__contains__",
        "__format__", "__repr__"))
_REFLECTED = {f"__{n}__": f"__r{n}__" for n in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor")}
_REFLECTED.update({"__lt__": "__gt__", "__gt__": "__lt__", "__le__": "__ge__",
                   "__ge__": "__le__", "__eq__": "__eq__", "__ne__": "__ne__"})


def _plain_dunder(interp: Interpreter, name: str, t: ScriptTensor, args: tuple[Any, ...],
                  func_name: str) -> Any:
    """torch's own protocol with __torch_function__ off (inside the default one)."""
    if name == "__format__":  # torch's: object.__format__ (str()) but for a plain 0-d tensor
        if args and args[0]:
            return Tensor.__format__(t, *args)  # (its TypeError)
        return str(t)
    plain = getattr(Tensor, name, None)
    if plain is not None:
        return plain(t, *args)
    return interp.call(interp.tensor_method_descriptor(func_name), [t, *args], {}, None)


_SCRIPT_LEVEL = "gradtrace.interpreter."


TORCH_DUNDERS: dict[str, NativeFunction] = {}


def _install() -> None:
    """ScriptTensor's Python protocols: applied by the interpreter (the script's `t + 1`,
    `print(t)`, `len(t)`, ...), run_dunder; applied by anything else (an engine op's or a
    backward formula's `grad * other`, the views' repr), the tensor's own, as torch's C++
    and its views never call into Python subclasses."""
    def make(name: str) -> Any:
        plain = getattr(Tensor, name, None)

        def op(self: ScriptTensor, *args: Any) -> Any:
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if plain is not None and not caller.startswith(_SCRIPT_LEVEL):
                return plain(self, *args)
            result = run_dunder(self, name, args)
            if result is NotImplemented and name in _REFLECTED and args and \
                    type(args[0]) is ScriptTensor and args[0].pyclass is not self.pyclass:
                # Python tries the right operand's reflected method only for another
                # Python type; script classes are all one, so it is tried here
                result = run_dunder(args[0], _REFLECTED[name], (self,))
            return result
        op.__name__ = name
        return op

    for name in OPERATOR_FUNCS:
        setattr(ScriptTensor, name, make(name))
    ScriptTensor.__str__ = make("__str__")  # type: ignore[method-assign]

    def iterate(self: ScriptTensor) -> Any:  # torch's Tensor.__iter__: dim(), unbind(0)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not caller.startswith(_SCRIPT_LEVEL) or protocol.is_disabled():
            return Tensor.__iter__(self)
        interp = self.pyclass.interp
        if interp.call(interp.get_attribute(self, "dim", None), [], {}, None) == 0:
            raise ScriptError("iteration over a 0-d tensor", kind="TypeError")
        return iter(interp.call(interp.get_attribute(self, "unbind", None), [0], {}, None))

    ScriptTensor.__iter__ = iterate  # type: ignore[method-assign]
    for name in OPERATOR_FUNCS:  # `super().__add__(o)`, `torch.Tensor.__getitem__(t, i)`
        TORCH_DUNDERS[name] = NativeFunction(
            name, "torch._C.TensorBase", lambda t, *args, n=name: torch_dunder(t, n, args),
            "method")
    ScriptTensor.__hash__ = Tensor.__hash__  # type: ignore[method-assign]


_install()
protocol.SCRIPT_TENSOR[0] = ScriptTensor


def copy_instance(t: ScriptTensor, out: Tensor) -> Tensor:
    """copy.copy of an instance (Tensor.__reduce_ex__, _rebuild_from_type_v2): a new leaf on
    the same storage, of the same class, with the same attributes."""
    out.requires_grad = t.requires_grad
    out._version_counter.value = 1  # (rebuilt with set_(), as torch does)
    made = make_instance(out, t.pyclass)
    dicts = t.pyclass.interp.tensor_dicts
    own = dicts.get(t)
    if own:
        dicts.setdefault(made).update(own)
    return made


_DEEPCOPY = ("The default implementation of __deepcopy__() for non-wrapper subclasses only "
             "works for subclass types that implement new_empty() and for which that "
             "function returns another instance of the same subclass. You should either "
             "properly implement new_empty() for your subclass or override __deepcopy__() if "
             "it is intended behavior for new_empty() to return an instance of a different "
             "type.")


def deep_copy_refused(t: ScriptTensor, pickling: bool) -> None:
    """copy.deepcopy of an instance: torch's RuntimeError (its default __deepcopy__ makes
    the copy by new_empty(), which the default __torch_function__ hands back as a plain
    tensor); torch.save of one is not offered."""
    if pickling:
        raise NotSupportedError(f"saving an instance of {t.pyclass.name}, a subclass of "
                                "torch.Tensor, is not supported")
    if own_lookup(t.pyclass, "__deepcopy__") is not MISSING:
        raise NotSupportedError(f"copy.deepcopy of {t.pyclass.name} (a subclass of "
                                "torch.Tensor) through its own __deepcopy__ is not supported")
    raise ScriptError(_DEEPCOPY, kind="RuntimeError")


def script_repr(t: ScriptTensor) -> str:
    """`repr(t)` in a script: the class's own `__repr__`, else torch's through the hook."""
    return run_dunder(t, "__repr__", ())


def instance_attribute(interp: Interpreter, t: ScriptTensor, name: str) -> Any:
    """`t.name` of a subclass instance: the class's attributes (a property, a data
    descriptor first; a method bound), then what the script set on the tensor; MISSING for
    the tensor's own (the caller's plain lookup; a torch property read goes through the
    hook: `property_read`)."""
    cls = t.pyclass
    if name == "__class__":
        return cls
    value = own_lookup(cls, name)
    if value is not MISSING:
        from . import descriptors
        from .objects import Property

        if type(value) is Property:
            return interp.property_get(value, t)
        if type(value) is Instance and descriptors.is_data_descriptor(value):
            return interp.bind(value, t)
    stored = interp.tensor_dicts.lookup(t, name)
    from .attributes import NO_NAME

    if stored is not NO_NAME:
        return stored
    if value is not MISSING:
        return interp.bind(value, t)
    return MISSING


_GETTERS: dict[str, NativeFunction] = {}
_SETTERS: dict[str, NativeFunction] = {}


def property_read(interp: Interpreter, t: ScriptTensor, name: str,
                  getter: Any) -> Any:
    """A torch property of a subclass instance (`t.shape`, `t.grad`): torch's `__get__`
    through __torch_function__."""
    if protocol.is_disabled():
        return getter(t, interp)
    func = _GETTERS.get(name)
    if func is None:
        func = _GETTERS[name] = NativeFunction("__get__", name,
                                               lambda obj, g=getter: g(obj, interp),
                                               "method-wrapper")
    return protocol.dispatch(interp, func, protocol.overloaded((t,), {}), (t,), {}, None)


def property_write(interp: Interpreter, t: ScriptTensor, name: str, setter: Any,
                   value: Any) -> None:
    """`t.requires_grad = ...` of a subclass instance: torch's `__set__` through the hook."""
    if protocol.is_disabled():
        setter(t, value)
        return
    func = _SETTERS.get(name)
    if func is None:
        func = _SETTERS[name] = NativeFunction("__set__", name,
                                               lambda obj, v, s=setter: s(obj, v),
                                               "method-wrapper")
    protocol.dispatch(interp, func, protocol.overloaded((t,), {}), (t, value), {}, None)
