"""`gradtrace view`: the page's data, built from the run's trace (the browser tests that
step through the pages are test_page_browser.py)."""
from __future__ import annotations

import json
import re
import shutil
import string
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradtrace.cli import main
from gradtrace.render import drawing as drawing_module
from gradtrace.render.json import validate
from gradtrace.render.page import build_page, page_data
from gradtrace.render.page.strings import STRINGS
from gradtrace.render.selection import SelectionError
from gradtrace.runner import run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
SAMPLES = sorted((ROOT / "samples").glob("*.gt"))
HAVE_DOT = shutil.which("dot") is not None

TRAINING = """import torch
X = torch.arange(64 * 4, dtype=torch.float32).reshape(64, 4).sin()
Y = (X.sum(dim=1, keepdim=True) > 0).float()
W1 = torch.arange(64, dtype=torch.float32).reshape(4, 16).cos() * 0.5
b1 = torch.zeros(16)
W2 = torch.arange(16, dtype=torch.float32).reshape(16, 1).sin()
b2 = torch.zeros(1)
for p in [W1, b1, W2, b2]:
    p.requires_grad_()
for step in range(300):
    h = torch.relu(X @ W1 + b1)
    out = torch.sigmoid(h @ W2 + b2)
    loss = ((out - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in [W1, b1, W2, b2]:
            p -= 0.1 * p.grad
            p.grad.zero_()
print(loss.item())
"""


def result_of(path: Path | str):
    if isinstance(path, Path):
        return run_text(path.read_text(encoding="utf-8"), name=str(path.relative_to(ROOT)),
                        trace=True)
    return run_text(path, name="script.gt", trace=True)


def data_of(path, **options):
    data, svg = page_data(result_of(path), **options)
    return data, svg


def positions(data, kind=None):
    return [p for p in data["timeline"] if kind is None or p["kind"] == kind]


# -- the timeline ----------------------------------------------------------------------------


def test_timeline_of_the_chain_steps_through_forward_then_backward():
    data, _ = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    kinds = [p["kind"] for p in data["timeline"]]
    assert kinds == ["start", "leaf", "leaf", "op", "leaf", "op", "backward"] + ["step"] * 5
    titles = [p["title"] for p in data["timeline"]]
    assert titles[3] == "line 7 · a * b: recorded MulBackward0 #1, the grad_fn of c"
    assert titles[6] == "line 13 · backward #1 starts at e with gradient 1."
    assert titles[7] == "backward #1 · step 1 of 5 · MulBackward0 #4 received 1."
    assert titles[10] == "backward #1 · step 4 of 5 · AccumulateGrad #2 (a): a.grad None → 12."
    assert [p["line"] for p in data["timeline"]] == [5, 5, 6, 7, 8, 9] + [13] * 6


def test_a_backward_step_names_the_arrows_it_sends_along_and_their_gradients():
    data, _ = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    step = positions(data, "step")[0]
    links = {(data["links"][k]["source"], data["links"][k]["target"]): text
             for k, text in step["links"]}
    assert links == {("n4", "n1"): "grad 4.", ("n4", "n5"): "grad 6."}
    assert step["focus"] == "n4" and step["badges"] == [["n4", "grad_output 1."]]
    assert step["facts"][:3] == ["grad_output (what it received): 1.",
                                 "[0] → MulBackward0 #1: 4.",
                                 "[1] → AccumulateGrad #5 (d): 6."]
    assert step["freed"] == ["n4", "s4_0", "s4_1"]


def test_accumulate_grad_shows_grad_before_and_after():
    data, _ = data_of(ROOT / "samples" / "10_grad_accumulates.gt")
    steps = [p for p in positions(data, "step") if "AccumulateGrad" in p["title"]]
    assert [p["badges"] for p in steps] == [
        [["t1", ".grad None → [ 2., -4.]"]], [["t1", ".grad [ 2., -4.] → [ 4., -8.]"]],
        [["t1", ".grad [ 4., -8.] → [ 6., -12.]"]], [["t1", ".grad [0., 0.] → [3., 3.]"]]]
    assert steps[1]["grads"] == [["t1", "grad [ 4., -8.]"]]
    assert data["vertices"]["t1"]["grad"] == "grad None"  # before the first backward


