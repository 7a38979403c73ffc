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
- torch.distributions.kl_divergence's pairs with Binomial, Beta and Gamma on one side
  (Exponential || Gamma, Gamma || Normal, Beta || Uniform, ... 29 registrations of torch's
  kl.py) were missing from gradtrace's registry, so an Exponential || Gamma (two
  exponential families) fell to the Bregman fallback's NotImplementedError and a Gamma ||
  Normal's subclass Chi2 likewise; the registry now holds torch's 87 pairs.
- `torch.distributions.utils.lazy_property` (scvi-tools' ZeroInflatedNegativeBinomial's
  zi_probs/zi_logits): a non-data descriptor computing the value once, with grad enabled,
  onto the instance; Distribution's argument validation skips a lazy parameter not yet
  computed, as torch's `isinstance(getattr(type(self), param), lazy_property)` does.

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


KL_PAIRS = """import torch
import torch.distributions as D
leaves = []
def g(v):
    leaves.append(torch.tensor(v, requires_grad=True))
    return leaves[-1]
def make(name):
    return {"Bernoulli": lambda: D.Bernoulli(g([0.3, 0.8])),
            "Binomial": lambda: D.Binomial(torch.tensor([10.0, 10.0]), g([0.3, 0.6])),
            "Beta": lambda: D.Beta(g([2.0, 0.7]), g([3.0, 1.5])),
            "ContinuousBernoulli": lambda: D.ContinuousBernoulli(g([0.3, 0.7])),
            "Exponential": lambda: D.Exponential(g([2.0, 0.5])),
            "Gamma": lambda: D.Gamma(g([2.0, 0.8]), g([3.0, 1.2])),
            "Gumbel": lambda: D.Gumbel(g([0.5, -1.0]), g([2.0, 0.7])),
            "Laplace": lambda: D.Laplace(g([0.1, 1.0]), g([1.5, 0.5])),
            "Normal": lambda: D.Normal(g([0.2, -0.4]), g([1.3, 0.6])),
            "Pareto": lambda: D.Pareto(g([1.5, 0.4]), g([2.5, 0.9])),
            "Poisson": lambda: D.Poisson(g([2.0, 0.4])),
            "Uniform": lambda: D.Uniform(g([0.2, -0.5]), g([0.9, 3.0])),
            "Chi2": lambda: D.Chi2(g([3.0, 1.5]))}[name]()
pairs = [("Binomial", "Binomial"), ("Bernoulli", "Poisson"), ("Beta", "ContinuousBernoulli"),
         ("Beta", "Pareto"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"),
         ("Beta", "Uniform"), ("Exponential", "Beta"), ("Exponential", "Gamma"),
         ("Gamma", "Uniform"), ("Gamma", "Pareto"), ("Gamma", "ContinuousBernoulli"),
         ("Gamma", "Beta"), ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gamma", "Normal"),
         ("Gumbel", "Gamma"), ("Gumbel", "Beta"), ("Laplace", "Gamma"), ("Laplace", "Beta"),
         ("Normal", "Gamma"), ("Normal", "Beta"), ("Pareto", "Beta"), ("Pareto", "Gamma"),
         ("Poisson", "Binomial"), ("Poisson", "Bernoulli"), ("Uniform", "Beta"),
         ("Uniform", "Gamma"), ("Chi2", "Normal"), ("Exponential", "Chi2")]
for a, b in pairs:
    leaves.clear()
    p, q = make(a), make(b)
    kl = D.kl_divergence(p, q)
    params = list(leaves)
    finite = kl[kl.isfinite()]
    grads = (torch.autograd.grad(finite.sum(), params, allow_unused=True)
             if finite.numel() and finite.requires_grad else [])
    print(a, b, kl, [None if g is None else g for g in grads])
try:
    D.kl_divergence(D.Binomial(5, torch.tensor(0.3)), D.Binomial(10, torch.tensor(0.3)))
except NotImplementedError as e:
    print(e)
print(D.kl_divergence(D.Binomial(10, torch.tensor([0.3])), D.Binomial(5, torch.tensor([0.2]))))
"""


def test_kl_divergence_pairs_with_binomial_beta_gamma() -> None:
    assert gradtrace_output(KL_PAIRS) == torch_output(KL_PAIRS)


LAZY_PROPERTY = """import torch
from torch.distributions import Distribution, constraints
from torch.distributions.utils import lazy_property, logits_to_probs, probs_to_logits
calls = []
class Coin(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    def __init__(self, probs=None, logits=None, validate_args=None):
        if probs is not None:
            self.probs = probs
        else:
            self.logits = logits
        super().__init__(validate_args=validate_args)
    @lazy_property
    def probs(self):
        calls.append("probs")
        return logits_to_probs(self.logits, is_binary=True)
    @lazy_property
    def logits(self):
        calls.append("logits")
        return probs_to_logits(self.probs, is_binary=True)
    def log_prob(self, value):
        return value * self.logits - torch.nn.functional.softplus(self.logits)
logits = torch.tensor([0.5, -1.0], requires_grad=True)
c = Coin(logits=logits, validate_args=True)
print(c, calls, "probs" in vars(c))
with torch.no_grad():
    p = c.probs
print(p, p.requires_grad, calls, c.probs is p, calls, "probs" in vars(c))
p.sum().backward()
print(logits.grad, isinstance(Coin.logits, lazy_property))
print(Coin(probs=torch.tensor([0.2, 0.9])).logits, calls)
try:
    Coin(probs=torch.tensor([1.5]), validate_args=True)
except ValueError as e:
    print(str(e).splitlines()[0])
print(Coin(logits=torch.tensor([0.1]), validate_args=True).log_prob(torch.tensor([1.0])))
"""


def test_lazy_property_of_a_script_distribution() -> None:
    assert gradtrace_output(LAZY_PROPERTY) == torch_output(LAZY_PROPERTY)


def test_torch_functional_f_is_nn_functional() -> None:
    assert gradtrace_output(TORCH_FUNCTIONAL_F) == torch_output(TORCH_FUNCTIONAL_F)


def test_views_regenerate_after_writes_with_grad_mode_off() -> None:
    assert gradtrace_output(VIEWS_AFTER_UNTRACKED_WRITES) == torch_output(
        VIEWS_AFTER_UNTRACKED_WRITES)
