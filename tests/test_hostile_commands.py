"""Every hostile script under every command (issue 16).

Each script in tests/hostile/ (and a FIFO and a /dev/zero link as SCRIPT) runs under
`run`, `run --quiet`, `run --json`, `explain`, `explain --json`, `graph` in each format,
`check` with and without torch, and `view`, with `--timeout 1`. Each command must end
with: no Python traceback, no InternalError, no crash (signal, or a child the supervisor
saw die of one), an exit status the command documents (3 whenever `run` hit a limit),
no process left behind, strict UTF-8 JSON wherever JSON was asked for, and no control
character from the script in what gradtrace itself writes (the script's own stdout
under `run` is what Python would print, so it is left out).

The commands run through tests/hostile_matrix.py, which imports gradtrace once and forks
a child per command, two at a time; `GRADTRACE_MATRIX_WORKERS` sets how many.

All of it (~1,800 commands) takes half an hour on two cores, so by default each script
runs under two commands, chosen in turn down the sorted list so that every command gets
an even share (~20 scripts each; the SCRIPT that is not a file runs under all of them):
about two minutes. `GRADTRACE_MATRIX_ALL=1` runs every script under every command.
(`run` of every script is also tests/test_hostile.py's.)
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HOSTILE = sorted((Path(__file__).parent / "hostile").glob("*.gt"))
TIMEOUT = "1"
DEADLINE = 120.0  # seconds before the harness calls a command hung (the budget is 62 s)
WORKERS = int(os.environ.get("GRADTRACE_MATRIX_WORKERS", "2"))
HAS_DOT = shutil.which("dot") is not None
try:
    import torch  # noqa: F401

    HAS_TORCH = True
except ImportError:
    HAS_TORCH = False

COMMANDS: dict[str, tuple[str, ...]] = {
    "run": ("run",),
    "run-quiet": ("run", "--quiet"),
    "run-json": ("run", "--json"),
    "explain": ("explain",),
    "explain-json": ("explain", "--json"),
    "graph-tree": ("graph", "--format", "tree"),
    "graph-dot": ("graph", "--format", "dot"),
    "graph-mermaid": ("graph", "--format", "mermaid"),
    "graph-json": ("graph", "--format", "json"),
    "graph-svg": ("graph", "--format", "svg"),
    "graph-png": ("graph", "--format", "png", "--output", "g.png"),
    "check-no-torch": ("check", "--torch", "/nonexistent/python"),
    "check": ("check", "--torch", sys.executable),
    "view": ("view",),
}
if not HAS_DOT:
    del COMMANDS["graph-svg"], COMMANDS["graph-png"]
if not HAS_TORCH:
    del COMMANDS["check"]
JSON_COMMANDS = {"run-json", "explain-json", "graph-json"}
# what each command may exit with (check: 0 agree, 1 differ, 2 not run, 3 limit,
# 4 no torch, 5 the torch run failed)
EXITS = {name: {0, 1, 2, 3} for name in COMMANDS}
EXITS["check-no-torch"] = {2, 3, 4}
if "check" in EXITS:
    EXITS["check"] = {0, 1, 2, 3, 5}
EVERYTHING = os.environ.get("GRADTRACE_MATRIX_ALL") == "1"
PER_SCRIPT = 2  # commands per script when sampling
# what gradtrace writes must hold no control character but newline and tab
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
TQDM_REDRAW = re.compile(rb"\r(?=[^\r\n\x1b]*(?:%\||it/s\]|s/it\]))")


def _special_scripts(folder: Path) -> list[Path]:
    """SCRIPTs that are not files: a FIFO (must not block) and a link to /dev/zero."""
    fifo = folder / "fifo.gt"
    os.mkfifo(fifo)
    zero = folder / "dev_zero.gt"
    zero.symlink_to("/dev/zero")
    return [fifo, zero]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict]:
    special = _special_scripts(tmp_path_factory.mktemp("special"))
    jobs = []
    for script, names in _plan(special).items():
        for name in names:
            argv = COMMANDS[name]
            cwd = tmp_path_factory.mktemp(f"{script.stem}-{name}")
            jobs.append({"id": f"{script.name}|{name}", "cwd": str(cwd), "deadline": DEADLINE,
                         "argv": [*argv, "--timeout", TIMEOUT, str(script)]})
    harness = Path(__file__).with_name("hostile_matrix.py")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, str(harness), str(WORKERS)],
                          input="".join(json.dumps(j) + "\n" for j in jobs), env=env,
                          capture_output=True, text=True, check=True)
    results = {}
    by_id = {j["id"]: j for j in jobs}
    for line in done.stdout.splitlines():
        outcome = json.loads(line)
        cwd = Path(by_id[outcome["id"]]["cwd"])
        outcome["exit"] = os.waitstatus_to_exitcode(outcome["status"])
        outcome["stdout"] = (cwd / ".out").read_bytes()
        outcome["stderr"] = (cwd / ".err").read_bytes()
        script, name = outcome["id"].split("|")
        results[(script, name)] = outcome
    assert len(results) == len(jobs), done.stderr[-3000:]
    return results


def _plan(special: list[Path]) -> dict[Path, list[str]]:
    """The commands each SCRIPT runs under: all of them, or (sampling) the next
    PER_SCRIPT in turn, so that neighbouring scripts cover different commands."""
    names = list(COMMANDS)
    plan = {script: names for script in special}
    for i, script in enumerate(HOSTILE):
        chosen = names if EVERYTHING else [
            names[(i * PER_SCRIPT + k) % len(names)] for k in range(PER_SCRIPT)]
        if "run" in chosen and "run-quiet" not in chosen:  # what `run` printed as the script's
            chosen = [*chosen, "run-quiet"]
        plan[script] = chosen
    return plan


SCRIPT_NAMES = [s.name for s in HOSTILE] + ["fifo.gt", "dev_zero.gt"]


@pytest.mark.parametrize("script", SCRIPT_NAMES)
def test_every_command_ends_cleanly(script: str, matrix: dict):
    problems = []
    ran = [name for name in COMMANDS if (script, name) in matrix]
    assert ran, "the script ran under no command"
    for name in ran:
        outcome = matrix[(script, name)]
        problems += [f"{name}: {p}" for p in _problems(script, name, outcome, matrix)]
    assert not problems, "\n".join(problems)


def _problems(script: str, name: str, outcome: dict, matrix: dict) -> list[str]:
    out, err = outcome["stdout"], outcome["stderr"]
    both = out + err
    found = []
    if outcome["hung"]:
        found.append(f"still running after {DEADLINE:g} s")
    if outcome["exit"] not in EXITS[name]:
        found.append(f"exit status {outcome['exit']} ({err[-500:]!r})")
    run = matrix.get((script, "run"))
    # (a time limit is the machine's: under load `run` may pass 1 s where this did not)
    run_exit = None if run is None or b"ran longer than" in run["stderr"] else run["exit"]
    if run_exit == 3 and name not in ("check-no-torch",) and outcome["exit"] != 3:
        found.append(f"run hit a limit but this exited {outcome['exit']} ({err[-300:]!r})")
    if b"Traceback (most recent call last)" in both:
        found.append("a Python traceback: " + err[-800:].decode(errors="replace"))
    if b"InternalError" in both:
        found.append("an InternalError: " + both[-500:].decode(errors="replace"))
    if b"the process ended with SIG" in both:
        found.append("the script's process crashed: " + err[-300:].decode(errors="replace"))
    if outcome["left"]:
        found.append(f"processes left behind: {outcome['left']}")
    if name in JSON_COMMANDS:  # (a SCRIPT that cannot be read too: exit 2 with a document)
        try:
            json.loads(out.decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError) as bad:
            found.append(f"stdout is not strict UTF-8 JSON ({bad}): {out[:200]!r}")
    else:
        # a tqdm bar is the script's own output on stderr, redrawn after a carriage return
        # as the real tqdm draws it: that return is not gradtrace's
        err = TQDM_REDRAW.sub(b"", err)
        shown = err if name in ("run-quiet", "graph-png") else both
        if name == "run":  # the script's own output comes first, as Python prints it
            quiet = matrix[(script, "run-quiet")]["stdout"]
            shown = err + (out[len(quiet):] if out.startswith(quiet) else out)
        bad = CONTROL.search(shown)
        if bad:
            at = bad.start()
            found.append(f"a control character in gradtrace's output: "
                         f"{shown[max(0, at - 60):at + 20]!r}")
    return found


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