def test_saved_tensors_go_red_or_orange_at_the_step_that_changed_them():
    data, _ = data_of(ROOT / "samples" / "04_version_counter.gt")
    (changed,) = [p for p in data["timeline"] if p["stale"]]
    assert changed["title"].startswith("line 11 · c += 1")
    assert changed["stale"] == [["s4_0", "modified"]]
    assert "self = c was saved at version 0, now 1: backward through this node raises" \
        in changed["facts"]
    assert data["vertices"]["s4_0"]["fresh"] == ["self = c", "version 0"]
    silent, _ = data_of(ROOT / "samples" / "12_data_mutation.gt")
    (changed,) = [p for p in silent["timeline"] if p["stale"]]
    assert changed["line"] == 10 and changed["stale"] == [["s1_0", "silent"], ["s1_1", "silent"]]
    assert any("changed through .data at line 10: no version bump, backward will silently "
               "use the new values" in f for f in changed["facts"])
    assert "x.data written: no version bump" in " ".join(changed["facts"])  # one position


def test_values_change_with_the_steps():
    data, _ = data_of(ROOT / "samples" / "12_data_mutation.gt")
    changes = [(p["line"], v) for p in data["timeline"] for v in p["values"]]
    assert (6, ["t1", "[1.] · shape [1]"]) in changes
    assert (10, ["t1", "[100.] · shape [1]"]) in changes


def test_vertices_are_born_with_the_op_that_recorded_them():
    data, _ = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    events = {p["kind"] + str(p["line"]): p["event"] for p in data["timeline"]}
    born = {vid: v["born"] for vid, v in data["vertices"].items()}
    assert born["n1"] == born["s1_0"] == born["n2"] == born["t3"] == events["op7"]
    assert born["t1"] == events["leaf5"] and born["t4"] == events["leaf8"]
    assert born["n4"] == born["n5"] == events["op9"]


def test_errors_appear_at_their_step_with_explains_cause():
    data, _ = data_of(HERE / "golden" / "uncaught_version_error.gt")
    failed, error = data["timeline"][-2:]
    assert failed["kind"] == "failed" and failed["title"].startswith(
        "backward #1 raised RuntimeError: one of the variables needed")
    assert error["kind"] == "error" and error["line"] == 11
    assert "^^^^^^^^^^^^" in error["error"] and "uncaught_version_error.gt:11:1" in error["error"]
    told = [data["narration"][s]["steps"][i]["text"] for s, i in error["narration"]]
    assert any("saved c as _saved_self when it was at version 0" in t for t in told)


def test_narration_is_mapped_to_the_step_it_tells():
    data, _ = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    step = positions(data, "step")[0]
    told = [data["narration"][s]["steps"][i]["text"] for s, i in step["narration"]]
    assert told == ["MulBackward0 of e (line 9) received 1. and applied the chain rule: → c: "
                    "1. × d (=4.) = 4.; → d: 1. × c (=6.) = 6."]  # explain's torch format
    op = positions(data, "op")[0]
    assert all(s == op["section"] for s, _ in op["narration"]) and len(op["narration"]) == 5
    zh, _ = data_of(ROOT / "samples" / "03_chain_two_muls.gt", lang="zh")
    assert zh["timeline"][7]["title"] == "第 1 次反向传播 · 第 1/5 步 · MulBackward0 #4 收到 1."
    told = [zh["narration"][s]["steps"][i]["text"] for s, i in zh["timeline"][7]["narration"]]
    assert "链式法则" in told[0]


def test_a_loop_line_told_once_is_shown_as_told_before():
    data, _ = data_of(TRAINING)
    later = [p for p in data["timeline"] if p.get("told_before")]
    assert later and all(data["narration"][p["section"]]["line"] == p["line"] for p in later)


