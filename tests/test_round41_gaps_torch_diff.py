"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 41
(loss and metric zoos) found, in Po-Hsun Su's pytorch-ssim README: an HWC uint8 image made
a batch of one by `torch.from_numpy(np.rollaxis(img, 2)).float().unsqueeze(0) / 255.0`.

- numpy.rollaxis was refused.
- An elementwise result's stride of a size-1 dimension: torch's TensorIterator lays out a
  binary op with a Python number (a wrapped scalar operand, so not its same-shape fast
  setup) by its operands' strides, and a unary op on a channels-last tensor channels-last
  (its fast setup), where gradtrace took numpy's or the fast setup's; the stride decides
  whether a later convolution suggests channels-last.
- A channels-last depthwise convolution runs oneDNN's brdgmm_dw kernel for any padding:
  each output a chain from 0 over the taps, the bias added after it; gradtrace chained
  from the bias (paddings up to 4) or ran the other kernels (wider paddings, such as SSIM's
  11x11 Gaussian window with padding 5).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


ROLLAXIS_STRIDES = """import torch
import numpy as np
img = (np.arange(6 * 5 * 3).reshape(6, 5, 3) % 251).astype(np.uint8)
chw = np.rollaxis(img, 2)
print(chw.shape, np.rollaxis(img, 2, 1).shape, np.rollaxis(img, -1, 0).shape)
t = torch.from_numpy(chw).float().unsqueeze(0)
print(t.stride(), (t / 255.0).stride(), (t + 1).stride(), (2 * t).stride(), (1 - t).stride())
print(t.exp().stride(), torch.relu(t).stride(), (t * t).stride(), t.clamp(0, 9).stride())
print((t * torch.tensor(2.)).stride(), (t / 255.0).is_contiguous(memory_format=torch.channels_last))
u = torch.zeros(4, 1, 5).transpose(0, 2)
print((u + 1).stride(), u.exp().stride(), (u * u).stride())
"""


def test_rollaxis_and_size_one_strides_of_elementwise_results_are_torchs() -> None:
    """np.rollaxis runs; `t / 255.0` and `t + 1` keep the batch-of-one's stride (3 here,
    torch's general layout), `t.exp()` and `t * t` lay out channels-last (432)."""
    assert gradtrace_output(ROLLAXIS_STRIDES) == torch_output(ROLLAXIS_STRIDES)


CHANNELS_LAST_DEPTHWISE = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
def fingerprint(t):
    w = torch.arange(t.numel()).double().reshape(t.shape).sin()
    return round((t.double() * w).sum().item(), 12)
for n, c, h, k, p, s, bias in [(1, 3, 12, 11, 5, 1, False), (1, 3, 12, 11, 5, 1, True),
                               (2, 4, 9, 7, 6, 2, True), (1, 3, 10, 3, 1, 1, True),
                               (2, 5, 7, 5, 4, 3, True)]:
    x = torch.randn(n, c, h, h).contiguous(memory_format=torch.channels_last)
    w = torch.randn(c, 1, k, k)
    b = torch.randn(c) if bias else None
    o = F.conv2d(x, w, b, stride=s, padding=p, groups=c)
    print(o.stride(), fingerprint(o))
    print(fingerprint(F.conv2d(x, w, b, padding=2, dilation=2, groups=c)))
"""


def test_channels_last_depthwise_forward_is_brdgmm_dws() -> None:
    """Undilated channels-last depthwise forwards (any padding) are bit for bit torch's:
    the chain from 0, then the bias; a dilated one stays jit_dw's chain from the bias."""
    assert gradtrace_output(CHANNELS_LAST_DEPTHWISE) == torch_output(CHANNELS_LAST_DEPTHWISE)
