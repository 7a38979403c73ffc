"""Differential tests against live PyTorch 2.13 for gaps found by probing as a user would
(session 39): softshrink's and hardshrink's backward as ops of their own.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("fn", ["F.softshrink", "F.hardshrink"])
def test_shrink_gradients_record_torchs_backward_node_under_create_graph(fn: str) -> None:
    """torch records <Soft|Hard>shrinkBackwardBackward0 (self saved, its gradient zero);
    gradtrace's `where` of a mask recorded nothing, so a second grad found no graph."""
    script = f"""import torch
import torch.nn.functional as F
x = torch.tensor([-1.0, -0.3, float('nan'), 0.0, 0.3, 0.31, 2.0], requires_grad=True)
y = {fn}(x, 0.3)
g, = torch.autograd.grad((y * torch.arange(7.)).sum(), x, create_graph=True)
print(g, g.grad_fn.name(), [type(n[0]).__name__ for n in g.grad_fn.next_functions])
print(g.grad_fn._saved_lambd, g.grad_fn._saved_self)
print(torch.autograd.grad(g.sum(), x, allow_unused=True))
a = torch.randn(5, 7).t().contiguous().t().requires_grad_()
seen = []
a.register_hook(lambda grad: seen.append(grad.stride()))
{fn}(a, 0.5).backward(torch.randn(5, 7))
print(seen)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_sinc_and_logit_gradients_match_torchs_formulas() -> None:
    """sinc_backward multiplies grad by the quotient (grad * (... / (pi x^2))), not the
    quotient of the product (last bits); logit's backward is NaN outside [0, 1] (0 outside
    [eps, 1 - eps]) and under create_graph records torch's where(inside, grad / ..., fill)."""
    script = """import torch
torch.manual_seed(0)
x = torch.randn(1000, requires_grad=True)
w = torch.randn(1000)
g, = torch.autograd.grad((torch.sinc(x) * w).sum(), x)
print(g.sum().item(), g[:5].tolist())
for eps in [None, 0.2]:
    y = torch.tensor([-0.5, 0.0, 0.1, 0.5, 0.9, 1.0, 1.5], requires_grad=True)
    print(torch.autograd.grad(torch.logit(y, eps).sum(), y))
    g2, = torch.autograd.grad(torch.logit(y, eps).sum(), y, create_graph=True)
    print(g2, g2.grad_fn.name(), [n[0].name() if n[0] else None for n in g2.grad_fn.next_functions])
    print(torch.autograd.grad(g2.sum(), y))
"""
    assert gradtrace_output(script) == torch_output(script)


@pytest.mark.parametrize("shape", [(4, 20, 6), (2, 3, 5), (8, 33, 3), (5, 40, 8)])
def test_batch_norm_of_a_transposed_input_runs_torchs_tensoriterator_path(shape) -> None:
    """`bn(x.transpose(1, 2))` (sequence models' BatchNorm1d over channels-last data) takes
    Normalization.cpp's non-contiguous path: at::mean, squared deviations added in double
    in memory order, ((x - mean) * invstd) * w + b unfused; its backward likewise, also
    for a contiguous input whose gradient arrives transposed. It was computed on a
    contiguous copy (noted inexact)."""
    script = f"""import torch
import torch.nn as nn
torch.manual_seed(0)
B, L, C = {shape}
bn = nn.BatchNorm1d(C)
with torch.no_grad():
    bn.weight.uniform_(0.5, 1.5)
    bn.bias.uniform_(-0.5, 0.5)
x = (torch.randn(B, L, C) * 3 + 1).requires_grad_()
y = bn(x.transpose(1, 2))
print(y.stride(), y.sum().item(), y[0, :, 0].tolist())
print(bn.running_mean.tolist(), bn.running_var.tolist())
(y * torch.randn(B, C, L)).sum().backward()
print(x.grad.sum().item(), x.grad[0, 0].tolist(), bn.weight.grad.tolist(), bn.bias.grad.tolist())
bn.eval()
z = bn(x.transpose(1, 2))
print(z.sum().item(), z[0, :, 1].tolist())
bn.train()
x.grad = None
y2 = bn(x.transpose(1, 2).contiguous())
(y2.transpose(1, 2) * torch.randn(B, L, C)).sum().backward()
print(x.grad.sum().item(), bn.weight.grad.tolist())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_abcmeta_register_is_a_bound_method_as_in_python() -> None:
    script = """from abc import ABC, ABCMeta, abstractmethod
class A(ABC):
    @abstractmethod
    def f(self): ...
class L(metaclass=ABCMeta):
    pass
print(repr(A.register).split(" of ")[0])  # (the class's repr names the module)
print(type(L.register).__name__, L.register.__name__, L.register.__qualname__)
L.register(int)
print(isinstance(3, L), issubclass(bool, L))
"""
    assert gradtrace_output(script) == torch_output(script)


@pytest.mark.parametrize("layer", ["nn.ReflectionPad2d(1)", "nn.ReplicationPad2d(1)",
                                   "nn.ReflectionPad1d(2)", "nn.ReplicationPad3d(1)"])
def test_mapped_padding_gradients_are_row_major_as_torchs(layer: str) -> None:
    """reflection/replication_pad backward fills zeros_like(self, the legacy contiguous
    format); gradtrace's came out in another order, so a BatchNorm before the padding
    (the siamese network's) took its non-contiguous backward path."""
    shape = {"1d": "(2, 4, 8)", "2d": "(2, 4, 8, 8)", "3d": "(2, 4, 4, 4, 4)"}[layer[-5:-3]]
    script = f"""import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.randn{shape}.requires_grad_()
h = x * 1
seen = []
h.register_hook(lambda g: seen.append((g.stride(), g.is_contiguous())))
out = {layer}(h)
(out * torch.randn(out.shape)).sum().backward()
print(seen, x.grad.sum().item())
"""
    assert gradtrace_output(script) == torch_output(script)
