"""Torch parity: every conformance case and every sample prints what PyTorch 2.13 printed.

The `.out` files were recorded with python + torch 2.13.0 (addresses written `0x?`);
a `.err` file holds the uncaught exception's last traceback line.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from gradtrace.engine import capability, onednn
from gradtrace.interpreter import Limits
from gradtrace.runner import load_source, run_source

HERE = Path(__file__).parent
CASES = sorted((HERE / "conformance").glob("*.gt"))
SAMPLES = sorted((HERE.parent / "samples").glob("*.gt"))
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


# parity, not speed: a case may take longer than --timeout's default on a loaded machine
CASE_LIMITS = Limits(timeout=600)


def run_case(script: Path):
    result = run_source(load_source(str(script)), limits=CASE_LIMITS)
    return ADDRESS.sub("0x?", result.stdout), result.error


def use_capability(monkeypatch: pytest.MonkeyPatch, recorded: str) -> None:
    """Run as torch ran when the output was recorded: ATEN_CPU_CAPABILITY for anything that
    detects it again, and the module attribute the kernels read. The AVX-512 recordings
    come from an AMD EPYC with AVX-512: oneDNN ran its AVX-512 kernels, MKL its AVX2 ones."""
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", recorded)
    monkeypatch.setattr(capability, "CAPABILITY", recorded)
    if recorded == "avx512":
        monkeypatch.setattr(onednn, "AVX512_CORE", True)
        monkeypatch.setattr(capability, "BLAS_PLATFORM", "mkl-avx2")


sys.path.insert(0, str(HERE / "tools"))
import record_conformance  # noqa: E402 (tests/tools: torch's side of the corpora)


def assert_matches_torch(case: Path, recorded: str = "",
                         vendor: str = record_conformance.RECORDED_CPU_VENDOR) -> None:
    """stdout equals NAME.out; the uncaught error equals NAME.err (or there is none).
    `recorded` names another recording of the same case: NAME.<recorded>.out/.err. On a CPU
    of another vendor than the recording's, whose MKL runs other kernels, a case that differs
    from its recording is compared with torch run here (record_conformance.torch_here)."""
    stdout, error = run_case(case)
    stdout = record_conformance.as_recorded(stdout)
    suffix = f".{recorded}" if recorded else ""
    expected = case.with_suffix(f"{suffix}.out").read_text()
    err_file = case.with_suffix(f"{suffix}.err")
    expected_error = err_file.read_text().strip() if err_file.exists() else None
    uncaught = None if error is None else \
        f"{error.printed_kind}: {error.uncaught_message}".strip()
    if (stdout, uncaught) != (expected, expected_error) and \
            record_conformance.other_mkl_kernels(vendor):
        expected, expected_error = torch_here(case, recorded or capability.CAPABILITY)
    assert stdout == expected
    if expected_error is not None:
        assert error is not None, "torch raised, gradtrace did not"
        assert uncaught == expected_error
    else:
        assert error is None, error.format()


def torch_here(case: Path, recorded_capability: str) -> tuple[str, str | None]:
    """torch on this machine (record_conformance.torch_here), or a skip without torch."""
    measured = record_conformance.torch_here(case, recorded_capability)
    if measured is None:
        pytest.skip("recorded on an AMD CPU, whose MKL kernels this CPU does not run, and "
                    "torch is not installed to measure it here")
    return measured
