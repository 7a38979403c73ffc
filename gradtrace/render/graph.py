"""The autograd graph of a run: as a rich tree, as Graphviz DOT, as Mermaid, as SVG/PNG.

Everything here reads a `tracing.Tracer` (the trace of one run) through `GraphView`,
which indexes its records by id and answers the questions every view asks: the roots to
draw, a node's label, its saved tensors with their versions, which backward freed it.

All walks are iterative (a script can build a chain of 10,000 ops). The tree view is
capped for the terminal (`max_nodes`, and a depth past which a branch continues as its
own tree); DOT and Mermaid are complete and linear in the size of the graph.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text

from ..engine.node import AccumulateGrad, Node
from ..naming import Binding, Naming, held, introduce
from .layout import CompactTree
from .values import array_cell, attr_cell, cut, short_node_name, tensor_cell

if TYPE_CHECKING:
    from ..tracing import NodeRecord, TensorRecord, Tracer

MAX_TREE_NODES = 100


# -- the facts every view shares ---------------------------------------------------


@dataclass
class SavedInfo:
    """One `_saved_*` entry of a node: a tensor (with versions) or a plain attribute."""

    name: str
    tensor_id: int | None = None
    label: str | None = None  # the saved tensor's label
    version: int | None = None  # version when saved
    current: int | None = None  # version of that tensor now
    is_output: bool = False
    value: Any = None  # for attributes
    is_attr: bool = False
    # values changed without a version bump (through `.data`): backward will not notice
    changed_silently: bool = False
    changed_lines: list[int] = field(default_factory=list)  # where (in-place through .data)

    @property
    def modified(self) -> bool:
        return self.version is not None and self.current is not None and \
            self.current != self.version


@dataclass
class Root:
    """Where a tree starts: a backward root, or a named tensor no backward reached."""

    node_id: int
    output_nr: int
    tensor_label: str | None
    backward: int | None  # index of the first backward call that started here
    line: int | None  # line of that backward call


def _values_changed(saved_value: Any, tensor_record: TensorRecord | None) -> bool:
    """Whether a saved tensor's values now differ from what was kept when it was saved
    (for a large tensor: from its summary, see `summary.Summary`)."""
    if saved_value is None or tensor_record is None:
        return False
    import numpy as np

    from ..summary import Summary, same_values

    now = tensor_record.tensor.array
    if now.shape != saved_value.shape:
        return True
    if isinstance(now, Summary) or isinstance(saved_value, Summary):
        return not same_values(now, saved_value)
    return not np.array_equal(now, saved_value, equal_nan=now.dtype.kind == "f")


class GraphView:
    """Read-only index over a trace: records by id, labels, saved tensors, freed state."""

    def __init__(self, trace: Tracer):
        self.trace = trace
        self.named = trace.named_tensors()
        self.naming = Naming.at_end(trace)
        self.tensors: dict[int, TensorRecord] = {r.id: r for r in trace.tensors.values()}
        self.nodes: dict[int, NodeRecord] = {r.id: r for r in trace.nodes.values()}
        self.value_limit = 30  # characters of a value in the tree (more on wider consoles)
        self.freed_by: dict[int, int] = {}
        # (node id, saved name) -> lines of in-place changes that bypassed its version counter
        self.hazards: dict[tuple[int, str], list[int]] = {}
        for event in trace.events:
            if event.kind == "inplace":
                for hazard in event.facts.get("hazards") or ():
                    key = (hazard.get("node"), hazard.get("saved"))
                    lines = self.hazards.setdefault(key, [])
                    if event.line is not None and event.line not in lines:
                        lines.append(event.line)
        for call in trace.backward_calls:
            for step in call.steps:
                if step.released:
                    self.freed_by.setdefault(step.node_id, call.index)

    # -- ids ---------------------------------------------------------------------

    def node_id(self, node: Node | None) -> int | None:
        if node is None:
            return None
        record = self.trace.nodes.get(id(node))
        if record is None or record.node is not node:
            record = self.trace.node(node)  # not seen by an op event (rare): register it
            self.nodes[record.id] = record
        return record.id

    def tensor_id(self, tensor: Any) -> int | None:
        if tensor is None:
            return None
        record = self.trace.record_of(tensor)
        return None if record is None else record.id

    def next_functions(self, record: NodeRecord) -> list[tuple[int | None, int]]:
        return [(self.node_id(n), nr) for n, nr in record.node.next_functions]

    # -- labels ------------------------------------------------------------------

    def tensor_label(self, tensor_id: int | None) -> str:
        """The tensor's name by the one naming rule (gradtrace/naming.py), as of the end."""
        return self.naming.label(tensor_id)

    def old_names(self, tensor_ids: Iterable[int | None]) -> list[tuple[str, Binding]]:
        """The `x@5` names among these tensors' names, with the binding each stands for,
        so a view can introduce them before using them."""
        out: dict[str, Binding] = {}
        for tid in tensor_ids:
            if tid is None:
                continue
            binding = self.naming.introduction(tid)
            if binding is not None:
                out.setdefault(self.naming.label(tid), binding)
        return list(out.items())

    def node_name(self, record: NodeRecord) -> str:
        return short_node_name(record.name)

    def node_title(self, record: NodeRecord) -> str:
        """`MulBackward0 #4`: the name plus the id used across all views."""
        return f"{self.node_name(record)} #{record.id}"

    def is_leaf_node(self, record: NodeRecord) -> bool:
        return isinstance(record.node, AccumulateGrad)

    def variable_id(self, record: NodeRecord) -> int | None:
        """For an AccumulateGrad: the leaf tensor it accumulates into."""
        if isinstance(record.node, AccumulateGrad):
            return record.outputs[0] if record.outputs else self.tensor_id(record.node.variable)
        return None

    def output_label(self, record: NodeRecord, output_nr: int | None = None) -> str | None:
        """The tensor a node produced (output `output_nr`), or the leaf of an AccumulateGrad.

        A tensor changed in place since has a new grad_fn: its label gets "(old value)".
        """
        if isinstance(record.node, AccumulateGrad):
            return self.tensor_label(self.variable_id(record))
        if not record.outputs:
            return None
        if output_nr is None:
            if len(record.outputs) == 1:
                output_nr = 0
            else:
                return ", ".join(self.tensor_label(t) for t in record.outputs)
        if output_nr >= len(record.outputs):
            return None
        tensor_id = record.outputs[output_nr]
        label = self.tensor_label(tensor_id)
        tensor = self.tensors[tensor_id].tensor if tensor_id in self.tensors else None
        if tensor is not None and tensor.grad_fn is not record.node:
            label += " (old value)"
        return label

    def saved(self, record: NodeRecord) -> list[SavedInfo]:
        out = []
        for s in record.saved:
            info = SavedInfo(s.name, s.tensor_id, version=s.version, is_output=s.is_output)
            if s.tensor_id is None:
                info.label, info.version = "None", None
            else:
                info.label = self.tensor_label(s.tensor_id)
                tensor_record = self.tensors.get(s.tensor_id)
                if tensor_record is not None:
                    info.current = tensor_record.tensor._version_counter.value
                info.changed_lines = list(self.hazards.get((record.id, s.name), ()))
                if not info.modified:
                    info.changed_silently = bool(info.changed_lines) or _values_changed(
                        getattr(s, "value", None), tensor_record)
            out.append(info)
        for key, value in sorted((record.node.attrs or {}).items()):
            out.append(SavedInfo(key, value=value, is_attr=True))
        return out

    def is_freed(self, record: NodeRecord) -> bool:
        return bool(record.node.released)

    # -- walks -------------------------------------------------------------------

    def reachable(self, starts: list[int]) -> list[int]:
        """Node ids reachable from `starts` (included), in depth-first preorder."""
        seen: set[int] = set()
        order: list[int] = []
        stack = list(reversed(starts))
        while stack:
            nid = stack.pop()
            if nid in seen:
                continue
            seen.add(nid)
            order.append(nid)
            for child, _ in reversed(self.next_functions(self.nodes[nid])):
                if child is not None and child not in seen:
                    stack.append(child)
        return order

    def roots(self) -> list[Root]:
        """Each backward root, then the named tensors with a grad_fn outside those graphs
        that no other named tensor's graph contains (the script's last results)."""
        roots: list[Root] = []
        taken: set[int] = set()
        for call in self.trace.backward_calls:
            for (nid, nr), in zip(call.roots):
                if nid is None or nid in taken:
                    continue
                taken.add(nid)
                roots.append(Root(nid, nr, self.output_label(self.nodes[nid], nr),
                                  call.index, call.line))
        covered = set(self.reachable([r.node_id for r in roots]))
        candidates: list[tuple[str, int, int]] = []
        for _, record in self.named:
            t = record.tensor
            nid = self.node_id(t.grad_fn)
            if nid is None or nid in covered or any(c[1] == nid for c in candidates):
                continue
            candidates.append((self.tensor_label(record.id), nid, t.output_nr))
        below: set[int] = set()
        for _, nid, _ in candidates:
            for child, _ in self.next_functions(self.nodes[nid]):
                if child is not None:
                    below.update(self.reachable([child]))
        for name, nid, nr in candidates:
            if nid not in below:
                roots.append(Root(nid, nr, name, None, None))
        return roots

    def all_node_ids(self) -> list[int]:
        return sorted(self.nodes)


