"""Views of a node with thousands of edges (torch.stack over 2,000 leaves) stay small:
the report's backward table and explain's sentences list a few gradients and say how
many more there are (issue 16: 30,000 leaves made a 6 MB report, and an explanation
whose one backward sentence was too long to be told at all)."""
from __future__ import annotations

import io

import pytest

from gradtrace.render import trace_frozen
from gradtrace.render.explain import Options, explain, print_explanation, to_json
from gradtrace.render.explain.model import MAX_TOLD_EDGES
from gradtrace.render.tables import MAX_CELL_EDGES, SECTIONS, print_report
from gradtrace.render.terminal import console
from gradtrace.runner import run_text

LEAVES = 2000


@pytest.fixture(scope="module")
def result():
    return run_text("import torch\n"
                    f"xs = [torch.ones(1, requires_grad=True) for i in range({LEAVES})]\n"
                    "y = torch.stack(xs).sum()\ny.backward()\n", "leaves.gt", trace=True)


def test_the_report_lists_a_few_gradients_of_a_node_and_counts_the_rest(result):
    out = io.StringIO()
    with trace_frozen():
        print_report(console(100, file=out, soft_wrap=False), result, SECTIONS)
    text = out.getvalue()
    assert f"… {LEAVES - MAX_CELL_EDGES:,} more gradients" in text
    assert f"[{MAX_CELL_EDGES - 1}] [1.]" in text and f"[{MAX_CELL_EDGES}] [1.]" not in text
    assert text.count("\n") < 1000  # every section elides (2,000 leaves drew 4,000+ lines)


def test_explain_tells_a_few_edges_of_a_node_and_counts_the_rest(result):
    with trace_frozen():
        explanation = explain(result, "en", Options(width=100))
    doc = to_json(explanation)
    steps = [step for section in doc["sections"] for step in section["steps"]]
    stack = [step for step in steps if step["kind"] == "backward.node"
             and step["facts"]["node"].startswith("StackBackward0")]
    assert len(stack) == 1  # the backward call is told (the sentence fits the budget)
    assert len(stack[0]["facts"]["sent"]) == LEAVES  # the facts keep every edge
    assert f"{LEAVES - MAX_TOLD_EDGES:,} more" in stack[0]["text"]
    assert stack[0]["text"].count("→") == MAX_TOLD_EDGES
    out = io.StringIO()
    print_explanation(console(100, file=out, soft_wrap=False), explanation)
    assert out.getvalue().count("\n") < 1000


def test_explain_counts_the_derivatives_of_a_node_past_the_first_few(result):
    with trace_frozen():  # the statement told in full: every step, each sentence short
        doc = to_json(explain(result, "en", Options(width=100, statement=1)))
    saved = [step for section in doc["sections"] for step in section["steps"]
             if step["kind"] == "op.saved.nothing" and "StackBackward0" in step["text"]]
    assert len(saved) == 1
    assert saved[0]["text"].count("gets grad.select(0, i)") == MAX_TOLD_EDGES
    assert f"and {LEAVES - MAX_TOLD_EDGES:,} more" in saved[0]["text"]


def test_the_page_of_a_script_with_a_lone_surrogate_is_utf8(tmp_path):
    """`view` quotes the script's strings (here an exception message holding U+D800):
    the page shows it as its escape (it was a UnicodeEncodeError traceback)."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "surrogate.gt"
    script.write_text('raise ValueError("bad \\ud800 value")\n')
    done = subprocess.run([sys.executable, "-m", "gradtrace", "view", str(script)],
                          capture_output=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(Path(__file__).parents[1]), "PATH": ""})
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr
    assert "bad \\ud800 value" in done.stdout.decode("utf-8")


def _chain(n: int):
    return run_text("import torch\nx = torch.ones(1, requires_grad=True)\ny = x\n"
                    f"for i in range({n}):\n    y = y * 1.0\ny.sum().backward()\n",
                    "chain.gt", trace=True)


def test_explain_past_its_deadline_summarises_the_rest_instead_of_telling_it():
    result = _chain(30)
    with trace_frozen():
        explanation = explain(result, "en", Options(width=100, deadline=0.0))
    told = [s for s in explanation.sections if s.kind != "summary"]
    assert told == []
    notes = [st.kind for s in explanation.sections for st in s.steps]
    assert "summary.deadline" in notes
    assert "The story stops at statement run 1 of" in render_text_of(explanation)


def test_explain_with_time_to_spare_tells_what_it_tells_without_a_deadline():
    import time

    result = _chain(30)
    with trace_frozen():
        plain = render_text_of(explain(result, "en", Options(width=100)))
        timed = render_text_of(explain(result, "en",
                                       Options(width=100, deadline=time.monotonic() + 600)))
    assert timed == plain
    assert "The story stops at statement run" not in timed


def render_text_of(explanation) -> str:
    from gradtrace.render.explain import render_text

    return render_text(explanation, 100)