# -- the trace in the page: the run --json document, of the part shown --------------------------


@pytest.mark.parametrize("script", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_the_pages_trace_is_a_valid_run_document(script):
    data, _ = data_of(script)
    validate(data["trace"])
    ids = {t["id"] for t in data["trace"]["tensors"]}
    nodes = {n["id"] for n in data["trace"]["nodes"]}
    for vertex in data["vertices"].values():
        if vertex["kind"] in ("op", "accumulate"):
            assert vertex["node"] in nodes
        if vertex["kind"] in ("leaf", "output", "saved") and "tensor" in vertex:
            assert vertex["tensor"] in ids


def test_a_300_step_training_loop_gives_a_small_page_of_the_last_step():
    result = result_of(TRAINING)
    page = build_page(result)
    assert len(page.encode()) < 1_000_000
    data, _ = page_data(result)
    assert data["title"].endswith("backward #300 of 300 (line 14)")
    assert data["notes"][0].startswith("299 earlier backward calls not drawn")
    assert len(data["trace"]["backward"]) == 1 and data["trace"]["backward"][0]["index"] == 300
    assert len(data["timeline"]) < 60
    picked, _ = page_data(result, backward=3)
    assert picked["title"].endswith("backward #3 of 300 (line 14)")
    rooted, _ = page_data(result, root="h")
    assert "the graph of h" in rooted["title"]


def test_a_huge_graph_is_cut_on_the_page_too():
    script = "import torch\nx = torch.tensor(0.5, requires_grad=True)\ny = x\n" \
             "for i in range(400):\n    y = y * 1.001\ny.backward()\n"
    data, _ = data_of(script, max_nodes=20)
    assert any("20 of 401 nodes drawn" in note for note in data["notes"])
    assert len(positions(data, "step")) == 20 and len(positions(data, "op")) == 20
    assert len(data["trace"]["backward"][0]["steps"]) == 20


def test_selection_errors_are_raised():
    with pytest.raises(SelectionError, match="made 1 backward call"):
        page_data(result_of(ROOT / "samples" / "03_chain_two_muls.gt"), backward=4)


# -- the HTML ------------------------------------------------------------------------------------


def test_page_is_self_contained():
    page = build_page(result_of(ROOT / "samples" / "03_chain_two_muls.gt"))
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in page  # the content security policy forbids fetching
    for attr in re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', page):
        assert attr.startswith(("#", "data:")), attr
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls
    assert "{{" not in page


def test_script_text_cannot_end_the_data_block():
    script = 'import torch\nx = torch.ones(1, requires_grad=True)\n' \
             'y = x * len("</script><script>alert(1)</script>")\ny.backward()\n'
    page = build_page(run_text(script, name="</script>.gt", trace=True))
    data_block = page.split('<script type="application/json" id="gradtrace-data">')[1]
    payload = data_block.split("</script>")[0]
    assert "alert" in payload and "<\\/script>" in payload
    assert json.loads(payload)["script"] == "</script>.gt"
    assert "<title>gradtrace · &lt;/script&gt;.gt</title>" in page


def test_without_graphviz_the_page_uses_the_built_in_layout(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    data, svg = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert data["layout"] == "builtin"
    assert svg.startswith("<svg") and svg.count('class="node vertex') == len(data["vertices"])
    assert svg.count('<g id="l-') == len(data["links"])
    assert data["layout_note"].startswith("Graphviz was not found when this page was built")


def test_when_graphviz_fails_the_page_uses_the_built_in_layout(monkeypatch):
    from gradtrace.render import images

    def fails(*args, **kwargs):
        raise images.RenderError("Graphviz's `dot` did not finish drawing 14 boxes")

    monkeypatch.setattr(images, "render", fails)
    data, svg = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert data["layout"] == "builtin" and svg.startswith("<svg")
    assert data["layout_note"] == ("Graphviz could not draw this graph (Graphviz's `dot` did "
                                   "not finish drawing 14 boxes): it uses gradtrace's simpler "
                                   "built-in layout.")


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed")
def test_with_graphviz_every_box_and_arrow_has_its_id():
    data, svg = data_of(ROOT / "samples" / "05_unbind.gt")
    assert data["layout"] == "dot"
    for vid in data["vertices"]:
        assert f'id="v&#45;{vid}"' in svg
    for k in range(len(data["links"])):
        assert f'id="l&#45;{k}"' in svg


def test_modules_are_passed_to_the_page(monkeypatch):
    monkeypatch.setattr(drawing_module, "_module",
                        lambda record: {7: "model.fc1", 9: "model"}.get(
                            getattr(record, "line", None)))
    data, svg = data_of(ROOT / "samples" / "03_chain_two_muls.gt")
    assert data["modules"] == {"m-0": "model", "m-1": "model.fc1"}
    assert data["vertices"]["n1"]["module"] == "model.fc1"
    assert data["vertices"]["n4"]["module"] == "model"
    if HAVE_DOT:
        assert 'class="cluster module"' in svg


def test_both_languages_have_the_same_words():
    en, zh = STRINGS["en"], STRINGS["zh"]
    assert set(en) == set(zh)
    for key in en:
        fields = {name for _, name, _, _ in string.Formatter().parse(en[key]) if name}
        assert fields == {name for _, name, _, _ in string.Formatter().parse(zh[key]) if name}, key


# -- the command -----------------------------------------------------------------------------------


def invoke(*args, **kwargs):
    return CliRunner().invoke(main, list(args), **kwargs)


def test_view_writes_the_page(tmp_path):
    out = tmp_path / "page.html"
    r = invoke("view", "samples/03_chain_two_muls.gt", "-o", str(out), "--lang", "zh")
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and '<html lang="zh">' in page
    r = invoke("view", "samples/03_chain_two_muls.gt")  # not a terminal: standard output
    assert r.stdout.startswith("<!DOCTYPE html>")


def test_view_exit_status_and_error_are_the_scripts(tmp_path):
    r = invoke("view", "tests/golden/uncaught_version_error.gt", "-o", str(tmp_path / "p.html"))
    assert r.exit_code == 1 and "RuntimeError" in r.stderr
    assert (tmp_path / "p.html").exists()


@pytest.mark.parametrize("args,message", [
    (["--backward", "2"], "--backward 2: the script made 1 backward call"),
    (["--backward", "x"], "--backward takes a call number"),
    (["--root", "q"], "--root q: no tensor of that name"),
])
def test_view_selection_errors(args, message):
    r = invoke("view", "samples/03_chain_two_muls.gt", *args)
    assert r.exit_code == 2 and message in r.output


def test_view_open_writes_a_temporary_page_and_opens_it(monkeypatch):
    opened = []
    import webbrowser

    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url))
    r = invoke("view", "samples/03_chain_two_muls.gt", "--open")
    assert r.exit_code == 0, r.output
    (url,) = opened
    assert url.startswith("file://") and url.endswith(".html")
    path = Path(url[len("file://"):])
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    path.unlink()


@pytest.mark.parametrize("graphviz", [True, False], ids=["graphviz", "builtin"])
def test_markup_in_the_script_stays_text(monkeypatch, graphviz):
    if not graphviz:
        monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    elif not HAVE_DOT:
        pytest.skip("Graphviz `dot` is not installed")
    script = ('import torch\nx = torch.ones(1, requires_grad=True)\n'
              'y = x * len("<img src=x onerror=alert(1)>&amp;")\ny.backward()\n')
    page = build_page(run_text(script, name="<b>.gt", trace=True))
    head, rest = page.split('<script type="application/json" id="gradtrace-data">')
    tail = rest.split("</script>", 1)[1]
    for part in (head, tail):  # outside the JSON block every "<" is the page's own markup
        assert "<img" not in part and "<b>" not in part
    assert "&lt;img src=x onerror=a" in head  # the SVG's label (cut at 30), escaped
