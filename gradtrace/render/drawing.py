"""The autograd graph as a picture: Graphviz DOT (→ SVG/PNG) and Mermaid.

`build_drawing` turns the selected part of a run's graph (`selection.select`) into
vertices and links; `to_dot` and `to_mermaid` write them. The `view` page draws the same
vertices and links (its SVG is Graphviz's rendering of `to_dot(..., ids=True)`).

What is drawn: the tensors the graph starts from (green) and the leaves it ends in
(blue), each as its own vertex; every grad_fn node, AccumulateGrad, saved tensor and
`None` input; after backward, the gradient each arrow carried. Arrows point the way
gradients flow in backward: from a tensor to its grad_fn, from a node to its
next_functions, from AccumulateGrad into the leaf's `.grad`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..naming import held
from .graph import GraphView, origin
from .selection import Selection
from .values import array_cell, attr_cell, cut, shape_cell

if TYPE_CHECKING:
    from ..tracing import NodeRecord

GRAD_CELL = 24  # characters of a gradient on an arrow


@dataclass
class Vertex:
    """A box in the drawing.

    kind: output (a tensor the graph starts from), leaf (a leaf tensor), op (a grad_fn
    node), accumulate (AccumulateGrad), saved (a saved tensor), none (an input that needs
    no grad), cut (where a cut graph continues).
    """

    id: str
    kind: str
    lines: list[str]
    node: int | None = None  # the trace's node id (op, accumulate; saved/none/cut: owner)
    tensor: int | None = None  # the trace's tensor id (output, leaf, saved)
    freed: bool = False  # backward freed the node's saved tensors
    state: str = ""  # saved: "" | "modified" (version moved on) | "silent" (.data)
    saved_name: str | None = None  # saved: torch's attribute without `_saved_`
    module: str | None = None  # the module path of the node or tensor, when known
    fresh: list[str] | None = None  # a stale saved tensor: its lines before it went stale
    packed: bool = False  # saved: packed by saved_tensors_hooks (backward reads it unpacked)

    @property
    def style(self) -> str:
        """The LEGEND/STYLE entry the vertex is drawn with."""
        return self.state or ("packed" if self.packed else self.kind)


@dataclass
class Link:
    """An arrow. kind: grad_fn (tensor → node), next (next_functions, also to where a cut
    graph continues), none (to None), accumulate (AccumulateGrad → leaf), saved (node —
    saved tensor)."""

    source: str
    target: str
    kind: str
    label: str = ""  # `[0]`, `grad_fn`, `[1] output_nr 2`, `.grad`
    grad: str = ""  # what the shown backward call carried along it, as text
    index: int | None = None  # next/none: the position in next_functions


@dataclass
class Drawing:
    title: str
    arrows: str  # one line saying what the arrows mean
    notes: list[str] = field(default_factory=list)  # what was left out, and how to see it
    vertices: list[Vertex] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)

    @property
    def legend_kinds(self) -> list[str]:
        """The legend entries for what the drawing shows, in LEGEND order."""
        present: set[str] = set()
        for v in self.vertices:
            present.add(v.style)
            if v.freed:
                present.add("freed")
        return [kind for kind in LEGEND if kind in present]


def _hidden_attr(name: str) -> bool:
    """Saved sizes/strides/numel (`self_sym_sizes`): torch keeps them for shapes only."""
    return "_sym_" in name


def _grads(selection: Selection) -> tuple[dict, dict, dict]:
    """Gradients along the drawing's arrows, from the selection's backward calls (a later
    call's replaces an earlier one's): sent[(node, index)], started[(node, output_nr)],
    accumulated[node] = (before, after)."""
    sent: dict[tuple[int, int], Any] = {}
    started: dict[tuple[int, int], Any] = {}
    accumulated: dict[int, tuple[Any, Any]] = {}
    for call in selection.calls:
        for (nid, nr), grad in zip(call.roots, call.root_grads):
            if nid is not None:
                started[(nid, nr)] = grad
        for step in call.steps:
            if step.accumulated is not None:
                _, before, after = step.accumulated
                accumulated[step.node_id] = (before, after)
            for flow in step.sent:
                if flow.grad is not None:
                    sent[(step.node_id, flow.index)] = flow.grad
    return sent, started, accumulated


def value_line(array: Any) -> str:
    """A tensor vertex's value line: `24.`, `[1., 2.] · shape [2]`."""
    text = array_cell(array, 24)
    return text if not array.shape else f"{text} · shape {shape_cell(array.shape)}"


