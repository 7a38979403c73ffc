"""Drawings as SVG or PNG, rendered by Graphviz, with the layout chosen by size.

Up to `DOT_MAX_VERTICES` boxes, Graphviz's `dot` lays the drawing out (the tidiest
result, a second or two). Past that `dot` takes minutes (its network simplex grows much
faster than the graph), so the built-in layered layout (layered.py) places the boxes and
Graphviz only draws them where they are (`neato -n2`), in about linear time.

Rendering is not the script: its time does not count against `--timeout`. Graphviz gets
its own bound (`RENDER_TIMEOUT`) and a message that says what to draw instead.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import layered
from .drawing import STYLE, Drawing, to_dot

IMAGE_FORMATS = ("svg", "png")
DOT_MAX_VERTICES = 1200
RENDER_TIMEOUT = 300.0  # seconds Graphviz may take for one drawing


class GraphvizMissing(RuntimeError):
    """The `dot` program (Graphviz) is not installed."""


class RenderError(RuntimeError):
    """Graphviz failed or took too long on a drawing (not the script's doing)."""


def require_dot(fmt: str = "svg") -> str:
    """The path of Graphviz's `dot`; raises GraphvizMissing, naming it, when absent."""
    program = shutil.which("dot")
    if program is None:
        raise GraphvizMissing(
            f"--format {fmt} needs the `dot` program from Graphviz, which is not installed "
            "(install Graphviz: apt-get install graphviz, brew install graphviz, or "
            "https://graphviz.org/download/); --format dot writes the DOT text without it")
    return program


def engine_for(drawing: Drawing) -> str:
    """`dot` for drawings it lays out in seconds, else `layered` (see the module doc)."""
    return "dot" if len(drawing.vertices) <= DOT_MAX_VERTICES else "layered"


def layered_positions(drawing: Drawing) -> dict[str, tuple[float, float]]:
    """Vertex centres from the built-in layout, in Graphviz's points (y upwards)."""
    boxes = [layered.box_for(v.id, v.lines,
                             shape=STYLE[v.style].get("shape", "box"))
             for v in drawing.vertices]
    centres = layered.layout(boxes, [(link.source, link.target) for link in drawing.links])
    height = max((y for _, y in centres.values()), default=0.0) + 40.0
    return {vid: (x, height - y) for vid, (x, y) in centres.items()}


def render(drawing: Drawing, fmt: str, *, legend: bool = True, ids: bool = False,
           heading: bool = True, timeout: float = RENDER_TIMEOUT) -> bytes:
    """The drawing as SVG or PNG bytes; raises GraphvizMissing without Graphviz and
    RenderError when Graphviz fails or runs past `timeout`. (ids, heading: see to_dot.)"""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"unknown image format {fmt!r} (choose from {', '.join(IMAGE_FORMATS)})")
    program = require_dot(fmt)
    if engine_for(drawing) == "dot":
        text = to_dot(drawing, legend=legend, ids=ids, heading=heading)
        return run_graphviz([program, f"-T{fmt}"], text, len(drawing.vertices), timeout)
    neato = shutil.which("neato") or str(Path(program).with_name("neato"))
    text = to_dot(drawing, legend=legend, ids=ids, heading=heading,
                  positions=layered_positions(drawing))
    return run_graphviz([neato, "-n2", f"-T{fmt}"], text, len(drawing.vertices), timeout)


def render_dot(dot_text: str, fmt: str, *, timeout: float = RENDER_TIMEOUT) -> bytes:
    """Run `dot -T<fmt>` on DOT text (raises GraphvizMissing without Graphviz)."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"unknown image format {fmt!r} (choose from {', '.join(IMAGE_FORMATS)})")
    return run_graphviz([require_dot(fmt), f"-T{fmt}"], dot_text, None, timeout)


def run_graphviz(args: list[str], dot_text: str, boxes: int | None, timeout: float) -> bytes:
    name = Path(args[0]).name
    try:
        done = subprocess.run(args, input=dot_text.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        what = f" {boxes:,} boxes" if boxes is not None else " the graph"
        raise RenderError(
            f"Graphviz's `{name}` did not finish drawing{what} within {timeout:g} s (the "
            "script itself had finished); draw less with --max-nodes N, --backward N or "
            "--root NAME") from None
    except OSError as err:
        raise RenderError(f"cannot run Graphviz's `{name}`: {err.strerror}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RenderError(f"Graphviz's `{name} {' '.join(args[1:])}` failed: {message}")
    return done.stdout
