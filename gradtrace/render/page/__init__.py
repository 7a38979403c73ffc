"""`gradtrace view`: one self-contained HTML page that steps through a run.

The page shows the script, the graph as it stands at each moment, and a timeline over
every forward op and backward step of the shown part of the run (`selection.select`:
one backward call's graph, one tensor's, or all), with explain's narration beside it.

Everything the page shows is built here, at build time, from the run's trace:

- the trace itself: the `run --json` document (`json.document`) of the shown part;
- the picture: Graphviz's SVG of the same drawing `graph --format svg` makes
  (`drawing.build_drawing`), with an id on every box and arrow; without Graphviz, the
  built-in layered layout drawn by `svg.py`;
- the timeline (timeline.py) and explain's narration, mapped to its positions.

The page's script (page.js) only replays the timeline over the SVG. No network: the
script, the styles and the SVG are inline, and the page's content security policy
forbids any fetch.

Why Graphviz at build time rather than a JavaScript layout library in the page: the
page then looks exactly like the static drawings, needs no vendored code (dagre is no
longer maintained; elkjs is 1.5 MB and EPL-licensed), and stays small.
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ...printable import json_text
from ..drawing import LEGEND, STYLE, Drawing, build_drawing, module_paths
from ..explain import explain, to_json
from ..graph import GraphView
from ..json import Part, document
from ..selection import Selection, select
from ..values import array_cell
from .strings import Words
from .timeline import Scene, Timeline, births, event_range

PAGE_FORMAT = "gradtrace-page/1"
MAX_PAGE_NODES = 150  # autograd nodes the page draws by default (`--max-nodes`)

__all__ = ["PAGE_FORMAT", "build_page", "page_data"]


def page_data(result: Any, *, lang: str = "en", backward: int | str | None = None,
              root: str | None = None, max_nodes: int | None = None) -> tuple[dict, str]:
    """The page's data (JSON-ready) and its SVG. Raises selection.SelectionError for a
    backward call or root the run does not have."""
    words = Words(lang)
    trace = result.trace
    view = GraphView(trace)
    chosen = select(view, backward=backward, root=root,
                    max_nodes=MAX_PAGE_NODES if max_nodes is None else max_nodes)
    drawing = build_drawing(view, chosen, grads=True)
    svg, layout, note = _svg(drawing, words)
    scene = Scene.of(view, drawing)
    born = births(scene, trace.events)
    span = event_range(trace, chosen, born, result.error is not None)
    timeline = Timeline(result, scene, chosen, words, born, span)
    positions = timeline.build()
    sections = _narration(result, lang, timeline)
    data = {
        "format": PAGE_FORMAT,
        "lang": lang,
        "ui": words.ui(),
        "script": result.source.name,
        "source": result.source.text.splitlines(),
        "title": drawing.title,
        "arrows": drawing.arrows,
        "notes": drawing.notes,
        "legend": [_legend_entry(kind) for kind in drawing.legend_kinds],
        "layout": layout,
        "layout_note": note,
        "events_from": span[0],
        "vertices": {v.id: _vertex(v, born, chosen, view) for v in drawing.vertices},
        "modules": {f"m-{k}": path for k, path in enumerate(module_paths(drawing))},
        "links": [{"kind": link.kind, "source": link.source, "target": link.target,
                   "grad": link.grad} for link in drawing.links],
        "timeline": positions,
        "narration": sections,
        "trace": document(result, part=_part(view, chosen, drawing, trace, span)),
    }
    return data, svg


def build_page(result: Any, *, lang: str = "en", backward: int | str | None = None,
               root: str | None = None, max_nodes: int | None = None) -> str:
    """The whole HTML page, self-contained (see the module doc)."""
    data, svg = page_data(result, lang=lang, backward=backward, root=root,
                          max_nodes=max_nodes)
    assets = resources.files(__name__)
    html = assets.joinpath("page.html").read_text("utf-8")
    # the data goes into a <script type="application/json">: `</` must not end it early,
    # and the C1 and bidi controls a script's strings may hold are written as escapes
    payload = json_text(json.dumps(data, ensure_ascii=False, allow_nan=False,
                                   separators=(",", ":"))).replace("</", "<\\/")
    replacements = {
        "{{lang}}": lang,
        "{{title}}": _escape(f"gradtrace · {result.source.name}"),
        "{{style}}": assets.joinpath("page.css").read_text("utf-8"),
        "{{script}}": assets.joinpath("page.js").read_text("utf-8"),
        "{{svg}}": svg,
        "{{data}}": payload,
    }
    for key, value in replacements.items():
        html = html.replace(key, value, 1)
    return html


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _svg(drawing: Drawing, words: Words) -> tuple[str, str, str]:
    """The SVG of the drawing (ids on every box and arrow), which layout made it, and
    what the page says about that."""
    from .. import images
    from .svg import builtin_svg

    try:
        engine = images.engine_for(drawing)
        svg = images.render(drawing, "svg", ids=True, heading=False).decode("utf-8")
    except images.GraphvizMissing:
        return builtin_svg(drawing), "builtin", words("ui.layout.builtin")
    except images.RenderError as err:
        return builtin_svg(drawing), "builtin", words("ui.layout.failed", error=str(err))
    start = svg.find("<svg")  # drop the XML declaration and doctype: inline SVG
    return svg[start:], engine, words(f"ui.layout.{engine}")


def _legend_entry(kind: str) -> dict[str, str]:
    """A legend swatch for the page: the DOT style of the kind, as CSS colours."""
    swatch, text = LEGEND[kind]
    style = STYLE["op"] if swatch == "freed" else STYLE[swatch]
    dashed = "dashed" in style.get("style", "") or swatch == "freed"
    return {"kind": kind, "text": text, "fill": style.get("fillcolor", "#ffffff"),
            "stroke": style.get("color", "#999999") if swatch != "none" else "#ffffff",
            "dashed": dashed, "round": style.get("shape") == "ellipse" or "rounded" in
            style.get("style", "")}


def _vertex(vertex: Any, born: dict[str, int], chosen: Selection, view: GraphView) -> dict:
    facts: dict[str, Any] = {"kind": vertex.kind, "born": born.get(vertex.id, -1)}
    for key in ("node", "tensor", "saved_name", "module", "state", "fresh"):
        value = getattr(vertex, key)
        if value not in (None, ""):
            facts[key] = value
    if vertex.freed:
        facts["freed_at_end"] = True
    if vertex.kind == "leaf":
        facts["grad"] = _first_grad(vertex.tensor, chosen, view)
    return facts


def _first_grad(tensor_id: int, chosen: Selection, view: GraphView) -> str:
    """A leaf's `.grad` line before the first accumulation the page shows (else its final
    value)."""
    for call in chosen.calls:
        for step in call.steps:
            if step.accumulated is not None and step.accumulated[0] == tensor_id:
                return f"grad {array_cell(step.accumulated[1], 30)}"
    grad = view.tensors[tensor_id].tensor.grad
    return f"grad {array_cell(None if grad is None else grad.array, 30)}"


def _part(view: GraphView, chosen: Selection, drawing: Drawing, trace: Any,
          span: tuple[int, int]) -> Part:
    """The nodes, tensors, calls and events the page's trace document keeps."""
    nodes = {v.node for v in drawing.vertices if v.kind in ("op", "accumulate")}
    tensors = {v.tensor for v in drawing.vertices if v.tensor is not None}
    for nid in nodes:
        record = view.nodes[nid]
        tensors.update(t for t in record.outputs + record.inputs if t is not None)
        tensors.update(s.tensor_id for s in record.saved if s.tensor_id is not None)
    calls = {c.index for c in chosen.calls}
    for call in chosen.calls:
        for step in call.steps:
            if step.accumulated is not None:
                tensors.add(step.accumulated[0])
    for event in trace.events[span[0]:span[1]]:
        for key in ("tensor", "result"):
            if isinstance(event.facts.get(key), int):
                tensors.add(event.facts[key])
        for key in ("inputs", "outputs"):
            tensors.update(t for t in event.facts.get(key) or () if t is not None)
    return Part(nodes, {t for t in tensors if t in view.tensors}, calls, span)


