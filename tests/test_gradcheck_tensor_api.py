"""Finite-difference checks (float64, torch.autograd.gradcheck's tolerances) of the
differentiable ops of the tensor API added for real code: first order for all, second
order for those whose backward is built of differentiable ops. Inputs stay away from the
kinks (ties of fmax/fmin, zeros of copysign, logit's eps bounds)."""
from __future__ import annotations

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import finite_difference_tests
from test_gradcheck import away, distinct, pos, prob, randn

from gradtrace.engine.ops.tensor_info import sum_to_size
from gradtrace.engine.tensor import Tensor

IDX = Tensor(np.array([[0, 2], [1, 0]], dtype=np.int64))
SI = Tensor(np.array([[0, 1, 0], [1, 1, 0]], dtype=np.int64))


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([97, sum(map(ord, name))])


def _with_nan(rng: np.random.Generator) -> np.ndarray:
    a = rng.standard_normal((2, 3))
    a[0, 1] = np.nan
    return a


CASES = {
    "hstack": (lambda a, b: torch.hstack([a, b]), lambda r: [randn(r, 2, 3), randn(r, 2, 2)]),
    "vstack": (lambda a, b: torch.vstack([a, b]), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "dstack": (lambda a, b: torch.dstack([a, b]), lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "column_stack": (lambda a, b: torch.column_stack([a, b]),
                     lambda r: [randn(r, 3), randn(r, 3, 2)]),
    "atleast_3d": (lambda a: torch.atleast_3d(a), lambda r: [randn(r, 3)]),
    "tensor_split": (lambda a: torch.tensor_split(a, [1, 2], dim=1),
                     lambda r: [randn(r, 2, 4)]),
    "hsplit": (lambda a: torch.hsplit(a, 2), lambda r: [randn(r, 2, 4)]),
    "meshgrid_xy": (lambda a, b: torch.meshgrid(a, b, indexing="xy"),
                    lambda r: [randn(r, 3), randn(r, 2)]),
    "broadcast_tensors": (lambda a, b: torch.broadcast_tensors(a, b),
                          lambda r: [randn(r, 2, 1), randn(r, 3)]),
    "take_along_dim": (lambda a: torch.take_along_dim(a, IDX, dim=1),
                       lambda r: [randn(r, 2, 3)]),
    "take_along_dim_flat": (lambda a: torch.take_along_dim(a, IDX), lambda r: [randn(r, 2, 3)]),
    "fliplr": (lambda a: torch.fliplr(a), lambda r: [randn(r, 2, 3)]),
    "ravel": (lambda a: torch.ravel(a.t()), lambda r: [randn(r, 2, 3)]),
    "deg2rad": (lambda a: torch.deg2rad(a), lambda r: [randn(r, 2, 3)]),
    "rad2deg": (lambda a: torch.rad2deg(a), lambda r: [randn(r, 2, 3)]),
    "copysign": (lambda a, b: torch.copysign(a, b), lambda r: [away(r, 2, 3), away(r, 3)]),
    "copysign_scalar": (lambda a: torch.copysign(a, -2.0), lambda r: [away(r, 2, 3)]),
    "fmax": (lambda a, b: torch.fmax(a, b),
             lambda r: [d := distinct(r, 2, 3), d[::-1, ::-1].copy() + 0.05]),
    "fmin": (lambda a, b: torch.fmin(a, b),
             lambda r: [d := distinct(r, 2, 3), d[::-1, ::-1].copy() + 0.05]),
    "nan_to_num": (lambda a: torch.nan_to_num(a, nan=0.5), lambda r: [_with_nan(r)]),
    "nansum": (lambda a: torch.nansum(a), lambda r: [_with_nan(r)]),
    "nansum_dim": (lambda a: torch.nansum(a, 1, keepdim=True), lambda r: [_with_nan(r)]),
    "nanmean": (lambda a: torch.nanmean(a, 0), lambda r: [_with_nan(r)]),
    "float_power": (lambda a, b: torch.float_power(a, b), lambda r: [pos(r, 2, 3), randn(r, 3)]),
    "float_power_scalar": (lambda a: torch.float_power(2.5, a), lambda r: [randn(r, 2, 3)]),
    "ndtr": (lambda a: torch.special.ndtr(a), lambda r: [randn(r, 2, 3)]),
    "logit_eps": (lambda a: torch.logit(a, eps=0.05), lambda r: [prob(r, 2, 3)]),
    "fill_tensor": (lambda a, b: torch.fill(a, b), lambda r: [randn(r, 2, 3), randn(r)]),
    "sum_to_size": (lambda a: sum_to_size(a, 1, 3), lambda r: [randn(r, 2, 3)]),
    "cumsum_": (lambda a: (a * 1).cumsum_(1), lambda r: [randn(r, 2, 3)]),
    "repeat_interleave": (lambda a: torch.repeat_interleave(a, 2, dim=1),
                          lambda r: [randn(r, 2, 3)]),
    "repeat_interleave_tensor": (lambda a: a.repeat_interleave(Tensor(np.array([1, 0, 2])), 1),
                                 lambda r: [randn(r, 2, 3)]),
    "rot90": (lambda a: torch.rot90(a, 3, (1, 0)), lambda r: [randn(r, 2, 3)]),
    "diagflat": (lambda a: torch.diagflat(a, -1), lambda r: [randn(r, 2, 2)]),
    "cartesian_prod": (lambda a, b: torch.cartesian_prod(a, b),
                       lambda r: [randn(r, 3), randn(r, 2)]),
    "cumprod_": (lambda a: (a * 1).cumprod_(0), lambda r: [away(r, 2, 3)]),
    **{f"scatter_reduce_{r}{'_' if not inc else ''}": (
        lambda a, b, r=r, inc=inc: a.scatter_reduce(0, SI, b, r, include_self=inc),
        lambda rng: [distinct(rng, 2, 3), distinct(rng, 2, 3) + 0.05])  # no self == src
       for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)},
    **{f"index_reduce_{r}": (
        lambda a, b, r=r: a.index_reduce(1, Tensor(np.array([0, 2, 0])), b, r),
        lambda rng: [distinct(rng, 2, 3), distinct(rng, 2, 3)])
       for r in ("prod", "mean", "amax", "amin")},
    "quantile": (lambda a: torch.quantile(a, Tensor(np.array([0.3, 0.8])), dim=1),
                 lambda r: [distinct(r, 2, 4)]),
    "quantile_all": (lambda a: torch.quantile(a, 0.45), lambda r: [distinct(r, 3, 3)]),
    "nanquantile": (lambda a: torch.nanquantile(a, 0.6, dim=0, keepdim=True),
                    lambda r: [_with_nan(r)]),
    "nanmedian": (lambda a: torch.nanmedian(a), lambda r: [_with_nan(r)]),
    "nanmedian_dim": (lambda a: torch.nanmedian(a, 1)[0], lambda r: [_with_nan(r)]),
    "cov": (lambda a: torch.cov(a), lambda r: [randn(r, 3, 4)]),
    "cov_weights": (lambda a, w: torch.cov(a, fweights=Tensor(np.array([1, 2, 1])), aweights=w),
                    lambda r: [randn(r, 2, 3), pos(r, 3)]),
    "corrcoef": (lambda a: torch.corrcoef(a), lambda r: [randn(r, 3, 5)]),
    "aminmax": (lambda a: torch.aminmax(a), lambda r: [distinct(r, 2, 3)]),
    "select_scatter": (lambda a, b: torch.select_scatter(a, b, 1, -1),
                       lambda r: [randn(r, 2, 3), randn(r, 2)]),
    "slice_scatter": (lambda a, b: torch.slice_scatter(a, b, 1, 0, None, 2),
                      lambda r: [randn(r, 2, 3), randn(r, 2, 2)]),
    "diagonal_scatter": (lambda a, b: torch.diagonal_scatter(a, b, -1),
                         lambda r: [randn(r, 3, 2), randn(r, 2)]),
    "block_diag": (lambda a, b, c: torch.block_diag(a, b, c),
                   lambda r: [randn(r, 2, 3), randn(r, 2), randn(r)]),
    "fill_diagonal_": (lambda a: (a * 1).fill_diagonal_(0.5, wrap=True),
                       lambda r: [randn(r, 5, 2)]),
    "combinations": (lambda a: torch.combinations(a, 2, with_replacement=True),
                     lambda r: [randn(r, 3)]),
    "trapezoid": (lambda a: torch.trapezoid(a, dx=0.5), lambda r: [randn(r, 2, 4)]),
    "trapezoid_x": (lambda a, b: torch.trapezoid(a, b, dim=0),
                    lambda r: [randn(r, 3, 2), randn(r, 3)]),
    "cumulative_trapezoid": (lambda a, b: torch.cumulative_trapezoid(a, b),
                             lambda r: [randn(r, 2, 4), randn(r, 2, 4)]),
    "linalg_vander": (lambda a: torch.linalg.vander(a, N=3), lambda r: [randn(r, 2, 3)]),
    "cholesky_solve": (lambda b, f: torch.cholesky_solve(b, f.tril() + 3 * torch.eye(3)),
                       lambda r: [randn(r, 3, 2), randn(r, 3, 3)]),
    "cholesky_solve_upper": (lambda b, f: torch.cholesky_solve(b, f.triu() + 3 * torch.eye(3),
                                                               upper=True),
                             lambda r: [randn(r, 2, 3, 2), randn(r, 3, 3)]),
    "cholesky_inverse": (lambda f: torch.cholesky_inverse(f.tril() + 3 * torch.eye(3)),
                         lambda r: [randn(r, 3, 3)]),
    "cholesky_inverse_upper": (lambda f: torch.cholesky_inverse(f.triu() + 3 * torch.eye(3),
                                                                upper=True),
                               lambda r: [randn(r, 2, 3, 3)]),
    "triangular_solve": (lambda b, a: torch.triangular_solve(b, a.triu() + 3 * torch.eye(3)),
                         lambda r: [randn(r, 3, 2), randn(r, 3, 3)]),
    "triangular_solve_t": (lambda b, a: torch.triangular_solve(
        b, a.tril() + 3 * torch.eye(3), upper=False, transpose=True, unitriangular=True),
        lambda r: [randn(r, 3, 2), randn(r, 3, 3)]),
    "aminmax_dim": (lambda a: torch.aminmax(a, dim=0, keepdim=True), lambda r: [distinct(r, 2, 3)]),
}

SECOND_ORDER = ["hstack", "meshgrid_xy", "take_along_dim", "copysign", "fmax", "nan_to_num",
                "nansum_dim", "nanmean", "float_power", "ndtr", "logit_eps", "cumprod_",
                "scatter_reduce_prod", "scatter_reduce_mean_", "index_reduce_prod", "quantile",
                "cov", "corrcoef", "aminmax_dim", "select_scatter", "slice_scatter",
                "diagonal_scatter", "block_diag", "combinations", "trapezoid_x",
                "cumulative_trapezoid", "linalg_vander", "cholesky_solve",
                "cholesky_inverse"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
