"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 58
(differentiable relaxations, gradient estimators and normalizing flows) found: the UvA
normalizing-flows tutorial sets a misspelt `torch.backends.cudnn.determinstic = True`
(refused: a new attribute of that module, which torch's module takes), and its ConcatELU
joins two channels-last tensors with torch.cat, whose result torch lays out channels-last
(gradtrace's was row-major, so the next convolution ran its contiguous kernel and its weight
gradient came out 1 ulp off); torch.stack is a cat viewed with the new dim split off.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


CUDNN_NEW_ATTRIBUTE = """import torch
torch.backends.cudnn.determinstic = True
torch.backends.cudnn.benchmark = False
print(torch.backends.cudnn.determinstic, torch.backends.cudnn.deterministic,
      torch.backends.cudnn.benchmark, hasattr(torch.backends.cudnn, "determinstic"))
torch.backends.cudnn.my_seed = 3
torch.backends.cudnn.my_seed += 1
print(torch.backends.cudnn.my_seed, getattr(torch.backends.cudnn, "nothing", None))
try:
    torch.backends.cudnn.deterministic = 1
except RuntimeError as e:
    print(e)
"""


def test_a_new_attribute_of_torch_backends_cudnn_is_the_scripts_own() -> None:
    """torch.backends.cudnn is a module: a name it lacks (the UvA tutorials' misspelt
    `determinstic`) is set on it and reads back; its switches still check their values."""
    assert gradtrace_output(CUDNN_NEW_ATTRIBUTE) == torch_output(CUDNN_NEW_ATTRIBUTE)


CAT_STACK_LAYOUTS = """import torch
torch.manual_seed(0)
import torch.nn.functional as F
x0 = torch.arange(72.).view(2, 3, 3, 4)
x1 = x0.permute(0, 3, 1, 2)
c = torch.randn(1, 4, 1, 1).contiguous(memory_format=torch.channels_last)
z = torch.arange(360.).view(2, 4, 3, 3, 5).permute(0, 4, 1, 2, 3)
cases = [
    torch.cat([F.elu(x1), F.elu(-x1)], dim=1), torch.cat([x1, x1], dim=0),
    torch.cat([x1, x1], dim=3), torch.cat([x1, x1.contiguous()], dim=1),
    torch.cat([x1.contiguous(), x1], dim=1), torch.cat([x0, x0], dim=3),
    torch.cat([x1, torch.zeros(0)], dim=1), torch.cat([z, z], 1), torch.cat([c, c], 1),
    torch.cat([x1[:, :2], x1[:, 2:]], 1), torch.cat([x1, x1.double()], 1),
    torch.cat([x1, x1.permute(0, 1, 3, 2)], 1), torch.cat((x1,), 2),
    torch.stack([x1, x1]), torch.stack([x1, x1], 1), torch.stack([x1, x1], 3),
    torch.stack([x1, x1], -1), torch.stack([z, z], 2), torch.stack([x1, x1.contiguous()]),
]
for t in cases:
    print(tuple(t.shape), t.stride(), t.dtype, t.is_contiguous(),
          t.is_contiguous(memory_format=torch.channels_last), t.sum().item())
print(torch.equal(torch.stack([x1, x1], 1)[:, 1], x1), torch.cat([x1, x1], 1)[1, 5, 2])
"""


def test_cat_and_stack_of_channels_last_tensors_keep_their_layout() -> None:
    """ATen's cat_compute_output_memory_format: a cat of tensors that all suggest
    channels-last is channels-last (any contiguous one, or a disagreement, makes it
    row-major); stack is a cat along dim viewed with the new dim split off."""
    assert gradtrace_output(CAT_STACK_LAYOUTS) == torch_output(CAT_STACK_LAYOUTS)


CONCAT_ELU_CONV = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for cin, cout, n, hw in [(16, 2, 8, 8), (8, 16, 8, 8), (16, 2, 2, 8), (16, 16, 8, 4)]:
    conv = torch.nn.Conv2d(cin, cout, 3, padding=1)
    x0 = torch.randn(n, hw, hw, cin // 2, requires_grad=True)
    x1 = x0.permute(0, 3, 1, 2)
    x = torch.cat([F.elu(x1), F.elu(-x1)], dim=1)
    y = conv(x)
    y.backward(torch.randn_like(y))
    print(x.stride(), y.stride(), conv.weight.grad.double().sum().item(),
          conv.bias.grad.double().sum().item(), x0.grad.double().sum().item(),
          y.double().sum().item(), conv.weight.grad[0, :2, 1])
"""


def test_a_convolution_of_a_channels_last_cat_runs_the_channels_last_kernels() -> None:
    """The UvA flows' ConcatELU before a Conv2d: the cat is channels-last, so the
    convolution's forward and its weight gradient take torch's channels-last kernels (and
    randn_like fills the channels-last result in its memory order)."""
    assert gradtrace_output(CONCAT_ELU_CONV) == torch_output(CONCAT_ELU_CONV)


NEW_TYPE = """from typing import NewType, List
import typing
import torch
UserId = NewType('UserId', int)
BinaryTensor = NewType('BinaryTensor', torch.Tensor)
Nested = typing.NewType('a.b.Nested', List[int])
print(UserId, BinaryTensor, Nested, UserId(5), BinaryTensor(torch.ones(2)))
print(UserId.__name__, UserId.__qualname__, UserId.__supertype__, UserId.__module__)
print(Nested.__name__, Nested.__qualname__, Nested.__supertype__, BinaryTensor.__supertype__)
print(callable(UserId), UserId(UserId(3)) + 1, repr(UserId), str(BinaryTensor))
def f(x: UserId) -> BinaryTensor:
    return x
print(f(2), type(UserId))
try:
    UserId.nothing
except AttributeError as e:
    print(e)
try:
    NewType(3, int)
except TypeError as e:
    print(e)
"""


def test_typing_new_type_is_an_identity_callable_named_in_main() -> None:
    """apple/ml-quant's `BinaryTensor = NewType('BinaryTensor', torch.Tensor)` (was refused):
    Python 3.11's NewType returns its argument, prints as `__main__.Name` and keeps its
    name, qualified name and supertype."""
    assert gradtrace_output(NEW_TYPE) == torch_output(NEW_TYPE)
