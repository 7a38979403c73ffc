"""Which statement runs are told, and how: in full, in one line, or only counted.

A long run would make a story nobody reads (a 5,000-statement chain told in full is
over 100,000 lines). By default whole statement runs are told until about `BUDGET` lines
of text; a statement in a loop is told for its first `MAX_REPEATS` runs; a section stops
after `MAX_STEPS` steps; everything left out is summarised once, at the end, with the
options that show it. Runs that are not told are still walked (quietly), so warnings
and errors anywhere in the run are always said, and the error that ended the run too.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..catalogs import Catalog
from .backward import BackwardTeller
from .errors import ErrorTeller
from .model import Section, Step
from .statements import StatementTeller
from .story import OutOfTime, Story, Visit
from .text import wrap

BUDGET = 3000  # lines of text told in full before the rest is summarised
MAX_REPEATS = 2  # runs of one statement told in full; later runs are counted
MAX_STEPS = 80  # steps of one section; the rest are counted
MAX_QUIET_SECTIONS = 20  # sections of warnings from runs not told in full
MAX_BRIEF_NODES = 4


@dataclass
class Options:
    """How much to tell (see the module docstring); `width` is the width the budget's
    lines are counted at."""

    full: bool = False
    brief: bool = False
    lines: tuple[int, int] | None = None
    statement: int | None = None
    budget: int = BUDGET
    width: int = 100
    progress: Callable[[int, int], None] | None = None
    # time.monotonic() after which the rest is only summarised (the CLI's report budget)
    deadline: float | None = None

    @property
    def zoom(self) -> bool:
        return self.lines is not None or self.statement is not None


def line_range(text: str) -> tuple[int, int]:
    """`--lines 12-15` (or `--lines 12`) as (12, 15); ValueError for anything else."""
    parts = text.replace(" ", "").split("-")
    try:
        first, last = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, -1)
    except ValueError:
        first, last = 0, -1
    if first < 1 or last < first:
        raise ValueError(f"{text!r}: give a line range A-B (e.g. 12-15) or one line")
    return first, last


@dataclass
class _Left:
    """What was not told: counts and ranges for the closing summary."""

    repeats: int = 0
    repeat_lines: set[int] = field(default_factory=set)
    budget: int = 0
    first: int | None = None
    last: int | None = None
    first_line: int | None = None
    last_line: int | None = None
    stopped: tuple[int, int] | None = None  # (run, runs) where the deadline stopped it

    def repeat(self, visit: Visit) -> None:
        self.repeats += 1
        if visit.line is not None:
            self.repeat_lines.add(visit.line)

    def over(self, number: int, visit: Visit) -> None:
        self.budget += 1
        self.first = number if self.first is None else self.first
        self.last = number
        if visit.line is not None:
            self.first_line = visit.line if self.first_line is None else min(
                self.first_line, visit.line)
            self.last_line = visit.line if self.last_line is None else max(
                self.last_line, visit.line)


def count_lines(section: Section, width: int) -> int:
    """Lines the section takes when printed at `width` (title, steps, blank line)."""
    return 2 + sum(len(wrap(step.text, width - 2)) for step in section.steps)


class Teller:
    """Tells a run: walks every statement run once, in order (see the module doc)."""

    def __init__(self, result: Any, catalog: Catalog, options: Options):
        self.options = options
        self.story = Story(result, catalog)
        self.story.deadline = options.deadline
        self.errors = ErrorTeller(self.story)
        self.statements = StatementTeller(self.story, self.errors)
        self.backward = BackwardTeller(self.story, self.errors) if self.story.trace else None
        self.first_bind: dict[int, int] = {}  # tensor id -> index of its first bind event
        for idx, ev in enumerate(self.story.trace.events if self.story.trace else ()):
            if ev.kind == "bind":
                self.first_bind.setdefault(ev.facts["tensor"], idx)

    def chosen(self, number: int, visit: Visit) -> bool:
        o = self.options
        if o.statement is not None and number != o.statement:
            return False
        if o.lines is not None:
            first, last = o.lines
            return visit.line is not None and first <= visit.line <= last
        return True

    def build(self) -> list[Section]:
        s, o = self.story, self.options
        sections: list[Section] = []
        left = _Left()
        used = 0
        quiet_sections = 0
        told_any = False
        visits = s.visits() if s.trace is not None else []
        seen: dict[tuple[str, int | None], int] = defaultdict(int)
        for number, visit in enumerate(visits, 1):
            if o.progress is not None:
                o.progress(number, len(visits))
            try:
                s.check_time()
            except OutOfTime:
                left.stopped = (number, len(visits))
                break
            seen[(visit.kind, visit.line)] += 1
            chosen = self.chosen(number, visit)
            told_any = told_any or chosen
            repeat = seen[(visit.kind, visit.line)] > MAX_REPEATS and not (o.full or o.zoom)
            # statements leave a fifth of the budget to the backward calls after them
            limit = o.budget if visit.kind == "backward" else o.budget - o.budget // 5
            over = used >= limit and not o.full
            s.quiet = not (chosen and not repeat and not over and not o.brief)
            s.cap = None if o.full or o.statement is not None else MAX_STEPS
            s.hidden = 0
            try:
                steps = (self.backward.tell(visit) if visit.kind == "backward"
                         else self.statements.tell(visit))
            except OutOfTime:
                left.stopped = (number, len(visits))
                break
            finally:
                s.quiet, s.cap, s.at = False, None, None
            if not chosen:
                continue
            if o.brief and not over:
                section = self.brief(number, visit, steps)
                if section is not None:
                    sections.append(section)
                    used += 1
                continue
            if repeat or over or o.brief:
                left.repeat(visit) if repeat and not over else left.over(number, visit)
                if steps and quiet_sections < MAX_QUIET_SECTIONS:  # warnings, errors
                    quiet_sections += 1
                    sections.append(self.section(visit, steps, number))
                continue
            if not steps:
                continue
            if s.hidden:
                s.say(steps, "section.more_steps", visit.line, "note", count=s.hidden,
                      number=number)
            section = self.section(visit, steps, number)
            size = count_lines(section, o.width)
            if used + size > limit and not o.full and used:
                used = max(used, limit)  # spent: this run and the rest like it are counted
                left.over(number, visit)
                continue
            used += size
            sections.append(section)
        self.add_uncaught(sections)
        if o.zoom and not told_any:
            sections.append(self.note([("explain.none_selected", {})]))
        summary = self.summary(left)
        if summary is not None:
            sections.append(summary)
        return sections

    def section(self, visit: Visit, steps: list[Step], number: int) -> Section:
        s = self.story
        line = visit.line
        if visit.kind == "backward":
            call = visit.call
            title = s.t("section.backward", line=line or "?", n=call.index)
            facts = {"call": call.index, "retain_graph": call.retain_graph,
                     "create_graph": call.create_graph, "accumulate": call.accumulate}
            return Section("backward", line, s.source_of(line), title, steps, facts, number)
        title = s.t("section.statement", line=line or "?")
        return Section("statement", line, s.source_of(line), title, steps, number=number)

    def brief(self, number: int, visit: Visit, steps: list[Step]) -> Section | None:
        """One line for a statement run: what it recorded, changed or ran."""
        s = self.story
        parts: list[str] = []
        if visit.kind == "backward":
            call = visit.call
            leaves = [s.label(st.accumulated[0]) for st in call.steps
                      if st.accumulated is not None]
            parts.append(s.t("brief.backward", count=len(call.steps)))
            if leaves:
                parts.append(s.t("brief.grads", grads=s.listed([f"{n}.grad" for n in leaves])))
            if call.error is not None:
                parts.append(s.t("brief.error", kind=call.error_type or "Error"))
        else:
            nodes = [s.nodes[ev.facts["node"]].name for _, ev in visit.events
                     if ev.kind == "op" and ev.facts.get("node") is not None]
            changed = [s.label(ev.facts["tensor"]) for _, ev in visit.events
                       if ev.kind == "inplace" and not ev.facts.get("library")]
            updated = [(ev.facts["optimizer"], s.label(ev.facts["tensor"]))
                       for _, ev in visit.events if ev.kind == "param_update"]
            leaves = [ev.facts["name"] for idx, ev in visit.events if ev.kind == "bind"
                      and ev.facts.get("is_leaf") and ev.facts.get("requires_grad")
                      and self.first_bind.get(ev.facts["tensor"]) == idx]
            wanting = [s.label(ev.facts["tensor"]) for _, ev in visit.events
                       if (ev.kind == "attr_write" and ev.facts["attr"] == "requires_grad"
                           and ev.facts["value"] is True and not ev.facts.get("error"))
                       or (ev.kind == "method" and ev.facts["method"] == "requires_grad_"
                           and ev.facts.get("requires_grad_after")
                           and not ev.facts.get("requires_grad_before"))]
            if nodes:
                shown = nodes[:MAX_BRIEF_NODES] + (["…"] if len(nodes) > MAX_BRIEF_NODES else [])
                parts.append(s.t("brief.recorded", nodes=", ".join(shown)))
            if changed:
                parts.append(s.t("brief.inplace", tensors=s.listed(changed)))
            for optimizer in dict.fromkeys(name for name, _ in updated):
                tensors = list(dict.fromkeys(t for name, t in updated if name == optimizer))
                parts.append(s.t("brief.updated", optimizer=optimizer or "optimizer",
                                 tensors=s.listed(tensors)))
            if leaves:
                parts.append(s.t("brief.leaf", tensors=s.listed(leaves)))
            if wanting:
                parts.append(s.t("brief.requires_grad", tensors=s.listed(wanting)))
        warnings = sum(step.tone == "warn" for step in steps)
        errors = [step for step in steps if step.kind == "error.raised"]
        if warnings:
            parts.append(s.t("brief.warnings", count=warnings))
        if errors and visit.kind != "backward":
            parts.append(s.t("brief.error", kind=errors[0].facts.get("kind", "Error")))
        if not parts:
            return None
        section = self.section(visit, steps, number)
        section.brief = s.t("list.edges").join(parts)
        return section

    def add_uncaught(self, sections: list[Section]) -> None:
        """The error that ended the run is always told, with its statement if shown."""
        s = self.story
        key, steps = self.errors.uncaught()
        if not steps:
            return
        last = sections[-1] if sections else None
        if last is not None and last.line == key and last.kind in ("statement", "backward") \
                and not last.brief:
            last.steps.extend(steps)
            return
        title = s.t("section.statement", line=key or "?")
        sections.append(Section("error", key, s.source_of(key), title, steps))

    def note(self, messages: list[tuple[str, dict[str, Any]]]) -> Section:
        s = self.story
        steps: list[Step] = []
        s.at = None  # about the story, not a moment of the run
        for message, facts in messages:
            s.say(steps, message, None, "note", **facts)
        return Section("summary", None, "", s.t("section.summary"), steps)

    def summary(self, left: _Left) -> Section | None:
        """Once, at the end: what was not told, and how to see it."""
        o = self.options
        messages: list[tuple[str, dict[str, Any]]] = []
        if left.repeats:
            lines = sorted(left.repeat_lines)
            messages.append(("summary.repeats", {
                "count": left.repeats, "lines": ", ".join(str(n) for n in lines[:10])
                + (", …" if len(lines) > 10 else ""), "max": MAX_REPEATS}))
        if left.budget:
            messages.append(("summary.budget", {
                "count": left.budget, "budget": o.budget, "first": left.first,
                "last": left.last, "first_line": left.first_line or "?",
                "last_line": left.last_line or "?"}))
        if left.stopped is not None:
            messages.append(("summary.deadline", {"number": left.stopped[0],
                                                  "count": left.stopped[1]}))
        if not messages:
            return None
        messages.append(("summary.how", {}))
        return self.note(messages)
