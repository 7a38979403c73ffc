"""Telling one statement run: names bound, ops recorded, what they saved, in-place changes.

What a recorded node saved, and the local derivatives it will use, are told by
`saved.SavedTeller`; what an in-place change does to tensors saved earlier, by
`versions.VersionTeller`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engine.custom_function import FunctionCtx
from ...engine.node import AccumulateGrad
from ...naming import OLD_NAME
from .model import Step
from .saved import SavedTeller
from .versions import VersionTeller

if TYPE_CHECKING:
    from .errors import ErrorTeller
    from .story import Story, Visit


class StatementTeller:
    def __init__(self, story: Story, errors: ErrorTeller):
        self.s = story
        self.errors = errors
        self.saved = SavedTeller(story)
        self.versions = VersionTeller(story)

    # -- a statement run ------------------------------------------------------------

    def tell(self, visit: Visit) -> list[Step]:
        s = self.s
        steps: list[Step] = []
        events = visit.events
        self.rebind(steps, visit)
        k = 0
        while k < len(events):
            idx, ev = events[k]
            kind, facts, line = ev.kind, ev.facts, ev.line
            s.at = {"event": idx}
            if kind == "op":
                nxt = events[k + 1][1] if k + 1 < len(events) else None
                if nxt is not None and nxt.kind == "inplace" and nxt.facts["name"] == facts["name"]:
                    self.inplace(steps, ev, nxt, events[k + 1][0])
                    k += 2
                    continue
                self.op(steps, ev)
            elif kind == "inplace":
                self.inplace(steps, None, ev, idx)
            elif kind == "bind":
                self.bind(steps, ev)
            elif kind == "grad_mode":
                s.grad_enabled = facts["enabled"]
                function = facts.get("function")  # a custom Function's forward
                if function is not None:
                    s.say(steps, "grad_mode.forward.on" if facts["enabled"] else
                          "grad_mode.forward.off", line, function=function)
                elif not facts.get("library"):  # a library's own no_grad is its business
                    if facts.get("inference"):  # torch.inference_mode() switched it
                        kind = "grad_mode.inference.on" if facts["enabled"] else \
                            "grad_mode.inference.off"
                    else:
                        kind = "grad_mode.on" if facts["enabled"] else "grad_mode.off"
                    s.say(steps, kind, line)
            elif kind == "module_call":
                self.module_call(steps, ev)
            elif kind == "data_write":
                s.say(steps, "data.write", line, "note", tensor=s.label(facts["tensor"]))
            elif kind == "method":
                if not facts.get("library"):
                    self.method(steps, ev)
            elif kind == "attr_read":
                self.attr_read(steps, ev)
            elif kind == "attr_write":
                if _library_grad_clear(ev):  # zero_grad(): said once for all its tensors
                    cleared = [ev]
                    j = k + 1
                    while j < len(events) and (_library_grad_clear(events[j][1]) or (
                            events[j][1].kind == "attr_read"
                            and events[j][1].facts.get("library"))):
                        if events[j][1].kind == "attr_write":
                            cleared.append(events[j][1])
                            k = j
                        j += 1
                    self.grads_cleared(steps, cleared)
                else:
                    self.attr_write(steps, ev)
            elif kind == "param_update":
                self.param_update(steps, ev)
            elif kind == "optimizer_step":
                if facts["phase"] == "end" and not facts["updated"] \
                        and not facts.get("changed"):  # a user's own step() changes freely
                    s.say(steps, "optimizer.no_update", line, "note",
                          optimizer=facts["optimizer"])
            elif kind == "caught":
                self.errors.error(steps, facts["kind"], facts["message"], line, events,
                                  handler_line=facts["handler_line"])
            k += 1
        return steps

    def module_call(self, steps: list[Step], ev: Any) -> None:
        """An nn.Module's forward runs (`model(x)`, and each submodule it calls)."""
        s, facts = self.s, ev.facts
        if s.muted(steps):
            return
        module, depth = facts.get("module"), facts.get("depth", 0)
        if module is None:
            s.say(steps, "module.call.unnamed", ev.line, type=facts["type"])
        else:
            s.say(steps, "module.call.inner" if depth else "module.call", ev.line,
                  module=module, type=facts["type"])

    def rebind(self, steps: list[Step], visit: Visit) -> None:
        """Names this statement binds hold their new tensors from its start, so what it
        makes is called by its name; a tensor a name stops holding is introduced by its
        new name (`x@5`) before anything uses it."""
        s = self.s
        for idx, ev in visit.events:
            if ev.kind != "bind":
                continue
            s.at = {"event": idx}
            name, tid = ev.facts["name"], ev.facts["tensor"]
            old = s.naming.bind(name, tid, ev.line, bool(ev.facts.get("local")))
            if old is not None and old in s.in_graph and s.naming.kind(old) == OLD_NAME:
                s.say(steps, "bind.rebind", ev.line, "note", name=name, old=s.label(old),
                      since=s.naming.introduction(old).line)

    def bind(self, steps: list[Step], ev: Any) -> None:
        s = self.s
        name, tid, line = ev.facts["name"], ev.facts["tensor"], ev.line
        first = tid not in s.bound
        s.bound.add(tid)
        if not first or (tid in s.produced and tid not in s.grad_results):
            return
        s.produced.add(tid)
        value = ev.facts.get("value")
        record = s.tensors[tid]
        if tid in s.grad_results:
            kind = "bind.grad_result" if ev.facts.get("is_leaf") else "bind.grad_result.graph"
            grad_fn = record.tensor.grad_fn
            s.say(steps, kind, line, tensor=name, value=value,
                  node=grad_fn.name() if grad_fn is not None else None)
        elif not ev.facts.get("is_leaf"):
            return
        elif ev.facts.get("requires_grad") and record.module is not None \
                and record.tensor.is_parameter:
            s.say(steps, "leaf.parameter", line, tensor=name, value=value,
                  module=record.module, dtype=str(record.tensor.dtype))
        elif ev.facts.get("requires_grad"):
            s.say(steps, "leaf.requires_grad", line, tensor=name, value=value,
                  dtype=str(record.tensor.dtype))
        else:
            s.say(steps, "leaf.plain", line, tensor=name, value=value,
                  dtype=str(record.tensor.dtype))

    # -- ops --------------------------------------------------------------------------

    def op(self, steps: list[Step], ev: Any) -> None:
        s = self.s
        facts, line = ev.facts, ev.line
        outs, ins = facts["outputs"], facts["inputs"]
        values = facts.get("values") or [None] * len(outs)
        s.produced.update(outs)
        nid = facts["node"]
        if s.muted(steps):  # not told: keep the state, say nothing
            if nid is not None:
                self.versions.index_saved(nid)
                self.next_functions_seen(s.nodes[nid])
                self.results_seen(outs)
            return
        if nid is None and not outs:  # (a custom Function applied to numbers only: no
            return  # tensor came out and nothing was recorded; its forward is told)
        expr = self.expression(outs[0] if outs else None, line)
        if nid is None:
            if facts.get("library"):  # a library module's own bookkeeping: not the story
                s.library_made.update(outs)
                return
            out = ", ".join(s.label(o) for o in outs)
            wanting = [s.label(i) for i in ins
                       if i is not None and s.tensors[i].tensor.requires_grad
                       and not s.is_number(i)]
            if not s.grad_enabled and wanting:
                s.say(steps, "op.unrecorded.mode", line, expr=expr, out=out,
                      value=values[0], inputs=wanting)
            else:
                s.say(steps, "op.unrecorded", line, expr=expr, out=out, value=values[0])
            self.tangent(steps, facts, outs, line)
            return
        record = s.nodes[nid]
        if isinstance(record.node, FunctionCtx) and record.expression:
            expr = record.expression  # the apply call, not the forward's last expression
        self.versions.index_saved(nid)
        out_labels = [s.label(o) for o in outs]
        self.recorded(steps, record, expr, out_labels, line)
        self.next_functions(steps, record, line)
        self.saved.tell(steps, record, out_labels, line)
        self.results(steps, record, outs, values, line)
        self.tangent(steps, facts, outs, line)

    def tangent(self, steps: list[Step], facts: dict, outs: list[int], line: int | None) -> None:
        """Forward-mode AD: the tangent the op gave its (first) output."""
        tangents = facts.get("tangents")
        if tangents and outs and tangents[0] is not None:
            self.s.say(steps, "op.tangent", line, out=self.s.label(outs[0]), value=tangents[0])

    def expression(self, tid: int | None, line: int | None) -> str:
        record = self.s.tensors.get(tid) if tid is not None else None
        expr = record.expression if record is not None and record.expression else None
        return expr or self.s.source.code_text(line or 0)

    def recorded(self, steps: list[Step], record: Any, expr: str, out_labels: list[str],
                 line: int | None) -> None:
        s = self.s
        wanting = []
        for (nxt, _), tid in zip(record.node.next_functions, s.inputs_of(record), strict=False):
            if nxt is not None and tid is not None and s.label(tid) not in wanting:
                wanting.append(s.label(tid))
        kind = "op.recorded.one" if len(wanting) == 1 else "op.recorded.many"
        s.say(steps, kind, line, expr=expr, node=record.name, out=out_labels,
              inputs=wanting, text={"inputs": s.t.join(wanting)})

    def next_functions(self, steps: list[Step], record: Any, line: int | None) -> None:
        s = self.s
        for i, ((nxt, nr), tid) in enumerate(zip(record.node.next_functions,
                                                 s.inputs_of(record), strict=False)):
            inp = s.label(tid)
            if nxt is None:
                s.say(steps, "next.number" if s.is_number(tid) else "next.none", line, index=i,
                      input=inp)
                continue
            target = s.node_of.get(id(nxt))
            if isinstance(nxt, AccumulateGrad):
                kind = "next.accumulate" if s.once("next.accumulate") else \
                    "next.accumulate.again"
                s.say(steps, kind, line, index=i, input=inp)
            elif len(nxt.output_meta) > 1 or nr:
                s.say(steps, "next.output", line, index=i, input=inp, node=nxt.name(),
                      output_nr=nr,
                      text={"ref": s.node_ref(target.id) if target else nxt.name()})
            else:
                s.say(steps, "next.node", line, index=i, input=inp, node=nxt.name(),
                      text={"ref": s.node_ref(target.id) if target else nxt.name()})

    def next_functions_seen(self, record: Any) -> None:
        """What `next_functions` remembers, for a run that says nothing."""
        if any(isinstance(nxt, AccumulateGrad) for nxt, _ in record.node.next_functions):
            self.s.once("next.accumulate")

    def results_seen(self, outs: list[int]) -> None:
        """What `results` remembers, for a run that says nothing."""
        if len(outs) == 1 and not self.s.is_expression(outs[0]):
            self.s.once("result.nonleaf")

    def results(self, steps: list[Step], record: Any, outs: list[int], values: list[Any],
                line: int | None) -> None:
        s = self.s
        if len(outs) > 1:
            labels = [s.label(o) for o in outs]
            s.say(steps, "result.multi", line, outputs=labels, node=record.name,
                  count=len(outs), last=len(outs) - 1, text={"outputs": s.t.join(labels)})
            return
        named = not s.is_expression(outs[0])
        kind = "result.nonleaf" if named and s.once("result.nonleaf") else \
            "result.nonleaf.again"
        s.say(steps, kind, line, tensor=s.label(outs[0]), value=values[0], node=record.name)

    # -- in-place changes ------------------------------------------------------------------

    def inplace(self, steps: list[Step], op_ev: Any, ev: Any, idx: int) -> None:
        s = self.s
        facts, line = ev.facts, ev.line
        tid = facts["tensor"]
        target = s.label(tid)
        version = facts["version"]
        expr = s.source.code_text(line or 0)
        if op_ev is not None:
            s.produced.update(op_ev.facts["outputs"])
            ins = op_ev.facts["inputs"]
            if ins and ins[0] is not None and ins[0] not in s.bound and ins[0] != tid:
                s.naming.show_as(ins[0], tid)  # the op read a copy of the old values
        s.inplace_log.append((idx, tid, version, line, expr))
        nid = facts["node"]
        self.versions.index_saved(nid)
        counter = s.tensors[tid].counter
        library_own = facts.get("library") and nid is None and (
            facts.get("update")  # part of a parameter update, told as one (param_update)
            or tid not in s.bound and (tid in s.library_made or s.tensors[tid].library))
        if s.muted(steps) or library_own:  # not told: only what may warn
            if nid is not None:
                self.next_functions_seen(s.nodes[nid])
            self.versions.stale_after_inplace(steps, counter, version, nid, line)
            self.versions.hazards(steps, ev, idx)
            return
        if nid is not None:
            record = s.nodes[nid]
            s.say(steps, "inplace.recorded", line, expr=expr, tensor=target,
                  node=record.name, before=version - 1, after=version)
            self.next_functions(steps, record, line)
            self.saved.tell(steps, record, [target], line)
        else:
            s.say(steps, "inplace.plain", line, expr=expr, tensor=target,
                  before=version - 1, after=version)
        sharing = [s.label(t) for t in s.tensors_by_counter.get(counter, ())
                   if t != tid and t in s.bound]
        if sharing:
            s.say(steps, "inplace.shared", line, tensor=target, others=sharing,
                  version=version, text={"others": s.t.join(sharing)})
        self.versions.stale_after_inplace(steps, counter, version, nid, line)
        self.versions.hazards(steps, ev, idx)

    # -- what library modules declared ----------------------------------------------------

    def param_update(self, steps: list[Step], ev: Any) -> None:
        """An optimizer changed a parameter in place by its rule: the rule with the
        parameter's names, its hyper-parameters, the gradient, and the values before and
        after."""
        s = self.s
        facts = ev.facts
        tensor = s.label(facts["tensor"])
        rule = facts["rule"].format(param=tensor, grad=f"{tensor}.grad")
        numbers = ", ".join(f"{k}={v!r}" for k, v in facts["numbers"].items())
        kind = "optimizer.update.recorded" if s.grad_enabled else "optimizer.update"
        s.say(steps, kind, ev.line, tensor=tensor,
              optimizer=facts["optimizer"] or "optimizer", rule=rule, numbers=numbers,
              grad=facts["grad"], before=facts["before"], after=facts["after"],
              version_before=facts["version_before"], version=facts["version"])

    def grads_cleared(self, steps: list[Step], cleared: list[Any]) -> None:
        """Library code (an optimizer's or a module's zero_grad) set .grad to None."""
        s = self.s
        grads = []
        for ev in cleared:
            s.has_grad.discard(ev.facts["tensor"])
            grads.append(f"{s.label(ev.facts['tensor'])}.grad")
        line = cleared[0].line
        s.say(steps, "grad.cleared.library", line, expr=s.source.code_text(line or 0),
              grads=grads, text={"grads": s.listed(grads)})

    # -- what the script did to tensors outside the engine's ops -------------------------

    def method(self, steps: list[Step], ev: Any) -> None:
        s = self.s
        facts, line = ev.facts, ev.line
        if facts.get("error"):
            return  # explained with the error
        name, tid, result = facts["method"], facts["tensor"], facts.get("result")
        tensor = s.label(tid)
        if name == "detach" and result is not None:
            s.produced.add(result)
            s.say(steps, "detach", line, tensor=tensor, result=s.label(result))
        elif name == "detach_":
            s.say(steps, "detach_", line, tensor=tensor)
        elif name == "requires_grad_":
            after = facts.get("requires_grad_after")
            if after == facts.get("requires_grad_before"):
                s.say(steps, "requires_grad.same", line, tensor=tensor, value=after)
            else:
                s.say(steps, "requires_grad.on" if after else "requires_grad.off", line,
                      tensor=tensor)
        elif name == "retain_grad":
            record = s.tensors.get(tid)
            leaf = record is None or record.tensor.grad_fn is None
            s.say(steps, "retain_grad.leaf" if leaf else "retain_grad", line, tensor=tensor)
        elif name == "register_hook":
            s.say(steps, "hook.registered", line, tensor=tensor)

    def attr_read(self, steps: list[Step], ev: Any) -> None:
        s = self.s
        facts, line = ev.facts, ev.line
        tid, result = facts["tensor"], facts["result"]
        tensor = s.label(tid)
        if result is not None:
            s.produced.add(result)
        if facts["attr"] == "data" and ("data", tid) not in s.reported:
            s.reported.add(("data", tid))
            s.say(steps, "data.read", line, tensor=tensor)
        elif facts["attr"] == "grad" and not facts["is_leaf"] and not facts["retains_grad"]:
            if ("nonleaf_grad", tid) not in s.reported:
                s.reported.add(("nonleaf_grad", tid))
                s.say(steps, "grad.nonleaf", line, "warn", tensor=tensor)

    def attr_write(self, steps: list[Step], ev: Any) -> None:
        s = self.s
        facts, line = ev.facts, ev.line
        if facts.get("error"):
            return
        tensor = s.label(facts["tensor"])
        value = facts["value"]
        if facts["attr"] == "grad":
            if value is None:
                s.has_grad.discard(facts["tensor"])
                s.say(steps, "grad.cleared", line, tensor=tensor)
            else:
                s.has_grad.add(facts["tensor"])
                s.say(steps, "grad.assigned", line, tensor=tensor,
                      value=s.label(value) if isinstance(value, int)
                      and not isinstance(value, bool) else str(value))
        elif facts["attr"] == "requires_grad":
            s.say(steps, "requires_grad.on" if value is True else "requires_grad.off",
                  line, tensor=tensor)


def _library_grad_clear(ev: Any) -> bool:
    facts = ev.facts
    return ev.kind == "attr_write" and bool(facts.get("library")) and facts["attr"] == "grad" \
        and facts["value"] is None and not facts.get("error")
