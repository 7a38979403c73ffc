"""`gradtrace graph`: the tree view, DOT that Graphviz accepts, Mermaid, images."""
from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from gradtrace.cli import main
from gradtrace.render import graph as graph_render
from gradtrace.render.graph import (
    GraphView,
    graph_trees,
    mermaid_escape,
    print_graph,
    to_dot,
    to_mermaid,
)
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


# -- DOT --------------------------------------------------------------------------------


def test_dot_has_the_parts_and_the_legend():
    dot = to_dot(trace_of(ROOT / "samples" / "04_version_counter.gt"))
    assert dot.startswith("digraph gradtrace {")
    assert "subgraph cluster_legend" in dot
    assert 'n4 [label="MulBackward0 #4\\n→ e\\nline 10: c * d"' in dot
    # the stale saved tensor is red, the leaf is blue, the output green
    assert re.search(r's4_0 \[label="self = c\\nsaved at version 0, now 1".*color="#cc0000"', dot)
    assert re.search(r'n2 \[label="AccumulateGrad #2.*fillcolor="#bcdcff"', dot)
    assert re.search(r't5 \[label="e\\n24\. · shape \[\]".*ellipse', dot)
    assert 'n4 -> n1 [label="[0]"];' in dot
    assert re.search(r'n6 -> none6_1 \[label="\[1\]", style=dashed', dot)


def test_dot_marks_freed_nodes():
    dot = to_dot(trace_of(ROOT / "samples" / "03_chain_two_muls.gt"))
    assert re.search(r'n4 \[label="[^"]*saved freed by backward #1", [^\n]*dashed', dot)


def test_dot_escapes_labels():
    dot = to_dot(run_text(NASTY, trace=True).trace)
    assert 'len(\\"q\\\\\\"<b>#1;|`{x}`\\\\\\\\n\\")' in dot


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("script", SCRIPTS + ["nasty"], ids=IDS + ["nasty"])
def test_graphviz_accepts_the_dot(script):
    trace = run_text(NASTY, trace=True).trace if script == "nasty" else trace_of(script)
    done = subprocess.run(["dot", "-Tsvg"], input=to_dot(trace).encode(), capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert b"<svg" in done.stdout
    assert not done.stderr.strip(), done.stderr.decode()  # no warnings either


# -- Mermaid ----------------------------------------------------------------------------


def test_mermaid_structure():
    text = to_mermaid(trace_of(ROOT / "samples" / "05_unbind.gt"))
    lines = text.splitlines()
    assert lines[0] == "flowchart TB"
    assert '  n1["UnbindBackward0 #35;1<br/>→ b, c, d<br/>line 5: b, c, d = a<br/>dim = 0"]' \
        in lines
    assert '  n4 -->|"[1] output_nr 2"| n1' in lines
    assert '  t3 ==>|"grad_fn (output 1)"| n1' in lines
    assert any(line.startswith("  classDef freed ") for line in lines)
    # every node used in an edge is declared
    declared = {m.group(1) for m in re.finditer(r"^\s+(\w+)[\[\(>]", text, re.M)}
    for m in re.finditer(r"^\s+(\w+) [-=.]+[>-](?:\|\"[^\"]*\"\|)? (\w+)$", text, re.M):
        assert m.group(1) in declared and m.group(2) in declared


def test_mermaid_escapes_labels():
    assert mermaid_escape('a"b#c<d>&e|f;g`h\\') == \
        "a#quot;b#35;c#lt;d#gt;#amp;e#124;f#59;g#96;h#92;"
    text = to_mermaid(run_text(NASTY, trace=True).trace)
    for line in text.splitlines():
        labels = re.findall(r'"([^"]*)"', line)
        for label in labels:
            assert "<" not in label.replace("<br/>", "") and "`" not in label
    assert "#quot;q" in text


@pytest.mark.parametrize("script", SCRIPTS, ids=IDS)
def test_mermaid_every_label_is_quoted(script):
    text = to_mermaid(trace_of(script))
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if stripped.startswith(("classDef", "class ", "direction", "end", "subgraph")):
            continue
        # node: id + shape + "label" + shape; edge: id arrow |"label"| id
        assert re.fullmatch(r'\w+(\[|\(\[|\(\(|>)"[^"]*"(\]|\]\)|\)\)|\])'
                            r'|\w+ (-->|-\.->|-\.-|==>)(\|"[^"]*"\|)? \w+', stripped), line


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
    with pytest.raises(graph_render.GraphvizMissing, match="Graphviz"):
        graph_render.render_image("digraph {}", "png")


def test_graph_reads_stdin():
    r = invoke("graph", "-", "--format", "mermaid",
               input="import torch\nx = torch.ones(1, requires_grad=True)\ny = x * 2\n")
    assert r.exit_code == 0
    assert "MulBackward0 #35;1" in r.output
