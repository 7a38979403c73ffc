"""Count the float64 elements whose bits differ between gradtrace's engine and live torch
2.13, for the elementwise functions torch computes through SLEEF and libm (a quick check
beside the recorded tables of tests/test_f64_bits.py).

    ATEN_CPU_CAPABILITY=avx2 PYTHONPATH=.:tests python tests/tools/f64_mismatch_counts.py

100,000 values randn * 5 (seed 0); softmax and log_softmax as 100 rows of 1,000. Prints one
`name count` line per function; 0 is every bit equal.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from ops_helpers import TORCH as G
from ops_helpers import F as GF

from gradtrace.engine import capability
from gradtrace.engine.tensor import Tensor


def cases(x: torch.Tensor) -> dict[str, tuple[torch.Tensor, Tensor]]:
    xn = x.numpy().copy()
    gx, ga = Tensor(xn), Tensor(np.abs(xn))
    rows, grows = x.view(100, 1000), gx.view(100, 1000)
    target = Tensor((xn > 0).astype(np.float64))
    return {
        "sigmoid": (torch.sigmoid(x), G.sigmoid(gx)),
        "exp": (torch.exp(x), G.exp(gx)),
        "log1p": (torch.log1p(x.abs()), G.log1p(ga)),
        "expm1": (torch.expm1(x), G.expm1(gx)),
        "tanh": (torch.tanh(x), G.tanh(gx)),
        "softplus": (F.softplus(x), GF.softplus(gx)),
        "logsigmoid": (F.logsigmoid(x), GF.logsigmoid(gx)),
        "elu": (F.elu(x), GF.elu(gx)),
        "selu": (F.selu(x), GF.selu(gx)),
        "celu": (F.celu(x, 0.7), GF.celu(gx, 0.7)),
        "gelu": (F.gelu(x), GF.gelu(gx)),
        "gelu_tanh": (F.gelu(x, approximate="tanh"), GF.gelu(gx, approximate="tanh")),
        "silu": (F.silu(x), GF.silu(gx)),
        "mish": (F.mish(x), GF.mish(gx)),
        "log": (torch.log(x.abs()), G.log(ga)),
        "pow": (torch.pow(x.abs(), 1.7), G.pow(ga, 1.7)),
        "sqrt": (torch.sqrt(x.abs()), G.sqrt(ga)),
        "sin": (torch.sin(x), G.sin(gx)),
        "atan": (torch.atan(x), G.atan(gx)),
        "erf": (torch.erf(x), G.erf(gx)),
        "softmax": (torch.softmax(rows, 1), G.softmax(grows, 1)),
        "log_softmax": (torch.log_softmax(rows, 1), G.log_softmax(grows, 1)),
        "bce_logits": (F.binary_cross_entropy_with_logits(x, (x > 0).double(), reduction="none"),
                       GF.binary_cross_entropy_with_logits(gx, target, reduction="none")),
        "soft_margin": (F.soft_margin_loss(x, x.sign(), reduction="none"),
                        GF.soft_margin_loss(gx, Tensor(np.sign(xn)), reduction="none")),
        "logaddexp": (torch.logaddexp(x, x.flip(0)), G.logaddexp(gx, gx.flip(0))),
    }


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(100000, dtype=torch.float64) * 5
    print(f"torch {torch.backends.cpu.get_cpu_capability()}, gradtrace {capability.CAPABILITY}")
    for name, (want, got) in cases(x).items():
        print(name, int((want.numpy() != got.array).sum()))


if __name__ == "__main__":
    main()
