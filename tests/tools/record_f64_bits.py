"""Record torch 2.13's float64 bits for the cases of tests/f64_bits_data.py, for
tests/test_f64_bits.py. Run under a Python with torch, once per CPU capability:

    ATEN_CPU_CAPABILITY=avx2 PYTHONPATH=tests python tests/tools/record_f64_bits.py
    ATEN_CPU_CAPABILITY=default PYTHONPATH=tests python tests/tools/record_f64_bits.py
    PYTHONPATH=tests python tests/tools/record_f64_bits.py    # avx512, on such a machine
(on an AVX-512 machine with `NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR"`, and
`ONEDNN_MAX_CPU_ISA=AVX2` for avx2/default, as record_unary_bits.py says). avx512.npz was
recorded on an AMD EPYC (Zen 4).

Writes tests/data/f64_bits/<capability>.npz: per case torch's output bits XOR the
reference's (tests/f64_bits_data.py), and torch's `capability` and `threads`.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from f64_bits_data import FORMULAS, GRAD, chunks, domain, reference_bits


def _backward(fn: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
    def run(x: torch.Tensor) -> torch.Tensor:
        x = x.clone().requires_grad_()
        fn(x).backward(torch.full_like(x, GRAD))
        return x.grad
    return run


CASES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sigmoid": torch.sigmoid, "expm1": torch.expm1, "log1p": torch.log1p,
    "pow_tensor": lambda t: t ** (t.flip(0) / 7), "pow_1.7": lambda t: t ** 1.7,
    "pow_-1.3": lambda t: t ** -1.3, "silu": F.silu,
    "softplus": F.softplus, "elu": F.elu, "selu": F.selu, "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "mish": F.mish,
    "logsigmoid": F.logsigmoid, "logaddexp": lambda t: torch.logaddexp(t, t.flip(0)),
    "atan2": lambda t: torch.atan2(t, t.flip(0)), "sinh": torch.sinh, "cosh": torch.cosh,
    "lgamma": torch.lgamma, "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "exp2": torch.exp2, "logaddexp2": lambda t: torch.logaddexp2(t, t.flip(0)),
    "softmax": lambda t: torch.softmax(t.view(1, -1), 1).view(-1),
    "log_softmax": lambda t: torch.log_softmax(t.view(1, -1), 1).view(-1),
    "bce_logits": lambda t: F.binary_cross_entropy_with_logits(t, (t > 0).double(),
                                                               reduction="none"),
    "soft_margin": lambda t: F.soft_margin_loss(t, t.sign(), reduction="none"),
    "silu_backward": _backward(F.silu), "softplus_backward": _backward(F.softplus),
    "elu_backward": _backward(F.elu), "mish_backward": _backward(F.mish),
    "gelu_backward": _backward(F.gelu),
    "gelu_tanh_backward": _backward(lambda t: F.gelu(t, approximate="tanh")),
}


def main() -> None:
    assert set(CASES) == set(FORMULAS)
    cap = torch.backends.cpu.get_cpu_capability().lower()
    out: dict[str, np.ndarray] = {"threads": np.array(torch.get_num_threads()),
                                  "capability": np.array(cap)}
    for name, fn in CASES.items():
        x = domain(FORMULAS[name][0])
        y = np.empty_like(x)
        for i, j in chunks(x.size):
            y[i:j] = fn(torch.from_numpy(x[i:j].copy())).detach().numpy()
        out[name] = y.view(np.uint64) ^ reference_bits(name, x)
    path = Path(__file__).resolve().parents[1] / "data" / "f64_bits" / f"{cap}.npz"
    path.parent.mkdir(exist_ok=True)
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
