"""The state `explain` keeps while it tells a run: names, what was said, indexes.

`Story` walks nothing by itself: the tellers (statements.py, backward.py, errors.py) read
and update it as the run is told event by event, and `say` turns a message id and facts
into a `Step` in the story's language. Names come from the one naming rule
(gradtrace/naming.py) as of the statement being told; an expression is quoted in
backticks.
"""
from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...engine.formulas import formulas_of, input_name
from ...engine.node import AccumulateGrad
from ...naming import EXPRESSION, Naming
from ..catalogs import Catalog, fields
from .model import Step
from .numbers import fmt_attr, fmt_value, jsonable

MAX_LISTED = 5


@dataclass
class Visit:
    """The events of one statement run (or one backward call)."""

    kind: str  # statement | backward
    line: int | None
    events: list[tuple[int, Any]] = field(default_factory=list)
    call: Any = None
    begin: int = 0
    closed: bool = False


_FIELDS: dict[tuple[str, str], frozenset[str]] = {}


def _message_fields(catalog: Catalog, message: str) -> frozenset[str]:
    """The fields a message's template uses (their base names)."""
    key = (catalog.lang, message)
    names = _FIELDS.get(key)
    if names is None:
        names = _FIELDS[key] = frozenset(re.split(r"[.\[]", name)[0]
                                         for name in fields(catalog.messages[message]))
    return names


def statement_lines(source: Any, module: Any) -> tuple[dict[int, int], dict[int, str]]:
    """Map each line to the line of the innermost statement containing it, plus its text.

    `module` is the run's parsed script; None (it did not parse) groups nothing."""
    from ... import syntax

    if module is None:
        return {}, {}
    compound = (syntax.If, syntax.For, syntax.While, syntax.With, syntax.Try,
                syntax.FunctionDef, syntax.Match)
    owner: dict[int, tuple[int, int]] = {}  # line -> (size, statement line)
    texts: dict[int, str] = {}

    def visit(stmts: Any) -> None:
        for stmt in stmts:
            span = stmt.span
            size = span.end_line - span.line
            for line in range(span.line, span.end_line + 1):
                if line not in owner or size <= owner[line][0]:
                    owner[line] = (size, span.line)
            text = source.line_text(span.line).strip()
            if size and not isinstance(stmt, compound):
                text += " …"
            texts[span.line] = text
            for attr in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, attr, None)
                if isinstance(inner, tuple):
                    visit(inner)
            for handler in getattr(stmt, "handlers", ()) or ():
                visit(handler.body)
            for case in getattr(stmt, "cases", ()) or ():  # a `match` statement's
                visit(case.body)

    visit(module.body)
    return {line: stmt for line, (_, stmt) in owner.items()}, texts


class OutOfTime(Exception):
    """The story ran past Options.deadline: the rest of the run is not told."""


