"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 102
(audio and speech in plain torch) found: the input gradient of a stride-1 convolution whose
dilated kernel reaches more columns left of its padding than jit:avx2's backward-data
kernel holds in one width block (`(KW - 1) * DW - PW` above 7, or above the input's width):
oneDNN runs it as gemm:jit, not the direct kernel, as in NVIDIA Jasper's 9-wide dilated
MaskedConv1d ("same" padding of a strided block, or none) and the causal convolutions of
WaveNets with little padding.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


DILATED_INPUT_GRADIENTS = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for k, d, p, L in [(9, 2, 8, 15), (9, 2, 8, 30), (9, 1, 0, 15), (5, 2, 0, 12), (3, 4, 0, 20),
                   (3, 5, 2, 9), (9, 1, 1, 20), (5, 2, 1, 7), (17, 1, 9, 6),
                   (11, 2, 3, 30), (7, 3, 0, 30), (5, 3, 4, 15)]:
    x = torch.randn(2, 16, L, requires_grad=True)
    w = torch.randn(24, 16, k, requires_grad=True)
    y = F.conv1d(x, w, padding=p, dilation=d)
    y.backward(torch.randn(y.shape))
    print(k, d, p, L, x.grad.sum().item(), x.grad[1, 3].tolist()[:4], w.grad.sum().item())
for kh, kw, dh, dw, ph, pw in [(3, 9, 1, 1, 1, 0), (9, 9, 1, 1, 0, 0), (3, 5, 1, 2, 1, 0),
                               (9, 3, 1, 1, 0, 1), (9, 9, 1, 1, 1, 1)]:
    x = torch.randn(2, 8, 12, 12, requires_grad=True)
    w = torch.randn(8, 8, kh, kw)
    y = F.conv2d(x, w, padding=(ph, pw), dilation=(dh, dw))
    y.backward(torch.randn(y.shape))
    print(kh, kw, x.grad.sum().item(), x.grad[0, 5, 4].tolist()[:4])
"""


def test_dilated_input_gradient_past_the_backward_data_block_runs_gemm() -> None:
    """(KW - 1) * DW - PW above min(7, IW) sends the input gradient to gemm:jit: its sums
    agree with torch's to the last bit, as do those just inside the block (7 columns) and
    the 2-D ones where only the height overflows."""
    assert gradtrace_output(DILATED_INPUT_GRADIENTS) == torch_output(DILATED_INPUT_GRADIENTS)


JASPER_BLOCK = """import torch
import torch.nn as nn
torch.manual_seed(0)
conv = nn.Conv1d(16, 24, 9, padding=8, dilation=2, bias=False)
bn = nn.BatchNorm1d(24)
x = torch.randn(2, 16, 15, requires_grad=True)
out = torch.relu(bn(conv(x)))
out[:, :, :15].pow(2).mean().backward()
print(x.grad.norm().item(), x.grad[0, 0].tolist()[:5])
print(conv.weight.grad.norm().item())
"""


def test_jasper_style_dilated_conv_then_batchnorm_gradient() -> None:
    """A dilated Conv1d with a wide left padding (gemm:jit forward and input gradient) under
    BatchNorm and ReLU: the input and weight gradients print as torch's."""
    assert gradtrace_output(JASPER_BLOCK) == torch_output(JASPER_BLOCK)


DECONVOLUTION_FORWARD = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for cin, cout, k, d, p, L in [(8, 8, 9, 1, 0, 12), (16, 8, 9, 1, 0, 12), (8, 16, 5, 2, 0, 10),
                              (8, 8, 3, 4, 0, 9), (8, 8, 9, 1, 1, 12), (8, 8, 5, 3, 2, 7)]:
    x = torch.randn(2, cin, L, requires_grad=True)
    w = torch.randn(cin, cout, k)
    b = torch.randn(cout)
    y = F.conv_transpose1d(x, w, b, padding=p, dilation=d)
    y.backward(torch.randn(y.shape))
    print(k, d, p, L, y.sum().item(), y[1, 2].tolist()[:3], x.grad.sum().item())
print(F.conv_transpose2d(torch.randn(2, 8, 6, 6), torch.randn(8, 8, 3, 9)).sum().item())
"""


def test_stride_one_deconvolution_whose_kernel_overflows_runs_gemm_data_gradient() -> None:
    """A stride-1 deconvolution's forward is its convolution's data gradient, so a kernel
    overflowing jit:avx2's block (ConvTranspose1d(8, 8, 9) unpadded) runs it as gemm:jit
    (ONEDNN_VERBOSE: conv:any+x64:gemm:jit): outputs and input gradients as torch's."""
    assert gradtrace_output(DECONVOLUTION_FORWARD) == torch_output(DECONVOLUTION_FORWARD)


ONE_OUTPUT_COLUMN = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for k, d, p, L in [(9, 2, 1, 15), (9, 2, 0, 17), (5, 3, 3, 7), (11, 2, 3, 15), (9, 1, 0, 9)]:
    x = torch.randn(2, 16, L, requires_grad=True)
    w = torch.randn(8, 16, k)
    y = F.conv1d(x, w, padding=p, dilation=d)
    y.backward(torch.randn(y.shape))
    print(y.shape, x.grad.sum().item(), x.grad[1, 2].tolist()[:4])
x = torch.randn(2, 8, 5, 9, requires_grad=True)
F.conv2d(x, torch.randn(8, 8, 3, 9)).backward(torch.randn(2, 8, 3, 1))
print(x.grad.sum().item(), x.grad[0, 1, 2].tolist()[:4])
"""


def test_gemm_input_gradient_of_a_single_output_column() -> None:
    """gemm:jit's data gradient of one output position is an ('N', 'T') product of one
    row: oneDNN's gemv driver runs it as a no-transpose gemv of the weight columns (a
    column chain, not gemv_t's lane dot products)."""
    assert gradtrace_output(ONE_OUTPUT_COLUMN) == torch_output(ONE_OUTPUT_COLUMN)


WIDE_KERNELS = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
for kw, p, L in [(14, 6, 8), (14, 8, 40), (15, 7, 16), (17, 9, 8), (17, 10, 40), (21, 13, 16),
                 (17, 8, 16), (21, 11, 8)]:
    x = torch.randn(2, 8, L, requires_grad=True)
    w = torch.randn(16, 8, kw)
    y = F.conv1d(x, w, padding=p)
    y.backward(torch.randn(y.shape))
    print(kw, p, L, x.grad.sum().item(), x.grad[1, 3].tolist()[:3])
for kh, kw, ph, pw in [(3, 15, 1, 7), (3, 14, 1, 7), (5, 17, 2, 9), (15, 3, 7, 1)]:
    x = torch.randn(2, 8, 10, 20, requires_grad=True)
    w = torch.randn(8, 8, kh, kw)
    y = F.conv2d(x, w, padding=(ph, pw))
    y.backward(torch.randn(y.shape))
    print(kh, kw, x.grad.sum().item(), x.grad[1, 3, 2].tolist()[:3])
"""


def test_wide_kernel_input_gradient_runs_the_direct_kernel_unless_it_overflows() -> None:
    """Kernels 14 to 21 wide whose padding leaves at most 7 columns to their left run
    jit:avx2's backward-data kernel (ONEDNN_VERBOSE), not gemm:jit as a 14-wide kernel was
    assumed to; those leaving 8 or more run gemm:jit: both as torch's."""
    assert gradtrace_output(WIDE_KERNELS) == torch_output(WIDE_KERNELS)
