"""Views that name the right tensor, state the right math, and stay usable on big runs.

Each test holds one behaviour of the report, the graph files, the JSON documents and
`explain` to the engine's own state: the names every view uses (gradtrace/naming.py), the
math `explain` states (from each op's formulas, engine/formulas.py), the story's budget
and selections, table layout, schemas, hints. Golden outputs of the same scripts are in
tests/golden (report) and tests/golden/explain.
"""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from gradtrace import check
from gradtrace.cli import main
from gradtrace.render import explain as ex
from gradtrace.render.drawing import draw
from gradtrace.render.graph import GraphView, print_graph
from gradtrace.render.json import document, validate
from gradtrace.render.tables import print_report
from gradtrace.render.values import array_cell
from gradtrace.runner import load_source, run_source, run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
GOLDEN = HERE / "golden"


def traced(path: Path):
    return run_source(load_source(str(path)), trace=True)


def report(result, width: int = 100, sections=("tensors", "graph", "backward")) -> str:
    out = io.StringIO()
    print_report(Console(file=out, width=width, color_system=None, soft_wrap=False),
                 result, sections)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def steps(explanation, kind: str):
    return [s for s in explanation.steps if s.kind == kind]


def tensor_of(doc: dict, predicate) -> dict:
    return next(t for t in doc["tensors"] if predicate(t))


# ---------------------------------------------------------------- 1. a leaf an alias named


def test_a_leaf_is_named_by_a_name_that_holds_it_in_every_view():
    result = traced(GOLDEN / "alias_rebind.gt")
    x = result.variables["x"]
    assert x.grad is not None and result.variables["y"].grad is None  # the engine's state
    text = report(result)
    assert "(AccumulateGrad #2, 0) → x · grad [6., 6., 6.]" in text
    assert "x.grad: None →" in text and "y.grad:" not in text
    doc = document(result)
    validate(doc)
    leaf = tensor_of(doc, lambda t: t["id"] == doc["variables"]["x"])
    assert leaf["label"] == "x" and leaf["names"] == ["x", "y"]
    assert [(b["name"], b["line"], b["until"], b["holds"]) for b in leaf["bindings"]] == [
        ("x", 3, None, True), ("y", 4, 5, False)]
    dot, mermaid = draw(result.trace, "dot"), draw(result.trace, "mermaid")
    # the leaf is its own tensor vertex, named x (y held it from line 4 to line 5)
    assert '[label="x\\n[1., 2., 3.] · shape [3]\\ngrad [6., 6., 6.]"' in dot
    assert '"y\\n[1., 2., 3.]' not in dot
    assert '(("x<br/>[1., 2., 3.] · shape [3]<br/>grad [6., 6., 6.]"))' in mermaid
    story = ex.explain(result)
    accumulated = steps(story, "backward.accumulate.first")[0]
    assert accumulated.facts["tensor"] == "x"


# ---------------------------------------------------------------- 2. sub-expressions


def test_every_sub_expression_gets_its_own_label():
    result = traced(GOLDEN / "where_condition.gt")
    doc = document(result)
    where = next(n for n in doc["nodes"] if n["name"] == "WhereBackward0")
    condition = doc["tensors"][where["saved"][0]["tensor"] - 1]
    assert where["saved"][0]["name"] == "condition"
    assert condition["label"] == "x > 0" and condition["expression"] == "x > 0"
    assert condition["value"]["data"] == [True, False, True]  # what the engine saved
    assert "saved (freed by backward #1): condition = x > 0 (version 0)" in report(result)
    saved = steps(ex.explain(result), "op.saved")[0]
    assert saved.facts["saved"][0]["tensor"] == "`x > 0`"


# ---------------------------------------------------------------- 3. what backward makes


