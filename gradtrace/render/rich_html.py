"""Rich output as HTML (for notebooks): what a rich console printed, with its colours.

`recorded(draw)` runs `draw` on a recording console and returns the HTML fragment (a
`<pre>` with inline styles, rich's `export_html`) and the plain text.
"""
from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console

FRAGMENT = ('<pre style="font-family: Menlo, Consolas, \'DejaVu Sans Mono\', monospace; '
            'font-size: 12.5px; line-height: 1.3; white-space: pre; overflow-x: auto; '
            'color: {foreground}; background-color: {background}; padding: 6px 8px; '
            'margin: 0">{code}</pre>')


def recorded(draw: Callable[[Console], None], width: int = 100) -> tuple[str, str]:
    """(html, text) of what `draw(console)` prints."""
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", soft_wrap=False)
    draw(console)
    text = console.export_text(clear=False)
    html = console.export_html(inline_styles=True, code_format=FRAGMENT)
    return html, text


def report(result: object, sections: tuple[str, ...] | None = None,
           width: int = 100) -> tuple[str, str]:
    """`gradtrace run`'s report (Tensors, Graph, Backward) as (html, text)."""
    from .tables import SECTIONS, print_report

    return recorded(lambda console: print_report(console, result, sections or SECTIONS),
                    width)


def explanation(result: object, lang: str = "en", width: int = 100,
                options: object = None) -> tuple[str, str]:
    """`gradtrace explain`'s story as (html, text); `options`: an explain.Options (what
    to tell: --full, --brief, --lines, --statement)."""
    from .explain import explain, print_explanation

    told = explain(result, lang, options)
    return recorded(lambda console: print_explanation(console, told), width)


def tree(trace: object, roots: list | None = None, width: int = 100) -> tuple[str, str]:
    """The graph as a tree (`gradtrace graph`) as (html, text)."""
    from .graph import print_graph

    return recorded(lambda console: print_graph(console, trace, roots=roots), width)
