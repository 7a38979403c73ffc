"""The `__torch_function__` protocol for script classes (the docs' "Extending torch with a
Tensor-like type"): a torch function given an instance of a class that defines
`__torch_function__`, at the top level or inside a list or tuple argument (`torch.cat`'s),
calls that hook instead, as torch's argument parser does (torch/overrides.py,
python_arg_parser.cpp): one entry per class, a subclass before its base, each called with
(func, types, args, kwargs) until one returns something other than NotImplemented.
An instance of a script's subclass of torch.Tensor (tensor_subclasses.py) takes part too:
torch.Tensor's own hook is the default one; inside it the protocol is off (torch's
DisableTorchFunctionSubclass)."""
from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..engine.tensor import Tensor
from ..errors import ScriptError
from .objects import MISSING, Instance, NativeFunction

if TYPE_CHECKING:
    from ..source import Span
    from .core import Interpreter
    from .torch_functions import TorchFunction

HOOK = "__torch_function__"


class _State:
    off = 0  # how many default hooks are running (the protocol is off inside them)
    # the run's interpreter, weakly (torch.Tensor.__torch_function__ called on its own):
    # a finished run's tensors are not kept alive by it
    interp: Any = lambda: None


STATE = _State()


@contextmanager
def disabled() -> Iterator[None]:
    """torch._C.DisableTorchFunctionSubclass: no hook runs within."""
    STATE.off += 1
    try:
        yield
    finally:
        STATE.off -= 1


def is_disabled() -> bool:
    return STATE.off > 0


def reset(interp: Any) -> None:
    """A new run starts with the protocol on."""
    STATE.off = 0
    STATE.interp = weakref.ref(interp)


def overloaded(args: Any, kwargs: dict[str, Any]) -> list[Any]:
    """The arguments whose class defines __torch_function__, one per class, a subclass
    before its base (torch's `_get_overloaded_args`); empty for most calls."""
    found: list[Any] = []
    if STATE.off:
        return found
    for value in (*args, *kwargs.values()) if kwargs else args:
        kind = type(value)
        if kind is Instance or kind is SCRIPT_TENSOR[0]:
            _add(found, value)
        elif (kind is list or kind is tuple) and value and \
                (type(value[0]) is Instance or isinstance(value[0], Tensor)):
            # a tensor list (torch.cat's): its items are checked; data (torch.tensor's
            # numbers, a shape) is not walked, as torch's parser does not look into it
            for item in value:
                if type(item) is Instance or type(item) is SCRIPT_TENSOR[0]:
                    _add(found, item)
    return found


SCRIPT_TENSOR: list[type] = [type(None)]  # tensor_subclasses.ScriptTensor, once imported


def class_of(value: Any) -> Any:
    """The script class of an overloaded argument."""
    return value.cls if type(value) is Instance else value.pyclass


def _add(found: list[Any], value: Any) -> None:
    cls = class_of(value)
    if cls.lookup(HOOK) is MISSING or any(class_of(v) is cls for v in found):
        return
    for i, other in enumerate(found):
        if cls.is_subclass(class_of(other)):
            found.insert(i, value)
            return
    found.append(value)


def dispatch(interp: Interpreter, func: TorchFunction | NativeFunction, found: list[Instance],
             args: Any, kwargs: dict[str, Any], span: Span | None) -> Any:
    """Call each class's hook in turn; torch's TypeError when all return NotImplemented."""
    types = tuple(class_of(v) for v in found)
    python = func.kind == "function"  # torch's Python functions (F.relu) pass their kwargs
    # (a Tensor method, `torch.Tensor.mul`, is named so in torch's messages)
    name = f"torch.Tensor.{func.name}" if type(func) is NativeFunction else \
        f"{func.module}.{func.name}"
    passed = dict(kwargs) if (kwargs or python) else None
    for value in found:
        hook = interp.get_attribute(value, HOOK, span)
        result = interp.call(hook, [func, types, tuple(args), passed], {}, span)
        if result is not NotImplemented:
            return result
    if python:
        listed = ", ".join(f"<class '{c.module}.{c.qualname}'>" for c in types)
        raise ScriptError(f"no implementation found for '{name}' on types that implement "
                          f"__torch_function__: [{listed}]", span, kind="TypeError")
    listed = "".join(f"  - tensor subclass <class '{c.module}.{c.qualname}'>\n" for c in types)
    raise ScriptError(f"Multiple dispatch failed for '{name}'; all __torch_function__ "
                      f"handlers returned NotImplemented:\n\n{listed}\nFor more information, "
                      "try re-running with TORCH_LOGS=not_implemented", span, kind="TypeError")
