"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 103
(scientific machine learning: Hamiltonian/Lagrangian networks, neural operators, SIREN,
molecular energies and forces) found.

- The gradient torch.cdist's direct kernel (CdistBackward0) hands back is the op
  `_cdist_backward`, whose derivative torch does not implement: under create_graph=True a
  force computed through cdist has grad_fn CdistBackwardBackward0 (next_functions: grad, x1,
  x2, the distances), and differentiating it again raises torch's NotImplementedError. It was
  computed as a constant, so a force-matching loss ended in "element 0 of tensors does not
  require grad". torch.pdist likewise: PdistBackwardBackward0 (grad, self, the distances,
  which PdistBackward0 now saves as its output, so modifying them in place is caught).
- GELU with approximate='tanh' differentiated three times (a PINN's second derivative of a
  tanh-GELU network, then its loss's backward): gelu_double_backward's tanh branch was
  computed as a constant, so the third derivative lost that term (or had no graph at all);
  it is now built op for op as torch's, like the exact-GELU branch.
- create_graph through a complex product's gradient (grad * other.conj(): mul, exp,
  reciprocal, pow's backward) was refused; it now records torch's ConjBackward0 and
  MulBackward0, so a physics-informed loss on a Fourier layer's input gradient (an FNO
  differentiated with respect to its input, then trained) runs.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


CDIST_DOUBLE = """import torch
torch.manual_seed(0)
def edges(fn):
    return [(f.name() if f is not None else None, i) for f, i in fn.next_functions]
x = torch.randn(5, 3, requires_grad=True)
y = torch.randn(4, 3, requires_grad=True)
for p in [2.0, 1.0, 3.0, 0.5, float('inf')]:
    d = torch.cdist(x, y, p=p)
    g = torch.autograd.grad(d.sum(), [x, y], create_graph=True)
    print(p, g[0], g[1])
    print(g[0].grad_fn.name(), edges(g[0].grad_fn))
    print(edges(g[1].grad_fn), edges(g[1].grad_fn.next_functions[3][0]))
    try:
        g[0].pow(2).sum().backward()
    except NotImplementedError as e:
        print(type(e).__name__, e)
w = torch.randn(5, 4, requires_grad=True)
g = torch.autograd.grad(torch.cdist(x, y), [x, y], w, create_graph=True)
print(edges(g[0].grad_fn))
print(edges(g[1].grad_fn), edges(g[1].grad_fn.next_functions[0][0]))
a = torch.randn(2, 1, 5, 3, requires_grad=True)
b = torch.randn(3, 4, 3, requires_grad=True)
g = torch.autograd.grad(torch.cdist(a, b, p=1.5).sum(), [a, b], create_graph=True)
print(g[0].shape, g[1].shape, g[0].grad_fn.name(), edges(g[1].grad_fn))
print(g[0].sum().item(), g[1].sum().item())
c = torch.randn(4, 3)
gx, = torch.autograd.grad(torch.cdist(x, c).sum(), x, create_graph=True)
print(edges(gx.grad_fn))
gx, = torch.autograd.grad(torch.cdist(x, c).sum(), x)
print(gx, gx.requires_grad)
e = (1 / (torch.cdist(x, x) + torch.eye(5))).triu(1).sum()
f = -torch.autograd.grad(e, x, create_graph=True)[0]
try:
    (f - 1).pow(2).mean().backward()
except NotImplementedError as err:
    print(err)
"""


def test_cdist_gradient_under_create_graph_is_torchs_not_implemented_node() -> None:
    """cdist's direct-kernel gradient records CdistBackwardBackward0 with torch's inputs
    (x2's through the transposed gradient and distances) and raises torch's
    NotImplementedError when differentiated; batched inputs reduce through sum_to's nodes."""
    assert gradtrace_output(CDIST_DOUBLE) == torch_output(CDIST_DOUBLE)


PDIST_DOUBLE = """import torch
torch.manual_seed(0)
def edges(fn):
    return [(f.name() if f is not None else None, i) for f, i in fn.next_functions]
x = torch.randn(5, 3, requires_grad=True)
for p in [2.0, 1.0, 3.0, 0.5, float('inf'), 0.0]:
    d = torch.pdist(x, p=p)
    g, = torch.autograd.grad(d.sum(), x, create_graph=True)
    print(p, g, g.grad_fn.name(), edges(g.grad_fn))
    print(d.grad_fn._saved_result.equal(d), d.grad_fn._saved_p)
    try:
        g.pow(2).sum().backward()
    except NotImplementedError as e:
        print(type(e).__name__, e)
w = torch.randn(10, requires_grad=True)
g, = torch.autograd.grad(torch.pdist(x), x, w, create_graph=True)
print(edges(g.grad_fn))
g, = torch.autograd.grad(torch.pdist(x).sum(), x)
print(g.requires_grad, g.grad_fn)
d = torch.pdist(x)
d.add_(1)
try:
    d.sum().backward()
except RuntimeError as e:
    print(e)
y = torch.nn.functional.pdist(x * 2)
y.sum().backward()
print(x.grad)
"""


def test_pdist_gradient_under_create_graph_is_torchs_not_implemented_node() -> None:
    """pdist's gradient records PdistBackwardBackward0 (grad, self, the saved distances),
    raises torch's NotImplementedError when differentiated, and the distances saved as an
    output are version-checked."""
    assert gradtrace_output(PDIST_DOUBLE) == torch_output(PDIST_DOUBLE)


