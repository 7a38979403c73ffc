"""Pointwise kernels of two operands, one broadcast and one transposed or strided: torch's
output keeps the inputs' memory order (TensorIterator's layout) and its vector bodies run
along that order, so the results' bits and strides depend on it. Expected output recorded
from torch 2.13 under ATEN_CPU_CAPABILITY=avx2 running the same script."""
from __future__ import annotations

from test_conformance import use_capability

from gradtrace.runner import run_text

SCRIPT = """\
import torch
torch.manual_seed(4)
base = torch.randn(6, 37) * 4
cases = [(base, torch.randn(37)), (base.t(), torch.randn(6)), (base.t(), torch.randn(37, 1)),
         (torch.randn(37, 6).t(), torch.randn(37)), (base[:, ::2], torch.randn(19)),
         (base.t()[::2], torch.randn(6)), (torch.randn(3, 5, 7).permute(2, 0, 1), torch.randn(5)),
         (torch.randn(7), base[:, :7].t().reshape(7, 6)[:, :1])]
for a, b in cases:
    for n, f in (("logaddexp", torch.logaddexp), ("logaddexp2", torch.logaddexp2),
                 ("atan2", torch.atan2), ("pow", torch.pow)):
        x = a.abs() + 0.5 if f is torch.pow else a
        y = f(x, b)
        print(n, tuple(y.shape), y.stride(), y.double().mul(1e9).round().sum().item())
"""

TORCH_AVX2 = """\
logaddexp (6, 37) (37, 1) 363561159770.0
logaddexp2 (6, 37) (37, 1) 395121706715.0
atan2 (6, 37) (37, 1) -35688205723.0
pow (6, 37) (37, 1) 775273675024.0
logaddexp (37, 6) (1, 37) 388818124548.0
logaddexp2 (37, 6) (1, 37) 419932979858.0
atan2 (37, 6) (1, 37) -40640851839.0
pow (37, 6) (1, 37) 632554311623.0
logaddexp (37, 6) (1, 37) 355404742504.0
logaddexp2 (37, 6) (1, 37) 387317863968.0
atan2 (37, 6) (1, 37) -34990220084.0
pow (37, 6) (1, 37) 522675715280.0
logaddexp (6, 37) (1, 6) 192060204955.0
logaddexp2 (6, 37) (1, 6) 246366525421.0
atan2 (6, 37) (1, 6) 8153738925.0
pow (6, 37) (1, 6) 251983337120.0
logaddexp (6, 19) (19, 1) 220685260708.0
logaddexp2 (6, 19) (19, 1) 236272498717.0
atan2 (6, 19) (19, 1) -11962865150.0
pow (6, 19) (19, 1) 344539210687.0
logaddexp (19, 6) (1, 19) 165104459117.0
logaddexp2 (19, 6) (1, 19) 181268899385.0
atan2 (19, 6) (1, 19) -13674077302.0
pow (19, 6) (1, 19) 100317819287.0
logaddexp (7, 3, 5) (1, 35, 7) 126767225449.0
logaddexp2 (7, 3, 5) (1, 35, 7) 152946376403.0
atan2 (7, 3, 5) (1, 35, 7) -15916463501.0
pow (7, 3, 5) (1, 35, 7) 135775541121.0
logaddexp (7, 7) (7, 1) 56498020566.0
logaddexp2 (7, 7) (7, 1) 65172266236.0
atan2 (7, 7) (7, 1) -38214427088.0
pow (7, 7) (7, 1) 1439210669523.0
"""


def test_broadcast_kernels_follow_the_inputs_memory_order(monkeypatch):
    use_capability(monkeypatch, "avx2")
    result = run_text(SCRIPT)
    assert result.error is None
    assert result.stdout == TORCH_AVX2
