"""The `gradtrace run` report: golden files at width 100 without colour, and its options.

Regenerate the golden files after an intended change with
`GRADTRACE_UPDATE_GOLDEN=1 python -m pytest tests/test_render_tables.py` and review the diff.
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from gradtrace.cli import main
from gradtrace.engine.node import AccumulateGrad
from gradtrace.interpreter import Limits
from gradtrace.render.json import document
from gradtrace.render.tables import (
    SECTIONS,
    backward_table,
    parse_sections,
    print_report,
    tensors_table,
)
from gradtrace.render.values import array_cell, summarise, tensor_cell
from gradtrace.runner import load_source, run_source, run_text

HERE = Path(__file__).parent
ROOT = HERE.parent
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("GRADTRACE_UPDATE_GOLDEN") == "1"

GOLDEN_SCRIPTS = {
    "sample_03_chain_two_muls": ROOT / "samples" / "03_chain_two_muls.gt",
    "sample_04_version_counter": ROOT / "samples" / "04_version_counter.gt",
    "sample_05_unbind": ROOT / "samples" / "05_unbind.gt",
    "sample_06_mixed_requires_grad": ROOT / "samples" / "06_mixed_requires_grad.gt",
    "sample_10_grad_accumulates": ROOT / "samples" / "10_grad_accumulates.gt",
    "sample_12_data_mutation": ROOT / "samples" / "12_data_mutation.gt",
    "uncaught_version_error": GOLDEN / "uncaught_version_error.gt",
    "retain_and_accumulate": GOLDEN / "retain_and_accumulate.gt",
    "big_tensor": GOLDEN / "big_tensor.gt",
    # issue 14: the one naming rule (items 1, 2, 3, 7)
    "alias_rebind": GOLDEN / "alias_rebind.gt",
    "where_condition": GOLDEN / "where_condition.gt",
    "hook_create_graph": GOLDEN / "hook_create_graph.gt",
    "sample_14_rebind_name": ROOT / "samples" / "14_rebind_name.gt",
}


def plain_console(width: int = 100) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=width, color_system=None, force_terminal=False,
                   legacy_windows=False, soft_wrap=False), buffer


def report_text(path: Path, width: int = 100, sections=SECTIONS) -> str:
    """What `gradtrace run` prints on stdout: the script's output, then the report."""
    result = run_source(load_source(str(path.relative_to(ROOT))), trace=True)
    console, buffer = plain_console(width)
    print_report(console, result, sections)
    return normalise(result.stdout + buffer.getvalue())


def normalise(text: str) -> str:
    """Trailing spaces (rich pads lines to the width) and addresses are not part of it."""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


@pytest.fixture(autouse=True)
def _run_from_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # script names in the report are relative to the repository


@pytest.mark.parametrize("name", sorted(GOLDEN_SCRIPTS))
def test_report_matches_golden_file(name: str):
    text = report_text(GOLDEN_SCRIPTS[name])
    golden = GOLDEN / f"{name}.txt"
    if UPDATE or not golden.exists():
        golden.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"wrote missing golden file {golden.name}; review and commit it")
    assert text == golden.read_text(encoding="utf-8")


def test_golden_files_have_no_colour_and_fit_the_width():
    for name in GOLDEN_SCRIPTS:
        text = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
        assert "\x1b[" not in text
        script_lines = run_source(load_source(str(GOLDEN_SCRIPTS[name].relative_to(ROOT)))).stdout
        report = text[len(script_lines):]
        assert all(len(line) <= 100 for line in report.splitlines()), name



REPORT_SCRIPTS = sorted({*GOLDEN_SCRIPTS.values(), *(ROOT / "samples").glob("*.gt"),
                         ROOT / "benchmarks" / "workloads" / "train_300.gt"})


