"""type() of objects scripts print the class of: torch's grad-mode context managers and
random.Random print their module-qualified class as under torch and CPython."""
from __future__ import annotations

import textwrap

import pytest
from test_python_gaps import same_as_python

SCRIPT = textwrap.dedent("""\
    import random
    import torch
    for c in [torch.no_grad(), torch.enable_grad(), torch.set_grad_enabled(True),
              torch.inference_mode(), random.Random(0)]:
        print(type(c), type(c).__name__)
    print(type(torch.no_grad()) == type(torch.no_grad()))
""")


def test_grad_mode_and_random_instances_print_their_module_qualified_class():
    pytest.importorskip("torch")
    printed = same_as_python(SCRIPT, timeout=120)
    assert "<class 'torch.autograd.grad_mode.no_grad'> no_grad" in printed


UNBOUND = textwrap.dedent("""\
    import torch
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    print(torch.Tensor.add(torch.ones(2), 1), torch.Tensor.add)
    losses = [torch.tensor(0.5), torch.tensor(0.25)]
    print(list(map(torch.Tensor.item, losses)), sorted(losses, key=torch.Tensor.item))
    torch.Tensor.backward(torch.Tensor.sum(x * 2))
    print(x.grad, torch.Tensor.size(x, 0), torch.FloatTensor.add(torch.ones(1), 2))
    for args in [(3, 4), ()]:
        try:
            torch.Tensor.add(*args)
        except TypeError as e:
            print(e)
""")


def test_tensor_methods_read_from_the_class_are_unbound_methods_as_in_torch():
    pytest.importorskip("torch")
    same_as_python(UNBOUND, timeout=120)
