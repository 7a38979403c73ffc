"""Scripts of the 3-D, sampling and lazy layers (tests/data/layers3d): gradtrace prints
what torch 2.13 printed for each (recorded under ATEN_CPU_CAPABILITY=avx2), reprs, node
names, values to the last bit; and the recordings still agree with live torch."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from recorded_samples import assert_prints_recording, assert_recording_is_live_torch

from gradtrace.runner import run_text

SCRIPTS = Path(__file__).parent / "data" / "layers3d"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.gt"))


@pytest.mark.parametrize("name", NAMES)
def test_script_prints_what_torch_printed(name: str) -> None:
    script = SCRIPTS / f"{name}.gt"
    out = io.StringIO()
    run_text(script.read_text(), str(script), stdout=out)
    assert_prints_recording(script, out.getvalue())


@pytest.mark.parametrize("name", NAMES)
def test_recording_agrees_with_live_torch(name: str) -> None:
    assert_recording_is_live_torch(SCRIPTS / f"{name}.gt")
