"""Finite-difference checks (float64) of the backwards added for torch's tensor API: the
`*_copy` ops (view derivatives under `<Node>_copy` names, NarrowCopyBackward0), renorm,
ldexp and torch.gradient's composite graph; second order where the backward is built of
differentiable ops."""
from __future__ import annotations

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import finite_difference_tests
from test_gradcheck import randn

RNG_SEED = 1203


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([RNG_SEED, sum(map(ord, name))])


CASES = {
    "select_copy": (lambda a: torch.select_copy(a, 1, -1), lambda r: [randn(r, 2, 3)]),
    "transpose_copy": (lambda a: torch.transpose_copy(a, 0, 1), lambda r: [randn(r, 2, 3)]),
    "permute_copy": (lambda a: torch.permute_copy(a, (2, 0, 1)),
                     lambda r: [randn(r, 2, 3, 2)]),
    "view_copy": (lambda a: torch.view_copy(a, [3, 2]), lambda r: [randn(r, 2, 3)]),
    "expand_copy": (lambda a: torch.expand_copy(a, [2, 3]), lambda r: [randn(r, 3)]),
    "diagonal_copy": (lambda a: torch.diagonal_copy(a, 1), lambda r: [randn(r, 3, 4)]),
    "narrow_copy": (lambda a: torch.narrow_copy(a, 1, 1, 2), lambda r: [randn(r, 2, 4)]),
    "narrow_copy_negative_start": (lambda a: torch.narrow_copy(a, -1, -3, 2),
                                   lambda r: [randn(r, 2, 4)]),
    "unsqueeze_copy": (lambda a: torch.unsqueeze_copy(a, 1), lambda r: [randn(r, 2, 3)]),
    "squeeze_copy": (lambda a: torch.squeeze_copy(a, 0), lambda r: [randn(r, 1, 3)]),
    "t_copy": (lambda a: torch.t_copy(a), lambda r: [randn(r, 2, 3)]),
    "unbind_copy": (lambda a: torch.unbind_copy(a, 1), lambda r: [randn(r, 2, 3)]),
    "split_copy": (lambda a: torch.split_copy(a, 2, 1), lambda r: [randn(r, 2, 5)]),
    "split_with_sizes_copy": (lambda a: torch.split_with_sizes_copy(a, [1, 3], 1),
                              lambda r: [randn(r, 2, 4)]),
    "slice_copy": (lambda a: torch.slice_copy(a, 1, -3, None, 2), lambda r: [randn(r, 2, 5)]),
    "alias_copy": (lambda a: torch.alias_copy(a) * a, lambda r: [randn(r, 2, 3)]),
    "unfold_copy": (lambda a: torch.unfold_copy(a, 1, 2, 1), lambda r: [randn(r, 2, 4)]),
    # rows 0 and 2 are above maxnorm, row 1 below it (the where's both branches)
    "renorm_p2": (lambda a: torch.renorm(a * torch.tensor([[1.0], [0.1], [2.0]],
                                                             dtype=a.dtype), 2, 0, 1.0),
                  lambda r: [randn(r, 3, 4)]),
    "renorm_p1_dim1": (lambda a: a.renorm(1, 1, 0.5), lambda r: [randn(r, 3, 4)]),
    "renorm_p3_3d": (lambda a: a.renorm(3, -1, 0.8), lambda r: [randn(r, 2, 3, 2)]),
    "renorm_inplace": (lambda a: (a * 1).renorm_(2, 1, 0.7), lambda r: [randn(r, 3, 2)]),
    "frexp_mantissa": (lambda a: torch.frexp(a).mantissa, lambda r: [randn(r, 2, 3)]),
    "ldexp_int_exponent": (lambda a: torch.ldexp(a, torch.tensor([1, 0, 3])),
                           lambda r: [randn(r, 2, 3)]),
    "ldexp_float_exponent": (lambda a, e: torch.ldexp(a, e), lambda r: [randn(r, 2, 3),
                                                                       randn(r, 3)]),
    "nextafter_self": (lambda a: torch.nextafter(a, torch.tensor(0.0, dtype=a.dtype)) * a,
                       lambda r: [randn(r, 2, 3)]),
    "gradient_edge1": (lambda a: torch.gradient(a), lambda r: [randn(r, 3, 4)]),
    "gradient_edge2_spacing": (lambda a: torch.gradient(a, spacing=[0.5, 2.0], edge_order=2),
                               lambda r: [randn(r, 3, 4)]),
    "gradient_coordinates": (
        lambda a, c: torch.gradient(a, spacing=(c.cumsum(0),), dim=1, edge_order=2),
        lambda r: [randn(r, 2, 5), r.random(5) + 0.5]),
}

SECOND_ORDER = ["gradient_coordinates", "ldexp_float_exponent", "renorm_p2", "renorm_p3_3d",
                "select_copy", "narrow_copy", "slice_copy", "diagonal_copy", "unfold_copy",
                "alias_copy"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
