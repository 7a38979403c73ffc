"""`gradtrace explain`: a run told as a story, statement by statement, backward step by step.

Everything is derived from the tracer's record of the run (`RunResult.trace`): which
tensors were made and bound to which names, which nodes the engine recorded and what
they saved, every in-place change and version bump, and for each backward call the
gradient each node received and sent. The explainer turns that record into structured
steps (a message id, the script line, plain facts) and renders each step through a
message catalog (`render/catalogs/<lang>.py`); the language never changes what is said,
only how.

The parts: `story.py` (the state and the one naming rule, as of the statement told),
`statements.py`, `backward.py` and `errors.py` (telling a statement run, a backward call,
an error), `derivation.py` (local derivatives and replays from the ops' own formulas and
backward, engine/formulas.py), `telling.py` (what is told in full, briefly or only
counted), `numbers.py` and `text.py` (how values and the story are written).
"""
from __future__ import annotations

from typing import Any

from ..catalogs import LANGUAGES, Catalog
from .model import Explanation, Section, Step
from .numbers import fmt_number, fmt_value
from .telling import BUDGET, MAX_REPEATS, MAX_STEPS, Options, Teller, line_range
from .text import print_explanation, render_text, wrap

SCHEMA = "gradtrace-explain/2"
SCHEMA_FILE = "explain_schema.json"

__all__ = ["LANGUAGES", "SCHEMA", "BUDGET", "MAX_REPEATS", "MAX_STEPS", "Explanation",
           "Options", "Section", "Step", "explain", "fmt_number", "fmt_value",
           "line_range", "print_explanation", "render_text", "schema", "to_json", "wrap"]


def explain(result: Any, lang: str = "en", options: Options | None = None) -> Explanation:
    """The explanation of a run made with `run_source(..., trace=True)`."""
    options = options or Options()
    teller = Teller(result, Catalog(lang), options)
    sections = teller.build()
    return Explanation(result.source.name, lang, sections, result.exit_code,
                       "brief" if options.brief else "story")


def to_json(explanation: Explanation) -> dict[str, Any]:
    """The explanation as a JSON document (explain_schema.json, docs/json.md)."""
    sections = []
    for s in explanation.sections:
        section: dict[str, Any] = {
            "kind": s.kind, "number": s.number, "line": s.line, "source": s.source,
            "title": s.title, "facts": s.facts,
            "steps": [{"kind": st.kind, "line": st.line, "tone": st.tone, "at": st.at,
                       "facts": st.facts, "text": st.text} for st in s.steps]}
        if s.brief:
            section["brief"] = s.brief
        sections.append(section)
    return {"schema": SCHEMA, "script": explanation.script, "lang": explanation.lang,
            "mode": explanation.mode, "exit_code": explanation.exit_code,
            "sections": sections}


def schema() -> dict[str, Any]:
    """The JSON Schema of `to_json` documents, shipped in the package."""
    import json
    from importlib import resources

    text = resources.files("gradtrace.render").joinpath(SCHEMA_FILE).read_text("utf-8")
    return json.loads(text)
