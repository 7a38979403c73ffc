"""The autograd graph of a run: `GraphView`, and the graph as a rich tree.

Everything here reads a `tracing.Tracer` (the trace of one run) through `GraphView`,
which indexes its records by id and answers the questions every view asks: the roots to
draw, a node's label, its saved tensors with their versions, which backward freed it.
The pictures (DOT, Mermaid, SVG/PNG) are drawing.py and images.py.

All walks are iterative (a script can build a chain of 10,000 ops). The tree view is
capped for the terminal (`max_nodes`, and a depth past which a branch continues as its
own tree).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text

from ..engine.node import AccumulateGrad, Node
from ..naming import Binding, Naming, introduce
from .layout import CompactTree
from .values import attr_cell, cut, short_node_name, tensor_cell

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
    packed: tuple[str, str] | None = None  # (pack, unpack) saved_tensors_hooks that ran on it

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
    if isinstance(now, Summary) or isinstance(saved_value, Summary) or \
            type(now) is not type(saved_value):
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
        self._reachable: dict[tuple[int, ...], list[int]] = {}  # see `reachable`
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
            # an AccumulateGrad comes with its leaf: known now, as it will be to later views
            if isinstance(node, AccumulateGrad):
                leaf = self.trace.record_of(node.variable)
                if leaf is not None:
                    self.tensors.setdefault(leaf.id, leaf)
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
        seen: set[int] = set()  # (a tensor is one node's output and another's input)
        for tid in tensor_ids:
            if tid is None or tid in seen:
                continue
            seen.add(tid)
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
            info = SavedInfo(s.name, s.tensor_id, version=s.version, is_output=s.is_output,
                             packed=s.packed)
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
        """Node ids reachable from `starts` (included), in depth-first preorder.

        Remembered by `starts` (a finished trace's graphs do not change): the tree view
        walks every root's graph twice, for the roots and for what it leaves out."""
        key = tuple(starts)
        known = self._reachable.get(key)
        if known is None:
            known = self._reachable[key] = self._walk(starts)
        return list(known)

    def _walk(self, starts: list[int]) -> list[int]:
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
        _saved_state(text, info)
        if info.packed is not None:
            text.append(f" [packed by {info.packed[0]} · unpacked by {info.packed[1]}]",
                        style="magenta")
    return text


def _saved_state(text: Text, info: SavedInfo) -> None:
    """A saved tensor's version, and whether it changed since it was saved."""
    if info.version is None:
        return
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
                max_depth: int = 12, roots: list[Root] | None = None) -> list[RenderableType]:
    """One tree per root (see `GraphView.roots`), built without recursion: a `CompactTree`,
    which prints what rich's `Tree` would.

    A node reached a second time is referenced as "(shown above)". Past `max_depth` a
    branch continues as its own tree below; past `max_nodes` shown nodes the rest is
    counted, not drawn. `roots`: where the trees start (default: `view.roots()`).
    """
    if roots is None:
        roots = view.roots()
    out: list[RenderableType] = []
    shown: set[int] = set()
    deferred: set[int] = set()
    # a queue of trees to draw: (root, or a continued tree's label; node id);
    # continuations are appended. A root's label is made when its tree is drawn: past
    # `max_nodes` the rest are only counted (a 200-step loop draws 12 of 200 roots)
    queue: list[tuple[Root | Text, int]] = [(r, r.node_id) for r in roots]
    count = 0
    position = 0
    stopped = False
    while position < len(queue) and not stopped:
        head, start = queue[position]
        if count >= max_nodes and start not in shown:
            stopped = True
            break
        position += 1
        label = head if isinstance(head, Text) else _root_text(view, head)
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
                view: GraphView | None = None, roots: list[Root] | None = None) -> None:
    """Print the graph trees of a run to a rich console, after the `x@5` names they use;
    `view`, if given, is the run's `GraphView(trace)` already built; `roots`, where the
    trees start (default: all)."""
    if view is None:
        view = GraphView(trace)
    view.value_limit = max(30, 30 + (console.width - 100) // 3)
    trees = graph_trees(view, max_nodes=max_nodes, max_depth=tree_depth_for(console.width),
                        roots=roots)
    if not trees:
        console.print(Text("No autograd graph: no tensor was computed from one that "
                           "requires grad.", style="dim"))
        return
    console.print(Group(*old_names_lines(view, roots), *trees))


MAX_OLD_NAMES = 10


def old_names_lines(view: GraphView, roots: list[Root] | None = None) -> list[Text]:
    """The `x@5` names the graph and backward sections use, each introduced once: which
    tensor a name held that now names another one. With `roots`, only the names of the
    graphs that start there."""
    records = view.nodes.values() if roots is None else [
        view.nodes[nid] for nid in view.reachable([r.node_id for r in roots])]
    ids: list[int | None] = []
    for record in records:
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
