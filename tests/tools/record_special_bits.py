"""Record torch 2.13's values of the gamma-family kernels, for tests/test_special_functions.py.

    ATEN_CPU_CAPABILITY=avx2 PYTHONPATH=tests python tests/tools/record_special_bits.py

Writes tests/data/special_bits/<capability>.npz: per `<function>_<dtype>` torch's outputs on
special_bits_data's inputs (one contiguous tensor each), the samplers' outputs from a seeded
generator (`samplers`), and the `capability`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from special_bits_data import inputs, samplers

S = torch.special
# name -> (torch function, domain); the test maps the same names to gradtrace's
FUNCTIONS = {
    "digamma": (torch.digamma, "real"), "trigamma": (lambda t: torch.polygamma(1, t), "real"),
    "polygamma2": (lambda t: torch.polygamma(2, t), "real"),
    "polygamma3": (lambda t: torch.polygamma(3, t), "real"),
    "i0": (torch.i0, "real"), "i0e": (S.i0e, "real"), "i1": (S.i1, "real"),
    "i1e": (S.i1e, "real"), "ndtri": (S.ndtri, "probability"), "sinc": (torch.sinc, "moderate"),
    "entr": (S.entr, "real"), "xlog1py": (lambda t: S.xlog1py(t, t.abs()), "real"),
    "mvlgamma2": (lambda t: torch.mvlgamma(t.abs() + 1, 2), "real"),
    "lgamma": (torch.lgamma, "real"),
}


def main() -> None:
    cap = torch.backends.cpu.get_cpu_capability().lower()
    out: dict[str, np.ndarray] = {"capability": np.array(cap)}
    for name, (fn, domain) in FUNCTIONS.items():
        for dtype in (np.float32, np.float64):
            x = inputs(domain, dtype)
            out[f"{name}_{np.dtype(dtype).name}"] = fn(torch.from_numpy(x)).numpy()
    for dtype in (np.float32, np.float64):
        for name, value in samplers(torch, torch.from_numpy(inputs("positive", dtype))).items():
            out[f"{name}_{np.dtype(dtype).name}"] = value.numpy()
    path = Path(__file__).resolve().parents[1] / "data" / "special_bits" / f"{cap}.npz"
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