def test_tensors_made_by_backward_belong_to_the_backward_call_and_node():
    result = traced(GOLDEN / "hook_create_graph.gt")
    doc = document(result)
    validate(doc)
    call = doc["backward"][0]
    assert call["line"] == 8
    made = [t for t in doc["tensors"] if t["made_by"] is not None]
    assert made and all(t["expression"] is None and t["line"] == 8 for t in made)
    assert not any("hook got" in (t["expression"] or "") for t in doc["tensors"])
    gx = doc["tensors"][doc["variables"]["gx"] - 1]
    node = doc["nodes"][gx["grad_fn"] - 1]
    assert node["made_by"] == {"backward": 1, "node": node["made_by"]["node"]}
    assert node["line"] == 8 and node["expression"] is None
    maker = doc["nodes"][node["made_by"]["node"] - 1]
    assert maker["name"] == "MulBackward0"  # y = x * x: its backward made gx's sum
    text = report(result, sections=("graph",))
    assert "gx.grad_fn = AddBackward0 #10 · made by backward #1 at line 8" in text
    assert "line 5" not in text  # the hook's line


# ---------------------------------------------------------------- 4. per-operand math


def test_the_same_tensor_as_two_operands_is_told_per_operand_and_summed():
    result = traced(GOLDEN / "explain" / "mul_self.gt")
    story = ex.explain(result)
    saved = steps(story, "op.saved")[0]
    derivatives = saved.facts["derivatives"]
    assert [(d["operand"], d["input"], d["value"]) for d in derivatives] == [
        ("self", "x", [1.0, 2.0, 3.0]), ("other", "x", [1.0, 2.0, 3.0])]
    assert "∂y/∂self = other = x" in saved.text and "∂y/∂other = self = x" in saved.text
    assert "∂y/∂x = x" not in saved.text  # the false statement of the issue
    total = steps(story, "op.same_leaf.total")[0]
    x = result.variables["x"].array
    assert total.facts["total"] == (2 * x).tolist()  # d(x²)/dx = 2x
    assert total.facts["total"] == result.variables["x"].grad.array.tolist()
    node = steps(story, "backward.node")[-1]
    assert "→ x as self:" in node.text and "→ x as other:" in node.text


# ---------------------------------------------------------------- 5. broadcasting


def test_a_broadcast_input_gets_the_sum_over_the_broadcast_dimension():
    result = traced(GOLDEN / "explain" / "broadcast_add.gt")
    node = [s for s in steps(ex.explain(result), "backward.node")
            if s.facts["node"] == "AddBackward0"][0]
    assert "→ b: [[1., 1.], [1., 1.]], summed over dim 0 (b was broadcast from [2] to [2, 2])" \
        " = [2., 2.]" in node.text
    sent = {f["to"]: f["grad"] for f in node.facts["sent"]}
    assert sent["b"] == result.variables["b"].grad.array.tolist() == [2.0, 2.0]


# ---------------------------------------------------------------- 6. a formula for every op


def test_pow_of_two_tensors_states_its_formula_for_both_inputs():
    story = ex.explain(traced(GOLDEN / "explain" / "pow_tensor.gt"))
    saved = [s for s in steps(story, "op.saved") if s.facts["node"] == "PowBackward1"][0]
    formulas = {d["operand"]: d["formula"] for d in saved.facts["derivatives"]}
    assert formulas == {"self": "b × a^(b - 1)", "exponent": "c × ln(a)"}
    node = [s for s in steps(story, "backward.node") if s.facts["node"] == "PowBackward1"][0]
    assert "→ b: -0.0010 × c (=32.) × ln(a (=2.)) = -0.0217" in node.text


@pytest.mark.parametrize("script", sorted((ROOT / "samples").glob("*.gt"))
                         + sorted((HERE / "conformance").glob("*.gt")), ids=lambda p: p.stem)
def test_every_recorded_op_is_explained_with_a_formula_per_input(script: Path):
    story = ex.explain(traced(script), options=ex.Options(full=True))
    text = script.read_text()
    # saved tensors, but no formula to show: only a script's own autograd.Function, whose
    # backward is the script's code (PBackward for `class P(torch.autograd.Function)`)
    assert all(f"class {s.facts['node'].removesuffix('Backward')}(" in text
               for s in steps(story, "op.saved.generic"))
    for step in story.steps:
        if step.kind in ("op.saved", "op.saved.vjp", "op.saved.nothing"):
            assert step.facts["derivatives"], step.text
            assert all(d["formula"] or d["kind"] == "undefined"
                       for d in step.facts["derivatives"])


# ---------------------------------------------------------------- 7. rebound names


