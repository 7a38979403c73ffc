"""Telling one backward call: where it starts, each node's chain rule, what it left.

Each edge is told with the op's formula for that input (the chain rule written out with
the values the node used), and when the input was broadcast, the sum over the broadcast
dimensions that brings the gradient back to its shape.
"""
from __future__ import annotations

import re
from collections import ChainMap, defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine.custom_function import FunctionCtx
from ...engine.formulas import UNDEFINED, input_name
from ...engine.node import AccumulateGrad
from ...summary import Summary, same_values
from .derivation import LOCAL, chain, formulas_of, summed_dims
from .model import MAX_TOLD_EDGES, Step
from .numbers import as_dtype, close, fmt_shape, fmt_value, total

if TYPE_CHECKING:
    from .errors import ErrorTeller
    from .story import Story, Visit

_OPERAND = re.compile(r"{(\w+)}")


class BackwardTeller:
    def __init__(self, story: Story, errors: ErrorTeller):
        self.s = story
        self.errors = errors
        s = story
        first_use: dict[int, int] = {}
        for record in s.nodes.values():
            created = s.node_created.get(record.id)
            if created is not None:
                for tid in record.inputs:
                    if tid is not None and created < first_use.get(tid, 1 << 62):
                        first_use[tid] = created
        self.node_order = sorted(s.node_created.items(), key=lambda item: item[1])
        self.leaf_order = sorted(
            ((r.id, r.outputs[0], first_use[r.outputs[0]]) for r in s.nodes.values()
             if isinstance(r.node, AccumulateGrad) and r.outputs and r.outputs[0] in first_use),
            key=lambda item: item[2])
        self.pending_nodes: dict[int, None] = {}
        self.pending_leaves: dict[int, int] = {}  # AccumulateGrad id -> tensor id
        self.node_cursor = self.leaf_cursor = 0

    def root_label(self, nid: int | None, nr: int) -> str:
        s = self.s
        if nid is None:
            return "None"
        record = s.nodes[nid]
        if nr < len(record.outputs):
            return s.label(record.outputs[nr])
        return s.node_ref(nid)

    def tell(self, visit: Visit) -> list[Step]:
        s = self.s
        call = visit.call
        steps: list[Step] = []
        line = visit.line
        contributions: dict[tuple[int, int], list[Any]] = defaultdict(list)
        s.at = {"call": call.index, "step": 0}
        for (nid, nr), grad in zip(call.roots, call.root_grads, strict=False):
            if nid is not None:
                contributions[(nid, nr)].append(grad)
            if s.muted(steps):
                continue
            if not call.accumulate:
                kind = "backward.start.grad"
            elif grad is not None and grad.size == 1 and not isinstance(grad, Summary) \
                    and float(grad.reshape(-1)[0]) == 1.0:
                kind = "backward.start.scalar"
            else:
                kind = "backward.start.given"
            s.say(steps, kind, line, root=self.root_label(nid, nr), grad=grad,
                  shape=fmt_shape(grad.shape) if grad is not None else "[]")
        items: list[tuple[tuple[int, int, int], str, Any]] = []
        for step in call.steps:
            items.append(((step.event_index, 0, step.index), "step", step))
        end_events = []
        for idx, ev in visit.events:
            if ev.kind in ("method", "caught"):
                end_events.append((idx, ev))
            else:
                items.append(((idx, 1, 0), "event", ev))
        items.sort(key=lambda item: item[0])
        if not call.accumulate:
            s.grad_results.update(self.returned_by(call))
        released: list[int] = []
        recorded = 0
        for told, ((idx, _, _), what, obj) in enumerate(items):
            if not told % 4096:
                s.check_time()
            s.at = {"call": call.index, "step": obj.index} if what == "step" else {
                "event": idx}
            if what == "step":
                s.executed.add(obj.node_id)
                if obj.released:
                    released.append(obj.node_id)
                self.step(steps, call, obj, contributions, line)
            elif obj.kind == "op":  # the backward's own arithmetic (create_graph=True)
                s.produced.update(obj.facts["outputs"])
                recorded += obj.facts.get("node") is not None
            elif obj.kind == "retain_grad":
                s.say(steps, "backward.retain_grad", line,
                      tensor=s.label(obj.facts["tensor"]), grad=obj.facts.get("grad"))
            elif obj.kind == "hook":
                self.hook_fired(steps, obj, line)
        s.released.update(released)
        s.at = {"call": call.index, "step": len(call.steps) + 1}
        if call.create_graph and recorded:
            s.say(steps, "backward.create_graph", line, count=recorded)
        if call.error is None:
            self.unreached(steps, call, visit.begin, line)
            if released:
                if not s.muted(steps):  # (naming the freed nodes is the costly part)
                    s.say(steps, "backward.freed", line,
                          nodes=[s.node_fact(n) for n in released],
                          text={"nodes": s.listed([s.node_ref(n) for n in released])})
            elif call.retain_graph:
                s.say(steps, "backward.retained", line)
            if not call.accumulate:
                s.say(steps, "backward.returned", line)
        else:
            s.say(steps, "backward.failed", line, "error", after=len(call.steps))
        for idx, ev in end_events:
            s.at = {"event": idx}
            if ev.kind == "caught":
                self.errors.error(steps, ev.facts["kind"], ev.facts["message"], ev.line,
                                  visit.events, handler_line=ev.facts["handler_line"])
        return steps

    def returned_by(self, call: Any) -> set[int]:
        """Tensors bound right after an autograd.grad call that no op in the script made."""
        s = self.s
        events = s.trace.events
        found = set()
        depth = 0
        for i in range(s.begin_of[call.index], len(events)):
            ev = events[i]
            if ev.kind == "backward_begin":
                depth += 1
            elif ev.kind == "backward_end":
                depth -= 1
            elif depth == 0:
                if ev.kind != "bind" or s.stmt(ev.line) != s.stmt(call.line):
                    break
                found.add(ev.facts["tensor"])
        return found

    def received_text(self, contributions: dict, key: tuple[int, int], grad: Any) -> str:
        parts = [p for p in contributions.get(key) or [] if p is not None]
        shown = fmt_value(grad)
        summed = None
        if parts:
            try:
                summed = total(parts)
            except (TypeError, ValueError):
                summed = None
        if summed is not None and grad is not None and not close(summed, grad):
            # a hook (or retain_grad's caller) changed the gradient on its way in
            text = " + ".join(fmt_value(p) for p in parts)
            if len(parts) > 1:
                text += " = " + fmt_value(as_dtype(summed, grad.dtype))
            return self.s.t("math.after_hook", received=text, grad=shown)
        if len(parts) > 1:
            return " + ".join(fmt_value(p) for p in parts) + f" = {shown}"
        return shown

    # -- one node --------------------------------------------------------------------------

    def operand_values(self, record: Any, values: dict[str, Any], operands: Mapping[str, str],
                       math: str) -> Mapping[str, str]:
        """Operands for a chain formula: `d (=4.)`, or just the value when the formula
        powers an operand or uses it twice. (`operands`, the node's, are shared by all its
        edges: an op of n inputs has n edges, so each edge only layers its changes.)"""
        s = self.s
        fields: ChainMap[str, str] = ChainMap({}, operands)  # type: ignore[arg-type]
        names = _OPERAND.findall(math)
        bare = "^" in math or "²" in math or "³" in math or len(names) != len(set(names))
        for saved in record.saved:
            value = values.get(saved.name)
            label = s.label(saved.tensor_id) if saved.tensor_id is not None else "None"
            shown = fmt_value(value) if value is not None else None
            if s.is_number(saved.tensor_id):
                fields[saved.name] = label  # a Python number is its own value
            elif shown is not None and bare:
                fields[saved.name] = shown
            elif shown is None or shown == label:
                fields[saved.name] = label
            else:
                fields[saved.name] = s.t("math.operand", label=label, value=shown)
        return fields

    def step(self, steps: list[Step], call: Any, step: Any, contributions: dict,
             line: int | None) -> None:
        s = self.s
        record = s.nodes[step.node_id]
        if s.muted(steps):  # not told: only what may warn
            if step.accumulated is not None:
                s.has_grad.add(step.accumulated[0])
            else:
                self.stale_values(steps, record, step, line)
            return
        if step.accumulated is not None:
            self.accumulated(steps, step, contributions, line)
            return
        node = record.node
        used = {sv.name: sv.value for sv in record.saved}
        used.update({k: v for k, v in step.saved.items() if v is not None})
        outs = [s.label(o) for o in record.outputs]
        if len(step.received) > 1:
            told = step.received[:MAX_TOLD_EDGES]
            pairs = [s.t("math.pair", label=outs[i] if i < len(outs) else str(i),
                         value=self.received_text(contributions, (step.node_id, i), g))
                     for i, g in enumerate(told)]
            grad_text = "(" + ", ".join(fmt_value(g) for g in told) + ")"
            if len(step.received) > MAX_TOLD_EDGES:
                more = s.t("list.more", count=f"{len(step.received) - MAX_TOLD_EDGES:,}")
                pairs.append(more)
                grad_text = grad_text[:-1] + ", …)"
            received = s.t.join(pairs)
        else:
            grad_text = fmt_value(step.received[0]) if step.received else "None"
            received = self.received_text(contributions, (step.node_id, 0),
                                          step.received[0] if step.received else None)
        inputs = s.inputs_of(record)
        chosen = formulas_of(node)
        operands = s.operands(record, inputs)
        places: dict[int, int] = defaultdict(int)
        for (nxt, _), tid in zip(node.next_functions, inputs, strict=False):
            if nxt is not None and tid is not None:
                places[tid] += 1
        edges = []
        sent_facts = []
        for flow in step.sent:
            nxt = node.next_functions[flow.index][0] if flow.index < len(
                node.next_functions) else None
            if nxt is None:
                continue
            if flow.node_id is not None:
                contributions[(flow.node_id, flow.input_nr)].append(flow.grad)
            tid = inputs[flow.index] if flow.index < len(inputs) else None
            formula = chosen[flow.index] if flow.index < len(chosen) else None
            to = s.label(tid) if tid is not None else "?"
            if tid is not None and places[tid] > 1 and formula is not None:
                to = s.t("ref.operand", tensor=to, operand=input_name(formula, flow.index))
            sent_facts.append({"to": s.label(tid) if tid is not None else "?",
                               "grad": flow.grad})
            if len(edges) < MAX_TOLD_EDGES:
                edges.append(self.edge(record, flow, formula, to, grad_text, used, operands))
        if len(sent_facts) > MAX_TOLD_EDGES:  # the facts keep every edge; the text a few
            edges.append(s.t("list.more", count=f"{len(sent_facts) - MAX_TOLD_EDGES:,}"))
        kind = "backward.node" if edges else "backward.node.end"
        extra = {}
        if isinstance(node, FunctionCtx):  # a Python backward ran, not a formula
            function = node.function
            kind = "backward.function" if function.torch_module is None else \
                "backward.function.torch"  # torch's own Function (bundled library code)
            kind = kind if edges else kind + ".end"
            extra["function"] = function.name
            if function.torch_module is not None:
                extra["module"] = function.torch_module
        s.say(steps, kind, line, node=record.name, received=list(step.received),
              sent=sent_facts, text={"node": s.node_ref(record.id), "received": received,
                                     "edges": s.t("list.edges").join(edges)}, **extra)
        if step.script:
            self.script_lines(steps, node.function.name, step.script, line)
        self.stale_values(steps, record, step, line)

    def script_lines(self, steps: list[Step], function: str, lines: list[dict],
                     line: int | None) -> None:
        """The lines of the script's own `backward` that ran in this step, in order, with
        the names they bound and the last tensor each made."""
        s = self.s
        s.say(steps, "backward.function.ran", line, function=function,
              lines=[entry["line"] for entry in lines], count=len(lines))
        for entry in lines:
            made = [f"{name} = {fmt_value(value)}" for name, value in entry["names"].items()]
            if entry["result"] is not None and not made:
                made.append(f"→ {fmt_value(entry['result'])}")
            s.say(steps, "backward.function.line", line, at=entry["line"], code=entry["code"],
                  names=list(entry["names"]), result=entry["result"],
                  text={"made": (": " + ", ".join(made)) if made else ""})

    def edge(self, record: Any, flow: Any, formula: Any, to: str, grad_text: str,
             used: dict[str, Any], node_operands: Mapping[str, str]) -> str:
        """`→ a: 1. × b (=3.) = 3.`; with the sum over broadcast dims when there is one."""
        s = self.s
        if flow.grad is None:
            return s.t("edge.nothing", to=to)
        value = fmt_value(flow.grad)
        if formula is None or formula.kind == UNDEFINED:
            return s.t("edge.plain", to=to, value=value)
        operands = self.operand_values(record, used, node_operands, formula.math)
        text = chain(formula, grad_text, operands)
        if text == value:
            return s.t("edge.plain", to=to, value=value)
        node = record.node
        if formula.kind == LOCAL and node.output_meta and flow.index < len(node.input_meta) \
                and node.input_meta[flow.index] is not None:
            out_shape = tuple(node.output_meta[0][0])
            in_shape = tuple(node.input_meta[flow.index][0])
            dims = summed_dims(out_shape, in_shape)
            if dims:
                return s.t("edge.summed", to=to, formula=text, value=value,
                           dims=s.t.join([str(d) for d in dims]),
                           shape=fmt_shape(in_shape), out_shape=fmt_shape(out_shape))
            if int(np.prod(in_shape)) > int(np.prod(out_shape)):
                return s.t("edge.expanded", to=to, formula=text, value=value,
                           shape=fmt_shape(in_shape))
        return s.t("edge.formula", to=to, formula=text, value=value)

    def accumulated(self, steps: list[Step], step: Any, contributions: dict,
                    line: int | None) -> None:
        s = self.s
        tid, before, after = step.accumulated
        tensor = s.label(tid)
        grad = step.received[0]
        received = self.received_text(contributions, (step.node_id, 0), grad)
        s.has_grad.add(tid)
        if before is None:
            s.say(steps, "backward.accumulate.first", line, tensor=tensor, grad=grad,
                  after=after, text={"received": received})
        else:
            s.say(steps, "backward.accumulate.add", line, tensor=tensor, grad=grad,
                  before=before, after=after, text={"received": received})

    def stale_values(self, steps: list[Step], record: Any, step: Any,
                     line: int | None) -> None:
        """A saved value that changed without a version bump (the `.data` trap)."""
        s = self.s
        done = set()
        for saved in record.saved:
            now = step.saved.get(saved.name)
            if saved.value is None or now is None or saved.tensor_id in done:
                continue
            if same_values(now, saved.value):
                continue
            done.add(saved.tensor_id)
            s.say(steps, "backward.stale_value", line, "warn", node=record.name,
                  tensor=s.label(saved.tensor_id), now=now, then=saved.value,
                  saved_line=record.line, text={"node": s.node_ref(record.id)})

    def hook_fired(self, steps: list[Step], ev: Any, line: int | None) -> None:
        s = self.s
        record = s.nodes.get(ev.facts["node"])
        if record is None:
            return
        nr = ev.facts.get("output_nr", 0)
        tid = record.outputs[nr] if nr < len(record.outputs) else None
        tensor = s.label(tid)
        if ev.facts.get("replaced"):
            s.say(steps, "backward.hook.replaced", line, tensor=tensor,
                  grad=ev.facts.get("grad"), result=ev.facts.get("result"))
        else:
            s.say(steps, "backward.hook.kept", line, tensor=tensor, grad=ev.facts.get("grad"))

    def unreached(self, steps: list[Step], call: Any, begin: int, line: int | None) -> None:
        """Nodes recorded before this call that no backward ran, and leaves left without grad.

        Each is reported once, at the first backward call after it was recorded.
        """
        s = self.s
        root = self.root_label(*call.roots[0]) if call.roots else "?"
        while self.node_cursor < len(self.node_order) and \
                self.node_order[self.node_cursor][1] < begin:
            nid = self.node_order[self.node_cursor][0]
            if not isinstance(s.nodes[nid].node, AccumulateGrad):
                self.pending_nodes[nid] = None
            self.node_cursor += 1
        # the same node made again and again (gradcheck's forward calls, a loop's
        # discarded results) is one sentence with its count, not one per copy
        alike: dict[tuple[str, str], list[int]] = {}
        for nid in list(self.pending_nodes):
            del self.pending_nodes[nid]
            if nid not in s.executed:
                alike.setdefault((s.nodes[nid].name, s.node_ref(nid)), []).append(nid)
        for (name, ref), nids in alike.items():
            node_line = s.nodes[nids[0]].line
            if len(nids) == 1:
                s.say(steps, "backward.unreached", line, node=name, root=root,
                      node_line=node_line, text={"node": ref})
            else:
                s.say(steps, "backward.unreached_alike", line, node=name, root=root,
                      node_line=node_line, count=len(nids), text={"node": ref})
        if not call.accumulate:
            return
        while self.leaf_cursor < len(self.leaf_order) and \
                self.leaf_order[self.leaf_cursor][2] < begin:
            nid, tid, _ = self.leaf_order[self.leaf_cursor]
            self.pending_leaves[nid] = tid
            self.leaf_cursor += 1
        for nid, tid in list(self.pending_leaves.items()):
            del self.pending_leaves[nid]
            if nid in s.executed or tid in s.has_grad or ("grad_none", tid) in s.reported:
                continue
            s.reported.add(("grad_none", tid))
            s.say(steps, "backward.grad_none", line, tensor=s.label(tid), root=root)
