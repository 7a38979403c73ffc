"""Finite-difference checks (float64, torch.autograd.gradcheck's tolerances) of torch.linalg's
LU, matrix-exponential and Householder families and tensorinv/tensorsolve: first order for
every differentiable output, second order (create_graph) where the backward is built of
differentiable ops. Inputs keep their pivots and reflectors away from ties and zeros under
the perturbations.
"""
from __future__ import annotations

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import finite_difference_tests
from test_gradcheck import randn
from test_gradcheck_linalg import square

RNG_SEED = 2414


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([RNG_SEED, sum(map(ord, name))])


def _lu_solve(a, b, **kw):
    lu, piv = torch.linalg.lu_factor(a)
    return torch.linalg.lu_solve(lu, piv, b, **kw)


def _ormqr(a, tau, c, **kw):
    return torch.ormqr(a, tau, c, **kw)


def _reflectors(rng: np.random.Generator, m: int, n: int) -> list[np.ndarray]:
    """Householder vectors and their taus as geqrf makes them (H(τ) invertible)."""
    v = rng.standard_normal((m, n))
    return [v, 2.0 / (1.0 + (np.tril(v, -1) ** 2).sum(0))[:n]]


CASES = {
    "lu_factor": (lambda a: torch.linalg.lu_factor(a)[0], lambda r: [square(r)]),
    "lu_factor_ex_batched": (lambda a: torch.linalg.lu_factor_ex(a)[0],
                             lambda r: [square(r, 3, 2)]),
    "lu_factor_tall": (lambda a: torch.linalg.lu_factor(a)[0], lambda r: [randn(r, 4, 3)]),
    "lu_factor_wide": (lambda a: torch.linalg.lu_factor(a)[0], lambda r: [randn(r, 3, 4)]),
    "lu": (lambda a: torch.linalg.lu(a)[1:], lambda r: [square(r)]),
    "lu_l": (lambda a: torch.linalg.lu(a).L, lambda r: [square(r)]),
    "lu_u": (lambda a: torch.linalg.lu(a).U, lambda r: [square(r)]),
    "lu_tall": (lambda a: torch.linalg.lu(a)[1:], lambda r: [randn(r, 4, 2)]),
    "lu_tall_u": (lambda a: torch.linalg.lu(a).U, lambda r: [randn(r, 4, 2)]),
    "lu_wide": (lambda a: torch.linalg.lu(a)[1:], lambda r: [randn(r, 2, 4)]),
    "lu_wide_l": (lambda a: torch.linalg.lu(a).L, lambda r: [randn(r, 2, 4)]),
    "lu_unpack": (lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a))[1:],
                  lambda r: [square(r)]),
    "lu_unpack_wide": (lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a))[1:],
                       lambda r: [randn(r, 2, 4)]),
    "lu_unpack_tall_l": (lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)).L,
                         lambda r: [randn(r, 4, 2)]),
    "lu_solve": (lambda a, b: _lu_solve(a, b), lambda r: [square(r), randn(r, 3, 2)]),
    "lu_solve_adjoint": (lambda a, b: _lu_solve(a, b, adjoint=True),
                         lambda r: [square(r), randn(r, 3, 2)]),
    "lu_solve_right": (lambda a, b: _lu_solve(a, b, left=False),
                       lambda r: [square(r), randn(r, 2, 3)]),
    "lu_solve_right_adjoint": (lambda a, b: _lu_solve(a, b, left=False, adjoint=True),
                               lambda r: [square(r), randn(r, 2, 3)]),
    "lu_solve_broadcast": (lambda a, b: _lu_solve(a, b),
                           lambda r: [square(r), randn(r, 2, 3, 2)]),
    "matrix_exp": (lambda a: torch.linalg.matrix_exp(a), lambda r: [randn(r, 3, 3) / 4]),
    "matrix_exp_scaled": (lambda a: torch.linalg.matrix_exp(a), lambda r: [randn(r, 3, 3)]),
    "matrix_exp_batched": (lambda a: torch.matrix_exp(a), lambda r: [randn(r, 2, 4, 4) / 2]),
    "householder_product": (lambda v, t: torch.linalg.householder_product(v, t),
                            lambda r: _reflectors(r, 4, 3)),
    "householder_product_fewer_taus": (
        lambda v, t: torch.linalg.householder_product(v, t[:2]), lambda r: _reflectors(r, 4, 3)),
    "orgqr_square": (lambda v, t: torch.orgqr(v, t), lambda r: _reflectors(r, 3, 3)),
    "ormqr": (lambda a, t, c: _ormqr(a, t, c),
              lambda r: [*_reflectors(r, 4, 3), randn(r, 4, 2)]),
    "ormqr_transpose": (lambda a, t, c: _ormqr(a, t, c, transpose=True),
                        lambda r: [*_reflectors(r, 4, 3), randn(r, 4, 2)]),
    "ormqr_right": (lambda a, t, c: _ormqr(a, t, c, left=False),
                    lambda r: [*_reflectors(r, 4, 3), randn(r, 2, 4)]),
    "ormqr_right_transpose": (lambda a, t, c: _ormqr(a, t, c, left=False, transpose=True),
                              lambda r: [*_reflectors(r, 4, 3), randn(r, 2, 4)]),
    "tensorinv": (lambda a: torch.linalg.tensorinv(a, ind=2),
                  lambda r: [square(r, 6).reshape(2, 3, 6)]),
    "tensorsolve": (lambda a, b: torch.linalg.tensorsolve(a, b),
                    lambda r: [square(r, 6).reshape(2, 3, 6), randn(r, 2, 3)]),
    "tensorsolve_dims": (lambda a, b: torch.linalg.tensorsolve(a, b, dims=(0,)),
                         lambda r: [square(r, 6).reshape(6, 2, 3), randn(r, 2, 3)]),
}

SECOND_ORDER = ["lu_factor", "lu", "lu_wide", "lu_tall", "lu_unpack", "lu_solve",
                "lu_solve_right_adjoint", "matrix_exp", "matrix_exp_scaled",
                "householder_product", "ormqr", "ormqr_right", "tensorinv", "tensorsolve"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
