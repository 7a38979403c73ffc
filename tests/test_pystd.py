"""The Python modules real scripts import (warnings, sys, contextlib, abc, operator, json,
statistics, string, time, io.StringIO): what they print to stderr and the run's exit
status, which the conformance cases (stdout only) do not compare. Where torch is installed,
stderr and the status are compared with python + torch 2.13 running the same script."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradtrace.interpreter.warning_filters import compile_pattern, pattern_matches
from gradtrace.runner import run_text

ROOT = Path(__file__).resolve().parents[1]


def stderr_of(text: str, name: str = "script.gt") -> tuple[str, str, int]:
    import io

    err = io.StringIO()
    result = run_text(text, name, stderr=err)
    return result.stdout, err.getvalue(), result.exit_code


def torch_run(script: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("torch")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, script.name], cwd=script.parent, env=env,
                          capture_output=True, text=True, timeout=300)


def gradtrace_run(script: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "gradtrace", "run", "--quiet", script.name],
                          cwd=script.parent, env=env, capture_output=True, text=True,
                          timeout=300)


# ---------------------------------------------------------------- sys.exit


@pytest.mark.parametrize(("call", "status", "stderr"), [
    ("sys.exit()", 0, ""), ("sys.exit(0)", 0, ""), ("sys.exit(3)", 3, ""),
    ("sys.exit(None)", 0, ""), ("sys.exit('bye')", 1, "bye\n"), ("sys.exit(256 + 7)", 7, ""),
])
def test_sys_exit_ends_the_run_with_pythons_status(call, status, stderr):
    out, err, code = stderr_of(f"import sys\nprint('before')\n{call}\nprint('after')\n")
    assert out == "before\n"
    assert err == stderr
    assert code == status


def test_sys_exit_is_not_an_error_of_the_run():
    result = run_text("import sys\nimport torch\nx = torch.ones(1)\nsys.exit(2)\n")
    assert result.error is None and result.exit_code == 2
    assert "x" in result.variables  # the report still shows what ran


def test_system_exit_is_caught_by_base_exception_not_exception():
    out, _, code = stderr_of(
        "import sys\ntry:\n    try:\n        sys.exit(4)\n    except Exception:\n"
        "        print('wrong')\nexcept BaseException as e:\n    print('base', e.code)\n")
    assert out == "base 4\n" and code == 0


def test_sys_streams_write_to_the_runs_captured_output():
    out, err, _ = stderr_of("import sys\nsys.stdout.write('a\\n')\nprint('b', file=sys.stderr)"
                            "\nsys.stderr.write('c\\n')\nprint('d', file=sys.stdout)\n")
    assert out == "a\nd\n" and err == "b\nc\n"


def test_sys_refuses_what_reaches_the_process():
    for name in ("path", "setrecursionlimit", "settrace", "stdin"):
        result = run_text(f"import sys\nsys.{name}\n")
        assert result.error is not None and result.error.kind == "NotSupportedError", name
    result = run_text("import sys\nsys.nonexistent\n")
    assert result.error.kind == "AttributeError"


def test_sys_modules_offers_only_the_importable_modules_and_the_script():
    result = run_text("import sys, math\nprint(sys.modules['math'] is math)\n"
                      "print('__main__' in sys.modules, 'nonexistent' in sys.modules)\n"
                      "x = 3\nprint(sys.modules['__main__'].x)\n")
    assert result.error is None and result.stdout == "True\nTrue False\n3\n"


# ---------------------------------------------------------------- warnings on stderr


def test_script_warning_prints_file_line_category_and_source_line():
    _, err, _ = stderr_of("import warnings\nwarnings.warn('careful')\n", "w.gt")
    assert err == "w.gt:2: UserWarning: careful\n  warnings.warn('careful')\n"


def test_default_filter_shows_a_warning_once_per_line():
    _, err, _ = stderr_of("import warnings\nfor i in range(3):\n    warnings.warn('x')\n"
                          "warnings.warn('x')\n", "w.gt")
    assert err.count("UserWarning: x") == 2


def test_deprecation_warnings_outside_main_are_ignored_by_default():
    _, err, _ = stderr_of("import warnings\nwarnings.warn('d', DeprecationWarning)\n"
                          "warnings.warn('e', DeprecationWarning, stacklevel=3)\n"
                          "warnings.warn('f', FutureWarning, stacklevel=3)\n", "w.gt")
    assert "w.gt:2: DeprecationWarning: d" in err
    assert "DeprecationWarning: e" not in err
    assert "sys:1: FutureWarning: f\n" in err


def test_filterwarnings_ignore_silences_torchs_own_warnings():
    _, err, _ = stderr_of("import warnings\nwarnings.filterwarnings('ignore')\nimport torch\n"
                          "x = torch.ones(1, requires_grad=True)\ny = x * 2\ny.grad\n"
                          "float(y)\n")
    assert err == ""


def test_error_filter_raises_torchs_warning_as_an_exception():
    result = run_text("import warnings\nwarnings.simplefilter('error')\nimport torch\n"
                      "x = torch.ones(1, requires_grad=True)\ny = (x * 2).grad\n")
    assert result.error is not None and result.error.kind == "UserWarning"
    assert result.error.message.startswith("The .grad attribute of a Tensor that is not a leaf")
    assert "y" not in result.variables


def test_catch_warnings_restores_the_filters():
    _, err, _ = stderr_of("import warnings\nwith warnings.catch_warnings():\n"
                          "    warnings.simplefilter('ignore')\n    warnings.warn('in')\n"
                          "warnings.warn('out')\n", "w.gt")
    assert "UserWarning: in\n" not in err and "UserWarning: out\n" in err


@pytest.mark.parametrize(("pattern", "text", "matches"), [
    ("abc", "ABCdef", True), ("abc", "xabc", False), ("a.c", "abc", True),
    ("a.*c", "a long c", True), (".*needle", "hay needle hay", True), ("x$", "xx", False),
    ("x.*$", "xx", True),
    ("x$", "xy", False), ("a\\.b", "a.b", True), ("a\\.b", "axb", False),
    (".*a.*b.*c$", "zzabzc", True), (".*a.*b.*c$", "zzabzcd", False), ("", "", True),
])
def test_filter_patterns_match_as_re_match_with_ignorecase(pattern, text, matches):
    import re

    assert bool(re.match(pattern, text, re.I)) is matches
    assert pattern_matches(compile_pattern(pattern, "message"), text) is matches


def test_module_patterns_match_the_start_of_the_module_name_with_case():
    assert pattern_matches(compile_pattern("tor", "module", False), "torch.nn")
    assert not pattern_matches(compile_pattern("Torch", "module", False), "torch")
    _, err, _ = stderr_of("import warnings\nwarnings.filterwarnings('ignore', module='__ma')\n"
                          "warnings.warn('hidden')\n")
    assert err == ""


def test_filter_patterns_that_could_backtrack_are_refused():
    result = run_text("import warnings\nwarnings.filterwarnings('ignore', message='(a+)+$')\n")
    assert result.error.kind == "NotSupportedError"


# ---------------------------------------------------------------- compared with torch

WARNINGS_SCRIPT = """\
import warnings
import torch
warnings.warn("hello")
warnings.warn("dep", DeprecationWarning)
warnings.warn("fut", FutureWarning, stacklevel=2)
def f():
    warnings.warn("inside f", stacklevel=2)
