"""The trace's records: plain data the renderers read (tensors, nodes, events, backward
steps). Values are kept whole when small and as a `Summary` when large (`summary.keep`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.meta import MetaArray, memory_owner
from ..engine.node import Node
from ..engine.tensor import Tensor
from ..summary import FULL_LIMIT, Summary


@dataclass(slots=True)
class TensorRecord:
    """A tensor the run touched. `tensor` is the live object (its state at the end), or,
    once nothing but the trace held it, a `TensorState` of how it ended."""

    id: int
    tensor: Tensor | TensorState
    line: int | None
    expression: str | None  # source text of the expression that made it
    names: list[str] = field(default_factory=list)  # script names bound to it, in order
    counter: int = 0  # which version counter it has (views and detach() share their base's)
    # (backward call index, node record id) when a node's backward made it (create_graph)
    made_by: tuple[int, int] | None = None
    # (node record id, key) when an op made it only to save it (max_pool's indices,
    # layer_norm's mean): the script never held it, torch shows it as grad_fn._saved_<key>
    saved_as: tuple[int, str] | None = None
    library: bool = False  # first met while a bundled library module's code ran
    # a library-made tensor that a library function returned to the script's own code
    # (the value of the script's call `model(x)`, not one of the call's intermediates)
    surfaced: bool = False
    module: str | None = None  # the nn.Module path it belongs to (`model.0`), at the end
    # what returned it, when an nn.Module call did: (the module's path, filled in at the
    # end, or None; the record ids of the call's tensor arguments)
    returned_by: tuple[str | None, tuple[int, ...]] | None = None
    # made by one of the ops a single torch call ran (matmul's `unsqueeze` of a 1-D
    # operand) and not what the call returned: named after its op, not the call's text
    internal: bool = False


def _final_values(array: np.ndarray) -> np.ndarray | Summary:
    """The values of a tensor nobody can change any more, kept for the views.

    A small array is kept itself (no copy: it still shows later writes through a live
    view of the same memory, as the tensor would), unless it is a view into a large
    buffer, which it would keep alive; a large array is summarised, a meta one too (it
    has no values to keep).
    """
    if array.size > FULL_LIMIT or type(array) is MetaArray:
        return Summary.of(array)
    owner = memory_owner(array)
    if array.base is None or (owner is not array and owner.size <= FULL_LIMIT):
        return array
    return np.array(array, copy=True)


class TensorState:
    """How a tensor ended, once only the trace held it: what the views read of a Tensor."""

    __slots__ = ("array", "dtype", "requires_grad", "grad", "grad_fn", "output_nr",
                 "_version_counter", "_base", "retains_grad", "_wrapped", "is_parameter")

    def __init__(self, t: Tensor):
        self.array = _final_values(t.array)
        self.dtype = t.dtype
        self.requires_grad = t.requires_grad
        self.grad = None if t.grad is None else TensorState(t.grad)
        self.grad_fn = t.grad_fn
        self.output_nr = t.output_nr
        self._version_counter = t._version_counter  # a view's counter can still move
        self._base = True if t._base is not None else None
        self.retains_grad = t.retains_grad
        self._wrapped = t._wrapped
        self.is_parameter = t.is_parameter  # an nn.Parameter stays one in the views

    # Tensor's own definitions: the snapshot keeps the fields they read
    shape = Tensor.shape
    is_leaf = Tensor.is_leaf
    _version = Tensor._version
    is_inference = Tensor.is_inference  # it keeps the counter, which says so


@dataclass(slots=True)
class SavedRecord:
    name: str  # torch's attribute without `_saved_`: "self", "other", "result"
    tensor_id: int | None
    version: int  # version when saved
    is_output: bool
    value: np.ndarray | Summary | None = None  # the values when saved (summary.keep)
    # under saved_tensors_hooks: the names of the (pack, unpack) hooks that ran on it
    packed: tuple[str, str] | None = None


@dataclass(slots=True)
class NodeRecord:
    id: int
    node: Node
    line: int | None
    expression: str | None
    outputs: list[int] = field(default_factory=list)  # tensor ids, by output_nr
    saved: list[SavedRecord] = field(default_factory=list)
    inputs: list[int | None] = field(default_factory=list)  # tensor ids, next_functions order
    # (backward call index, node record id) when recorded by a node's backward (create_graph)
    made_by: tuple[int, int] | None = None
    module: str | None = None  # the path of the nn.Module call that recorded it (`model.0`)

    @property
    def name(self) -> str:
        return self.node.name()


@dataclass(slots=True)
class Event:
    """One thing that happened, in order: kind, script line, and plain facts."""

    kind: str
    line: int | None
    facts: dict[str, Any]


@dataclass(slots=True)
class GradFlow:
    """A gradient sent along one edge: to next_functions[index] = (node, input_nr)."""

    index: int
    node_id: int | None
    input_nr: int
    grad: np.ndarray | Summary | None


@dataclass(slots=True)
class BackwardStep:
    index: int
    node_id: int
    received: list[np.ndarray | Summary | None]  # grad_outputs, one per output of the node
    sent: list[GradFlow]
    # (tensor, before, after)
    accumulated: tuple[int, np.ndarray | Summary | None, np.ndarray | Summary] | None = None
    released: bool = False
    # the saved tensors' values as this step used them (they differ from SavedRecord.value
    # when the storage was changed behind the version counter, e.g. through `.data`)
    saved: dict[str, np.ndarray | Summary | None] = field(default_factory=dict)
    event_index: int = 0  # len(Tracer.events) when the step ran: orders steps among events
    # a custom Function's backward: the lines of the script's `backward` that ran, in order,
    # with the tensors each made ({"line", "code", "tensors": [{"name", "value"}]}), bounded
    script: list[dict[str, Any]] | None = None


@dataclass(slots=True)
class BackwardCall:
    index: int
    line: int | None
    roots: list[tuple[int | None, int]]  # (node id, output_nr) of each root
    root_grads: list[np.ndarray | Summary]
    retain_graph: bool
    create_graph: bool
    accumulate: bool  # False for torch.autograd.grad
    steps: list[BackwardStep] = field(default_factory=list)
    error: str | None = None  # "Kind: message" when the backward call raised
    error_type: str | None = None
    error_message: str | None = None
    # saved tensors found changed in place when backward raised (the version error):
    # {"node", "saved", "tensor", "saved_version", "version"}
    stale: list[dict[str, Any]] = field(default_factory=list)

