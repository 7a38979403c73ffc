"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 48
(meta-learning and higher-order autograd) found: `torch.randint_like(p, high=2)`, which
PyHessian's Hutchinson trace and Lanczos density use to draw Rademacher vectors, was refused
("missing 1 required positional argument: 'low'").

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


RANDINT_LIKE = """import torch
torch.manual_seed(0)
t = torch.zeros(2, 5)
print(torch.randint_like(t, high=2))
print(torch.randint_like(t, 2))
print(torch.randint_like(t, 1, 3))
print(torch.randint_like(t, low=1, high=3))
print(torch.randint_like(t, 5, high=7, dtype=torch.int64))
v = torch.randint_like(torch.zeros(3, 4, dtype=torch.float64), high=2)
v[v == 0] = -1
print(v)
for call in [lambda: torch.randint_like(t, low=1), lambda: torch.randint_like(t),
             lambda: torch.randint_like(t, 2, low=0)]:
    try:
        call()
    except TypeError as e:
        print(repr(str(e)))
"""


def test_randint_like_binds_low_and_high_as_torch_does() -> None:
    """high alone by keyword draws from [0, high); one positional with high= is low; the
    combinations torch's overloads refuse raise its TypeError with the signatures."""
    assert gradtrace_output(RANDINT_LIKE) == torch_output(RANDINT_LIKE)


IMPORT_DISTRIBUTED = """import torch
import torch.utils.data
import torch.utils.data.distributed
from torch.utils.data import distributed
print(torch.utils.data.distributed is distributed, hasattr(distributed, 'DistributedSampler'))
print(hasattr(distributed, 'nope'), hasattr(torch.utils.data, 'distributed'))
"""


def test_torch_utils_data_distributed_imports() -> None:
    """`import torch.utils.data.distributed` (GAN_stability's trainer, pytorch/examples'
    ImageNet script) imports; torch has its DistributedSampler, which gradtrace lacks."""
    assert gradtrace_output(IMPORT_DISTRIBUTED) == torch_output(IMPORT_DISTRIBUTED)


SET_DICT = """import copy
import torch
from torch import nn

def clone_module(module):
    clone = module.__new__(type(module))
    clone.__dict__ = module.__dict__.copy()
    clone._parameters = clone._parameters.copy()
    clone._modules = clone._modules.copy()
    for key in module._parameters:
        clone._parameters[key] = module._parameters[key].clone()
    for key in clone._modules:
        clone._modules[key] = clone_module(module._modules[key])
    return clone

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
clone = clone_module(net)
print(type(clone).__name__, clone[0].weight is net[0].weight,
      type(clone[0].weight.grad_fn).__name__)
print([type(p).__name__ for p in clone.parameters()], len(list(net.parameters())))
clone(torch.ones(4, 3)).sum().backward()
print(net[0].weight.grad)
print(clone.training, clone[0].in_features,
      sorted(k for k in clone.__dict__ if not k.startswith('_')))

class Point:
    def __init__(self):
        self.x = 1
p = Point()
d = {'y': 2}
p.__dict__ = d
print(hasattr(p, 'x'), p.y, p.__dict__ is d)
p.z = 3
print(d)
try:
    p.__dict__ = [1]
except TypeError as e:
    print(e)
"""


def test_setting_dict_replaces_the_attributes() -> None:
    """`clone.__dict__ = module.__dict__.copy()` (learn2learn's clone_module) makes the dict
    the instance's attributes, for a Module made by __new__ and a plain class; a list is
    refused with Python's TypeError."""
    assert gradtrace_output(SET_DICT) == torch_output(SET_DICT)


FLOAT_SIZES = """import torch
import torch.nn as nn
for f in [lambda: nn.Linear(100, 8 * 16 * (32 / 16) * (32 / 16)), lambda: nn.Linear(2.0, 3),
          lambda: nn.Conv2d(3, 4.0, 3), lambda: nn.BatchNorm2d(4.0), lambda: nn.Embedding(10, 3.0),
          lambda: nn.LayerNorm(4.0), lambda: nn.Bilinear(2, 3, 4.0),
          lambda: nn.ConvTranspose2d(2.0, 3, 3), lambda: nn.Linear(3, 2)]:
    try:
        print(f())
    except TypeError as e:
        print(e)
"""


def test_layers_of_float_sizes_word_torchs_parser_error() -> None:
    """A layer given a float size (EmilienDupont/wgan-gp's `img_size[0] / 16` under Python 3)
    fails in its `torch.empty(...)` with the argument parser's message, as torch's does,
    though bundled library code skips the parser on calls that succeed."""
    assert gradtrace_output(FLOAT_SIZES) == torch_output(FLOAT_SIZES)


TENSOR_PRIVATE_ATTRIBUTE = """import torch
from torch.autograd import grad
w = torch.ones(3, requires_grad=True)
p = w.clone()
lr = torch.full((3,), 0.5, requires_grad=True)
g = grad((p ** 2).sum(), p, create_graph=True)[0]
p.grad = g
p._lr = lr
new = p - p._lr * p.grad
p.grad = None
p._lr = None
print(new, p._lr, p.grad, hasattr(p, '_lr'), hasattr(w, '_lr'))
new.sum().backward()
print(w.grad, lr.grad)
try:
    p._base = w
except AttributeError as e:
    print(e)
"""


def test_a_tensor_keeps_an_underscored_attribute_of_the_script() -> None:
    """learn2learn's Meta-SGD sets `p._lr = lr` on cloned parameters: a name torch's Tensor
    lacks is the script's own attribute, underscore or not; torch's own stay refused."""
    assert gradtrace_output(TENSOR_PRIVATE_ATTRIBUTE) == torch_output(TENSOR_PRIVATE_ATTRIBUTE)
