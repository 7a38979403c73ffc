"""`gradtrace run` through click's CliRunner: output, exit status, errors without tracebacks."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from gradtrace.cli import main

SAMPLES = Path(__file__).parent.parent / "samples"


def invoke(*args: str, input: str | bytes | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_run_quiet_prints_exactly_the_script_output():
    result = invoke("run", "--quiet", str(SAMPLES / "03_chain_two_muls.gt"))
    assert result.exit_code == 0
    assert "tensor(12.) tensor(8.) tensor(6.)" in result.stdout
    assert "Tensors" not in result.stdout


def test_run_without_quiet_adds_a_tensor_summary():
    result = invoke("run", str(SAMPLES / "03_chain_two_muls.gt"))
    assert result.exit_code == 0
    assert "MulBackward0" in result.stdout and "requires_grad" in result.stdout


def test_uncaught_error_exits_1_with_location_caret_and_torch_message(tmp_path: Path):
    script = tmp_path / "bad.gt"
    script.write_text("import torch\nx = torch.tensor([1.0], requires_grad=True)\nx += 1\n")
    result = invoke("run", "-q", str(script))
    assert result.exit_code == 1
    assert f"{script}:3:1: RuntimeError: a leaf Variable that requires grad is being used in " \
           "an in-place operation." in result.stderr
    assert "    x += 1\n    ^^^^^^" in result.stderr
    assert "Traceback" not in result.stderr


def test_syntax_error_exits_1_and_says_what_was_expected(tmp_path: Path):
    script = tmp_path / "syntax.gt"
    script.write_text("x = (1 +\n")
    result = invoke("run", "-q", str(script))
    assert result.exit_code == 1
    assert "SyntaxError" in result.stderr and "Traceback" not in result.stderr


def test_a_script_refused_before_it_runs_gets_its_error_and_no_report(tmp_path: Path):
    for name, text, kind in [("syntax.gt", "x = (1 +\n", "SyntaxError"),
                             ("long.gt", "x = " + " + ".join(["1"] * 300) + "\n",
                              "NotSupportedError")]:
        script = tmp_path / name
        script.write_text(text)
        result = invoke("run", str(script))
        assert result.exit_code == 1
        assert kind in result.stderr
        assert result.stdout == ""  # no "Tensors"/"Graph" sections of a run that never was


def test_missing_file_and_directory_are_usage_errors(tmp_path: Path):
    result = invoke("run", str(tmp_path / "nope.gt"))
    assert result.exit_code == 2 and "no such file" in result.stderr
    result = invoke("run", str(tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.stderr


def test_script_from_stdin():
    result = invoke("run", "-q", "-", input="import torch\nprint(torch.ones(2))\n")
    assert result.exit_code == 0 and result.stdout == "tensor([1., 1.])\n"


def test_non_utf8_script_is_refused_clearly(tmp_path: Path):
    script = tmp_path / "latin1.gt"
    script.write_bytes(b"print('caf\xe9')\n")
    result = invoke("run", str(script))
    assert result.exit_code == 2 and "not UTF-8" in result.stderr


def test_empty_script_runs_and_prints_nothing(tmp_path: Path):
    script = tmp_path / "empty.gt"
    script.write_text("")
    result = invoke("run", "-q", str(script))
    assert result.exit_code == 0 and result.stdout == ""


def test_step_limit_exits_3_and_names_the_option(tmp_path: Path):
    script = tmp_path / "loop.gt"
    script.write_text("while True:\n    pass\n")
    result = invoke("run", "-q", "--max-steps", "1000", str(script))
    assert result.exit_code == 3 and "--max-steps" in result.stderr


def test_commands_leave_no_watchdog_or_memory_cap_in_the_calling_process():
    import resource
    import threading

    before = resource.getrlimit(resource.RLIMIT_DATA)
    invoke("run", "-q", "--timeout", "1", str(SAMPLES / "01_mul_no_grad.gt"))
    assert resource.getrlimit(resource.RLIMIT_DATA) == before
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)
                and t.is_alive()]


def test_timeout_watchdog_runs_while_the_script_runs_and_not_while_its_views_are_made(
        monkeypatch):
    """--timeout bounds the script: one deadline timer lives around the script's run
    only (Interpreter.run), so a slow explanation, drawing or page is never blamed on the
    script."""
    import threading

    from gradtrace.render import drawing, explain, page

    def timers() -> int:
        return sum(isinstance(t, threading.Timer) and t.is_alive()
                   for t in threading.enumerate())

    seen: dict[str, int] = {}

    def spy(name, fn):  # type: ignore[no-untyped-def]
        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen[name] = timers()
            return fn(*args, **kwargs)
        return wrapped

    class Deadline(threading.Timer):  # the interpreter's timer, counted when it starts
        def start(self) -> None:
            super().start()
            seen["script"] = timers()

    monkeypatch.setattr(threading, "Timer", Deadline)
    monkeypatch.setattr(explain, "explain", spy("explain", explain.explain))
    monkeypatch.setattr(drawing, "draw", spy("draw", drawing.draw))
    monkeypatch.setattr(page, "build_page", spy("view", page.build_page))
    script = str(SAMPLES / "03_chain_two_muls.gt")
    for args in (["explain", script], ["graph", "--format", "dot", script],
                 ["view", "-o", "/dev/null", script]):
        seen.clear()
        assert invoke(*args).exit_code == 0
        assert seen.pop("script") == 1, args  # the watchdog ran beside the script
        assert set(seen.values()) == {0}, (args, seen)  # and had stopped before the view


def test_explain_json_that_outgrows_memory_prints_a_document_with_the_limit(tmp_path: Path,
                                                                           monkeypatch):
    # issue 16: a 200,000-node chain's story ran out of memory under `explain --json`,
    # which then printed no JSON at all
    import json

    from gradtrace.render import explain

    calls = []

    def out_of_memory_once(*args, **kwargs):  # (the story; the LimitError's is told)
        calls.append(1)
        if len(calls) == 1:
            raise MemoryError
        return real(*args, **kwargs)

    real = explain.explain
    script = tmp_path / "s.gt"
    script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\n"
                      "(x * 2).sum().backward()\n")
    monkeypatch.setattr(explain, "explain", out_of_memory_once)
    result = invoke("explain", "--json", str(script))
    assert result.exit_code == 3
    document = json.loads(result.stdout)
    assert "too large for the memory left" in json.dumps(document)


def test_warnings_and_tracebacks_name_the_script_by_its_absolute_path_as_python_does(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`python w.gt` shows `/abs/w.gt:3: UserWarning` and `File "/abs/w.gt"` (Python 3.9+
    makes `__main__`'s file absolute); gradtrace's own errors keep the name as given."""
    (tmp_path / "w.gt").write_text(
        "import warnings, traceback\n"
        "try:\n"
        "    int('x')\n"
        "except ValueError:\n"
        "    traceback.print_exc()\n"
        "warnings.warn('careful')\n"
        "print(undefined)\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--quiet", "w.gt"])
    where = str(tmp_path / "w.gt")
    assert f'  File "{where}", line 3, in <module>\n' in result.stderr
    assert f"{where}:6: UserWarning: careful\n  warnings.warn('careful')\n" in result.stderr
    assert "w.gt:7:7: NameError: name 'undefined' is not defined" in result.stderr
    assert f"{where}:7:7" not in result.stderr
