"""Record torch 2.13's bfloat16 results, bit for bit, for tests/test_bfloat16.py.

Run under a Python with torch, on the corpus's recording capability:

    ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 python tests/tools/record_bfloat16_bits.py

Writes tests/data/bfloat16_bits.npz: the inputs (bfloat16 bit patterns of random finite
values of every magnitude, plus zeros, infinities, NaN and subnormals; float64, float32,
float16 and int64 values to convert; Python numbers) and, per case, torch's result (its bit
pattern as int16, or its values for a float32/bool/int result).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parents[1] / "data" / "bfloat16_bits.npz"
N = 1024
SCALARS = (0.1, 1.1, 3.0, -2.7, 257, 1e-3, 65536.5, 1e30, -7)


def _bf16(bits: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(bits.astype(np.int16)).view(torch.bfloat16)


def _bits(t: torch.Tensor) -> np.ndarray:
    return t.contiguous().view(torch.int16).numpy().copy()


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20261204)
    sign = rng.integers(0, 2, N) << 15
    exponent = rng.integers(0, 255, N) << 7  # finite: not the all-ones exponent
    mantissa = rng.integers(0, 128, N)
    a = (sign | exponent | mantissa).astype(np.uint16)
    # values near 1 too, where sums and products round in the last bits most often
    near = (0x3F80 + rng.integers(-300, 300, N)).astype(np.uint16)
    a = np.concatenate([a, near, np.array([0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 1, 0x807F],
                                          np.uint16)])
    b = np.roll(a, 7)[::-1].copy()
    wide = rng.standard_normal(N) * 10.0 ** rng.integers(-40, 39, N)
    return {"a": a, "b": b, "f64": wide, "f32": wide.astype(np.float32),
            "f16": (rng.standard_normal(N) * 100).astype(np.float16),
            "i64": rng.integers(-(1 << 40), 1 << 40, N),
            "scalars": np.array(SCALARS, np.float64)}


def cases(data: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    a, b = _bf16(data["a"]), _bf16(data["b"])
    out = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "neg": -a, "abs": abs(a),
           "sqrt": a.sqrt(), "lt": a < b, "eq": a == b, "ge": a >= b,
           "from_f64": torch.from_numpy(data["f64"]).to(torch.bfloat16),
           "from_f32": torch.from_numpy(data["f32"]).to(torch.bfloat16),
           "from_f16": torch.from_numpy(data["f16"]).to(torch.bfloat16),
           "from_i64": torch.from_numpy(data["i64"]).to(torch.bfloat16),
           "tensor_f64": torch.tensor(data["f64"].tolist(), dtype=torch.bfloat16),
           "to_f16": a.to(torch.float16), "to_f32": a.float(),
           "add_f16": a + b.to(torch.float16), "mul_f32": a * b.float(),
           "add_i64": a[:N] + torch.from_numpy(data["i64"]),
           "mul_0d_f32": a * torch.tensor(1.1),
           "add_0d_f64": a + torch.tensor(1.1, dtype=torch.float64),
           "iadd": a.clone().add_(b), "imul_s": a.clone().mul_(0.3)}
    for i, s in enumerate(data["scalars"].tolist()):
        s = int(s) if s == int(s) and abs(s) < 1e6 else s
        out |= {f"add_s{i}": a + s, f"sub_s{i}": a - s, f"mul_s{i}": a * s, f"div_s{i}": a / s,
                f"radd_s{i}": s + a, f"rsub_s{i}": s - a, f"rmul_s{i}": s * a,
                f"rdiv_s{i}": s / a, f"lt_s{i}": a < s, f"eq_s{i}": a == s}
    return out


def main() -> None:
    data = inputs()
    results = {}
    for name, t in cases(data).items():
        results[f"out_{name}"] = _bits(t) if t.dtype == torch.bfloat16 else t.numpy().copy()
    np.savez_compressed(OUT, **data, **results,
                        capability=np.array(torch.backends.cpu.get_cpu_capability().lower()))
    print(f"wrote {OUT} ({len(results)} cases)")


if __name__ == "__main__":
    main()
