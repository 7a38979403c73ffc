"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 25
found: `from torch.optim.sgd import SGD` (the optimizers' own modules, importable but not
attributes of torch.optim, which deletes them); Optimizer.zero_grad reading `defaults` first,
as torch's does (alphadl's Lookahead never runs Optimizer.__init__); and torch.func's vjp
and jvp inside vmap (the neural tangent kernel tutorial), where a function closing over a
batched tensor got zeros (vjp) or an AttributeError (jvp).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


OPTIMIZER_MODULES = """import torch
import torch.optim.sgd as sgd_module
from torch.optim.sgd import SGD, sgd
from torch.optim.adam import Adam, adam
from torch.optim.adamw import AdamW
from torch.optim.rmsprop import RMSprop
from torch.optim.lbfgs import LBFGS
from torch.optim.optimizer import Optimizer
print(SGD is torch.optim.SGD, Adam is torch.optim.Adam, AdamW is torch.optim.AdamW)
print(sgd_module.SGD is SGD, RMSprop.__name__, LBFGS.__name__, callable(sgd), callable(adam))
print(hasattr(torch.optim, 'sgd'), hasattr(torch.optim, 'adam'),
      hasattr(torch.optim, 'optimizer'), hasattr(torch.optim, 'lr_scheduler'))
p = torch.nn.Parameter(torch.ones(2))
opt = SGD([p], lr=0.5)
p.sum().backward()
opt.step()
print(p)
import torch.optim.optimizer
print(torch.optim.optimizer)
"""


def test_optimizer_modules_import_like_torch() -> None:
    """torch/optim/<name>.py is importable (warmup schedulers' `from torch.optim.sgd import
    SGD`), but torch/optim/__init__.py deletes the module names from the package, so
    `torch.optim.sgd` and `torch.optim.optimizer` are AttributeErrors."""
    assert gradtrace_output(OPTIMIZER_MODULES) == torch_output(OPTIMIZER_MODULES)


ZERO_GRAD_DEFAULTS = """import torch
from torch.optim import Optimizer
class Wrapper(Optimizer):
    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.param_groups = optimizer.param_groups
        self.state = {}
p = torch.nn.Parameter(torch.ones(2))
w = Wrapper(torch.optim.SGD([p], lr=0.1))
w.defaults = {"foreach": None}
p.sum().backward()
w.zero_grad()
print(p.grad)
del w.defaults
w.zero_grad()
"""


def test_zero_grad_reads_defaults_first_like_torch() -> None:
    """torch's zero_grad starts with `self.defaults.get("foreach", ...)`: an Optimizer
    subclass that never ran Optimizer.__init__ (and has no defaults) fails there."""
    assert gradtrace_output(ZERO_GRAD_DEFAULTS) == torch_output(ZERO_GRAD_DEFAULTS)


VJP_IN_VMAP = """import torch
from torch.func import vjp, vmap
w = torch.tensor([1., 2., 3.])
def outer(x):
    out, fn = vjp(lambda p: p * x + p.sin(), w)
    return fn(torch.ones(3))[0], vmap(lambda v: fn(v)[0])(torch.eye(3)), out
print(outer(torch.tensor([2., 3., 4.])))
print(vmap(outer)(torch.tensor([[2., 3., 4.], [5., 6., 7.]])))
def both(x, y):
    out, fn = vjp(lambda a, b: a * b * x, w, w.cos())
    return fn(y)
print(vmap(both)(torch.tensor([[1., 2., 3.], [4., 5., 6.]]), torch.ones(2, 3)))
print(vmap(both, (0, None))(torch.tensor([[1., 2., 3.], [4., 5., 6.]]), torch.ones(3)))
"""


def test_vjp_inside_vmap_like_torch() -> None:
    """vjp inside vmap of a function closing over the batched tensor gives each example's
    products (gradtrace gave zeros), also when vjp_fn runs under a newer vmap."""
    assert gradtrace_output(VJP_IN_VMAP) == torch_output(VJP_IN_VMAP)


NTK_VPS = """import torch
import torch.nn as nn
from torch.func import functional_call, vmap, vjp, jvp
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
params = {k: v.detach() for k, v in net.named_parameters()}
def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)
def get_ntk(x1, x2):
    def func_x1(params):
        return fnet_single(params, x1)
    def func_x2(params):
        return fnet_single(params, x2)
    output, vjp_fn = vjp(func_x1, params)
    def get_ntk_slice(vec):
        vjps = vjp_fn(vec)
        _, jvps = jvp(func_x2, (params,), vjps)
        return jvps
    basis = torch.eye(output.numel(), dtype=output.dtype).view(output.numel(), -1)
    return vmap(get_ntk_slice)(basis)
x1, x2 = torch.randn(3, 3), torch.randn(2, 3)
print(get_ntk(x1[0], x2[0]))
print(vmap(get_ntk, (None, 0))(x1[0], x2))
print(vmap(get_ntk, (0, None))(x1, x2[0]))
print(vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2))
w = torch.tensor([1., 2.])
print(vmap(lambda x: jvp(lambda p: (p * x).exp(), (w,), (x,)))(torch.tensor([[1., 0.], [2., 3.]])))
"""


def test_jvp_inside_vmap_like_torch() -> None:
    """jvp inside vmap runs forward AD on the batched duals: its tangents batched (a dict
    from vjp_fn) or its function closing over a batched tensor (gradtrace raised "'Tensor'
    object has no attribute '_fw_grad'" or gave zeros)."""
    assert gradtrace_output(NTK_VPS) == torch_output(NTK_VPS)
