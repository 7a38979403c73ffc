"""Script text and positions: every error and trace event points back here."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

SNIPPET_WIDTH = 100  # characters of a long source line an error shows
SNIPPET_CONTEXT = 20  # of them before the error's column


@dataclass(frozen=True, slots=True)
class Span:
    """A region of the script, 1-based lines and columns (end is exclusive)."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(line, column, line, column + 1)


LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Source:
    """A script's name (as the user gave it) and its text; `path`, for a script read from a
    file, is the name Python gives its code (`python p.gt` makes `__main__`'s file absolute
    since 3.9: the `file:line:` of the warnings it shows)."""

    name: str
    text: str
    path: str | None = None

    @property
    def python_name(self) -> str:
        """The file name Python's warnings and tracebacks show for the script's lines."""
        return self.path or self.name

    @cached_property
    def lines(self) -> list[str]:
        """The lines as Python's tokenizer (and the parser) counts them: split at \n, \r\n
        and \r only, never at a form feed or U+2028 inside a string literal."""
        lines = LINE_BREAK.split(self.text)
        return lines[:-1] if lines and lines[-1] == "" else lines

    def line_text(self, line: int) -> str:
        lines = self.lines
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def code_text(self, line: int) -> str:
        """The line's code as a sentence quotes it: without its indentation and its trailing
        comment (`t[m] += 1  # unused slots` is `t[m] += 1`); a `#` inside a string stays."""
        text = self.line_text(line)
        if "#" not in text:
            return text.strip()
        import io
        import tokenize

        try:
            for token in tokenize.generate_tokens(io.StringIO(text.lstrip()).readline):
                if token.type == tokenize.COMMENT:
                    return text.lstrip()[:token.start[1]].strip()
        except (tokenize.TokenError, SyntaxError):  # a line inside brackets or a string
            pass
        return text.strip()

    def snippet(self, span: Span) -> str:
        """The span's first line with a caret under its columns, like Python's traceback.

        A line longer than `SNIPPET_WIDTH` is shown as a window of that many characters
        from a little before the span, "…" where it was cut (a generated script can have a
        line of megabytes, and the caret line would be as long).
        """
        text = self.line_text(span.line).expandtabs(1)
        start = span.column - 1
        width = 1
        if span.end_line == span.line and span.end_column > span.column:
            width = span.end_column - span.column
        if len(text) > SNIPPET_WIDTH:
            left = max(0, min(start - SNIPPET_CONTEXT, len(text) - SNIPPET_WIDTH))
            right = left + SNIPPET_WIDTH
            text = ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")
            start -= left - (1 if left else 0)
            width = min(width, right - span.column + 1)
        width = max(1, min(width, len(text) - start))
        return f"    {text}\n    {' ' * start}{'^' * width}"

