"""Differential tests against live PyTorch 2.13 (and CPython) for the gaps the realworld
corpus's round 47 (probabilistic and uncertainty code) found: torch.norm's string orders
over more than two dims (normflows' Radial flow takes torch.norm over the event dims of a
3-D latent), linalg.matrix_norm's check order, a name added to a library module
(pytorch-flows' `nn.MaskedLinear = MaskedLinear`) and `reversed()` of a dict's values
(its FlowSequential's inverse pass).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output, torch_outputs_in_child

torch = pytest.importorskip("torch")


NORMS = each_expression([
    "torch.norm(x, dim=(1, 2))", "torch.norm(x, dim=[1, 2, 3])", "x.norm(dim=(1, 2, 3))",
    "torch.norm(x, 'fro', dim=(0, 1, 2, 3), keepdim=True)", "torch.norm(x, 'fro', dim=[])",
    "torch.norm(x, 'fro', dim=2)", "torch.norm(x, 'nuc')", "torch.norm(m, 'nuc')",
    "torch.norm(x, 'nuc', dim=(1, 3))", "torch.norm(x, 'nuc', dim=1)", "torch.norm(x, 'inf')",
    "torch.norm(m, 'bad')", "torch.norm(x, p=2, dim=(1, 2, 3))", "torch.norm(x, None)",
    "torch.norm(x, 3, dim=(0, 1, 2))", "x.norm(p='nuc', dim=(0, 2), keepdim=True)",
    "torch.linalg.matrix_norm(v, 3)", "torch.linalg.matrix_norm(v, 3.0)",
    "torch.linalg.matrix_norm(v, 2.5)", "torch.linalg.matrix_norm(v, 'inf')",
    "torch.linalg.matrix_norm(x, 'inf', dim=(0, 1, 2))", "torch.linalg.matrix_norm(v)",
    "torch.linalg.matrix_norm(x, -1, dim=(0, 1, 2))", "torch.linalg.matrix_norm(m, 1e20)",
], "x = torch.linspace(-2, 3, 60).reshape(2, 3, 2, 5)\nm = x[0, :, 0]\nv = m[0]")


def test_norm_string_orders_follow_torch_functional_norm() -> None:
    """torch.norm/Tensor.norm: 'fro' over at most two dims is the vector 2-norm, over more
    (or any other string) linalg.matrix_norm over the dims given or all of them, which
    refuses them; matrix_norm checks the order before the input's dims and prints a float
    order as c10 does (3.0 as 3)."""
    assert gradtrace_output(NORMS) == torch_output(NORMS)


RADIAL = """import torch
torch.manual_seed(0)
z = torch.randn(3, 5, 2)
z_0 = torch.randn(1, 5, 2, requires_grad=True)
dz = z - z_0
try:
    r = torch.norm(dz, dim=list(range(1, z_0.dim())))
    print(r)
except RuntimeError as e:
    print(type(e).__name__, e)
r = torch.norm(dz.flatten(1), dim=1)
r.sum().backward()
print(r, z_0.grad)
"""


def test_norm_over_three_dims_is_refused_as_torch_does() -> None:
    """normflows' Radial flow on a (5, 2) latent: torch.norm's default 'fro' over two
    event dims of a 3-D tensor works; the flattened form and its gradient agree."""
    assert gradtrace_output(RADIAL) == torch_output(RADIAL)


MODULE_NAMES = """import torch
import torch.nn as nn
import torch.nn.functional as F

class MaskedLinear(nn.Module):
    def __init__(self, n, mask):
        super().__init__()
        self.linear = nn.Linear(n, n)
        self.register_buffer('mask', mask)

    def forward(self, x):
        return F.linear(x, self.linear.weight * self.mask, self.linear.bias)

