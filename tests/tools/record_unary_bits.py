"""Record torch 2.13's float32 bits for elementwise functions, for tests/test_unary_bits.py.

Run under a Python with torch, once per CPU capability torch can run here (torch can be
forced down, not up: record `avx512` on a machine with AVX-512):

    ATEN_CPU_CAPABILITY=avx2 PYTHONPATH=tests python tests/tools/record_unary_bits.py
    ATEN_CPU_CAPABILITY=default PYTHONPATH=tests python tests/tools/record_unary_bits.py

with `NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR"` on an AVX-512 machine (the
reference's float64 numpy functions then run libm's code, as under gradtrace), and for avx2
and default `ONEDNN_MAX_CPU_ISA=AVX2` there (oneDNN's GELU as on an AVX2 machine); avx512
natively. avx512.npz was recorded on an AMD EPYC (Zen 4) with AVX-512.

Writes tests/data/unary_bits/<capability>.npz: per function `<fn>` torch's output bits
(XOR the reference, see tests/unary_bits_data.py) for the 10^5 inputs of its domain, cut
into contiguous tensors of `SIZES` in turn so vector bodies, scalar tails and the
32,768-element thread split are all hit; and torch's `capability` and `threads`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from unary_bits_data import DOMAINS, chunks, domain, reference_bits

FUNCTIONS = {
    "exp": torch.exp, "log": torch.log, "log1p": torch.log1p, "expm1": torch.expm1,
    "sin": torch.sin, "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
    "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal,
    "pow_1.7": lambda t: t ** 1.7, "pow_-1.3": lambda t: t ** -1.3, "silu": F.silu,
    "softplus": F.softplus, "elu": F.elu, "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "erfinv": torch.erfinv,
    "sinh": torch.sinh, "cosh": torch.cosh, "atan2": lambda t: torch.atan2(t, t.flip(0)),
    "lgamma": torch.lgamma, "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "exp2": torch.exp2, "logaddexp2": lambda t: torch.logaddexp2(t, t.flip(0)),
}


def main() -> None:
    cap = torch.backends.cpu.get_cpu_capability().lower()
    out: dict[str, np.ndarray] = {"threads": np.array(torch.get_num_threads()),
                                  "capability": np.array(cap)}
    for name, fn in FUNCTIONS.items():
        x = domain(DOMAINS.get(name, "real"))
        y = np.empty_like(x)
        for i, j in chunks(x.size):
            y[i:j] = fn(torch.from_numpy(x[i:j].copy())).numpy()
        out[name] = y.view(np.uint32) ^ reference_bits(name, x)
    path = Path(__file__).resolve().parents[1] / "data" / "unary_bits" / f"{cap}.npz"
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
