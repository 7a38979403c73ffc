"""The `%%gradtrace` cell magic for Jupyter and IPython (`%load_ext gradtrace`).

    %%gradtrace [run|explain|graph|view] [options]

runs the cell as a `.gt` script and shows the result inline: `run`'s report and
`explain`'s story as rich's HTML, `graph` as SVG (or the other formats), `view` as the
interactive page in an iframe. The options are the command line's (`--lang`,
`--backward`, `--root`, `--format`, …; `--help` lists them).

IPython is an optional extra (`pip install 'gradtrace[notebook]'`): this module needs
nothing from it. What a cell shows is a `Shown`, whose `_repr_mimebundle_` IPython
displays; the core never imports this module.
"""
from __future__ import annotations

import html
import io
import shlex
from typing import Any

import click

KINDS = ("run", "explain", "graph", "view")
GRAPH_FORMATS = ("svg", "png", "dot", "mermaid", "tree", "json")
CELL_NAME = "<cell>"


class Shown:
    """What a cell shows: a MIME bundle (`text/plain` always, richer ones beside it)."""

    def __init__(self, bundle: dict[str, Any]):
        self.bundle = bundle

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return dict(self.bundle)

    def __repr__(self) -> str:
        return str(self.bundle.get("text/plain", ""))


def load_ipython_extension(ipython: Any) -> None:
    """Register `%%gradtrace` (IPython calls this for `%load_ext gradtrace`)."""
    ipython.register_magic_function(gradtrace_cell, magic_kind="cell", magic_name="gradtrace")


# -- options: the command line's, parsed by click -----------------------------------------------


def _options(kind: str) -> click.Command:
    from .cli import line_range_option

    params: list[click.Parameter] = [
        click.Option(["--timeout"], type=click.FloatRange(0, min_open=True), default=60.0),
        click.Option(["--max-steps"], type=click.IntRange(1), default=50_000_000),
        click.Option(["--width"], type=click.IntRange(40, 1000), default=100),
    ]
    selection = [click.Option(["--backward"], default=None),
                 click.Option(["--root"], default=None),
                 click.Option(["--max-nodes"], type=click.IntRange(0), default=None)]
    lang = click.Option(["--lang"], type=click.Choice(["en", "zh"]), default="en")
    if kind == "run":
        params += [click.Option(["-q", "--quiet"], is_flag=True),
                   click.Option(["--show"], default=None)]
    elif kind == "explain":
        params += [lang, click.Option(["--full"], is_flag=True),
                   click.Option(["--brief"], is_flag=True),
                   click.Option(["--lines", "line_range"], callback=line_range_option,
                                default=None),
                   click.Option(["--statement"], type=click.IntRange(1), default=None)]
    elif kind == "graph":
        params += [click.Option(["-f", "--format", "fmt"], type=click.Choice(GRAPH_FORMATS),
                                default="svg"),
                   *selection,
                   click.Option(["--grads/--no-grads"], default=True),
                   click.Option(["--legend/--no-legend"], default=True),
                   click.Option(["--saved"], type=click.Choice(["auto", "all"]),
                                default="auto")]
    else:
        params += [lang, *selection,
                   click.Option(["--height"], type=click.IntRange(200, 4000), default=720)]
    return click.Command(f"%%gradtrace {kind}", params=params, add_help_option=False)


def parse(line: str) -> tuple[str, dict[str, Any]]:
    """The kind of cell and its options; raises click.ClickException for bad ones."""
    try:
        args = shlex.split(line)
    except ValueError as err:  # an unclosed quote
        raise click.UsageError(str(err)) from None
    kind = "run"
    if args and not args[0].startswith("-"):
        kind = args.pop(0)
    if kind not in KINDS:
        raise click.UsageError(f"unknown kind {kind!r} (choose from {', '.join(KINDS)})")
    command = _options(kind)
    if "--help" in args or "-h" in args:
        formatter = click.HelpFormatter()
        command.format_usage(click.Context(command), formatter)
        rows = [p.get_help_record(click.Context(command)) for p in command.params]
        formatter.write_dl([r for r in rows if r])
        raise click.UsageError(formatter.getvalue().strip())
    context = command.make_context(command.name or kind, args)
    return kind, dict(context.params)


# -- the magic --------------------------------------------------------------------------------


def gradtrace_cell(line: str, cell: str) -> Shown:
    """Run the cell as a `.gt` script and show what the kind of cell asks for."""
    try:
        kind, options = parse(line)
    except click.ClickException as err:
        return _text(f"%%gradtrace: {err.format_message()}", error=True)
    return show(kind, cell, **options)


