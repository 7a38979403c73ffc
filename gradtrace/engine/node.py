"""Graph nodes: `Node` (a recorded op's backward), `AccumulateGrad`, and saved tensors.

An op is one `Function` subclass named after the node torch records
(`MulBackward0`): its `forward` computes the result and saves what `backward`
needs; its `backward` maps the output gradient(s) to input gradients using
tensor ops, so that `create_graph=True` records the backward pass itself.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NotSupportedError, TorchRuntimeError, TorchTypeError
from . import (
    anomaly,
    conj_bit,
    forward_ad,
    grad_reuse,
    no_grad_views,
    saved_hooks,
    view_creation,
)
from . import meta as _meta
from .anomaly import ANOMALY
from .dtypes import float64
from .events import OBSERVERS
from .forward_ad import FW as _FW
from .grad_mode import GRAD_MODE
from .limits import too_many_dims
from .meta import META as _METASTATE

if TYPE_CHECKING:
    from .formulas import Formula
    from .tensor import Tensor

_sequence = itertools.count()
ACCUMULATE_SEQUENCE_NR = 2**64 - 1  # torch runs AccumulateGrad as soon as it is ready


def next_sequence_nr() -> int:
    """The sequence number the next node will get (without taking it: scripts see them)."""
    global _sequence
    n = next(_sequence)
    _sequence = itertools.count(n)
    return n

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved (torch's SavedVariable).

    A saved output keeps only its data, not the tensor, so the graph has no cycle;
    unpacking it gives a tensor whose grad_fn is the saving node, like torch.
    """

    __slots__ = ("tensor", "version", "is_output", "output_nr", "packed")

    def __init__(self, tensor: Tensor, is_output: bool):
        if type(tensor._version_counter) is _tensor.InferenceVersion:
            raise TorchRuntimeError(INFERENCE_SAVED)
        # under saved_tensors_hooks: what the pack hook made of it (the views still show
        # the tensor as it was saved; unpacking goes through the hook)
        # (torch never packs a Python number an op wrapped as a tensor)
        # (nor a forward-AD formula's zero tensor: measured, torch's hooks never see one)
        self.packed = saved_hooks.pack(tensor) if saved_hooks.HOOKS.stack \
            and not tensor._wrapped and tensor._fw_grad is not forward_ad.ZERO else None
        self.tensor = tensor.detach() if is_output else tensor
        self.version = tensor._version_counter.value
        self.is_output = is_output
        self.output_nr = tensor.output_nr

    def unpack(self, node: Node, always_reattach: bool = False) -> Tensor:
        """The saved tensor, checked; a saved output comes back with `node` as its grad_fn
        (torch always does that; backward formulas skip it when grad mode is off, where
        nothing can see it)."""
        if self.packed is not None:
            if self.packed.unpacked is not None:  # unpacked when the node's backward began
                return self.packed.unpacked
            return saved_hooks.unpack(self.packed, node, self.output_nr, self.is_output,
                                      always_reattach or GRAD_MODE.enabled)
        tensor = self.tensor
        if tensor._version_counter.value != self.version:
            raise TorchRuntimeError(version_error(tensor, self, node))
        if self.is_output and (always_reattach or GRAD_MODE.enabled):
            out = tensor.detach()
            out.requires_grad = True
            out.grad_fn = node
            out.output_nr = self.output_nr
            if tensor._fw_grad is not None:  # a saved output keeps its tangent, as torch's
                forward_ad.set_tangent(out, tensor._fw_grad)
            return out
        return tensor


class SavedNumber(SavedTensor):
    """A Python number an op saved (`y * 0.5`'s `other`). torch saves the number wrapped as
    a 0-d tensor; here that tensor is built when something first reads it (backward under
    grad mode or a tracer, a script's `_saved_other`), and backward without either multiplies
    by the number itself (`number`)."""

    __slots__ = ("number",)

    @property  # type: ignore[override]
    def tensor(self) -> Tensor:
        t = _SAVED_TENSOR_SLOT.__get__(self, SavedNumber)
        if t is None:
            t = _tensor.wrap_number(self.number)
            _SAVED_TENSOR_SLOT.__set__(self, t)
        return t

    def built(self) -> bool:
        """Whether the number's tensor exists (something has read it)."""
        return _SAVED_TENSOR_SLOT.__get__(self, SavedNumber) is not None


