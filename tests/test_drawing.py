"""The graph drawings (`graph --format dot|mermaid|svg|png`): what they show, what they
leave out and say so, golden DOT for the drawing options, and the layouts.

Update the golden files with GRADTRACE_UPDATE_GOLDEN=1 pytest tests/test_drawing.py
(and look at the diff, and at the PNGs: tests/tools/pictures.py).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradtrace.cli import main
from gradtrace.render import images, layered
from gradtrace.render.drawing import build_drawing, draw, mermaid_escape, to_dot
from gradtrace.render.graph import GraphView
from gradtrace.render.selection import SelectionError, select
from gradtrace.runner import run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
GOLDEN = HERE / "golden" / "dot"
UPDATE = os.environ.get("GRADTRACE_UPDATE_GOLDEN") == "1"
SCRIPTS = sorted((HERE / "conformance").glob("*.gt")) + sorted((ROOT / "samples").glob("*.gt")) \
    + sorted((HERE / "golden").glob("*.gt"))
IDS = [f"{p.parent.name}/{p.stem}" for p in SCRIPTS]
HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed")

# a label with every character DOT, HTML labels and Mermaid care about
NASTY = 'import torch\nx = torch.ones(2, requires_grad=True)\n' \
        'y = x * len("<&b>\\"#1;|`{x}`\\\\n")\ny.sum().backward()\n'

SHAPES = """import torch
w = torch.ones(2, 3, requires_grad=True)
x = torch.ones(3, 1)
y = (w @ x).sum()
y.backward()
"""

LOOP = """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(4):
    loss = (w * w).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad = None
"""

CHAIN = """import torch
x = torch.tensor(0.5, requires_grad=True)
y = x
for i in range(30):
    y = y * 1.01
y.backward()
"""

# saved tensors packed by saved_tensors_hooks; one changed in place after (torch does not
# check versions through hooks: backward runs)
SAVED_HOOKS = """import torch


def pack(t):
    return t


def unpack(t):
    return t


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    c = b * b
    d = c.exp()