class Story:
    """What the tellers share: the trace's indexes, the names, and what was said."""

    def __init__(self, result: Any, catalog: Catalog):
        self.result = result
        self.t = catalog
        self.source = result.source
        trace = result.trace
        self.trace = trace
        self.tensors = dict(trace.tensors) if trace else {}
        self.nodes = {r.id: r for r in trace.nodes.values()} if trace else {}
        self.node_of = {id(r.node): r for r in trace.nodes.values()} if trace else {}
        self.stmt_of, self.stmt_text = statement_lines(self.source, result.module)
        self.naming = Naming(trace) if trace else None
        self.bound: set[int] = set()
        self.produced: set[int] = set()
        self.grad_enabled = True
        self.executed: set[int] = set()
        self.reported: set[tuple[str, int]] = set()
        self.has_grad: set[int] = set()  # leaves whose .grad is not None
        self.node_created: dict[int, int] = {}  # node id -> event index of its op
        # (event index, tensor id, version after, line, expression)
        self.inplace_log: list[tuple[int, int, int, int | None, str]] = []
        self.library_made: set[int] = set()  # tensors library code made, recording nothing
        self.released: set[int] = set()  # nodes whose saved tensors a backward freed
        self.quiet = False  # say only warnings and errors (a run not told in full)
        self.cap: int | None = None  # steps a section may have; later ones are counted
        self.hidden = 0  # steps not said because the section was full
        self.at: dict[str, Any] | None = None  # what the steps said now tell about (Step.at)
        self.grad_results: set[int] = set()  # tensors torch.autograd.grad returned
        self.deadline: float | None = None  # time.monotonic() past which telling stops
        self.in_graph: set[int] = set()
        for record in self.nodes.values():
            self.in_graph.update(i for i in record.inputs if i is not None)
        self.begin_of: dict[int, int] = {}  # backward call -> index of its backward_begin
        if trace:
            for idx, ev in enumerate(trace.events):
                if ev.kind == "op" and ev.facts.get("node") is not None:
                    self.node_created.setdefault(ev.facts["node"], idx)
                elif ev.kind == "backward_begin":
                    self.begin_of[ev.facts["call"]] = idx
        # indexes, so that long loops stay linear
        self.tensors_by_counter: dict[int, list[int]] = defaultdict(list)
        for record in self.tensors.values():
            self.tensors_by_counter[record.counter].append(record.id)
        self.saved_by_counter: dict[int, list[tuple[Any, Any]]] = defaultdict(list)

    # -- where ----------------------------------------------------------------------

    def stmt(self, line: int | None) -> int | None:
        return None if line is None else self.stmt_of.get(line, line)

    def source_of(self, line: int | None) -> str:
        if line is None:
            return ""
        return self.stmt_text.get(line) or self.source.line_text(line).strip()

    # -- names ----------------------------------------------------------------------

    def label(self, tid: int | None) -> str:
        """The tensor's name now, by the one naming rule; an expression in backticks."""
        if tid is None or self.naming is None:
            return "None"
        kind, text = self.naming.describe(tid)
        return f"`{text}`" if kind == EXPRESSION else text

    def is_expression(self, tid: int) -> bool:
        return self.naming is not None and self.naming.kind(tid) == EXPRESSION

    def is_number(self, tid: int | None) -> bool:
        return tid is not None and tid in self.tensors and bool(self.tensors[tid].tensor._wrapped)

    def node_ref(self, nid: int | None) -> str:
        if nid is None:
            return "None"
        record = self.nodes[nid]
        if isinstance(record.node, AccumulateGrad):
            tid = record.outputs[0] if record.outputs else None
            return self.t("ref.accumulate", tensor=self.label(tid))
        outs = ", ".join(self.label(o) for o in record.outputs) or "?"
        if record.made_by is not None:
            return self.t("ref.node.backward", node=record.name, out=outs,
                          call=record.made_by[0], line=record.line or "?")
        return self.t("ref.node", node=record.name, out=outs, line=record.line or "?")

    def node_fact(self, nid: int) -> dict[str, Any]:
        """A node as plain facts: its name, what it made, and its line."""
        record = self.nodes[nid]
        return {"node": record.name, "outputs": [self.label(o) for o in record.outputs],
                "line": record.line}

    @staticmethod
    def short_name(record: Any) -> str:
        return record.name.replace("torch::autograd::", "")

    def operands(self, record: Any, inputs: list[int | None]) -> dict[str, str]:
        """Labels for a formula's operands: saved attributes, saved tensors, the inputs by
        their formula names, and the result."""
        fields = {key: fmt_attr(value) for key, value in (record.node.attrs or {}).items()}
        for i, formula in enumerate(formulas_of(record.node)):
            name = input_name(formula, i)
            if name is not None and i < len(inputs):
                fields.setdefault(formula.input, self.label(inputs[i]))
                fields[name] = self.label(inputs[i])
        for saved in record.saved:
            fields[saved.name] = "None" if saved.tensor_id is None else self.label(saved.tensor_id)
        outs = [self.label(o) for o in record.outputs]
        fields.setdefault("result", outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")")
        return fields

    def inputs_of(self, record: Any) -> list[int | None]:
        return list(record.inputs) + [None] * (len(record.node.next_functions)
                                               - len(record.inputs))

    def once(self, key: str) -> bool:
        """True the first time a general remark is due (later ones would repeat it)."""
        if ("once", key) in self.reported:
            return False
        self.reported.add(("once", key))
        return True

    # -- saying ---------------------------------------------------------------------

    def check_time(self) -> None:
        """Raise OutOfTime past the deadline (the tellers call it in their long loops)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime

    def muted(self, steps: list[Step]) -> bool:
        """Whether the next step would not be said (a quiet run, or a full section): the
        tellers then only keep the state, and a full section counts what it left out."""
        if self.quiet:
            return True
        if self.cap is not None and len(steps) >= self.cap:
            self.hidden += 1
            return True
        return False

    def say(self, steps: list[Step], message: str, line: int | None, tone: str = "info", /,
            *, text: dict[str, str] | None = None, **facts: Any) -> None:
        if tone not in ("warn", "error") and (
                self.quiet or (self.cap is not None and len(steps) >= self.cap)):
            if not self.quiet:
                self.hidden += 1
            return
        text = text or {}
        used = _message_fields(self.t, message)
        shown = {k: self.fmt(v) for k, v in facts.items() if k not in text and k in used}
        shown.update(text)
        steps.append(Step(message, line, jsonable(facts), self.t(message, **shown), tone,
                          self.at))

    @staticmethod
    def fmt(value: Any) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return "None"
        if isinstance(value, (bool, np.bool_)):
            return str(bool(value))
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return ", ".join(value)
        if isinstance(value, (int, np.integer)):
            return str(int(value))
        if isinstance(value, dict) or (isinstance(value, (list, tuple)) and any(
                isinstance(v, (dict, str)) or v is None for v in value)):
            return str(jsonable(value))
        return fmt_value(value)

    def listed(self, items: list[str]) -> str:
        """`a, b, c, d, e and 3 more`: at most MAX_LISTED items in running text."""
        shown = items[:MAX_LISTED]
        more = len(items) - len(shown)
        return self.t.join(shown + ([self.t("list.more", count=more)] if more else []))

    # -- the run as visits ----------------------------------------------------------

    def visits(self) -> list[Visit]:
        """The events grouped by statement run; a backward call (and what its statement
        did right after it) is a visit of its own."""
        out: list[Visit] = []
        current: Visit | None = None
        depth = 0
        for idx, ev in enumerate(self.trace.events):
            key = self.stmt(ev.line)
            if ev.kind == "backward_begin":
                if depth == 0:
                    call = self.trace.backward_calls[ev.facts["call"] - 1]
                    current = Visit("backward", key, call=call, begin=idx)
                    out.append(current)
                else:
                    current.events.append((idx, ev))
                depth += 1
                continue
            if ev.kind == "backward_end":
                depth -= 1
                if depth == 0:
                    current.closed = True
                else:
                    current.events.append((idx, ev))
                continue
            if depth:
                current.events.append((idx, ev))
                continue
            if current is not None and current.kind == "backward" and current.closed and (
                    key == current.line and ev.kind in ("method", "caught")):
                current.events.append((idx, ev))
                continue
            if current is None or current.kind == "backward" or key != current.line:
                current = Visit("statement", key)
                out.append(current)
            current.events.append((idx, ev))
        return out