def tensor_lines(view: GraphView, tensor_id: int, array: Any) -> list[str]:
    """A tensor vertex's first lines: its name by the naming rule, its value, and for an
    `x@5` name the name and lines that held it (`(x, lines 5-7)`). The value stays the
    second line: the view page rewrites it as the values change. The name lines are cut
    as a box's other lines are (Graphviz refuses a string past 16,384 characters, and a
    20,000-character name is no use in a box)."""
    lines = [cut(view.tensor_label(tensor_id)), value_line(array)]
    binding = view.naming.introduction(tensor_id)
    if binding is not None:
        lines.append(cut(f"({held(binding)})"))
    return lines


def build_drawing(view: GraphView, selection: Selection, *, saved: str = "auto",
                  grads: bool = True) -> Drawing:
    """The vertices and links of the selected graph. saved: "auto" hides saved `None`s
    and shape-only attributes (`self_sym_sizes`), "all" shows everything. grads: put the
    gradients of the selection's backward calls on the arrows."""
    drawn = set(selection.node_ids)
    sent, started, accumulated = _grads(selection) if grads else ({}, {}, {})
    drawing = Drawing(_title(view, selection), _arrows_line(selection, grads and bool(
        sent or accumulated)), _notes(selection))
    vertices, links = drawing.vertices, drawing.links

    outputs: dict[int, tuple[int, int]] = {}  # tensor id -> (node id, output_nr)
    for root in selection.roots:
        record = view.nodes[root.node_id]
        if root.output_nr < len(record.outputs):
            outputs.setdefault(record.outputs[root.output_nr], (root.node_id, root.output_nr))
    for call in selection.calls:
        for nid, nr in call.roots:
            if nid in drawn and nr < len(view.nodes[nid].outputs):
                outputs.setdefault(view.nodes[nid].outputs[nr], (nid, nr))
    for _, record in view.named:
        nid = view.node_id(record.tensor.grad_fn)
        if nid in drawn:
            outputs.setdefault(record.id, (nid, record.tensor.output_nr))
    shown_outputs = {nid for nid, _ in outputs.values()}
    for tensor_id in sorted(outputs):
        nid, nr = outputs[tensor_id]
        record = view.nodes[nid]
        tensor = view.tensors[tensor_id]
        vertices.append(Vertex(f"t{tensor_id}", "output",
                               tensor_lines(view, tensor_id, tensor.tensor.array),
                               tensor=tensor_id, module=_module(tensor)))
        label = "grad_fn" if len(record.outputs) <= 1 else f"grad_fn · output_nr {nr}"
        grad = started.get((nid, nr))
        links.append(Link(f"t{tensor_id}", f"n{nid}", "grad_fn", label,
                          "" if grad is None else f"grad {array_cell(grad, GRAD_CELL)}"))

    leaves: set[int] = set()  # a leaf is drawn once, whatever AccumulateGrads feed it
    for nid in sorted(drawn):
        record = view.nodes[nid]
        if view.is_leaf_node(record):
            _accumulate(view, record, vertices, links, accumulated, leaves)
        else:
            _op(view, record, vertices, links, saved, nid in shown_outputs)
        for index, (child, nr) in enumerate(view.next_functions(record)):
            label = f"[{index}]"
            if child is None:
                none_id = f"none{nid}_{index}"
                vertices.append(Vertex(none_id, "none", ["None"], node=nid))
                links.append(Link(f"n{nid}", none_id, "none", label, index=index))
                continue
            if nr or len(view.nodes[child].outputs) > 1:
                label += f" output_nr {nr}"
            grad = sent.get((nid, index))
            text = "" if grad is None else f"grad {array_cell(grad, GRAD_CELL)}"
            target = f"n{child}" if child in drawn else f"cut{child}"
            links.append(Link(f"n{nid}", target, "next", label, text, index=index))
    cut_at = sorted({child for children in selection.cut.values() for child in children})
    for child in cut_at:
        vertices.append(Vertex(f"cut{child}", "cut", [
            f"⋯ continues at {view.node_title(view.nodes[child])}",
            f"draw from here: --root '#{child}'"], node=child))
    return drawing


