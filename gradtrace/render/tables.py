"""The `gradtrace run` report: Tensors table, Graph trees, one Backward table per call.

`print_report(console, result, sections)` prints it from a traced `RunResult`; the
sections can also be built one by one (`tensors_table`, `graph.print_graph`,
`backward_tables`). Every cell is short (large tensors are summarised), every long list
is capped with a "… N more" line, so a big run never floods the terminal.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.text import Text

from ..engine.tensor import Tensor
from ..tracing import script_tensors
from .graph import MAX_TREE_NODES, GraphView, old_names_lines, print_graph
from .layout import CompactTable
from .values import array_cell, cut, node_cell, shape_cell, tensor_cell

if TYPE_CHECKING:
    from ..runner import RunResult
    from ..tracing import BackwardCall, BackwardStep, Tracer

SECTIONS = ("tensors", "graph", "backward")
MAX_TENSOR_ROWS = 100
MAX_BACKWARD_STEPS = 100  # rows per backward table
MAX_BACKWARD_CALLS = 10  # tables; past this, the first and last five are shown
MAX_CELL_EDGES = 16  # gradients one cell lists (a node of 30,000 inputs sends 30,000)


def parse_sections(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """`"tensors,graph"` -> ("tensors", "graph"); None or "all" -> every section.

    Raises ValueError naming the unknown section.
    """
    if text is None:
        return SECTIONS
    parts = text.split(",") if isinstance(text, str) else list(text)
    chosen: list[str] = []
    for part in parts:
        name = part.strip().lower()
        if not name:
            continue
        if name == "all":
            return SECTIONS
        if name not in SECTIONS:
            raise ValueError(f"unknown section {part.strip()!r} (choose from "
                             f"{', '.join(SECTIONS)}, or all)")
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise ValueError(f"no section chosen (choose from {', '.join(SECTIONS)}, or all)")
    return tuple(chosen)


# -- Tensors -------------------------------------------------------------------------


def named_tensors(variables: dict[str, Any]) -> list[tuple[str, Tensor]]:
    """The tensors the script's top-level names hold (`model.w` for an instance's)."""
    return script_tensors(variables)


def _bool(value: bool) -> Text:
    return Text(str(value), style="green" if value else "dim")


TENSOR_COLUMNS = ("name", "value", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn",
                  "grad", "_version", "retains_grad")
_VALUE_COLUMNS = ("name", "value", "shape", "dtype", "grad")
_AUTOGRAD_COLUMNS = ("name", "requires_grad", "is_leaf", "grad_fn", "_version", "retains_grad")


def _tensor_rows(variables: dict[str, Any], view: GraphView | None, max_rows: int,
                 value_limit: int) -> list[dict[str, Text]]:
    """Cells are `Text`: a plain string would be read as console markup, and values like
    `[nan, 1.]` or labels like `x[i]` would lose their bracketed parts."""
    rows: list[dict[str, Text]] = []
    named = named_tensors(variables)
    for name, t in named[:max_rows]:
        grad_fn = node_cell(t.grad_fn)
        if t.grad_fn is not None and view is not None:
            grad_fn += f" #{view.node_id(t.grad_fn)}"
        rows.append({
            "name": Text(name, style="bold"), "value": Text(tensor_cell(t, value_limit)),
            "shape": Text(shape_cell(t.shape)), "dtype": Text(t.dtype.name),
            "requires_grad": _bool(t.requires_grad), "is_leaf": _bool(t.is_leaf),
            "grad_fn": Text(grad_fn), "grad": Text(tensor_cell(t.grad, value_limit)),
            "_version": _version_cell(t), "retains_grad": _bool(t.retains_grad)})
    if len(named) > max_rows:
        rows.append({"name": Text(f"… {len(named) - max_rows:,} more", style="yellow")})
    return rows


def _version_cell(t: Any) -> Text:
    """`_version`, or what torch says instead for an inference tensor (it has none)."""
    if t.is_inference():
        return Text("none: inference tensor", style="dim")
    return Text(str(t._version))


def _rows_table(rows: list[dict[str, Text]], columns: Sequence[str]) -> CompactTable:
    table = CompactTable(2)
    for column in columns:
        table.add_column(column, no_wrap=column not in ("value", "grad"))
    for row in rows:
        table.add_row(*(row.get(column, Text()) for column in columns))
    return table


def value_limit_for(width: int | None, base: int, share: int) -> int:
    """Characters a value cell may take: `base` at the README's width (100), more when the
    table has room (a wider terminal or --width), never less."""
    if width is None:
        return base
    return max(base, base + (width - 100) // share)


def tensors_table(variables: dict[str, Any], view: GraphView | None = None, *,
                  width: int | None = None, max_rows: int = MAX_TENSOR_ROWS,
                  value_limit: int | None = None) -> RenderableType:
    """Name, value, shape, dtype, requires_grad, is_leaf, grad_fn, grad, _version,
    retains_grad for each tensor the script's names hold at the end.

    One table when it fits `width`; otherwise two (values, then autograd attributes),
    so no column is squeezed below its header. Values get more room on wider tables.
    """
    if value_limit is None:
        value_limit = value_limit_for(width, 40, 2)
    rows = _tensor_rows(variables, view, max_rows, value_limit)
    natural = sum(max([len(c)] + [_plain_width(r.get(c, Text())) for r in rows])
                  for c in TENSOR_COLUMNS) + 2 * (len(TENSOR_COLUMNS) - 1)
    if width is None or natural <= width:
        return _rows_table(rows, TENSOR_COLUMNS)
    return Group(_rows_table(rows, _VALUE_COLUMNS), Text(""),
                 _rows_table(rows, _AUTOGRAD_COLUMNS))


# -- Backward ------------------------------------------------------------------------


NODE_LABEL_LIMIT = 24  # characters of the tensor's name in a Backward table's node cell


def _step_node(view: GraphView, node_id: int | None, output_nr: int | None = None) -> Text:
    if node_id is None:
        return Text("None")
    record = view.nodes[node_id]
    text = view.node_title(record)
    output = view.output_label(record, output_nr if not view.is_leaf_node(record) else None)
    return Text(f"{text} ({cut(output, NODE_LABEL_LIMIT)})" if output is not None else text)


def _more_edges(total: int) -> str:
    left = total - MAX_CELL_EDGES
    return f"… {left:,} more gradient{'s' if left != 1 else ''} (`--json` has them all)"


def _received_cell(step: BackwardStep, limit: int) -> Text:
    if len(step.received) == 1:
        return Text(array_cell(step.received[0], limit))
    lines = [f"[{i}] {array_cell(g, limit)}"
             for i, g in enumerate(step.received[:MAX_CELL_EDGES])]
    if len(step.received) > MAX_CELL_EDGES:
        lines.append(_more_edges(len(step.received)))
    return Text("\n".join(lines))


SENT_INDENT = "    "


def _sent_items(view: GraphView, step: BackwardStep, limit: int
                ) -> list[tuple[int, str | None, str]]:
    """The `grad sent` cell's edges as (index, value text or None for a None edge, `→ Node
    #id`): formatted once, for the cell's natural width and again at its fitted width."""
    items: list[tuple[int, str | None, str]] = []
    for flow in step.sent[:MAX_CELL_EDGES]:
        if flow.node_id is None:
            items.append((flow.index, None, ""))
        else:
            items.append((flow.index, array_cell(flow.grad, limit),
                          "→ " + view.node_title(view.nodes[flow.node_id])))
    return items