@pytest.mark.parametrize("path", REPORT_SCRIPTS, ids=lambda p: p.stem)
def test_report_reads_no_value_the_tables_tracer_leaves_out(path: Path):
    """`gradtrace run` traces without the values only explain, the page and JSON read
    (`trace_values=False`); its report is the one a full trace gives."""
    source = str(path.relative_to(ROOT))
    texts = []
    for values in (True, False):
        # (a loaded machine must not stop one of the two runs at the default 60 s)
        result = run_source(load_source(source), trace=True, trace_values=values,
                            limits=Limits(timeout=3600.0))
        console, buffer = plain_console(100)
        print_report(console, result, SECTIONS)
        texts.append(normalise(result.stdout + buffer.getvalue()))
    assert texts[0] == texts[1]
    assert "Backward" in texts[1] or "backward" not in path.read_text()

# -- the facts each golden report must show -------------------------------------------


def test_chain_shows_grads_12_8_6_per_node():
    text = report_text(ROOT / "samples" / "03_chain_two_muls.gt")
    graph = text[text.index("Graph ─"):text.index("Backward ─")]
    backward = text[text.index("Backward ─"):]
    assert "e.grad_fn = MulBackward0 #4" in graph
    assert "[0] (MulBackward0 #1, 0) → c" in graph
    assert "[0] (AccumulateGrad #2, 0) → a · grad 12." in graph
    assert "[1] (AccumulateGrad #3, 0) → b · grad 8." in graph
    assert "[1] (AccumulateGrad #5, 0) → d · grad 6." in graph
    assert "freed by backward #1" in graph
    # step by step: d first (most recent node), then through c to a and b
    rows = [line for line in backward.splitlines() if re.match(r"\s+\d+\s", line)]
    assert [r.split()[0] for r in rows] == ["1", "2", "3", "4", "5"]
    assert "MulBackward0 #4 (e)" in rows[0] and "[0] 4. → MulBackward0 #1" in rows[0]
    assert "d.grad: None → 6." in rows[2 - 1]
    assert "[0] 12. → AccumulateGrad #2" in rows[2]
    assert "a.grad: None → 12." in rows[3]
    assert "b.grad: None → 8." in rows[4]


def test_version_counter_sample_shows_the_saved_version_mismatch():
    text = report_text(ROOT / "samples" / "04_version_counter.gt")
    assert "saved: self = c (version 0, now 1: modified in place), other = d (version 0)" in text
    assert "→ c (old value)" in text  # the MulBackward0 that made the c before `c += 1`
    assert "c.grad_fn = AddBackward0 #6 · line 11: c += 1 · no backward from here" in text
    assert "✗ backward raised at MulBackward0 #4 (saved self changed in place): RuntimeError" \
        in text
    # the Tensors table: c is at version 1
    row = next(line for line in text.splitlines() if line.startswith("c "))
    assert row.split()[-2:] == ["1", "False"]


def test_unbind_sample_shows_output_nr_and_shared_node_once():
    text = report_text(ROOT / "samples" / "05_unbind.gt")
    assert "[0] (UnbindBackward0 #1, 0) → b" in text
    assert "[1] (UnbindBackward0 #1, 1) → c (shown above)" in text
    assert "[1] (UnbindBackward0 #1, 2) → d (shown above)" in text
    assert text.count("saved: dim = 0") == 1  # the node is drawn once
    assert "(b, c, d)" in text  # the step row names all three outputs
    assert "[0] 3." in text and "[1] 6." in text and "[2] 2." in text  # grad per output


def test_data_mutation_flags_the_change_behind_the_version_counter():
    text = report_text(ROOT / "samples" / "12_data_mutation.gt", width=160)
    assert "self = x (version 0, but its values changed at line 10 without a version bump)" \
        in text


def test_uncaught_error_still_reports_what_ran():
    text = report_text(GOLDEN / "uncaught_version_error.gt")
    assert "never printed" not in text
    assert "The script stopped at line 11 with RuntimeError" in text
    assert "now 1: modified in place" in text


