"""Telling what a recorded node saved, and the local derivatives its backward will use.

The derivatives come from the op's own formulas (`Function.formulas`) and backward
(derivation.py): one per operand, `∂c/∂a = b = 3.`, and when the same tensor is several
operands (`x * x`), each operand by its name and how their gradients add up.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine.formulas import UNDEFINED, input_name
from ...engine.node import AccumulateGrad
from ...summary import Summary
from .derivation import LOCAL, formulas_of, local_values, substitute
from .model import MAX_TOLD_EDGES, Step
from .numbers import fmt_value, is_uniform, uniform_text

if TYPE_CHECKING:
    from .story import Story


def saved_attr(record: Any, key: str) -> str:
    """How a script reads a node's saved value `key`: `_saved_self`, or `saved_tensors[0]`
    of a custom Function's ctx (Node.saved_attribute)."""
    if record is None:
        return f"_saved_{key}"
    return record.node.saved_attribute(key)


class SavedTeller:
    def __init__(self, story: Story):
        self.s = story
        self._local: tuple[int | None, list[Any]] = (None, [])

    def local(self, record: Any) -> list[Any]:
        """The node's local derivatives at record time (computed once per node)."""
        if self._local[0] != record.id:
            values = {sv.name: sv.value for sv in record.saved}
            self._local = (record.id, local_values(record.node, values))
        return self._local[1]

    def repeated(self, record: Any, inputs: list[int | None]) -> dict[int, list[int]]:
        """Tensors that are several operands needing a gradient: tensor id -> positions."""
        places: dict[int, list[int]] = defaultdict(list)
        for i, ((nxt, _), tid) in enumerate(zip(record.node.next_functions, inputs,
                                                strict=False)):
            if nxt is not None and tid is not None:
                places[tid].append(i)
        return {tid: where for tid, where in places.items() if len(where) > 1}

    def local_derivatives(self, record: Any, out_labels: list[str]
                          ) -> tuple[list[str], list[dict[str, Any]], bool]:
        """`∂c/∂a = b = 3.` for each operand that needs a gradient; `x gets grad @ wᵀ` for
        an op whose gradient is not elementwise. Returns the texts, their facts, and
        whether every one is a local derivative."""
        s = self.s
        node = record.node
        chosen = formulas_of(node)
        inputs = s.inputs_of(record)
        out = out_labels[0] if len(out_labels) == 1 else "(" + ", ".join(out_labels) + ")"
        operands = self.s.operands(record, inputs)
        repeated = self.repeated(record, inputs)
        local = self.local(record) if any(
            f is not None and f.kind == LOCAL for f in chosen) else [None] * len(chosen)
        texts: list[str] = []
        facts: list[dict[str, Any]] = []
        all_local = True
        untold = 0
        for i, ((nxt, _), tid) in enumerate(zip(node.next_functions, inputs, strict=False)):
            formula = chosen[i] if i < len(chosen) else None
            if nxt is None or formula is None:
                continue
            if len(texts) >= MAX_TOLD_EDGES:  # counted, not told (a stack of 30,000)
                untold += 1
                all_local = all_local and formula.kind == LOCAL
                continue
            name = input_name(formula, i) or str(i)
            inp = s.label(tid)
            shared = tid in repeated
            value = local[i] if i < len(local) else None
            shown = substitute(formula.math, operands)
            if formula.kind == UNDEFINED:
                text = s.t("math.undefined", inp=name if shared else inp, node=record.name)
                all_local = False
            elif formula.kind == LOCAL:
                left = name if shared else inp
                text = s.t("math.derivative", out=out, inp=left,
                           formula=substitute(formula.math, {}) if shared else shown)
                if shared and shown != substitute(formula.math, {}):
                    text = s.t("math.equals", left=text, value=shown)
                if value is not None and not _says(shown, value):
                    text = s.t("math.equals", left=text, value=uniform_text(value))
            else:
                all_local = False
                text = s.t("math.vjp", inp=name if shared else inp,
                           formula=substitute(formula.math, {**operands, "grad": "grad"}))
            texts.append(text)
            facts.append({"input": inp, "operand": name, "index": i, "kind": formula.kind,
                          "formula": shown, "uses": [u for u in formula.operands
                                                     if u != "grad"], "value": value})
        if untold:
            texts.append(s.t("list.more", count=f"{untold:,}"))
        return texts, facts, all_local

    def same_tensor(self, steps: list[Step], record: Any, out_labels: list[str],
                    line: int | None) -> None:
        """`self and other are the same tensor x: ... AccumulateGrad adds them up: in total
        ∂y/∂x = [2., 4., 6.]` for each tensor that is several operands."""
        s = self.s
        inputs = s.inputs_of(record)
        repeated = self.repeated(record, inputs)
        if not repeated:
            return
        chosen = formulas_of(record.node)
        local = self.local(record)
        out = out_labels[0] if len(out_labels) == 1 else "(" + ", ".join(out_labels) + ")"
        for tid, where in repeated.items():
            names = [input_name(chosen[i], i) or str(i) for i in where]
            leaf = isinstance(record.node.next_functions[where[0]][0], AccumulateGrad)
            kind = "op.same_leaf" if leaf else "op.same_tensor"
            parts = [local[i] for i in where if i < len(local)]
            value = None
            if parts and all(p is not None and not isinstance(p, Summary) for p in parts):
                value = sum(np.asarray(p) for p in parts)
                kind += ".total"
            s.say(steps, kind, line, operands=names, tensor=s.label(tid), out=out,
                  total=value, text={"operands": s.t.join(names),
                                     "total": uniform_text(value) if value is not None else ""})

    def tell(self, steps: list[Step], record: Any, out_labels: list[str],
              line: int | None) -> None:
        s = self.s
        derivs, deriv_facts, all_local = self.local_derivatives(record, out_labels)
        kept = [sv for sv in record.saved if sv.tensor_id is not None]
        entries = []
        for sv in kept:
            label = s.label(sv.tensor_id)
            if s.is_number(sv.tensor_id):
                entries.append(s.t("saved.entry.number", attr=saved_attr(record, sv.name),
                                   tensor=label))
            elif s.naming is not None and s.naming.made_to_save(sv.tensor_id) \
                    and s.tensors[sv.tensor_id].saved_as == (record.id, sv.name):
                entries.append(s.t("saved.entry.own", attr=saved_attr(record, sv.name),
                                   value=fmt_value(sv.value),
                                   version=sv.version))
            else:
                entries.append(s.t("saved.entry", attr=saved_attr(record, sv.name), tensor=label,
                                   value=fmt_value(sv.value), version=sv.version))
        facts_saved = [{"key": sv.name, "tensor": s.label(sv.tensor_id), "value": sv.value,
                        "version": sv.version, "is_output": sv.is_output} for sv in kept]
        if kept and derivs:
            s.say(steps, "op.saved" if all_local else "op.saved.vjp", line, node=record.name,
                  saved=facts_saved, derivatives=deriv_facts,
                  text={"saved": s.t.join(entries), "derivatives": s.t.join(derivs)})
        elif kept:
            s.say(steps, "op.saved.generic", line, node=record.name, saved=facts_saved,
                  text={"saved": s.t.join(entries)})
        elif derivs:
            s.say(steps, "op.saved.nothing", line, node=record.name, derivatives=deriv_facts,
                  text={"derivatives": s.t.join(derivs)})
        self.packed(steps, record, kept, line)
        self.same_tensor(steps, record, out_labels, line)
        self.skipped(steps, record, line)

    def packed(self, steps: list[Step], record: Any, kept: list[Any], line: int | None) -> None:
        """Saved under saved_tensors_hooks: which hooks ran, once per pair of hooks."""
        s = self.s
        by_hooks: dict[tuple[str, str], list[str]] = {}
        for sv in kept:
            if sv.packed is not None:
                by_hooks.setdefault(sv.packed, []).append(saved_attr(record, sv.name))
        for (pack_hook, unpack_hook), attrs in by_hooks.items():
            s.say(steps, "op.saved.packed", line, node=record.name, saved=attrs,
                  pack_hook=pack_hook, unpack_hook=unpack_hook,
                  text={"saved": s.t.join(attrs)})

    def skipped(self, steps: list[Step], record: Any, line: int | None) -> None:
        """A saved slot left empty: only the gradient of an input that needs none uses it."""
        s = self.s
        inputs = s.inputs_of(record)
        chosen = formulas_of(record.node)
        for sv in record.saved:
            if sv.tensor_id is not None:
                continue
            users = [i for i, f in enumerate(chosen) if f is not None and i < len(inputs)
                     and sv.name in f.operands]
            if users and all(record.node.next_functions[i][0] is None for i in users):
                names = [s.label(inputs[i]) for i in users]
                numbers = all(s.is_number(inputs[i]) for i in users)
                s.say(steps, "op.saved.skipped.number" if numbers else "op.saved.skipped",
                      line, key=sv.name, inputs=names,
                      text={"inputs": s.t.join(names), "attr": saved_attr(record, sv.name)})


def _says(formula: str, value: Any) -> bool:
    """Whether a formula already states the value: `1` for ones, `… = y` shown as y."""
    number = uniform_text(value)
    if formula == number or formula.endswith(f"= {number}"):
        return True
    try:
        constant = float(formula)
    except ValueError:
        return False
    return is_uniform(value) and bool(np.isclose(_first(value), constant, rtol=1e-6, atol=0))


def _first(value: Any) -> float:
    if isinstance(value, Summary):
        return float(value.head[0])
    return float(np.asarray(value).reshape(-1)[0])