def test_a_rebound_name_is_introduced_before_it_is_used_in_every_view():
    result = traced(ROOT / "samples" / "14_rebind_name.gt")
    text = report(result)
    lines = text.splitlines()
    intro = next(i for i, line in enumerate(lines) if line.startswith("x@5: the tensor x"))
    first_use = next(i for i, line in enumerate(lines) if "x@5" in line and i != intro)
    assert intro < first_use
    assert "AccumulateGrad #2 (x@5)" in text and "x@5.grad: None → [8.]" in text
    assert not re.search(r"→ x · grad", text)  # the leaf is not the x of the end
    doc = document(result)
    leaf = tensor_of(doc, lambda t: t["is_leaf"] and t["requires_grad"])
    assert leaf["label"] == "x@5" and doc["tensors"][doc["variables"]["x"] - 1]["label"] == "x"
    story = ex.explain(result)
    said = [s for s in story.steps]
    rebind = next(i for i, s in enumerate(said) if s.kind == "bind.rebind")
    assert all("x@5" not in s.text for s in said[:rebind])
    assert '"x@5\\n[1.] · shape [1]\\n(x, lines 5-7)\\ngrad [8.]"' in draw(result.trace, "dot")


# ---------------------------------------------------------------- 8. big runs


def chain(statements: int) -> str:
    lines = ["import torch", "w = torch.tensor([0.9, -0.5, 0.3], requires_grad=True)",
             "x0 = torch.tensor([0.5, -0.2, 0.1], requires_grad=True)"]
    lines += [f"x{i} = torch.tanh(x{i - 1} * w) * 0.9" for i in range(1, statements + 1)]
    lines.append(f"x{statements}.sum().backward()")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def long_chain():
    return run_text(chain(400), trace=True)


def test_a_long_run_is_told_within_the_budget_and_summarised_once(long_chain):
    story = ex.explain(long_chain, options=ex.Options(budget=1500))
    text = ex.render_text(story, 100)
    assert len(text.splitlines()) <= 1500
    told = [s for s in story.sections if s.kind in ("statement", "backward")]
    assert told[-1].kind == "backward"  # the backward call is told too
    assert told[-1].steps[-1].kind == "section.more_steps"  # cut, with the way to see it all
    assert len(told[-1].steps) <= ex.MAX_STEPS + 1
    summary = [s for s in story.sections if s.kind == "summary"]
    assert len(summary) == 1 and story.sections[-1] is summary[0]
    left = steps(story, "summary.budget")[0].facts
    runs = told[-1].number  # the backward call is the last statement run
    assert left["count"] == runs - len(told) and left["first"] == told[-2].number + 1
    full = ex.explain(long_chain, options=ex.Options(full=True))
    assert [s.number for s in full.sections] == list(range(1, runs + 1))
    assert not steps(full, "summary.budget")


def test_brief_is_one_line_per_statement_run(long_chain):
    story = ex.explain(long_chain, options=ex.Options(brief=True, budget=10_000))
    text = ex.render_text(story, 120).splitlines()
    assert len(text) == 404 and story.mode == "brief"  # 2 leaves, 400 links, sum, backward
    assert re.match(r" +3  line 4  │  x1 = torch.tanh\(x0 \* w\) \* 0.9  →  records "
                    r"MulBackward0, TanhBackward0, MulBackward0$", text[2])
    ran = len(long_chain.trace.backward_calls[0].steps)
    assert "backward pass #1" in text[-1] and f"{ran} nodes ran" in text[-1]


def test_lines_and_statement_zoom_in(long_chain):
    story = ex.explain(long_chain, options=ex.Options(lines=(10, 11)))
    assert [s.line for s in story.sections] == [10, 11]
    one = ex.explain(long_chain, options=ex.Options(statement=404))
    assert [s.kind for s in one.sections] == ["backward"]
    ran = len(long_chain.trace.backward_calls[0].steps)
    assert len(one.sections[0].steps) > ran  # all of it: no cap when zoomed in
    none = ex.explain(long_chain, options=ex.Options(statement=9999))
    assert steps(none, "explain.none_selected")


def test_loops_are_summarised_once_not_per_line():
    script = ("import torch\nw = torch.ones(2, requires_grad=True)\nfor i in range(50):\n"
              "    loss = (w * w).sum()\n    loss.backward()\n")
    story = ex.explain(run_text(script, trace=True))
    notes = [s for s in story.steps if s.kind.startswith("summary.")]
    assert [s.kind for s in notes] == ["summary.repeats", "summary.how"]
    assert notes[0].facts["count"] == 2 * 48