def _module(record: Any) -> str | None:
    """The module path the trace gives a node or tensor (the nn work adds it)."""
    return getattr(record, "module", None)


def _accumulate(view: GraphView, record: NodeRecord, vertices: list[Vertex],
                links: list[Link], accumulated: dict, leaves: set[int]) -> None:
    nid = record.id
    vertices.append(Vertex(f"n{nid}", "accumulate", [view.node_title(record)], node=nid,
                           module=_module(record)))
    leaf = view.variable_id(record)
    if leaf is None or leaf not in view.tensors:
        return
    if leaf not in leaves:
        leaves.add(leaf)
        variable = view.tensors[leaf].tensor
        grad = "None" if variable.grad is None else array_cell(variable.grad.array, GRAD_CELL)
        vertices.append(Vertex(f"t{leaf}", "leaf",
                               [*tensor_lines(view, leaf, variable.array), f"grad {grad}"],
                               tensor=leaf, module=_module(view.tensors[leaf])))
    change = accumulated.get(nid)
    text = ""
    if change is not None:
        before, after = change
        text = f"{array_cell(before, GRAD_CELL)} → {array_cell(after, GRAD_CELL)}"
    links.append(Link(f"n{nid}", f"t{leaf}", "accumulate", ".grad", text))


def _op(view: GraphView, record: NodeRecord, vertices: list[Vertex], links: list[Link],
        saved: str, output_drawn: bool) -> None:
    nid = record.id
    lines = [view.node_title(record)]
    output = view.output_label(record)
    if output is not None and not output_drawn:
        lines.append(f"→ {cut(output, 30)}")
    where = origin(record, 30)  # `line 7: a * b`, or the backward call that recorded it
    if where:
        lines.append(where)
    freed = view.is_freed(record)
    notes = []
    for info in view.saved(record):
        if info.is_attr:
            if saved == "all" or not _hidden_attr(info.name):
                lines.append(f"{info.name} = {attr_cell(info.value, 24)}")
            continue
        tensor = view.tensors.get(info.tensor_id) if info.tensor_id is not None else None
        if tensor is None:
            if saved == "all":
                lines.append(f"{info.name} = None")
            continue
        if tensor.tensor._wrapped:  # a Python number: a constant, not a tensor to track
            lines.append(f"{info.name} = {info.label}")
            continue
        notes.append(info)
    vertices.append(Vertex(f"n{nid}", "op", lines, node=nid, freed=freed,
                           module=_module(record)))
    for k, info in enumerate(notes):
        text = [f"{info.name} = {info.label}"]
        state = ""
        fresh = [*text, f"version {info.version}"]
        if info.packed is not None:
            # backward reads what the unpack hook returns, whose version torch does not check
            text.extend(_packed_lines(info))
        elif info.modified:
            state = "modified"
            text.append(f"saved at version {info.version}, now {info.current}")
        elif info.changed_silently:
            state = "silent"
            text.append(f"version {info.version}, changed through .data")
        else:
            text.append(f"version {info.version}")
        if info.is_output:
            text.append("(this node's own output)")
            fresh.append(text[-1])
        sid = f"s{nid}_{k}"
        vertices.append(Vertex(sid, "saved", text, node=nid, tensor=info.tensor_id,
                               freed=freed, state=state, saved_name=info.name,
                               module=_module(record), fresh=fresh if state else None,
                               packed=info.packed is not None))
        links.append(Link(f"n{nid}", sid, "saved"))


def _packed_lines(info: Any) -> list[str]:
    """A saved tensor packed by saved_tensors_hooks: its versions (which backward does not
    check through hooks, so a change is no error) and the hooks, as the tables name them."""
    if info.modified:
        version = f"saved at version {info.version}, now {info.current} (not checked)"
    elif info.changed_silently:
        version = f"version {info.version}, changed through .data"
    else:
        version = f"version {info.version}"
    return [version, f"packed by {cut(info.packed[0], 28)}",
            f"unpacked by {cut(info.packed[1], 26)}"]


