"""Differential tests against live PyTorch 2.13 for gaps found in session 40 while
bisecting real scripts (torchvision's DeepLabV3 head): batch norm over no more rows than
threads (the ASPP pooling branch's (2, C, 1, 1) input) and nll_loss2d's summation (a
segmentation loss). Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


def test_batch_norm_of_as_many_rows_as_threads_sums_in_one_pass_like_torch() -> None:
    """With N*H*W at most the thread count torch's channels-last statistics kernel sums the
    rows in one pass in float32 (16 channels or fewer: the squares fused into the running
    sum) or per channel in double; splitting the rows between threads rounded the two
    squares apart (37 of 200 seeds differed)."""
    script = """import torch
import torch.nn as nn
for c in (8, 40, 3):
    for n in (2, 3):
        for seed in range(12):
            torch.manual_seed(seed)
            bn = nn.BatchNorm2d(c)
            bn.weight.data = torch.randn(c)
            bn.bias.data = torch.randn(c)
            x = (torch.randn(n, c, 1, 1) * 0.3 + 0.1).requires_grad_()
            y = bn(x)
            y.backward(torch.randn(y.shape))
            print(c, n, seed, y.view(torch.int32).long().sum().item(),
                  bn.running_var.view(torch.int32).long().sum().item(),
                  x.grad.view(torch.int32).long().sum().item())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_segmentation_cross_entropy_sums_its_positions_in_torchs_cascade() -> None:
    """nll_loss2d adds the N x H x W positions' losses (and weights) through nll_loss's
    8-level cascade, ignored positions passing nothing up; a plain sum differed in the last
    bit."""
    script = """import torch
import torch.nn.functional as F
for seed in range(12):
    torch.manual_seed(seed)
    n, c, h, w = [(2, 4, 12, 10), (3, 21, 17, 13), (1, 5, 64, 64), (4, 3, 33, 31)][seed % 4]
    x = torch.randn(n, c, h, w, requires_grad=True)
    t = torch.randint(0, c, (n, h, w))
    t[0, :2, :3] = 255
    wt = torch.rand(c)
    a = F.cross_entropy(x, t, ignore_index=255)
    b = F.cross_entropy(x, t.clamp(max=c - 1), weight=wt)
    d = F.cross_entropy(x, t.clamp(max=c - 1), reduction='sum')
    (a + b).backward()
    print(seed, a.item(), b.item(), d.item(), x.grad.view(torch.int32).long().sum().item())
"""
    assert gradtrace_output(script) == torch_output(script)