def _sent_cell(items: list[tuple[int, str | None, str]], total: int,
               width: int | None = None) -> Text:
    """`[0] 4. → MulBackward0 #1`, a line per edge of `_sent_items`; where a line is wider
    than `width`, `→ MulBackward0 #1` goes on a line of its own, so a node's name never
    breaks. At most MAX_CELL_EDGES lines, then how many more (of `total`)."""
    text = Text()
    for i, (index, value, target) in enumerate(items):
        if i:
            text.append("\n")
        text.append(f"[{index}] ", style="dim")
        if value is None:
            text.append("None", style="dim")
            continue
        text.append(value, style="bold")
        if width is not None and len(f"[{index}] {value} {target}") > width:
            text.append("\n" + SENT_INDENT + target)
        else:
            text.append(" " + target)
    if total > MAX_CELL_EDGES:
        text.append("\n" + _more_edges(total), style="yellow")
    return text


def _sent_floor(view: GraphView, call: BackwardCall, max_steps: int) -> int:
    """The narrowest the `grad sent` column may be: its longest `    → Node #id` line."""
    titles = [view.node_title(view.nodes[f.node_id]) for step in call.steps[:max_steps]
              for f in step.sent[:MAX_CELL_EDGES] if f.node_id is not None]
    return max((len(SENT_INDENT + "→ " + t) for t in titles), default=16)


