"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 107
(LLM fine-tuning and alignment code) found: the memory layout of elementwise results whose
operands have different layouts. TensorIterator lays the result out by the first operand
whose strides order the dims (`x.t() + y` is column-major, like `x.t()`), where numpy's
ufuncs let a row-major operand win. modded-nanogpt's Muon runs `a * X + b * B + c * A @ B`
in bfloat16 on a transposed X: the sum came out row-major, so the next `X @ X.T` ran the
gemm loop of another layout (another order of additions) and the weights drifted in their
last bits from the second optimizer step on; a later `.sum()` walks memory in the layout's
order too.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


BFLOAT16_SUM = """import torch
torch.manual_seed(0)
X = torch.randn(64, 16).bfloat16().T
B = torch.randn(16, 64).bfloat16()
for out in (X + B, B + X, X - B, X * B, X / B, 3.4 * X + B, X + B.float(), B.float() + X):
    print(out.dtype, out.stride(), out.float().sum().item())
Y = X.clone()
for _ in range(3):
    A = Y @ Y.T
    Y = 3.4445 * Y + -4.7750 * (A @ Y) + 2.0315 * A @ (A @ Y)
    print(Y.stride(), Y.float().sum().item(), Y.float().norm().item())
"""


def test_bfloat16_arithmetic_is_laid_out_by_its_first_operand() -> None:
    """A bfloat16 add/sub/mul/div of a transposed and a row-major tensor keeps the first
    one's (column-major) layout, as the float32 ones do; a Newton-Schulz iteration over it
    then multiplies and sums in torch's order."""
    assert gradtrace_output(BFLOAT16_SUM) == torch_output(BFLOAT16_SUM)


BINARY_OPS = """import torch
torch.manual_seed(0)
X = torch.randn(6, 4).T
B = torch.randn(4, 6)
P = B.abs() + 0.5
outs = {
    "add_alpha": torch.add(X, B, alpha=2), "sub_alpha": torch.sub(X, B, alpha=0.5),
    "hypot": torch.hypot(X, B), "fmod": torch.fmod(X, P), "remainder": torch.remainder(X, P),
    "xlogy": torch.xlogy(X, P), "copysign": torch.copysign(X, B),
    "nextafter": torch.nextafter(X, B), "floor_divide": torch.floor_divide(X, P),
    "div_trunc": torch.div(X, P, rounding_mode="trunc"),
    "div_floor": torch.div(X, P, rounding_mode="floor"),
    "fmax": torch.fmax(X, B), "fmin": torch.fmin(X, B), "heaviside": torch.heaviside(X, B),
    "ldexp": torch.ldexp(X, torch.ones(4, 6, dtype=torch.int64)),
    "xlog1py": torch.special.xlog1py(X, P), "zeta": torch.special.zeta(X.abs() + 1.5, P),
    "igamma": torch.igamma(X.abs() + 0.1, P), "igammac": torch.igammac(X.abs() + 0.1, P),
    "complex": torch.complex(X, B), "polar": torch.polar(P.T.contiguous().T, B),
    "isclose": torch.isclose(X, B), "fmod_row": torch.fmod(X, P[0]),
    "hypot_expanded": torch.hypot(X, B[:, :1].expand(4, 6)),
}
for name, out in outs.items():
    print(name, out.stride(), out.dtype)
print(outs["add_alpha"].sum().item(), outs["hypot"].sum().item(), outs["fmod"].sum().item())
"""


def test_binary_elementwise_ops_are_laid_out_by_their_first_operand() -> None:
    """add/sub with alpha, hypot, fmod, remainder, xlogy, copysign, nextafter, the rounding
    divisions, fmax/fmin, heaviside, ldexp, xlog1py, zeta, igamma(c), complex, polar and
    isclose of a transposed and a row-major tensor: column-major, as torch gives them (and a
    sum over them adds in that order)."""
    assert gradtrace_output(BINARY_OPS) == torch_output(BINARY_OPS)


GRADIENTS = """import torch
torch.manual_seed(0)
X = torch.randn(5, 3, requires_grad=True)
B = torch.randn(3, 5, requires_grad=True)
out = torch.hypot(X.T, B) + torch.fmod(X.T, 0.7) + torch.add(X.T, B, alpha=-0.3)
print(out.stride(), out.grad_fn.name())
(out * torch.arange(15.0).view(3, 5)).sum().backward()
print(X.grad, X.grad.stride())
print(B.grad, B.grad.stride())
W = torch.randn(3, 5).T
W.add_(torch.randn(5, 3), alpha=0.1)
print(W.stride(), W.sum().item())
"""


def test_laid_out_results_keep_their_gradients() -> None:
    """The column-major results record the same nodes, and their gradients (and an in-place
    add with alpha into a transposed tensor) are torch's."""
    assert gradtrace_output(GRADIENTS) == torch_output(GRADIENTS)
