"""More torch parity cases: hooks (printing during backward), node hooks, autograd.grad with
create_graph (2nd and 3rd derivatives), def/lambda, f-strings, comprehensions, printing
shapes, in-place ops on views, errors, losses and small training loops.

Every `tests/conformance_extra/NAME.gt` ran under python + torch 2.13.0; `NAME.out` holds what
it printed (addresses written `0x?`) and `NAME.err`, when present, the uncaught exception's last
traceback line.  Re-record with `tests/tools/record_conformance.py` under a Python with torch.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradtrace.runner import load_source, run_source

HERE = Path(__file__).parent
CASES = sorted((HERE / "conformance_extra").glob("*.gt"))
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

# Cases where gradtrace still prints something else than torch; reported, not hidden.
KNOWN_DIFFERENCES = {
    "exp_log_items": "float32 log/pow/gelu: torch's SLEEF and GELU kernels are not correctly "
                     "rounded for some inputs (log(1.5) is 0.40546512603759766 in torch, the "
                     "correctly rounded 0.40546509623527527 here); full-precision .item() "
                     "shows it, and gelu(3.0) prints 2.9959 in torch, 2.9960 here",
}


def run_case(script: Path):
    result = run_source(load_source(str(script)))
    return ADDRESS.sub("0x?", result.stdout), result.error


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_extra_case_prints_what_torch_printed(case: Path, request):
    if case.stem in KNOWN_DIFFERENCES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case.stem], strict=True))
    stdout, error = run_case(case)
    assert stdout == case.with_suffix(".out").read_text()
    err_file = case.with_suffix(".err")
    if err_file.exists():
        assert error is not None, "torch raised, gradtrace did not"
        assert f"{error.kind}: {error.message}" == err_file.read_text().strip()
    else:
        assert error is None, error.format()


def test_extra_corpus_is_recorded():
    assert len(CASES) >= 40
    for case in CASES:
        assert case.with_suffix(".out").exists(), f"{case.name} has no recorded torch output"
