"""Scripts of the 3-D, sampling and lazy layers (tests/data/layers3d): gradtrace prints
what torch 2.13 printed for each (recorded under ATEN_CPU_CAPABILITY=avx2), reprs, node
names, values to the last bit; and the recordings still agree with live torch."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradtrace.runner import run_text

SCRIPTS = Path(__file__).parent / "data" / "layers3d"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.gt"))


def _without_addresses(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", " at 0x", text)


@pytest.mark.parametrize("name", NAMES)
def test_script_prints_what_torch_printed(name: str) -> None:
    script = SCRIPTS / f"{name}.gt"
    out = io.StringIO()
    run_text(script.read_text(), str(script), stdout=out)
    expected = (SCRIPTS / f"{name}.out").read_text()
    assert _without_addresses(out.getvalue()) == _without_addresses(expected)


@pytest.mark.parametrize("name", NAMES)
def test_recording_agrees_with_live_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    assert torch.__version__.startswith("2.13")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2"}
    live = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.gt")], capture_output=True,
                          text=True, check=True, env=env).stdout
    assert _without_addresses(live) == _without_addresses(
        (SCRIPTS / f"{name}.out").read_text())
