"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 108
(normalizing flows and flow matching) found: torch.trace and torch.diagonal under vmap. The
exact divergence of a continuous normalizing flow's vector field is written
`vmap(lambda x: torch.trace(jacrev(f)(x)))(xs)`; torch runs trace there through functorch's
trace_decomp (the logical matrix's diagonal().sum(), each with its batching rule: a
SumBackward1 over a DiagonalBackward0), where gradtrace ran its per-example fallback and
stacked the results (a StackBackward0 over TraceBackward0 nodes).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


TRACE = """import torch
from torch.func import vmap, jacrev, functional_call
torch.manual_seed(0)
xs = torch.randn(5, 3, 3, requires_grad=True)
t = vmap(torch.trace)(xs)
print(t, t.grad_fn.name(), t.grad_fn.next_functions[0][0].name())
print(t.grad_fn.next_functions[0][0].next_functions[0][0].name())
t.sum().backward()
print(xs.grad[0])
ys = torch.randn(3, 3, requires_grad=True)
t2 = vmap(lambda y, s: torch.trace(y * s), in_dims=(None, 0))(ys, torch.arange(1., 4.))
print(t2, t2.grad_fn.name())
print(vmap(torch.trace)(torch.arange(18).view(2, 3, 3)))
print(vmap(torch.trace)(torch.rand(2, 3, 3) > 0.5))
print(vmap(torch.trace)(torch.randn(2, 3, 4, dtype=torch.float64)))
print(vmap(vmap(torch.trace))(torch.randn(2, 3, 4, 4)))
print(vmap(lambda m: m.trace(), in_dims=1)(torch.randn(3, 2, 3, requires_grad=True)))
net = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
params = dict(net.named_parameters())
def div(y):
    return torch.trace(jacrev(lambda z: functional_call(net, params, (z,)))(y))
dv = vmap(div)(torch.randn(5, 3))
print(dv, dv.grad_fn.name())
dv.sum().backward()
print(net[0].weight.grad[:2])
for bad in (torch.randn(2, 3), torch.randn(2, 3, 3, 3)):
    try:
        vmap(torch.trace)(bad)
    except RuntimeError as e:
        print(e)
"""


def test_trace_under_vmap_is_diagonal_then_sum() -> None:
    """vmap(torch.trace): the diagonal's sum through their batching rules (SumBackward1 over
    DiagonalBackward0; integer and bool matrices sum to int64), nested, over a batch dim
    not in front, inside jacrev; torch's message for a logical rank other than 2."""
    assert gradtrace_output(TRACE) == torch_output(TRACE)


DIAGONAL = """import torch
from torch.func import vmap
torch.manual_seed(0)
x = torch.randn(3, 4, 2, requires_grad=True)
d = vmap(lambda m: torch.diagonal(m, offset=1), in_dims=2)(x)
print(d, d.grad_fn.name(), d.grad_fn.next_functions[0][0].name())
d.sum().backward()
print(x.grad[..., 0])
print(vmap(lambda m: m.diagonal(-1, -1, -2), in_dims=1)(x))
print(vmap(lambda m: torch.diagonal(m, 0, dim2=0, dim1=2))(torch.randn(2, 3, 3, 3)))
try:
    vmap(lambda m: torch.diagonal(m, 0, 0, 2))(torch.randn(2, 3, 3))
except IndexError as e:
    print(e)
"""


def test_diagonal_under_vmap_shifts_its_dims_past_the_batch_dim() -> None:
    """vmap(torch.diagonal): one DiagonalBackward0 on the batch-in-front tensor, offset and
    dims given by position or keyword (and defaulted), wrapped against the logical rank."""
    assert gradtrace_output(DIAGONAL) == torch_output(DIAGONAL)


AXIS = """import torch
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
print(torch.linalg.norm(x, axis=-1))
print(torch.linalg.norm(x, 2, axis=1, keepdims=True))
print(torch.linalg.vector_norm(x, 3, axis=(0, 1), keepdims=True))
print(torch.linalg.norm(x=x, axis=0))
print(torch.linalg.matmul(x, x2=x.T))
score = torch.randn(5, 2)
s_norm = torch.linalg.norm(score, axis=-1)**2
print(s_norm)
n = torch.linalg.norm(x, axis=0).sum()
n.backward()
print(x.grad)
for f in (lambda: torch.linalg.vector_norm(x, dim=0, axis=0),
          lambda: torch.linalg.vector_norm(x, keepdims=True, keepdim=True),
          lambda: torch.linalg.vector_norm(x=x, input=x),
          lambda: torch.linalg.vector_norm(x, axes=0)):
    try:
        f()
    except TypeError as e:
        print(e)
"""


def test_linalg_functions_take_numpys_keyword_names() -> None:
    """torch.linalg's parser takes numpy's `axis`, `keepdims`, `x` and `x2` for `dim`,
    `keepdim`, `input` and `other` (the stochastic-interpolants SDE likelihood's
    `torch.linalg.norm(score, axis=-1)`), each only where torch's own name is not also
    given (then it is the unexpected keyword)."""
    assert gradtrace_output(AXIS) == torch_output(AXIS)


def test_overloaded_linalg_norms_refuse_a_wrong_keyword() -> None:
    """torch.linalg.norm, matrix_norm and cond have two signatures (a Number or a str
    `ord`): torch's parser answers a keyword they do not take with "received an invalid
    combination of arguments" and both signatures, which gradtrace does not reproduce: a
    clean refusal, not another message."""
    for call in ("torch.linalg.norm(x, axes=0)", "torch.linalg.matrix_norm(x, bogus=1)",
                 "torch.linalg.cond(x, bogus=1)"):
        script = f"import torch\nx = torch.ones(3, 3)\n{call}\n"
        assert "received an invalid combination of arguments" in torch_output(script)
        out = gradtrace_output(script)
        assert "NotSupportedError" in out and "is not reproduced by gradtrace" in out, out
