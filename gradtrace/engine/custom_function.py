"""Custom autograd Functions: what `class F(torch.autograd.Function)` and `F.apply(...)` do.

Ported from torch's function.py, python_function.cpp (THPFunction_apply, process_outputs,
PyNode::apply) and custom_function.cpp (_wrap_outputs), step for step:

- `F.apply(*args)` makes the ctx, which is also the node (`<F>Backward`, torch's
  BackwardCFunction): its next_functions are the gradient edges of the tensor arguments
  in order (other arguments are skipped), taken when grad mode is on and an argument
  requires grad. `forward(ctx, *args)` (or `forward(*args)` then
  `setup_context(ctx, inputs, output)`) runs with grad mode off.
- The outputs get the node as grad_fn, output i with output_nr i; an input returned
  as-is comes back as a view of itself, a tensor given to `ctx.mark_dirty` keeps its
  identity and has its history rebased onto the node, `mark_non_differentiable` outputs
  get none. `save_for_backward` tensors are saved (with their versions) after that.
- In backward the engine calls the node with one gradient per output (zeros for those
  that got none unless `ctx.set_materialize_grads(False)`); the Function's `backward`
  must return one gradient per forward argument (None for non-tensors).

A script's Function class reaches the engine through `AutogradFunction`: its name, a way
to look its methods up, and a way to read a method's signature (for keyword arguments).
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import ScriptError, TorchRuntimeError, TorchTypeError
from . import anomaly, forward_ad, no_grad_views
from .events import OBSERVERS, emit
from .grad_mode import GRAD_MODE, function_forward
from .node import FREED_MESSAGE, Node, SavedTensor
from .ops.creation import WARNINGS
from .ops.view_inplace import rebase_view, refresh_views
from .ops.views import alias_view
from .tensor import Tensor, bump_version, gradient_edge, move_retains_grad, type_name

NOT_WRITABLE = "attribute '{}' of 'torch._C._FunctionBase' objects is not writable"
NO_FORWARD = "You must implement the forward function for custom autograd.Function."
NO_JVP = ("You must implement the jvp function for custom autograd.Function to use it with "
          "forward mode AD.")
NO_BACKWARD = ("You must implement either the backward or vjp method for your custom "
               "autograd.Function to use it with backward mode AD.")
BOTH_BACKWARD_AND_VJP = ("Implementing both 'backward' and 'vjp' for a custom Function is not "
                         "allowed. You should only implement one of them.")
INPUT_RETURNED_AS_IS = (
    "An input that has been returned as-is as output is being saved for backward. This is not "
    "supported if you override setup_context. You should return and save a view of the input "
    "instead, e.g. with x.view_as(x) or setup ctx inside the forward function itself.")
DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function.")
DIRTY_VIEW_MULTI_OUTPUT = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() "
    "for example) or make your Function only return one Tensor (potentially splitting it into "
    "two Functions: one doing the inplace that returns a single Tensor and a second one that "
    "does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you "
    "need help to do this change.")
DIRTY_NOT_INPUT = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
    "been mutated should be passed to ctx.mark_dirty().")
DIRTY_NOT_INPUT_WARNING = (
    f"UserWarning: {DIRTY_NOT_INPUT} (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/custom_function.cpp:320.)")
LEAF_DIRTY = "a leaf Variable that requires grad has been used in an in-place operation."
CLEARED_ON_ACCESS = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on "
    "the autograd.Function. Either access saved_tensors only once, or set "
    "clear_saved_tensors_on_access=False.")
SAVED_VARIABLES_WARNING = "DeprecationWarning: 'saved_variables' is deprecated; use 'saved_tensors'"
SHARED_STORAGE_WARNING = (
    "FutureWarning: `mark_shared_storage` is deprecated. Tensors with shared storages are "
    "automatically tracked. Note that calls to `set_()` are not tracked")


def _not_implemented(message: str) -> ScriptError:
    return ScriptError(message, kind="NotImplementedError")


class AutogradFunction:
    """A `torch.autograd.Function` subclass, as the engine sees it.

    `lookup(attr)` returns what the class defines for `forward`, `backward`, `vjp`,
    `setup_context`, `clear_saved_tensors_on_access` or `boxed_grads_call` (a callable for
    the methods, with `@staticmethod` already unwrapped), or None when the class leaves it
    to `torch.autograd.Function`. It is asked on every call, as torch looks the class's
    attributes up on every call. `signature(fn)` gives the `inspect.Signature` of a
    callable (how `apply` maps keyword arguments onto `forward`'s parameters), or None.
    """

    __slots__ = ("name", "torch_module", "lookup", "signature", "node_class", "__weakref__")

    def __init__(self, name: str, lookup: Callable[[str], Any],
                 signature: Callable[[Any], inspect.Signature | None] | None = None,
                 torch_module: str | None = None):
        self.name = name
        # torch's own Functions (Resize, CheckpointFunction) name the module defining them;
        # a script's own class has None
        self.torch_module = torch_module
        self.lookup = lookup
        self.signature = signature or _python_signature
        # torch's FunctionMeta makes one backward class per Function: <Name>Backward
        self.node_class: type[FunctionCtx] = type(
            name + "Backward", (FunctionCtx,), {"__slots__": (), "function": self})

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"

    # -- apply ---------------------------------------------------------------------

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        """`F.apply(*args, **kwargs)`: run forward and record the node (THPFunction_apply)."""
        return self._apply(args, kwargs, False)

    def apply_below(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        """apply under grad transforms (functorch's custom_function_call_grad): the node is
        recorded at the transform's level, but forward runs on the operands unwrapped to the
        caller's autograd (levels.below_transforms), and an operand it hands back is the
        operand itself."""
        return self._apply(args, kwargs, True)

    def _apply(self, args: Any, kwargs: dict[str, Any], below: bool) -> Any:
        setup_context = self.lookup("setup_context")
        forward = self.lookup("forward")
        if setup_context is not None and forward is not None:
            args = self._bind_defaults(forward, args, kwargs)
        elif kwargs:
            args = self._kwargs_to_positional(forward, args, kwargs)
        is_variable_input = tuple(isinstance(a, Tensor) for a in args)
        tensors = [a for a in args if isinstance(a, Tensor)]
        needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        executable = GRAD_MODE.enabled and any(needs_input_grad)

        ctx = _new_ctx(self.node_class)
        Node.__init__(ctx)
        if executable:
            ctx.next_functions = tuple(gradient_edge(t) for t in tensors)
        ctx.init_ctx(needs_input_grad, is_variable_input,
                     self._flag("clear_saved_tensors_on_access"), self._flag("boxed_grads_call"))

        dual = forward_ad.FW.level >= 0 and any(
            forward_ad.tangent_of(a) is not None for a in tensors)
        with function_forward(self.name), forward_ad.disabled(dual):  # torch's forward sees
            if forward is None:                                        # no tangents
                raise _not_implemented(NO_FORWARD)
            if setup_context is not None:
                if below:
                    from .levels import below_transforms

                    lowered = [below_transforms(a) for a in args]
                    output = _maintaining_identity(forward(*lowered), lowered, args)
                else:
                    output = forward(*args)
                setup_context(ctx, tuple(args), output)
            else:
                output = forward(ctx, *args)
        for_forward = ctx.saved_for_forward  # (_process_outputs forgets it; jvp reads it)
        result = _process_outputs(ctx, tensors, output, executable, setup_context is not None)
        if dual:
            ctx.saved_for_forward = for_forward
            try:
                self._forward_ad(ctx, args, result)
            finally:
                ctx.saved_for_forward = None
        return result

    def _forward_ad(self, ctx: FunctionCtx, args: tuple, result: Any) -> None:
        """The outputs' tangents: the class's `jvp(ctx, *tangents)` (zeros for a tensor
        input without one, None for other arguments), reading save_for_forward's tensors."""
        jvp = self.lookup("jvp")
        if jvp is None:
            raise _not_implemented(NO_JVP)
        tangents = []
        for a in args:
            if isinstance(a, Tensor):
                t = forward_ad.tangent_of(a)
                tangents.append(t if t is not None else Tensor._wrap(np.zeros_like(a.array)))
            else:
                tangents.append(None)
        with forward_ad.disabled():  # (torch's jvp runs with forward grad mode off)
            out_tangents = jvp(ctx, *tangents)
        outputs = result if isinstance(result, tuple) else (result,)
        out_tangents = out_tangents if isinstance(out_tangents, tuple) else (out_tangents,)
        for out, tangent in zip(outputs, out_tangents):
            if isinstance(out, Tensor) and isinstance(tangent, Tensor):
                forward_ad.set_tangent(out, tangent)

    def _flag(self, name: str) -> bool:
        value = self.lookup(name)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise TorchRuntimeError(f"{name} must be a bool, got {type_name(value)}")
        return value

    def _bind_defaults(self, forward: Any, args: tuple, kwargs: dict[str, Any]) -> tuple:
        """Function.apply with setup_context: inspect.signature(forward).bind + defaults."""
        signature = self.signature(forward)
        if signature is None:
            if kwargs:
                raise TorchTypeError(
                    f"forward() got an unexpected keyword argument '{next(iter(kwargs))}'")
            return args
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise TorchTypeError(str(err)) from None
        bound.apply_defaults()
        if bound.kwargs:  # keyword-only parameters: torch passes them on, forward gets none
            raise TorchTypeError(
                f"forward() got an unexpected keyword argument '{next(iter(bound.kwargs))}'")
        return tuple(bound.args)

    def _kwargs_to_positional(self, forward: Any, args: tuple, kwargs: dict[str, Any]) -> tuple:
        """torch's resolve_kwargs_to_positional: keywords fill forward's positional slots
        (after ctx); defaults are not applied, so a gap is an error."""
        names = _positional_names(self.signature(forward) if forward is not None else None)
        names = names[1:]  # ctx
        slots: dict[int, Any] = {}
        for key, value in kwargs.items():
            if key not in names:
                raise TorchTypeError(f"forward() got an unexpected keyword argument '{key}'")
            index = names.index(key)
            if index < len(args):
                raise TorchTypeError(f"forward() got multiple values for argument '{key}'")
            slots[index] = value
        total = max([len(args) - 1, *slots]) + 1
        if total > len(names):
            raise TorchTypeError(
                f"forward() takes {len(names)} positional arguments but {total} were given")
        out = list(args)
        for index in range(len(args), total):
            if index not in slots:
                raise TorchTypeError(
                    f"forward() missing required argument: '{names[index]}' (position {index})")
            out.append(slots[index])
        return tuple(out)


def _python_signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _positional_names(signature: inspect.Signature | None) -> list[str]:
    if signature is None:
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in signature.parameters.values() if p.kind in kinds]


# ---------------------------------------------------------------------------- outputs


def _maintaining_identity(output: Any, lowered: list[Any], args: tuple) -> Any:
    """An output forward gave back as one of its unwrapped operands is that operand (torch's
    wrap_outputs_maintaining_identity)."""
    back = {id(low): arg for low, arg in zip(lowered, args, strict=True) if low is not arg}
    if not back:
        return output
    if isinstance(output, tuple):
        return tuple(back.get(id(o), o) for o in output)
    return back.get(id(output), output)


def _process_outputs(ctx: FunctionCtx, inputs: list[Tensor], output: Any, executable: bool,
                     setup_context: bool) -> Any:
    """torch's process_outputs + _wrap_outputs: the outputs get their history."""
    unpack = not isinstance(output, tuple)
    raw = (output,) if unpack else output
    if executable:
        ctx.input_meta = tuple((t.array.shape, t.dtype) for t in inputs)
    to_save, saved_with_setup = _tensors_to_save(ctx, executable, setup_context)
    non_differentiable = _non_differentiable(ctx)
    dirty = _mark_dirty(ctx)
    input_ids = {id(t) for t in inputs}
    outputs: list[Any] = []
    output_meta: list[tuple[tuple[int, ...], Any] | None] = []
    output_info: list[tuple[tuple[int, ...], Any] | None] = []
    returned_ids = set()
    n_diff = 0
    for nr, var in enumerate(raw):
        if not isinstance(var, Tensor):
            outputs.append(var)
            output_meta.append(None)
            output_info.append(None)
            continue
        key = id(var)
        is_input = key in input_ids
        is_modified = key in dirty
        differentiable = (executable and key not in non_differentiable
                          and var.dtype.is_floating_point)
        if setup_context and is_input and not is_modified and key in saved_with_setup:
            raise TorchRuntimeError(INPUT_RETURNED_AS_IS)
        var = _set_history(ctx if executable else None, var, nr, len(raw), is_input,
                           is_modified, differentiable)
        meta = (var.array.shape, var.dtype)
        output_meta.append(meta if differentiable else None)
        output_info.append(meta)
        n_diff += differentiable
        returned_ids.add(key)
        outputs.append(var)
    if dirty.keys() - returned_ids:
        raise TorchRuntimeError(DIRTY_NOT_RETURNED)
    if executable:
        ctx.output_meta = tuple(output_meta)
        ctx.output_info = tuple(output_info)
        ctx.num_diff_outputs = n_diff
        tensor_outputs = [o for o in outputs if isinstance(o, Tensor)]
        out_ids = {id(o) for o in tensor_outputs}
        ctx.saved = {
            f"saved_tensors[{i}]": None if t is None else SavedTensor(t, id(t) in out_ids)
            for i, t in enumerate(to_save)}
    if OBSERVERS:
        tensor_outputs = [o for o in outputs if isinstance(o, Tensor)]
        emit("op", node=ctx if executable else None, name=ctx.name(), inputs=tuple(inputs),
             outputs=tensor_outputs)
        for t in dirty.values():
            emit("inplace", tensor=t, version=t._version_counter.value,
                 node=ctx if executable and t.grad_fn is ctx else None, name=ctx.name())
    return outputs[0] if unpack else tuple(outputs)


def _tensors_to_save(ctx: FunctionCtx, executable: bool,
                     setup_context: bool) -> tuple[list[Tensor | None], set[int]]:
    """torch's _get_tensors_to_save: what save_for_backward was given, checked."""
    pending = ctx.to_save
    ctx.to_save = None
    out: list[Tensor | None] = []
    ids = set()
    if setup_context and ctx.saved_for_forward is not None:
        ids.update(id(t) for t in ctx.saved_for_forward if isinstance(t, Tensor))
    for i, obj in enumerate(pending or ()):
        if obj is None:
            out.append(None)
        elif isinstance(obj, Tensor):
            ids.add(id(obj))
            out.append(obj)
        elif executable:
            raise TorchTypeError(f"save_for_backward can only save variables, but argument {i} "
                                 f"is of type {_tp_name(obj)}")
    ctx.saved_for_forward = None
    return out, ids


def _tp_name(obj: Any) -> str:
    from .shapes import Size

    return "torch.Size" if isinstance(obj, Size) else type_name(obj)


def _non_differentiable(ctx: FunctionCtx) -> set[int]:
    """The tensors given to mark_non_differentiable (torch's _parse_non_differentiable)."""
    value = ctx.non_differentiable
    if value is None:
        return set()
    if not isinstance(value, tuple):
        raise TorchRuntimeError("autograd internal error: non_differentiable attribute is "
                                f"expected to be a tuple but is {type_name(value)}")
    for t in value:
        if not isinstance(t, Tensor):  # (sic: torch's printf-style message drops the type)
            raise TorchRuntimeError(
                "mark_non_differentiable only accepts variable arguments, but got ")
    ctx.non_differentiable = None
    return {id(t) for t in value}


def _mark_dirty(ctx: FunctionCtx) -> dict[int, Tensor]:
    """Bump the version of each tensor given to mark_dirty (torch's _mark_dirty)."""
    value = ctx.dirty_tensors
    if value is None:
        return {}
    if not isinstance(value, tuple):
        raise TorchRuntimeError("autograd internal error: dirty_tensors attribute is expected "
                                f"to be a tuple but is {type_name(value)}")
    dirty: dict[int, Tensor] = {}
    for t in value:
        if not isinstance(t, Tensor):
            raise TorchRuntimeError("mark_dirty can only accept variables, but argument ")
        dirty[id(t)] = t
        bump_version(t)
    ctx.dirty_tensors = None
    return dirty


def _set_history(node: FunctionCtx | None, var: Tensor, nr: int, n_outputs: int,
                 is_input: bool, is_modified: bool, differentiable: bool) -> Tensor:
    """torch's set_history in _process_backward_mode_ad: the output as the caller gets it."""
    if var._base is not None:  # (a view made in forward, under no_grad: torch's creation
        no_grad_views.forget(var)  # meta for it becomes the custom Function's)
    if not differentiable:
        if not var.requires_grad:
            return alias_view(var) if is_input and not is_modified else var
        if is_input:
            return var.detach()
        if var._base is None:
            var.detach_()
        return var
    if is_modified:
        if var.grad_fn is None and var.requires_grad:
            raise TorchRuntimeError(LEAF_DIRTY)
        if not is_input:
            if var._base is not None:  # torch 2.13: a view of an intermediate (TORCH_CHECK)
                raise TorchRuntimeError(DIRTY_NOT_INPUT)
            WARNINGS.append(DIRTY_NOT_INPUT_WARNING)
        if var._base is not None and n_outputs > 1:
            raise TorchRuntimeError(DIRTY_VIEW_MULTI_OUTPUT)
        var.grad = None
        var._hooks = None
        var._post_accumulate_hooks = None
        var._accumulator = None
        if var._base is not None:
            rebase_view(var, node)
        else:
            old_fn, old_nr = var.grad_fn, var.output_nr
            var.grad_fn = node
            var.requires_grad = True
            var.output_nr = nr
            move_retains_grad(var, old_fn, old_nr)
        refresh_views(var)
        return var
    if is_input:
        var = alias_view(var)
    var.grad_fn = node
    var.requires_grad = True
    var.output_nr = nr
    return var


# ---------------------------------------------------------------------------- the node


class FunctionCtx(Node):
    """The `ctx` of a custom Function, which is also the grad_fn of its outputs (torch's
    BackwardCFunction). Each Function has its own subclass, `<Name>Backward`.

    Python code uses it as torch's ctx (`ctx.save_for_backward(x)`, `ctx.k = 3`); a script
    goes through `get_attribute` / `set_attribute`, the same rules.
    """

    __slots__ = ("to_save", "non_differentiable", "dirty_tensors", "saved_for_forward",
                 "needs_input_grad_value", "is_variable_input", "materialize_grads",
                 "output_info", "num_diff_outputs", "clear_on_access", "cleared",
                 "boxed_grads_call", "user_attrs", "ready")
    function: AutogradFunction  # set on each subclass

    def init_ctx(self, needs_input_grad: tuple[bool, ...], is_variable_input: tuple[bool, ...],
                 clear_on_access: bool, boxed_grads_call: bool) -> None:
        self.to_save = None
        self.non_differentiable = None
        self.dirty_tensors = None
        self.saved_for_forward = None
        self.needs_input_grad_value = needs_input_grad
        self.is_variable_input = is_variable_input
        self.materialize_grads = True
        self.output_info: tuple = ()
        self.num_diff_outputs = 0
        self.clear_on_access = clear_on_access
        self.cleared = False
        self.boxed_grads_call = boxed_grads_call
        self.user_attrs: dict[str, Any] | None = None
        self.ready = True  # from now on, Python code sets attributes by torch's rules

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{type(self).__name__} object at {id(self):#x}>"

    # -- what forward / setup_context call ----------------------------------------

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        for t in tensors:
            if not (isinstance(t, Tensor) or t is None):
                raise ScriptError("save_for_forward expects all arguments to be tensors; you "
                                  "should save non-tensors as attributes on ctx.",
                                  kind="AssertionError")
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: Any) -> None:
        _set_materialize_grads(self, value)

    def mark_shared_storage(self, *pairs: Any) -> None:
        WARNINGS.append(SHARED_STORAGE_WARNING)

    # -- what backward reads ------------------------------------------------------

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self.cleared:
            raise TorchRuntimeError(CLEARED_ON_ACCESS)
        if self.saved_for_forward is not None:
            return self.saved_for_forward
        result = self._unpack_saved()
        if self.clear_on_access:
            self.saved = {}
            self.cleared = True
        return result

    def _unpack_saved(self) -> tuple[Tensor | None, ...]:
        if self.released:
            raise TorchRuntimeError(FREED_MESSAGE)
        return tuple(None if s is None else s.unpack(self, always_reattach=True)
                     for s in (self.saved or {}).values())

    @property
    def needs_input_grad(self) -> Any:
        return self.needs_input_grad_value

    def saved_attribute(self, key: str) -> str:
        return key

    def release(self) -> None:
        """After backward (retain_graph=False): saved tensors go, and saved_tensors raises."""
        self.released = True
        if self.saved:
            self.saved = dict.fromkeys(self.saved)

    # -- the engine's call ----------------------------------------------------------

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        """torch's PyNode::apply: the Function's backward, its result checked."""
        args = []
        for g, info in zip(grads, self.output_info):
            if g is None and self.materialize_grads and info is not None:
                g = Tensor._wrap(np.zeros(info[0], dtype=info[1].np))
            args.append(g)
        args += grads[len(self.output_info):]
        result = self.call_backward(*args)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self.is_variable_input)
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise TorchRuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(result)})")
        out = []
        for i, (value, is_tensor) in enumerate(zip(result, self.is_variable_input)):
            if not is_tensor:
                if value is not None:
                    raise TorchRuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            if value is not None and not isinstance(value, Tensor):
                raise TorchRuntimeError(f"expected Variable or None (got {type_name(value)})")
            out.append(value)
        return tuple(out)

    def call_backward(self, *grads: Any) -> Any:
        """`grad_fn.apply(*grads)`: the Function's backward (or vjp) on this ctx."""
        function = self.function
        backward = function.lookup("backward")
        vjp = function.lookup("vjp")
        if backward is not None and vjp is not None:
            raise TorchRuntimeError(BOTH_BACKWARD_AND_VJP)
        user_fn = vjp if vjp is not None else backward
        if user_fn is None:
            raise _not_implemented(NO_BACKWARD)
        if self.boxed_grads_call:
            return user_fn(self, list(grads))
        return user_fn(self, *grads)

    # -- attributes, as torch's ctx has them ----------------------------------------

    def get_attribute(self, name: str) -> Any:
        """Properties first, then what forward stored on ctx, then methods (Python's order
        for a data descriptor, the instance dict and a method)."""
        getter = CTX_PROPERTIES.get(name)
        if getter is not None:
            return getter(self)
        if name == "materialize_grads":
            raise ScriptError(
                "attribute 'materialize_grads' of 'torch._C._FunctionBase' objects is not "
                "readable", kind="AttributeError")
        if self.user_attrs is not None and name in self.user_attrs:
            return self.user_attrs[name]
        raise ScriptError(f"'{self.name()}' object has no attribute '{name}'",
                          kind="AttributeError")

    def set_attribute(self, name: str, value: Any) -> None:
        setter = CTX_SETTERS.get(name)
        if setter is not None:
            setter(self, value)
        elif name in CTX_PROPERTIES:
            raise ScriptError(NOT_WRITABLE.format(name), kind="AttributeError")
        else:
            if self.user_attrs is None:
                self.user_attrs = {}
            self.user_attrs[name] = value

    def __getattr__(self, name: str) -> Any:  # Python code only: ctx.constant
        if name.startswith("__") or name in _SLOTS:  # (a slot not set yet)
            raise AttributeError(name)
        try:
            return self.get_attribute(name)
        except ScriptError as err:
            raise AttributeError(err.message) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SLOTS and (name not in CTX_PROPERTIES or not getattr(self, "ready", False)):
            object.__setattr__(self, name, value)
        else:
            self.set_attribute(name, value)