def test_accumulation_shows_before_and_after():
    text = report_text(GOLDEN / "retain_and_accumulate.gt")
    assert "x.grad: None → [5., 8.]" in " ".join(text.split())
    assert "x.grad: [5., 8.] → [10., 16.]" in " ".join(text.split())
    assert "retain_graph=True" in text
    assert "[1] (None, 0) · k does not require grad" in text


def test_large_tensors_are_summarised_in_cells():
    text = report_text(GOLDEN / "big_tensor.gt")
    assert "[0.0000e+00, …" in text
    assert len(text.splitlines()) < 60


# -- pieces -----------------------------------------------------------------------------


def test_array_cell_keeps_both_ends_of_long_tensors():
    cell = array_cell(np.arange(2000, dtype=np.float32), 40)
    assert cell.startswith("[0.0000e+00, ") and cell.endswith(", 1.9990e+03]")
    assert "…" in cell and len(cell) <= 40
    assert array_cell(np.array([1.0, 2.0], dtype=np.float32)) == "[1., 2.]"
    assert array_cell(np.array(12.0, dtype=np.float32)) == "12."
    assert array_cell(np.array([1.0], dtype=np.float64)) == "[1.]"  # no dtype suffix
    assert array_cell(None) == "None"
    assert tensor_cell(None) == "None"
    assert summarise("abc", 10) == "abc"
    assert len(summarise("x" * 100, 10)) == 10


def test_parse_sections():
    assert parse_sections(None) == SECTIONS
    assert parse_sections("graph, tensors") == ("graph", "tensors")
    assert parse_sections("all") == SECTIONS
    with pytest.raises(ValueError, match="unknown section 'bogus'"):
        parse_sections("tensors,bogus")
    with pytest.raises(ValueError):
        parse_sections(",")


def test_sections_can_be_chosen():
    text = report_text(ROOT / "samples" / "03_chain_two_muls.gt", sections=("backward",))
    assert "Backward ─" in text and "Graph ─" not in text and "Tensors ─" not in text


def test_report_uses_red_for_the_mismatch_on_a_colour_terminal():
    result = run_source(load_source("samples/04_version_counter.gt"), trace=True)
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, force_terminal=True, color_system="standard")
    print_report(console, result, ("graph",))
    out = buffer.getvalue()
    assert re.search(r"\x1b\[1;31m[^\x1b]*now 1: modified in place", out)


def test_tensors_table_without_a_trace():
    result = run_text("import torch\nx = torch.ones(2, requires_grad=True)\n")
    console, buffer = plain_console()
    console.print(tensors_table(result.variables))
    assert "x" in buffer.getvalue() and "True" in buffer.getvalue()


def test_backward_steps_are_capped():
    script = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n" \
             "for i in range(300):\n    y = y * 1.01\ny.backward()\n"
    result = run_text(script, trace=True)
    from gradtrace.render.graph import GraphView

    view = GraphView(result.trace)
    console, buffer = plain_console()
    console.print(backward_table(view, result.trace.backward_calls[0], max_steps=20))
    out = buffer.getvalue()
    assert "281 more steps" in out
    assert len(out.splitlines()) < 50


def test_many_backward_calls_are_capped():
    script = "import torch\nx = torch.tensor(1.0, requires_grad=True)\n" \
             "for i in range(30):\n    (x * 2).backward()\n"
    result = run_text(script, trace=True)
    console, buffer = plain_console()
    print_report(console, result, ("backward",))
    out = buffer.getvalue()
    assert "… 20 more backward calls" in out
    shown = [n for n in range(1, 31) if f"Backward #{n} " in out]
    assert shown == [1, 2, 3, 4, 5, 26, 27, 28, 29, 30]


def test_deep_graph_report_is_capped_and_not_recursive():
    script = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n" \
             "for i in range(5000):\n    y = y * 1.0001\ny.backward()\n"
    result = run_text(script, trace=True)
    console, buffer = plain_console()
    print_report(console, result)
    out = buffer.getvalue()
    assert "more nodes not shown" in out
    assert "more steps" in out
    assert len(out.splitlines()) < 1000


