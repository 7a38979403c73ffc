"""A grad transform's inputs (torch.func's GradTrackingTensor) in the engine's one graph.

torch keeps one autograd graph per level: an op on a level's wrapped input is recorded at
that level against the wrapper (a leaf there) and, one level down, against the tensor the
wrapper holds, so the caller's graph of a transform's result reaches the caller's tensors
directly (no node for the wrapping; no edge at all to an input that did not require grad).
gradtrace records each op once: a level input is a fresh leaf, where the level's
autograd.grad captures its gradient, and when the level ends every edge to it is spliced to
where torch's outer graph has it: the wrapped tensor's own edge, with the wrapped tensor's
shape (an input a grad transform inside vmap expanded along the batch then reduces back, as
the unbatched tensor's own op would). An op recorded on a spent level input afterwards (a
saved input in a create_graph backward) takes the outer edge at once. vjp's function runs
after its level ended: `restore` puts the level's edges back while it differentiates."""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from . import tensor as _tensor
from .node import AccumulateGrad, Node, next_sequence_nr

if TYPE_CHECKING:
    from .tensor import Tensor

Edge = tuple[Node | None, int]
Meta = tuple[tuple[int, ...], Any]


class LevelInput:
    """What a level input stands for in the caller's graph."""

    __slots__ = ("edge", "meta", "original", "spent", "first", "splices")

    def __init__(self, original: Tensor):
        self.original = original
        self.first = next_sequence_nr()  # (nodes made before it cannot have its edge)
        self.edge: Edge = _tensor.gradient_edge(original) if original.requires_grad else (None, 0)
        self.meta: Meta = (original.array.shape, original.dtype)
        self.spent = False
        self.splices: list[Splice] = []


INPUTS: dict[int, tuple[weakref.ref, LevelInput]] = {}
"""id(level input leaf) -> (the leaf, its entry): live and spent level inputs."""

OUTER_NODES: weakref.WeakKeyDictionary[Node, tuple[Edge, Meta]] = weakref.WeakKeyDictionary()
"""A node of a level's batched op that torch runs unbatched (batching/dispatch.shadowed):
the unbatched op's edge and shape, which the caller's graph has in its place."""


def set_outer_node(node: Node, tensor: Tensor) -> None:
    """`tensor` (an unbatched op's result) is what torch's outer graph has for `node`."""
    OUTER_NODES[node] = (_tensor.gradient_edge(tensor) if tensor.requires_grad else (None, 0),
                         (tensor.array.shape, tensor.dtype))


DEAD: weakref.WeakSet[Node] = weakref.WeakSet()
"""Nodes of ended levels that torch's outer graph does not have (every input they used stood
for a tensor that does not require grad there): an op recorded later on their results has
no edge to them."""
ANY_DEAD = False
"""Whether DEAD ever held a node (Function.call's cheap check)."""


SCRATCH: dict[int, weakref.ref] = {}
"""id(leaf) -> the leaf: the scratch leaves of forward_ad's double-backward tangents (the
dummies and the primals' copies), which a kept tangent's graph reaches but torch's formula
has no edge to: no leaf of the caller's autograd."""


def scratch_leaf(array: np.ndarray) -> Tensor:
    """A fresh leaf that requires grad, known as scratch (is_scratch)."""
    leaf = _tensor.Tensor._wrap(array)
    leaf.requires_grad = True
    key = id(leaf)
    SCRATCH[key] = weakref.ref(leaf, lambda _, scratch=SCRATCH: scratch.pop(key, None))
    return leaf


def is_scratch(t: Any) -> bool:
    ref = SCRATCH.get(id(t))
    return ref is not None and ref() is t


def reset() -> None:
    """A new run: no level input, spliced node or dead node of an earlier run is reachable
    from it (and keeping them would send every number operand down the slow path)."""
    global ANY_DEAD
    INPUTS.clear()
    SCRATCH.clear()
    OUTER_NODES.clear()
    DEAD.clear()
    ANY_DEAD = False


def level_input(original: Tensor, array: np.ndarray | None = None) -> Tensor:
    """A fresh leaf standing for `original` at a new grad level, sharing its data (or
    `array`: its data expanded along the running vmaps' batches)."""
    leaf = _tensor.Tensor._wrap(original.array if array is None else array)
    leaf._version_counter = original._version_counter
    leaf.requires_grad = True
    key = id(leaf)
    INPUTS[key] = (weakref.ref(leaf, lambda _, inputs=INPUTS: inputs.pop(key, None)),
                   LevelInput(original))
    return leaf


def entry_of(t: Tensor) -> LevelInput | None:
    """The level input `t` is, if it is one."""
    item = INPUTS.get(id(t))
    if item is None or item[0]() is not t:
        return None
    return item[1]


