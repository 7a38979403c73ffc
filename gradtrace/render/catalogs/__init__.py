"""Message catalogs for `gradtrace explain`: one module per language.

Each catalog maps a message id to a `str.format` template with named fields. The
explainer chooses message ids and fills in facts; it never branches on the language.
Every catalog must define the same ids with the same fields (a test checks this).
"""
from __future__ import annotations

import re
import string
from typing import Any

from . import en, zh

CATALOGS: dict[str, dict[str, str]] = {"en": en.MESSAGES, "zh": zh.MESSAGES}
# per-language typography fixes applied to every rendered message: (regex, replacement)
TIDY: dict[str, list[tuple[str, str]]] = {"en": getattr(en, "TIDY", []),
                                          "zh": getattr(zh, "TIDY", [])}
LANGUAGES = tuple(CATALOGS)


class Catalog:
    """Renders message ids in one language."""

    def __init__(self, lang: str):
        if lang not in CATALOGS:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGUAGES)})")
        self.lang = lang
        self.messages = CATALOGS[lang]
        self.tidy = [(re.compile(pattern), repl) for pattern, repl in TIDY[lang]]

    def __call__(self, key: str, /, **fields: Any) -> str:
        text = self.messages[key].format(**fields)
        for pattern, repl in self.tidy:
            text = pattern.sub(repl, text)
        return text

    def join(self, items: list[str]) -> str:
        """A list in running text: `a, b and c`."""
        items = [i for i in items if i]
        if not items:
            return ""
        if len(items) == 1:
            return items[0]
        return self("list.sep").join(items[:-1]) + self("list.last") + items[-1]


def fields(template: str) -> set[str]:
    """The named fields a template uses."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
