"""The `view` page's timeline: every forward op and every backward step of the shown part
of a run, in the order they happened, with what each one changes in the drawing.

Each position says which box it is about, which arrows it sends a gradient along (and
the gradient, as text), which leaf `.grad` it changes, which nodes it frees and which
saved tensors it makes stale. The page replays them up to the slider's position. All
text is made here, with the same value formatting as the other views.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..drawing import Drawing, value_line
from ..graph import GraphView
from ..selection import Selection
from ..values import array_cell, cut
from .strings import Words

if TYPE_CHECKING:
    from ...tracing import BackwardCall, BackwardStep, Event

CELL = 30  # characters of a value in the page's texts


@dataclass
class Scene:
    """Lookups from the trace to the drawing's vertices and links."""

    view: GraphView
    drawing: Drawing
    vertex: dict[str, Any] = field(default_factory=dict)  # vertex id -> Vertex
    next_link: dict[tuple[int, int], int] = field(default_factory=dict)  # (node, index)
    root_link: dict[int, list[int]] = field(default_factory=dict)  # node -> grad_fn links
    grad_link: dict[int, int] = field(default_factory=dict)  # AccumulateGrad -> its link
    leaf_of: dict[int, str] = field(default_factory=dict)  # AccumulateGrad -> leaf vertex

    @classmethod
    def of(cls, view: GraphView, drawing: Drawing) -> Scene:
        scene = cls(view, drawing, {v.id: v for v in drawing.vertices})
        for k, link in enumerate(drawing.links):
            if link.kind in ("next", "none") and link.index is not None:
                scene.next_link[(int(link.source[1:]), link.index)] = k
            elif link.kind == "grad_fn":
                scene.root_link.setdefault(int(link.target[1:]), []).append(k)
            elif link.kind == "accumulate":
                scene.grad_link[int(link.source[1:])] = k
                scene.leaf_of[int(link.source[1:])] = link.target
        return scene

    def drawn(self, node_id: int | None) -> bool:
        return node_id is not None and f"n{node_id}" in self.vertex


def births(scene: Scene, events: list[Event]) -> dict[str, int]:
    """The event each vertex appears at (-1: before the first event): a node with the op
    that recorded it, an AccumulateGrad with the first node that points to it, a leaf
    when it is first bound to a name (or used), saved tensors with their node."""
    made: dict[int, int] = {}
    bound: dict[int, int] = {}
    for idx, event in enumerate(events):
        facts = event.facts
        if event.kind in ("op", "inplace") and facts.get("node") is not None:
            made.setdefault(facts["node"], idx)
        elif event.kind == "bind":
            bound.setdefault(facts["tensor"], idx)
    born: dict[str, int] = {}
    for vertex in scene.drawing.vertices:
        if vertex.kind == "op":
            born[vertex.id] = made.get(vertex.node, -1)
    for link in scene.drawing.links:  # AccumulateGrad and cut vertices: with a parent
        if link.kind == "next" and scene.vertex[link.target].kind in ("accumulate", "cut"):
            parent = born.get(link.source, -1)
            born[link.target] = min(born.get(link.target, parent), parent)
    grad_fn = {link.source: link.target for link in scene.drawing.links
               if link.kind == "grad_fn"}
    for vertex in scene.drawing.vertices:
        if vertex.kind in ("saved", "none"):
            born[vertex.id] = born.get(f"n{vertex.node}", -1)
        elif vertex.kind == "output":  # with the node that made it
            born[vertex.id] = born.get(grad_fn.get(vertex.id, ""), -1)
    for acc, leaf in scene.leaf_of.items():
        known = [b for b in (bound.get(scene.vertex[leaf].tensor, -1), born.get(f"n{acc}", -1))
                 if b >= 0]
        born[leaf] = min(known, default=-1)
    for vertex in scene.drawing.vertices:
        born.setdefault(vertex.id, -1)
    return born


