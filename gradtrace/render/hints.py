"""Hints for common slips, as data: which errors they answer and what they suggest.

A hint is matched on the error's kind, its message and (optionally) the source text the
error points at; its words are a catalog message (render/catalogs), so `run` prints it in
English under the error and `explain` tells it in the story's language. The hints about
features not supported yet name the README section and issue that plan them; they can
only fire on the "not supported" error, so they go away by themselves once the feature
exists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .catalogs import Catalog

# What the README's "The language" section lists as planned: name prefix -> issue.
PLANNED = {"torch.nn": 12, "torch.optim": 12, "torch.utils.data": 12,
           "torch.autograd.Function": 12, "torch.autograd.functional": 12}


@dataclass(frozen=True)
class Hint:
    key: str  # catalog message id, `hint.<key>`
    kind: str  # the error's kind
    message: str  # regex on the error's message; named groups become fields
    source: str | None = None  # regex on the source text the error points at


HINTS = (
    # `x.grad.zero_()` (or any method of .grad) before a backward filled it
    Hint("grad_none", "AttributeError", r"^'NoneType' object has no attribute '(?P<attr>\w+)'$",
         r"(?P<tensor>[A-Za-z_][\w.\[\]]*)\.grad\.(?P=attr)\b"),
    Hint("planned", "NotSupportedError",
         r"^'(?P<name>(?P<prefix>" + "|".join(re.escape(p) for p in PLANNED)
         + r")(\.[\w.]+)?)' is not supported"),
)


def find(error: Any, source: Any = None) -> tuple[str, dict[str, str]] | None:
    """The hint for an error: (message id, fields), or None."""
    text = ""
    span = getattr(error, "span", None)
    if source is not None and span is not None and span.end_line == span.line:
        text = source.line_text(span.line)[span.column - 1: span.end_column - 1]
    for hint in HINTS:
        if hint.kind != error.kind:
            continue
        found = re.search(hint.message, error.message)
        if found is None:
            continue
        fields = {k: v for k, v in found.groupdict().items() if v is not None}
        if hint.source is not None:
            pattern = hint.source.replace("(?P=attr)", re.escape(fields.get("attr", "")))
            at = re.search(pattern, text)
            if at is None:
                continue
            fields.update({k: v for k, v in at.groupdict().items() if v is not None})
        if "prefix" in fields:
            fields["issue"] = str(PLANNED[fields.pop("prefix")])
        return f"hint.{hint.key}", fields
    return None


def hint_text(error: Any, source: Any = None, lang: str = "en") -> str | None:
    """The hint for an error in words, or None."""
    found = find(error, source)
    if found is None:
        return None
    key, fields = found
    return Catalog(lang)(key, **fields)
