"""Differential tests against live PyTorch 2.13 for the gaps round 38 (scout38) found while
reading beginner tutorials from the French, Spanish, German, Korean and Chinese
communities: `obj.__class__` of anything that is not a script instance (a tensor, a
grad_fn, a str, a numpy array) was refused as a dunder, where it is `type(obj)`; and torch's
argument parser took a lone int for an unsized int list (`torch.randint(0, 5)`,
`torch.flip(x, 0)`, `torch.full(3, 1.)`), which torch refuses with its message (an int is
taken only for a sized list, `kernel_size=3`, or as the first of a varargs list,
`torch.zeros(3)`); and the legacy classes torch.ByteTensor, CharTensor, ShortTensor and
HalfTensor (Chinese tutorials list every typed tensor class) were refused, and the
TensorOptions of a legacy class's dtype mismatch printed "long", "short" and "half" where
torch prints C++'s type names ("long int", "short int", "c10::Half").

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


LEGACY_CLASSES = """import torch
classes = [torch.FloatTensor, torch.DoubleTensor, torch.LongTensor, torch.IntTensor,
           torch.BoolTensor, torch.ByteTensor, torch.CharTensor, torch.ShortTensor,
           torch.HalfTensor]
for cls in classes:
    print(cls, type(cls), cls([1, 0, 2]), cls([[1.7, -2.2]]), cls().shape, cls(2, 3).shape,
          isinstance(cls([1]), cls), isinstance(torch.tensor([1.]), cls),
          torch.tensor([1.5, 2.7]).type(cls), cls([1, 2]).type())
    for dt in [torch.float32, torch.float64, torch.int64, torch.int32, torch.int16,
               torch.int8, torch.uint8, torch.bool, torch.float16]:
        try:
            print(cls(torch.zeros(2, dtype=dt)))
        except TypeError as err:
            print(err)
mask = torch.ByteTensor([1, 0, 1])
print(torch.arange(3.)[mask.bool()], torch.tensor([1.5]).type('torch.ByteTensor'),
      torch.tensor([1.5]).type('torch.HalfTensor'), torch.get_rng_state().type(),
      isinstance(torch.get_rng_state(), torch.ByteTensor))
try:
    torch.set_default_tensor_type('torch.ByteTensor')
except TypeError as err:
    print(err)
"""


def test_every_legacy_tensor_class_builds_and_checks_its_dtype_as_torch() -> None:
    """torch.ByteTensor/CharTensor/ShortTensor/HalfTensor make tensors of their dtype as the
    other legacy classes do; a tensor of another dtype gets torch's TensorOptions message,
    with the C++ type names torch prints."""
    assert gradtrace_output(LEGACY_CLASSES) == torch_output(LEGACY_CLASSES)
