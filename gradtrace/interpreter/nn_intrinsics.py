"""Intrinsics of the bundled `torch.nn` (lib/torch/nn/): what torch's Python reaches through
`self.__dict__`, the autograd.Function behind module backward hooks, and the call of a
module's forward, which the tracer watches to name modules in every view."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.ops import rnn as _rnn
from ..engine.ops.module_hooks import backward_hook_function as _backward_hook_function
from ..engine.tensor import Tensor
from .library import intrinsic
from .objects import Instance

if TYPE_CHECKING:
    from .core import Interpreter


@intrinsic
def own_attr(interp: Interpreter, obj: Any, name: str, default: Any = None) -> Any:
    """`obj.__dict__.get(name, default)`: the instance's own attribute, never `__getattr__`
    (torch's Module reads `_parameters` that way before `__init__` has made it)."""
    return obj.attrs.get(name, default) if type(obj) is Instance else default


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
