"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 79
(classic NLP pipelines: WeNet's hand-written LabelSmoothingLoss) found:

- the last-dim softmax and log_softmax backward sum a row of gradients with vec::reduce_all
  (or map2_reduce_all), whose lane loop starts from the row's first element, not from
  +0.0: a row of -0.0 gradients (kl_div's `-target * grad` behind a masked_fill of padded
  tokens) sums to -0.0, so torch's `g - exp(y) * sum` and `(g - sum) * y` give +0.0 where
  gradtrace gave -0.0 (printed `-0.0000`); rows shorter than a vector, double rows and the
  default build's lane sums start from the first element too. Along another dim torch
  accumulates from zero (-0.0 stays), as before.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

NEGATIVE_ZERO_ROWS = """import torch
torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    for n in (1, 3, 6, 8, 9, 17):
        x = torch.randn(3, n, dtype=dtype, requires_grad=True)
        g = torch.full((3, n), -0.0, dtype=dtype)
        g[1, 0] = 0.0
        g[2, -1] = 0.5
        for f in (torch.log_softmax, torch.softmax):
            x.grad = None
            f(x, -1).backward(g)
            print(dtype, n, f.__name__, x.grad.signbit().tolist(), x.grad[2])
            x.grad = None
            f(x, 0).backward(g)
            print("dim 0", x.grad.signbit().tolist())
y = torch.randn(2, 3, 4, requires_grad=True)
torch.log_softmax(y, 1).backward(torch.full((2, 3, 4), -0.0))
print(y.grad.signbit().all().item())
logits = torch.randn(2, 4, 6, requires_grad=True)
target = torch.tensor([[1, 5, 2, -1], [0, 3, -1, -1]])
ignore = target.view(-1) == -1
index = target.view(-1).masked_fill(ignore, 0)[:, None]
true_dist = torch.full((8, 6), 0.02).scatter_(1, index, 0.9)
kl = torch.nn.KLDivLoss(reduction="none")(torch.log_softmax(logits.view(-1, 6), dim=1), true_dist)
(kl.masked_fill(ignore.unsqueeze(1), 0).sum() / 2).backward()
print(logits.grad)
"""


def test_softmax_backward_of_negative_zero_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradtrace.engine import capability
    monkeypatch.setattr(capability, "CAPABILITY", torch.backends.cpu.get_cpu_capability().lower())
    assert gradtrace_output(NEGATIVE_ZERO_ROWS) == torch_output(NEGATIVE_ZERO_ROWS)
