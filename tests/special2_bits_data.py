"""Inputs of the torch.special bit tests (tests/test_special_functions2.py), shared with
their recorder (tests/tools/record_special2_bits.py): seeded, so both sides draw the same
values. Each domain keeps to where gradtrace reproduces torch bit for bit (float32 erfcx
below x = 50)."""
from __future__ import annotations

import numpy as np

SEED = 2413
EDGES = [0.0, -0.0, 1e-6, -1e-6, 1e-5, 0.5, -0.5, 1.0, -1.0, 2.0, 2.09, -2.09, 5.0, -5.0,
         8.0, -8.0, 8.3203353, 103.892, 104.0, float("inf"), float("-inf"), float("nan")]
# name -> (uniform ranges, points)
DOMAINS: dict[str, tuple[list[tuple[float, float]], list[float]]] = {
    # beyond |x| = 120 glibc's sinf and cosf reduce by 2/pi's bits (reduce_large)
    "bessel": ([(-30.0, 30.0), (0.0, 3.0), (0.0, 8.5), (-0.6, 0.6), (-1e4, 1e4)],
               [*EDGES, 1e30, -1e30]),
    "erfcx": ([(-8.0, 8.0), (-27.0, 50.0), (-1.5, 0.0)],
              [0.0, -0.0, 50.0, -6.1, -26.7, -27.0, -1.0, 1.0, 1e-20, float("inf"),
               float("-inf"), float("nan")]),
    "log_ndtr": ([(-40.0, -1.0), (-1.0, 8.0)], [-1.0, -1.5, -38.0, float("-inf"),
                                                  float("nan")]),
}
EACH = 150
DEGREES = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20, 37, 129, 200, 2.5, float("nan")]


def inputs(domain: str, dtype: type) -> np.ndarray:
    ranges, points = DOMAINS[domain]
    rng = np.random.default_rng([SEED, len(domain)])
    draws = [rng.uniform(lo, hi, EACH) for lo, hi in ranges]
    return np.concatenate([*draws, np.asarray(points)]).astype(dtype)


def polynomial_grid(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """(x, n) pairs: x on [-1.2, 1.2] and [-0.1, 1.1] (the shifted forms' [0, 1]) and the
    special points, n the degrees above (NaN x is left out: torch returns an
    uninitialised value there)."""
    rng = np.random.default_rng([SEED, 7])
    xs = np.concatenate([rng.uniform(-1.2, 1.2, 40), rng.uniform(-0.1, 1.1, 30),
                         [0.0, 1.0, -1.0, 0.5, -0.5, 2.0, float("inf")]])
    x, n = np.meshgrid(xs, np.asarray(DEGREES))
    return x.ravel().astype(dtype), n.ravel().astype(dtype)


def igamma_pairs(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """(a, x) pairs over small, medium and large a, plus the boundary cases."""
    rng = np.random.default_rng([SEED, 9])
    a = np.concatenate([rng.uniform(0, 3, 120), rng.uniform(0, 30, 120),
                        rng.uniform(15, 300, 120), [0, 1, 0.5, np.inf, np.nan, -1, 2, 25, 250]])
    x = np.concatenate([rng.uniform(0, 3, 120), rng.uniform(0, 40, 120),
                        rng.uniform(10, 320, 120), [1, 0, 0.5, np.inf, 3, 2, -1, np.nan, 25]])
    return a.astype(dtype), x.astype(dtype)