# -- the rich tree -----------------------------------------------------------------


def _saved_text(view: GraphView, record: NodeRecord) -> Text | None:
    infos = view.saved(record)
    if not infos:
        return None
    freed = view.is_freed(record)
    text = Text("saved", style="cyan")
    if freed:
        by = view.freed_by.get(record.id)
        text.append(f" (freed by backward #{by})" if by else " (freed)", style="dim")
    text.append(": ", style="cyan")
    for i, info in enumerate(infos):
        if i:
            text.append(", ")
        if info.is_attr:
            text.append(f"{info.name} = {attr_cell(info.value)}")
            continue
        text.append(f"{info.name} = {info.label}")
        if info.version is None:
            continue
        if info.modified:
            text.append(f" (version {info.version}, now {info.current}: modified in place)",
                        style="bold red")
        elif info.changed_silently:
            text.append(f" (version {info.version}, ", style="dim")
            where = (" at line " + ", ".join(str(n) for n in info.changed_lines)
                     if info.changed_lines else "")
            text.append(f"but its values changed{where} without a version bump)",
                        style="bold yellow")
        else:
            text.append(f" (version {info.version})", style="dim")
    return text


def _node_text(view: GraphView, record: NodeRecord, edge: tuple[int, int] | None,
               reference: str | None = None) -> Text:
    """`[0] (MulBackward0 #1, 0) → c · line 7`; a root has no `[i] (…, nr)` wrapper."""
    text = Text()
    leaf = view.is_leaf_node(record)
    style = "blue" if leaf else "bold"
    if edge is not None:
        index, nr = edge
        text.append(f"[{index}] (", style="dim")
        text.append(view.node_title(record), style=style)
        text.append(f", {nr})", style="dim")
        output = view.output_label(record, None if leaf else nr)
    else:
        text.append(view.node_title(record), style=style)
        output = view.output_label(record, None)
    if output is not None:
        text.append(" → ")
        text.append(output, style="green" if not leaf else "blue")
    if reference is not None:
        text.append(f" ({reference})", style="dim italic")
        return text
    if leaf:
        variable = view.tensors.get(view.variable_id(record) or -1)
        if variable is not None:
            text.append(f" · grad {tensor_cell(variable.tensor.grad, view.value_limit)}",
                        style="dim")
    else:
        where = origin(record)
        if where:
            text.append(f" · {where}", style="dim")
    return text


