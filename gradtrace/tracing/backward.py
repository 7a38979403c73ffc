"""The tracer's record of backward calls: each node's step (the gradients it received and
sent, accumulations into leaves, freed saved tensors, a custom Function's script lines),
and the saved tensors a failed call found changed in place."""
from __future__ import annotations

import sys
from typing import Any

from ..engine.custom_function import FunctionCtx
from ..engine.node import AccumulateGrad, Node, reachable_nodes
from ..engine.tensor import Tensor
from ..summary import keep, keep_tensor
from .records import BackwardCall, BackwardStep, GradFlow

SCRIPT_LINES = 12  # lines of a custom Function's backward a backward step keeps
SCRIPT_NAMES = 4  # names bound on one such line it keeps


class BackwardRecorder:
    """Tracer part: the engine's backward events (`on_backward_begin` ... `on_backward_end`)."""

    __slots__ = ()

    def on_backward_begin(self, roots: list, grads: list[Tensor], retain_graph: bool,
                          create_graph: bool, accumulate: bool) -> None:
        line, _ = self._where()
        if self._current is not None:  # a backward inside a node's backward: resumed after
            self._outer_calls.append((self._current, self._steps_by_node,
                                      self._exception_before))
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
                          "code": self.interpreter.source.code_text(span.line)})
        entry = lines[-1]
        if name is None:
            entry["result"] = self._value(tensor.array)
        elif len(entry["names"]) < SCRIPT_NAMES:
            entry["names"][name] = self._value(tensor.array)

    def _step(self, node: Node, received: list) -> BackwardStep:
        self._applying = None
        call = self._current
        assert call is not None
        known = self.nodes.get(id(node))  # (`node()`'s known record, inline)
        if known is None or known.node is not node:
            known = self.node(node)
        # (every field by position: a keyword call costs about twice as much)
        step = BackwardStep(len(call.steps) + 1, known.id, received, [], None, False, {},
                            len(self.events))
        call.steps.append(step)
        self._steps_by_node[id(node)] = step
        return step

    def on_node(self, node: Node, grad_outputs: list, grad_inputs: list) -> None:
        # every gradient is kept as it is now: the engine may add into it in place later
        script, self._script_lines = self._script_lines, None
        step = self._step(node, [None if g is None else keep(g.array) for g in grad_outputs])
        step.script = script
        if node.saved and not node.released and self._value is keep:
            step.saved = {key: None if saved is None else keep(saved.tensor.array)
                          for key, saved in node.saved.items()}
        sent = step.sent
        nodes = self.nodes
        for i, ((nxt, nr), g) in enumerate(zip(node.next_functions, grad_inputs, strict=False)):
            if nxt is None:
                nxt_id = None
            else:  # (`node_id`, with the known record looked up inline)
                known = nodes.get(id(nxt))
                nxt_id = known.id if known is not None and known.node is nxt \
                    else self.node(nxt).id
            sent.append(GradFlow(i, nxt_id, nr, None if g is None else keep(g.array)))

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
        index = self._current.index if self._current is not None else len(self.backward_calls)
        self._current = None
        if self._outer_calls:  # back in the backward this one ran inside
            self._current, self._steps_by_node, self._exception_before = \
                self._outer_calls.pop()
        self._event("backward_end", call=index)

    def _stale_saved(self, call: BackwardCall) -> list[dict[str, Any]]:
        """Saved tensors of this call's graph whose version moved on since they were saved."""
        by_node = {id(r.node): r for r in self.nodes.values()}
        roots = {n for n, _ in call.roots}
        found = []
        for node in reachable_nodes(r.node for r in self.nodes.values() if r.id in roots
                                    ).values():
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