def test_script_named_no_tensors():
    result = run_text("print(1)\n", trace=True)
    console, buffer = plain_console()
    print_report(console, result)
    out = buffer.getvalue()
    assert "The script named no tensors." in out
    assert "No autograd graph" in out
    assert "No backward call ran." in out


# -- cell text is literal, never console markup ------------------------------------------

NAN_GRAD = ("import torch\n"
            "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
            "y = (x * float('nan')).sum()\n"
            "y.backward()\n")

BRACKETED = ("import torch\n"
             "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
             "i = 1\n"
             "y = x[i] * 2 + x[0:100:2].sum()\n"
             "y.backward()\n")


def plain_report(script: str, sections=SECTIONS, width: int = 120) -> str:
    console, buffer = plain_console(width)
    print_report(console, run_text(script, trace=True), sections)
    return normalise(buffer.getvalue())


def test_report_shows_nan_gradient_in_brackets_literally():
    text = plain_report(NAN_GRAD, ("tensors",))
    row = next(line for line in text.splitlines() if line.startswith("x "))
    assert row.split()[1:3] == ["[1.,", "2.]"]
    assert "[nan, nan]" in row  # the grad column, not an empty cell


def test_backward_table_shows_grad_received_nan_in_brackets_literally():
    text = plain_report(NAN_GRAD, ("backward",))
    row = next(line for line in text.splitlines() if "AccumulateGrad #2 (x)" in line)
    assert row.split()[4:6] == ["[nan,", "nan]"]  # grad received
    assert "[0] [nan, nan] → AccumulateGrad #2" in text


def test_tensors_table_shows_inf_and_nan_values_literally():
    text = plain_report("import torch\nw = torch.tensor([float('inf'), float('nan'), -1.0])\n",
                        ("tensors",))
    row = next(line for line in text.splitlines() if line.startswith("w "))
    assert "[inf, nan, -1.]" in row


def test_backward_table_node_labels_keep_indexing_and_slices_literally():
    text = plain_report(BRACKETED, ("backward",), width=160)
    assert "(x[i] * 2)" in text  # `[i]` is not eaten as a markup tag
    assert "(x[0:100:2].sum())" in text  # `:100:` is not an emoji code


def test_graph_tree_keeps_indexing_and_slices_literally():
    text = plain_report(BRACKETED, ("graph",), width=160)
    assert "→ x[i] * 2 · line 4: x[i] * 2" in text
    assert "→ x[0:100:2].sum() · line 4: x[0:100:2].sum()" in text


# -- each op is labelled with the source that ran it ------------------------------------


def node_labels(script: str) -> list[tuple[str, str | None]]:
    """(name, source expression) of each recorded node but the leaves', in order."""
    trace = run_text(script, trace=True).trace
    return [(r.name, r.expression) for r in sorted(trace.nodes.values(), key=lambda r: r.id)
            if not isinstance(r.node, AccumulateGrad)]


def test_subscript_ops_are_labelled_with_their_own_expression():
    text = plain_report(BRACKETED, ("graph", "backward"), width=160)
    assert "(SelectBackward0 #1, 0) → x[i] · line 4: x[i]\n" in text
    assert "(SliceBackward0 #4, 0) → x[0:100:2] · line 4: x[0:100:2]\n" in text
    assert "SelectBackward0 #1 (x[i])" in text
    assert "SliceBackward0 #4 (x[0:100:2])" in text
    nodes = document(run_text(BRACKETED, trace=True))["nodes"]
    assert {n["name"]: n["expression"] for n in nodes if n["kind"] == "op"} == {
        "SelectBackward0": "x[i]", "MulBackward0": "x[i] * 2",
        "SliceBackward0": "x[0:100:2]", "SumBackward0": "x[0:100:2].sum()",
        "AddBackward0": "x[i] * 2 + x[0:100:2].sum()"}


