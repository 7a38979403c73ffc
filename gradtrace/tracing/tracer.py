"""Records what a run did, from the engine's events, as plain data for the renderers.

The tracer listens to `engine.events` while a script runs and keeps: every tensor and
node it saw (with the script names bound to them and the line that made them), each
in-place change, grad-mode change and `.data` write, and for each backward call every
step: the gradient a node received, what it sent to each of its next_functions,
accumulations into leaves, and which nodes freed their saved tensors.

Memory stays bounded on long runs: values are kept whole only when small (`summary.keep`:
large ones become a `Summary` of what the views show), and a tensor only the trace still
holds is let go, its record keeping a `TensorState` of how it ended (`Tracer._let_go`).

This module holds the tracer's core (identities, names, forward ops and in-place
changes); its other concerns are parts of the class in their own modules: backward calls
(`backward.py`), saved tensors by storage (`saved_storage.py`) and the script's own
calls (`script_events.py`).
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import events
from ..engine.forward_ad import tangent_of
from ..engine.node import AccumulateGrad, Node, reachable_nodes
from ..engine.ops.view_inplace import CopySlices
from ..engine.saved_hooks import HOOKS, hook_names
from ..engine.tensor import Tensor
from ..interpreter.objects import Instance
from ..summary import keep
from .backward import BackwardRecorder
from .records import (
    BackwardCall,
    BackwardStep,
    Event,
    NodeRecord,
    SavedRecord,
    TensorRecord,
    TensorState,
)
from .saved_storage import SavedStorageIndex
from .script_events import ScriptRecorder
from .script_objects import script_tensors

if TYPE_CHECKING:
    from ..interpreter import Interpreter


def _reference_count_alone() -> int:
    """sys.getrefcount of a record's tensor when nothing but the record holds it."""
    record = TensorRecord(0, Tensor._wrap(np.zeros(1)), None, None)
    return sys.getrefcount(record.tensor)



def _not_kept(array: np.ndarray) -> None:
    """A value no view of this trace reads (`Tracer(values=False)`)."""
    return None


