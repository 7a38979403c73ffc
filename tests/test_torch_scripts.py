"""Scripts whose output torch 2.13 recorded (tests/data/torch_scripts/<topic>/NAME.gt, its
stdout in NAME.torch.out, from torch 2.13.0+cpu on an avx2 machine): gradtrace prints
the same, and writes no file."""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtrace.runner import run_text

SCRIPTS = sorted((Path(__file__).parent / "data" / "torch_scripts").glob("*/*.gt"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[f"{s.parent.name}/{s.stem}" for s in SCRIPTS])
def test_the_script_prints_what_torch_printed(script: Path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_text(script.read_text(), script.name)
    assert result.error is None, result.error
    assert result.stdout == script.with_suffix(".torch.out").read_text()
    assert list(tmp_path.iterdir()) == []  # (torch.save keeps its files in memory)