e = a * a
b.add_(1)
d.sum().backward()
"""


def trace_of(path: Path | str):
    """The trace of a script file (named relative to the repository) or text."""
    if isinstance(path, Path):
        return run_text(path.read_text(encoding="utf-8"), name=str(path.relative_to(ROOT)),
                        trace=True).trace
    return run_text(path, name="script.gt", trace=True).trace


def dot_of(script, **options) -> str:
    return draw(trace_of(script), "dot", **options)


# -- golden DOT of the drawing options ----------------------------------------------------

CASES = {
    "chain_two_muls": (ROOT / "samples" / "03_chain_two_muls.gt", {}),
    "chain_two_muls.no_grads.no_legend": (ROOT / "samples" / "03_chain_two_muls.gt",
                                          {"grads": False, "legend": False}),
    "version_counter": (ROOT / "samples" / "04_version_counter.gt", {}),
    "unbind": (ROOT / "samples" / "05_unbind.gt", {}),
    "grad_accumulates.backward_2": (ROOT / "samples" / "10_grad_accumulates.gt",
                                    {"backward": 2}),
    "data_mutation": (ROOT / "samples" / "12_data_mutation.gt", {}),
    "shapes": (SHAPES, {}),
    "shapes.saved_all": (SHAPES, {"saved": "all"}),
    "loop.last_backward": (LOOP, {"max_nodes": 5}),
    "loop.root": (LOOP, {"root": "loss"}),
    "chain.cut": (CHAIN, {"max_nodes": 4}),
    "saved_hooks": (SAVED_HOOKS, {}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_golden_dot(name):
    script, options = CASES[name]
    text = dot_of(script, **options)
    golden = GOLDEN / f"{name}.dot"
    if UPDATE or not golden.exists():
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_golden_mermaid_of_packed_saved_tensors():
    text = draw(trace_of(SAVED_HOOKS), "mermaid")
    golden = GOLDEN / "saved_hooks.mmd"
    if UPDATE or not golden.exists():
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


# -- what the drawing shows ------------------------------------------------------------------


def test_packed_saved_tensors_are_drawn_with_their_hooks():
    # as the tree and JSON show them: the hooks that ran, and a version change that is no
    # error (backward reads the unpacked tensor); a tensor saved outside hooks is unchanged
    made = build_drawing_of(SAVED_HOOKS)
    saved = {(v.node, v.saved_name): v for v in made.vertices if v.kind == "saved"}
    packed = [v for v in saved.values() if v.packed]
    assert sorted(v.saved_name for v in packed) == ["other", "result", "self"]
    for v in packed:
        assert v.lines[2:4] == ["packed by pack", "unpacked by unpack"]
        assert v.style == "packed" and v.state == "" and v.fresh is None
    self_ = next(v for v in packed if v.saved_name == "self")
    assert self_.lines[1] == "saved at version 0, now 1 (not checked)"
    plain = [v for v in saved.values() if not v.packed]
    assert plain and all("packed" not in " ".join(v.lines) for v in plain)
    assert "packed" in made.legend_kinds and "modified" not in made.legend_kinds
    dot = to_dot(made)
    assert "packed by saved_tensors_hooks" in dot and dot.count("#f6dcf8") == 4  # 3 + legend


@needs_dot
def test_packed_saved_tensors_in_the_svg():
    svg = draw(trace_of(SAVED_HOOKS), "svg").decode()
    assert svg.count("packed by pack") == 3 and svg.count("unpacked by unpack") == 3
    assert "(not checked)" in svg




def test_gradients_ride_on_the_arrows_after_backward():
    dot = dot_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert 'n4 -> n1 [label=<[0]<BR/><FONT COLOR="#b0306a">grad 4.</FONT>>, weight="8"];' in dot
    assert 'n4 -> n5 [label=<[1]<BR/><FONT COLOR="#b0306a">grad 6.</FONT>>, weight="8"];' in dot
    assert 't5 -> n4 [label=<grad_fn<BR/><FONT COLOR="#b0306a">grad 1.</FONT>>' in dot
    assert 'n2 -> t1 [label=<.grad<BR/><FONT COLOR="#b0306a">None → 12.</FONT>>' in dot
    assert "on an arrow: the gradient backward #1 sent along it" in dot
    plain = dot_of(ROOT / "samples" / "03_chain_two_muls.gt", grads=False)
    assert "grad 4." not in plain and "on an arrow" not in plain
    assert 'n4 -> n1 [label=<[0]>, weight="8"];' in plain


def test_no_gradients_before_any_backward():
    dot = dot_of("import torch\na = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()\n")
    assert "grad " not in dot.replace("grad_fn", "").replace(".grad", "") or "None" in dot
    assert "on an arrow" not in dot and "FONT COLOR=\"#b0306a\"" not in dot


def test_leaves_are_their_own_tensor_vertices():
    dot = dot_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert re.search(r't1 \[label="a\\n2\.\\ngrad 12\.", shape="ellipse".*#bcdcff', dot)
    assert 'n2 [label="AccumulateGrad #2", shape="box"' in dot
    assert "→ a" not in dot  # no longer written inside the AccumulateGrad box


def test_one_title_line_says_what_arrows_mean():
    dot = dot_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert dot.count("arrows: the way gradients flow in backward") == 1


def test_legend_lists_only_the_kinds_present():
    dot = dot_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert "leaf tensor" in dot and "grad_fn node" in dot and "saved tensor (version" in dot
    assert "backward raises" not in dot and ".data" not in dot and "None: that" not in dot
    version = dot_of(ROOT / "samples" / "04_version_counter.gt")
    assert "saved tensor changed in place since: backward raises" in version
    assert "None: that input needs no grad" in version
    assert "<TABLE" not in dot_of(ROOT / "samples" / "03_chain_two_muls.gt", legend=False) \
        .split("arrows:")[1]


def test_freed_nodes_are_dashed_not_greyed():
    dot = dot_of(ROOT / "samples" / "03_chain_two_muls.gt")
    line = next(x for x in dot.splitlines() if x.startswith("  n4 ["))
    assert 'style="rounded,filled,dashed"' in line and 'fillcolor="#eeeeee"' in line
    assert "fontcolor" not in line and "freed" not in line.split("shape")[0]


def test_data_change_has_its_own_colour_and_a_truthful_legend():
    dot = dot_of(ROOT / "samples" / "12_data_mutation.gt")
    assert re.search(r's1_0 \[label="self = x\\nversion 0, changed through \.data".*'
                     r'fillcolor="#ffd08a", color="#e07000"', dot)
    assert "backward silently uses the new values" in dot
    assert "backward raises" not in dot and "#ff9c9c" not in dot and "#ffb3b3" not in dot


def test_stale_saved_tensor_is_red_and_the_failed_backward_is_noted():
    dot = dot_of(ROOT / "samples" / "04_version_counter.gt")
    assert re.search(r's4_\d \[label="self = c\\nsaved at version 0, now 1".*#ffb3b3', dot)
    assert "backward #1 (line 15) raised RuntimeError: one of the variables needed" in dot


def test_shape_attributes_and_saved_none_are_hidden_unless_asked():
    default = dot_of(SHAPES)
    assert "sym_sizes" not in default and "sym_strides" not in default
    everything = dot_of(SHAPES, saved="all")
    assert "self_sym_sizes = (2, 1)" in everything and "mat2_sym_strides" in everything
    data = dot_of(ROOT / "samples" / "12_data_mutation.gt")
    assert "self = None" not in data and "other = 4\\n" not in data
    assert 'line 9: x * x * 4\\nother = 4"' in data  # the Python number: a constant in the box
    assert "self = None" in dot_of(ROOT / "samples" / "12_data_mutation.gt", saved="all")


def test_edge_labels_are_consistent_for_multi_output_nodes():
    dot = dot_of(ROOT / "samples" / "05_unbind.gt")
    labels = re.findall(r"-> n1 \[label=<(grad_fn[^<>]*)", dot)
    assert sorted(labels) == ["grad_fn · output_nr 0", "grad_fn · output_nr 1",
                              "grad_fn · output_nr 2"]
    assert re.search(r"n4 -> n1 \[label=<\[1\] output_nr 2", dot)


def test_default_draws_the_last_backward_call_of_a_long_run_and_says_so():
    dot = dot_of(LOOP, max_nodes=5)
    assert "backward #4 of 4 (line 5)" in dot
    assert "3 earlier backward calls not drawn: --backward N draws call N" in dot
    assert dot.count("SumBackward0 #") == 1
    everything = dot_of(LOOP, max_nodes=5, backward="all")
    assert everything.count("SumBackward0 #") == 4 and "calls not drawn" not in everything
    small = dot_of(LOOP)  # everything fits: all of it, no note
    assert small.count("SumBackward0 #") == 4 and "not drawn" not in small


def test_backward_and_root_pick_one_graph():
    second = dot_of(ROOT / "samples" / "10_grad_accumulates.gt", backward=2)
    assert "backward #2 of 4" in second and second.count("SumBackward0") == 1
    assert "[ 2., -4.] → [ 4., -8.]" in second  # .grad before and after call 2
    last = dot_of(ROOT / "samples" / "10_grad_accumulates.gt", backward=-1)
    assert "backward #4 of 4" in last and "MulBackward0" in last
    root = dot_of(ROOT / "samples" / "03_chain_two_muls.gt", root="c")
    assert "the graph of c" in root and "MulBackward0 #4" not in root
    by_id = dot_of(ROOT / "samples" / "03_chain_two_muls.gt", root="#1")
    assert "MulBackward0 #1" in by_id and "MulBackward0 #4" not in by_id


def test_tensor_vertices_are_named_by_the_naming_rule():
    """main's graph_elements rule in the drawings: an x@5 name says which name and lines
    held it (after the value line); a node a backward recorded says so."""
    rebind = build_drawing_of(ROOT / "samples" / "14_rebind_name.gt")
    leaf = next(v for v in rebind.vertices if v.kind == "leaf")
    assert leaf.lines == ["x@5", "[1.] · shape [1]", "(x, lines 5-7)", "grad [8.]"]
    saved = [v.lines[0] for v in rebind.vertices if v.kind == "saved"]
    assert saved == ["self = x@5", "other = x@5"]
    hooked = build_drawing_of(HERE / "golden" / "hook_create_graph.gt")
    made = [v.lines for v in hooked.vertices if v.kind == "op"
            and any(line.startswith("made by backward #1") for line in v.lines)]
    assert made  # at the call's line (8), not the hook's (5)
    assert all("made by backward #1 at line 8" in lines and "line 5" not in " ".join(lines)
               for lines in made)


def build_drawing_of(script: Path):
    view = GraphView(trace_of(script))
    return build_drawing(view, select(view, max_nodes=0))


def test_root_takes_the_names_the_views_print():
    alias = trace_of(HERE / "golden" / "alias_rebind.gt")  # y = y * 2 on line 5, then again
    chosen = select(GraphView(alias), root="y@5")
    assert [r.tensor_label for r in chosen.roots] == ["y@5"] and len(chosen.node_ids) == 2
    two = "import torch\nx = torch.ones(2, requires_grad=True)\na = x * 2\nb = a\n"
    chosen = select(GraphView(trace_of(two)), root="b")  # a and b hold it: it is a
    assert [r.tensor_label for r in chosen.roots] == ["a"]
    loop = GraphView(trace_of(ROOT / "samples" / "10_grad_accumulates.gt"))
    with pytest.raises(SelectionError, match="--root loss@6: 3 tensors have that name"):
        select(loop, root="loss@6")


@pytest.mark.parametrize("options,message", [
    ({"backward": 5}, "--backward 5: the script made 4 backward calls (choose 1-4"),
    ({"backward": 0}, "--backward 0: the script made 4 backward calls"),
    ({"root": "nope"}, "--root nope: no tensor of that name at the end of the script "
                       "(names with a graph: loss)"),
    ({"root": "w"}, "--root w: w has no grad_fn"),
    ({"root": "#99"}, "--root #99: no node has that id"),
    ({"root": "loss", "backward": 1}, "--backward and --root cannot be used together"),
])
def test_selection_errors_say_what_exists(options, message):
    view = GraphView(trace_of(ROOT / "samples" / "10_grad_accumulates.gt"))
    with pytest.raises(SelectionError) as err:
        select(view, **options)
    assert message in str(err.value)


def test_a_huge_graph_is_cut_and_says_where_and_how_to_see_the_rest():
    dot = dot_of(CHAIN, max_nodes=4)
    assert "4 of 31 nodes drawn (⋯ marks where the graph continues): --max-nodes N draws " \
           "more, --root '#ID' from a node on; --format json has every node" in dot
    (cut,) = re.findall(r'cut(\d+) \[label="⋯ continues at MulBackward0 #(\d+)\\ndraw from '
                        r"here: --root '#(\d+)'\"", dot)
    assert cut[0] == cut[1] == cut[2]
    rest = dot_of(CHAIN, root=f"#{cut[0]}", max_nodes=0)
    assert rest.count("MulBackward0 #") == 26 and "⋯" not in rest


def test_escapes_every_label():
    dot = dot_of(NASTY)
    assert 'line 3: x * len(\\"<&b>\\\\\\"#1;|`{x}`\\\\\\\\n\\")' in dot  # a DOT string
    mermaid = draw(trace_of(NASTY), "mermaid")
    assert "#lt;#amp;b#gt;#92;#quot;#35;1#59;#124;#96;{x}#96;#92;#92;n" in mermaid


@needs_dot
@pytest.mark.parametrize("script", SCRIPTS + ["nasty"], ids=IDS + ["nasty"])
def test_graphviz_accepts_the_dot(script):
    dot = dot_of(NASTY if script == "nasty" else script)
    done = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert b"<svg" in done.stdout
    assert not done.stderr.strip(), done.stderr.decode()  # no warnings either


# -- modules (the nn work adds a module path to records): nested clusters ---------------------


def test_modules_become_nested_clusters(monkeypatch):
    from gradtrace.render import drawing

    def module(record):
        line = getattr(record, "line", None)
        return {7: "model.fc1", 9: "model.fc2"}.get(line)

    monkeypatch.setattr(drawing, "_module", module)
    trace = trace_of(ROOT / "samples" / "03_chain_two_muls.gt")
    view = GraphView(trace)
    made = build_drawing(view, select(view))
    assert drawing.module_paths(made) == ["model", "model.fc1", "model.fc2"]
    dot = to_dot(made, ids=True)
    assert 'subgraph cluster_m0 {\n    label="model"; id="m-0"' in dot
    inner = dot.split("\n    subgraph cluster_m1 {\n")[1].split("\n    }")[0]
    assert inner.startswith('      label="model.fc1"; id="m-1"; class="module"')
    assert "\n      n1 [" in inner and "n4 [" not in inner
    if HAVE_DOT:
        svg = images.render(made, "svg", ids=True).decode()
        assert 'id="m&#45;1" class="cluster module"' in svg or 'id="m-1"' in svg


# -- Mermaid -------------------------------------------------------------------------------


def test_mermaid_structure():
    text = draw(trace_of(ROOT / "samples" / "05_unbind.gt"), "mermaid")
    lines = text.splitlines()
    assert lines[0] == "flowchart TB"
    assert '  n1["UnbindBackward0 #35;1<br/>line 5: b, c, d = a<br/>dim = 0"]' in lines
    assert '  n4 -->|"[1] output_nr 2 · grad 2."| n1' in lines
    assert '  t2 ==>|"grad_fn · output_nr 0"| n1' in lines
    assert any(line.startswith("  classDef freed ") for line in lines)
    declared = {m.group(1) for m in re.finditer(r"^\s+(\w+)[\[\(>]", text, re.M)}
    for m in re.finditer(r"^\s+(\w+) [-=.]+[>-](?:\|\"[^\"]*\"\|)? (\w+)$", text, re.M):
        assert m.group(1) in declared and m.group(2) in declared


def test_mermaid_escapes_labels():
    assert mermaid_escape('a"b#c<d>&e|f;g`h\\') == \
        "a#quot;b#35;c#lt;d#gt;#amp;e#124;f#59;g#96;h#92;"
    text = draw(trace_of(NASTY), "mermaid")
    for line in text.splitlines():
        for label in re.findall(r'"([^"]*)"', line):
            assert "<" not in label.replace("<br/>", "") and "`" not in label
    assert "#lt;#amp;b#gt;" in text


@pytest.mark.parametrize("script", SCRIPTS, ids=IDS)
def test_mermaid_every_label_is_quoted(script):
    text = draw(trace_of(script), "mermaid")
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if stripped.startswith(("classDef", "class ", "direction", "end", "subgraph")):
            continue
        assert re.fullmatch(r'\w+(\[|\(\[|\(\(|>)"[^"]*"(\]|\]\)|\)\)|\])'
                            r'|\w+ (-->|-\.->|-\.-|==>)(\|"[^"]*"\|)? \w+', stripped), line


# -- layouts ----------------------------------------------------------------------------------


def test_layered_layout_keeps_ranks_and_boxes_apart():
    boxes = [layered.Box(name, 60.0, 30.0) for name in "abcdefg"]
    edges = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("c", "e"), ("f", "g"),
             ("d", "g")]
    centres = layered.layout(boxes, edges)
    for source, target in edges:
        assert centres[source][1] < centres[target][1]  # every arrow points down
    rows: dict[float, list[float]] = {}
    for x, y in centres.values():
        rows.setdefault(y, []).append(x)
    for xs in rows.values():
        xs.sort()
        assert all(b - a >= 60.0 + layered.BOX_GAP - 1e-6 for a, b in zip(xs, xs[1:]))


def test_layered_layout_of_a_long_chain_is_linear_and_iterative():
    n = 20_000
    boxes = [layered.Box(str(i), 80.0, 30.0) for i in range(n)]
    centres = layered.layout(boxes, [(str(i), str(i + 1)) for i in range(n - 1)])
    assert len({x for x, _ in centres.values()}) == 1
    assert centres[str(n - 1)][1] > centres["0"][1]


@needs_dot
def test_large_drawings_are_laid_out_by_the_layered_layout(monkeypatch):
    monkeypatch.setattr(images, "DOT_MAX_VERTICES", 10)
    trace = trace_of(CHAIN)
    view = GraphView(trace)
    made = build_drawing(view, select(view, max_nodes=0))
    assert images.engine_for(made) == "layered"
    svg = images.render(made, "svg").decode()
    assert "<svg" in svg and svg.count('class="node"') == len(made.vertices)
    png = images.render(made, "png")
    assert png.startswith(b"\x89PNG")


def test_renderer_failures_are_not_the_scripts(monkeypatch):
    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], 1.0)

    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: "/usr/bin/" + name)
    monkeypatch.setattr(subprocess, "run", slow)
    trace = trace_of(ROOT / "samples" / "03_chain_two_muls.gt")
    with pytest.raises(images.RenderError, match="did not finish drawing .* within 1 s "
                                                 r"\(the script itself had finished\)"):
        draw(trace, "svg") if False else images.run_graphviz(["dot", "-Tsvg"], "x", 14, 1.0)


def test_graph_command_reports_a_slow_renderer_without_blaming_the_script(monkeypatch):
    def slow(*args, **kwargs):
        raise images.RenderError("Graphviz's `dot` did not finish drawing 14 boxes within "
                                 "300 s (the script itself had finished); draw less")

    monkeypatch.setattr(images, "render", slow)
    monkeypatch.setattr(images, "require_dot", lambda fmt="svg": "/usr/bin/dot")
    r = CliRunner().invoke(main, ["graph", "samples/03_chain_two_muls.gt", "-f", "svg"])
    assert r.exit_code == 3
    assert "the script itself had finished" in r.stderr
    assert "the script ran longer" not in r.stderr


@pytest.mark.parametrize("args,message", [
    (["--backward", "9"], "--backward 9: the script made 1 backward call (choose 1,"),
    (["--root", "zz"], "--root zz: no tensor of that name"),
])
def test_graph_command_selection_errors_are_usage_errors(args, message):
    r = CliRunner().invoke(main, ["graph", "samples/03_chain_two_muls.gt", "-f", "dot", *args])
    assert r.exit_code == 2 and message in r.stderr


def test_graph_command_options_reach_the_drawing():
    r = CliRunner().invoke(main, ["graph", "samples/10_grad_accumulates.gt", "-f", "dot",
                                  "--backward", "2", "--no-legend", "--no-grads"])
    assert r.exit_code == 0, r.output
    assert "backward #2 of 4" in r.stdout and "grad [" not in r.stdout
    assert "<TABLE BORDER=\"0\" CELLSPACING=\"3\"" not in r.stdout
    tree = CliRunner().invoke(main, ["graph", "samples/10_grad_accumulates.gt",
                                     "--backward", "4"])
    assert tree.stdout.startswith("loss.grad_fn = SumBackward0") and \
        tree.stdout.count(".grad_fn =") == 1