class Tracer(SavedStorageIndex, BackwardRecorder, ScriptRecorder):
    """Subscribes to engine events for one run and builds the trace."""

    # a pass over the live records to let go of dead tensors runs once this many records
    # were added since the last pass (and at least as many as were kept): linear overall
    LET_GO_EVERY = 256

    def __init__(self, interpreter: Interpreter, values: bool = True):
        """`values=False` for a view that reads no values but the gradients and the saved
        tensors of the graph (the report's tables): the values that only explain, the page
        and JSON read are then not kept (events' tensor values, the saved tensors as each
        backward step used them), which is a tenth of what tracing costs a training step."""
        self.interpreter = interpreter
        self._value = keep if values else _not_kept
        self.tensors: dict[int, TensorRecord] = {}  # keyed by record id, in the order met
        self.nodes: dict[int, NodeRecord] = {}  # keyed by id(node)
        self.events: list[Event] = []
        self.backward_calls: list[BackwardCall] = []
        self._current: BackwardCall | None = None
        self._steps_by_node: dict[int, BackwardStep] = {}
        self._script_lines: list[dict[str, Any]] | None = None  # see _script_ran
        self._counters: dict[int, tuple[int, Any]] = {}  # id(version counter) -> (n, counter)
        self._exception_before: BaseException | None = None
        # the backward calls a backward running now interrupted (a reentrant checkpoint's
        # backward inside its node): (call, its steps by node, its exception before)
        self._outer_calls: list[tuple[Any, dict[int, BackwardStep], Any]] = []
        # records whose tensor is alive, by id(tensor); the others hold a TensorState
        self._live: dict[int, TensorRecord] = {}
        self._let_go_at = self.LET_GO_EVERY
        self._alone = _reference_count_alone()
        # saved tensors by the memory they live in, for in-place hazards:
        # storage -> [(node record, saved key, position in node.saved)]
        self._saved_by_storage: dict[int, list[tuple[NodeRecord, str, int]]] = {}
        self._storages_of: dict[int, list[int]] = {}  # node record id -> its storages
        self._indexed: dict[int, NodeRecord] = {}  # node record id -> record, when filed
        self._to_index: dict[int, NodeRecord] = {}  # node record id -> record, to be filed
        self._where_span: Any = None
        self._span_texts: dict[int, tuple[Any, tuple[int | None, str | None]]] = {}
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
        self._module_outputs: list[tuple[TensorRecord, Any]] = []  # (output, module)

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
        known = self._span_texts.get(id(span))
        if known is not None and known[0] is span:
            return known[1]
        where = self._span_text_of(span)
        self._span_texts[id(span)] = (span, where)  # (holding the span: its id stays its)
        return where

    def _span_text_of(self, span: Any) -> tuple[int | None, str | None]:
        text = None
        if span.end_line == span.line:
            line = self.interpreter.source.line_text(span.line)
            text = line[span.column - 1: span.end_column - 1].strip() or None
        return span.line, text

    def made(self, value: Any, span: Any = None) -> None:
        """An expression evaluated to `value`: a tensor met for the first time is labelled
        with that expression (`x > 0` inside `torch.where(x > 0, x, -x)`), even when no
        recorded op made it."""
        if isinstance(value, Tensor) and not HOOKS.running and (
                self._current is None or self._current.create_graph):  # (_scripted)
            record = self._live.get(id(value))
            if record is None or record.tensor is not value:
                self.tensor(value, span)

    def surfaced(self, value: Any) -> None:
        """A bundled library function returned `value` to the script's own code: the
        library-made tensors in it are the value of the script's call, not intermediates."""
        for t in value if type(value) in (tuple, list) else (value,):
            if isinstance(t, Tensor):
                record = self._live.get(id(t))
                if record is not None and record.tensor is t:
                    record.surfaced = True

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
            if self._applying is None and span is None:  # (`_origin`'s usual case, inline)
                span = self.interpreter.current_span
                if span is self._where_span:
                    line, text = self._where_last
                else:
                    line, text = self._where()
            else:
                line, text = self._origin(span)
            counter = t._version_counter
            known = self._counters.get(id(counter))
            if known is None or known[1] is not counter:
                known = self._counters[id(counter)] = (len(self._counters) + 1, counter)
            # (every field by position: a keyword call costs about twice as much)
            record = TensorRecord(len(self.tensors) + 1, t, line, text, [], known[0],
                                  self._applying, None, self.interpreter.in_library)
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

    def program_graph(self) -> dict[int, Node]:
        """The nodes the script itself can still reach (by id), from the tensors something
        besides this trace holds: torch's graph lives that long, while the trace keeps
        every node it recorded (engine/swap.py's use counts ask)."""
        self._let_go()
        return reachable_nodes(r.tensor.grad_fn for r in self._live.values()
                               if isinstance(r.tensor, Tensor))

    def node(self, n: Node) -> NodeRecord:
        record = self.nodes.get(id(n))
        if record is None or record.node is not n:
            line, text = self._origin()
            record = NodeRecord(len(self.nodes) + 1, n, line, text, [], [], [], self._applying)
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
                "name": name, "tensor": record.id,
                "value": keep(value.array) if self._value is keep else None,
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
        if HOOKS.running or not (self._current is None or self._current.create_graph):
            return  # the arithmetic inside a backward step, not the script's (_scripted)
        # (the records of live tensors and known nodes are looked up inline: `tensor()` and
        # `node()` are called for the ones met for the first time, in the same order)
        live = self._live
        input_ids: list[int | None] = []
        for t in inputs:
            if t is None:
                input_ids.append(None)
                continue
            known_record = live.get(id(t))
            if known_record is None or known_record.tensor is not t:
                known_record = self.tensor(t)
            input_ids.append(known_record.id)
        output_ids = []
        for t in outputs:
            known_record = live.get(id(t))
            if known_record is None or known_record.tensor is not t:
                known_record = self.tensor(t)
            output_ids.append(known_record.id)
        node_id = None
        if node is not None:
            record = self.node(node)
            record.outputs = output_ids
            record.inputs = input_ids
            saved_all = node.saved
            if saved_all:
                for key, saved in saved_all.items():
                    if saved is None:
                        record.saved.append(SavedRecord(key, None, 0, False, None, None))
                        continue
                    source = saved.tensor
                    if saved.is_output:  # the output itself (a custom Function's output_nr
                        # also counts its non-tensor outputs)
                        source = next((o for o in outputs if o.grad_fn is node
                                       and o.output_nr == saved.output_nr), source)
                    known_record = live.get(id(source))
                    if known_record is None or known_record.tensor is not source:
                        known_record = self.tensor(source)
                        known_record.saved_as = (record.id, key)
                    record.saved.append(SavedRecord(
                        key, known_record.id, saved.version, bool(saved.is_output),
                        keep(saved.tensor.array),
                        None if saved.packed is None else hook_names(saved)))
                self._index_saved(record)
            nodes = self.nodes
            for nxt, _ in node.next_functions:
                if nxt is not None:
                    known_node = nodes.get(id(nxt))
                    if known_node is None or known_node.node is not nxt:
                        self.node(nxt)
            node_id = record.id
        value = self._value
        facts = {"name": name, "node": node_id, "inputs": input_ids, "outputs": output_ids,
                 "values": [value(t.array) for t in outputs] if value is keep
                 else [None] * len(outputs)}  # (what _not_kept gives, without the calls)
        if self._applying is not None:  # (`_event`'s line, inline: one event an op)
            call = self._current or (self.backward_calls[-1] if self.backward_calls else None)
            line = call.line if call is not None else None
        else:
            span = self.interpreter.current_span
            line = None if span is None else span.line
        self.events.append(Event("op", line, facts))
        for t in outputs:
            if t._fw_grad is not None:  # forward-mode AD: the outputs' tangents
                tangents = [tangent_of(t) for t in outputs]
                if any(t is not None for t in tangents):
                    facts["tangents"] = [None if t is None else value(t.array)
                                         for t in tangents]
                break
        if self.interpreter.in_library:  # a bundled library module's own code did it
            facts["library"] = True

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
                    node=self.node_id(node), hazards=hazards, value=self._value(tensor.array))
        if self.interpreter.in_library:
            self.events[-1].facts["library"] = True
            if self._update is not None and self._update["param"] is tensor:
                self.events[-1].facts["update"] = True  # one of the ops of a declared update


    def on_grad_mode(self, enabled: bool, function: str | None = None,
                     inference: bool = False) -> None:
        if self._current is not None:
            return
        self._event("grad_mode", enabled=enabled, function=function)
        if inference:
            self.events[-1].facts["inference"] = True
        if self.interpreter.in_library:  # e.g. an optimizer's step() runs under no_grad
            self.events[-1].facts["library"] = True

