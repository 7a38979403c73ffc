"""Differential tests against live PyTorch 2.13 for gaps found by probing as a user would
(session 36): what `detach()` of a view is.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


def test_detach_of_a_view_is_no_view_and_may_be_changed_in_place() -> None:
    script = """import torch
x = torch.arange(6.).requires_grad_()
v = x.view(2, 3)
d = v.detach()
print(d._base is None, x.detach()._base is None, d.is_leaf, d.requires_grad)
v.detach().add_(1)
print(x, x._version, v._version)
y = x * 2
dd = y[1:].detach()
dd.mul_(2)
print(y, y._version, dd._version, y.grad_fn.name())
w = x.detach()[:3]
print(w._base is None, w._base.requires_grad)
y.sum().backward()
print(x.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


FACTORIES = """import torch
x = torch.rand(3)
made = [torch.randint(0, 5, (3,)), torch.rand_like(x), torch.randn_like(x),
        torch.randint_like(x, 4), torch.normal(0.0, 1.0, (3,)), torch.bernoulli(x),
        torch.bernoulli(x, 0.5), torch.poisson(x), torch.multinomial(x, 2)]
print([t._version for t in made])
"""


def test_random_factories_make_version_0_tensors_like_torch() -> None:
    assert gradtrace_output(FACTORIES) == torch_output(FACTORIES)


def test_random_factories_fill_their_tensor_unseen_by_the_trace() -> None:
    """torch fills a factory's tensor below autograd: no view may tell an in-place change
    (explain said `torch.randint(...)` changed its tensor in place, version 0 to 1)."""
    from gradtrace.runner import run_text

    result = run_text(FACTORIES, trace=True)
    assert result.error is None
    assert [e for e in result.trace.events if e.kind == "inplace"] == []


def test_bare_starred_indices_index_as_python_311_does() -> None:
    script = """import torch
x = torch.arange(24).reshape(2, 3, 4)
f = [0, 1]
print(x[*f, 2], x[*f], x[1, *f], x[*f,], x[(*f, 0)])
idx = (slice(None), 1)
print(x[*idx, ::2])
y = torch.zeros(2, 3)
y[*f[1:], 2] = 5
y[*f[1:]] += 1
print(y)
d = {}
d[*f, 1] = 3
print(d, d[*f, 1])
try:
    print([[1, 2]][*f])
except TypeError as e:
    print(e)
"""
    assert gradtrace_output(script) == torch_output(script)
