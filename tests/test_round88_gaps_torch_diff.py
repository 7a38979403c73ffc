"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 88
(lucidrains-style architectures in plain torch) found:

- `x.T` on a tensor that is not 2-D (FNet's `torch.fft.fft(x).T`), and `.T`, `.mT`, `.mH`,
  `.adjoint()` and `.H` on a 0-D tensor, are TORCH_WARN_ONCEs: torch warns once per run,
  from the first line that triggers each; gradtrace warned once per script line.
- float32 gelu's backward off oneDNN's path (a strided input such as a GEGLU gate, a chunk
  of the last dimension) is GeluBackwardKernel's; see tests/test_kernels_torch_diff.py
  (test_float32_gelu_backward_matches_torch_in_every_layout) and the script below.

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

WARN_ONCE = """import torch
a = torch.tensor(1.5)
b = torch.zeros(2, 3, 4)
for i in range(2):
    print(a.T.shape, b.T.shape)
print(b.T.shape, a.T)
for i in range(2):
    print(a.mT, a.mH, a.adjoint(), a.H)
print(a.mT, a.mH, a.adjoint(), a.H, torch.ones(2, 3).T.shape)
"""


def test_transpose_deprecations_warn_once_as_torch(tmp_path: Path) -> None:
    torch_run, result, err = file_runs(WARN_ONCE, tmp_path, "tonce", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert err.replace("tonce.gt", str(tmp_path / "tonce.py")) == torch_run.stderr
    assert torch_run.stderr.count("UserWarning") == 6


GEGLU = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
h = torch.randn(2, 4, 64, requires_grad=True)
a, b = h.chunk(2, dim=-1)
w = a * F.gelu(b)
w.backward(torch.randn(2, 4, 32))
torch.set_printoptions(precision=10)
print(h.grad[..., 32:].double().sum().item(), h.grad[0, 0, 32:40])
x = torch.randn(5, 7)
x.requires_grad_()
F.gelu(x.t()).sum().backward()
print(x.grad.double().sum().item())
s = torch.randn(1, requires_grad=True)
F.gelu(s).backward()
print(s.grad.item())
"""


def test_gelu_backward_of_strided_inputs_matches_torch() -> None:
    assert gradtrace_output(GEGLU) == torch_output(GEGLU)
