"""What an in-place change does to tensors that nodes saved earlier.

Nodes' saved tensors are indexed by version counter as they are recorded; an in-place
write to a counter then tells which saved tensors went stale (backward through them will
raise). A write to memory a saved tensor shares without sharing its version counter (the
`.data` trap) is a hazard backward cannot see: told with the gradients a later backward
gave against those the saved values would have given.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from .derivation import replay_call
from .model import Step
from .numbers import close, fmt_value
from .saved import saved_attr

if TYPE_CHECKING:
    from .story import Story


class VersionTeller:
    def __init__(self, story: Story):
        self.s = story

    def index_saved(self, nid: int | None) -> None:
        """Remember what a just-recorded node saved, by version counter."""
        s = self.s
        if nid is None or nid not in s.nodes:
            return
        record = s.nodes[nid]
        for saved in record.saved:
            if saved.tensor_id is not None:
                counter = s.tensors[saved.tensor_id].counter
                s.saved_by_counter[counter].append((record, saved))

    def stale_after_inplace(self, steps: list[Step], counter: int, version: int,
                            own: int | None, line: int | None) -> None:
        s = self.s
        candidates = s.saved_by_counter.get(counter, [])
        live = [(r, sv) for r, sv in candidates
                if r.id not in s.released and ("stale", r.id) not in s.reported]
        s.saved_by_counter[counter] = live  # freed or reported nodes need no more checks
        for record, sv in live:
            if record.id == own or record.id not in s.node_created:
                continue
            if sv.version >= version or ("stale", record.id) in s.reported:
                continue
            s.reported.add(("stale", record.id))
            s.say(steps, "inplace.stale", line, "warn", node=s.short_name(record),
                  tensor=s.label(sv.tensor_id), key=sv.name, version=sv.version,
                  now=version, text={"node": s.node_ref(record.id),
                                     "attr": saved_attr(record, sv.name)})

    def hazards(self, steps: list[Step], ev: Any, idx: int) -> None:
        s = self.s
        by_node: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for h in ev.facts.get("hazards") or []:
            by_node[h["node"]].append(h)
        for nid, items in by_node.items():
            record = s.nodes[nid]
            keys = [saved_attr(record, h["saved"]) for h in items]
            text = {"node": s.node_ref(nid), "keys": s.t.join(keys)}
            facts = dict(tensor=s.label(ev.facts["tensor"]),
                         saved_tensor=s.label(items[0]["tensor"]), node_name=record.name,
                         keys=keys)
            consequence = self.consequence(nid, idx)
            if consequence is None:
                s.say(steps, "inplace.hazard", ev.line, "warn", text=text, **facts)
                continue
            call, actual, expected = consequence
            grads = [s.t("hazard.grad", tensor=name, actual=fmt_value(a), expected=fmt_value(e))
                     for name, a, e in zip(actual, actual.values(), expected.values(),
                                           strict=False)]
            text.update(grads=s.t.join(grads), line=str(call.line))
            s.say(steps, "inplace.hazard.result", ev.line, "warn", text=text,
                  backward_line=call.line, actual=actual, expected=expected, **facts)

    def consequence(self, nid: int, idx: int) -> tuple[Any, dict, dict] | None:
        """The first later backward through node `nid`: leaf grads it gave vs. with the
        saved values (each node's own backward run again on them)."""
        s = self.s
        for call in s.trace.backward_calls:
            begin = s.begin_of.get(call.index, -1)
            if begin < idx or not any(st.node_id == nid for st in call.steps):
                continue
            replayed = replay_call(call, s.nodes)
            if replayed is None:
                return None
            actual, expected = {}, {}
            for step in call.steps:
                if step.accumulated is None:
                    continue
                tid = step.accumulated[0]
                got, want = step.received[0], replayed.get(tid)
                if got is None or want is None or close(got, want):
                    continue
                name = f"{s.label(tid)}.grad"
                actual[name], expected[name] = got, want
            return (call, actual, expected) if actual else None
        return None