def origin(record: NodeRecord, limit: int = 40) -> str:
    """Where a node was recorded: `line 7: a * b`, or `made by backward #1 at line 9` for
    a node a backward recorded (create_graph=True), not the line a hook ran last."""
    if record.made_by is not None:
        where = f"made by backward #{record.made_by[0]}"
        return where + (f" at line {record.line}" if record.line is not None else "")
    if record.line is None:
        return ""
    return f"line {record.line}" + (f": {cut(record.expression, limit)}"
                                    if record.expression else "")


def _none_text(view: GraphView, record: NodeRecord, index: int, nr: int) -> Text:
    text = Text(f"[{index}] (None, {nr})", style="dim")
    if index < len(record.inputs) and record.inputs[index] is not None:
        tid = record.inputs[index]
        tensor = view.tensors.get(tid)
        label = view.tensor_label(tid)
        if tensor is not None and tensor.tensor._wrapped:
            text.append(f" · {label} is a Python number", style="dim")
        else:
            text.append(f" · {label} does not require grad", style="dim")
    return text


def _root_text(view: GraphView, root: Root) -> Text:
    record = view.nodes[root.node_id]
    text = Text()
    label = root.tensor_label or view.output_label(record, root.output_nr) or "?"
    text.append(label, style="bold green")
    text.append(".grad_fn = ")
    text.append(view.node_title(record), style="bold")
    if root.output_nr:
        text.append(f" (output {root.output_nr})")
    where = origin(record)
    if where:
        text.append(f" · {where}", style="dim")
    if root.backward is not None:
        text.append(f" · backward #{root.backward}", style="magenta")
        if root.line is not None:
            text.append(f" at line {root.line}", style="magenta")
    else:
        text.append(" · no backward from here", style="dim")
    return text


