"""Records what a run did, from the engine's events, as plain data for the renderers.

The tracer listens to `engine.events` while a script runs and keeps: every tensor and
node it saw (with the script names bound to them and the line that made them), each
in-place change, grad-mode change and `.data` write, and for each backward call every
step: the gradient a node received, what it sent to each of its next_functions,
accumulations into leaves, and which nodes freed their saved tensors.

Memory stays bounded on long runs: values are kept whole only when small (`summary.keep`:
large ones become a `Summary` of what the views show), and a tensor only the trace still
holds is let go, its record keeping a `TensorState` of how it ended (`Tracer._let_go`).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import events
from .engine.custom_function import FunctionCtx
from .engine.node import AccumulateGrad, Node
from .engine.ops.view_inplace import CopySlices
from .engine.saved_hooks import HOOKS, hook_names
from .engine.tensor import Tensor
from .errors import GradtraceError
from .interpreter.objects import Instance, type_name
from .stdlib import BoundMethod
from .summary import FULL_LIMIT, Summary, keep, keep_tensor

if TYPE_CHECKING:
    from .interpreter import Interpreter


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
    module: str | None = None  # the nn.Module path it belongs to (`model.0`), at the end


def _final_values(array: np.ndarray) -> np.ndarray | Summary:
    """The values of a tensor nobody can change any more, kept for the views.

    A small array is kept itself (no copy: it still shows later writes through a live
    view of the same memory, as the tensor would), unless it is a view into a large
    buffer, which it would keep alive; a large array is summarised.
    """
    if array.size > FULL_LIMIT:
        return Summary.of(array)
    base = array.base
    if base is None or (isinstance(base, np.ndarray) and base.size <= FULL_LIMIT):
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

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        return self._version_counter.value

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


def _storage(array: np.ndarray) -> int:
    """Identity of the memory an array lives in: its root base (views chain to it)."""
    base = array.base
    while isinstance(base, np.ndarray):
        array = base
        base = array.base
    return id(array) if base is None else id(base)


def _reference_count_alone() -> int:
    """sys.getrefcount of a record's tensor when nothing but the record holds it."""
    record = TensorRecord(0, Tensor._wrap(np.zeros(1)), None, None)
    return sys.getrefcount(record.tensor)