def test_progress_is_reported_for_each_statement_run(long_chain):
    seen = []
    ex.explain(long_chain, options=ex.Options(progress=lambda done, total: seen.append(
        (done, total))))
    assert seen[0] == (1, 404) and seen[-1] == (404, 404)


def test_explain_and_the_tables_write_numbers_alike():
    result = run_text("import torch\nx = torch.tensor([1.0, 2.0]) / 3\n"
                      "w = torch.tensor(0.001, requires_grad=True)\ny = x * w\n", trace=True)
    shown = steps(ex.explain(result), "op.unrecorded")[0].text
    assert array_cell(result.variables["x"].array) == "[0.3333, 0.6667]"
    assert "x = [0.3333, 0.6667]" in shown
    assert "0.33333334" not in ex.render_text(ex.explain(result))


# ---------------------------------------------------------------- 11. tables


def test_value_cells_use_the_room_they_have():
    script = ("import torch\nx = torch.tensor([[0.5, -1.0], [0.25, 0.0], [1.0, 1.0]], "
              "requires_grad=True)\ny = (x * torch.tensor([1.0, 0.1])).sum(0)\n"
              "y.backward(torch.tensor([1.0, 0.1]))\nz = x * 0.001\n")
    result = run_text(script, trace=True)
    wide = report(result, width=200)
    assert "[[ 0.5000, -1.0000], [ 0.2500, 0.0000], [ 1.0000, 1.0000]]" in wide
    assert "grad [[1.0000, 0.0100], [1.0000, 0.0100], [1.0000, 0.0100]]" in wide
    assert "with grad [1.0000, 0.1000]" in report(result)
    assert "other = 0.001 (version 0)" in report(result)
    assert "(None, 0) · 0.001 is a Python number" in report(result)


def test_node_names_never_break_across_lines():
    result = traced(ROOT / "samples" / "03_chain_two_muls.gt")
    for width in (80, 100):
        text = report(result, width=width, sections=("backward",))
        for line in text.splitlines():  # every node name with its id, on one line
            assert all(re.match(r" #\d+", line[m.end():]) for m in re.finditer(
                r"(Backward0|AccumulateGrad)(?= |$)", line) if "Backward #" not in line), line
            assert not re.match(r"\s*(#\d|\()", line[6:]), line
        assert "MulBackward0 #4 (e)" in text and "AccumulateGrad #5 (d)" in text


