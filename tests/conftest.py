"""Suite-wide pytest set-up: a line saying whether the live-torch tests can run.

It is the session header's last line, and, when torch is missing, also the last line of
the summary (`pytest -q` prints no header), next to the count of skipped tests.
"""
from __future__ import annotations

import importlib.util
import os
from typing import Any

# The recorded outputs (conformance corpora, samples, bit tables) were made by torch on an
# AVX2 machine (or with ATEN_CPU_CAPABILITY=avx2 and oneDNN capped at AVX2,
# tests/tools/record_conformance.py), so the suite runs gradtrace, and the live torch it
# compares with, as on such a machine, whatever this CPU has. Set before gradtrace is
# imported (engine/capability.py and engine/onednn.py read them once) and inherited by
# every child process. Tests of the other capabilities set them themselves.
os.environ["ATEN_CPU_CAPABILITY"] = "avx2"
os.environ["ONEDNN_MAX_CPU_ISA"] = "AVX2"
# One test worker per core: MKL's OpenMP threads sleep as soon as a product ends, instead of
# spinning for the millisecond gradtrace gives them by default (engine/mkl.py), which would
# take the core the other worker runs on. The bits do not depend on it.
os.environ.setdefault("KMP_BLOCKTIME", "0")

# gradtrace imports numpy without its AVX-512 loops (see gradtrace/__init__.py); the test
# modules import numpy themselves, so gradtrace must come first.
import gradtrace  # noqa: E402, F401


def torch_line() -> str:
    """One header line: where torch was found, or why the differential tests skip.

    Looks where those tests look: this Python, GRADTRACE_TORCH_PYTHON, then python3.
    """
    if importlib.util.find_spec("torch") is not None:
        return "torch: found in this Python; the differential tests against live torch run"
    from gradtrace.check import find_torch_python

    given = os.environ.get("GRADTRACE_TORCH_PYTHON")
    found = find_torch_python(given) if given else find_torch_python()
    if found is not None:
        return f"torch: found in {found}; the differential tests against live torch run"
    where = given or "this Python or in python3"
    return (f"torch: not found in {where}, so the differential tests against live torch "
            "are skipped (pip install torch==2.13.0, or set GRADTRACE_TORCH_PYTHON to a "
            "Python that has it)")


_LINE: list[str] = []


def _line() -> str:
    if not _LINE:
        _LINE.append(torch_line())
    return _LINE[0]


def pytest_report_header(config: Any) -> list[str]:
    return [_line()]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    line = _line()
    if line.startswith("torch: not found"):
        terminalreporter.write_line(line)