GELU_TANH_THIRD = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for dtype in [torch.float32, torch.float64]:
    x = (torch.randn(7, dtype=dtype) * 2).requires_grad_()
    for approximate in ['tanh', 'none']:
        y = F.gelu(x, approximate=approximate)
        g, = torch.autograd.grad(y.sum(), x, create_graph=True)
        h, = torch.autograd.grad(g.sum(), x, create_graph=True)
        t, = torch.autograd.grad(h.sum(), x, create_graph=True)
        q, = torch.autograd.grad(t.sum(), x)
        print(approximate, h.grad_fn.name(), t.grad_fn.name())
        print(h.tolist())
        print(t.tolist())
        print(q.tolist())
net = torch.nn.Sequential(torch.nn.Linear(1, 8), torch.nn.GELU(approximate='tanh'),
                          torch.nn.Linear(8, 1))
xs = torch.linspace(-1, 1, 5).unsqueeze(1).requires_grad_()
u = net(xs)
u_x, = torch.autograd.grad(u.sum(), xs, create_graph=True)
u_xx, = torch.autograd.grad(u_x.sum(), xs, create_graph=True)
loss = (u_xx + u).pow(2).mean()
loss.backward()
print(loss.item(), net[0].weight.grad.flatten().tolist())
"""


def test_gelu_tanh_third_derivative_is_torchs_op_for_op_double_backward() -> None:
    """gelu_double_backward's tanh branch is differentiable again, with torch's values bit
    for bit in float32 and float64 (third and fourth derivatives, and a PINN-style loss)."""
    assert gradtrace_output(GELU_TANH_THIRD) == torch_output(GELU_TANH_THIRD)


COMPLEX_DOUBLE = """import torch
torch.manual_seed(0)
def edges(fn):
    return [(f.name() if f is not None else None, i) for f, i in fn.next_functions]
a = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
b = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
y = ((a * b).real ** 2).sum() + (a * b.conj()).imag.sum()
ga, gb = torch.autograd.grad(y, [a, b], create_graph=True)
print(ga, gb, ga.grad_fn.name(), edges(ga.grad_fn))
(ga * ga.conj()).real.sum().backward()
print(a.grad, b.grad)
x = torch.randn(3, requires_grad=True)
w = torch.randn(3, dtype=torch.cdouble, requires_grad=True)
z = (x * w).real.pow(2).sum() + (w.exp() * x).imag.sum()
gx, gw = torch.autograd.grad(z, [x, w], create_graph=True)
print(gx, gw, gx.grad_fn.name())
(gx.sum() + (gw * gw.conj()).real.sum()).backward()
print(x.grad, w.grad)
"""

FNO_INPUT_GRADIENT = """import torch
import torch.nn as nn
torch.manual_seed(0)
def edges(fn):
    return [(f.name() if f is not None else None, i) for f, i in fn.next_functions]
class SpectralConv1d(nn.Module):
    def __init__(self, cin, cout, modes):
        super().__init__()
        self.modes = modes
        self.w = nn.Parameter(torch.rand(cin, cout, modes, dtype=torch.cfloat) / (cin * cout))
    def forward(self, x):
        x_ft = torch.fft.rfft(x)
        out = torch.zeros(x.shape[0], self.w.shape[1], x.shape[-1] // 2 + 1, dtype=torch.cfloat)
        out[:, :, :self.modes] = torch.einsum("bix,iox->box", x_ft[:, :, :self.modes], self.w)
        return torch.fft.irfft(out, n=x.shape[-1])
layer = SpectralConv1d(2, 3, 4)
x = torch.randn(2, 2, 16, requires_grad=True)
y = layer(x)
g, = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
print(g[0, 0, :5].tolist(), g.grad_fn.name())
loss = g.pow(2).mean() + y.mean()
loss.backward()
print(loss.item())
print(torch.view_as_real(layer.w.grad).flatten().tolist())
print(x.grad.flatten().tolist())
h = torch.fft.fft2(torch.randn(3, 4, dtype=torch.cdouble, requires_grad=True) * 1j)
"""


def test_complex_product_gradient_under_create_graph_records_conj_and_mul() -> None:
    """grad * other.conj() under create_graph: MulBackward0 over ConjBackward0 (a real
    factor is used itself), differentiable again with torch's values."""
    assert gradtrace_output(COMPLEX_DOUBLE) == torch_output(COMPLEX_DOUBLE)


def test_fourier_layer_input_gradient_trains_like_torch() -> None:
    """A spectral convolution (rfft, complex einsum on the low modes, irfft) differentiated
    with respect to its input with create_graph=True, that gradient's penalty backpropagated
    into the complex weights: torch's values bit for bit."""
    assert gradtrace_output(FNO_INPUT_GRADIENT) == torch_output(FNO_INPUT_GRADIENT)


COMPLEX_UNARY_DOUBLE = """import torch
torch.manual_seed(0)
w = torch.randn(4, dtype=torch.cdouble, requires_grad=True)
fs = [('reciprocal', lambda t: t.reciprocal()), ('pow3', lambda t: t ** 3),
      ('pow2', lambda t: t.pow(2)), ('exp', torch.exp), ('div_num', lambda t: 2.0 / t)]
for name, f in fs:
    z = f(w)
    s = (z * z.conj()).real.sum()
    try:
        g, = torch.autograd.grad(s, w, create_graph=True)
        (g * g.conj()).real.sum().backward()
        print(name, g.tolist(), w.grad.tolist())
        w.grad = None
    except Exception as e:
        print(name, type(e).__name__)
"""


def test_complex_reciprocal_pow_exp_gradients_under_create_graph_like_torch() -> None:
    """reciprocal's, pow's, exp's and a number over a tensor's complex gradients go through the
    same conj product: differentiable again, torch's values to the last bit."""
    assert gradtrace_output(COMPLEX_UNARY_DOUBLE) == torch_output(COMPLEX_UNARY_DOUBLE)
