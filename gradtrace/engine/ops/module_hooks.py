"""torch.nn.modules._functions.BackwardHookFunction: the identity node that module backward
hooks hang on (`register_full_backward_hook`, `register_full_backward_pre_hook`).

torch applies this autograd.Function to a module's input tensors and to its output tensors
when the module has such hooks; each output is a view of its input (torch's custom-Function
rule for an input returned unchanged), differentiable only when that input requires grad,
and the node, `BackwardHookFunctionBackward`, passes every gradient through unchanged.
The hooks themselves are the library's (lib/torch/utils/hooks.gt: BackwardHook).
"""
from __future__ import annotations

import numpy as np

from ..formulas import each
from ..node import Function
from ..tensor import Tensor
from .views import _register_view, alias_array


class BackwardHookFunctionBackward(Function):
    __slots__ = ("num_diff_outputs",)  # read by the view+inplace check, as a custom Function's
    formulas = (each("args", "{grad}[{i}]"),)
    multi_output = True

    def __repr__(self) -> str:  # a custom Function's node, as torch prints it
        return f"<torch.autograd.function.BackwardHookFunctionBackward object at {id(self):#x}>"

    def forward(self, *tensors: Tensor) -> list[np.ndarray]:
        return [alias_array(t) for t in tensors]  # view_as's strides (a size-1 dim's can change)

    def backward(self, *grads: Tensor) -> tuple[Tensor, ...]:
        return grads


def backward_hook_function(*tensors: Tensor) -> tuple[Tensor, ...]:
    """`BackwardHookFunction.apply(*tensors)`: a view of each tensor; those of tensors that
    require grad get the node as their grad_fn, the others are marked non-differentiable."""
    outputs = BackwardHookFunctionBackward.call(*tensors)
    node = outputs[0].grad_fn if outputs else None
    if node is not None:  # _wrap_outputs: one differentiable output's view is IN_CUSTOM_FUNCTION
        node.num_diff_outputs = sum(t.requires_grad for t in tensors)  # more: MULTI_OUTPUT_NODE
    for t, out in zip(tensors, outputs):
        out._version_counter = t._version_counter
        out._base = t._base if t._base is not None else t
        _register_view(out)
        if not t.requires_grad:
            out.requires_grad = False
            out.grad_fn = None
            out.output_nr = 0
    return tuple(outputs)