def test_pipes_get_the_readme_width(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    out = CliRunner().invoke(main, ["run", str(ROOT / "samples" / "03_chain_two_muls.gt")])
    rule = next(line for line in out.output.splitlines() if line.startswith("Tensors"))
    assert len(rule) == 100


# ---------------------------------------------------------------- 12. schemas


@pytest.mark.parametrize("options", [{}, {"brief": True}, {"full": True}])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_explain_json_follows_its_schema(lang: str, options: dict):
    schema = ex.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    for script in sorted((ROOT / "samples").glob("*.gt")) + [GOLDEN / "hook_create_graph.gt"]:
        result = traced(script)
        doc = ex.to_json(ex.explain(result, lang, ex.Options(**options)))
        jsonschema.validate(json.loads(json.dumps(doc, allow_nan=False)), schema)
        assert doc["schema"] == ex.SCHEMA
        for section in doc["sections"]:  # `at`: a moment of this run, or None for a note
            for step in section["steps"]:
                at = step["at"]
                if section["kind"] == "summary":
                    assert at is None
                elif at is not None and "event" in at:
                    assert at["event"] < len(result.trace.events)
                elif at is not None and "call" in at:
                    call = result.trace.backward_calls[at["call"] - 1]
                    assert at["step"] <= len(call.steps) + 1
    step = {"kind": "op.recorded.one", "line": 1, "tone": "info", "facts": {}, "text": "x"}
    of_step = {"$defs": schema["$defs"], "$ref": "#/$defs/step"}
    for good in (None, {"event": 0}, {"call": 1, "step": 0}, {"error": True}):
        jsonschema.validate({**step, "at": good}, of_step)
    for bad in ({"event": -1}, {"call": 0, "step": 1}, {"error": False}, {"step": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**step, "at": bad}, of_step)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(step, of_step)  # `at` is required


def test_check_json_follows_its_schema_and_names_a_missing_torch_path():
    schema = check.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    out = CliRunner().invoke(main, ["check", "--json", "--torch", "/nonexistent/python",
                                    str(ROOT / "samples" / "03_chain_two_muls.gt")])
    doc = json.loads(out.output)
    jsonschema.validate(doc, schema)
    assert doc["schema"] == check.SCHEMA and doc["status"] == "no_torch" and out.exit_code == 4
    assert "--torch /nonexistent/python: no such file" in doc["message"]
    assert "not installed in /nonexistent" not in doc["message"]


def test_the_schemas_are_documented():
    docs = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    for key in ex.schema()["properties"]:
        assert f"`{key}`" in docs, key
    for name in ("section", "step"):
        for key in ex.schema()["$defs"][name]["properties"]:
            assert f"`{key}`" in docs, (name, key)
    for key in check.schema()["properties"]:
        assert f"`{key}`" in docs, key
    assert "gradtrace-explain/2" in docs and "gradtrace-check/1" in docs


# ---------------------------------------------------------------- 13. hints


def test_grad_before_backward_gets_a_hint(tmp_path: Path):
    script = tmp_path / "zero.gt"
    script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\nx.grad.zero_()\n")
    out = CliRunner().invoke(main, ["run", str(script)])
    assert out.exit_code == 1
    assert "Hint: x.grad is None until a backward pass reaches x" in out.output
    story = ex.explain(traced(script))
    assert steps(story, "hint.grad_none")[0].facts == {"attr": "zero_", "tensor": "x"}


def test_a_script_without_a_command_suggests_run(tmp_path: Path):
    script = tmp_path / "f.gt"
    script.write_text("import torch\n")
    out = CliRunner().invoke(main, [str(script)])
    assert out.exit_code == 2 and f"gradtrace run {script}" in out.output


@pytest.mark.parametrize("line, name", [("m = torch.nn.CrossMapLRN2d(3)",
                                         "torch.nn.CrossMapLRN2d"),
                                        ("o = torch.optim.Muon([], lr=0.1)",
                                         "torch.optim.Muon")])
def test_unsupported_nn_and_optim_point_at_the_readme(tmp_path: Path, line: str, name: str):
    script = tmp_path / "nn.gt"
    script.write_text(f"import torch\n{line}\n")
    out = CliRunner().invoke(main, ["run", str(script)])
    assert f"Hint: {name} is not supported yet" in out.output
    assert "README's \"The language\" section" in out.output and "issue 12" in out.output
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    language = readme[readme.index("## The language"):readme.index("## Development")]
    assert "issue 12" in language and "`torch.nn`" in language and "`torch.optim`" in language


# ---------------------------------------------------------------- 14. the suite's header


def test_the_suite_says_why_live_torch_tests_skip(monkeypatch):
    import conftest

    monkeypatch.setattr(conftest.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(check, "find_torch_python", lambda python=None: None)
    monkeypatch.delenv("GRADTRACE_TORCH_PYTHON", raising=False)
    monkeypatch.setattr(conftest, "_LINE", [])
    line = conftest.torch_line()
    assert line.startswith("torch: not found") and "skipped" in line
    assert conftest.pytest_report_header(None) == [line]

    class Reporter:
        lines: list[str] = []

        def write_line(self, text: str) -> None:
            self.lines.append(text)

    reporter = Reporter()
    conftest.pytest_terminal_summary(reporter)  # `pytest -q` prints no header
    assert reporter.lines == [line]


def test_graph_view_and_tree_share_the_names():
    result = traced(ROOT / "samples" / "14_rebind_name.gt")
    view = GraphView(result.trace)
    out = io.StringIO()
    print_graph(Console(file=out, width=100, color_system=None), result.trace, view=view)
    labels = {view.tensor_label(t.id) for t in result.trace.tensors.values()}
    assert {"x", "x@5", "y"} <= labels
    assert out.getvalue().startswith("x@5: the tensor x named on line 5, until line 7")
    assert np.array_equal(result.variables["x"].array, [100.0])