class Tracer:
    """Subscribes to engine events for one run and builds the trace."""

    # a pass over the live records to let go of dead tensors runs once this many records
    # were added since the last pass (and at least as many as were kept): linear overall
    LET_GO_EVERY = 256

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter
        self.tensors: dict[int, TensorRecord] = {}  # keyed by record id, in the order met
        self.nodes: dict[int, NodeRecord] = {}  # keyed by id(node)
        self.events: list[Event] = []
        self.backward_calls: list[BackwardCall] = []
        self._current: BackwardCall | None = None
        self._steps_by_node: dict[int, BackwardStep] = {}
        self._script_lines: list[dict[str, Any]] | None = None  # see _script_ran
        self._counters: dict[int, tuple[int, Any]] = {}  # id(version counter) -> (n, counter)
        self._exception_before: BaseException | None = None
        # records whose tensor is alive, by id(tensor); the others hold a TensorState
        self._live: dict[int, TensorRecord] = {}
        self._let_go_at = self.LET_GO_EVERY
        self._alone = _reference_count_alone()
        # saved tensors by the memory they live in, for in-place hazards:
        # storage -> [(node record, saved key, position in node.saved)]
        self._saved_by_storage: dict[int, list[tuple[NodeRecord, str, int]]] = {}
        self._storages_of: dict[int, list[int]] = {}  # node record id -> its storages
        self._indexed: dict[int, NodeRecord] = {}  # node record id -> record, when filed
        self._where_span: Any = None
        self._where_last: tuple[int | None, str | None] = (None, None)
        # (backward call index, node record id) while a node's backward runs: what it makes
        # belongs to that call and node, not to the script line that ran last (a hook's)
        self._applying: tuple[int, int] | None = None
        # an optimizer's step() being run: [depth, optimizer name, parameters updated,
        # in-place changes made (a user's own step() changes tensors without declaring it)]
        self._stepping: list[Any] = [0, None, 0, 0]
        self._update: dict[str, Any] | None = None  # the parameter update under way
        # the nn.Module calls running now (innermost last), and the module each record was
        # made in (record id -> module instance), named by path when the run ends
        self._module_calls: list[Any] = []
        self._tensor_modules: dict[int, Any] = {}
        self._node_modules: dict[int, Any] = {}
        self._module_events: list[tuple[Event, Any]] = []

    # -- lifecycle ---------------------------------------------------------

    def __enter__(self) -> Tracer:
        events.OBSERVERS.append(self)
        self.interpreter.tracer = self
        return self

    def __exit__(self, *exc: object) -> None:
        events.OBSERVERS.remove(self)
        self.interpreter.tracer = None
        if self._current is not None:  # backward ended by an error
            self._current.error = "backward raised"
            self._current = None
        self._let_go()  # the run's temporaries are gone: every record says how it ended
        self._name_modules()

    # -- where are we in the script ----------------------------------------

    def _where(self) -> tuple[int | None, str | None]:
        span = self.interpreter.current_span
        if span is self._where_span:
            return self._where_last
        where = self._span_text(span)
        self._where_span, self._where_last = span, where
        return where

    def _span_text(self, span: Any) -> tuple[int | None, str | None]:
        if span is None:
            return None, None
        text = None
        if span.end_line == span.line:
            line = self.interpreter.source.line_text(span.line)
            text = line[span.column - 1: span.end_column - 1].strip() or None
        return span.line, text

    def made(self, value: Any, span: Any = None) -> None:
        """An expression evaluated to `value`: a tensor met for the first time is labelled
        with that expression (`x > 0` inside `torch.where(x > 0, x, -x)`), even when no
        recorded op made it."""
        if isinstance(value, Tensor) and self._scripted():
            self.tensor(value, span)

    def _scripted(self) -> bool:
        """Whether what runs now is the script's own computation: not the arithmetic of a
        backward call that records nothing (holding its tensors would also keep the engine
        from reusing a gradient buffer, as torch does when nothing else refers to it)."""
        if HOOKS.running:  # a saved_tensors_hooks hook's own work (see engine/saved_hooks)
            return False
        return self._current is None or self._current.create_graph

    # -- identities --------------------------------------------------------

    def _origin(self, span: Any = None) -> tuple[int | None, str | None]:
        """The line and source text a new record gets: the backward call's line (and no
        text) for what a node's backward makes, else the expression being evaluated."""
        if self._applying is not None:
            return self.backward_calls[self._applying[0] - 1].line, None
        if span is not None:
            return self._span_text(span)
        return self._where()

    def tensor(self, t: Tensor, span: Any = None) -> TensorRecord:
        record = self._live.get(id(t))
        if record is None or record.tensor is not t:
            line, text = self._origin(span)
            record = TensorRecord(len(self.tensors) + 1, t, line, text, made_by=self._applying,
                                  library=self.interpreter.in_library)
            counter = t._version_counter
            known = self._counters.get(id(counter))
            if known is None or known[1] is not counter:
                known = self._counters[id(counter)] = (len(self._counters) + 1, counter)
            record.counter = known[0]
            self.tensors[record.id] = record
            if self._module_calls:
                self._tensor_modules[record.id] = self._module_calls[-1]
            self._live[id(t)] = record
            if len(self._live) >= self._let_go_at:
                self._let_go()
        return record

    def record_of(self, t: Any) -> TensorRecord | None:
        """The record of a live tensor the trace met, or None."""
        record = self._live.get(id(t))
        return record if record is not None and record.tensor is t else None

    def _let_go(self) -> None:
        """Drop the tensors only the trace still holds: their records keep how they ended.

        Nothing else can reach such a tensor, so its state is final; keeping it would keep
        every intermediate of a long run alive. (Reference counts: only the record's own
        reference and getrefcount's argument are left.)
        """
        alone = self._alone
        live = {}
        for key, record in self._live.items():
            if sys.getrefcount(record.tensor) <= alone:
                record.tensor = TensorState(record.tensor)
            else:
                live[key] = record
        self._live = live
        self._let_go_at = 2 * len(live) + self.LET_GO_EVERY

    def node(self, n: Node) -> NodeRecord:
        record = self.nodes.get(id(n))
        if record is None or record.node is not n:
            line, text = self._origin()
            record = NodeRecord(len(self.nodes) + 1, n, line, text, made_by=self._applying)
            self.nodes[id(n)] = record
            if self._module_calls and not isinstance(n, AccumulateGrad):
                self._node_modules[record.id] = self._module_calls[-1]
            if isinstance(n, AccumulateGrad):
                record.outputs.append(self.tensor(n.variable).id)
                record.line, record.expression = self.tensor(n.variable).line, None
        return record

    def node_id(self, n: Node | None) -> int | None:
        return None if n is None else self.node(n).id

    def bind(self, name: str, value: Any, frame: Any = None, span: Any = None) -> None:
        """The interpreter bound a script name to a value (in `frame`: None is the module's;
        `span` is the name's place in the statement: a call in the statement, like a hook
        run by a backward, may have moved the interpreter's current span elsewhere).
        An instance bound to a module-level name binds the tensors it holds by their paths
        (`model = Net()` names `self.w` `model.w` from that line on)."""
        if HOOKS.running:
            return
        local = frame is not None and frame is not self.interpreter.globals
        if self._script_lines is not None and isinstance(value, Tensor):
            self._script_ran(value, name, span)
        if type(value) is Instance and not local:
            for path, tensor in script_tensors({name: value}):
                self.bind(path, tensor, frame, span)
        elif isinstance(value, Tensor):
            record = self.tensor(value)
            if name not in record.names:
                record.names.append(name)
            line = span.line if span is not None else self._where()[0]
            self.events.append(Event("bind", line, {
                "name": name, "tensor": record.id, "value": keep(value.array),
                "requires_grad": value.requires_grad, "is_leaf": value.is_leaf,
                "local": local}))

    # -- engine events (`events.emit` calls `on_<kind>`) --------------------------

    def _event(self, kind: str, **facts: Any) -> None:
        if self._applying is not None or kind in ("hook", "retain_grad", "backward_end"):
            # the engine's own work: the backward call's line, not the line a hook ran last
            call = self._current or (self.backward_calls[-1] if self.backward_calls else None)
            line = call.line if call is not None else None
        else:
            span = self.interpreter.current_span
            line = None if span is None else span.line
        self.events.append(Event(kind, line, facts))

    def on_op(self, node: Node | None, name: str, inputs: tuple, outputs: list[Tensor]) -> None:
        if self._script_lines is not None and outputs:
            self._script_ran(outputs[-1])
        if not self._scripted():
            return  # the arithmetic inside a backward step, not the script's
        input_ids = [None if t is None else self.tensor(t).id for t in inputs]
        output_ids = [self.tensor(t).id for t in outputs]
        node_id = None
        if node is not None:
            record = self.node(node)
            record.outputs = output_ids
            record.inputs = input_ids
            for key, saved in (node.saved or {}).items():
                tensor_id = None
                if saved is not None:
                    source = saved.tensor
                    if saved.is_output:  # the output itself (a custom Function's output_nr
                        # also counts its non-tensor outputs)
                        source = next((o for o in outputs if o.grad_fn is node
                                       and o.output_nr == saved.output_nr), source)
                    known = self.record_of(source) is not None
                    saved_record = self.tensor(source)
                    if not known:
                        saved_record.saved_as = (record.id, key)
                    tensor_id = saved_record.id
                record.saved.append(SavedRecord(
                    key, tensor_id, saved.version if saved is not None else 0,
                    bool(saved and saved.is_output), keep_tensor(saved and saved.tensor),
                    hook_names(saved)))
            if node.saved:
                self._index_saved(record)
            for nxt, _ in node.next_functions:
                if nxt is not None:
                    self.node(nxt)
            node_id = record.id
        self._event("op", name=name, node=node_id, inputs=input_ids, outputs=output_ids,
                    values=[keep(t.array) for t in outputs])
        if self.interpreter.in_library:  # a bundled library module's own code did it
            self.events[-1].facts["library"] = True

    def on_inplace(self, tensor: Tensor, version: int, node: Node | None, name: str) -> None:
        record = self.tensor(tensor)
        if node is not None and tensor.grad_fn is node:
            # the op ran on temporaries; the tensor changed in place is the node's output
            node_record = self.node(node)
            while len(node_record.outputs) <= tensor.output_nr:
                node_record.outputs.append(record.id)
            node_record.outputs[tensor.output_nr] = record.id
        base = tensor._base
        if node is not None and base is not None and isinstance(base.grad_fn, CopySlices) \
                and base.grad_fn.fn is node:
            # the engine gives the view's base this new grad_fn without an op event: file it
            # now, with the line that made it, not when a later op first uses the base
            self.node(base.grad_fn).outputs = [self.tensor(base).id]
        if node is not None and node.saved:
            node_record = self.nodes.get(id(node))
            if node_record is not None and node_record.node is node:
                self._index_saved(node_record)  # a saved output now lives in `tensor`
        hazards = self._shared_storage_hazards(tensor)
        if self._stepping[0]:
            self._stepping[3] += 1
        self._event("inplace", tensor=record.id, name=name, version=version,
                    node=self.node_id(node), hazards=hazards, value=keep(tensor.array))
        if self.interpreter.in_library:
            self.events[-1].facts["library"] = True
            if self._update is not None and self._update["param"] is tensor:
                self.events[-1].facts["update"] = True  # one of the ops of a declared update

    def _index_saved(self, record: NodeRecord) -> None:
        """File a node's saved tensors under the memory they live in (again, if filed)."""
        self._unindex_saved(record)
        storages = []
        for position, (key, saved) in enumerate((record.node.saved or {}).items()):
            if saved is None:
                continue
            storage = _storage(saved.tensor.array)
            self._saved_by_storage.setdefault(storage, []).append((record, key, position))
            if storage not in storages:
                storages.append(storage)
        if storages:
            self._storages_of[record.id] = storages
            self._indexed[record.id] = record

    def _unindex_saved(self, record: NodeRecord) -> None:
        self._indexed.pop(record.id, None)
        for storage in self._storages_of.pop(record.id, ()):
            entries = self._saved_by_storage.get(storage)
            if entries is None:
                continue
            entries[:] = [e for e in entries if e[0] is not record]
            if not entries:
                del self._saved_by_storage[storage]

    def _shared_storage_hazards(self, tensor: Tensor) -> list[dict[str, Any]]:
        """Saved tensors that share `tensor`'s storage but not its version counter.

        Changing them in place is invisible to backward's version check (the `.data`
        trap): the gradient will silently use the new values. Only the saved tensors
        filed under the same memory are looked at.
        """
        entries = self._saved_by_storage.get(_storage(tensor.array))
        if not entries:
            return []
        found = []
        for record, key, _ in sorted(entries, key=lambda e: (e[0].id, e[2])):
            node = record.node
            if not node.saved or node.released:
                continue
            saved = node.saved.get(key)
            if saved is None:
                continue
            other = saved.tensor
            if other._version_counter is tensor._version_counter:
                continue
            if np.shares_memory(other.array, tensor.array):
                found.append({"node": record.id, "saved": key,
                              "tensor": self.tensor(other).id})
        return found

    def on_grad_mode(self, enabled: bool, function: str | None = None,
                     inference: bool = False) -> None:
        if self._current is not None:
            return
        self._event("grad_mode", enabled=enabled, function=function)
        if inference:
            self.events[-1].facts["inference"] = True
        if self.interpreter.in_library:  # e.g. an optimizer's step() runs under no_grad
            self.events[-1].facts["library"] = True

    def on_data_write(self, tensor: Tensor) -> None:
        # the tensor now lives in other memory: file the nodes that saved it again
        for record in list(self._indexed.values()):
            saved = record.node.saved
            if saved and any(s is not None and s.tensor is tensor for s in saved.values()):
                self._index_saved(record)
        self._event("data_write", tensor=self.tensor(tensor).id, value=keep(tensor.array))

    def on_backward_begin(self, roots: list, grads: list[Tensor], retain_graph: bool,
                          create_graph: bool, accumulate: bool) -> None:
        line, _ = self._where()
        call = BackwardCall(
            len(self.backward_calls) + 1, line,
            [(self.node_id(n), nr) for n, nr in roots], [keep(g.array) for g in grads],
            retain_graph, create_graph, accumulate)
        self.backward_calls.append(call)
        self._current = call
        self._steps_by_node = {}
        self._exception_before = sys.exc_info()[1]
        self._event("backward_begin", call=call.index)

    def on_node_begin(self, node: Node) -> None:
        call = self._current
        if call is not None and call.create_graph:
            self._applying = (call.index, self.node(node).id)
        if call is not None and isinstance(node, FunctionCtx) and id(node) not in \
                self._steps_by_node:  # (not again when it hands its gradients on)
            self._script_lines = []

    def on_node_end(self, node: Node) -> None:
        self._applying = None
        self._script_lines = None

    def _script_ran(self, tensor: Tensor, name: str | None = None, span: Any = None) -> None:
        """A custom Function's backward made `tensor` (or bound it to `name`) on the line
        running now: note the line (each run of it once, in order, at most SCRIPT_LINES), the
        last tensor it made and the names it bound (at most SCRIPT_NAMES)."""
        if self.interpreter.in_library:
            return
        span = span or self.interpreter.current_span
        if span is None:
            return
        lines = self._script_lines
        if not lines or lines[-1]["line"] != span.line:
            if len(lines) >= SCRIPT_LINES:
                return
            lines.append({"line": span.line, "result": None, "names": {},
                          "code": self.interpreter.source.line_text(span.line).strip()})
        entry = lines[-1]
        if name is None:
            entry["result"] = keep(tensor.array)
        elif len(entry["names"]) < SCRIPT_NAMES:
            entry["names"][name] = keep(tensor.array)

    def _step(self, node: Node, received: list) -> BackwardStep:
        self._applying = None
        call = self._current
        assert call is not None
        step = BackwardStep(len(call.steps) + 1, self.node(node).id, received, [],
                            event_index=len(self.events))
        call.steps.append(step)
        self._steps_by_node[id(node)] = step
        return step

    def on_node(self, node: Node, grad_outputs: list, grad_inputs: list) -> None:
        # every gradient is kept as it is now: the engine may add into it in place later
        script, self._script_lines = self._script_lines, None
        step = self._step(node, [None if g is None else keep(g.array) for g in grad_outputs])
        step.script = script
        if node.saved and not node.released:
            step.saved = {key: None if saved is None else keep(saved.tensor.array)
                          for key, saved in node.saved.items()}
        sent = step.sent
        for i, ((nxt, nr), g) in enumerate(zip(node.next_functions, grad_inputs, strict=False)):
            sent.append(GradFlow(i, self.node_id(nxt), nr, None if g is None else keep(g.array)))

    def on_accumulate(self, node: AccumulateGrad, grad: Tensor, before: Tensor | None) -> None:
        received = None if grad is None else keep(grad.array)
        step = self._step(node, [received])
        after = node.variable.grad
        if after is None:
            kept_after = None
        elif grad is not None and after.array is grad.array:
            kept_after = received  # .grad is the incoming gradient itself (stolen)
        else:
            kept_after = keep(after.array)
        step.accumulated = (self.tensor(node.variable).id, keep_tensor(before), kept_after)

    def on_retain_grad(self, tensor: Tensor, grad: Tensor) -> None:
        self._event("retain_grad", tensor=self.tensor(tensor).id, grad=keep_tensor(grad))

    def on_hook(self, node: Node, output_nr: int, hook: Any, grad: Tensor, result: Any) -> None:
        self._event("hook", node=self.node(node).id, output_nr=output_nr,
                    replaced=result is not None, grad=keep_tensor(grad),
                    result=keep_tensor(result) if isinstance(result, Tensor) else None)

    def on_release(self, node: Node) -> None:
        step = self._steps_by_node.get(id(node))
        if step is not None:
            step.released = True
        record = self.nodes.get(id(node))
        if record is not None and record.node is node:
            self._unindex_saved(record)

    def on_backward_end(self) -> None:
        # the engine emits this in a `finally`: an exception in flight means backward raised
        exc = sys.exc_info()[1]
        self._applying = None
        self._script_lines = None  # a custom backward that raised never reached node_end
        if self._current is not None and exc is not None and exc is not self._exception_before:
            call = self._current
            call.error_type = getattr(exc, "kind", type(exc).__name__)
            call.error_message = getattr(exc, "message", str(exc))
            call.error = f"{call.error_type}: {call.error_message}"
            call.stale = self._stale_saved(call)
        self._current = None
        self._event("backward_end", call=len(self.backward_calls))

    def _stale_saved(self, call: BackwardCall) -> list[dict[str, Any]]:
        """Saved tensors of this call's graph whose version moved on since they were saved."""
        by_node = {id(r.node): r for r in self.nodes.values()}
        stack = [r.node for r in self.nodes.values() if r.id in {n for n, _ in call.roots}]
        seen: set[int] = set()
        found = []
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            record = by_node.get(id(node))
            for key, saved in (node.saved or {}).items():
                if saved is None or saved.packed is not None or \
                        saved.tensor._version_counter.value == saved.version:
                    continue  # (versions are not checked through saved_tensors_hooks)
                tensor_id = next((s.tensor_id for s in record.saved if s.name == key), None) \
                    if record is not None else None
                found.append({"node": record.id if record is not None else None, "saved": key,
                              "tensor": tensor_id, "saved_version": saved.version,
                              "version": saved.tensor._version_counter.value})
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return found

    # -- what bundled library modules declare (interpreter/library.py's intrinsics) ---
    #
    # - ``optimizer_step``: optimizer (its class name), phase ("begin" or "end"), and at the
    #   end `updated`, how many parameter updates it declared (a step inside a step is one),
    #   and `changed`, how many in-place changes of any tensor it made.
    # - ``param_update``: tensor, optimizer, rule (a formula: `{param}`/`{grad}` stand for
    #   the tensor and its gradient), numbers (the hyper-parameters it used), grad, before,
    #   after (the values), version_before, version. The in-place events of the update
    #   itself carry `update: True`.

    def optimizer_step(self, optimizer: Any, begin: bool) -> None:
        step = self._stepping
        name = optimizer.cls.name if type(optimizer) is Instance else type(optimizer).__name__
        if begin:
            step[0] += 1
            if step[0] == 1:
                step[1], step[2], step[3] = name, 0, 0
                self._event("optimizer_step", optimizer=name, phase="begin")
            return
        step[0] -= 1
        if step[0] == 0:
            self._update = None
            self._event("optimizer_step", optimizer=step[1], phase="end", updated=step[2],
                        changed=step[3])

    def update_begin(self, param: Tensor, grad: Tensor | None, rule: str,
                     numbers: dict[str, Any]) -> None:
        self._update = {
            "param": param, "rule": rule, "grad": keep_tensor(grad),
            "numbers": {k: v.tolist() if isinstance(v, Tensor) else v
                        for k, v in numbers.items()},
            "before": keep(param.array), "version_before": param._version}

    def update_end(self, param: Tensor) -> None:
        update, self._update = self._update, None
        if update is None or update["param"] is not param:
            return
        self._stepping[2] += 1
        self._event("param_update", tensor=self.tensor(param).id, optimizer=self._stepping[1],
                    rule=update["rule"], numbers=update["numbers"], grad=update["grad"],
                    before=update["before"], after=keep(param.array),
                    version_before=update["version_before"], version=param._version)

    # -- what the script did to tensors outside the engine's ops ------------------
    #
    # The engine does not see a script call `detach()`, read `.grad` of a non-leaf, set
    # `requires_grad`, or catch an error. While attached, the tracer wraps four of the
    # interpreter's methods on the instance (restored on exit) and records:
    #
    # - ``method``: tensor, method (one of WATCHED_METHODS), result (tensor id or None),
    #   requires_grad_before, error ({"kind", "message"} or None).
    # - ``attr_read``: tensor, attr ("grad" or "data"), result (tensor id or None), is_leaf,
    #   retains_grad.
    # - ``attr_write``: tensor, attr ("grad" or "requires_grad"), value (tensor id, bool or
    #   None), error.
    # - ``caught``: kind, message of an error a script's `except` caught; its line is where
    #   the error was raised, `handler_line` the except clause's.

    WATCHED_METHODS = frozenset({"backward", "detach", "detach_", "requires_grad_",
                                 "retain_grad", "register_hook"})

    def call(self, invoke: Any, fn: Any, args: list[Any], kwargs: dict[str, Any],
             span: Any) -> Any:
        """The interpreter calls a function: record the autograd-relevant tensor methods."""
        if HOOKS.running or not (isinstance(fn, BoundMethod) and isinstance(fn.obj, Tensor)
                                 and fn.name in self.WATCHED_METHODS):
            result = invoke(fn, args, kwargs, span)
            if isinstance(result, Tensor) and self._scripted():
                self.tensor(result, span)
            return result
        tensor = fn.obj
        facts = {"tensor": self.tensor(tensor).id, "method": fn.name,
                 "requires_grad_before": tensor.requires_grad, "result": None,
                 "error": None}
        try:
            result = invoke(fn, args, kwargs, span)
        except GradtraceError as err:
            facts["error"] = {"kind": err.kind, "message": err.message}
            self._event("method", **facts)
            raise
        if isinstance(result, Tensor):
            facts["result"] = self.tensor(result, span).id
        facts["requires_grad_after"] = tensor.requires_grad
        if self.interpreter.in_library:
            facts["library"] = True
        self._event("method", **facts)
        return result

    def attribute_read(self, obj: Any, name: str, result: Any) -> None:
        if isinstance(obj, Tensor) and name in ("grad", "data"):
            self._event("attr_read", tensor=self.tensor(obj).id, attr=name,
                        result=self.tensor(result).id if isinstance(result, Tensor)
                        else None, is_leaf=obj.is_leaf, retains_grad=obj.retains_grad)
            if self.interpreter.in_library:
                self.events[-1].facts["library"] = True

    def attribute_write(self, assign: Any, obj: Any, name: str, value: Any) -> None:
        if not (isinstance(obj, Tensor) and name in ("grad", "requires_grad")):
            assign(obj, name, value)
            return
        shown = self.tensor(value).id if isinstance(value, Tensor) else (
            value if isinstance(value, bool) or value is None else repr(value))
        facts = {"tensor": self.tensor(obj).id, "attr": name, "value": shown, "error": None}
        if self.interpreter.in_library:
            facts["library"] = True
        try:
            assign(obj, name, value)
        except GradtraceError as err:
            facts["error"] = {"kind": err.kind, "message": err.message}
            self._event("attr_write", **facts)
            raise
        self._event("attr_write", **facts)

    def caught(self, err: Any, span: Any) -> None:
        """A script's `except` caught `err` (its line is where it was raised)."""
        line = err.span.line if err.span is not None else None
        self.events.append(Event("caught", line, {
            "kind": err.kind, "message": err.message,
            "handler_line": span.line if span is not None else None}))

    # -- nn.Module calls ------------------------------------------------------

    def module_call(self, module: Instance, invoke: Any, forward: Any, args: tuple,
                    kwargs: dict[str, Any]) -> Any:
        """`module`'s forward runs (nn.Module.__call__): what it records belongs to it.
        A `module_call` event says so (its `module` path is filled in when the run ends)."""
        self._event("module_call", type=type_name(module), depth=len(self._module_calls),
                    module=None)
        self._module_events.append((self.events[-1], module))
        self._module_calls.append(module)
        try:
            return invoke(forward, args, kwargs, None)
        finally:
            self._module_calls.pop()

    def _name_modules(self) -> None:
        """Give records their module's path from a script name (`model.0`): what a module
        call recorded, and each parameter and buffer (and its AccumulateGrad node)."""
        modules = script_modules(self.interpreter.globals.vars)
        paths = {id(module): path for path, module in modules}
        nodes = {record.id: record for record in self.nodes.values()}
        for records, found in ((self.tensors, self._tensor_modules),
                               (nodes, self._node_modules)):
            for rid, module in found.items():
                records[rid].module = paths.get(id(module))
        for event, module in self._module_events:
            event.facts["module"] = paths.get(id(module))
        owners: dict[int, tuple[Tensor, str]] = {}
        for path, module in modules:
            for table in _module_tables(module)[:2]:  # type: ignore[index] (a module)
                for value in table.values():
                    if isinstance(value, Tensor):
                        owners.setdefault(id(value), (value, path))
        for record in self.tensors.values():
            owner = owners.get(id(record.tensor))
            if owner is not None and owner[0] is record.tensor:
                record.module = owner[1]
        for record in nodes.values():
            if isinstance(record.node, AccumulateGrad) and record.outputs:
                record.module = self.tensors[record.outputs[0]].module

    # -- the end state -------------------------------------------------------

    def named_tensors(self) -> list[tuple[str, TensorRecord]]:
        """(name, tensor) for the tensors the script's top-level names hold at the end
        (`script_tensors`)."""
        out = []
        for name, value in script_tensors(self.interpreter.globals.vars):
            record = self.tensor(value)
            if name not in record.names:
                record.names.append(name)
            out.append((name, record))
        return out


