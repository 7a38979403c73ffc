"""torch.utils.swap_tensors (lib/torch/utils.gt over engine/swap.py) against python +
torch 2.13: two tensors exchange their data, class, history, gradients and what the
script stored on them; torch's use-count checks refuse a tensor a node saved or a view
holds, and poison a leaf's live AccumulateGrad node, traced or not. The comparisons with
torch are skipped unless torch is importable."""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

from gradtrace.runner import run_text

SWAPS = """import torch
def attempt(fn):
    try:
        fn()
        return "ok"
    except Exception as e:
        return f"{type(e).__name__}: {e}"

a = torch.ones(2, requires_grad=True)
b = torch.zeros(3)
a.tag = "a"
torch.utils.swap_tensors(a, b)
print(a, b, a.requires_grad, b.requires_grad, hasattr(a, "tag"), b.tag, a.is_leaf, b.is_leaf)
p = torch.nn.Parameter(torch.ones(2))
t = torch.arange(3.)
torch.utils.swap_tensors(p, t)
print(type(p).__name__, type(t).__name__, p, t)
i, f = torch.arange(3), torch.ones(2)
torch.utils.swap_tensors(i, f)
print(i, f, i.dtype)
s = torch.ones(2)
torch.utils.swap_tensors(s, s)
print(s)

# x * 2 saves no x: swapped; x * x saves it twice (use_count 4)
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
print(attempt(lambda: torch.utils.swap_tensors(x, torch.zeros(2))), x)
x = torch.ones(2, requires_grad=True)
y = (x * x).sum()
print(attempt(lambda: torch.utils.swap_tensors(x, torch.zeros(2, requires_grad=True))))
# a view of a leaf that requires grad: its base and its AccumulateGrad (use_count 3)
x = torch.ones(2, requires_grad=True)
v = x[:1]
print(attempt(lambda: torch.utils.swap_tensors(x, torch.zeros(2, requires_grad=True))))
# a view of a plain tensor: get_gradient_edge's error
c = torch.ones(3)
w = c.view(3)
print(attempt(lambda: torch.utils.swap_tensors(torch.zeros(3), c)))
# a non-leaf no node saved
a = torch.ones(2, requires_grad=True)
b = a * 2
print(attempt(lambda: torch.utils.swap_tensors(b, torch.zeros(2))), b, b.grad_fn)
# a live AccumulateGrad is poisoned: the graph's next backward raises
x = torch.ones(2, requires_grad=True)
y = (x + 1).sum()
z = torch.zeros(2, requires_grad=True)
torch.utils.swap_tensors(x, z)
print(x, z, attempt(y.backward))
# hooks and gradients go with the data
h = torch.ones(2, requires_grad=True)
h.register_hook(lambda g: g * 10)
k = torch.ones(2, requires_grad=True)
torch.utils.swap_tensors(h, k)
(h * 1).sum().backward()
(k * 1).sum().backward()
print(h.grad, k.grad)
# after a backward that freed the graph, a module's weight swaps with a new Parameter
torch.manual_seed(0)
lin = torch.nn.Linear(1, 2, bias=False)
lin(torch.ones(3, 1)).sum().backward()
q = torch.nn.Parameter(torch.zeros(2, 1))
torch.utils.swap_tensors(lin.weight, q)
print(lin.weight, q, q.grad, lin.weight.grad)
for other in (3, [1.0], None):
    print(attempt(lambda: torch.utils.swap_tensors(c, other)))
"""


def test_swap_tensors_exchanges_contents_and_checks_use_counts_as_torch_does():
    pytest.importorskip("torch")
    assert gradtrace_output(SWAPS) == torch_output(SWAPS)


def test_a_traced_run_swaps_and_refuses_as_an_untraced_one_does():
    """The trace keeps every node a run recorded; torch's graph dies with the tensors that
    reach it. A leaf whose graph the script dropped swaps under the views too, one whose
    graph a live tensor still reaches is poisoned, and a saved leaf is refused."""
    quiet = run_text(SWAPS)
    traced = run_text(SWAPS, trace=True)
    assert quiet.error is None and traced.error is None
    assert traced.stdout == quiet.stdout