_SLOTS = frozenset(Node.__slots__) | frozenset(FunctionCtx.__slots__)
_new_ctx = object.__new__


def _set_materialize_grads(ctx: FunctionCtx, value: Any) -> None:
    if not isinstance(value, bool):
        raise TorchTypeError("set_materialize_grads received an invalid combination of arguments "
                             "- got (), but expected (bool)")
    ctx.materialize_grads = value


def _saved_variables(ctx: FunctionCtx) -> tuple[Tensor | None, ...]:
    WARNINGS.append(SAVED_VARIABLES_WARNING)
    if ctx.cleared:
        raise TorchRuntimeError(CLEARED_ON_ACCESS)
    result = ctx._unpack_saved()
    if ctx.clear_on_access:
        ctx.saved = {}
        ctx.cleared = True
    return result


def _set_needs_input_grad(ctx: FunctionCtx, value: Any) -> None:
    ctx.needs_input_grad_value = value


def _setter(slot: str) -> Callable[[FunctionCtx, Any], None]:
    def set_slot(ctx: FunctionCtx, value: Any) -> None:
        object.__setattr__(ctx, slot, value)

    return set_slot


# ctx attributes that are properties in torch (data descriptors: a script cannot shadow them)
CTX_PROPERTIES: dict[str, Callable[[FunctionCtx], Any]] = {
    "saved_tensors": lambda ctx: ctx.saved_tensors,
    "saved_variables": _saved_variables,
    "next_functions": lambda ctx: ctx.next_functions,
    "to_save": lambda ctx: ctx.to_save,
    "non_differentiable": lambda ctx: ctx.non_differentiable,
    "dirty_tensors": lambda ctx: ctx.dirty_tensors,
    "saved_for_forward": lambda ctx: ctx.saved_for_forward,
    "needs_input_grad": lambda ctx: ctx.needs_input_grad_value,
    "requires_grad": lambda ctx: True,
    "metadata": anomaly.metadata,
}
CTX_SETTERS: dict[str, Callable[[FunctionCtx, Any], None]] = {
    "to_save": _setter("to_save"),
    "non_differentiable": _setter("non_differentiable"),
    "dirty_tensors": _setter("dirty_tensors"),
    "saved_for_forward": _setter("saved_for_forward"),
    "needs_input_grad": _set_needs_input_grad,
    "materialize_grads": _set_materialize_grads,
}
# ctx methods a script may call (looked up after what it stored on ctx)
CTX_METHODS: dict[str, Callable[..., Any]] = {
    "save_for_backward": FunctionCtx.save_for_backward,
    "save_for_forward": FunctionCtx.save_for_forward,
    "mark_dirty": FunctionCtx.mark_dirty,
    "mark_non_differentiable": FunctionCtx.mark_non_differentiable,
    "set_materialize_grads": FunctionCtx.set_materialize_grads,
    "mark_shared_storage": FunctionCtx.mark_shared_storage,
    "apply": FunctionCtx.call_backward,
}