SCRIPT_LINES = 12  # lines of a custom Function's backward a backward step keeps
SCRIPT_NAMES = 4  # names bound on one such line it keeps
ATTRIBUTE_DEPTH = 3  # `a.b.c`: how deep script_tensors looks into instances
MODULE_DEPTH = 12  # how deep it looks into nn.Module trees (`model.encoder.layers.0.fc`)
_MODULE_TABLES = ("_parameters", "_buffers", "_modules")


def _module_tables(obj: Instance) -> tuple[dict, dict, dict] | None:
    """An nn.Module's parameters, buffers and submodules (torch's registration dicts), or
    None for another instance."""
    tables = tuple(obj.attrs.get(name) for name in _MODULE_TABLES)
    return tables if all(type(t) is dict for t in tables) else None  # type: ignore[return-value]


def script_modules(variables: dict[str, Any]) -> list[tuple[str, Instance]]:
    """The nn.Modules a script's top-level names reach, by path (`model`, `model.0`),
    each once (its first path), in torch's named_modules order."""
    out: list[tuple[str, Instance]] = []
    seen: set[int] = set()

    def walk(path: str, module: Instance, depth: int) -> None:
        seen.add(id(module))
        out.append((path, module))
        if depth >= MODULE_DEPTH:
            return
        tables = _module_tables(module)
        assert tables is not None  # only modules are walked
        for name, child in tables[2].items():
            if type(child) is Instance and id(child) not in seen and _module_tables(child):
                walk(f"{path}.{name}", child, depth + 1)

    for name, value in variables.items():
        if type(value) is Instance and id(value) not in seen and _module_tables(value):
            walk(name, value, 1)
    return out


