"""Inputs of the gamma-family bit tests (tests/test_special_functions.py), shared with their
recorder (tests/tools/record_special_bits.py): seeded, so both sides draw the same values."""
from __future__ import annotations

from typing import Any

import numpy as np

SEED = 2313

# function name -> its domain as (low, high) uniform ranges, plus points every kernel
# treats on its own (poles, zero, branch boundaries)
DOMAINS: dict[str, tuple[list[tuple[float, float]], list[float]]] = {
    "real": ([(-12.0, 12.0), (0.0, 3.0), (0.0, 60.0), (-40.0, 40.0)],
             [0.0, -0.0, -1.0, -2.0, 1.0, 2.0, 8.0, -8.0, 9.0, 10.0, 0.5, float("inf"),
              float("-inf"), float("nan")]),
    # |pi x| < 120, where gradtrace has glibc's sinf (beyond it sinf is a once-rounded sin)
    "moderate": ([(-12.0, 12.0), (0.0, 3.0), (-38.0, 38.0)],
                 [0.0, -0.0, -1.0, 1.0, 0.5, 1e-20, float("inf"), float("nan")]),
    # gamma concentrations and Poisson rates: small (the boosted and multiplying branches)
    # and large (rejection)
    "positive": ([(0.02, 1.0), (1.0, 12.0), (12.0, 200.0)], [1.0, 10.0, 0.5]),
    "probability": ([(0.0, 1.0), (0.0, 1e-6), (0.999, 1.0), (0.1, 0.9)],
                    [0.0, 1.0, -0.5, 1.5, 0.5, 0.13533528323661269189, float("nan")]),
}
EACH = 250  # draws per range


def inputs(domain: str, dtype: type) -> np.ndarray:
    ranges, points = DOMAINS[domain]
    rng = np.random.default_rng([SEED, len(domain)])
    draws = [rng.uniform(lo, hi, EACH) for lo, hi in ranges]
    return np.concatenate([*draws, np.asarray(points)]).astype(dtype)


SAMPLER_SEED = 23


def samplers(torch: Any, alpha: Any) -> dict[str, Any]:
    """The gamma-family samplers from a seeded generator, in this order, and a draw after:
    `torch` is real torch (the recorder) or gradtrace's (the test)."""
    torch.manual_seed(SAMPLER_SEED)
    gamma = torch._standard_gamma(alpha)
    rows = alpha[: alpha.numel() // 3 * 3].reshape(-1, 3)
    dirichlet = torch._sample_dirichlet(rows)
    total = rows.sum(-1, True).expand_as(rows)
    return {"standard_gamma": gamma,
            "standard_gamma_grad": torch._standard_gamma_grad(alpha, gamma),
            "sample_dirichlet": dirichlet,
            "dirichlet_grad": torch._dirichlet_grad(dirichlet, rows, total),
            "poisson": torch.poisson(alpha),
            "binomial": torch.binomial(torch.floor(alpha),
                                       torch.rand(alpha.shape, dtype=alpha.dtype)),
            "after": torch.rand(3, dtype=torch.float64)}
