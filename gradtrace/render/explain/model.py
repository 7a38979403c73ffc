"""What `explain` produces: sections of steps, each a message id, a line, facts and text."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Step:
    """One thing said: a message id, the script line, plain facts and the rendered text."""

    kind: str
    line: int | None
    facts: dict[str, Any]
    text: str
    tone: str = "info"  # info | note | warn | error


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