def below_transforms(t: Any) -> Any:
    """What a custom Function's forward sees of `t` under grad transforms: functorch
    unwraps it level by level, so it requires grad only where its history reaches a leaf
    of the caller's autograd (not a grad level's input); else it is `t` detached."""
    if not isinstance(t, _tensor.Tensor) or not t.requires_grad:
        return t
    if t.grad_fn is None:
        return t if entry_of(t) is None else t.detach()
    seen: set[int] = set()
    stack: list[Node | None] = [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if entry_of(node.variable) is None:
                return t
            continue
        if node in OUTER_NODES:  # (a vmapped grad's node standing for the caller's graph)
            return t
        stack.extend(n for n, _ in node.next_functions)
    return t.detach()


def spent_edge(t: Tensor) -> LevelInput | None:
    """`t`'s entry when it is a level input whose level ended (Function.call's check)."""
    entry = entry_of(t)
    return entry if entry is not None and entry.spent else None


class Splice:
    """The edges one level's end changed: (node, input index, the level's edge and shape)."""

    __slots__ = ("changes",)

    def __init__(self) -> None:
        self.changes: list[tuple[Node, int, Edge, Meta, Edge, Meta]] = []


def end(leaves: list[Tensor], roots: list[Tensor]) -> None:
    """The level of `leaves` ends: every edge to them in the graph of `roots` goes where
    torch's outer graph has it; they are spent."""
    splice = Splice()
    accs = {}
    pairs = [(leaf, e) for leaf in leaves if (e := entry_of(leaf)) is not None]
    for leaf, entry in pairs:
        entry.spent = True
        acc = leaf._accumulator() if leaf._accumulator is not None else None
        if acc is not None:
            accs[acc] = entry
    if not accs:
        return
    _add_spent_inner(accs)
    first = min(e.first for e in accs.values())
    seen: set[Node] = set()
    stack = [t.grad_fn for t in roots if isinstance(t, _tensor.Tensor) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen or node.sequence_nr < first or isinstance(node, AccumulateGrad):
            continue
        seen.add(node)
        edges = node.next_functions
        hit = [i for i, (n, _) in enumerate(edges)
               if n is not None and (n in accs or (n in OUTER_NODES and n.sequence_nr >= first))]
        if hit:
            new_edges, metas = list(edges), list(node.input_meta)
            for i in hit:
                target = edges[i][0]
                entry = accs.get(target)
                edge, meta = (entry.edge, entry.meta) if entry is not None \
                    else OUTER_NODES[target]
                splice.changes.append((node, i, edges[i], metas[i], edge, meta))
                new_edges[i], metas[i] = edge, meta
            _set_edges(node, tuple(new_edges), tuple(metas))
        stack.extend(n for n, _ in edges if n is not None)
    _prune(sorted(seen, key=lambda n: n.sequence_nr), splice)
    if splice.changes:
        for _, entry in pairs:
            entry.splices.append(splice)


def _add_spent_inner(accs: dict[Node, LevelInput]) -> None:
    """The leaves of inner levels that ended before this one and stood for this level's
    leaves: an inner level's backward (grad of grad of grad) made nodes after its end whose
    edges still lead to them, and those go where this level's leaves go."""
    changed = True
    while changed:
        changed = False
        for ref, entry in list(INPUTS.values()):
            leaf = ref()
            if leaf is None or not entry.spent or leaf._accumulator is None:
                continue
            acc = leaf._accumulator()
            target = entry.edge[0]
            if acc is not None and acc not in accs and target in accs:
                accs[acc] = accs[target]
                changed = True


def _set_edges(node: Node, edges: tuple, metas: tuple) -> None:
    """Rewire a node's edges: as slots, past a custom Function's ctx, whose next_functions
    a script may not assign (the engine's own rewiring is no script's assignment)."""
    object.__setattr__(node, "next_functions", edges)
    object.__setattr__(node, "input_meta", metas)


def _prune(nodes: list[Node], splice: Splice) -> None:
    """A node of the level whose every edge now leads nowhere (it only used inputs that do
    not require grad outside) is no node of torch's outer graph: the edges to it go nowhere
    too (`nodes` in the order they were made, inputs first)."""
    dead: set[Node] = set()
    changed = {id(c[0]) for c in splice.changes}
    for node in nodes:
        edges = node.next_functions
        hit = [i for i, (n, _) in enumerate(edges) if n is not None and n in dead]
        if hit:
            new_edges = list(edges)
            for i in hit:
                splice.changes.append((node, i, edges[i], node.input_meta[i], (None, 0),
                                       node.input_meta[i]))
                new_edges[i] = (None, 0)
            _set_edges(node, tuple(new_edges), node.input_meta)
            changed.add(id(node))
        if id(node) in changed and all(n is None for n, _ in node.next_functions):
            dead.add(node)
    if dead:
        global ANY_DEAD
        ANY_DEAD = True
        DEAD.update(dead)


def restore(leaves: list[Tensor], level_edges: bool) -> None:
    """Put a spent level's own edges back (vjp's function differentiates at that level), or
    the outer ones again. Its inputs stay spent: what the differentiation records is
    recorded in the outer graph, as torch's ops on a dead level's wrappers are."""
    splices = {id(s): s for leaf in leaves if (e := entry_of(leaf)) for s in e.splices}
    changes = [c for s in splices.values() for c in s.changes]
    for node, i, inner, inner_meta, outer, outer_meta in changes:
        edges, metas = list(node.next_functions), list(node.input_meta)
        edges[i], metas[i] = (inner, inner_meta) if level_edges else (outer, outer_meta)
        _set_edges(node, tuple(edges), tuple(metas))
