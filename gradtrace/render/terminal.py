"""The rich console every terminal view writes through.

Whatever text a view puts in its tables, trees and stories, the script may have chosen
it (a comment, an exception message, a printed string): `SafeConsole` writes every
segment of text with its control characters and lone surrogates made visible
(`gradtrace.printable`), so rich's own colour codes are the only escape sequences that
reach the terminal.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.segment import Segment

from ..printable import visible


class SafeConsole(Console):
    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(visible(segment.text), segment.style)
            for segment in buffer)


def console(width: int | None = None, **kwargs: Any) -> Console:
    """A console for a view: colour only on a terminal and without NO_COLOR (rich checks
    both), script text made visible.

    Its size is fixed to what rich finds now: unless both a width and a height are set,
    rich asks the terminal (an ioctl per standard stream) and the environment on every
    `size`, `width` and `options`, some 60 times for a report; a view prints at one size.
    """
    out = SafeConsole(width=width, **kwargs)
    out.size = out.size
    return out