nn.MaskedLinear = MaskedLinear
torch.nn.helper_constant = 3
F.my_act = lambda x: x * torch.sigmoid(x)
torch.manual_seed(0)
m = nn.Sequential(nn.MaskedLinear(3, torch.tril(torch.ones(3, 3))), nn.ReLU())
out = F.my_act(m(torch.randn(2, 3)))
print(out, nn.helper_constant, torch.nn.MaskedLinear is MaskedLinear)
print(hasattr(nn, 'MaskedLinear'), getattr(torch.nn, 'helper_constant'), hasattr(nn, 'Other'))
nn.helper_constant = 4
print(nn.helper_constant)
"""


def test_a_script_adds_names_to_library_modules() -> None:
    """pytorch-flows patches its MaskedLinear into torch.nn and builds MADE from
    `nn.MaskedLinear`: a name the module lacks is the script's own, seen through every path
    to that module (`nn.` and `torch.nn.`, getattr, hasattr) and replaceable."""
    # (torch in a child: the script writes into the real torch.nn, which this process's
    # other tests read)
    stdout, error = torch_outputs_in_child({"names": MODULE_NAMES})["names"]
    assert not error
    assert gradtrace_output(MODULE_NAMES) == stdout


def test_replacing_a_library_function_stays_refused() -> None:
    """Replacing a name torch defines (`F.relu = ...`) would reach torch's own callers (nn.ReLU
    calls F.relu), which gradtrace's built-in layers do not read: refused, not silently
    different."""
    out = gradtrace_output("import torch.nn.functional as F\nF.relu = lambda x: x\n")
    assert "NotSupportedError" in out and "relu" in out


REVERSED_VIEWS = """import torch.nn as nn
from collections import OrderedDict

d = {'a': 1, 'b': 2, 'c': 3}
print(list(reversed(d.values())), list(reversed(d.items())), list(reversed(d.keys())))
o = OrderedDict(d)
print(list(reversed(o.values())), list(reversed(o.items())), [k for k in reversed(o)])
r = reversed(d.values())
print(type(r).__name__, next(r), list(r))
s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
for name, m in reversed(s._modules.items()):
    print(name, m)
print([type(m).__name__ for m in reversed(s._modules.values())])
"""


def test_reversed_dict_views_iterate() -> None:
    """pytorch-flows' FlowSequential runs its inverse as
    `for module in reversed(self._modules.values())`: reversed views of a dict (and an
    OrderedDict's iterators) are iterable as in CPython."""
    assert gradtrace_output(REVERSED_VIEWS) == torch_output(REVERSED_VIEWS)


CUSTOM_DISTRIBUTION = """import torch
from torch.distributions import Categorical, Distribution, MultivariateNormal, Normal, constraints

class MoG(Distribution):
    def __init__(self, loc, covariance_matrix):
        self.loc = loc
        self.covariance_matrix = covariance_matrix
        self.dists = [MultivariateNormal(m, covariance_matrix=c)
                      for m, c in zip(loc, covariance_matrix)]
        super().__init__(torch.Size([]), torch.Size([loc.size(-1)]))

    @property
    def arg_constraints(self):
        return self.dists[0].arg_constraints

class Scaled(Distribution):
    arg_constraints = {'scale': constraints.positive, 'rate': constraints.positive}

    def __init__(self, scale, validate_args=None):
        self.scale = scale
        super().__init__(torch.Size([]), validate_args=validate_args)

    @property
    def rate(self):
        return 1 / self.scale

loc = torch.zeros(2, 2)
cov = torch.eye(2).repeat(2, 1, 1)
for make in (lambda: MoG(loc, cov), lambda: Scaled(torch.tensor(2.0)),
             lambda: Scaled(torch.tensor(-2.0)), lambda: Scaled(torch.tensor(-2.0), False),
             lambda: Categorical(logits=torch.zeros(3)), lambda: Normal(0.0, 1.0)):
    try:
        d = make()
        print(type(d).__name__, d.batch_shape, d.event_shape)
    except (AttributeError, ValueError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
"""


def test_distribution_validation_looks_arguments_up_on_the_class() -> None:
    """activatedgeek's Stein notebook: a Distribution subclass returning
    MultivariateNormal's arg_constraints without precision_matrix/scale_tril attributes;
    torch looks a parameter missing from the instance up on the class
    (`getattr(type(self), param)`), so the error names the type object; a property
    parameter is validated through the instance, a lazy one skipped."""
    assert gradtrace_output(CUSTOM_DISTRIBUTION) == torch_output(CUSTOM_DISTRIBUTION)
