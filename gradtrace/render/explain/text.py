"""The explanation as text: sections under their statement, wrapped by display cells."""
from __future__ import annotations

import re
from typing import Any

from ..catalogs import Catalog
from .model import Explanation

MARKS = {"info": "•", "note": "·", "warn": "⚠", "error": "✗"}
STYLES = {"info": "", "note": "dim", "warn": "yellow", "error": "red"}
CLOSING = set("，。、；：！？）」』】》,.;:!?)]}")
OPENING = set("（「『【《([{")
_SPACE = re.compile("( )")


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


def _wide(ch: str) -> bool:
    """A character two cells wide (CJK); ASCII never is, and is most of every line."""
    return not ch.isascii() and _cells(ch) == 2


def _narrow(text: str) -> bool:
    """Printable ASCII: every character is one cell wide."""
    return text.isascii() and text.isprintable()


def _segments(text: str) -> list[str]:
    """Pieces a line may break between: words, single spaces, and wide (CJK) characters.

    Closing punctuation sticks to what precedes it, opening punctuation to what follows.
    """
    if _narrow(text) or not any(_wide(ch) for ch in set(text) if not ch.isascii()):
        # no wide character (most English text has a few non-ASCII ones: `…`, `→`, `∂`):
        # words and single spaces, as the loop below would cut them one character at a time
        return [piece for piece in _SPACE.split(text) if piece]
    tokens: list[str] = []
    word = ""
    for ch in text:
        if ch == " " or _wide(ch):
            if word:
                tokens.append(word)
                word = ""
            tokens.append(ch)
        else:
            word += ch
    if word:
        tokens.append(word)
    segments: list[str] = []
    for token in tokens:
        if segments and token != " " and segments[-1] != " " and (
                token[0] in CLOSING or segments[-1][-1] in OPENING
                or (not _wide(token[0]) and not _wide(segments[-1][-1]))):
            segments[-1] += token
        else:
            segments.append(token)
    return segments


def wrap(text: str, width: int) -> list[str]:
    """Greedy line wrapping by display cells that also breaks between CJK characters."""
    width = max(width, 10)
    cells = len if _narrow(text) else _cells
    lines: list[str] = []
    current = ""
    used = 0  # cells(current), kept as the line grows: measuring it anew is quadratic
    for segment in _segments(text):
        if segment == " ":
            if current:
                current += " "
                used += 1
            continue
        size = cells(segment)
        if used + size > width and current.strip():
            lines.append(current.rstrip(" "))
            current, used = "", 0
        while size > width:  # a single piece wider than a line is folded
            cut = 1
            while cells(segment[: cut + 1]) <= width - used:
                cut += 1
            lines.append(current + segment[:cut])
            current, used, segment = "", 0, segment[cut:]
            size = cells(segment)
        current += segment
        used += size
    if current.strip() or not lines:
        lines.append(current.rstrip(" "))
    return lines


def print_explanation(console: Any, explanation: Explanation) -> None:
    """Grouped by statement, line numbers and source shown; plain text when piped.

    The whole explanation goes to rich as one `Text` (a print per line cost rich's
    per-call overhead 600 times for a training loop), and as `Text`, not a string: a
    string would still have `:name:` emoji codes replaced (a script named `:100:.gt`)
    even with markup off. In brief mode each statement run is one line, numbered as
    `--statement N` counts them.
    """
    from rich.text import Text

    catalog = Catalog(explanation.lang)
    width = console.width
    text = Text()
    if not explanation.sections:
        text.append("\n".join(wrap(catalog("explain.empty", script=explanation.script), width)))
    brief = explanation.mode == "brief"
    previous_brief = False
    for i, section in enumerate(explanation.sections):
        if i:
            text.append("\n" if brief and section.brief and previous_brief else "\n\n")
        previous_brief = bool(section.brief)
        header = Text()
        if section.brief:
            header.append(f"{section.number:>5}  ", style="dim")
        header.append(section.title, style="bold magenta" if section.kind == "backward"
                      else "bold cyan")
        if section.source:
            header.append("  │  ", style="dim")
            header.append(section.source, style="bold")
        if section.brief:
            header.append("  →  ", style="dim")
            header.append(section.brief)
        header.truncate(width, overflow="ellipsis")
        text.append_text(header)
        if section.brief:
            continue
        for step in section.steps:
            style = STYLES.get(step.tone, "")
            mark = MARKS.get(step.tone, "•")
            for k, line in enumerate(wrap(step.text, width - 2)):
                text.append("\n")
                text.append((mark if k == 0 else " ") + " " + line, style=style)
    console.print(text, no_wrap=True, overflow="ignore", highlight=False)


def render_text(explanation: Explanation, width: int = 100) -> str:
    """The explanation as plain text at a fixed width (what a pipe receives)."""
    import io

    from ..terminal import SafeConsole

    out = io.StringIO()
    console = SafeConsole(file=out, width=width, color_system=None, force_terminal=False,
                          legacy_windows=False, emoji=False, highlight=False)
    print_explanation(console, explanation)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"