def _narration(result: Any, lang: str, timeline: Timeline) -> list[dict[str, Any]]:
    """explain's sections for the page: those that tell about its positions, and for a
    line told only at an earlier run (a loop), that first telling. Each position gets
    `narration` (indexes of the steps told there) and `section` (the one to show)."""
    told = to_json(explain(result, lang))["sections"]
    kept: dict[int, int] = {}  # explain's section index -> page section index
    out: list[dict[str, Any]] = []

    def keep(index: int) -> int:
        if index not in kept:
            section = told[index]
            kept[index] = len(out)
            out.append({"title": section["title"], "source": section["source"],
                        "kind": section["kind"], "line": section["line"],
                        "steps": [{"text": s["text"], "tone": s["tone"]}
                                  for s in section["steps"]]})
        return kept[index]

    positions = timeline.positions
    for position in positions:
        position["narration"] = []
    for i, section in enumerate(told):
        for j, step in enumerate(section["steps"]):
            at = timeline.position_of(step.get("at"))
            if at is not None:
                positions[at]["narration"].append([keep(i), j])
    first_told: dict[tuple[str, int | None], int] = {}
    for i, section in enumerate(told):
        if section["steps"]:
            first_told.setdefault((section["kind"], section["line"]), i)
    for position in positions:
        if position["narration"]:
            position["section"] = position["narration"][0][0]
            continue
        if position["kind"] == "start":
            continue
        kind = "backward" if position["kind"] in ("backward", "step", "failed") else "statement"
        earlier = first_told.get((kind, position["line"]))
        if earlier is not None:
            position["section"] = keep(earlier)
            position["told_before"] = True
    return out
