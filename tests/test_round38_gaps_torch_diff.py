"""Differential tests against live PyTorch 2.13 for the gaps round 38 (scout38) found while
reading beginner tutorials from the French, Spanish, German, Korean and Chinese
communities: `obj.__class__` of anything that is not a script instance (a tensor, a
grad_fn, a str, a numpy array) was refused as a dunder, where it is `type(obj)`; and torch's
argument parser took a lone int for an unsized int list (`torch.randint(0, 5)`,
`torch.flip(x, 0)`, `torch.full(3, 1.)`), which torch refuses with its message (an int is
taken only for a sized list, `kernel_size=3`, or as the first of a varargs list,
`torch.zeros(3)`).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


CLASS_OF_VALUES = """import torch
import numpy as np
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
opt = torch.optim.SGD([x], lr=0.1)
for v in [x, y.grad_fn, y.grad_fn.next_functions[0][0], x.shape, x.dtype, x.device,
          torch.nn.Parameter(torch.ones(1)), opt, torch.nn.Linear(1, 1), "hello", 5, [1],
          {1: 2}, None, np.ones(2), np.float32(1), range(3), len, torch.no_grad(),
          ValueError("a"), iter([1]), x.register_hook(lambda g: g)]:
    print(v.__class__, v.__class__ is type(v), v.__class__.__name__)
print(x.__class__.__class__, x.__class__.__module__, x.__class__.__qualname__)
print(y.grad_fn.__class__.__name__ == 'SumBackward0')

def walk(fn, depth=0):
    print('  ' * depth, fn.__class__.__name__)
    for nxt, _ in fn.next_functions:
        if nxt is not None:
            walk(nxt, depth + 1)

w = torch.randn(3, 2, requires_grad=True)
walk(torch.tanh(torch.ones(4, 3) @ w).mean().grad_fn)
"""


def test_dunder_class_is_the_values_type_for_every_value() -> None:
    """`v.__class__` is `type(v)` for tensors, autograd nodes, torch objects, builtins and
    numpy values alike (`loss.grad_fn.__class__.__name__` walks of the graph)."""
    assert gradtrace_output(CLASS_OF_VALUES) == torch_output(CLASS_OF_VALUES)


LONE_INT_FOR_INT_LIST = """import torch
x = torch.arange(6.).view(2, 3)
calls = [lambda: torch.randint(0, 5), lambda: torch.randint(5, size=3),
         lambda: torch.randn(size=3), lambda: torch.zeros(size=3), lambda: torch.flip(x, 0),
         lambda: x.flip(0), lambda: torch.reshape(x, 6), lambda: torch.tile(x, 2),
         lambda: torch.full(3, 1.), lambda: torch.normal(0., 1., 3),
         lambda: x.new_full(3, 1.), lambda: torch.permute(x, 1),
         lambda: torch.as_strided(x, 2, 1), lambda: torch.broadcast_to(x, 3),
         lambda: torch.empty_strided(3, 1), lambda: torch.unflatten(x, 1, 3),
         # taken: a varargs list's first int, a sized list's int
         lambda: torch.zeros(3), lambda: x.reshape(6), lambda: x.view(-1),
         lambda: x.new_zeros(3), lambda: x.sum(0), lambda: torch.roll(x, 1),
         lambda: torch.amax(x, 0), lambda: torch.max_pool2d(x[None], 2, 1),
         lambda: x.permute(1, 0), lambda: x.expand(2, 3), lambda: torch.rand(3).shape]
for call in calls:
    try:
        print(call())
    except TypeError as err:
        print(err)
"""


def test_an_unsized_int_list_refuses_a_lone_int_as_torch() -> None:
    """torch's parser takes an int for an int list only where the list has a size or is
    a lone positional list given as varargs; elsewhere its message names the argument."""
    assert gradtrace_output(LONE_INT_FOR_INT_LIST) == torch_output(LONE_INT_FOR_INT_LIST)
