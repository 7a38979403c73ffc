"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 106
(control, robotics and differentiable simulation) found: an in-place op on a view of a tensor
without a tangent, whose new value has one (a pendulum's dynamics fill `y = torch.zeros(2)`
by `y[0] = x[1]` inside torch.func.jacfwd): torch gives the base a zero tangent and writes the
view's tangent into its window of it.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


VIEW_WRITE = """import torch
import torch.autograd.forward_ad as fwAD
from torch.func import jacfwd, jvp
x = torch.tensor([0.1, 0.2])
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.tensor([1.0, 2.0]))
    y = torch.zeros(2)
    y[0] = d[1]
    print(fwAD.unpack_dual(y).tangent)
    y[1] = d[0] * 2
    print(fwAD.unpack_dual(y).tangent)
    s = torch.zeros(2)
    s.select(0, 1).copy_(d[0])
    print(fwAD.unpack_dual(s).tangent)
    m = torch.zeros(3)
    v = m[1:]
    v.mul_(d)
    print(fwAD.unpack_dual(m).tangent, fwAD.unpack_dual(v).tangent)
    v.add_(d)
    print(fwAD.unpack_dual(m).tangent, fwAD.unpack_dual(v).tangent)
    g = torch.zeros(2, 3)
    g[:, 1] = d
    print(fwAD.unpack_dual(g).tangent)
    tt = torch.zeros(3, 2)
    tt.t()[1] = d.repeat(2)[:3]
    print(fwAD.unpack_dual(tt).tangent)
    w = torch.zeros(2, dtype=torch.float64)
    w[0] = d[1]
    print(fwAD.unpack_dual(w).tangent)
    n = torch.zeros(2)
    n[0] = 5.0
    print(fwAD.unpack_dual(n).tangent)


def f(x):
    y = torch.zeros(2)
    y[0] = x[1]
    y[1] = -9.81 * torch.sin(x[0])
    return y


x = torch.tensor([0.3, -0.2])
print(jvp(f, (x,), (torch.tensor([1.0, 2.0]),)))
print(jacfwd(f)(x))
print(jacfwd(lambda x: x + 0.01 * f(x))(x))
"""


def test_inplace_on_a_view_gives_its_base_a_tangent() -> None:
    """`y[i] = dual` into a tensor without a tangent: the base gets a zero tangent with the
    written window's tangent, so jvp and jacfwd see the assignment."""
    assert gradtrace_output(VIEW_WRITE) == torch_output(VIEW_WRITE)
