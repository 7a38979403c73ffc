"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round
100 (time-series forecasting and anomaly detection) found: `torch.pow(number, tensor)`
(and `number ** tensor`) allocates its output C-contiguous whatever the exponent's strides
and runs pow's loop in that order, so a transposed exponent gives a contiguous result and
std::pow (not the vector pow) for every element whose inner loop is strided. The Anomaly
Transformer's prior `torch.pow(3, sigmoid(sigma.transpose(1, 2) * 5) + 1e-5) - 1` differed
from torch in the last bit of some elements.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SCALAR_BASE_POW = """import torch
torch.manual_seed(0)
x = torch.rand(4, 10, 2) * 2
for t in (x, x.transpose(1, 2), x.permute(2, 0, 1), x[:, ::2], x.transpose(1, 2) + 0):
    for r in (torch.pow(3, t), 3 ** t, torch.pow(2.5, t), torch.pow(1, t), 3.0 ** t.double(),
              torch.pow(3, t.half()), torch.pow(torch.tensor(3.0), t)):
        print(r.stride(), r.dtype, r.flatten().tolist())
i = torch.arange(12).view(3, 4).t()
print(torch.pow(2, i).stride(), torch.pow(2, i), (2 ** i).stride())
print(torch.pow(2, torch.tensor(0.5)), torch.pow(2.0, x[0].t()).is_contiguous())
c = torch.randn(3, 2, dtype=torch.complex64).t()
print(torch.pow(2, c).stride())
w = x.transpose(1, 2).clone().transpose(1, 2).requires_grad_()
y = torch.pow(3, w.transpose(1, 2))
print(y.stride(), y.grad_fn.name())
y.sin().sum().backward()
print(w.grad.stride(), w.grad.flatten().tolist())
"""


def test_pow_with_a_number_base_has_a_contiguous_output_and_loop() -> None:
    """torch.pow(number, t) and number ** t: C-contiguous results for transposed, permuted
    and sliced exponents (float32, float64, float16, int64, complex64), each element
    computed as torch's loop over that layout computes it (vector pow on contiguous inner
    loops, std::pow elsewhere), and the gradient through it; a tensor base keeps the
    exponent's layout."""
    assert gradtrace_output(SCALAR_BASE_POW) == torch_output(SCALAR_BASE_POW)
