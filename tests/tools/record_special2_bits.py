"""Record torch 2.13's values of torch.special's Bessel, Airy and polynomial functions,
erfcx, log_ndtr, igamma/igammac and zeta, for tests/test_special_functions2.py.

    ATEN_CPU_CAPABILITY=avx2 PYTHONPATH=tests python tests/tools/record_special2_bits.py

Writes tests/data/special_bits/special2_<capability>.npz: per `<function>_<dtype>` torch's
outputs on special2_bits_data's inputs, and the `capability`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from special2_bits_data import igamma_pairs, inputs, polynomial_grid

S = torch.special
UNARY = {name: "bessel" for name in (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0")}
UNARY.update(erfcx="erfcx", log_ndtr="log_ndtr")
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")


def main() -> None:
    cap = torch.backends.cpu.get_cpu_capability().lower()
    out: dict[str, np.ndarray] = {"capability": np.array(cap)}
    for dtype in (np.float32, np.float64):
        suffix = np.dtype(dtype).name
        for name, domain in UNARY.items():
            values = torch.from_numpy(inputs(domain, dtype))
            out[f"{name}_{suffix}"] = getattr(S, name)(values).numpy()
        x, n = (torch.from_numpy(v) for v in polynomial_grid(dtype))
        for name in POLYNOMIALS:
            out[f"{name}_{suffix}"] = getattr(S, name)(x, n).numpy()
        a, z = (torch.from_numpy(v) for v in igamma_pairs(dtype))
        out[f"igamma_{suffix}"] = torch.igamma(a, z).numpy()
        out[f"igammac_{suffix}"] = torch.igammac(a, z).numpy()
        out[f"zeta_{suffix}"] = S.zeta(a + 1, z).numpy()
    path = Path(__file__).resolve().parents[1] / "data" / "special_bits" / f"special2_{cap}.npz"
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