def test_stepped_and_nested_subscripts_are_each_labelled_with_their_own_expression():
    assert node_labels("import torch\n"
                       "x = torch.arange(12.0, requires_grad=True)\n"
                       "y = x.exp()[::3] + x[1:8:2][0]\n"
                       "z = x.view(3, 4)[1][2]\n") == [
        ("ExpBackward0", "x.exp()"),
        ("SliceBackward0", "x.exp()[::3]"),
        ("SliceBackward0", "x[1:8:2]"),
        ("SelectBackward0", "x[1:8:2][0]"),
        ("AddBackward0", "x.exp()[::3] + x[1:8:2][0]"),
        ("ViewBackward0", "x.view(3, 4)"),
        ("SelectBackward0", "x.view(3, 4)[1]"),
        ("SelectBackward0", "x.view(3, 4)[1][2]")]


def test_subscripts_in_calls_arguments_and_f_strings_are_labelled_with_their_own_expression():
    assert node_labels("import torch\n"
                       "x = torch.ones(4, requires_grad=True)\n"
                       "v = x[0].item()\n"
                       "print(f\"{x[1] * 2}\")\n"
                       "y = torch.sin(x[2]) + (x * 2)[1:3].sum()\n") == [
        ("SelectBackward0", "x[0]"),
        ("SelectBackward0", "x[1]"),
        ("MulBackward0", "x[1] * 2"),
        ("SelectBackward0", "x[2]"),
        ("SinBackward0", "torch.sin(x[2])"),
        ("MulBackward0", "x * 2"),
        ("SliceBackward0", "(x * 2)[1:3]"),
        ("SumBackward0", "(x * 2)[1:3].sum()"),
        ("AddBackward0", "torch.sin(x[2]) + (x * 2)[1:3].sum()")]


def test_subscript_assignment_is_labelled_with_its_statement_and_its_reads_with_theirs():
    result = run_text("import torch\n"
                      "w = torch.ones(3)\n"
                      "x = torch.zeros(3, requires_grad=True)\n"
                      "with torch.no_grad():\n"
                      "    x[0] = w[1] * 5\n", trace=True)
    assert {r.expression for r in result.trace.tensors.values() if r.line == 5} == {
        "w[1]", "w[1] * 5", "x[0] = w[1] * 5"}
    assert node_labels("import torch\n"
                       "a = torch.ones(3, requires_grad=True)\n"
                       "b = a * 1\n"
                       "b[0] = a[2]\n"
                       "b[1] += a[1]\n") == [
        ("MulBackward0", "a * 1"),
        ("SelectBackward0", "a[2]"),
        ("SelectBackward0", "b[0] = a[2]"),  # the view written into
        ("torch::autograd::CopyBackwards", "b[0] = a[2]"),
        ("torch::autograd::CopySlices", "b[0] = a[2]"),  # b's new grad_fn
        ("SelectBackward0", "b[1]"),
        ("SelectBackward0", "a[1]"),
        ("AddBackward0", "b[1] += a[1]"),
        ("torch::autograd::CopySlices", "b[1] += a[1]"),
        ("SelectBackward0", "b[1] += a[1]"),
        ("torch::autograd::CopyBackwards", "b[1] += a[1]"),
        ("AsStridedBackward0", "b[1] += a[1]"),
        ("torch::autograd::CopySlices", "b[1] += a[1]")]


def test_in_place_op_on_a_view_labels_the_bases_new_grad_fn_where_it_ran():
    text = plain_report("import torch\n"
                        "a = torch.ones(3, requires_grad=True)\n"
                        "b = a * 1\n"
                        "b[0:2].mul_(2)\n"
                        "c = b * 3\n", ("graph",))
    assert "(CopySlices #5, 0) → b · line 4: b[0:2].mul_(2)\n" in text