def event_range(trace: Any, selection: Selection, born: dict[str, int],
                failed: bool) -> tuple[int, int]:
    """[start, stop) of the events the page shows: everything when the whole graph is
    drawn; else from the op that recorded the first drawn node to the end of the shown
    backward calls. A run that ended with an error runs to its end."""
    events = trace.events
    if selection.how == "all" and not selection.hidden:
        return 0, len(events)
    made = [born[f"n{nid}"] for nid in selection.node_ids if born.get(f"n{nid}", -1) >= 0]
    start = min(made, default=0)
    calls = {c.index for c in selection.calls}
    if selection.how == "root":
        calls = {r.backward for r in selection.roots if r.backward is not None}
    ends = [idx for idx, e in enumerate(events)
            if e.kind == "backward_end" and e.facts.get("call") in calls]
    stop = max([max(made, default=start) + 1] + [e + 1 for e in ends])
    if failed:
        stop = len(events)
    return start, min(stop, len(events))


class Timeline:
    """Builds the positions (see the module doc) for one page."""

    def __init__(self, result: Any, scene: Scene, selection: Selection, words: Words,
                 born: dict[str, int], span: tuple[int, int]):
        self.result = result
        self.trace = result.trace
        self.scene = scene
        self.view = scene.view
        self.selection = selection
        self.w = words
        self.born = born
        self.start, self.stop = span
        self.positions: list[dict[str, Any]] = []
        self.keys: list[tuple[int, int, int]] = []  # sort key of each position
        self.step_position: dict[tuple[int, int], int] = {}
        self.call_end: dict[int, int] = {}
        self.stale = self._stale_events()

    # -- text -------------------------------------------------------------------------

    def label(self, tensor_id: int | None) -> str:
        return self.view.tensor_label(tensor_id)

    def node(self, node_id: int | None) -> str:
        if node_id is None:
            return "None"
        record = self.view.nodes[node_id]
        title = self.view.node_title(record)
        if self.view.is_leaf_node(record):
            return f"{title} ({self.label(self.view.variable_id(record))})"
        return title

    @staticmethod
    def cell(value: Any) -> str:
        return array_cell(value, CELL)

    # -- building ---------------------------------------------------------------------

    def add(self, key: tuple[int, int, int], kind: str, title: str, **extra: Any) -> dict:
        position = {"kind": kind, "title": title, "event": key[0], "line": None,
                    "facts": [], "focus": None, "links": [], "grads": [], "freed": [],
                    "stale": [], "badges": [], "values": []}
        position.update(extra)
        self.positions.append(position)
        self.keys.append(key)
        return position

    def build(self) -> list[dict[str, Any]]:
        events = self.trace.events
        first_line = next((e.line for e in events[self.start:self.stop] if e.line), None)
        self.add((self.start - 1, 2, 0), "start",
                 self.w("pos.start", line=first_line) if first_line else self.w(
                     "pos.start.none"), event=self.start - 1, line=first_line)
        steps = self._steps()
        s = 0
        k = self.start
        while k < self.stop:
            while s < len(steps) and steps[s][0] <= k:
                self.step(*steps[s][1:])
                s += 1
            k = self.event(k)
        while s < len(steps):
            self.step(*steps[s][1:])
            s += 1
        self._apply_stale()
        self._apply_values()
        error = self.result.error
        if error is not None:
            line = error.span.line if error.span is not None else None
            self.add((len(events), 3, 0), "error", self.w(
                "pos.error", line=line or "?", kind=error.kind,
                message=cut(error.message, 160)), line=line,
                error=error.format(self.result.source), event=len(events))
        return self.positions

    def _steps(self) -> list[tuple[int, BackwardCall, BackwardStep]]:
        """The shown calls' steps through drawn nodes that ran in the range, in order."""
        out = []
        for call in self.selection.calls:
            for step in call.steps:
                if self.start <= step.event_index <= self.stop and \
                        self.scene.drawn(step.node_id):
                    out.append((step.event_index, call, step))
        return out

    def event(self, k: int) -> int:
        """Add the position of events[k] (if it is one); the index of the next event."""
        events = self.trace.events
        event = events[k]
        facts = event.facts
        kind = event.kind
        line = event.line
        if kind == "bind":
            vid = f"t{facts['tensor']}"
            vertex = self.scene.vertex.get(vid)
            if vertex is not None and vertex.kind == "leaf" and self.born.get(vid) == k:
                self.add((k, 1, 0), "leaf", self.w(
                    "pos.leaf", line=line, tensor=self.label(facts["tensor"]),
                    value=self.cell(facts.get("value"))), line=line, focus=vid)
        elif kind == "op":
            following = events[k + 1] if k + 1 < self.stop else None
            inplace = following if following is not None and following.kind == "inplace" \
                and following.facts.get("name") == facts.get("name") else None
            self.op(k, event, inplace)
            return k + 2 if inplace is not None else k + 1
        elif kind == "inplace":
            self.inplace(k, event)
        elif kind == "data_write":
            text = self.w("pos.data", line=line, tensor=self.label(facts["tensor"]))
            last = self.positions[-1]
            if last["line"] == line and last["kind"] in ("op", "inplace"):
                last["facts"].append(text)  # `x.data *= 2`: one statement, one position
            else:
                self.add((k, 1, 0), "data", text, line=line)
        elif kind == "backward_begin":
            self.backward_begin(k, event)
        elif kind == "backward_end":
            call = self.trace.backward_calls[facts["call"] - 1]
            if call.error is not None and any(c is call for c in self.selection.calls):
                self.add((k, 1, 0), "failed", self.w(
                    "pos.failed", call=call.index, kind=call.error_type or "Error",
                    message=cut(call.error_message or call.error, 160)), line=call.line,
                    call=call.index)
                self.call_end[call.index] = len(self.positions) - 1
        elif kind == "caught":
            self.add((k, 1, 0), "caught", self.w(
                "pos.caught", line=line, kind=facts["kind"],
                message=cut(facts["message"], 160)), line=line)
        return k + 1

    def op(self, k: int, event: Event, inplace: Event | None) -> None:
        facts = event.facts
        nid = facts.get("node")
        expr = self._expression(facts, event.line)
        line = event.line
        if nid is None:
            title = self.w("pos.op.none", line=line, expr=expr)
        elif not self.scene.drawn(nid):
            title = self.w("pos.op.hidden", line=line, expr=expr, node=self.node(nid))
        else:
            outs = ", ".join(self.label(t) for t in facts.get("outputs", ())) or "?"
            title = self.w("pos.op", line=line, expr=expr, node=self.node(nid), out=outs)
        position = self.add((k, 1, 0), "op", title, line=line,
                            focus=f"n{nid}" if self.scene.drawn(nid) else None)
        if inplace is not None:
            position["facts"].append(self.w(
                "pos.inplace", line=line, expr=expr, tensor=self.label(
                    inplace.facts["tensor"]), version=inplace.facts["version"]))
        if nid is not None and self.scene.drawn(nid):
            record = self.view.nodes[nid]
            items = [f"({self.node(n) if n is not None else 'None'}, {nr})"
                     for n, nr in self.view.next_functions(record)]
            if items:
                position["facts"].append(self.w("fact.next", items=", ".join(items)))
            saved = [self.w("fact.saved.item", name=s.name, tensor=s.label, version=s.version)
                     for s in self.view.saved(record)
                     if not s.is_attr and s.tensor_id is not None]
            if saved:
                position["facts"].append(self.w("fact.saved", items=", ".join(saved)))

    def _expression(self, facts: dict, line: int | None) -> str:
        """The op's source text: its node's, else its line's."""
        record = self.view.nodes.get(facts["node"]) if facts.get("node") is not None else None
        text = record.expression if record is not None else None
        if not text and line is not None:
            text = self.result.source.code_text(line)
        return cut(text or "?", 60)

    def inplace(self, k: int, event: Event) -> None:
        facts = event.facts
        self.add((k, 1, 0), "inplace", self.w(
            "pos.inplace", line=event.line, expr=self._expression(facts, event.line),
            tensor=self.label(facts["tensor"]),
            version=facts["version"]), line=event.line)

    def backward_begin(self, k: int, event: Event) -> None:
        call = self.trace.backward_calls[event.facts["call"] - 1]
        if not any(c is call for c in self.selection.calls):
            return
        roots = [(nid, nr) for nid, nr in call.roots if nid is not None]
        grads = [self.cell(g) for g in call.root_grads]
        root = ", ".join(self.view.output_label(self.view.nodes[nid], nr) or self.node(nid)
                         for nid, nr in roots) or "?"
        position = self.add((k, 1, 0), "backward", self.w(
            "pos.backward", line=event.line, call=call.index, root=root,
            grad=", ".join(grads) or "?"), line=event.line, call=call.index)
        for (nid, _), grad in zip(roots, grads):
            for link in self.scene.root_link.get(nid, ()):
                position["links"].append([link, f"grad {grad}"])
            if self.scene.drawn(nid):
                position["focus"] = position["focus"] or f"n{nid}"
        self.step_position[(call.index, 0)] = len(self.positions) - 1

    def step(self, call: BackwardCall, step: BackwardStep) -> None:
        view = self.view
        record = view.nodes[step.node_id]
        vid = f"n{step.node_id}"
        key = (step.event_index, 0, step.index)
        if step.accumulated is not None:
            tid, before, after = step.accumulated
            position = self.add(key, "step", self.w(
                "pos.accumulate", call=call.index, step=step.index, steps=len(call.steps),
                node=self.node(step.node_id), tensor=self.label(tid), before=self.cell(before),
                after=self.cell(after)), line=call.line, call=call.index, focus=vid)
            received = self.cell(step.received[0]) if step.received else "None"
            position["facts"] += [self.w("fact.received", grad=received), self.w(
                "fact.accumulated", tensor=self.label(tid), before=self.cell(before),
                after=self.cell(after))]
            link = self.scene.grad_link.get(step.node_id)
            if link is not None:
                position["links"].append([link, f"{self.cell(before)} → {self.cell(after)}"])
                leaf = self.scene.leaf_of[step.node_id]
                position["grads"].append([leaf, f"grad {self.cell(after)}"])
                position["badges"].append([leaf, f".grad {self.cell(before)} → "
                                                 f"{self.cell(after)}"])
        else:
            received = ", ".join(self.cell(g) for g in step.received) or "None"
            position = self.add(key, "step", self.w(
                "pos.step", call=call.index, step=step.index, steps=len(call.steps),
                node=self.node(step.node_id), grad=received), line=call.line,
                call=call.index, focus=vid)
            position["facts"].append(self.w("fact.received", grad=received))
            position["badges"].append([vid, self.w_ui("received", grad=received)])
            next_functions = view.next_functions(record)
            for flow in step.sent:
                target, _ = next_functions[flow.index] if flow.index < len(
                    next_functions) else (None, 0)
                if target is None:
                    position["facts"].append(self.w("fact.sent.none", index=flow.index))
                    continue
                grad = self.cell(flow.grad)
                position["facts"].append(self.w("fact.sent", index=flow.index,
                                                target=self.node(target), grad=grad))
                link = self.scene.next_link.get((step.node_id, flow.index))
                if link is not None:
                    position["links"].append([link, f"grad {grad}"])
        if step.released:
            position["facts"].append(self.w("fact.released"))
            position["freed"] = [vid] + [v.id for v in self.scene.drawing.vertices
                                         if v.kind == "saved" and v.node == step.node_id]
        self.step_position[(call.index, step.index)] = len(self.positions) - 1
        self.call_end[call.index] = len(self.positions) - 1

    def w_ui(self, key: str, **fields: Any) -> str:
        return self.w(f"ui.{key}", **fields)

    # -- saved tensors going stale ----------------------------------------------------------

    def _stale_events(self) -> list[tuple[int, str, str, str]]:
        """(event index, saved vertex, state, fact) for the saved tensors the drawing marks:
        the in-place change that moved the version on, or the `.data` write under it."""
        view = self.view
        saved = [v for v in self.scene.drawing.vertices if v.kind == "saved" and v.state]
        if not saved:
            return []
        counters: dict[int, list[str]] = {}
        for vertex in saved:
            record = view.tensors.get(vertex.tensor)
            if record is not None and vertex.state == "modified":
                counters.setdefault(record.counter, []).append(vertex.id)
        found: dict[str, tuple[int, str, str, str]] = {}
        for idx, event in enumerate(self.trace.events):
            if event.kind != "inplace":
                continue
            record = view.tensors.get(event.facts["tensor"])
            for vid in counters.get(record.counter if record else -1, ()):
                vertex = self.scene.vertex[vid]
                if vid not in found and idx > self.born.get(vid, -1):
                    info = self._saved_info(vertex)
                    found[vid] = (idx, vid, "modified", self.w(
                        "fact.stale", name=vertex.saved_name, tensor=self.label(vertex.tensor),
                        then=info.version if info else "?", now=info.current if info else "?"))
            for hazard in event.facts.get("hazards") or ():
                vid = self._saved_vertex(hazard.get("node"), hazard.get("saved"))
                if vid is not None and vid not in found:
                    vertex = self.scene.vertex[vid]
                    found[vid] = (idx, vid, "silent", self.w(
                        "fact.silent", name=vertex.saved_name, tensor=self.label(vertex.tensor),
                        line=event.line))
        for vertex in saved:  # marked at the end without a known moment: at the end
            if vertex.id not in found:
                found[vertex.id] = (len(self.trace.events), vertex.id, vertex.state, "")
        return sorted(found.values())

    def _saved_info(self, vertex: Any) -> Any:
        record = self.view.nodes.get(vertex.node)
        if record is None:
            return None
        return next((s for s in self.view.saved(record) if s.name == vertex.saved_name), None)

    def _saved_vertex(self, node_id: int | None, name: str | None) -> str | None:
        for vertex in self.scene.drawing.vertices:
            if vertex.kind == "saved" and vertex.node == node_id and vertex.saved_name == name:
                return vertex.id
        return None

    def value_changes(self) -> list[tuple[int, str, str]]:
        """(event index, tensor vertex, value line) each time a drawn tensor got values:
        made or bound, changed in place, written through `.data`."""
        vertices = {v.tensor: v.id for v in self.scene.drawing.vertices
                    if v.kind in ("leaf", "output")}
        out = []
        for idx, event in enumerate(self.trace.events[:self.stop]):
            facts = event.facts
            if event.kind == "op":
                pairs = zip(facts.get("outputs") or (), facts.get("values") or ())
            elif event.kind in ("bind", "inplace", "data_write"):
                pairs = [(facts.get("tensor"), facts.get("value"))]
            else:
                continue
            for tid, value in pairs:
                vid = vertices.get(tid)
                if vid is not None and value is not None:
                    out.append((idx, vid, value_line(value)))
        return out

    def _apply_values(self) -> None:
        """Tensor values as they change: the values before the range are the start's."""
        for idx, vid, text in self.value_changes():
            at = max(0, bisect_right(self.keys, (idx, 1, 0)) - 1)
            values = self.positions[at]["values"]
            values[:] = [v for v in values if v[0] != vid] + [[vid, text]]

    def _apply_stale(self) -> None:
        for idx, vid, state, fact in self.stale:
            at = max(0, bisect_right(self.keys, (idx, 1, 0)) - 1)
            position = self.positions[at]
            position["stale"].append([vid, state])
            if fact:
                position["facts"].append(fact)

    # -- the narration ---------------------------------------------------------------------

    def position_of(self, at: dict[str, Any] | None) -> int | None:
        """The position a narration step tells about (None: outside the page's range)."""
        if not at:
            return None
        if at.get("error"):
            last = self.positions[-1]
            return len(self.positions) - 1 if last["kind"] == "error" else None
        if "event" in at:
            k = at["event"]
            if not self.start <= k < self.stop:
                return None
            return max(0, bisect_right(self.keys, (k, 1, 0)) - 1)
        call, step = at.get("call"), at.get("step", 0)
        found = self.step_position.get((call, step))
        if found is None and step and call in self.call_end:
            found = self.call_end[call]
        return found
