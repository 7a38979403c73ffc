"""torch.set_flush_denormal (engine/settings.py) sets the CPU's FTZ and DAZ bits as torch
does, so every float operation of the run treats subnormals as zero, numpy's and Python's
own included; compared with python + torch 2.13 in a child process (the bits are the
thread's: a torch script that stops midway must not leave them set in the test process).
Each run ends with them off. Skipped unless torch is importable."""
from __future__ import annotations

import platform

import pytest
from script_runs import gradtrace_output, torch_outputs_in_child

from gradtrace.runner import run_text

pytestmark = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                                reason="the FTZ/DAZ bits are x86-64's")

FLUSHING = """import math
import numpy as np
import torch
def attempt(fn):
    try:
        return fn()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
print(torch.set_flush_denormal(True))
x = 2.0 ** -1060
print(x, x * 1.0, float("1e-310"), math.ldexp(1.0, -1060))
print(np.float32(1e-39), np.array([1e-39], np.float32) * 1, np.array([1e-310]) + 0)
print(torch.tensor([1e-39]), torch.tensor([1e-30]) * torch.tensor([1e-9]), torch.full((1,), 1e-39))
print(torch.tensor([-1e-39]), torch.tensor([1e-39], dtype=torch.float64).tolist())
print(torch.tensor([1e-39], dtype=torch.float64).float(), torch.tensor([1e-6], dtype=torch.float16))
print(torch.tensor([1e-39], dtype=torch.bfloat16), torch.ones(1) * 1e-39)
print(torch.set_flush_denormal(False), torch.tensor([1e-39]) * 1.0)
for arg in ("yes", None, 1, 1.0):
    print(attempt(lambda: torch.set_flush_denormal(arg)))
print(attempt(lambda: torch.set_flush_denormal(mode=True)))
print(attempt(lambda: torch.set_flush_denormal()))
print(attempt(lambda: torch.set_flush_denormal(True, False)))
"""


def test_flushed_subnormals_read_and_print_as_torch_and_numpy_do():
    pytest.importorskip("torch")
    torch_stdout, error = torch_outputs_in_child({"flush": FLUSHING})["flush"]
    assert not error
    assert gradtrace_output(FLUSHING) == torch_stdout


def test_a_run_that_leaves_flushing_on_ends_with_it_off():
    result = run_text("import torch\ntorch.set_flush_denormal(True)\nraise ValueError('x')\n")
    assert result.error is not None and result.error.kind == "ValueError"
    tiny = 2.0 ** -1060
    assert tiny * 1.0 != 0.0
