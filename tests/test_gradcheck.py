"""Finite-difference checks of every differentiable op's backward, in float64.

Central differences (eps=1e-6) against the engine's gradients, with
torch.autograd.gradcheck's tolerances (atol=1e-5, rtol=1e-3), for every argument that
can take a gradient; then second-order checks (the gradient of the gradient, built with
create_graph=True) for the ops that support double backward.
Inputs come from a fixed seed and stay away from kinks (abs/relu at 0, clamp bounds,
max ties).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import F, finite_difference_tests

from gradtrace.engine.tensor import Tensor

RNG_SEED = 1234


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([RNG_SEED, sum(map(ord, name))])


def randn(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def away(rng: np.random.Generator, *shape: int, gap: float = 0.2) -> np.ndarray:
    """Normal values at least `gap` away from 0 (for abs, relu, sign-like kinks)."""
    a = rng.standard_normal(shape)
    return np.where(np.abs(a) < gap, np.sign(a + 1e-12) * (gap + np.abs(a)), a)


def pos(rng: np.random.Generator, *shape: int, low: float = 0.5, high: float = 2.0
        ) -> np.ndarray:
    return rng.uniform(low, high, shape)


def distinct(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values with no ties (max/min/sort-like ops), spread at least 0.1 apart."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.37 - n * 0.15).reshape(shape)


def prob(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.uniform(0.1, 0.9, shape)


WEIGHT4 = Tensor(np.array([0.5, 1.5, 1.0, 2.0]))

# name -> (function of tensors, input builder(rng) -> list of arrays, which inputs need grad)
Case = tuple[Callable[..., Any], Callable[[np.random.Generator], list[np.ndarray]]]


def _inplace_view(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y[1].mul_(b)
    return y


def _setitem_row(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y[0] = b
    return y


def _setitem_scalar_slot(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y[0, 1] = b.sum()
    return y


def _setitem_mask(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y[a > 0] = b.sum()
    return y


def _setitem_adv(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y[[0, 1], [2, 0]] = b[:2]
    return y


def _inplace_transposed(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    w = y.t()
    w.add_(b)
    return y


def _copy(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y.copy_(b)
    return y * a


def _iadd_slice(a: Tensor, b: Tensor) -> Tensor:
    y = a * 1
    y[:, 1:] += b[:2]
    return y.exp()


CASES: dict[str, Case] = {
    # arithmetic (broadcasting (2, 3) with (3,))
    "add": (lambda a, b: a + b, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2.5), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "sub": (lambda a, b: a - b, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "rsub_scalar": (lambda a: 2 - a, lambda r: [randn(r, 2, 3)]),
    "sub_alpha": (lambda a, b: torch.sub(a, b, alpha=0.7), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c, value=0.5),
                lambda r: [randn(r, 2, 3), randn(r, 3), randn(r, 2, 3)]),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c, value=-1.5),
                lambda r: [randn(r, 2, 3), randn(r, 3), away(r, 2, 3, gap=0.5)]),
    "lerp_scalar": (lambda a, b: torch.lerp(a, b, 0.3), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "lerp_tensor": (lambda a, b, w: torch.lerp(a, b, w),
                    lambda r: [randn(r, 2, 3), randn(r, 2, 3), randn(r, 2, 3)]),
    "mul": (lambda a, b: a * b, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "mul_scalar": (lambda a: a * 3.5, lambda r: [randn(r, 2, 3)]),
    "div": (lambda a, b: a / b, lambda r: [randn(r, 2, 3), away(r, 3, gap=0.5)]),
    "rdiv_scalar": (lambda a: 2 / a, lambda r: [away(r, 2, 3, gap=0.5)]),
    "neg": (lambda a: -a, lambda r: [randn(r, 2, 3)]),
    "pow_scalar": (lambda a: a ** 3, lambda r: [randn(r, 2, 3)]),
    "pow_tensor": (lambda a, b: a ** b, lambda r: [pos(r, 2, 3), randn(r, 3)]),
    "rpow": (lambda a: 2 ** a, lambda r: [randn(r, 2, 3)]),
    "remainder": (lambda a: torch.remainder(a, 1.5), lambda r: [pos(r, 2, 3, low=0.1, high=1.4)]),
    # unary
    "exp": (lambda a: a.exp(), lambda r: [randn(r, 2, 3)]),
    "log": (lambda a: a.log(), lambda r: [pos(r, 2, 3)]),
    "log1p": (lambda a: torch.log1p(a), lambda r: [pos(r, 2, 3)]),
    "expm1": (lambda a: torch.expm1(a), lambda r: [randn(r, 2, 3)]),
    "sin": (lambda a: a.sin(), lambda r: [randn(r, 2, 3)]),
    "cos": (lambda a: a.cos(), lambda r: [randn(r, 2, 3)]),
    "tanh": (lambda a: a.tanh(), lambda r: [randn(r, 2, 3)]),
    "sigmoid": (lambda a: a.sigmoid(), lambda r: [randn(r, 2, 3)]),
    "relu": (lambda a: a.relu(), lambda r: [away(r, 2, 3)]),
    "sqrt": (lambda a: a.sqrt(), lambda r: [pos(r, 2, 3)]),
    "abs": (lambda a: a.abs(), lambda r: [away(r, 2, 3)]),
    "reciprocal": (lambda a: a.reciprocal(), lambda r: [away(r, 2, 3, gap=0.5)]),
    "clamp": (lambda a: a.clamp(-0.5, 0.5),
              lambda r: [np.array([[-1.0, -0.2, 0.3], [0.9, 0.1, -0.7]])]),
    "clamp_min": (lambda a: a.clamp(min=0.25), lambda r: [np.array([[-1.0, 0.5], [0.9, 0.1]])]),
    "floor": (lambda a: a.floor(), lambda r: [np.array([0.3, 1.6, -2.2])]),
    "round": (lambda a: a.round(), lambda r: [np.array([0.3, 1.6, -2.2])]),
    # reductions
    "sum": (lambda a: a.sum(), lambda r: [randn(r, 2, 3)]),
    "sum_dim": (lambda a: a.sum(dim=-1), lambda r: [randn(r, 2, 3)]),
    "sum_dims_keepdim": (lambda a: a.sum((0, 2), keepdim=True), lambda r: [randn(r, 2, 3, 2)]),
    "mean": (lambda a: a.mean(), lambda r: [randn(r, 2, 3)]),
    "mean_dim": (lambda a: a.mean(0, keepdim=True), lambda r: [randn(r, 2, 3)]),
    "max": (lambda a: a.max(), lambda r: [distinct(r, 2, 3)]),
    "max_dim": (lambda a: a.max(dim=1)[0], lambda r: [distinct(r, 2, 3)]),
    "max_dim_keepdim": (lambda a: a.max(0, keepdim=True).values, lambda r: [distinct(r, 2, 3)]),
    "min": (lambda a: a.min(), lambda r: [distinct(r, 2, 3)]),
    "min_dim": (lambda a: a.min(dim=0)[0], lambda r: [distinct(r, 2, 3)]),
    "amax": (lambda a: a.amax(dim=1), lambda r: [distinct(r, 2, 3)]),
    "amax_all": (lambda a: a.amax(), lambda r: [distinct(r, 2, 3)]),
    "amin": (lambda a: a.amin(dim=(0, 1), keepdim=True), lambda r: [distinct(r, 2, 3)]),
    "prod": (lambda a: a.prod(), lambda r: [away(r, 2, 3)]),
    "prod_dim": (lambda a: a.prod(1), lambda r: [away(r, 2, 3)]),
    "prod_with_zero": (lambda a: a.prod(1, keepdim=True),
                       lambda r: [np.array([[0.0, 2.0, 3.0], [1.5, -2.0, 0.5]])]),
    "norm": (lambda a: a.norm(), lambda r: [randn(r, 2, 3)]),
    "norm_dim": (lambda a: a.norm(dim=1), lambda r: [randn(r, 2, 3)]),
    "norm_p1": (lambda a: a.norm(p=1), lambda r: [away(r, 2, 3)]),
    "norm_p3": (lambda a: a.norm(p=3, dim=0, keepdim=True), lambda r: [away(r, 2, 3)]),
    "norm_p1_5": (lambda a: a.norm(p=1.5), lambda r: [away(r, 2, 3)]),
    "norm_p0_5": (lambda a: a.norm(p=0.5), lambda r: [away(r, 2, 3)]),
    "norm_inf": (lambda a: a.norm(p=float("inf")), lambda r: [distinct(r, 2, 3)]),
    "vector_norm": (lambda a: torch.linalg.vector_norm(a, ord=2, dim=(0,)),
                    lambda r: [randn(r, 2, 3)]),
    "var": (lambda a: a.var(), lambda r: [randn(r, 2, 3)]),
    "var_dim": (lambda a: a.var(1, unbiased=False), lambda r: [randn(r, 2, 3)]),
    "var_keepdim": (lambda a: a.var(0, keepdim=True, correction=0), lambda r: [randn(r, 3, 2)]),
    "std": (lambda a: a.std(), lambda r: [randn(r, 2, 3)]),
    "std_dim": (lambda a: a.std(dim=0), lambda r: [randn(r, 3, 2)]),
    "logsumexp": (lambda a: a.logsumexp(dim=1), lambda r: [randn(r, 2, 3)]),
    "logsumexp_keepdim": (lambda a: a.logsumexp((0, 1), keepdim=True), lambda r: [randn(r, 2, 3)]),
    "cumsum": (lambda a: a.cumsum(dim=1), lambda r: [randn(r, 2, 3)]),
    "maximum": (lambda a, b: torch.maximum(a, b), lambda r: [distinct(r, 2, 3), distinct(r, 3)]),
    "minimum": (lambda a, b: torch.minimum(a, b), lambda r: [distinct(r, 2, 3), distinct(r, 3)]),
    "where": (lambda a, b: torch.where(a > 0, a, b), lambda r: [away(r, 2, 3), randn(r, 3)]),
    # views and shapes
    "view": (lambda a: a.view(3, 2), lambda r: [randn(r, 2, 3)]),
    "reshape_copy": (lambda a: a.t().reshape(6), lambda r: [randn(r, 2, 3)]),
    "reshape_alias": (lambda a: a.t().reshape(3, 2, 1), lambda r: [randn(r, 2, 3)]),
    "flatten": (lambda a: a.flatten(1), lambda r: [randn(r, 2, 3, 2)]),
    "t": (lambda a: a.t(), lambda r: [randn(r, 2, 3)]),
    "T": (lambda a: a.T, lambda r: [randn(r, 2, 3)]),
    "mT": (lambda a: a.mT, lambda r: [randn(r, 2, 2, 3)]),
    "transpose": (lambda a: a.transpose(0, 2), lambda r: [randn(r, 2, 3, 2)]),
    "permute": (lambda a: a.permute(2, 0, 1), lambda r: [randn(r, 2, 3, 2)]),
    "unsqueeze": (lambda a: a.unsqueeze(-1), lambda r: [randn(r, 2, 3)]),
    "squeeze": (lambda a: a.squeeze(), lambda r: [randn(r, 2, 1, 3)]),
    "squeeze_dim": (lambda a: a.squeeze(1), lambda r: [randn(r, 2, 1, 3)]),
    "expand": (lambda a: a.expand(4, 2, 3), lambda r: [randn(r, 2, 1)]),
    "repeat": (lambda a: a.repeat(2, 1, 3), lambda r: [randn(r, 2, 3)]),
    "contiguous": (lambda a: a.t().contiguous(), lambda r: [randn(r, 2, 3)]),
    "clone": (lambda a: a.clone(), lambda r: [randn(r, 2, 3)]),
    "flip": (lambda a: a.flip(1), lambda r: [randn(r, 2, 3)]),
    "select": (lambda a: a[1], lambda r: [randn(r, 2, 3)]),
    "select_col": (lambda a: a[:, -1], lambda r: [randn(r, 2, 3)]),
    "select_chain": (lambda a: a[1, 2], lambda r: [randn(r, 2, 3)]),
    "slice": (lambda a: a[:, 1:], lambda r: [randn(r, 2, 3)]),
    "slice_step": (lambda a: a[::2, None], lambda r: [randn(r, 3, 3)]),
    "index_list": (lambda a: a[[0, 2, 0]], lambda r: [randn(r, 3, 2)]),
    "index_pairs": (lambda a: a[[0, 1, 1], [2, 0, 2]], lambda r: [randn(r, 2, 3)]),
    "index_mask": (lambda a: a[a > 0], lambda r: [away(r, 2, 3)]),
    "index_col": (lambda a: a[:, [2, 0]], lambda r: [randn(r, 2, 3)]),
    "narrow": (lambda a: a.narrow(1, 1, 2), lambda r: [randn(r, 2, 3)]),
    "index_select": (lambda a: a.index_select(1, Tensor(np.array([2, 0, 2]))),
                     lambda r: [randn(r, 2, 3)]),
    "masked_fill": (lambda a: a.masked_fill(a > 0, 0.5), lambda r: [away(r, 2, 3)]),
    "masked_fill_tensor": (lambda a, b: a.masked_fill(a > 0, b.sum()),
                           lambda r: [away(r, 2, 3), randn(r, 2)]),
    "gather": (lambda a: a.gather(1, Tensor(np.array([[0, 2, 2], [1, 0, 1]]))),
               lambda r: [randn(r, 2, 3)]),
    "scatter_add": (lambda a, b: a.scatter_add(1, Tensor(np.array([[0, 2], [1, 1]])), b),
                    lambda r: [randn(r, 2, 3), randn(r, 2, 2)]),
    "unbind": (lambda a: a.unbind(1), lambda r: [randn(r, 2, 3)]),
    "split": (lambda a: a.split(2, dim=1), lambda r: [randn(r, 2, 3)]),
    "split_sizes": (lambda a: a.split([1, 2], dim=1), lambda r: [randn(r, 2, 3)]),
    "chunk": (lambda a: a.chunk(2), lambda r: [randn(r, 3, 2)]),
    "cat": (lambda a, b: torch.cat([a, b], dim=1), lambda r: [randn(r, 2, 3), randn(r, 2, 1)]),
    "stack": (lambda a, b: torch.stack([a, b], -1), lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "setitem_row": (_setitem_row, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "setitem_scalar_slot": (_setitem_scalar_slot, lambda r: [randn(r, 2, 3), randn(r, 2)]),
    "setitem_mask": (_setitem_mask, lambda r: [away(r, 2, 3), randn(r, 2)]),
    "setitem_advanced": (_setitem_adv, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "inplace_on_view": (_inplace_view, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "inplace_on_transposed_view": (_inplace_transposed, lambda r: [randn(r, 2, 3),
                                                                   randn(r, 2)]),
    "iadd_slice": (_iadd_slice, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "copy_": (_copy, lambda r: [randn(r, 2, 3), randn(r, 3)]),
    # matrix products
    "mm": (lambda a, b: torch.mm(a, b), lambda r: [randn(r, 2, 3), randn(r, 3, 4)]),
    "mv": (lambda a, b: torch.mv(a, b), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "dot": (lambda a, b: torch.dot(a, b), lambda r: [randn(r, 3), randn(r, 3)]),
    "bmm": (lambda a, b: torch.bmm(a, b), lambda r: [randn(r, 2, 2, 3), randn(r, 2, 3, 2)]),
    "outer": (lambda a, b: torch.outer(a, b), lambda r: [randn(r, 3), randn(r, 2)]),
    "addmm": (lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0),
              lambda r: [randn(r, 2), randn(r, 2, 3), randn(r, 3, 2)]),
    "matmul_1d_2d": (lambda a, b: a @ b, lambda r: [randn(r, 3), randn(r, 3, 2)]),
    "matmul_3d_2d": (lambda a, b: a @ b, lambda r: [randn(r, 2, 2, 3), randn(r, 3, 2)]),
    "matmul_3d_3d": (lambda a, b: a @ b, lambda r: [randn(r, 2, 2, 3), randn(r, 2, 3, 2)]),
    "matmul_3d_1d": (lambda a, b: a @ b, lambda r: [randn(r, 2, 2, 3), randn(r, 3)]),
    "matmul_1d_3d": (lambda a, b: a @ b, lambda r: [randn(r, 3), randn(r, 2, 3, 2)]),
    "matmul_2d_3d": (lambda a, b: a @ b, lambda r: [randn(r, 2, 3), randn(r, 2, 3, 2)]),
    "matmul_broadcast": (lambda a, b: a @ b, lambda r: [randn(r, 2, 1, 2, 3), randn(r, 3, 3, 1)]),
    "linear": (lambda a, w: F.linear(a, w), lambda r: [randn(r, 2, 3), randn(r, 4, 3)]),
    "linear_bias": (lambda a, w, b: F.linear(a, w, b),
                    lambda r: [randn(r, 2, 3), randn(r, 4, 3), randn(r, 4)]),
    "linear_3d_bias": (lambda a, w, b: F.linear(a, w, b),
                       lambda r: [randn(r, 2, 2, 3), randn(r, 2, 3), randn(r, 2)]),
    "linear_1d": (lambda a, w, b: F.linear(a, w, b),
                  lambda r: [randn(r, 3), randn(r, 2, 3), randn(r, 2)]),
    # nn
    "softmax": (lambda a: F.softmax(a, dim=1), lambda r: [randn(r, 2, 3)]),
    "softmax_dim0": (lambda a: torch.softmax(a, 0), lambda r: [randn(r, 2, 3)]),
    "log_softmax": (lambda a: F.log_softmax(a, dim=-1), lambda r: [randn(r, 2, 3)]),
    "leaky_relu": (lambda a: F.leaky_relu(a, 0.2), lambda r: [away(r, 2, 3)]),
    "gelu": (lambda a: F.gelu(a), lambda r: [randn(r, 2, 3)]),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"), lambda r: [randn(r, 2, 3)]),
    "silu": (lambda a: F.silu(a), lambda r: [randn(r, 2, 3)]),
    "softplus": (lambda a: F.softplus(a, beta=2, threshold=3),
                 lambda r: [np.array([[-1.0, 0.3, 2.0], [0.7, -0.2, 1.2]])]),
    "elu": (lambda a: F.elu(a, alpha=0.7), lambda r: [away(r, 2, 3)]),
    "mse_loss": (lambda a, b: F.mse_loss(a, b), lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "mse_loss_sum": (lambda a, b: F.mse_loss(a, b, reduction="sum"),
                     lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "mse_loss_none": (lambda a, b: F.mse_loss(a, b, reduction="none"),
                      lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "l1_loss": (lambda a, b: F.l1_loss(a, b), lambda r: [randn(r, 2, 3), randn(r, 2, 3) + 3]),
    "l1_loss_none": (lambda a, b: F.l1_loss(a, b, reduction="none"),
                     lambda r: [randn(r, 2, 3), randn(r, 2, 3) + 3]),
    "cross_entropy": (lambda a: F.cross_entropy(a, Tensor(np.array([0, 2, 1]))),
                      lambda r: [randn(r, 3, 4)]),
    "cross_entropy_weight_none": (
        lambda a: F.cross_entropy(a, Tensor(np.array([0, 2, 1])), weight=WEIGHT4,
                                  reduction="none"),
        lambda r: [randn(r, 3, 4)]),
    "cross_entropy_weight_mean": (
        lambda a: F.cross_entropy(a, Tensor(np.array([3, 2, 1])), weight=WEIGHT4),
        lambda r: [randn(r, 3, 4)]),
    "cross_entropy_ignore": (
        lambda a: F.cross_entropy(a, Tensor(np.array([0, -100, 1])), reduction="sum"),
        lambda r: [randn(r, 3, 4)]),
    "cross_entropy_probs": (lambda a, t: F.cross_entropy(a, t), lambda r: [randn(r, 2, 3),
                                                                           prob(r, 2, 3)]),
    "nll_loss": (lambda a: F.nll_loss(a, Tensor(np.array([1, 0]))), lambda r: [randn(r, 2, 3)]),
    "nll_loss_1d": (lambda a: F.nll_loss(a, Tensor(np.array(2))), lambda r: [randn(r, 3)]),
    "bce": (lambda a, t: F.binary_cross_entropy(a, t), lambda r: [prob(r, 2, 3), prob(r, 2, 3)]),
    "bce_weight_sum": (lambda a, t: F.binary_cross_entropy(a, t, weight=Tensor(np.array(
        [0.5, 1.0, 2.0])), reduction="sum"), lambda r: [prob(r, 2, 3), prob(r, 2, 3)]),
    "bce_logits": (lambda a, t: F.binary_cross_entropy_with_logits(a, t),
                   lambda r: [randn(r, 2, 3), prob(r, 2, 3)]),
    "bce_logits_pos_weight": (
        lambda a, t: F.binary_cross_entropy_with_logits(
            a, t, pos_weight=Tensor(np.array([0.5, 1.0, 3.0])), weight=Tensor(np.array(
                [2.0, 1.0, 0.5])), reduction="none"),
        lambda r: [randn(r, 2, 3), prob(r, 2, 3)]),
}


SECOND_ORDER = [
    "mul", "div", "pow_scalar", "pow_tensor", "exp", "log", "sin", "cos", "tanh", "sigmoid",
    "sum", "sum_dim", "mean", "mean_dim", "mm", "mv", "dot", "bmm", "matmul_3d_2d",
    "matmul_1d_2d", "matmul_3d_3d", "linear_bias", "outer", "add", "sub", "neg", "sqrt",
    "reciprocal", "log1p", "expm1", "relu", "abs", "max", "max_dim", "amax", "prod", "norm",
    "norm_p3", "var", "std", "logsumexp", "cumsum", "maximum", "where", "view",
    "reshape_copy", "t", "transpose", "permute", "expand", "repeat", "select", "slice",
    "index_list", "index_mask", "index_select", "gather", "unbind", "split", "cat", "stack",
    "setitem_row", "inplace_on_view", "copy_", "softmax", "log_softmax", "gelu", "gelu_tanh",
    "silu", "softplus", "elu", "leaky_relu", "mse_loss", "l1_loss", "cross_entropy",
    "nll_loss", "bce", "bce_logits", "masked_fill", "addcmul", "addcdiv", "lerp_tensor",
]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)


def test_every_second_order_case_exists() -> None:
    assert set(SECOND_ORDER) <= set(CASES)
    assert {"mul", "div", "pow_scalar", "exp", "log", "sin", "cos", "tanh", "sigmoid", "sum",
            "mean", "mm"} <= set(SECOND_ORDER)