def script_tensors(variables: dict[str, Any]) -> list[tuple[str, Tensor]]:
    """The tensors a script's top-level names hold, in binding order: bound directly, or
    as public attributes of instances, named by the path to them (`model.w`,
    `model.layer.b`); an nn.Module's parameters and buffers by their module path, in
    named_parameters order (`model.0.weight`, as torchviz names them from
    `dict(model.named_parameters())`). Library modules' names are never among them."""
    out: list[tuple[str, Tensor]] = []
    seen: set[int] = set()

    def walk(prefix: str, obj: Instance, depth: int) -> None:
        tables = _module_tables(obj)
        if tables is not None:
            for table in tables[:2]:
                for name, value in table.items():
                    if isinstance(value, Tensor):
                        out.append((f"{prefix}.{name}", value))
        for attr, value in obj.attrs.items():
            if attr.startswith("_"):
                continue
            name = f"{prefix}.{attr}"
            if isinstance(value, Tensor):
                out.append((name, value))
            elif type(value) is Instance and depth < ATTRIBUTE_DEPTH and id(value) not in seen:
                seen.add(id(value))
                walk(name, value, depth + 1)
        if tables is not None and depth < MODULE_DEPTH:
            for name, child in tables[2].items():
                if type(child) is Instance and id(child) not in seen:
                    seen.add(id(child))
                    walk(f"{prefix}.{name}", child, depth + 1)

    for name, value in variables.items():
        if isinstance(value, Tensor):
            out.append((name, value))
        elif type(value) is Instance and id(value) not in seen:
            seen.add(id(value))
            walk(name, value, 1)
    return out