def test_unary_comparison_and_property_ops_are_labelled_with_their_own_expression():
    result = run_text("import torch\n"
                      "x = torch.ones(3, 2, requires_grad=True)\n"
                      "y = -x[0]\n"
                      "z = (x * 2).T\n"
                      "m = x[1] > x[2]\n", trace=True)
    assert [(r.name, r.expression) for r in result.trace.nodes.values()
            if r.name in ("NegBackward0", "PermuteBackward0")] == [
        ("NegBackward0", "-x[0]"), ("PermuteBackward0", "(x * 2).T")]
    assert result.trace.record_of(result.variables["m"]).expression == "x[1] > x[2]"


def test_unpacking_is_labelled_with_its_statement_and_a_loop_with_what_it_iterates():
    assert node_labels("import torch\n"
                       "x = torch.ones(2, requires_grad=True)\n"
                       "a, b = x * 2\n"
                       "for r in x:\n"
                       "    pass\n") == [
        ("MulBackward0", "x * 2"),
        ("UnbindBackward0", "a, b = x * 2"),
        ("UnbindBackward0", "x")]


# -- the command line -----------------------------------------------------------------


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def test_run_prints_script_output_then_report():
    r = invoke("run", "samples/03_chain_two_muls.gt", "--width", "100")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("MulBackward0\nMulBackward0\n")
    assert normalise(r.output) == (GOLDEN / "sample_03_chain_two_muls.txt").read_text()


def test_run_quiet_is_only_the_script_output():
    r = invoke("run", "--quiet", "samples/03_chain_two_muls.gt")
    assert r.exit_code == 0
    assert r.output == (HERE / "samples" / "03_chain_two_muls.out").read_text()


def test_run_show_and_width():
    r = invoke("run", "samples/03_chain_two_muls.gt", "--show", "graph", "--width", "60")
    assert r.exit_code == 0
    assert "Graph ─" in r.output and "Tensors ─" not in r.output
    report = r.output.split("False False True\n", 1)[1]
    assert max(len(line) for line in report.splitlines()) <= 60


@pytest.mark.parametrize("args", [
    ["--show", "bogus"], ["--quiet", "--json"], ["--quiet", "--show", "graph"],
    ["--json", "--show", "graph"], ["--width", "5"],
])
def test_run_usage_errors(args):
    r = invoke("run", "samples/03_chain_two_muls.gt", *args)
    assert r.exit_code == 2


def test_run_uncaught_error_exit_status_and_report():
    r = CliRunner().invoke(main, ["run", "tests/golden/uncaught_version_error.gt"])
    assert r.exit_code == 1
    assert "RuntimeError: one of the variables needed" in r.stderr
    assert "now 1: modified in place" in r.stdout


def test_run_syntax_error_has_no_report():
    r = CliRunner().invoke(main, ["run", "-"], input="x = (\n")
    assert r.exit_code == 1
    assert "SyntaxError" in r.stderr
    assert "Tensors" not in r.stdout


def test_no_colour_when_not_a_terminal_and_with_no_color():
    r = invoke("run", "samples/04_version_counter.gt")
    assert "\x1b[" not in r.output
    forced = invoke("run", "samples/04_version_counter.gt", env={"FORCE_COLOR": "1",
                                                                  "NO_COLOR": None})
    assert re.search(r"\x1b\[[0-9;]*31m", forced.output)  # red on a (forced) terminal
    none = invoke("run", "samples/04_version_counter.gt", env={"FORCE_COLOR": "1",
                                                                "NO_COLOR": "1"})
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m", none.output)  # no colour codes


def test_run_shows_script_output_and_report_values_with_brackets_literally(tmp_path):
    script = tmp_path / "markup.gt"
    script.write_text('print("[bold]hi[/bold] :100:")\n' + NAN_GRAD + "print(x.grad)\n")
    r = invoke("run", str(script), "--width", "120")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("[bold]hi[/bold] :100:\ntensor([nan, nan])\n")
    row = next(line for line in r.output.splitlines() if line.startswith("x "))
    assert "[nan, nan]" in row
