"""A script's `class F(torch.autograd.Function)` as the engine's AutogradFunction.

torch.autograd.Function itself is library code (lib/torch/autograd/function.gt); its
`apply` classmethod calls the `apply_function` intrinsic, which builds one
`AutogradFunction` per script class (engine/custom_function.py does what torch does in
C++) and asks the class for its methods on every call, as torch does. The engine calls
them as plain Python callables; each is a `ScriptCallable` that calls back into the
interpreter, so the script's forward and backward run as its own code (its lines, its
limits), never as Python functions a script could reach.
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ..engine import custom_function
from ..engine.custom_function import AutogradFunction
from ..errors import ScriptError
from .objects import MISSING, Method, ScriptClass, UserFunction, type_name

if TYPE_CHECKING:
    from .core import Interpreter

# what the engine may ask a Function class for: methods (called back through the
# interpreter) and flags (class attributes read as they are)
_METHODS = frozenset(("forward", "backward", "vjp", "jvp", "setup_context"))
_FLAGS = frozenset(("clear_saved_tensors_on_access", "boxed_grads_call"))

class ScriptCallable:
    """A script value the engine calls (a Function's forward or backward): calling it is
    the interpreter's call, with the script's rules and limits."""

    __slots__ = ("interp", "value")

    def __init__(self, interp: Interpreter, value: Any):
        self.interp = interp
        self.value = value

    def __call__(self, *args: Any) -> Any:
        return self.interp.call(self.value, list(args), {}, None)


def apply_function(interp: Interpreter, base: ScriptClass, cls: Any, args: tuple,
                   kwargs: dict[str, Any]) -> Any:
    """`cls.apply(*args, **kwargs)` for a subclass `cls` of torch.autograd.Function (`base`).
    One AutogradFunction (so one <Name>Backward node class) per class and run. What apply
    records is the user's operation, not library bookkeeping."""
    function = _function(interp, base, cls)
    outer = interp.in_library
    interp.in_library = False
    try:
        return function.apply(*args, **kwargs)
    finally:
        interp.in_library = outer


def apply_function_below(interp: Interpreter, base: ScriptClass, cls: Any, args: tuple,
                         kwargs: dict[str, Any]) -> Any:
    """`cls.apply` under a grad transform: forward sees its operands unwrapped
    (AutogradFunction.apply_below)."""
    function = _function(interp, base, cls)
    outer = interp.in_library
    interp.in_library = False
    try:
        return function.apply_below(args, kwargs)
    finally:
        interp.in_library = outer


def bind_forward(interp: Interpreter, base: ScriptClass, cls: Any, args: tuple,
                 kwargs: dict[str, Any]) -> tuple:
    """Function.apply's bind_default_args of a setup_context Function: the arguments as
    forward's positional ones, its defaults filled in (torch's TypeErrors otherwise)."""
    function = _function(interp, base, cls)
    return function._bind_defaults(function.lookup("forward"), args, kwargs)


def _function(interp: Interpreter, base: ScriptClass, cls: Any) -> AutogradFunction:
    """The run's AutogradFunction of `cls` (made on first use)."""
    if type(cls) is not ScriptClass or not cls.is_subclass(base):  # torch reads it first
        owner = f"type object '{cls.name}'" if type(cls) is ScriptClass else \
            f"'{type_name(cls)}' object"
        raise ScriptError(f"{owner} has no attribute 'setup_context'", kind="AttributeError")
    function = interp.autograd_functions.get(cls)
    if function is None:
        function = interp.autograd_functions[cls] = AutogradFunction(
            cls.name, lambda attr: _lookup(interp, base, cls, attr), _signature,
            cls.module if cls.module in interp.library.modules else None)
    return function


def _lookup(interp: Interpreter, base: ScriptClass, cls: ScriptClass, attr: str) -> Any:
    """What `cls` (or a script class between it and Function) defines for `attr`, read as
    `cls.attr` reads it (a staticmethod unwrapped, a classmethod bound), else None."""
    if attr not in _METHODS and attr not in _FLAGS:
        return None
    for owner in cls.mro:
        if owner is base:
            return None
        if owner.attrs.get(attr, MISSING) is not MISSING:
            break
    else:
        return None
    value = interp.class_getattr(cls, attr)
    return ScriptCallable(interp, value) if attr in _METHODS else value


def _signature(fn: Any) -> inspect.Signature | None:
    """inspect.signature of a script function the engine was given (how `apply` maps
    keyword arguments onto forward's parameters); None for anything else."""
    value = fn.value if isinstance(fn, ScriptCallable) else None
    bound = type(value) is Method
    if bound:
        value = value.function
    if type(value) is not UserFunction:
        return None
    sig, defaults = value.signature, value.defaults
    empty = inspect.Parameter.empty
    params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY if i < sig.posonly
                                else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=defaults.get(name, empty))
              for i, name in enumerate(sig.positional)]
    if sig.varargs is not None:
        params.append(inspect.Parameter(sig.varargs, inspect.Parameter.VAR_POSITIONAL))
    params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                 default=defaults.get(name, empty)) for name in sig.kwonly]
    if sig.varkw is not None:
        params.append(inspect.Parameter(sig.varkw, inspect.Parameter.VAR_KEYWORD))
    if bound:  # a classmethod: cls is already given
        params = params[1:]
    return inspect.Signature(params)


def delayed_error(interp: Interpreter, message: str, outputs: tuple) -> tuple:
    """torch's DelayedError node over `outputs` (once_differentiable under create_graph):
    aliases that require grad, whose backward raises `message`."""
    return custom_function.delayed_error(message, outputs)