def _title(view: GraphView, selection: Selection) -> str:
    title = f"autograd graph of {view.trace.interpreter.source.name}"
    if selection.how in ("backward", "last"):
        call = next(c for c in view.trace.backward_calls if c.index == selection.backward)
        title += f" · backward #{call.index} of {selection.total_calls}"
        if call.line is not None:
            title += f" (line {call.line})"
    elif selection.how == "root":
        title += f" · the graph of {selection.root_name}"
    return title


def _arrows_line(selection: Selection, grads: bool) -> str:
    text = "arrows: the way gradients flow in backward (tensor → grad_fn → next_functions " \
           "→ AccumulateGrad → .grad)"
    if grads:
        calls = {c.index for c in selection.calls if c.steps}
        which = f"backward #{min(calls)}" if len(calls) == 1 else "the last backward through it"
        text += f"; on an arrow: the gradient {which} sent along it"
    return text


def _notes(selection: Selection) -> list[str]:
    notes = []
    if selection.skipped_calls:
        earlier = "earlier " if selection.how == "last" else "other "
        many = selection.skipped_calls
        notes.append(f"{many:,} {earlier}backward call{'s' if many != 1 else ''} not drawn: "
                     "--backward N draws call N, --backward all every call")
    for call in selection.calls:
        if call.error is not None:
            where = f" (line {call.line})" if call.line is not None else ""
            message = cut(call.error_message or call.error, 90)
            notes.append(f"backward #{call.index}{where} raised {call.error_type}: {message}")
    if selection.hidden:
        drawn = len(selection.node_ids)
        notes.append(f"{drawn:,} of {drawn + selection.hidden:,} nodes drawn (⋯ marks where "
                     "the graph continues): --max-nodes N draws more, --root '#ID' from a "
                     "node on; --format json has every node")
    return notes


# -- the legend --------------------------------------------------------------------------

# kind -> (swatch style, text); only the kinds a drawing shows are listed
LEGEND = {
    "output": ("output", "tensor with a grad_fn"),
    "op": ("op", "grad_fn node (an op's backward)"),
    "accumulate": ("accumulate", "AccumulateGrad: adds into a leaf's .grad"),
    "leaf": ("leaf", "leaf tensor"),
    "saved": ("saved", "saved tensor (version when saved)"),
    "modified": ("modified", "saved tensor changed in place since: backward raises"),
    "silent": ("silent", "saved tensor changed through .data: backward silently uses the "
                         "new values"),
    "packed": ("packed", "saved tensor packed by saved_tensors_hooks: backward reads what "
                         "the unpack hook returns (versions not checked)"),
    "freed": ("freed", "dashed: backward freed the saved tensors"),
    "none": ("none", "None: that input needs no grad"),
    "cut": ("cut", "the graph continues (not drawn)"),
}

# DOT attributes per style
STYLE = {
    "output": {"shape": "ellipse", "style": "filled", "fillcolor": "#c8efc0",
               "color": "#3c8c2c"},
    "leaf": {"shape": "ellipse", "style": "filled", "fillcolor": "#bcdcff", "color": "#3366aa"},
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#eeeeee",
           "color": "#555555"},
    "accumulate": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dfeeff",
                   "color": "#3366aa"},
    "saved": {"shape": "note", "style": "filled", "fillcolor": "#fff1d6", "color": "#cc8a3a"},
    "modified": {"shape": "note", "style": "filled", "fillcolor": "#ffb3b3",
                 "color": "#cc0000", "penwidth": "2", "fontcolor": "#660000"},
    "silent": {"shape": "note", "style": "filled", "fillcolor": "#ffd08a", "color": "#e07000",
               "penwidth": "2", "fontcolor": "#5c2e00"},
    "packed": {"shape": "note", "style": "filled", "fillcolor": "#f6dcf8", "color": "#9c3aa6"},
    "none": {"shape": "plaintext", "fontcolor": "#999999"},
    "cut": {"shape": "box", "style": "dashed", "color": "#999999", "fontcolor": "#666666"},
}