f()
f()
for i in range(2):
    warnings.warn("loop")
x = torch.ones(1, requires_grad=True)
print(float(x * 2))
y = x * 3
for i in range(2):
    y.grad
print(float(x * 4))
warnings.simplefilter("ignore")
warnings.warn("silent")
warnings.resetwarnings()
warnings.warn("after reset")
import sys
sys.exit(5)
"""


def test_warnings_and_exit_status_match_python_and_torch(tmp_path):
    script = tmp_path / "warn_case.gt"
    script.write_text(WARNINGS_SCRIPT)
    ours = gradtrace_run(script)
    theirs = torch_run(script)
    assert ours.returncode == theirs.returncode == 5
    assert ours.stdout == theirs.stdout
    # both name the main script by its absolute path (it was given relative)
    assert ours.stderr == theirs.stderr


MULTILINE_WARNINGS_SCRIPT = """\
import torch
import torch.nn.functional as F
x = torch.ones(1, requires_grad=True)
print('{} {}'.format(
    1,
    float(x * 2)))
y = x * 3
print('grad:',
      y.grad)
loss = F.mse_loss(
    torch.ones(2, 1, requires_grad=True),
    torch.ones(2))
print(loss)
"""


def test_torchs_warning_in_a_statement_spanning_lines_names_the_line_of_its_call(tmp_path):
    """Python names the line of the call that warned (float(...) on the statement's third
    line), not the line the statement starts on."""
    script = tmp_path / "warn_lines.gt"
    script.write_text(MULTILINE_WARNINGS_SCRIPT)
    ours = gradtrace_run(script)
    theirs = torch_run(script)
    assert ours.stdout == theirs.stdout
    assert "warn_lines.gt:6: UserWarning: Converting a tensor" in ours.stderr
    assert ours.stderr == theirs.stderr


CHECKPOINT_SCRIPT = """\
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
x = torch.ones(2, requires_grad=True)
y = checkpoint(lambda t: t * 2, x)
y = checkpoint(lambda t: t * 2, x)
z = checkpoint(lambda t: t * 2, torch.ones(2), use_reentrant=True)
"""


def test_checkpoint_warnings_show_once_like_torchs(tmp_path):
    script = tmp_path / "ck_case.gt"
    script.write_text(CHECKPOINT_SCRIPT)
    ours = gradtrace_run(script)
    theirs = torch_run(script)
    assert ours.returncode == theirs.returncode == 0

    def messages(text: str) -> list[str]:
        return [line.split("UserWarning: ", 1)[1] for line in text.splitlines()
                if "UserWarning: " in line]

    assert messages(ours.stderr) == messages(theirs.stderr)


def test_builtin_exit_and_quit_raise_system_exit_like_sys_exit():
    stdout, _, status = stderr_of("print(exit)\ntry:\n    quit(3)\nexcept SystemExit as e:\n"
                                  "    print(e.code)\nprint(1)\nexit()\nprint(2)\n")
    assert (stdout, status) == ("Use exit() or Ctrl-D (i.e. EOF) to exit\n3\n1\n", 0)


def test_an_op_that_warns_then_raises_shows_its_warning_at_the_calls_line(tmp_path):
    """F.mse_loss warns of the sizes and then fails to broadcast: torch shows the warning at
    the lambda's line, before the error reaches the caller's `except`, not at the line
    that catches it."""
    script = tmp_path / "warn_raise.gt"
    script.write_text(
        "import torch\n"
        "import torch.nn.functional as F\n"
        "a = torch.zeros(4, 3)\n"
        "cases = [lambda: F.mse_loss(a, torch.zeros(4, 1)),\n"
        "         lambda: F.mse_loss(a, torch.zeros(4, 5))]\n"
        "for i, f in enumerate(cases):\n"
        "    try:\n"
        "        r = f()\n"
        "    except RuntimeError as e:\n"
        "        print(i, e)\n")
    ours, theirs = gradtrace_run(script), torch_run(script)
    assert ours.stdout == theirs.stdout
    assert ours.stderr == theirs.stderr
    assert ours.stderr.count("warn_raise.gt:5: UserWarning: Using a target size") == 1


GC_SCRIPT = """import gc
import torch
model = torch.nn.Linear(2, 2)
del model
print(type(gc.collect()), gc.collect(0), gc.collect(generation=1), gc.collect(True))
gc.disable()
print(gc.isenabled())
gc.enable()
print(gc.isenabled(), gc.collect)
for bad in (3, -1, 1.5, "x"):
    try:
        gc.collect(bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
"""


def test_gc_collect_checks_its_generation_like_python(tmp_path):
    """`import gc` / `gc.collect()` (LLM scripts free a model with them): collect frees nothing
    a script sees and returns 0 (CPython's count here is 0 too: no cycles in this script)."""
    out, err, code = stderr_of(GC_SCRIPT)
    assert (err, code) == ("", 0)
    script = tmp_path / "gc_script.py"
    script.write_text(GC_SCRIPT)
    expected = torch_run(script)
    assert out == expected.stdout
