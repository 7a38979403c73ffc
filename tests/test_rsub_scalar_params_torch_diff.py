"""Differential tests against live PyTorch 2.13: torch.rsub of two tensors records
RsubBackward0 with edges (self, other) (gradtrace recorded SubBackward0 with them swapped),
Tensor has no rsub method (gradtrace had one); and activations' Scalar parameters
(leaky_relu's negative_slope, hardtanh's min_val/max_val, elu's alpha, ...) take a 0-dim
tensor that requires no grad as its item, as torch's argument parser does, and refuse any
other tensor with its TypeError (gradtrace computed with the tensor, or failed in numpy).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SETUP = """
import torch.nn.functional as F
x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
t = torch.tensor(0.2)
def node(r):
    fn = r.grad_fn
    return fn.name(), [type(n).__name__ for n, _ in fn.next_functions], fn._saved_alpha
def grads(f):
    x.grad = y.grad = None
    f().sum().backward()
    return x.grad, y.grad
def saved(r, *names):
    return r, [getattr(r.grad_fn, '_saved_' + n) for n in names]
"""

RSUB = [
    "node(torch.rsub(x, y))", "node(torch.rsub(x, y, alpha=2))", "node(torch.rsub(x, 2))",
    "node(1 - x)", "node(torch.tensor(1.) - x)", "torch.rsub(x, y, alpha=3)",
    "grads(lambda: torch.rsub(x, y))", "grads(lambda: torch.rsub(x, y, alpha=2) * y)",
    "grads(lambda: torch.rsub(y, x, alpha=0.5))", "torch.rsub(x.detach(), 3, alpha=2)",
    "x.rsub(y)", "x.rsub(2)", "torch.rsub(torch.tensor([True]), torch.tensor([True]))",
    "torch.rsub(torch.tensor([1, 2]), torch.tensor([3, 4]), alpha=2)",
    "torch.sub(y.detach(), x.detach(), alpha=2)", "torch.add(x.detach(), y.detach(), alpha=-1)",
]


def test_rsub_records_torch_nodes() -> None:
    script = each_expression(RSUB, SETUP)
    assert gradtrace_output(script) == torch_output(script)


SCALAR_PARAMS = [
    "saved(F.leaky_relu(x, t), 'negative_slope')",
    "saved(F.leaky_relu(x, torch.tensor(2)), 'negative_slope')",
    "F.leaky_relu(x, torch.tensor(0.2, requires_grad=True))",
    "F.leaky_relu(x, torch.tensor([0.2]))", "F.leaky_relu(x, 'a')", "F.leaky_relu(x, None)",
    "saved(F.leaky_relu(x, True), 'negative_slope')",
    "F.leaky_relu(x.detach().clone(), t, inplace=True)", "F.leaky_relu_(x.detach().clone(), t)",
    "saved(torch.nn.LeakyReLU(t)(x), 'negative_slope')",
    "saved(F.hardtanh(x, torch.tensor(-1.), 1.), 'min_val', 'max_val')",
    "saved(F.hardtanh(x, -1, torch.tensor(1.)), 'min_val', 'max_val')",
    "F.hardtanh(x, torch.tensor([-1., 0.]), 1.)",
    "F.hardtanh(x, torch.tensor(-1., requires_grad=True), 1.)",
    "F.hardtanh_(x.detach().clone(), torch.tensor(-1.), 1.)",
    "saved(torch.nn.Hardtanh(torch.tensor(-1.), 1.)(x), 'min_val', 'max_val')",
    "saved(F.elu(x, torch.tensor(0.5)), 'alpha')", "F.elu(x, torch.tensor([0.5, 1.]))",
    "F.elu(x, torch.tensor(0.5, requires_grad=True))", "F.elu_(x.detach().clone(), t)",
    "saved(torch.nn.ELU(torch.tensor(0.5))(x), 'alpha')",
    "saved(F.celu(x, torch.tensor(0.5)), 'alpha')", "F.celu(x, torch.tensor([0.5]))",
    "saved(F.softplus(x, torch.tensor(2.)), 'beta', 'threshold')",
    "saved(F.softplus(x, 1, torch.tensor(2.)), 'beta', 'threshold')",
    "saved(F.threshold(x, torch.tensor(0.), 0.), 'threshold')",
    "F.threshold(x, 0., torch.tensor(1.))", "F.threshold(x, 0., torch.tensor([1.]))",
    "saved(F.hardshrink(x, t), 'lambd')", "saved(F.softshrink(x, t), 'lambd')",
    "F.softshrink(x, torch.tensor([0.5]))",
    "saved(F.rrelu(x, torch.tensor(0.1), 0.3), 'lower', 'upper', 'training')",
    "F.rrelu(x, torch.tensor([0.1]), 0.3)",
]


def test_activation_scalar_parameters_take_0dim_tensors_like_torch() -> None:
    script = each_expression(SCALAR_PARAMS, SETUP)
    assert gradtrace_output(script) == torch_output(script)