LINK_STYLE = {
    # heavy: dot keeps these arrows short and straight, so a long chain stays a column
    # instead of drifting sideways past each node's None and saved tensors
    "next": {"weight": "8"},
    "none": {"style": "dashed", "color": "#aaaaaa", "fontcolor": "#999999"},
    "saved": {"style": "dotted", "arrowhead": "none", "color": "#cc8a3a"},
    "grad_fn": {"style": "bold", "color": "#3c8c2c", "fontcolor": "#3c8c2c"},
    "accumulate": {"color": "#3366aa", "fontcolor": "#3366aa"},
}

GRAD_COLOUR = "#b0306a"


def _vertex_style(vertex: Vertex) -> dict[str, str]:
    style = dict(STYLE[vertex.style])
    if vertex.freed and vertex.kind == "op":
        style["style"] += ",dashed"
    return style


# -- DOT ---------------------------------------------------------------------------------


def _dot_string(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, no raw newlines."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def _dot_label(lines: list[str]) -> str:
    return "\\n".join(_dot_string(line)[1:-1] for line in lines).join('""')


def _html(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\n", " "))


def _attrs(attrs: dict[str, str]) -> str:
    return ", ".join(f"{key}={_dot_string(value)}" for key, value in attrs.items())


def _legend_table(drawing: Drawing) -> str:
    cells = []
    for kind in drawing.legend_kinds:
        style, text = LEGEND[kind]
        attrs = STYLE.get(style, STYLE["op"])
        swatch = f'BGCOLOR="{attrs.get("fillcolor", "#ffffff")}" COLOR="' \
                 f'{attrs.get("color", "#999999")}" BORDER="1"'
        if style == "freed":
            swatch = 'BGCOLOR="#eeeeee" COLOR="#555555" BORDER="1" STYLE="dashed"'
        elif style in ("op", "accumulate", "output", "leaf"):
            swatch += ' STYLE="rounded"'
        elif style == "none":
            swatch = 'BGCOLOR="#ffffff" COLOR="#bbbbbb" BORDER="1" STYLE="dashed"'
        elif style == "cut":
            swatch += ' STYLE="dashed"'
        cells.append(f'<TD {swatch} WIDTH="16" HEIGHT="10" FIXEDSIZE="TRUE"></TD>'
                     f'<TD ALIGN="LEFT"><FONT POINT-SIZE="9">{_html(text)}</FONT></TD>')
    rows = ["<TR>" + "".join(cells[i:i + 3]) + "</TR>" for i in range(0, len(cells), 3)]
    return '<TABLE BORDER="0" CELLSPACING="3" CELLPADDING="1">' + "".join(rows) + "</TABLE>"


def _graph_label(drawing: Drawing, legend: bool) -> str:
    rows = [f'<TR><TD><FONT POINT-SIZE="14">{_html(drawing.title)}</FONT></TD></TR>',
            f'<TR><TD><FONT POINT-SIZE="10" COLOR="#444444">{_html(drawing.arrows)}'
            "</FONT></TD></TR>"]
    rows += [f'<TR><TD><FONT POINT-SIZE="10" COLOR="#a05a00">{_html(note)}</FONT></TD></TR>'
             for note in drawing.notes]
    if legend and drawing.legend_kinds:
        rows.append(f"<TR><TD>{_legend_table(drawing)}</TD></TR>")
    return '<<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="2">' + "".join(rows) + "</TABLE>>"


def _link_label(link: Link) -> str | None:
    if not link.label and not link.grad:
        return None
    parts = [_html(link.label)] if link.label else []
    if link.grad:
        parts.append(f'<FONT COLOR="{GRAD_COLOUR}">{_html(link.grad)}</FONT>')
    return "<" + "<BR/>".join(parts) + ">"


def to_dot(drawing: Drawing, *, legend: bool = True, ids: bool = False,
           positions: dict[str, tuple[float, float]] | None = None,
           heading: bool = True) -> str:
    """Graphviz DOT for a drawing: `dot -Tsvg` renders it.

    ids: give every vertex and link an SVG id and class (`v-n4`, `l-3`) for the view
    page. positions: fixed vertex centres in points (for `neato -n2`, see images.py).
    heading: the title, the arrows line, the notes and the legend above the graph (the
    page shows them itself).
    """
    label = f", labelloc=t, label={_graph_label(drawing, legend)}" if heading else ""
    out = [
        "digraph gradtrace {",
        f'  graph [rankdir=TB, charset="UTF-8", fontname="Helvetica"{label}];',
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    if positions is not None:
        out.append("  graph [splines=line, outputorder=edgesfirst];")
    if not drawing.vertices:
        out.append('  empty [label="no autograd graph was recorded", shape=plaintext];')
    lines = {}
    for vertex in drawing.vertices:
        attrs = _vertex_style(vertex)
        if ids:
            attrs["id"] = f"v-{vertex.id}"
            attrs["class"] = " ".join(["vertex", vertex.kind] + (["freed"] if vertex.freed
                                                                   else []))
        if positions is not None:
            x, y = positions[vertex.id]
            attrs["pos"] = f"{x:.1f},{y:.1f}!"
        lines[vertex.id] = f"{vertex.id} [label={_dot_label(vertex.lines)}, {_attrs(attrs)}];"
    out += _clustered(drawing, lines)
    for k, link in enumerate(drawing.links):
        attrs = dict(LINK_STYLE.get(link.kind, {}))
        if ids:
            attrs["id"] = f"l-{k}"
            attrs["class"] = f"link {link.kind}"
        parts = []
        label = _link_label(link)
        if label is not None:
            parts.append(f"label={label}")
        if attrs:
            parts.append(_attrs(attrs))
        suffix = f" [{', '.join(parts)}]" if parts else ""
        out.append(f"  {link.source} -> {link.target}{suffix};")
    out.append("}")
    return "\n".join(out) + "\n"


def module_paths(drawing: Drawing) -> list[str]:
    """Every module path of the drawing's vertices and its prefixes (`model`,
    `model.fc1`), sorted: the clusters of the DOT, `m-0`, `m-1`, … in this order."""
    paths: set[str] = set()
    for vertex in drawing.vertices:
        if vertex.module:
            parts = vertex.module.split(".")
            paths.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(paths)


def _clustered(drawing: Drawing, lines: dict[str, str]) -> list[str]:
    """The vertex lines, those of a module inside its (nested) cluster."""
    paths = module_paths(drawing)
    if not paths:
        return [f"  {line}" for line in lines.values()]
    members: dict[str | None, list[str]] = {}
    for vertex in drawing.vertices:
        members.setdefault(vertex.module or None, []).append(lines[vertex.id])
    out = [f"  {line}" for line in members.get(None, ())]

    def emit(path: str, depth: int) -> None:
        pad = "  " * depth
        k = paths.index(path)
        out.append(f"{pad}subgraph cluster_m{k} {{")
        out.append(f'{pad}  label={_dot_string(path)}; id="m-{k}"; class="module"; '
                   'style="rounded,dashed"; color="#1c7ed6"; fontcolor="#1c7ed6"; fontsize=10;')
        out.extend(f"{pad}  {line}" for line in members.get(path, ()))
        for child in paths:
            if child.startswith(path + ".") and "." not in child[len(path) + 1:]:
                emit(child, depth + 1)
        out.append(f"{pad}}}")

    for path in paths:
        if "." not in path:
            emit(path, 1)
    return out


# -- Mermaid -------------------------------------------------------------------------------

_MERMAID_ESCAPES = {
    # inside a quoted label only these need codes: the quote itself, `#` (codes start
    # with it), HTML markup, `;`, `|` (edge labels) and the backtick (Markdown fences)
    "&": "#amp;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "#": "#35;", "`": "#96;",
    "|": "#124;", ";": "#59;", "\\": "#92;", "\n": " ", "\r": " ",
}


def mermaid_escape(text: str) -> str:
    """Text safe inside a quoted Mermaid label: markup and entity characters as codes."""
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in text)


def _mermaid_label(lines: list[str]) -> str:
    return '"' + "<br/>".join(mermaid_escape(line) for line in lines) + '"'


_MERMAID_SHAPE = {
    "op": ("[", "]"), "accumulate": ("([", "])"), "output": ("((", "))"),
    "leaf": ("((", "))"), "saved": (">", "]"), "none": ("[", "]"), "cut": ("[", "]"),
}


def _mermaid_class_style(style: str) -> str:
    attrs = STYLE[style]
    parts = [f"fill:{attrs.get('fillcolor', '#ffffff')}", f"stroke:{attrs.get('color', '#cccccc')}",
             f"color:{attrs.get('fontcolor', '#000000')}"]
    if "dashed" in attrs.get("style", ""):
        parts.append("stroke-dasharray:5 5")
    if "penwidth" in attrs:
        parts.append(f"stroke-width:{attrs['penwidth']}px")
    return ",".join(parts)


def to_mermaid(drawing: Drawing, *, legend: bool = True) -> str:
    """A Mermaid `flowchart TB` for Markdown (```mermaid fences), escaped."""
    out = ["flowchart TB"]
    kinds = drawing.legend_kinds if legend else []
    if kinds:
        out.append('  subgraph legend["legend"]')
        out.append("    direction LR")
        for kind in kinds:
            shape = {"freed": "op", "modified": "saved", "silent": "saved",
                     "packed": "saved"}.get(kind, kind)
            left, right = _MERMAID_SHAPE[shape]
            out.append(f"    legend_{kind}{left}{_mermaid_label([LEGEND[kind][1]])}{right}")
        out.append("  end")
    if not drawing.vertices:
        out.append('  empty["no autograd graph was recorded"]')
    for vertex in drawing.vertices:
        left, right = _MERMAID_SHAPE[vertex.kind]
        out.append(f"  {vertex.id}{left}{_mermaid_label(vertex.lines)}{right}")
    arrows = {"next": "-->", "none": "-.->", "saved": "-.-", "grad_fn": "==>",
              "accumulate": "-->"}
    for link in drawing.links:
        text = " · ".join(part for part in (link.label, link.grad) if part)
        label = f'|"{mermaid_escape(text)}"|' if text else ""
        out.append(f"  {link.source} {arrows[link.kind]}{label} {link.target}")
    groups: dict[str, list[str]] = {}
    for kind in kinds:
        groups.setdefault(kind, []).append(f"legend_{kind}")
    for vertex in drawing.vertices:
        cls = "freed" if vertex.freed and vertex.kind == "op" else vertex.style
        groups.setdefault(cls, []).append(vertex.id)
    for name in groups:
        line = _mermaid_class_style("op" if name == "freed" else name)
        if name == "freed":
            line += ",stroke-dasharray:5 5"
        out.append(f"  classDef {name} {line}")
    for name, ids in groups.items():
        for start in range(0, len(ids), 50):  # keep lines a readable length
            out.append(f"  class {','.join(ids[start:start + 50])} {name}")
    return "\n".join(out) + "\n"


# -- the `graph` command's pictures ----------------------------------------------------------

DRAWING_FORMATS = ("dot", "mermaid", "svg", "png")


def draw(trace: Any, fmt: str, *, backward: int | str | None = None, root: str | None = None,
         max_nodes: int | None = None, saved: str = "auto", grads: bool = True,
         legend: bool = True) -> str | bytes:
    """The run's graph as DOT or Mermaid text, or SVG/PNG bytes (through Graphviz).

    backward/root/max_nodes pick what is drawn (`selection.select`; raises SelectionError
    for a call or name the run does not have); images raise images.GraphvizMissing or
    images.RenderError.
    """
    from .selection import MAX_DRAWN, select

    view = GraphView(trace)
    chosen = select(view, backward=backward, root=root,
                    max_nodes=MAX_DRAWN if max_nodes is None else max_nodes)
    drawing = build_drawing(view, chosen, saved=saved, grads=grads)
    if fmt == "dot":
        return to_dot(drawing, legend=legend)
    if fmt == "mermaid":
        return to_mermaid(drawing, legend=legend)
    from .images import render

    return render(drawing, fmt, legend=legend)
