"""`%load_ext gradtrace` and the `%%gradtrace` cell magic, in IPython's InteractiveShell
(skipped without IPython: `pip install 'gradtrace[notebook]'`)."""
from __future__ import annotations

import base64
import html
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

IPython = pytest.importorskip("IPython", reason="IPython is not installed (the notebook extra)")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

ROOT = Path(__file__).parent.parent
CHAIN = (ROOT / "samples" / "03_chain_two_muls.gt").read_text(encoding="utf-8")
HAVE_DOT = shutil.which("dot") is not None


@pytest.fixture(scope="module")
def shell():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "gradtrace")
    yield ip
    InteractiveShell.clear_instance()


def bundle(shell, line: str, cell: str = CHAIN) -> dict:
    """The MIME bundle IPython displays for the cell (through its display formatter)."""
    shown = shell.run_cell_magic("gradtrace", line, cell)
    data, _ = shell.display_formatter.format(shown)
    return data


def test_the_extension_registers_a_cell_magic(shell):
    assert "gradtrace" in shell.magics_manager.magics["cell"]


def test_run_shows_the_output_and_the_report_as_rich_html(shell):
    data = bundle(shell, "run")
    assert set(data) == {"text/plain", "text/html"}
    assert data["text/plain"].startswith("MulBackward0\nMulBackward0\n")
    assert "tensor(12.) tensor(8.) tensor(6.)" in data["text/plain"]
    assert "Backward #1 · line 13: e.backward()" in data["text/plain"]
    assert '<pre style="font-family: Menlo' in data["text/html"]
    assert "<span style=" in data["text/html"]  # rich's colours, inline
    quiet = bundle(shell, "run --quiet")
    assert quiet["text/plain"].endswith("False False True\n") and "Tensors" not in \
        quiet["text/plain"]


def test_explain_in_both_languages(shell):
    data = bundle(shell, "explain")
    assert set(data) == {"text/plain", "text/html"}
    assert "MulBackward0 of e (line 9) received 1. and applied the chain rule" in \
        " ".join(data["text/plain"].split())
    zh = bundle(shell, "explain --lang zh")
    assert "链式法则" in zh["text/plain"] and "链式法则" in html.unescape(zh["text/html"])


def test_explain_takes_the_command_lines_budget_options(shell):
    brief = bundle(shell, "explain --brief")["text/plain"]
    assert "    1  line 5  │  a = torch.tensor(2.0, requires_grad=True)" in brief
    assert "chain rule" not in brief
    one = bundle(shell, "explain --statement 3")["text/plain"]
    assert one.startswith("line 7  │  c = a * b") and "line 9" not in one
    lines = bundle(shell, "explain --lines 9-9")["text/plain"]
    assert lines.startswith("line 9  │  e = c * d") and "line 7 " not in lines
    bad = bundle(shell, "explain --lines 9-3")["text/plain"]
    assert bad.startswith("%%gradtrace: ") and "give a line range A-B" in bad


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed")
def test_graph_is_svg_and_png(shell):
    data = bundle(shell, "graph")
    assert set(data) == {"text/plain", "image/svg+xml"}
    assert data["image/svg+xml"].startswith("<svg") and "MulBackward0 #4" in \
        data["image/svg+xml"]
    png = bundle(shell, "graph --format png --no-legend")
    assert base64.b64decode(png["image/png"]).startswith(b"\x89PNG")


def test_graph_text_formats(shell):
    dot = bundle(shell, "graph -f dot --backward 1 --no-grads")
    assert set(dot) == {"text/plain"} and dot["text/plain"].startswith("digraph gradtrace {")
    assert "grad 4." not in dot["text/plain"]
    mermaid = bundle(shell, "graph -f mermaid")
    assert mermaid["text/markdown"].startswith("```mermaid\nflowchart TB")
    tree = bundle(shell, "graph -f tree --root c")
    assert tree["text/plain"].startswith("c.grad_fn = MulBackward0 #1") and "text/html" in tree
    doc = bundle(shell, "graph -f json")
    assert doc["application/json"]["schema_version"] == "1.6"


def test_view_is_the_page_in_an_iframe(shell):
    data = bundle(shell, "view --lang zh --height 600")
    assert set(data) == {"text/plain", "text/html"}
    frame = data["text/html"]
    assert frame.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')
    assert 'sandbox="allow-scripts"' in frame and "height: 600px" in frame
    page = html.unescape(frame.split('srcdoc="')[1].split('" style=')[0])
    assert '<html lang="zh">' in page and "gradtrace-data" in page


def test_errors_are_shown_like_the_command_line(shell):
    cell = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ny.backward()\n"
    data = bundle(shell, "run", cell)
    assert "<cell>:4:1: RuntimeError: grad can be implicitly created only for scalar outputs" \
        in data["text/plain"]
    assert "    y.backward()\n    ^^^^^^^^^^^^" in data["text/plain"]
    assert "Traceback" not in data["text/plain"]
    assert 'color: #b00020' in data["text/html"]
    hint = bundle(shell, "run", "import torch\nx = torch.ones(2, requires_grad=True)\n"
                                "x.grad.zero_()\n")  # the command line's hint too
    assert "Hint: x.grad is None until a backward pass reaches x" in hint["text/plain"]
    syntax = bundle(shell, "graph -f dot", "x = (\n")
    assert "<cell>:" in syntax["text/plain"] and "SyntaxError" in syntax["text/plain"]


@pytest.mark.parametrize("line,message", [
    ("bogus", "unknown kind 'bogus' (choose from run, explain, graph, view)"),
    ("graph --format gif", "Invalid value for '-f' / '--format'"),
    ("graph --backward 7 -f dot", "--backward 7: the script made 1 backward call"),
    ("view --root nothing", "--root nothing: no tensor of that name"),
    ('run --show "a b', "No closing quotation"),
])
def test_bad_options_say_what_is_wrong(shell, line, message):
    data = bundle(shell, line)
    assert data["text/plain"].startswith("%%gradtrace: ") and message in data["text/plain"]


def test_help_lists_the_options(shell):
    data = bundle(shell, "graph --help")
    assert "--format" in data["text/plain"] and "--backward" in data["text/plain"]


def test_the_core_never_imports_ipython():
    code = ("import sys, gradtrace, gradtrace.cli, gradtrace.runner, gradtrace.render.page, "
            "gradtrace.render.drawing; assert 'IPython' not in sys.modules, 'imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
