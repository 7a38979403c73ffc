"""torch.nn.utils' weight normalisation and nn.init.orthogonal_ (issue 12): float64
finite-difference gradchecks of torch._weight_norm through the fused node
(WeightNormInterfaceBackward0, first and last dim) and through norm_except_dim's composite
(a middle dim, dim=-1), second derivatives through torch's differentiable backward, and the
nodes torch records. The torch-recorded parity cases are
tests/conformance_extra/{weight_norm_kernels,nn_utils_weight_and_spectral_norm,
nn_init_orthogonal_and_deprecated}.gt."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import TORCH as torch
from ops_helpers import gradcheck

from gradtrace.engine.tensor import Tensor
from gradtrace.runner import run_text

SHAPES = {"first": ((3, 5), 0), "last": ((4, 3), 1), "conv_first": ((3, 2, 2, 2), 0),
          "conv_last": ((3, 2, 2, 2), 3), "middle": ((3, 2, 2, 2), 1), "all": ((3, 4), -1)}


def _inputs(shape: tuple[int, ...], dim: int) -> list[Tensor]:
    r = np.random.default_rng([11, len(shape), dim + 1])
    v = r.standard_normal(shape)
    g_shape = [1] * len(shape) if dim == -1 else [
        n if d == dim else 1 for d, n in enumerate(shape)]
    g = r.uniform(0.5, 2.0, g_shape)
    return [Tensor(a, requires_grad=True) for a in (v, g)]


@pytest.mark.parametrize("case", list(SHAPES))
def test_weight_norm_gradients_match_finite_differences(case: str) -> None:
    shape, dim = SHAPES[case]
    assert gradcheck(lambda v, g: torch._weight_norm(v, g, dim), _inputs(shape, dim))


@pytest.mark.parametrize("case", ["first", "last"])
def test_weight_norm_second_derivatives_hold_the_norms_constant_as_torchs_do(case: str) -> None:
    """torch's _weight_norm_differentiable_backward reads the saved norms, which are not
    differentiable, so its double backward is not the true one (torch's own gradgradcheck
    fails); it is finite differences of that formula with the norms fixed."""
    shape, dim = SHAPES[case]
    v, g = _inputs(shape, dim)
    norms = torch.norm_except_dim(v, 2, dim).detach()
    grad_w = Tensor(np.random.default_rng(3).standard_normal(shape))

    def formula(v, g):
        sums = (grad_w * v).sum(tuple(d for d in range(v.ndim) if d != dim), keepdim=True)
        return (g / norms) * (grad_w - v * (sums / (norms * norms))), sums / norms

    def through_backward(v, g):
        w = torch._weight_norm(v, g, dim)
        return torch.autograd.grad(w, (v, g), grad_w, create_graph=True)

    assert torch._weight_norm_interface(v, g, dim)[1].requires_grad is False
    ours, expected = through_backward(v, g), formula(v, g)
    for a, b in zip(ours, expected, strict=True):
        assert np.allclose(a.array, b.array)
    second = [torch.autograd.grad(f(v, g)[0].sum() + f(v, g)[1].sum(), (v, g))
              for f in (through_backward, formula)]
    for a, b in zip(*second, strict=True):
        assert np.allclose(a.array, b.array)
    assert gradcheck(lambda v, g: formula(v, g)[0], [v, g])  # the formula's own derivative


@pytest.mark.parametrize("case,node", [("first", "WeightNormInterfaceBackward0"),
                                       ("last", "WeightNormInterfaceBackward0"),
                                       ("middle", "MulBackward0"), ("all", "MulBackward0")])
def test_weight_norm_records_the_fused_node_only_for_the_first_and_last_dim(case, node):
    shape, dim = SHAPES[case]
    w = torch._weight_norm(*_inputs(shape, dim), dim)
    assert w.grad_fn.name() == node
    if node == "WeightNormInterfaceBackward0":
        assert w.grad_fn.attrs["dim"] == dim


def test_norm_except_dim_records_torchs_norm_nodes():
    v = _inputs((3, 4), 0)[0]
    assert torch.norm_except_dim(v, 2, -1).grad_fn.name() == "NormBackward0"
    per_row = torch.norm_except_dim(v, 2, 0)
    assert per_row.shape == (3, 1)
    assert per_row.grad_fn.next_functions[0][0].name() == "NormBackward1"


def test_orthogonal_init_gives_orthonormal_rows_and_refuses_vectors():
    out = run_text("import torch\nw = torch.empty(3, 7, dtype=torch.float64)\n"
                   "torch.nn.init.orthogonal_(w, gain=2.0)\n"
                   "print(torch.allclose(w @ w.t(), 4 * torch.eye(3, dtype=torch.float64)))\n"
                   "torch.nn.init.orthogonal_(torch.empty(3))\n")
    assert out.stdout == "True\n"
    assert "Only tensors with 2 or more dimensions are supported" in str(out.error)
