"""Local derivatives and gradients, from the op's own formulas and backward.

Nothing here knows an op: the formula for each input comes from the op's node class
(`Function.formulas`, engine/formulas.py) and the numbers from its own backward run on the
values the trace kept (`engine.formulas.replay`). That is how `explain` shows ∂out/∂input
at record time, and how it tells what a gradient should have been when `.data` changed a
saved tensor behind the version counter.
"""
from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...engine.formulas import LOCAL, VJP, Formula, ReplayError, formulas_of, replay
from ...summary import FULL_LIMIT, Summary
from .numbers import fmt_number

EXACT_LIMIT = 1 << 20  # local derivatives of outputs larger than this are not computed
_OPERAND = re.compile(r"{(\w+)}")
_NUMBER = r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?"
_ARITHMETIC = re.compile(rf"\(({_NUMBER}) ([-+]) ({_NUMBER})\)")

__all__ = ["Formula", "LOCAL", "VJP", "formulas_of", "substitute", "chain", "local_values",
           "replay_call", "summed_dims", "EXACT_LIMIT"]


def substitute(math: str, operands: Mapping[str, str]) -> str:
    """The formula with its operands filled in; `x^(2 - 1)` becomes `x^1`."""
    text = _OPERAND.sub(lambda m: operands.get(m.group(1), m.group(1)), math)
    return _ARITHMETIC.sub(_fold, text)


def _fold(match: re.Match[str]) -> str:
    a, op, b = match.groups()
    number = float(a) + float(b) if op == "+" else float(a) - float(b)
    if number == int(number) and "e" not in a + b:
        return str(int(number)) + ("." if "." in a + b else "")
    return fmt_number(number)


def _top_level_operator(text: str) -> bool:
    """Whether `text` has a +, - or conditional outside brackets (it needs parentheses)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == " " and (text.startswith((" + ", " - ", " if "), i)):
            return True
    return False


def chain(formula: Formula, grad: str, operands: Mapping[str, str]) -> str:
    """What backward computes for the input: `grad × local` for a local derivative (in
    its simplest written form), the formula itself for a vector-Jacobian product."""
    if formula.kind == VJP:
        return substitute(formula.math, ChainMap({"grad": grad}, operands))  # type: ignore[arg-type]
    local = substitute(formula.math, operands)
    if local == "1":
        return grad
    if local == "-1":
        return f"-{grad}"
    if local.startswith("1 / ") and not _top_level_operator(local):
        return f"{grad} / {local[4:]}"
    if _top_level_operator(local):
        local = f"({local})"
    return f"{grad} × {local}"


def _replayable(values: dict[str, Any]) -> bool:
    return not any(isinstance(v, Summary) for v in values.values())


def local_values(node: Any, values: dict[str, Any]) -> list[Any]:
    """∂out/∂input at each element for the inputs with a local formula (None otherwise).

    From the op's own backward with ones as the gradient, before the engine sums it to the
    input's shape. When a saved value is a summary (a large array), a formula that is a
    single saved operand (`{other}`) has that operand's value; others have none.
    """
    chosen = formulas_of(node)
    out: list[Any] = [None] * len(chosen)
    wanted = [i for i, f in enumerate(chosen) if f is not None and f.kind == LOCAL
              and node.next_functions[i][0] is not None]
    if not wanted or not node.output_meta:
        return out
    small = all(int(np.prod(shape)) <= EXACT_LIMIT for shape, _ in node.output_meta)
    if small and _replayable(values):
        ones = [np.ones(shape, dtype=dtype.np) for shape, dtype in node.output_meta]
        try:
            sent = replay(node, ones, values, reduce=False)
        except ReplayError:
            sent = []
        for i in wanted:
            if i < len(sent) and sent[i] is not None and _per_element(node, i, sent[i]):
                v = sent[i]
                out[i] = v if v.size <= FULL_LIMIT else Summary.of(v)
        return out
    for i in wanted:
        names = _OPERAND.findall(chosen[i].math)
        if len(names) == 1 and chosen[i].math == "{" + names[0] + "}":
            out[i] = values.get(names[0])
    return out


def _per_element(node: Any, i: int, value: np.ndarray) -> bool:
    """Whether a replayed gradient is ∂out/∂input at each element: in the shape the output
    and the input broadcast to, not one a backward already summed itself (layer_norm's
    weight)."""
    meta = node.input_meta[i] if i < len(node.input_meta) else None
    if meta is None:
        return False
    try:
        shape = np.broadcast_shapes(tuple(node.output_meta[0][0]), tuple(meta[0]))
    except ValueError:
        return False
    return value.shape == shape


def summed_dims(out_shape: tuple[int, ...], in_shape: tuple[int, ...]) -> list[int]:
    """The output dims a gradient is summed over to reach a broadcast input's shape."""
    out_shape, in_shape = tuple(out_shape), tuple(in_shape)
    lead = len(out_shape) - len(in_shape)
    if lead < 0:
        return []
    return list(range(lead)) + [lead + i for i, n in enumerate(in_shape)
                                if n == 1 and out_shape[lead + i] != 1]


def replay_call(call: Any, nodes: dict[int, Any]) -> dict[int, np.ndarray] | None:
    """Rerun a backward call with the values as they were saved; leaf grads by tensor id.

    Each node runs its own backward (engine.formulas.replay). None when a value on the
    way is only a summary or a node cannot run again. Used to tell what a gradient would
    have been had a saved tensor not been changed behind its version counter.
    """
    by_node = {id(r.node): r.id for r in nodes.values()}
    buffers: dict[tuple[int, int], np.ndarray] = {}

    def add(key: tuple[int, int], g: np.ndarray) -> None:
        buffers[key] = g if key not in buffers else buffers[key] + g

    if any(isinstance(g, Summary) for g in call.root_grads):
        return None
    for (nid, nr), g in zip(call.roots, call.root_grads, strict=False):
        if nid is not None and g is not None:
            add((nid, nr), np.asarray(g))
    leaves: dict[int, np.ndarray] = {}
    for step in call.steps:
        record = nodes[step.node_id]
        node = record.node
        if step.accumulated is not None:
            g = buffers.get((step.node_id, 0))
            if g is not None:
                leaves[step.accumulated[0]] = g
            continue
        grads = [buffers.get((step.node_id, i)) for i in range(max(1, len(node.output_meta)))]
        if all(g is None for g in grads):
            continue
        saved = {s.name: s.value for s in record.saved}
        if not _replayable(saved):
            return None
        try:
            sent = replay(node, grads, saved, create_graph=call.create_graph)
        except ReplayError:
            return None
        for (nxt, nr), g in zip(node.next_functions, sent, strict=False):
            if nxt is not None and g is not None and id(nxt) in by_node:
                add((by_node[id(nxt)], nr), g)
    return leaves