def _effect_cell(view: GraphView, step: BackwardStep, limit: int) -> Text:
    text = Text()
    if step.accumulated is not None:
        tensor_id, before, after = step.accumulated
        text.append(f"{view.tensor_label(tensor_id)}.grad: ")
        text.append(array_cell(before, limit), style="dim")
        text.append(" → ")
        text.append(array_cell(after, limit), style="bold green")
    if step.released:
        if text:
            text.append("\n")
        text.append("saved freed", style="dim")
    return text


def _call_title(view: GraphView, call: BackwardCall, limit: int = 40) -> Text:
    source = view.trace.interpreter.source
    title = Text(f"Backward #{call.index}", style="bold")
    if call.line is not None:
        title.append(f" · line {call.line}: ")
        title.append(cut(source.code_text(call.line), 60), style="italic")
    roots = []
    for (nid, nr), grad in zip(call.roots, call.root_grads, strict=False):
        label = "None" if nid is None else (
            view.output_label(view.nodes[nid], nr) or view.node_title(view.nodes[nid]))
        roots.append(f"{label} with grad {array_cell(grad, limit)}")
    if roots:
        title.append(" · from " + ", ".join(roots))
    flags = []
    if not call.accumulate:
        flags.append("autograd.grad: nothing accumulated into .grad")
    if call.retain_graph:
        flags.append("retain_graph=True")
    if call.create_graph:
        flags.append("create_graph=True")
    if flags:
        title.append(" · " + ", ".join(flags), style="dim")
    return title


def _error_text(view: GraphView, call: BackwardCall) -> Text:
    """`✗ backward raised …`, naming the nodes whose saved tensors were changed in place."""
    text = Text("✗ backward raised ", style="bold red")
    stale: dict[int, list[str]] = {}
    for item in getattr(call, "stale", None) or ():
        if item.get("node") in view.nodes:
            stale.setdefault(item["node"], []).append(str(item.get("saved")))
    if stale:
        text.append("at ", style="bold red")
        text.append("; ".join(
            f"{view.node_title(view.nodes[nid])} (saved {', '.join(names)} changed in place)"
            for nid, names in stale.items()), style="bold red")
        text.append(": ", style="bold red")
    text.append(call.error or "", style="red")
    return text


def _plain_width(cell: Text) -> int:
    return max((len(line) for line in cell.plain.splitlines()), default=0)


def fit_widths(natural: list[int], steps: list[tuple[int, int]], available: int) -> list[int]:
    """Column widths within `available`: walk `steps` of (column, floor), shrinking that
    column toward its floor while the total is too wide; later steps cut deeper."""
    widths = list(natural)
    for index, floor in steps:
        excess = sum(widths) - available
        if excess <= 0:
            break
        widths[index] -= max(0, min(excess, widths[index] - floor))
    return widths


BACKWARD_COLUMNS = ("step", "node", "grad received", "grad sent",
                    "accumulated / freed")


