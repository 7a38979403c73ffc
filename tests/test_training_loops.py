"""Training loops print torch's numbers to the last digit under the capability they were
recorded with (issue 13): functional MLPs, layer/batch/group norm, convolutions, an RNN
cell, embeddings, SGD with momentum and Adam written out, seeded data and initialisation.

Each `tests/training_loops/NAME.gt` was run under python + torch 2.13.0 with
ATEN_CPU_CAPABILITY set to avx2 and to default; `NAME.<capability>.out` holds what it
printed (`tests/tools/record_conformance.py --capability CAP --runs 2
--name-by-capability tests/training_loops`). Each must print exactly that, and its run
must note no inexact kernel (engine/exactness.py: what `gradtrace check` labels
"rounding").
"""
from __future__ import annotations

from pathlib import Path

import pytest
from test_conformance import ADDRESS, record_conformance, torch_here, use_capability

from gradtrace.runner import load_source, run_source

HERE = Path(__file__).parent / "training_loops"
CASES = sorted(HERE.glob("*.gt"))
RECORDINGS = sorted((case, out.suffixes[-2][1:]) for case in CASES
                    for out in HERE.glob(f"{case.stem}.*.out"))


@pytest.mark.parametrize(("case", "recorded"), RECORDINGS,
                         ids=[f"{c.stem}[{cap}]" for c, cap in RECORDINGS])
def test_training_loop_prints_torchs_numbers_under_its_capability(case: Path, recorded: str,
                                                                   monkeypatch):
    use_capability(monkeypatch, recorded)
    result = run_source(load_source(str(case)))
    assert result.error is None, result.error.format()
    stdout = ADDRESS.sub("0x?", result.stdout)
    want = case.with_suffix(f".{recorded}.out").read_text()
    if stdout != want and record_conformance.other_mkl_kernels():
        want, error = torch_here(case, recorded)  # (recorded on AMD: torch run here)
        assert error is None, error
    assert stdout == want
    assert result.inexact == ()  # and gradtrace knows it: no kernel noted as inexact


def test_every_training_loop_is_recorded_under_avx2_and_default():
    assert len(CASES) >= 9
    for case in CASES:
        assert {cap for c, cap in RECORDINGS if c == case} == {"avx2", "default"}, case.name
