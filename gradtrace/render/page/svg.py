"""The page's SVG when Graphviz is not installed: the built-in layered layout, drawn here.

Only the graph: the page shows the title, notes and legend itself. It has the structure
of Graphviz's SVG that page.js relies on: one `<g>` per box (`id="v-…"`, a shape, one
`<text>` per line) and per arrow (`id="l-…"`, a path, an arrowhead, its label lines;
the gradient line filled with GRAD_COLOUR).
"""
from __future__ import annotations

from ..drawing import GRAD_COLOUR, STYLE, Drawing, Vertex
from ..layered import Box, box_for, layout

FONT = "Helvetica,Arial,sans-serif"
MARGIN = 10.0


def _esc(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _shape(vertex: Vertex, box: Box, x: float, y: float) -> str:
    style = STYLE[vertex.style]
    fill = style.get("fillcolor", "none")
    stroke = style.get("color", "#000000") if style.get("shape") != "plaintext" else "none"
    width = style.get("penwidth", "1")
    dashed = ' stroke-dasharray="5,2"' if "dashed" in style.get("style", "") or (
        vertex.freed and vertex.kind == "op") else ""
    paint = f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dashed}'
    w, h = box.width, box.height
    if style.get("shape") == "ellipse":
        return f'<ellipse {paint} cx="{x:.1f}" cy="{y:.1f}" rx="{w / 2:.1f}" ry="{h / 2:.1f}"/>'
    radius = ' rx="6"' if "rounded" in style.get("style", "") else ""
    return (f'<rect {paint}{radius} x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" '
            f'width="{w:.1f}" height="{h:.1f}"/>')


def _texts(lines: list[str], x: float, y: float, size: float, colour: str,
           colours: list[str] | None = None) -> list[str]:
    step = size * 1.25
    top = y - step * (len(lines) - 1) / 2 + size * 0.35
    out = []
    for i, line in enumerate(lines):
        fill = colours[i] if colours else colour
        out.append(f'<text text-anchor="middle" x="{x:.1f}" y="{top + i * step:.1f}" '
                   f'font-family="{FONT}" font-size="{size:.1f}" fill="{fill}">'
                   f"{_esc(line)}</text>")
    return out


def builtin_svg(drawing: Drawing) -> str:
    boxes = {v.id: box_for(v.id, v.lines, shape=STYLE[v.style].get("shape", "box"))
             for v in drawing.vertices}
    centres = layout(list(boxes.values()), [(k.source, k.target) for k in drawing.links])
    width = max((centres[v][0] + boxes[v].width / 2 for v in centres), default=100) + 2 * MARGIN
    height = max((centres[v][1] + boxes[v].height / 2 for v in centres), default=40) + \
        2 * MARGIN
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}pt" '
           f'height="{height:.0f}pt" viewBox="0 0 {width:.1f} {height:.1f}">',
           '<g id="graph0" class="graph">',
           f'<rect fill="white" x="0" y="0" width="{width:.1f}" height="{height:.1f}"/>']
    top = MARGIN
    shift = {vid: (x + MARGIN, y0 + top) for vid, (x, y0) in centres.items()}
    for k, link in enumerate(drawing.links):
        (x1, y1), (x2, y2) = shift[link.source], shift[link.target]
        y1 += boxes[link.source].height / 2
        y2 -= boxes[link.target].height / 2
        colour = {"grad_fn": "#3c8c2c", "accumulate": "#3366aa", "none": "#aaaaaa",
                  "saved": "#cc8a3a"}.get(link.kind, "#000000")
        dash = ' stroke-dasharray="5,2"' if link.kind in ("none", "saved") else ""
        parts = [f'<g id="l-{k}" class="edge link {link.kind}">',
                 f'<path fill="none" stroke="{colour}"{dash} '
                 f'd="M{x1:.1f},{y1:.1f}L{x2:.1f},{y2 - 6:.1f}"/>']
        if link.kind != "saved":
            parts.append(f'<polygon fill="{colour}" stroke="{colour}" points="{x2 - 4:.1f},'
                         f'{y2 - 8:.1f} {x2:.1f},{y2:.1f} {x2 + 4:.1f},{y2 - 8:.1f}"/>')
        lines = [t for t in (link.label, link.grad) if t]
        colours = [colour] * (1 if link.label else 0) + ([GRAD_COLOUR] if link.grad else [])
        parts += _texts(lines, (x1 + x2) / 2 + 30, (y1 + y2) / 2, 9, colour, colours)
        parts.append("</g>")
        out += parts
    for vertex in drawing.vertices:
        x, y0 = shift[vertex.id]
        classes = " ".join(["node", "vertex", vertex.kind] + (["freed"] if vertex.freed else []))
        style = STYLE[vertex.style]
        out.append(f'<g id="v-{vertex.id}" class="{classes}">')
        out.append(_shape(vertex, boxes[vertex.id], x, y0))
        out += _texts(vertex.lines, x, y0, 11, style.get("fontcolor", "#000000"))
        out.append("</g>")
    out.append("</g></svg>")
    return "\n".join(out)
