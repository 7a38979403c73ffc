"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 23
found: `torch.autograd.grad(..., is_grads_batched=True, create_graph=True)` was refused even
when the gradients need no graph (nothing in the backward requires grad), where torch returns
the plain stacked gradients; a batched gradient that does need a graph stays refused. And old
code's `from torch.autograd.variable import Variable` was refused as an unknown module. And
calling a grad_fn node directly (`l.grad_fn(torch.tensor(1.))`, torch's Node.__call__: the
node's backward alone under the current grad mode, an AccumulateGrad adding into .grad) was
refused as "not callable".

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")


BATCHED_CREATE_GRAPH = """import torch
from torch.autograd.functional import jacobian, hessian
w = torch.ones((4, 4), requires_grad=True)
a = torch.arange(3.)[:, None, None] * torch.ones(3, 4, 4)
b = (w * a).sum((1, 2))
g, = torch.autograd.grad(b, w, torch.eye(3), create_graph=True, is_grads_batched=True)
print(g[:, 0], g.requires_grad, g.grad_fn)
g, = torch.autograd.grad(b, w, torch.eye(3), create_graph=True, is_grads_batched=True)
print(g.sum())
v = torch.zeros(2, 3)
v[:, 0] = 1.
x = torch.tensor([1., 2., 3.], requires_grad=True)
lin = x * torch.tensor([2., 3., 4.]) + 1
print(torch.autograd.grad(lin, x, v, create_graph=True, is_grads_batched=True))
u = torch.tensor([5., 6.], requires_grad=True)
g = torch.autograd.grad((lin, u * 2), (x, u), (torch.eye(3), torch.ones(3, 2)),
                        create_graph=True, is_grads_batched=True)
print(g)
print(torch.autograd.grad(lin, (x, u), torch.eye(3), create_graph=True, allow_unused=True,
                          is_grads_batched=True))
def f(x):
    return x * torch.tensor([1., 2., 3.]) + 1
j = jacobian(f, torch.tensor([1., 2., 3.]), create_graph=True, vectorize=True)
print(j, j.requires_grad)
print(jacobian(lambda x: torch.ones(2), torch.ones(3), create_graph=True, vectorize=True))
print(hessian(lambda x: (x * torch.tensor([1., 2., 3.])).sum(), torch.ones(3),
              create_graph=True, vectorize=True))
"""


def test_batched_grad_with_create_graph_and_no_graph_needed_like_torch() -> None:
    assert gradtrace_output(BATCHED_CREATE_GRAPH) == torch_output(BATCHED_CREATE_GRAPH)


@pytest.mark.parametrize("script", [
    # the gradient depends on x: torch's result has a vmapped MulBackward0 graph
    "x = torch.tensor([1., 2.], requires_grad=True)\n"
    "torch.autograd.grad(x ** 2, x, torch.eye(2), create_graph=True, is_grads_batched=True)",
    # grad_outputs that require grad make the result need a graph too
    "w = torch.ones(2, requires_grad=True)\n"
    "torch.autograd.grad(w * 3, w, torch.eye(2).requires_grad_(), create_graph=True,\n"
    "                    is_grads_batched=True)",
    "from torch.autograd.functional import jacobian\n"
    "jacobian(lambda a, b: a * b, (torch.ones(2), torch.ones(2)), create_graph=True,\n"
    "         vectorize=True)",
])
def test_batched_grad_that_needs_a_graph_is_still_refused(script: str) -> None:
    result = run_text("import torch\n" + script)
    assert result.error is not None and result.error.kind == "NotSupportedError"
    assert "whose gradients need a graph" in result.error.message
    assert torch_output("import torch\n" + script).count("Error") == 0


VARIABLE_MODULE = """import torch
from torch.autograd.variable import Variable
import torch.autograd.variable
x = Variable(torch.Tensor([[0]]), requires_grad=True)
for t in range(3):
    x.sin().backward()
print(x, x.grad, type(x), Variable, Variable is torch.autograd.Variable)
print(torch.autograd.variable.Variable is Variable, isinstance(x, Variable))
print(Variable(torch.ones(2)).requires_grad, Variable(torch.ones(2), volatile=True))
"""


def test_torch_autograd_variable_module_imports_like_torch() -> None:
    assert gradtrace_output(VARIABLE_MODULE) == torch_output(VARIABLE_MODULE)


NODE_CALLS = """import torch
x = torch.tensor([3., 3.], requires_grad=True)
y = torch.tensor([2., 2.], requires_grad=True)
z = x * y
l = z.sum()
r = l.grad_fn(torch.tensor(1.))
print(r, type(r), callable(l.grad_fn))
dx, dy = z.grad_fn(r)
print(dx, dy)
print(z.grad_fn(torch.ones(2)) is not None, z.exp().grad_fn(torch.ones(2)))
print((x * torch.tensor([2., 5.])).grad_fn(torch.ones(2)))
with torch.no_grad():
    print(z.grad_fn(torch.ones(2)))
for bad in (lambda: z.grad_fn(torch.ones(3)), lambda: z.grad_fn(),
            lambda: z.grad_fn(torch.ones(2), torch.ones(2)),
            lambda: z.grad_fn(grad=torch.ones(2)), lambda: l.grad_fn(1.0)):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
s = x.split(1)
print(s[0].grad_fn(torch.ones(1), torch.ones(1)))
a = z.grad_fn.next_functions[0][0]
g = torch.ones(2)
print(a(g), x.grad, x.grad is g, x.grad._version)
print(a(torch.ones(2)), x.grad)
x.grad = None
print(a(torch.ones(2, requires_grad=True)), x.grad)
x.grad = None
with torch.no_grad():
    print(a(torch.ones(2, requires_grad=True)), x.grad, x.grad.requires_grad)
    print(a(torch.ones(2)), x.grad)
w = torch.zeros(3, requires_grad=True).clone()
w[1:] = y
print(w.grad_fn.name(), w.grad_fn(torch.tensor([1., 2., 3.])))
q = (x * x).sum()
q.backward()
try:
    q.grad_fn(torch.tensor(1.))
    q.grad_fn.next_functions[0][0](torch.ones(2))
except RuntimeError as e:
    print(e)
u = x.exp()
u.add_(0)
print(u.grad_fn(torch.ones(2)))
v = x.exp()
v.mul_(2)
try:
    v.grad_fn.next_functions[0][0](torch.ones(2))
except RuntimeError as e:
    print(e)
"""


def test_calling_grad_fn_nodes_like_torch() -> None:
    assert gradtrace_output(NODE_CALLS) == torch_output(NODE_CALLS)


def test_calling_a_custom_function_node_is_refused() -> None:
    script = """import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
y = F.apply(torch.ones(2, requires_grad=True))
y.grad_fn(torch.ones(2))
"""
    result = run_text(script)
    assert result.error is not None and result.error.kind == "NotSupportedError"
