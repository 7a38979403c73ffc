"""Hostile and malformed scripts: each ends quickly, in bounded memory, with a message.

Every script in tests/hostile/ runs as `python -m gradtrace run --timeout 5` in an
empty folder. It must exit non-zero within 15 s, peak under 1.5 GiB, print a
gradtrace message (no Python traceback) and leave no file behind.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HOSTILE = sorted((Path(__file__).parent / "hostile").glob("*.gt"))
TIMEOUT = 5
LIMIT_SECONDS = 15
LIMIT_RSS = 1536 << 20


def run_hostile(script: Path, workdir: Path) -> dict:
    start = time.monotonic()
    with open(workdir / ".out", "wb") as out, open(workdir / ".err", "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gradtrace", "run", "--timeout", str(TIMEOUT), str(script)],
            cwd=workdir, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            proc.returncode = 0  # reaped above
    elapsed = time.monotonic() - start
    return {
        "exit": os.waitstatus_to_exitcode(status),
        "seconds": elapsed,
        "rss": usage.ru_maxrss * 1024,
        "stderr": (workdir / ".err").read_text(errors="replace"),
        "left": sorted(p.name for p in workdir.iterdir() if p.name not in (".out", ".err")),
    }


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Run all hostile scripts, two at a time (the machine has two cores)."""
    def one(script: Path) -> tuple[str, dict]:
        workdir = tmp_path_factory.mktemp(script.stem)
        return script.name, run_hostile(script, workdir)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, HOSTILE))


@pytest.mark.parametrize("script", HOSTILE, ids=[s.stem for s in HOSTILE])
def test_hostile_script_fails_cleanly_and_quickly(script: Path, outcomes: dict[str, dict]):
    outcome = outcomes[script.name]
    assert outcome["exit"] in (1, 2, 3), outcome
    assert outcome["seconds"] < LIMIT_SECONDS, outcome
    assert outcome["rss"] < LIMIT_RSS, outcome
    assert "Traceback" not in outcome["stderr"], outcome["stderr"]
    assert "InternalError" not in outcome["stderr"], outcome["stderr"]
    assert outcome["stderr"].strip(), "no message"
    assert outcome["left"] == [], outcome["left"]


@pytest.mark.parametrize("name, kind", [
    ("huge_alloc.gt", "LimitError"), ("huge_broadcast.gt", "LimitError"),
    ("endless_loop.gt", "LimitError"), ("huge_power.gt", "LimitError"),
    ("infinite_recursion.gt", "RecursionError"), ("file_open.gt", "NotSupportedError"),
    ("import_os.gt", "NotSupportedError"), ("dunder_tensor.gt", "NotSupportedError"),
    ("dunder_format.gt", "NotSupportedError"), ("deep_parens.gt", "SyntaxError"),
    ("anomaly_metadata_dunder.gt", "NotSupportedError"),
    ("once_differentiable_unwrap.gt", "NotSupportedError"),
    ("detect_anomaly_enter.gt", "NotSupportedError"), ("jacobian_huge.gt", "LimitError"),
    ("gradcheck_huge.gt", "LimitError"),
])
def test_hostile_script_reports_the_right_kind(name: str, kind: str, outcomes: dict[str, dict]):
    assert f"{kind}:" in outcomes[name]["stderr"]


def test_limit_errors_exit_3_and_name_the_option(outcomes: dict[str, dict]):
    outcome = outcomes["huge_alloc.gt"]
    assert outcome["exit"] == 3 and "--max-elements" in outcome["stderr"]
    outcome = outcomes["endless_loop.gt"]
    assert outcome["exit"] == 3 and ("--timeout" in outcome["stderr"]
                                     or "--max-steps" in outcome["stderr"])
