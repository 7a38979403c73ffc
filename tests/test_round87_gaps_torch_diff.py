"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 87
(differentiable algorithms in plain torch) found:

- torch.where of a uint8 condition was refused; torch converts it to bool after a
  TORCH_WARN_ONCE ("where received a uint8 condition tensor. This behavior is deprecated
  ..."), as pytorch-crf's forward algorithm does with its default uint8 mask. Other
  non-bool conditions stay torch's RuntimeError.
- `from timeit import default_timer` was refused (timeit was an import-only module):
  default_timer is now time.perf_counter itself, as in Python (Maghoumi's soft-DTW timed_run).

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

WHERE_UINT8 = [
    "m = torch.tensor([1, 0, 2, 0], dtype=torch.uint8)\n"
    "x = torch.arange(4.0, requires_grad=True)\n"
    "y = torch.where(m, x * 2, -x)\nprint(y, y.grad_fn.name())\n"
    "y.sum().backward()\nprint(x.grad, y.grad_fn._saved_condition)",
    "m = torch.tensor([[1], [0]], dtype=torch.uint8)\n"
    "a = torch.randn(2, 3, requires_grad=True)\nb = torch.randn(3, requires_grad=True)\n"
    "y = torch.where(m, a, b)\n(y * torch.arange(6.).view(2, 3)).sum().backward()\n"
    "print(y, a.grad, b.grad)",
    "m = torch.tensor([1, 0, 1], dtype=torch.uint8)\nprint(torch.where(m, 1.5, 0))",
    "m = torch.tensor([1, 0, 1], dtype=torch.uint8)\n"
    "print(torch.ones(3).where(m, torch.zeros(3)))",
    "m = torch.tensor([1, 0, 1], dtype=torch.uint8)\nprint(torch.where(m))",
    "m = torch.tensor([1, 0, 1], dtype=torch.int8)\n"
    "print(torch.where(m, torch.ones(3), torch.zeros(3)))",
    "m = torch.tensor([1, 0, 1])\nprint(torch.where(m, torch.ones(3), torch.zeros(3)))",
    "m = torch.tensor([1., 0., 1.])\nprint(torch.where(m, torch.ones(3), torch.zeros(3)))",
]


@pytest.mark.parametrize("code", WHERE_UINT8)
def test_where_uint8_condition_matches_torch(code: str) -> None:
    script = "import torch\ntorch.manual_seed(0)\n" + code + "\n"
    assert gradtrace_output(script) == torch_output(script)


WARN_ONCE = """import torch
m = torch.tensor([1, 0, 1], dtype=torch.uint8)
x = torch.ones(3, requires_grad=True)
for i in range(2):
    y = torch.where(m, x, -x)
y.sum().backward()
print(torch.where(m, 2.0, 3.0), x.grad)
"""


def test_where_uint8_warns_once_as_torch(tmp_path: Path) -> None:
    torch_run, result, err = file_runs(WARN_ONCE, tmp_path, "whereu8", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert err.replace("whereu8.gt", str(tmp_path / "whereu8.py")) == torch_run.stderr
    assert torch_run.stderr.count("UserWarning") == 1


TIMEIT = """import time
import timeit
from timeit import default_timer as timer
t0 = timer()
print(timer is time.perf_counter, timeit.default_timer is time.perf_counter)
print(type(timer() - t0).__name__, timer() >= t0, timer.__name__)
"""


def test_timeit_default_timer_is_perf_counter() -> None:
    """`from timeit import default_timer as timer` (soft-DTW's timed_run): Python's
    time.perf_counter itself; timeit.timeit (running a code string) stays refused."""
    assert gradtrace_output(TIMEIT) == torch_output(TIMEIT)
    out = gradtrace_output("import timeit\ntimeit.timeit('1+1')\n")
    assert out.startswith("NotSupportedError") and "timeit.timeit" in out
