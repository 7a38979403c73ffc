"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp.

A port of torch's functional.py, call for call on the engine's ops (so the graphs made
with `create_graph=True` are torch's, node for node). `func` is anything callable: a
script's function runs in the interpreter. What needs forward-mode AD or vmap (the
`"forward-mode"` strategies, `vectorize=True` with `create_graph=True` when the Jacobian
needs a graph) is refused with NotSupportedError; `vectorize=True` otherwise runs the
batched backward one row at a time (see `backward.grad`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import NotSupportedError, ScriptError, TorchRuntimeError, TorchTypeError
from . import backward as _backward
from .grad_mode import GRAD_MODE, enable_grad, set_grad_enabled
from .limits import reserve
from .ops import stack
from .ops.creation import zeros_like
from .ops.joins import split
from .shapes import Size
from .tensor import Tensor, type_name


def _class_of(value: Any) -> str:
    return "<class 'torch.Tensor'>" if isinstance(value, Tensor) else \
        f"<class '{type_name(value)}'>"


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """Whether `inp` was a tuple, and it as a tuple of Tensors (checked)."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TorchTypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {_class_of(el)}.")
            raise TorchTypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the given {arg_name} has type {_class_of(el)}.")
    return is_tuple, items


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple[Tensor, ...], create_graph: bool,
                     need_graph: bool) -> tuple[Tensor, ...]:
    """New tensor objects for the inputs (a view when create_graph keeps their history)."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs: Any, create_graph: bool) -> Any:
    if isinstance(inputs[0], Tensor):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple[Tensor, ...], other: tuple[Tensor, ...], is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise TorchRuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise TorchRuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise TorchRuntimeError(
                f"{prepend}v has invalid size: should be {Size(el_other.shape)!r} but got "
                f"{Size(el_v.shape)!r}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
}


def _check_requires_grad(inputs: tuple[Any, ...], input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise TorchRuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode.")
        if not inp.requires_grad:
            raise TorchRuntimeError(_STRICT_MESSAGES[input_type].format(i=i))


def _autograd_grad(outputs: tuple[Any, ...], inputs: tuple[Tensor, ...],
                   grad_outputs: tuple[Any, ...] | None = None, create_graph: bool = False,
                   retain_graph: bool | None = None,
                   is_grads_batched: bool = False) -> tuple[Tensor | None, ...]:
    """autograd.grad that skips outputs that are None or need no grad."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs = []
    new_grad_outputs = []
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grad_outputs.append(grad_out)
    if not new_outputs:
        return (None,) * len(inputs)
    return _backward.grad(new_outputs, list(inputs), new_grad_outputs, allow_unused=True,
                          create_graph=create_graph, retain_graph=retain_graph,
                          is_grads_batched=is_grads_batched)


_FILL_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads: tuple[Tensor | None, ...], refs: tuple[Tensor, ...], strict: bool,
                   create_graph: bool, stage: str) -> tuple[Tensor, ...]:
    res = []
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise TorchRuntimeError(_FILL_MESSAGES[stage].format(i=i))
            grads_i = zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "jacobian" if "double" not in stage else "hessian"
            raise TorchRuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True.")
        res.append(grads_i)
    return tuple(res)


def _last_backward(outputs: tuple[Any, ...], inputs: tuple[Tensor, ...], v: Any,
                   refs: tuple[Tensor, ...], stage: str, create_graph: bool,
                   strict: bool) -> tuple[Tensor, ...]:
    """The product's final backward: recorded only for create_graph (else in the caller's
    grad mode), with zeros where no gradient arrived."""
    with set_grad_enabled(True if create_graph else GRAD_MODE.enabled):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        return _fill_in_zeros(grad_res, refs, strict, create_graph, stage)


def _results(outputs: tuple[Tensor, ...], result: tuple[Tensor, ...], create_graph: bool,
             is_outputs_tuple: bool, is_result_tuple: bool) -> tuple[Any, Any]:
    """(outputs, product), detached unless create_graph, unpacked as the caller gave them."""
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_result_tuple))


# ---------------------------------------------------------------------------- public API


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> Any:
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise TorchRuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element.")
    result = _last_backward(outputs, inputs, v, inputs, "back", create_graph, strict)
    return _results(outputs, result, create_graph, is_outputs_tuple, is_inputs_tuple)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> Any:
    """The double-backward trick, as torch does it (not forward-mode AD)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise TorchRuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    result = _last_backward(grad_inputs, grad_outputs, v, outputs, "back_trick", create_graph,
                            strict)
    return _results(outputs, result, create_graph, is_outputs_tuple, is_outputs_tuple)


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ScriptError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".', kind="AssertionError")
    if strategy == "forward-mode":
        if create_graph:
            raise ScriptError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.',
                kind="NotImplementedError")
        return _jacfwd(inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise TorchRuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                    "are not supported together. Please either set `strict=False` or "
                    "`vectorize=False`.")
            return _jacobian_vectorized(inputs, outputs, create_graph, is_inputs_tuple,
                                        is_outputs_tuple)
        jac: list[tuple[Tensor, ...]] = []
        for i, out in enumerate(outputs):
            jac_i: tuple[list[Tensor], ...] = tuple([] for _ in range(len(inputs)))
            for j in range(out.numel()):
                vj = _autograd_grad((out.reshape(-1)[j],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise TorchRuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True.")
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise TorchRuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {el_idx}. This is not allowed in strict mode.")
                        jac_i_el.append(zeros_like(inp_el))
            jac.append(tuple(stack(jac_i_el, dim=0).view(out.shape + inputs[el_idx].shape)
                             for el_idx, jac_i_el in enumerate(jac_i)))
        result = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_vectorized(inputs: tuple[Tensor, ...], outputs: tuple[Tensor, ...],
                         create_graph: bool, is_inputs_tuple: bool,
                         is_outputs_tuple: bool) -> Any:
    """jacobian(vectorize=True): one batched backward over the standard basis."""
    output_numels = tuple(out.numel() for out in outputs)
    grad_outputs = _standard_basis_for(outputs, output_numels)
    flat_outputs = tuple(out.reshape(-1) for out in outputs)
    vj = list(_autograd_grad(flat_outputs, inputs, grad_outputs, create_graph=create_graph,
                             is_grads_batched=True))
    for el_idx, vj_el in enumerate(vj):
        if vj_el is None:
            vj[el_idx] = zeros_like(inputs[el_idx]).expand(
                (sum(output_numels),) + inputs[el_idx].shape)
    by_input = []
    for jac_input_i, input_i in zip(vj, inputs):
        by_input.append([jac.view(output_j.shape + input_i.shape) for jac, output_j in
                         zip(split(jac_input_i, list(output_numels), 0), outputs)])
    result = _grad_postprocess(tuple(zip(*by_input)), create_graph)
    return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _standard_basis_for(tensors: tuple[Tensor, ...],
                        numels: tuple[int, ...]) -> tuple[Tensor, ...]:
    """torch's _construct_standard_basis_for: the identity matrix cut into column blocks."""
    import numpy as np

    total = sum(numels)
    chunks = []
    start = 0
    for t, numel in zip(tensors, numels):
        reserve((total, numel), t.dtype.itemsize)
        chunk = np.zeros((total, numel), dtype=t.dtype.np)
        chunk[np.arange(start, start + numel), np.arange(numel)] = 1
        chunks.append(Tensor._wrap(chunk))
        start += numel
    return tuple(chunks)


def _jacfwd(inputs: Any, strict: bool, vectorize: bool) -> Any:
    if strict:
        raise TorchRuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` "
            "are not supported together (yet). Please either set `strict=False` or "
            "`strategy=\"reverse-mode\"`.")
    _as_tuple(inputs, "inputs", "jacobian")
    if vectorize:
        raise NotSupportedError(
            'jacobian(strategy="forward-mode") needs forward-mode AD and vmap, which gradtrace '
            "does not have")
    raise ScriptError(
        "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
        "implemented for `vectorize=True`.", kind="NotImplementedError")


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ScriptError('Expected strategy to be either "forward-mode" or "reverse-mode".',
                          kind="AssertionError")

    def ensure_single_output_function(*inp: Any) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise TorchRuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise TorchRuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element")
        return out.squeeze()

    def jac_func(*inp: Any) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_output(outputs: tuple[Tensor, ...], is_outputs_tuple: bool, fn_name: str) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise TorchRuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise TorchRuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element")


def _hessian_setup(func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool,
                   strict: bool, fn_name: str) -> tuple:
    """What vhp and hvp share: inputs, v, outputs and the first (graph-keeping) gradient."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise TorchRuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(
        outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _single_output(outputs, is_outputs_tuple, fn_name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> Any:
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_setup(
            func, inputs, v, create_graph, strict, "vhp")
    result = _last_backward(jac, inputs, v, inputs, "double_back", create_graph, strict)
    return _results(outputs, result, create_graph, is_outputs_tuple, is_inputs_tuple)


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> Any:
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_setup(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    result = _last_backward(double_back, grad_jac, v, inputs, "double_back_trick", create_graph,
                            strict)
    return _results(outputs, result, create_graph, is_outputs_tuple, is_inputs_tuple)


FUNCTIONAL: dict[str, Callable[..., Any]] = {
    "vjp": vjp, "jvp": jvp, "jacobian": jacobian, "hessian": hessian, "vhp": vhp, "hvp": hvp,
}
