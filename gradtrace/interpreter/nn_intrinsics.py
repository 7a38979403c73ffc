"""Intrinsics of the bundled `torch.nn` (lib/torch/nn/): what torch's Python reaches through
`self.__dict__`, the autograd.Function behind module backward hooks, and the call of a
module's forward, which the tracer watches to name modules in every view."""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..engine import lazy as _lazy
from ..engine.ops import rnn as _rnn
from ..engine.ops.module_hooks import backward_hook_function as _backward_hook_function
from ..engine.tensor import Tensor
from .library import intrinsic
from .objects import Instance, ScriptClass

if TYPE_CHECKING:
    from .core import Interpreter


@intrinsic
def own_attr(interp: Interpreter, obj: Any, name: str, default: Any = None) -> Any:
    """`obj.__dict__.get(name, default)`: the instance's own attribute, never `__getattr__`
    (torch's Module reads `_parameters` that way before `__init__` has made it)."""
    return obj.attrs.get(name, default) if type(obj) is Instance else default


@intrinsic
def state_dict_metadata(interp: Interpreter, state_dict: Any) -> Any:
    """`getattr(state_dict, "_metadata", None)`: the modules' versions torch's state_dict
    keeps on the OrderedDict it returns (copy.deepcopy and torch.save keep them; dict(),
    `.copy()` and a comprehension lose them, so a loaded module sees no version)."""
    if type(state_dict) is stdlib.OrderedDict:
        return getattr(state_dict, "state_metadata", None)
    return None


@intrinsic
def set_state_dict_metadata(interp: Interpreter, state_dict: Any, metadata: Any) -> None:
    """`state_dict._metadata = metadata` (an OrderedDict takes attributes; a dict does not,
    and torch only sets it on an OrderedDict of its own)."""
    if type(state_dict) is stdlib.OrderedDict:
        state_dict.state_metadata = metadata


@intrinsic
def call_forward(interp: Interpreter, module: Any, forward: Any, args: tuple,
                 kwargs: dict[str, Any]) -> Any:
    """`forward(*args, **kwargs)` of `module` (Module._call_impl's call): the tracer, when
    one is attached, files what the call records under the module."""
    tracer = interp.tracer
    if tracer is None:
        return interp.call(forward, args, kwargs, None)
    return tracer.module_call(module, interp.call, forward, args, kwargs)


@intrinsic
def inject_parametrized_class(interp: Interpreter, module: Any) -> None:
    """parametrize's `_inject_new_class`: `module.__class__ = type(f"Parametrized{name}",
    (cls,), {})`, a subclass of its own that the parametrized tensors' properties go on."""
    if type(module) is not Instance:
        raise TypeError("register_parametrization expects an nn.Module")
    cls = module.cls
    module.cls = ScriptClass(f"Parametrized{cls.name}", f"Parametrized{cls.name}",
                             "torch.nn.utils.parametrize", cls, {}, interp)


@intrinsic
def class_before_parametrizations(interp: Interpreter, module: Any) -> Any:
    """`module.__class__.__bases__[0]`: the class a parametrized module had before."""
    return module.cls.base


@intrinsic
def restore_class(interp: Interpreter, module: Any) -> None:
    """`module.__class__ = module.__class__.__bases__[0]` once no parametrization is left."""
    module.cls = module.cls.base


@intrinsic
def materialize(interp: Interpreter, t: Tensor, shape: Any, dtype: Any = None) -> None:
    """`UninitializedParameter.materialize(shape)` (and a buffer's): see engine/lazy.py."""
    _lazy.materialize(t, shape, dtype)


@intrinsic
def is_lazy(interp: Interpreter, t: Any) -> bool:
    """torch.nn.parameter.is_lazy."""
    return _lazy.is_lazy(t)


@intrinsic
def become(interp: Interpreter, obj: Any, cls: Any) -> None:
    """`module.__class__ = module.cls_to_become` (LazyModuleMixin, after the first call):
    the instance becomes an instance of the library class it stands for."""
    if type(obj) is Instance and type(cls) is ScriptClass and cls in obj.cls.mro:
        obj.cls = cls


# tensors marked by torch.nn.Buffer, by id (a WeakSet would compare tensors with `==`)
_BUFFERS: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()


@intrinsic
def mark_buffer(interp: Interpreter, t: Tensor) -> None:
    """torch.nn.Buffer's `_is_buffer = True` (a script cannot set `_` attributes on tensors)."""
    _BUFFERS[id(t)] = t


@intrinsic
def is_marked_buffer(interp: Interpreter, value: Any) -> bool:
    """Whether `value` came from torch.nn.Buffer (its metaclass's isinstance)."""
    return isinstance(value, Tensor) and _BUFFERS.get(id(value)) is value


@intrinsic
def backward_hook_function(interp: Interpreter, *tensors: Tensor) -> tuple[Tensor, ...]:
    """`torch.nn.modules._functions.BackwardHookFunction.apply(*tensors)`."""
    return _backward_hook_function(*tensors)


@intrinsic
def warn_once(interp: Interpreter, message: str, category: str = "UserWarning",
              where: str = "") -> None:
    """A warning torch raises with its own code as the location (`where` names the place):
    Python's default filter shows it once per run, wherever the user's call was."""
    interp.warn_once(f"{category}: {message}", where)


@intrinsic
def mkldnn_rnn_layer(interp: Interpreter, input: Tensor, w0: Tensor, w1: Tensor,  # noqa: A002
                     w2: Tensor, w3: Tensor, hx: Tensor, cx: Tensor, reverse: bool,
                     hidden_size: int, num_layers: int, has_biases: bool, bidirectional: bool,
                     batch_first: bool, train: bool) -> tuple[Tensor, Tensor, Tensor]:
    """`torch.mkldnn_rnn_layer` (LSTM mode): one layer and direction of a float32 LSTM."""
    return _rnn.mkldnn_rnn_layer(input, w0, w1, w2, w3, hx, cx, reverse, hidden_size,
                                 num_layers, has_biases, bidirectional, batch_first, train)


@intrinsic
def uses_mkldnn(interp: Interpreter, input: Any) -> bool:  # noqa: A002
    """Whether torch runs an LSTM on `input` through oneDNN (`use_mkldnn` in ATen's RNN.cpp;
    one with projections then falls back to the decomposed path, with a warning)."""
    return _rnn.uses_mkldnn(input)


@intrinsic
def pack_padded_sequence_kernel(interp: Interpreter, input: Tensor, lengths: Tensor,  # noqa: A002
                                batch_first: bool) -> tuple[Tensor, Tensor]:
    """`torch._VF._pack_padded_sequence`: (data, batch_sizes)."""
    return _rnn.pack_padded_sequence(input, lengths, batch_first)
