"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 84
(audio signal processing in plain torch: auraloss's RandomResolutionSTFTLoss draws its
window by name from hann/bartlett/blackman/hamming/kaiser) found:

- torch.kaiser_window was missing: ATen's kaiser_window_kernel, element by element in
  opmath (float for float16), i0(beta sqrt|1 - x*x|) / i0(beta) with
  x = (n - alpha) / alpha and GCC's fma for 1 - x*x; bit for bit in float32, float64 and
  float16 (bfloat16 stays refused, as for the other windows).
- torch.i0 of float64 (calc_i0's std::exp) used numpy's exp, which differs from glibc's
  exp in the last bit for about 5% of values; it now calls glibc's.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

KAISER = """import torch
for dtype in (torch.float32, torch.float64, torch.float16):
    for n in (0, 1, 2, 5, 16, 33):
        for periodic in (True, False):
            for beta in (12.0, 0.5, 8.6, 30.0):
                w = torch.kaiser_window(n, periodic, beta, dtype=dtype)
                print(dtype, n, periodic, beta, w.shape, w.double().tolist())
print(torch.kaiser_window(6))
print(torch.kaiser_window(6, periodic=False, beta=5.0, requires_grad=True))
print(torch.kaiser_window(9, False).sum(), torch.kaiser_window(9, True, 100.0, dtype=torch.float16))
try:
    torch.kaiser_window(4, dtype=torch.int64)
except RuntimeError as e:
    print(e)
try:
    torch.kaiser_window(-1)
except RuntimeError as e:
    print(e)
"""

I0_DOUBLE = """import torch
x = torch.linspace(-40, 40, 2001, dtype=torch.float64)
print(torch.i0(x).tolist())
s = torch.tensor([0.0, 8.0, 700.0, 720.0, float('nan'), float('inf')], dtype=torch.float64)
print(torch.i0(s))
"""


@pytest.mark.parametrize("code", [KAISER, I0_DOUBLE], ids=["kaiser_window", "i0_float64"])
def test_matches_torch(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from gradtrace.engine import capability
    monkeypatch.setattr(capability, "CAPABILITY", torch.backends.cpu.get_cpu_capability().lower())
    assert gradtrace_output(code) == torch_output(code)
