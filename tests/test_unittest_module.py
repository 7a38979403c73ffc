"""`import unittest` (gradtrace/lib/unittest.gt): scripts run under gradtrace print what
CPython 3.11 prints, on stdout and stderr (the TextTestRunner report), and end with its exit
status. The scripts in tests/data/unittest/ need no torch; each runs under this Python
(3.11, as the report's format is 3.11's) and under gradtrace. Normalised: the run time in
"Ran N tests in X.XXXs" and the script's file name (tracebacks, warnings). The hostile side is
tests/hostile/unittest_*.gt; the torch side tests/conformance_extra/unittest_*.gt."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).parent / "data" / "unittest").glob("*.gt"))

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                                reason="the recorded format is CPython 3.11's unittest")


def _normal(text: str, path: Path) -> str:
    text = re.sub(r"Ran (\d+) tests? in \d+\.\d{3}s", r"Ran \1 tests in X.XXXs", text)
    return text.replace(str(path), "SCRIPT")


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_unittest_script_matches_python(script: Path, tmp_path: Path):
    gt, py = tmp_path / script.name, tmp_path / (script.stem + ".py")
    gt.write_text(script.read_text())
    py.write_text(script.read_text())
    python = subprocess.run([sys.executable, str(py)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120)
    ours = subprocess.run([sys.executable, "-m", "gradtrace", "run", "--quiet", str(gt)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert ours.stdout == python.stdout
    assert _normal(ours.stderr, gt) == _normal(python.stderr, py)
    assert ours.returncode == python.returncode


def test_unittest_is_listed_among_the_importable_modules():
    from gradtrace.interpreter.modules import _SUPPORTED, IMPORTABLE_PYTHON_MODULES

    assert "unittest" in IMPORTABLE_PYTHON_MODULES
    assert "unittest (" in _SUPPORTED


def test_a_recursion_error_in_a_test_is_reported_with_repeats_collapsed(tmp_path: Path):
    """A test that recurses without end: the report's traceback shows the repeated frame 3
    times, then "[Previous line repeated N more times]" (N is gradtrace's recursion limit,
    not Python's 1000), and ends at the calling line, as Python's does."""
    script = tmp_path / "recursion.gt"
    script.write_text("import unittest\ndef f(n):\n    return f(n + 1)\n"
                      "class T(unittest.TestCase):\n    def test_a(self):\n        f(0)\n"
                      "unittest.main(exit=False)\nprint('after')\n")
    ours = subprocess.run([sys.executable, "-m", "gradtrace", "run", "--quiet", str(script)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert ours.returncode == 0 and ours.stdout == "after\n"
    lines = ours.stderr.splitlines()
    assert sum(line.endswith(", in f") for line in lines) == 3
    assert re.fullmatch(r"  \[Previous line repeated \d+ more times\]",
                        lines[lines.index("RecursionError: maximum recursion depth exceeded")
                              - 1])
    assert ", line 0," not in ours.stderr
