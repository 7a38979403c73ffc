"""Finite-difference checks (float64) of Tensor.as_strided's AsStridedBackward0: windows
that skip and repeat (overlapping: the gradient sums),
on a contiguous tensor, a transposed one and a view with a storage offset; second order
through the index_add / take the backward is built of."""
from __future__ import annotations

import numpy as np
from ops_helpers import finite_difference_tests
from test_gradcheck import randn

RNG_SEED = 1207


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([RNG_SEED, sum(map(ord, name))])


CASES = {
    "window": (lambda a: a.as_strided((2, 3), (1, 2), 1), lambda r: [randn(r, 3, 4)]),
    "overlapping": (lambda a: a.as_strided((3, 3), (2, 1), 1), lambda r: [randn(r, 12)]),
    "repeated": (lambda a: a.as_strided((2, 4), (0, 1)), lambda r: [randn(r, 5)]),
    "transposed_input": (lambda a: a.t().as_strided((2, 3), (1, 2), 1),
                         lambda r: [randn(r, 3, 4)]),
    "view_with_offset": (lambda a: a[2:].view(2, 5).as_strided((2, 2), (3, 1)),
                         lambda r: [randn(r, 12)]),
}
SECOND_ORDER = list(CASES)

test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
