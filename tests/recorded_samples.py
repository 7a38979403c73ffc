"""Scripts whose stdout torch 2.13 recorded beside them (NAME.out, on an AMD CPU, as an AVX2
machine): the one comparison of what gradtrace prints with the recording, and of the
recording with live torch. On a CPU of another vendor MKL runs its own kernels, in torch and
gradtrace alike, so a print that differs from the recording is compared with torch run here."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mkl_skip import OTHER_KERNELS_REASON
from test_conformance import record_conformance, torch_here

from gradtrace.engine import capability

_AT_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def without_addresses(text: str) -> str:
    """A print with its objects' addresses blanked (they differ from run to run)."""
    return _AT_ADDRESS.sub(" at 0x", text)


def assert_prints_recording(script: Path, printed: str) -> None:
    """gradtrace's stdout for SCRIPT is SCRIPT.out, or torch's here on another vendor's CPU."""
    got = without_addresses(printed)
    expected = without_addresses(script.with_suffix(".out").read_text())
    if got != expected and record_conformance.other_mkl_kernels():
        here, _ = torch_here(script, capability.CAPABILITY)
        assert record_conformance.ADDR.sub("0x?", printed) == here
    else:
        assert got == expected


def assert_recording_is_live_torch(script: Path) -> None:
    """SCRIPT.out is still what torch 2.13 prints, run as it was recorded; on another vendor's
    CPU a difference is MKL's other kernels (the prints test compares with torch there)."""
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")
    live = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True, env=record_conformance.torch_environment("avx2")).stdout
    recorded = script.with_suffix(".out").read_text()
    if without_addresses(live) != without_addresses(recorded) \
            and record_conformance.other_mkl_kernels():
        pytest.skip(OTHER_KERNELS_REASON)
    assert without_addresses(live) == without_addresses(recorded)
