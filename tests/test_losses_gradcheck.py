"""Finite-difference checks (float64, torch.autograd.gradcheck's tolerances) of the margin
and likelihood losses: first order for every one (the native multi_margin_loss and
multilabel_margin_loss backward kernels included), second order for the composites (the
native two have no double backward in torch). Inputs stay away from the hinges' kinks."""
from __future__ import annotations

import numpy as np
from ops_helpers import F, finite_difference_tests

from gradtrace.engine.tensor import Tensor


def _long(values) -> Tensor:
    return Tensor(np.asarray(values, dtype=np.int64))


def _const(values) -> Tensor:
    return Tensor(np.asarray(values, dtype=np.float64))


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([2026, sum(map(ord, name))])


def _off_grid(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Normal values whose pairwise differences (and distance to the margins 0.5, 1, 2)
    stay clear of 0: each a distinct multiple of 0.37 plus a small jitter."""
    n = int(np.prod(shape))
    values = (rng.permutation(n) - n / 2) * 0.37 + rng.uniform(-0.03, 0.03, n) + 0.011
    return values.reshape(shape)


SIGN = _const([[1, -1, 1, -1], [-1, -1, 1, 1], [1, 1, -1, 1]])
CLASSES = _long([3, 0, 2])
LABELS = _long([[3, 0, -1, 1], [2, -1, 0, 0], [0, 1, 2, 3]])
WEIGHT = _const([0.5, 1.5, 1.0, 2.0])

CASES = {
    "hinge_embedding": (lambda a: F.hinge_embedding_loss(a, SIGN, margin=0.5),
                        lambda r: [_off_grid(r, 3, 4)]),
    "hinge_embedding_none": (lambda a: F.hinge_embedding_loss(a, SIGN, reduction="none"),
                             lambda r: [_off_grid(r, 3, 4)]),
    "multi_margin_p1": (lambda a: F.multi_margin_loss(a, CLASSES),
                        lambda r: [_off_grid(r, 3, 4)]),
    "multi_margin_p2_weight_sum": (
        lambda a: F.multi_margin_loss(a, CLASSES, p=2, margin=2.0, weight=WEIGHT,
                                      reduction="sum"), lambda r: [_off_grid(r, 3, 4)]),
    "multi_margin_none": (lambda a: F.multi_margin_loss(a, CLASSES, p=2, reduction="none"),
                          lambda r: [_off_grid(r, 3, 4)]),
    "multi_margin_vector": (lambda a: F.multi_margin_loss(a, _long(1), margin=2.0),
                            lambda r: [_off_grid(r, 4)]),
    "multilabel_margin": (lambda a: F.multilabel_margin_loss(a, LABELS),
                          lambda r: [_off_grid(r, 3, 4)]),
    "multilabel_margin_none": (lambda a: F.multilabel_margin_loss(a, LABELS, reduction="none"),
                               lambda r: [_off_grid(r, 3, 4)]),
    "multilabel_soft_margin": (
        lambda a, t: F.multilabel_soft_margin_loss(a, t, weight=WEIGHT),
        lambda r: [r.standard_normal((3, 4)), r.uniform(0, 1, (3, 4))]),
    "triplet_swap": (lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, swap=True),
                     lambda r: [_off_grid(r, 3, 4), _off_grid(r, 3, 4), _off_grid(r, 3, 4)]),
    "triplet_p3_none": (lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=3.0, p=3,
                                                              reduction="none"),
                        lambda r: [_off_grid(r, 3, 4), _off_grid(r, 3, 4), _off_grid(r, 3, 4)]),
    "triplet_with_distance": (
        lambda a, p, n: F.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: (u - v).pow(2).sum(1), margin=40.0),
        lambda r: [_off_grid(r, 3, 4), _off_grid(r, 3, 4), _off_grid(r, 3, 4)]),
    "poisson_log_input_full": (lambda a, t: F.poisson_nll_loss(a, t, full=True),
                               lambda r: [r.standard_normal((3, 4)), r.uniform(0.2, 4, (3, 4))]),
    "poisson_full": (lambda a, t: F.poisson_nll_loss(a, t, log_input=False, full=True,
                                                     reduction="sum"),
                     lambda r: [r.uniform(0.5, 2, (3, 4)), r.uniform(1.2, 4, (3, 4))]),
    "gaussian": (lambda a, t, v: F.gaussian_nll_loss(a, t, v, full=True),
                 lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4)),
                            r.uniform(0.5, 2, (3, 4))]),
    "gaussian_homoscedastic": (lambda a, t, v: F.gaussian_nll_loss(a, t, v, reduction="none"),
                               lambda r: [r.standard_normal((3, 4)), r.standard_normal((3, 4)),
                                          r.uniform(0.5, 2, 3)]),
    "ctc_mean": (lambda a: F.ctc_loss(F.log_softmax(a, 2), _long([[1, 2], [2, 2]]), (4, 3),
                                      (2, 1)), lambda r: [r.standard_normal((4, 2, 3))]),
    "ctc_none_blank": (lambda a: F.ctc_loss(F.log_softmax(a, 2), _long([1, 0, 0]), (4, 4),
                                            (1, 2), blank=2, reduction="none"),
                       lambda r: [r.standard_normal((4, 2, 3))]),
}

SECOND_ORDER = [
    "hinge_embedding", "multilabel_soft_margin", "triplet_swap", "triplet_p3_none",
    "triplet_with_distance", "poisson_log_input_full", "poisson_full", "gaussian",
    "gaussian_homoscedastic",
]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
