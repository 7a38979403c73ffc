"""Finite-difference checks (float64, torch.autograd.gradcheck's tolerances) of the
torch.linalg functions and the classic linear-algebra ones: first order for every
differentiable output, second order (create_graph) for those whose backward is built of
differentiable ops. Inputs are well conditioned: invertible, symmetric positive-definite
where the function needs it, with distinct singular values and eigenvalues.
"""
from __future__ import annotations

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import finite_difference_tests
from test_gradcheck import randn

RNG_SEED = 2413


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([RNG_SEED, sum(map(ord, name))])


def square(rng: np.random.Generator, n: int = 3, *batch: int) -> np.ndarray:
    """A well-conditioned matrix: random plus n on the diagonal."""
    return rng.standard_normal((*batch, n, n)) + n * np.eye(n)


def spd(a):
    """A symmetric positive-definite function of any square `a` (the input to cholesky and
    eigh must stay symmetric under the finite-difference perturbations)."""
    return a @ a.mT + torch.eye(a.shape[-1], dtype=a.dtype)


CASES = {
    "det": (lambda a: torch.linalg.det(a), lambda r: [square(r)]),
    "det_batched": (lambda a: torch.det(a), lambda r: [square(r, 3, 2)]),
    "det_transposed": (lambda a: torch.linalg.det(a.mT), lambda r: [square(r)]),
    "slogdet": (lambda a: torch.linalg.slogdet(a)[1], lambda r: [square(r)]),
    "logdet": (lambda a: torch.logdet(spd(a)), lambda r: [square(r)]),
    "inv": (lambda a: torch.linalg.inv(a), lambda r: [square(r)]),
    "inverse_batched": (lambda a: torch.inverse(a), lambda r: [square(r, 2, 3)]),
    "solve": (lambda a, b: torch.linalg.solve(a, b), lambda r: [square(r), randn(r, 3, 2)]),
    "solve_vector": (lambda a, b: torch.linalg.solve(a, b), lambda r: [square(r), randn(r, 3)]),
    "solve_broadcast": (lambda a, b: torch.linalg.solve(a, b),
                        lambda r: [square(r, 3, 2), randn(r, 3, 1)]),
    "solve_triangular": (lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
                         lambda r: [square(r), randn(r, 3, 2)]),
    "solve_triangular_right": (
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False),
        lambda r: [square(r), randn(r, 2, 3)]),
    "solve_triangular_unit": (
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
        lambda r: [square(r), randn(r, 3, 2)]),
    "cholesky": (lambda a: torch.linalg.cholesky(spd(a)), lambda r: [square(r)]),
    "cholesky_upper": (lambda a: torch.linalg.cholesky(spd(a), upper=True),
                       lambda r: [square(r)]),
    "qr": (lambda a: torch.linalg.qr(a), lambda r: [randn(r, 4, 3)]),
    "qr_wide": (lambda a: torch.linalg.qr(a), lambda r: [randn(r, 3, 4)]),
    "qr_q": (lambda a: torch.linalg.qr(a)[0], lambda r: [randn(r, 4, 3)]),
    "qr_r": (lambda a: torch.linalg.qr(a)[1], lambda r: [randn(r, 3, 3)]),
    "svd_tall": (lambda a: torch.linalg.svd(a, full_matrices=False)[1:],
                 lambda r: [randn(r, 4, 3)]),
    "svd_invariant": (lambda a: _svd_invariant(a), lambda r: [randn(r, 4, 3)]),
    "svd_invariant_wide": (lambda a: _svd_invariant(a), lambda r: [randn(r, 2, 4)]),
    "svdvals": (lambda a: torch.linalg.svdvals(a), lambda r: [randn(r, 3, 4)]),
    "eigh_values": (lambda a: torch.linalg.eigvalsh(spd(a)), lambda r: [square(r)]),
    "eigh_invariant": (lambda a: _eigh_invariant(spd(a)), lambda r: [square(r)]),
    "pinv_tall": (lambda a: torch.linalg.pinv(a), lambda r: [randn(r, 4, 3)]),
    "pinv_wide": (lambda a: torch.pinverse(a), lambda r: [randn(r, 2, 4)]),
    "tensordot": (lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])),
                  lambda r: [randn(r, 2, 3, 4), randn(r, 3, 4, 2)]),
    "kron": (lambda a, b: torch.kron(a, b), lambda r: [randn(r, 2, 3), randn(r, 2, 2)]),
    "inner": (lambda a, b: torch.inner(a, b), lambda r: [randn(r, 2, 3), randn(r, 4, 3)]),
    "vdot": (lambda a, b: torch.vdot(a, b), lambda r: [randn(r, 4), randn(r, 4)]),
    "multi_dot": (lambda a, b, c: torch.linalg.multi_dot([a, b, c]),
                  lambda r: [randn(r, 2, 3), randn(r, 3, 4), randn(r, 4, 2)]),
    "matrix_power": (lambda a: torch.linalg.matrix_power(a, 5), lambda r: [square(r) / 3]),
    "matrix_power_negative": (lambda a: torch.linalg.matrix_power(a, -2),
                              lambda r: [square(r)]),
    "matrix_norm_nuc": (lambda a: torch.linalg.matrix_norm(a, "nuc"),
                        lambda r: [randn(r, 3, 4)]),
    "matrix_norm_2": (lambda a: torch.linalg.matrix_norm(a, 2), lambda r: [randn(r, 3, 4)]),
    "matrix_norm_1": (lambda a: torch.linalg.matrix_norm(a, 1), lambda r: [randn(r, 3, 4)]),
    "cond": (lambda a: torch.linalg.cond(a), lambda r: [square(r)]),
}


def _svd_invariant(a):
    """A loss of U and Vh that does not depend on their signs: |U|, |Vh| and S."""
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    return (u * u).sum(0) + s + (vh * vh * torch.arange(vh.shape[-1], dtype=a.dtype)).sum(1)


def _eigh_invariant(a):
    values, vectors = torch.linalg.eigh(a)
    return values, vectors * vectors


SECOND_ORDER = ["det", "slogdet", "inv", "solve", "solve_triangular", "cholesky",
                "cholesky_upper", "qr_q",
                "svdvals", "eigh_values", "pinv_tall", "kron", "matrix_power", "cond"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
