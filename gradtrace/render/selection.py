"""Which part of a run's graph a drawing shows: one backward call's graph, one tensor's,
or all of it, cut at a budget of nodes.

A 300-step training loop records 300 copies of one graph, and a long chain thousands of
nodes: drawn whole, the picture is unreadable and Graphviz takes minutes. `select` picks
what the drawings (`graph --format dot|svg|png|mermaid`) and the `view` page show, and
keeps the facts needed to say what was left out and how to see it.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .graph import GraphView, Root

if TYPE_CHECKING:
    from ..tracing import BackwardCall

MAX_DRAWN = 200  # autograd nodes a drawing shows by default (`--max-nodes`)


class SelectionError(ValueError):
    """`--backward` or `--root` names nothing in this run (a usage error)."""


@dataclass
class Selection:
    """What to draw: where the drawing starts, the nodes drawn, where it stops."""

    roots: list[Root]
    node_ids: list[int]  # the drawn nodes, breadth first from the roots
    # a drawn node -> its children (next_functions) that are not drawn: where the cut is
    cut: dict[int, list[int]] = field(default_factory=dict)
    hidden: int = 0  # nodes reachable from the roots that are not drawn
    # the backward calls whose gradients the drawing shows, in order (a later call's
    # gradient along an edge replaces an earlier one's)
    calls: list[BackwardCall] = field(default_factory=list)
    how: str = "all"  # all | backward | last | root
    backward: int | None = None  # the chosen call's index (how = backward | last)
    total_calls: int = 0
    root_name: str | None = None

    @property
    def skipped_calls(self) -> int:
        """Backward calls the drawing leaves out (a picked call leaves the others)."""
        return self.total_calls - 1 if self.how in ("backward", "last") else 0


def parse_backward(value: str | None) -> int | str | None:
    """`--backward N|all`: a call index (1-based, negative from the end) or "all"."""
    if value is None or value == "all":
        return value
    try:
        return int(value)
    except ValueError:
        raise SelectionError(f"--backward takes a call number (1, 2, …, or -1 for the "
                             f"last) or `all`, not {value!r}") from None


def select(view: GraphView, *, backward: int | str | None = None, root: str | None = None,
           max_nodes: int | None = MAX_DRAWN) -> Selection:
    """The part of the graph to draw.

    backward N: the graph of the N-th backward call (its roots), with its gradients;
    "all": every root. root NAME: the graph of the tensor a script name holds at the end
    (or, as the views print them, `x@5`: the tensor x named on line 5 before x was
    bound again; `#ID`: a node by its id). Neither: everything, unless it has more
    than `max_nodes` nodes and backward ran: then the last backward call's graph.
    Past `max_nodes` drawn nodes (None or 0: no limit) the rest is cut and counted.
    """
    calls = view.trace.backward_calls
    if backward is not None and root is not None:
        raise SelectionError("--backward and --root cannot be used together")
    if root is not None:
        roots = [_root_named(view, root)]
        chosen = Selection(roots, [], calls=list(calls), how="root", root_name=root)
    elif backward is not None and backward != "all":
        call = _call(calls, int(backward))
        chosen = Selection(_call_roots(view, call), [], calls=[call], how="backward",
                           backward=call.index)
    else:
        chosen = Selection(view.roots(), [], calls=list(calls))
        if backward is None and len(calls) > 1 and max_nodes and \
                len(view.reachable([r.node_id for r in chosen.roots])) > max_nodes:
            call = calls[-1]
            chosen = Selection(_call_roots(view, call), [], calls=[call], how="last",
                               backward=call.index)
    chosen.total_calls = len(calls)
    _walk(view, chosen, max_nodes or 0)
    return chosen


def _call(calls: list[BackwardCall], number: int) -> BackwardCall:
    if not calls:
        raise SelectionError("--backward: the script made no backward call")
    index = number if number > 0 else len(calls) + 1 + number
    if number == 0 or not 1 <= index <= len(calls):
        many = "1" if len(calls) == 1 else f"1-{len(calls)}"
        raise SelectionError(f"--backward {number}: the script made {len(calls)} backward "
                             f"call{'s' if len(calls) != 1 else ''} (choose {many}, or -1 "
                             "for the last)")
    return calls[index - 1]


def _call_roots(view: GraphView, call: BackwardCall) -> list[Root]:
    roots = []
    for nid, nr in call.roots:
        if nid is not None and all(r.node_id != nid for r in roots):
            roots.append(Root(nid, nr, view.output_label(view.nodes[nid], nr), call.index,
                              call.line))
    return roots


def _root_named(view: GraphView, name: str) -> Root:
    if name.startswith("#"):
        try:
            record = view.nodes[int(name[1:])]
        except (ValueError, KeyError):
            raise SelectionError(f"--root {name}: no node has that id (ids run from 1 to "
                                 f"{len(view.nodes)})") from None
        return Root(record.id, 0, view.output_label(record, None), None, None)
    record = next((r for bound, r in view.named if bound == name), None)
    if record is None and "@" in name:  # an `x@5` name, as the views print it
        found = [r for r in view.tensors.values() if view.naming.label(r.id) == name]
        if len(found) > 1:
            raise SelectionError(
                f"--root {name}: {len(found)} tensors have that name (its line ran "
                f"{len(found)} times); pick one with --backward N or --root '#ID'")
        record = found[0] if found else None
    if record is not None:
        nid = view.node_id(record.tensor.grad_fn)
        if nid is None:
            raise SelectionError(
                f"--root {name}: {name} has no grad_fn (it is a leaf, or does not "
                "require grad), so it has no graph to draw")
        return Root(nid, record.tensor.output_nr, view.tensor_label(record.id),
                    _first_call(view, nid), None)
    names = sorted({n for n, r in view.named if r.tensor.grad_fn is not None})
    hint = f" (names with a graph: {', '.join(names)})" if names else ""
    raise SelectionError(f"--root {name}: no tensor of that name at the end of the "
                         f"script{hint}; as the views print them, `x@5` is the tensor x "
                         "named on line 5 and `#ID` a node")


def _first_call(view: GraphView, nid: int) -> int | None:
    for call in view.trace.backward_calls:
        if any(n == nid for n, _ in call.roots):
            return call.index
    return None


def _walk(view: GraphView, chosen: Selection, max_nodes: int) -> None:
    """Breadth first from the roots: the first `max_nodes` nodes are drawn, the rest
    counted; `cut` records where the drawing stops."""
    seen: set[int] = set()
    drawn: list[int] = []
    queue = deque(r.node_id for r in chosen.roots)
    hidden = 0
    while queue:
        nid = queue.popleft()
        if nid in seen:
            continue
        seen.add(nid)
        if max_nodes and len(drawn) >= max_nodes:
            hidden += 1
        else:
            drawn.append(nid)
        for child, _ in view.next_functions(view.nodes[nid]):
            if child is not None and child not in seen:
                queue.append(child)
    chosen.node_ids = drawn
    chosen.hidden = hidden
    if hidden:
        inside = set(drawn)
        for nid in drawn:
            out = [c for c, _ in view.next_functions(view.nodes[nid])
                   if c is not None and c not in inside]
            if out:
                chosen.cut[nid] = list(dict.fromkeys(out))


def chosen_roots(view: GraphView, backward: int | str | None,
                 root: str | None) -> list[Root] | None:
    """Where the tree view starts for --backward/--root (None: at every root)."""
    if (backward is None or backward == "all") and root is None:
        return None
    return select(view, backward=backward, root=root, max_nodes=0).roots