def show(kind: str, text: str, **options: Any) -> Shown:
    """What `%%gradtrace KIND OPTIONS` shows for the script `text` (the Python API of the
    magic: the options as keyword arguments, parsed)."""
    from .interpreter import Limits
    from .render import trace_frozen
    from .render.selection import SelectionError, parse_backward
    from .runner import run_source
    from .source import Source

    source = Source(CELL_NAME, text)
    limits = Limits(timeout=options.pop("timeout", 60.0),
                    max_steps=options.pop("max_steps", 50_000_000))
    stderr = io.StringIO()
    quiet = kind == "run" and options.get("quiet", False)
    result = run_source(source, stderr=stderr, limits=limits, trace=not quiet)
    parts: list[Shown] = []
    if kind == "run" and result.stdout:
        parts.append(_text(result.stdout))
    warnings = stderr.getvalue()
    if result.error is not None:
        from .render.hints import hint_text

        hint = hint_text(result.error, source)
        warnings += result.error.format(source) + "\n" + (hint + "\n" if hint else "")
    if warnings:
        parts.append(_text(warnings.rstrip("\n"), error=True))
    try:
        if "backward" in options:
            options["backward"] = parse_backward(options["backward"])
        with trace_frozen():
            parts.append(_body(kind, result, options))
    except SelectionError as err:
        parts.append(_text(f"%%gradtrace: {err}", error=True))
    return _joined([p for p in parts if p.bundle])


def _body(kind: str, result: Any, options: dict[str, Any]) -> Shown:
    from .render import rich_html

    width = options.get("width", 100)
    if kind == "run":
        if options.get("quiet") or result.module is None:
            return Shown({})
        from .render.tables import parse_sections

        sections = parse_sections(options["show"]) if options.get("show") else None
        return _rich(*rich_html.report(result, sections, width))
    if kind == "explain":
        from .render.explain import Options

        told = Options(full=options.get("full", False), brief=options.get("brief", False),
                       lines=options.get("line_range"), statement=options.get("statement"),
                       width=width)
        return _rich(*rich_html.explanation(result, options["lang"], width, told))
    if kind == "view":
        from .render.page import build_page

        page = build_page(result, lang=options["lang"], backward=options["backward"],
                          root=options["root"], max_nodes=options["max_nodes"])
        frame = (f'<iframe srcdoc="{html.escape(page, quote=True)}" '
                 f'style="width: 100%; height: {options["height"]}px; border: 1px solid #ddd; '
                 'border-radius: 6px" sandbox="allow-scripts"></iframe>')
        return Shown({"text/html": frame,
                      "text/plain": f"<gradtrace view of the cell: {len(page):,} bytes of "
                                    "HTML; shown in a notebook>"})
    return _graph(result, options)


def _graph(result: Any, options: dict[str, Any]) -> Shown:
    from .render import images, rich_html
    from .render.drawing import draw

    fmt = options["fmt"]
    if fmt == "tree":
        from .render.graph import GraphView
        from .render.selection import chosen_roots

        roots = chosen_roots(GraphView(result.trace), options["backward"], options["root"])
        return _rich(*rich_html.tree(result.trace, roots, options["width"]))
    if fmt == "json":
        import json

        from .render.json import document

        doc = document(result)
        return Shown({"application/json": doc,
                      "text/plain": json.dumps(doc, ensure_ascii=False)[:2000]})
    drawing_options = {key: options[key] for key in ("backward", "root", "max_nodes",
                                                    "grads", "legend", "saved")}
    try:
        data = draw(result.trace, fmt, **drawing_options)
    except (images.GraphvizMissing, images.RenderError) as err:
        return _text(f"%%gradtrace: {err}", error=True)
    if fmt == "svg":
        svg = data.decode("utf-8") if isinstance(data, bytes) else data
        return Shown({"image/svg+xml": svg[svg.find("<svg"):],
                      "text/plain": "<gradtrace graph: SVG>"})
    if fmt == "png":
        import base64

        return Shown({"image/png": base64.b64encode(data).decode("ascii"),
                      "text/plain": "<gradtrace graph: PNG>"})
    text = data if isinstance(data, str) else data.decode("utf-8")
    if fmt == "mermaid":
        return Shown({"text/markdown": f"```mermaid\n{text}```\n", "text/plain": text})
    return Shown({"text/plain": text})


# -- bundles ------------------------------------------------------------------------------------


def _text(text: str, *, error: bool = False) -> Shown:
    style = "color: #b00020; " if error else ""
    return Shown({"text/plain": text,
                  "text/html": f'<pre style="{style}white-space: pre-wrap; margin: 0 0 6px">'
                               f"{html.escape(text)}</pre>"})


def _rich(html_text: str, plain: str) -> Shown:
    return Shown({"text/html": html_text, "text/plain": plain.rstrip("\n")})


def _joined(parts: list[Shown]) -> Shown:
    """One bundle for several parts: HTML and text concatenated; a lone SVG/PNG/JSON part
    keeps its own type (beside the HTML of the others)."""
    if len(parts) == 1:
        return parts[0]
    bundle: dict[str, Any] = {"text/plain": "\n".join(
        p.bundle.get("text/plain", "") for p in parts)}
    html_parts = []
    for part in parts:
        if "text/html" in part.bundle:
            html_parts.append(part.bundle["text/html"])
        elif "image/svg+xml" in part.bundle:
            html_parts.append(part.bundle["image/svg+xml"])
        elif "image/png" in part.bundle:
            html_parts.append(f'<img src="data:image/png;base64,{part.bundle["image/png"]}">')
        else:
            html_parts.append(f"<pre>{html.escape(part.bundle['text/plain'])}</pre>")
        for key in ("image/svg+xml", "image/png", "application/json", "text/markdown"):
            if key in part.bundle:
                bundle[key] = part.bundle[key]
    bundle["text/html"] = "\n".join(html_parts)
    return Shown(bundle)
