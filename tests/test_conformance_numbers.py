"""Torch's exact numbers in training loops (issue 13): linear and logistic regression, a
tanh MLP and softmax cross-entropy, with seeded torch.randn data and weights, printing
loss.item() at every step.

Each `tests/conformance_numbers/NAME.gt` was run under python + torch 2.13.0 once per CPU
capability; `NAME.<capability>.out` holds what it printed with ATEN_CPU_CAPABILITY set to
that capability (`NAME.<capability>.err` the uncaught error, if any). Each recording is
compared under its own capability: the float32 kernels torch picks (vector width, SLEEF or
scalar libm) change the last digits, and the recordings show it. Re-record with
`tests/tools/record_conformance.py --capability CAP --runs 2 --name-by-capability
tests/conformance_numbers`.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from test_conformance import assert_matches_torch, use_capability

HERE = Path(__file__).parent / "conformance_numbers"
CASES = sorted(HERE.glob("*.gt"))
RECORDINGS = sorted((case, out.suffixes[-2][1:]) for case in CASES
                    for out in HERE.glob(f"{case.stem}.*.out"))


@pytest.mark.parametrize(("case", "recorded"), RECORDINGS,
                         ids=[f"{c.stem}[{cap}]" for c, cap in RECORDINGS])
def test_training_loop_prints_torchs_numbers_under_its_capability(case: Path, recorded: str,
                                                                   monkeypatch):
    use_capability(monkeypatch, recorded)
    assert_matches_torch(case, recorded)


def test_every_training_loop_is_recorded_under_avx2_avx512_and_default():
    assert len(CASES) == 4
    for case in CASES:
        assert {cap for c, cap in RECORDINGS if c == case} == {"avx2", "avx512", "default"}, \
            case.name
