"""What `explain` produces: sections of steps, each a message id, a line, facts and text."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# edges (and received gradients) one step's text tells, the rest counted: a node of
# 30,000 inputs would make one sentence of 30,000 clauses
MAX_TOLD_EDGES = 16


@dataclass
class Step:
    """One thing said: a message id, the script line, plain facts and the rendered text."""

    kind: str
    line: int | None
    facts: dict[str, Any]
    text: str
    tone: str = "info"  # info | note | warn | error
    # what it tells about: {"event": i} (the trace's i-th event), {"call": c, "step": s}
    # (step s of backward call c; 0 its start, len(steps) + 1 its end), {"error": true}
    # (the error that ended the run), None (a note about the story itself); lets a view
    # (the `view` page's timeline) put the sentence beside the moment
    at: dict[str, Any] | None = None


@dataclass
class Section:
    """The steps of one statement run (or one backward call), with the statement's source.

    `number` is the run's position among all statement runs (what `--statement N`
    selects); `brief` is its one-line summary (what `--brief` prints).
    """

    kind: str  # statement | backward | error | summary
    line: int | None
    source: str
    title: str
    steps: list[Step] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    number: int | None = None
    brief: str = ""


@dataclass
class Explanation:
    script: str
    lang: str
    sections: list[Section]
    exit_code: int
    mode: str = "story"  # story | brief

    @property
    def steps(self) -> list[Step]:
        return [s for section in self.sections for s in section.steps]