# ---------------------------------------------------------------------------- DelayedError
# (what torch.autograd.function.once_differentiable, library code, wraps outputs in)


class DelayedError(Node):
    """torch's Error node (DelayedError's grad_fn): raises its message in backward."""

    __slots__ = ("message",)

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        raise TorchRuntimeError(self.message)


DelayedError.__name__ = "Error"


def delayed_error(message: str, values: Sequence[Any]) -> tuple[Any, ...]:
    """torch's DelayedError(msg, n)(*vars) over detached aliases that require grad: new
    tensors sharing storage (not the version counter), with an Error node as grad_fn."""
    sources = []
    for v in values:
        if isinstance(v, Tensor):
            v = v.detach()
            v.requires_grad = True
        sources.append(v)
    node = _new_ctx(DelayedError)
    Node.__init__(node)
    node.message = message
    node.next_functions = tuple(gradient_edge(v) if isinstance(v, Tensor) else (None, 0)
                                for v in sources)
    node.input_meta = tuple((v.array.shape, v.dtype) if isinstance(v, Tensor) else None
                            for v in sources)
    outs: list[Any] = []
    for nr, v in enumerate(sources):
        if not isinstance(v, Tensor):
            outs.append(None)
            continue
        out = Tensor._wrap(v.array)  # tensor_data(): its own version counter (torch's FIXME)
        out.requires_grad = True
        out.grad_fn = node
        out.output_nr = nr
        outs.append(out)
    node.output_meta = tuple((o.array.shape, o.dtype) if o is not None else None for o in outs)
    return tuple(outs)


__all__ = ["AutogradFunction", "FunctionCtx", "delayed_error", "CTX_PROPERTIES",
           "CTX_SETTERS", "CTX_METHODS"]
