"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 81
(statistics and quantitative finance in plain torch: Nipun Batra's MLE of a Normal and a
MultivariateNormal) found:

- `torch.functional.F`: torch/functional.py's `import torch.nn.functional as F`, which blog
  code reaches F through (`torch.functional.F.softplus(scale)`); gradtrace refused the name.
- a view made with grad mode on, of a base that requires grad, whose base (or the view
  itself) is then written in place with grad mode off (an optimizer's step on the
  parameter a distribution's `loc = loc.expand(...)` views): torch regenerates the view's
  grad_fn as AsStridedBackward0 over the base's history once the shared version moved on,
  and a later graph through the view runs that node; gradtrace kept the view's first node
  (ExpandBackward0, SliceBackward0, ...). Views made with grad mode off keep their own
  error, and `.data` writes (another version counter) change nothing, as before.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

TORCH_FUNCTIONAL_F = """import torch
print(torch.functional.F is torch.nn.functional)
scale = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = torch.functional.F.softplus(scale)
y.sum().backward()
print(y, scale.grad)
from torch.functional import F
print(F.relu(torch.tensor([-1.0, 2.0])))
"""

VIEWS_AFTER_UNTRACKED_WRITES = """import torch
def n(*ts):
    return [t.grad_fn.name() if t.grad_fn is not None else None for t in ts]
torch.manual_seed(0)
a = torch.tensor([1.0, 2.0], requires_grad=True)
e = a.expand(3, 2)
s = a[0:1]
t = a.view(2, 1)
print(n(e, s, t))
with torch.no_grad():
    a.add_(1)
print(n(e, s, t))
print(e)
(e * torch.arange(6.0).view(3, 2)).sum().backward()
print(a.grad, [(f.name(), i) for f, i in e.grad_fn.next_functions])
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
wv = w[1:]
with torch.no_grad():
    wv.mul_(2)
print(n(wv, w), w)
b = torch.randn(2, 3, requires_grad=True)
bt = b.transpose(0, 1)
bu = b.unsqueeze(0)
opt = torch.optim.Adam([b], lr=0.1)
for _ in range(2):
    opt.zero_grad()
    (bt.sum() + (bu ** 2).sum()).backward()
    opt.step()
    print(n(bt, bu), b.grad)
c = torch.tensor([1.0, 2.0], requires_grad=True)
cv = c[0:1]
c.data.add_(1)
print(n(cv))
d = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    dv = d[0:1]
    d.add_(1)
    print(dv.requires_grad)
m = torch.tensor([1.0, 2.0])
mv = m[0:1]
m.add_(1)
print(n(mv))
loc = torch.tensor([-1.0, 0.5], requires_grad=True)
tril = torch.tril(torch.ones(2, 2)).requires_grad_()
opt = torch.optim.Adam([loc, tril], lr=0.1)
samples = torch.tensor([[0.1, 0.2], [0.3, -0.4], [-0.5, 0.6]])
for i in range(2):
    mvn = torch.distributions.MultivariateNormal(loc=loc, covariance_matrix=tril @ tril.t())
    loss = -mvn.log_prob(samples).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
print((mvn.loc, mvn.covariance_matrix))
"""


def test_torch_functional_f_is_nn_functional() -> None:
    assert gradtrace_output(TORCH_FUNCTIONAL_F) == torch_output(TORCH_FUNCTIONAL_F)


def test_views_regenerate_after_writes_with_grad_mode_off() -> None:
    assert gradtrace_output(VIEWS_AFTER_UNTRACKED_WRITES) == torch_output(
        VIEWS_AFTER_UNTRACKED_WRITES)