_SAVED_TENSOR_SLOT = SavedTensor.__dict__["tensor"]


def saved_number(number: float) -> SavedNumber:
    """`SavedTensor(wrap_number(number), False)` without building the tensor (every
    `tensor * number` saves one): the version it is checked against is the fresh one, 0."""
    saved = _new_node(SavedNumber)
    _SAVED_TENSOR_SLOT.__set__(saved, None)
    saved.number = number
    saved.version = 0
    saved.is_output = False
    saved.output_nr = 0
    saved.packed = None  # torch never packs a Python number an op wrapped
    return saved


def version_error(tensor: Tensor, saved: SavedTensor, node: Node) -> str:
    grad_fn = node if saved.is_output else tensor.grad_fn
    which = ""
    if grad_fn is not None:
        short = re.sub(r"Backward\d*$", "", grad_fn.name())
        which = f", which is output {saved.output_nr} of {short},"
    shape = ", ".join(str(s) for s in tensor.array.shape)
    hint = ANOMALY_HINT if ANOMALY.enabled else VERSION_HINT
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [torch.{tensor.dtype.tensor_type} [{shape}]]{which} is at version "
        f"{tensor._version_counter.value}; expected version {saved.version} instead. {hint}"
    )


VERSION_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = (
    "Hint: the backtrace further above shows the operation that failed to compute its "
    "gradient. The variable in question was changed in there or anywhere later. Good luck!")


class Node:
    """A node of the backward graph (torch's `grad_fn`)."""

    __slots__ = (
        "next_functions", "sequence_nr", "saved", "released", "input_meta", "output_meta",
        "pre_hooks", "hooks", "tensor_pre_hooks", "retains_grad_hooks", "attrs",
        "__weakref__",
    )

    def __init__(self) -> None:
        self.next_functions: tuple[tuple[Node | None, int], ...] = ()
        self.sequence_nr = next(_sequence)
        self.saved: dict[str, SavedTensor | None] | None = None
        self.released = False
        self.input_meta: tuple[tuple[tuple[int, ...], Any] | None, ...] = ()
        self.output_meta: tuple[tuple[tuple[int, ...], Any], ...] = ()
        self.pre_hooks: list | None = None
        self.hooks: list | None = None
        self.tensor_pre_hooks: dict[int, list] | None = None
        self.retains_grad_hooks: dict[int, Any] | None = None
        self.attrs: dict[str, Any] | None = None
        if ANOMALY.enabled:
            anomaly.record(self)

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # -- saved tensors -----------------------------------------------------

    def unpack(self, key: str, always_reattach: bool = False) -> Tensor | None:
        """The saved tensor `key`, checked against in-place changes and freeing."""
        if self.released:
            raise TorchRuntimeError(FREED_MESSAGE)
        saved = self.saved.get(key) if self.saved else None
        return None if saved is None else saved.unpack(self, always_reattach)

    def saved_attribute(self, key: str) -> str:
        """How a script reads saved value `key` of this node: torch's `_saved_<key>`."""
        return f"_saved_{key}"

    def saved_names(self) -> list[str]:
        names = list(self.saved or ()) + list(self.attrs or ())
        return sorted(names)

    # attrs that are lists of tensors torch saves as SavedVariables (index's `indices`): kept
    # as values, but freed with the saved tensors, so a second backward or a `_saved_` read
    # raises torch's error
    saved_lists: tuple[str, ...] = ()

    def release(self) -> None:
        """Free saved tensors after backward (what retain_graph=False does)."""
        if self.saved:
            self.released = True
            self.saved = dict.fromkeys(self.saved)  # names stay, tensors go
        elif self.attrs and any(t is not None for key in self.saved_lists
                                for t in self.attrs.get(key) or ()):
            self.released = True

    def check_saved_lists(self) -> None:
        """A backward that reads `saved_lists` checks they were not freed (torch's unpack)."""
        if self.released:
            raise TorchRuntimeError(FREED_MESSAGE)

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        raise NotImplementedError

    def register_hook(self, hook: Callable) -> Any:
        """`grad_fn.register_hook(fn)`: fn(grad_inputs, grad_outputs) after the node runs."""
        if self.hooks is None:
            self.hooks = []
        self.hooks.append(hook)
        return _tensor.RemovableHandle(self.hooks, hook)

    def register_prehook(self, hook: Callable) -> Any:
        """`grad_fn.register_prehook(fn)`: fn(grad_outputs) before the node runs."""
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)
        return _tensor.RemovableHandle(self.pre_hooks, hook)

    def needs_input_grad(self, i: int) -> bool:
        return self.next_functions[i][0] is not None

    def __call__(self, *grads: Any, **kwargs: Any) -> Any:
        """`grad_fn(*grad_outputs)`, torch's Node.__call__: the node's backward alone on the
        given gradients, under the current grad mode (so it records a graph when grad is
        enabled), without hooks or the engine's checks; an AccumulateGrad adds into the
        leaf's .grad. One input gradient comes back as itself, several as a tuple."""
        if kwargs:
            raise TorchTypeError("keyword arguments are not supported")
        from .ops.view_inplace import CopySlices

        if not isinstance(self, (Function, AccumulateGrad, CopySlices)):
            raise NotSupportedError(f"calling {self.name()} directly is not supported")
        expected = max(1, len(self.output_meta))
        if len(grads) != expected:
            raise TorchTypeError(f"expected {expected} arguments, got {len(grads)} instead")
        for i, g in enumerate(grads):
            if not isinstance(g, _tensor.Tensor):
                raise TorchTypeError(f"argument {i} is not a Variable")
        result = tuple(self.apply(list(grads)))
        return result[0] if len(result) == 1 else result


