"""Differential tests against live PyTorch 2.13: convolutions oneDNN runs as `gemm:jit`
(im2col and its own no-copy sgemm): the causal dilated Conv1d of TCNs and WaveNets
(`padding=(k - 1) * dilation`), a padding as wide as the kernel, SRCNN's 9x9 kernel with
padding 4, and dilated weight gradients. Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SHOW = """import torch
import torch.nn as nn
torch.manual_seed(0)
def show(name, t):
    print(name, tuple(t.shape), t.sum().item(), t.flatten()[:4].tolist(), t.abs().max().item())
"""

# (in, out, kernel, dilation, batch, length): causal padding (k - 1) * dilation
CAUSAL = [(16, 16, 3, 2, 4, 50), (8, 16, 3, 4, 2, 40), (64, 32, 9, 1, 2, 40),
          (1, 8, 9, 1, 3, 100), (32, 64, 2, 8, 3, 60)]


@pytest.mark.parametrize("config", CAUSAL, ids=lambda c: "x".join(map(str, c)))
def test_a_causal_dilated_conv1d_and_its_gradients_match_torch(config: tuple) -> None:
    cin, cout, k, d, n, length = config
    script = SHOW + f"""x = torch.randn({n}, {cin}, {length}, requires_grad=True)
conv = nn.Conv1d({cin}, {cout}, {k}, dilation={d}, padding={(k - 1) * d})
y = conv(x)
show('y', y)
y[..., :{length}].backward(torch.randn({n}, {cout}, {length}))
show('x.grad', x.grad)
show('weight.grad', conv.weight.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_2d_convolutions_oneDNN_runs_as_gemm_match_torch() -> None:
    """SRCNN's Conv2d(3, 64, 9, padding=4) (a left padding past 3), a kernel
    padded by its width, a dilated 3x3, WGAN-GP's Conv2d(1, 64, 4, stride=2, padding=1)
    and a 14-wide kernel (their input, weight and bias gradients too)."""
    script = SHOW + """for cin, cout, k, pad, d, st, hw in ((3, 64, 9, 4, 1, 1, 20),
                                       (1, 8, 4, 4, 1, 1, 10), (16, 16, 3, 2, 2, 1, 12),
                                       (8, 8, 3, 3, 1, 1, 10), (1, 64, 4, 1, 1, 2, 28),
                                       (3, 8, 14, 0, 1, 1, 20)):
    x = torch.randn(2, cin, hw, hw, requires_grad=True)
    conv = nn.Conv2d(cin, cout, k, padding=pad, dilation=d, stride=st)
    y = conv(x)
    show('y', y)
    y.backward(torch.randn(y.shape))
    show('x.grad', x.grad)
    show('weight.grad', conv.weight.grad)
    show('bias.grad', conv.bias.grad)
"""
    assert gradtrace_output(script) == torch_output(script)