def backward_table(view: GraphView, call: BackwardCall, *, width: int = 100,
                   max_steps: int = MAX_BACKWARD_STEPS,
                   value_limit: int | None = None) -> RenderableType:
    """One row per node the backward call ran, in execution order, fitted to `width`.

    Values get more room on wider tables; node names never break across lines (the node
    column keeps its width, and `→ Node #id` moves to its own line in `grad sent`)."""
    if value_limit is None:
        value_limit = value_limit_for(width, 30, 3)
    title_limit = value_limit_for(width, 40, 3)
    if not call.steps:
        lines: list[RenderableType] = [_call_title(view, call, title_limit)]
        if call.error is not None:
            lines.append(_error_text(view, call))
        else:
            lines.append(Text("no node ran", style="dim"))
        return Group(*lines)
    rows: list[list[Text]] = []  # Text, not str: cells are not console markup
    sent = [_sent_items(view, step, value_limit) for step in call.steps[:max_steps]]
    for step, items in zip(call.steps, sent, strict=False):
        rows.append([Text(str(step.index)), _step_node(view, step.node_id),
                     _received_cell(step, value_limit), _sent_cell(items, len(step.sent)),
                     _effect_cell(view, step, value_limit)])
    if len(call.steps) > max_steps:
        left = len(call.steps) - max_steps
        rows.append([Text("…"), Text(f"{left:,} more step{'s' if left != 1 else ''}",
                                     style="yellow"), Text(), Text(), Text()])
    natural = [max([_plain_width(r[i]) for r in rows] + [len(min(header.split(), key=len))])
               for i, header in enumerate(BACKWARD_COLUMNS)]
    natural = [max(n, min(len(h), 30)) for n, h in zip(natural, BACKWARD_COLUMNS, strict=True)]
    gap = 2
    available = width - gap * (len(BACKWARD_COLUMNS) - 1)
    sent_floor = _sent_floor(view, call, max_steps)
    widths = fit_widths(natural, [(4, 18), (2, 12), (4, 14), (3, max(26, sent_floor)), (4, 12),
                                  (2, 8), (3, sent_floor)], available)
    for row, step, items in zip(rows, call.steps, sent, strict=False):
        row[3] = _sent_cell(items, len(step.sent), widths[3])
    table = CompactTable(gap, title=_call_title(view, call, title_limit),
                         caption=_error_text(view, call) if call.error is not None else None)
    for i, header in enumerate(BACKWARD_COLUMNS):
        table.add_column(header, width=widths[i], justify="right" if i == 0 else "left")
    for row in rows:
        table.add_row(*row)
    return table


def backward_tables(view: GraphView, *, width: int = 100, max_calls: int = MAX_BACKWARD_CALLS,
                    max_steps: int = MAX_BACKWARD_STEPS) -> list[RenderableType]:
    """A table per backward call; past `max_calls`, the first and last ones and a count."""
    calls = view.trace.backward_calls

    def table(call: BackwardCall) -> RenderableType:
        return backward_table(view, call, width=width, max_steps=max_steps)

    if len(calls) <= max_calls:
        return [table(c) for c in calls]
    head = max_calls // 2
    tail = max_calls - head
    left = len(calls) - max_calls
    return ([table(c) for c in calls[:head]]
            + [Text(f"… {left:,} more backward calls (`--json` has them all)",
                    style="yellow")]
            + [table(c) for c in calls[-tail:]])


# -- the whole report ----------------------------------------------------------------


def _error_note(result: RunResult) -> Text | None:
    error = result.error
    if error is None:
        return None
    where = f" at line {error.span.line}" if error.span is not None else ""
    return Text(f"The script stopped{where} with {error.kind}; the report shows what ran "
                "before.", style="bold red")


def print_report(console: Console, result: RunResult,
                 sections: Sequence[str] = SECTIONS, *,
                 max_tree_nodes: int = MAX_TREE_NODES) -> None:
    """Print the chosen sections for a traced run (`run_source(..., trace=True)`)."""
    trace: Tracer | None = result.trace
    view = GraphView(trace) if trace is not None else None
    note = _error_note(result)
    if note is not None:
        console.print(note)
    for section in sections:
        console.rule(Text(section.capitalize(), style="bold"), align="left")
        if section == "backward" and view is not None and "graph" not in sections:
            for line in old_names_lines(view):  # the graph section introduces them
                console.print(line)
        if section == "tensors":
            if not named_tensors(result.variables):
                console.print(Text("The script named no tensors.", style="dim"))
            else:
                console.print(tensors_table(result.variables, view,
                                            width=console.width))
        elif section == "graph":
            if trace is None:
                console.print(Text("No trace recorded.", style="dim"))
            else:
                print_graph(console, trace, max_nodes=max_tree_nodes, view=view)
        elif section == "backward":
            tables = backward_tables(view, width=console.width) if view else []
            if not tables:
                console.print(Text("No backward call ran.", style="dim"))
            for i, table in enumerate(tables):
                if i:
                    console.print()
                console.print(table)
        else:
            raise ValueError(f"unknown section {section!r}")


def print_summary(console: Console, variables: dict[str, Any]) -> None:
    """The Tensors table alone (kept for callers of the first version)."""
    if not named_tensors(variables):
        console.print(Text("The script named no tensors.", style="dim"))
        return
    console.print(tensors_table(variables, width=console.width))
