"""`gradtrace graph`: the tree view and the command (the drawings: test_drawing.py)."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from gradtrace.cli import main
from gradtrace.render import images
from gradtrace.render.graph import GraphView, graph_trees, print_graph
from gradtrace.runner import load_source, run_source, run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
SCRIPTS = sorted((HERE / "conformance").glob("*.gt")) + sorted((ROOT / "samples").glob("*.gt")) \
    + sorted((HERE / "golden").glob("*.gt"))
IDS = [f"{p.parent.name}/{p.stem}" for p in SCRIPTS]
HAVE_DOT = shutil.which("dot") is not None

# a label with every character DOT and Mermaid care about
NASTY = 'import torch\nx = torch.ones(2, requires_grad=True)\n' \
        'y = x * len("q\\"<b>#1;|`{x}`\\\\n")\ny.sum().backward()\n'


def trace_of(path: Path):
    return run_source(load_source(str(path)), trace=True).trace


def tree_text(trace, width: int = 100, **kwargs) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    if kwargs:
        from rich.console import Group

        console.print(Group(*graph_trees(GraphView(trace), **kwargs)))
    else:
        print_graph(console, trace)
    return buffer.getvalue()


# -- the tree ---------------------------------------------------------------------------


def test_tree_of_the_chain():
    text = tree_text(trace_of(ROOT / "samples" / "03_chain_two_muls.gt"))
    lines = [line.rstrip() for line in text.splitlines()]
    assert lines[0] == "e.grad_fn = MulBackward0 #4 · line 9: c * d · backward #1 at line 13"
    assert lines[2] == "├── [0] (MulBackward0 #1, 0) → c · line 7: a * b"
    assert lines[-1] == "└── [1] (AccumulateGrad #5, 0) → d · grad 6."


def test_tree_shows_none_edges_in_next_functions_order():
    text = tree_text(trace_of(ROOT / "samples" / "06_mixed_requires_grad.gt"))
    assert "[0] (None, 0) · e does not require grad" in text
    assert text.index("[0] (None, 0) · e does not") < text.index("[1] (AccumulateGrad #2, 0)")
    assert "[1] (None, 0) · d does not require grad" in text


def test_tree_for_a_graph_without_backward_shows_the_last_named_tensors():
    trace = run_text("import torch\na = torch.ones(2, requires_grad=True)\nb = a * 2\n"
                     "c = b.sum()\nd = a * 3\n", trace=True).trace
    text = tree_text(trace)
    roots = [line for line in text.splitlines() if not line.startswith(("├", "└", "│", " "))]
    assert [r.split(".grad_fn")[0] for r in roots] == ["c", "d"]  # b is inside c's graph
    assert "no backward from here" in roots[0]


def test_a_node_reached_twice_is_shown_once():
    text = tree_text(trace_of(HERE / "golden" / "retain_and_accumulate.gt"))
    assert text.count("AccumulateGrad #2, 0) → x · grad") == 1
    assert text.count("→ x (shown above)") == 2


def test_deep_tree_is_iterative_capped_and_continued():
    script = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n" \
             "for i in range(10000):\n    y = y * 1.0001\n"
    trace = run_text(script, trace=True).trace
    text = tree_text(trace)  # a recursive walk would exceed Python's recursion limit
    assert "… 9,901 more nodes not shown" in text
    assert "(continued below)" in text and "… continued: MulBackward0" in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 100
    small = tree_text(trace, max_nodes=5, max_depth=100)
    assert "… 9,996 more nodes not shown" in small


def test_tree_for_no_graph():
    trace = run_text("import torch\nx = torch.ones(2)\n", trace=True).trace
    assert "No autograd graph" in tree_text(trace)


# -- the command ------------------------------------------------------------------------


def invoke(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), **kwargs)


@pytest.mark.parametrize("fmt", ["tree", "dot", "mermaid", "json"])
def test_graph_formats_on_stdout(fmt):
    r = invoke("graph", "samples/03_chain_two_muls.gt", "--format", fmt)
    assert r.exit_code == 0, r.output
    assert "tensor(12.)" not in r.output or fmt == "json"  # the script's prints stay out
    first = {"tree": "e.grad_fn = MulBackward0 #4", "dot": "digraph gradtrace {",
             "mermaid": "flowchart TB", "json": "{"}[fmt]
    assert r.output.startswith(first)


def test_graph_json_flag_and_output_file(tmp_path):
    out = tmp_path / "g.json"
    r = invoke("graph", "samples/03_chain_two_muls.gt", "--json", "-o", str(out))
    assert r.exit_code == 0 and r.output == ""
    assert out.read_text().startswith("{")
    tree = tmp_path / "tree.txt"
    r = invoke("graph", "samples/03_chain_two_muls.gt", "-o", str(tree), "--width", "100")
    assert r.exit_code == 0
    assert "\x1b[" not in tree.read_text() and "MulBackward0 #4" in tree.read_text()


def test_graph_exit_status_is_the_scripts():
    r = invoke("graph", "tests/golden/uncaught_version_error.gt", "--format", "dot")
    assert r.exit_code == 1
    assert r.stdout.startswith("digraph")
    assert "RuntimeError" in r.stderr


def test_graph_cannot_write(tmp_path):
    r = invoke("graph", "samples/03_chain_two_muls.gt", "-f", "dot", "-o", str(tmp_path))
    assert r.exit_code == 2


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("fmt,magic", [("svg", b"<svg"), ("png", b"\x89PNG")])
def test_graph_images(tmp_path, fmt, magic):
    out = tmp_path / f"g.{fmt}"
    r = invoke("graph", "samples/04_version_counter.gt", "--format", fmt, "--output", str(out))
    assert r.exit_code == 0, r.output
    assert magic in out.read_bytes()[:1000]


def test_graph_images_without_graphviz(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    r = invoke("graph", "samples/03_chain_two_muls.gt", "--format", "svg")
    assert r.exit_code == 2
    assert "`dot` program from Graphviz" in r.stderr and "not installed" in r.stderr
    with pytest.raises(images.GraphvizMissing, match="Graphviz"):
        images.render_dot("digraph {}", "png")


def test_graph_reads_stdin():
    r = invoke("graph", "-", "--format", "mermaid",
               input="import torch\nx = torch.ones(1, requires_grad=True)\ny = x * 2\n")
    assert r.exit_code == 0
    assert "MulBackward0 #35;1" in r.output