def tree_depth_for(width: int) -> int:
    """How deep a tree may go at a terminal width before a branch continues on its own."""
    return max(4, (width - 60) // 4)


def graph_trees(view: GraphView, *, max_nodes: int = MAX_TREE_NODES,
                max_depth: int = 12) -> list[RenderableType]:
    """One tree per root (see `GraphView.roots`), built without recursion: a `CompactTree`,
    which prints what rich's `Tree` would.

    A node reached a second time is referenced as "(shown above)". Past `max_depth` a
    branch continues as its own tree below; past `max_nodes` shown nodes the rest is
    counted, not drawn.
    """
    roots = view.roots()
    out: list[RenderableType] = []
    shown: set[int] = set()
    deferred: set[int] = set()
    # a queue of trees to draw: (root tree label, node id); continuations are appended
    queue: list[tuple[Text, int]] = [(_root_text(view, r), r.node_id) for r in roots]
    count = 0
    position = 0
    stopped = False
    while position < len(queue) and not stopped:
        label, start = queue[position]
        if count >= max_nodes and start not in shown:
            stopped = True
            break
        position += 1
        if start in shown:
            label = label.copy()
            label.append(" (shown above)", style="dim italic")
            out.append(CompactTree(label))
            continue
        tree = CompactTree(label)
        # stack of (parent tree or None for the root, node id or None for a None edge,
        # edge (index, output_nr), depth, the parent's record)
        stack: list[tuple[CompactTree | None, int | None, tuple[int, int] | None, int, Any]] = [
            (None, start, None, 0, None)]
        while stack:
            parent, nid, edge, depth, owner = stack.pop()
            if nid is None:
                assert parent is not None and edge is not None
                parent.add(_none_text(view, owner, edge[0], edge[1]))
                continue
            record = view.nodes[nid]
            if parent is None:
                branch = tree
            elif nid in shown:
                parent.add(_node_text(view, record, edge, "shown above"))
                continue
            elif nid in deferred:
                parent.add(_node_text(view, record, edge, "continued below"))
                continue
            elif count >= max_nodes:
                stopped = True
                break
            else:
                has_children = any(n is not None for n, _ in record.node.next_functions)
                if depth >= max_depth and has_children:
                    deferred.add(nid)
                    parent.add(_node_text(view, record, edge, "continued below"))
                    queue.append((_continued_text(view, record), nid))
                    continue
                branch = parent.add(_node_text(view, record, edge))
            shown.add(nid)
            deferred.discard(nid)
            count += 1
            saved = _saved_text(view, record)
            if saved is not None:
                branch.add(saved)
            children = view.next_functions(record)
            for index in range(len(children) - 1, -1, -1):
                child, nr = children[index]
                stack.append((branch, child, (index, nr), depth + 1, record))
        out.append(tree)
    if stopped or position < len(queue):
        total = len(view.reachable([r.node_id for r in roots]))
        left = max(0, total - count)
        if left:
            out.append(Text(
                f"… {left:,} more node{'s' if left != 1 else ''} not shown "
                "(`gradtrace graph --format dot` or `--json` has the complete graph)",
                style="yellow"))
    return out


def _continued_text(view: GraphView, record: NodeRecord) -> Text:
    text = Text("… continued: ", style="dim")
    text.append(view.node_title(record), style="bold")
    output = view.output_label(record, None)
    if output is not None:
        text.append(" → ")
        text.append(output, style="green")
    if record.line is not None:
        text.append(f" · line {record.line}", style="dim")
    return text


def print_graph(console: Any, trace: Tracer, *, max_nodes: int = MAX_TREE_NODES,
                view: GraphView | None = None) -> None:
    """Print the graph trees of a run to a rich console, after the `x@5` names they use;
    `view`, if given, is the run's `GraphView(trace)` already built."""
    if view is None:
        view = GraphView(trace)
    view.value_limit = max(30, 30 + (console.width - 100) // 3)
    trees = graph_trees(view, max_nodes=max_nodes, max_depth=tree_depth_for(console.width))
    if not trees:
        console.print(Text("No autograd graph: no tensor was computed from one that "
                           "requires grad.", style="dim"))
        return
    console.print(Group(*old_names_lines(view), *trees))


MAX_OLD_NAMES = 10


def old_names_lines(view: GraphView) -> list[Text]:
    """The `x@5` names the graph and backward sections use, each introduced once: which
    tensor a name held that now names another one."""
    ids: list[int | None] = []
    for record in view.nodes.values():
        ids.extend(record.outputs)
        ids.extend(s.tensor_id for s in record.saved)
        ids.extend(record.inputs)
    found = view.old_names(ids)
    lines = [Text(introduce(label, binding), style="dim") for label, binding in
             found[:MAX_OLD_NAMES]]
    if len(found) > MAX_OLD_NAMES:
        lines.append(Text(f"… {len(found) - MAX_OLD_NAMES:,} more names of this kind",
                          style="dim"))
    return lines


# -- DOT and Mermaid ---------------------------------------------------------------


@dataclass
class Vertex:
    """A box in a drawn graph. kind: op, leaf, output, saved, none."""

    id: str
    kind: str
    lines: list[str]
    freed: bool = False
    modified: bool = False


@dataclass
class Link:
    """An arrow: kind next (next_functions), none (to a None), saved, grad_fn."""

    source: str
    target: str
    kind: str
    label: str = ""


def graph_elements(view: GraphView) -> tuple[list[Vertex], list[Link]]:
    """Every node the run recorded, its edges, saved tensors and the output tensors.

    Linear in the size of the graph; the order is stable (by id) so output is repeatable.
    """
    vertices: list[Vertex] = []
    links: list[Link] = []
    outputs: dict[int, tuple[int, int]] = {}  # tensor id -> (node id, output_nr)
    for root in view.roots():
        record = view.nodes[root.node_id]
        if root.output_nr < len(record.outputs):
            outputs.setdefault(record.outputs[root.output_nr], (root.node_id, root.output_nr))
    for call in view.trace.backward_calls:
        for nid, nr in call.roots:
            if nid is not None and nr < len(view.nodes[nid].outputs):
                outputs.setdefault(view.nodes[nid].outputs[nr], (nid, nr))
    for _, record in view.named:
        nid = view.node_id(record.tensor.grad_fn)
        if nid is not None:
            outputs.setdefault(record.id, (nid, record.tensor.output_nr))
    for tensor_id in sorted(outputs):
        nid, nr = outputs[tensor_id]
        tensor = view.tensors[tensor_id].tensor
        label = view.tensor_label(tensor_id)
        lines = [label, f"{array_cell(tensor.array, 24)} · shape {list(tensor.shape)}"]
        binding = view.naming.introduction(tensor_id)
        if binding is not None:
            lines.insert(1, f"({held(binding)})")
        vertices.append(Vertex(f"t{tensor_id}", "output", lines))
        links.append(Link(f"t{tensor_id}", f"n{nid}", "grad_fn",
                          "grad_fn" if nr == 0 else f"grad_fn (output {nr})"))
    for nid in view.all_node_ids():
        record = view.nodes[nid]
        freed = view.is_freed(record)
        if view.is_leaf_node(record):
            variable = view.tensors.get(view.variable_id(record) or -1)
            lines = [view.node_title(record), f"→ {view.output_label(record)}"]
            binding = view.naming.introduction(view.variable_id(record) or -1)
            if binding is not None:
                lines.append(f"({held(binding)})")
            if variable is not None:
                lines.append(f"grad {tensor_cell(variable.tensor.grad, 24)}")
            vertices.append(Vertex(f"n{nid}", "leaf", lines))
            continue
        lines = [view.node_title(record)]
        output = view.output_label(record)
        if output is not None:
            lines.append(f"→ {cut(output, 30)}")
        where = origin(record, 30)
        if where:
            lines.append(where)
        saved = view.saved(record)
        attrs = [f"{s.name} = {attr_cell(s.value, 24)}" for s in saved if s.is_attr]
        lines.extend(attrs)
        if freed:
            by = view.freed_by.get(nid)
            lines.append(f"saved freed by backward #{by}" if by else "saved freed")
        vertices.append(Vertex(f"n{nid}", "op", lines, freed=freed))
        for k, info in enumerate(s for s in saved if not s.is_attr):
            sid = f"s{nid}_{k}"
            text = [f"{info.name} = {info.label}"]
            if info.version is not None:
                if info.modified:
                    text.append(f"saved at version {info.version}, now {info.current}")
                elif info.changed_silently:
                    text.append(f"version {info.version}, values changed")
                    text.append("without a version bump")
                else:
                    text.append(f"version {info.version}")
            if info.is_output:
                text.append("(an output of this node)")
            vertices.append(Vertex(sid, "saved", text, freed=freed,
                                   modified=info.modified or info.changed_silently))
            links.append(Link(f"n{nid}", sid, "saved"))
        many = {n: len(view.nodes[n].outputs) > 1 for n, _ in view.next_functions(record)
                if n is not None}
        for index, (child, nr) in enumerate(view.next_functions(record)):
            label = f"[{index}]"
            if child is None:
                none_id = f"none{nid}_{index}"
                vertices.append(Vertex(none_id, "none", ["None"]))
                links.append(Link(f"n{nid}", none_id, "none", label))
                continue
            if nr or many.get(child):
                label += f" output_nr {nr}"
            links.append(Link(f"n{nid}", f"n{child}", "next", label))
    return vertices, links


LEGEND = [
    ("output", ["output tensor", "(named, or a backward root)"]),
    ("op", ["grad_fn node", "(a recorded op)"]),
    ("leaf", ["AccumulateGrad", "(adds into a leaf's .grad)"]),
    ("saved", ["saved tensor", "(with its version)"]),
    ("modified", ["saved tensor changed", "in place since (backward fails)"]),
    ("freed", ["node whose saved tensors", "backward freed"]),
    ("none", ["None", "(input needs no grad)"]),
]

_DOT_STYLE = {
    "op": 'shape=box, style="rounded,filled", fillcolor="#e8e8e8"',
    "freed": 'shape=box, style="rounded,filled,dashed", fillcolor="#f8f8f8", '
             'color="#888888", fontcolor="#777777"',
    "leaf": 'shape=box, style="rounded,filled", fillcolor="#bcdcff"',
    "output": 'shape=ellipse, style=filled, fillcolor="#c8efc0"',
    "saved": 'shape=note, style=filled, fillcolor="#ffdcae"',
    "saved_freed": 'shape=note, style="filled,dashed", fillcolor="#fff4e6", '
                   'color="#888888", fontcolor="#777777"',
    "modified": 'shape=note, style=filled, fillcolor="#ff9c9c", color="#cc0000", '
                'penwidth=2, fontcolor="#660000"',
    "none": 'shape=plaintext, fontcolor="#999999"',
}

_DOT_LINK = {
    "next": "",
    "none": 'style=dashed, color="#aaaaaa", fontcolor="#999999"',
    "saved": 'style=dotted, arrowhead=none, color="#cc8a3a", fontcolor="#aa6a1a"',
    "grad_fn": 'style=bold, color="#3c8c2c", fontcolor="#3c8c2c"',
}


def _dot_string(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, no raw newlines."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def _dot_label(lines: list[str]) -> str:
    return "\\n".join(_dot_string(line)[1:-1] for line in lines).join('""')


def _dot_style(vertex: Vertex) -> str:
    if vertex.kind == "saved":
        if vertex.modified:
            return _DOT_STYLE["modified"]
        return _DOT_STYLE["saved_freed" if vertex.freed else "saved"]
    if vertex.kind == "op" and vertex.freed:
        return _DOT_STYLE["freed"]
    return _DOT_STYLE[vertex.kind]


def to_dot(trace: Tracer, *, title: str | None = None, legend: bool = True) -> str:
    """Graphviz DOT for the whole graph: `dot -Tsvg` renders it."""
    view = GraphView(trace)
    vertices, links = graph_elements(view)
    name = title if title is not None else trace.interpreter.source.name
    out = [
        "digraph gradtrace {",
        f'  graph [rankdir=TB, charset="UTF-8", fontname="Helvetica", labelloc=t, '
        f"label={_dot_string('autograd graph of ' + name)}];",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    if legend:
        out.append("  subgraph cluster_legend {")
        out.append('    label="legend"; style=dashed; color="#999999"; fontsize=10;')
        for kind, lines in LEGEND:
            style = {"freed": _DOT_STYLE["freed"], "modified": _DOT_STYLE["modified"]}.get(
                kind, _DOT_STYLE.get(kind, ""))
            out.append(f"    legend_{kind} [label={_dot_label(lines)}, {style}];")
        chain = " -> ".join(f"legend_{kind}" for kind, _ in LEGEND)
        out.append(f"    {chain} [style=invis];")
        out.append("  }")
    if not vertices:
        out.append('  empty [label="no autograd graph was recorded", shape=plaintext];')
    for vertex in vertices:
        out.append(f"  {vertex.id} [label={_dot_label(vertex.lines)}, {_dot_style(vertex)}];")
    for link in links:
        attrs = [f"label={_dot_string(link.label)}"] if link.label else []
        if _DOT_LINK[link.kind]:
            attrs.append(_DOT_LINK[link.kind])
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f"  {link.source} -> {link.target}{suffix};")
    out.append("}")
    return "\n".join(out) + "\n"


_MERMAID_ESCAPES = {
    # inside a quoted label only these need codes: the quote itself, `#` (codes start
    # with it), HTML markup, `;`, `|` (edge labels) and the backtick (Markdown fences)
    "&": "#amp;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "#": "#35;", "`": "#96;",
    "|": "#124;", ";": "#59;", "\\": "#92;", "\n": " ", "\r": " ",
}


def mermaid_escape(text: str) -> str:
    """Text safe inside a quoted Mermaid label: markup and entity characters as codes."""
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in text)


def _mermaid_label(lines: list[str]) -> str:
    return '"' + "<br/>".join(mermaid_escape(line) for line in lines) + '"'


_MERMAID_SHAPE = {
    "op": ("[", "]"), "leaf": ("([", "])"), "output": ("((", "))"), "saved": (">", "]"),
    "none": ("[", "]"),
}

_MERMAID_CLASSES = {
    "op": "fill:#e8e8e8,stroke:#555555,color:#000000",
    "freed": "fill:#f8f8f8,stroke:#888888,stroke-dasharray:5 5,color:#777777",
    "leaf": "fill:#bcdcff,stroke:#3366aa,color:#000000",
    "output": "fill:#c8efc0,stroke:#3c8c2c,color:#000000",
    "saved": "fill:#ffdcae,stroke:#cc8a3a,color:#000000",
    "savedfreed": "fill:#fff4e6,stroke:#888888,stroke-dasharray:5 5,color:#777777",
    "modified": "fill:#ff9c9c,stroke:#cc0000,stroke-width:2px,color:#660000",
    "nograd": "fill:#ffffff,stroke:#cccccc,color:#999999",
}


def _mermaid_class(vertex: Vertex) -> str:
    if vertex.kind == "saved":
        return "modified" if vertex.modified else ("savedfreed" if vertex.freed else "saved")
    if vertex.kind == "op" and vertex.freed:
        return "freed"
    return "nograd" if vertex.kind == "none" else vertex.kind


def to_mermaid(trace: Tracer, *, legend: bool = True) -> str:
    """A Mermaid `flowchart TB` for Markdown (```mermaid fences), complete and escaped."""
    view = GraphView(trace)
    vertices, links = graph_elements(view)
    out = ["flowchart TB"]
    if legend:
        out.append('  subgraph legend["legend"]')
        out.append("    direction LR")
        for kind, lines in LEGEND:
            shape_kind = {"freed": "op", "modified": "saved"}.get(kind, kind)
            left, right = _MERMAID_SHAPE[shape_kind]
            out.append(f"    legend_{kind}{left}{_mermaid_label(lines)}{right}")
        out.append("  end")
    if not vertices:
        out.append('  empty["no autograd graph was recorded"]')
    for vertex in vertices:
        left, right = _MERMAID_SHAPE[vertex.kind]
        out.append(f"  {vertex.id}{left}{_mermaid_label(vertex.lines)}{right}")
    arrows = {"next": "-->", "none": "-.->", "saved": "-.-", "grad_fn": "==>"}
    for link in links:
        arrow = arrows[link.kind]
        label = f'|"{mermaid_escape(link.label)}"|' if link.label else ""
        out.append(f"  {link.source} {arrow}{label} {link.target}")
    for name, style in _MERMAID_CLASSES.items():
        out.append(f"  classDef {name} {style}")
    groups: dict[str, list[str]] = {}
    if legend:
        for kind, _ in LEGEND:
            groups.setdefault({"none": "nograd"}.get(kind, kind), []).append(f"legend_{kind}")
    for vertex in vertices:
        groups.setdefault(_mermaid_class(vertex), []).append(vertex.id)
    for name, ids in groups.items():
        for start in range(0, len(ids), 50):  # keep lines a readable length
            out.append(f"  class {','.join(ids[start:start + 50])} {name}")
    return "\n".join(out) + "\n"


# -- images through Graphviz -------------------------------------------------------


class GraphvizMissing(RuntimeError):
    """The `dot` program (Graphviz) is not installed."""


IMAGE_FORMATS = ("svg", "png")


def require_dot(fmt: str = "svg") -> str:
    """The path of Graphviz's `dot`; raises GraphvizMissing, naming it, when absent."""
    import shutil

    program = shutil.which("dot")
    if program is None:
        raise GraphvizMissing(
            f"--format {fmt} needs the `dot` program from Graphviz, which is not installed "
            "(install Graphviz: apt-get install graphviz, brew install graphviz, or "
            "https://graphviz.org/download/); --format dot writes the DOT text without it")
    return program


def render_image(dot_text: str, fmt: str, *, timeout: float = 120.0) -> bytes:
    """Run Graphviz `dot -T<fmt>` on DOT text; raises GraphvizMissing without it."""
    import subprocess

    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"unknown image format {fmt!r} (choose from {', '.join(IMAGE_FORMATS)})")
    program = require_dot(fmt)
    done = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode("utf-8"),
                          capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"dot -T{fmt} failed: {message}")
    return done.stdout
