"""Differential tests against live PyTorch 2.13: grouped and depthwise convolutions in the
order of the oneDNN kernels torch runs for them on AVX2 -- jit_dw's weight and bias
gradients (MobileNet's 3x3 depthwise), gemm:jit's per-group sgemm where jit_dw and the
direct kernels decline (Mamba's causal depthwise Conv1d, ConvNeXt's 7x7, ResNeXt-style
groups of 4 channels), jit:avx2's direct kernel per group of whole channel blocks (1x1
ones too, which jit_1x1 does not run), and gemm:jit's bias gradient over long output rows.
Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SHOW = """import torch
import torch.nn as nn
torch.manual_seed(0)
def bits(t):
    return t.contiguous().view(torch.int32).long().sum().item()
def show(name, t):
    print(name, tuple(t.shape), bits(t), t.flatten()[:3].tolist())
"""

# (batch, channels, spatial, kernel, padding, stride, groups, multiplier): 1-D when the
# spatial size is an int
CASES = [
    (2, 16, (10, 10), 3, 1, 1, 16, 1),   # MobileNet: jit_dw's weight and bias gradients
    (3, 8, (9, 9), 3, 1, 2, 8, 1),       # strided, one channel block: images split
    (2, 16, 40, 4, 3, 1, 16, 1),         # Mamba's causal Conv1d: gemm:jit's gemv_t
    (2, 8, (12, 12), 7, 3, 1, 8, 1),     # ConvNeXt's 7x7: gemm:jit, rows past 16
    (2, 16, 600, 3, 2, 1, 16, 1),        # 600 positions: one thread runs every sgemm
    (2, 16, (8, 8), 3, 1, 1, 4, 1),      # ResNeXt-style groups of 4 channels
    (2, 12, (6, 6), 3, 1, 1, 6, 2),      # two output channels per group
    (2, 16, (7, 7), 3, 1, 1, 2, 1),      # groups of whole blocks of 8: jit:avx2 per group
    (2, 16, 30, 5, 2, 2, 2, 1),          # ... strided, 1-D
    (4, 16, (4, 4), 1, 0, 1, 2, 1),      # RepVGG's grouped 1x1 branch: jit:avx2, not jit_1x1
    (3, 24, (10, 10), 1, 0, 2, 3, 1),    # ... strided 1x1 groups
    (2, 512, (3, 3), 1, 0, 1, 2, 1),     # ... 256 channels a group: one chain, not 128s
    (2, 24, (2, 2), 7, 3, 1, 24, 1),     # ConvNeXt's 7x7 on a 2x2 map: output narrower
    (2, 16, 2, 5, 3, 2, 16, 1),          # than its left padding, jit_dw declines: gemm:jit
    (2, 8, (2, 9), 7, 3, 1, 8, 1),       # ... a low input keeps jit_dw (the width decides)
    (2, 48, (4, 4), 3, 1, 2, 6, 1),      # RegNet's strided groups of 8: jit:avx2's input
    (2, 16, (8, 30), 5, 2, 2, 2, 1),     # gradient, not brgconv_strided
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}ch-{c[2]}-k{c[3]}-g{c[6]}")
def test_a_grouped_convolution_and_its_gradients_match_torch_bit_for_bit(case: tuple) -> None:
    n, c, size, k, pad, stride, groups, mult = case
    layer = "Conv1d" if isinstance(size, int) else "Conv2d"
    shape = (n, c, size) if isinstance(size, int) else (n, c, *size)
    script = SHOW + f"""x = torch.randn{shape}
x.requires_grad_()
conv = nn.{layer}({c}, {c * mult}, {k}, padding={pad}, stride={stride}, groups={groups})
y = conv(x)
show('y', y)
y.backward(torch.randn(y.shape))
show('x.grad', x.grad)
show('weight.grad', conv.weight.grad)
show('bias.grad', conv.bias.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_dilated_conv1d_bias_gradient_over_long_rows_matches_torch() -> None:
    """gemm:jit's bias gradient sums each output row in turn (its `omp simd` loop is not
    vectorised in torch's build), rows of 50 here."""
    script = SHOW + """conv = nn.Conv1d(3, 5, 3, dilation=2, padding=2)
x = torch.randn(4, 3, 50) * 100
y = conv(x)
(y * torch.randn(y.shape).exp()).sum().backward()
show('bias.grad', conv.bias.grad)
show('weight.grad', conv.weight.grad)
"""
    assert gradtrace_output(script) == torch_output(script)