class AccumulateGrad(Node):
    """The sink of a leaf: adds the incoming gradient into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor):
        super().__init__()
        self.sequence_nr = ACCUMULATE_SEQUENCE_NR
        self.variable = variable
        self.input_meta = ((variable.array.shape, variable.dtype),)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if grads[0] is None:
            return ()
        var = self.variable
        # (no local name for grads[0] before can_steal: it counts the gradient's references)
        if grads[0].is_sparse_layout or var.grad is not None and var.grad.is_sparse_layout:
            from .sparse import accumulate

            accumulate(var, grads[0])
            return ()
        if var.grad is None:
            # torch keeps a gradient only the engine holds, else copies it (copy_: version 1)
            steal = grad_reuse.can_steal(grads, 0, var)
            new = grads[0]
            var.grad = new if steal else grad_reuse.copy_grad(new, var)
            if var.grad._fw_grad is not None:  # torch keeps `new_grad.detach()`: no tangent
                var.grad._fw_grad = None
        elif GRAD_MODE.enabled:
            var.grad = var.grad + grads[0]
        else:
            np.add(var.grad.array, grads[0].array, out=var.grad.array, casting="unsafe")
            _tensor.bump_version(var.grad)
            if _FW.level >= 0:  # torch's `grad += new_grad` adds the tangents too
                forward_ad.add_tangent_inplace(var.grad, grads[0])
        return ()


class Function(Node):
    """A differentiable op: `apply` runs `forward` and records the node when grad is needed.

    Subclasses define `forward(*inputs, **params) -> np.ndarray` (inputs are Tensors, in
    next_functions order; call `self.save(...)`) and `backward(grad) -> grads per input`.
    Multi-output ops set `multi_output = True`: forward returns a list of arrays,
    backward receives one gradient per output (zeros where none flowed, or None when the
    op's formula depends on which gradients are defined: `materialize_grads = False`).
    """

    __slots__ = ("recording",)
    # the derivative for each input, as data (see engine/formulas.py): what explain shows
    formulas: tuple[Formula, ...] = ()
    multi_output = False
    materialize_grads = True
    # Outputs that are views of the first input share its version counter and base.
    returns_view = False
    # Whether the op is an elementwise TensorIterator kernel over its tensor inputs (in
    # that order): its result is laid out by the first input whose strides order the dims
    # (`x.t()` first: column-major), where numpy's ufuncs let a row-major operand win
    tensor_iterator = False
    # Whether the view op sets its outputs' conjugate bit itself (conj(): engine/conj_bit.py)
    sets_conj = False
    # The forward-mode derivative (derivatives.yaml's `result:`), run by forward_ad.propagate
    # as `jvp(node, tangents, outputs, inputs, params)`; None: torch has none for the op.
    jvp: Callable[..., Any] | None = None
    # The ATen op's name when torch has no forward formula either (its NotImplementedError)
    no_forward_ad: str | None = None
    # Whether `jvp` reads what forward saved (statistics, factorizations): the op then saves
    # while a tangent flows through it even when nothing requires grad
    jvp_reads_saved = False
    # Whether forward, after its checks, computes only through kernels that give a meta
    # array for meta inputs (blas): a meta op then runs it whatever its size
    meta_kernels = False
    # Whether forward only lays out its first input's memory anew (a view: no element is
    # read), so a meta op runs it on a window of the meta tensor's shape and strides over
    # one element, whatever its size, and the output has the strides torch gives it
    meta_layout_only = False
    # An in-place run into a `self` whose elements share memory (an expand's stride 0):
    # None when torch's kernel refuses it (TensorIterator's internal-overlap error); else
    # `overlap_write(inputs, params)`, run before forward (it gives torch's warnings), which
    # returns `writer(window, out)`: the elements torch's kernel writes, written into memory
    overlap_write: Callable[..., Callable[[np.ndarray, np.ndarray], None]] | None = None
    # Whether the in-place form is a structured kernel's (addmm_, addmv_, baddbmm_), whose
    # set_output words a result shape other than self's ("Bad in-place call"), not
    # TensorIterator's "output with shape ... doesn't match the broadcast shape"
    structured_inplace = False

    def save(self, key: str, tensor: Tensor | None, *, is_output: bool = False) -> None:
        if self.recording:
            if self.saved is None:
                self.saved = {}
            self.saved[key] = None if tensor is None else SavedTensor(tensor, is_output)

    def show_saved_as(self, *keys: str) -> None:
        """The order the views list saved tensors in, when the op saves (and packs, under
        saved_tensors_hooks) them in another: torch's save order is not its attribute order."""
        if self.recording and self.saved:
            self.saved = {key: self.saved[key] for key in keys}

    def save_attr(self, /, **attrs: Any) -> None:
        """Non-tensor values backward needs (dim, exponent, ...), shown as `_saved_*`."""
        if self.recording:
            if self.attrs is None:
                self.attrs = attrs
            else:
                self.attrs.update(attrs)

    def forward(self, *inputs: Any, **params: Any) -> Any:
        raise NotImplementedError

    def backward(self, *grads: Tensor) -> Any:
        raise NotImplementedError

    def apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if saved_hooks.HOOKS.used and self.saved:
            unpacked = saved_hooks.unpack_all(self)
            try:
                return self._apply(grads)
            finally:
                saved_hooks.forget(unpacked)
        if self.multi_output:
            return self._apply(grads)
        # _apply's single-output case without its call: every node of every backward
        if grads[0] is None:
            return (None,) * len(self.next_functions)
        result = self.backward(grads[0])
        return result if isinstance(result, tuple) else (result,)

    def _apply(self, grads: list[Tensor | None]) -> tuple[Tensor | None, ...]:
        if self.multi_output:
            if not self.materialize_grads:
                if all(grad is None for grad in grads):
                    return (None,) * len(self.next_functions)
                result = self.backward(*grads)
                return result if isinstance(result, tuple) else (result,)
            full = []
            for grad, (shape, dtype) in zip(grads, self.output_meta):
                full.append(grad if grad is not None else _zeros(shape, dtype))
            result = self.backward(*full)
        else:
            if grads[0] is None:
                return (None,) * len(self.next_functions)
            result = self.backward(grads[0])
        if not isinstance(result, tuple):
            result = (result,)
        return result

    @classmethod
    def call(cls, *inputs: Tensor, **params: Any) -> Any:
        """Run the op on tensors; record the node if grad mode is on and an input requires grad.

        The hottest function of the engine (every op, forward and backward, goes through
        it), hence the inlined node set-up and the local names.
        """
        recording = False
        if GRAD_MODE.enabled:
            for t in inputs:
                if t is not None and t.requires_grad:
                    recording = True
                    break
        saving = recording
        if _FW.level >= 0:
            if cls.jvp is None:
                forward_ad.check(cls, inputs)
            elif not recording and (cls.jvp is forward_ad.auto_element_wise
                                    or cls.jvp_reads_saved):
                saving = forward_ad.has_tangent(inputs)  # its jvp reads the saved values
        node = _new_node(cls)
        node.recording = saving
        if saving:
            Node.__init__(node)
        try:
            if _METASTATE.used and _meta.check_devices(inputs):
                data = _meta.run_forward(node, inputs, params)
            elif saving is not recording and saved_hooks.HOOKS.stack:
                data = _unhooked(node.forward, *inputs, **params)
            else:
                data = node.forward(*inputs, **params)
        except ValueError as err:
            raise too_many_dims(err) from None
        if type(data) is np.ndarray and data.ndim > 1 and not cls.returns_view:
            if cls.tensor_iterator:
                data = _pointwise.iterator_layout(
                    data, *[t.array for t in inputs if t is not None])
            elif not data.flags.c_contiguous:
                data = _expanded_inputs_layout(data, inputs)
        wrap = _tensor.wrap
        if cls.multi_output:
            outs = [wrap(array) for array in data]
        else:
            out = wrap(data)
            outs = [out]
        if cls.returns_view:
            base = inputs[0]
            root = base._base if base._base is not None else base
            for o in outs:
                o._version_counter = base._version_counter
                o._base = root
            if conj_bit.STORED and conj_bit.has_bit(base) and not cls.sets_conj:
                conj_bit.view_outputs(node, base, outs, params)
            if not recording and base.requires_grad and not GRAD_MODE.enabled:
                for o in outs:  # a view made in no_grad/inference mode still requires grad
                    o.requires_grad = True
                    no_grad_views.mark(o, GRAD_MODE.inference)
        if saving and not recording and cls.after_forward is not None:
            _unhooked(node.after_forward, outs)  # (saved for the tangent formula only)
        if recording:
            nr = 0
            for o in outs:
                o.requires_grad = True
                o.grad_fn = node
                o.output_nr = nr
                nr += 1
            if cls.returns_view and inputs[0]._base is not None:
                view_creation.propagate(inputs[0], outs)
            edges = []
            metas = []
            meta_cache = _META
            for t in inputs:
                if t is None:
                    edges.append(_NO_EDGE)
                    metas.append(None)
                    continue
                grad_fn = t.grad_fn
                if grad_fn is not None:
                    if _levels.ANY_DEAD and grad_fn in _levels.DEAD:  # (no node of torch's graph)
                        edges.append(_NO_EDGE)
                    else:
                        edges.append((grad_fn, t.output_nr))
                elif t.requires_grad:
                    spent = _levels.INPUTS and _levels.spent_edge(t)
                    if spent:  # a grad level's input after its level: what it stands for
                        edges.append(spent.edge)
                        metas.append(spent.meta)
                        continue
                    edges.append(_tensor.gradient_edge(t))
                else:
                    edges.append(_NO_EDGE)
                meta = (t.array.shape, t.dtype)
                metas.append(meta_cache.setdefault(meta, meta))
            node.next_functions = tuple(edges)
            node.input_meta = tuple(metas)
            if cls.multi_output:
                node.output_meta = tuple([(o.array.shape, o.dtype) for o in outs])
            else:
                meta = ((out.array.shape, out.dtype),)
                node.output_meta = meta_cache.setdefault(meta, meta)
            if cls.after_forward is not None:
                node.after_forward(outs)
        if _FW.level >= 0:
            forward_ad.propagate(cls, node, inputs, params, outs)
        if OBSERVERS:  # (emit's work inline: the tracer's hottest event)
            for observer in OBSERVERS:
                observer.on_op(node=node if recording else None, name=cls.__name__,
                               inputs=inputs, outputs=outs)
        return outs if cls.multi_output else out

    forward_number: Callable[[Function, Tensor, float], np.ndarray]
    """Ops that take `tensor op number` without wrapping the number define it: forward's
    result for `forward(a, wrap_number(number))`, saving what that saves."""

    @classmethod
    def call_number(cls, a: Tensor, number: float) -> Tensor:
        """`call(a, wrap_number(number))` for a floating-point `a` and a Python float, with
        the same node (next_functions, input_meta, saved values), without the number's
        tensor: `--quiet` never reads it, and a saved one is built when read (SavedNumber).
        An observer's op event shows the wrapped number, so with one attached this is
        `call` itself."""
        if OBSERVERS or _FW.level >= 0 or _levels.INPUTS or _levels.ANY_DEAD:
            return cls.call(a, _tensor.wrap_number(number))
        recording = GRAD_MODE.enabled and a.requires_grad
        node = _new_node(cls)
        node.recording = recording
        if recording:
            Node.__init__(node)
        out = _tensor.wrap(node.forward_number(a, number))
        if recording:
            out.requires_grad = True
            out.grad_fn = node
            grad_fn = a.grad_fn
            node.next_functions = ((grad_fn, a.output_nr) if grad_fn is not None
                                   else _tensor.gradient_edge(a), _NO_EDGE)
            meta = (a.array.shape, a.dtype)
            node.input_meta = (_META.setdefault(meta, meta), _NUMBER_META)
            meta = ((out.array.shape, out.dtype),)
            node.output_meta = _META.setdefault(meta, meta)
        return out

    after_forward: Callable[[Function, list[Tensor]], None] | None = None
    """Save outputs (e.g. `result`) once they exist; ops that need it define the method."""


def reachable_nodes(roots: Iterable[Node | None]) -> dict[int, Node]:
    """Every node `roots` reach through next_functions, each once, by id, in the order a
    depth-first walk meets them (the last root first): the graph behind some grad_fns."""
    seen: dict[int, Node] = {}
    stack = [node for node in roots if node is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(fn for fn, _ in node.next_functions if fn is not None)
    return seen


def _unhooked(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn` with no saved_tensors_hooks: what an op saves only for its forward-AD formula
    (forward_ad.auto_element_wise) is no saved tensor of the graph, so torch packs nothing."""
    hooks = saved_hooks.HOOKS
    stack, hooks.stack = hooks.stack, []
    try:
        return fn(*args, **kwargs)
    finally:
        hooks.stack = stack


_NO_EDGE = (None, 0)
_new_node = object.__new__
def _expanded_inputs_layout(data: np.ndarray, inputs: tuple) -> np.ndarray:
    """An op's result laid out as torch lays out results of expanded (stride-0) inputs:
    TensorIterator and empty_like order dims by the inputs' strides, leaving a stride-0
    dim where it stands, where numpy's ufuncs order it innermost (`x.expand(4, 2, 3).abs()`
    would else run over memory in another order than torch's)."""
    arrays = [t.array for t in inputs if t is not None]
    if any(0 in a.strides for a in arrays if a.ndim > 1):
        return _pointwise.iterator_layout(data, *arrays)
    return data


# (shape, dtype) metadata tuples are shared between nodes: graphs of a million nodes
# mostly repeat a handful of them.
_META: dict[tuple, tuple] = {}
_NUMBER_META = _META.setdefault(((), float64), ((), float64))  # a wrapped Python float


def _zeros(shape: tuple[int, ...], dtype: Any) -> Tensor:
    from .tensor import Tensor

    return Tensor._wrap(np.zeros(shape, dtype=dtype.np))


from . import levels as _levels  # noqa: E402 (circular, as tensor)
from . import pointwise as _pointwise  # noqa: E402 (circular, as tensor)
from . import tensor as _tensor  # noqa: E402 (circular: Tensor is needed only at call time)
