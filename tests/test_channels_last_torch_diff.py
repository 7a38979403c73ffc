"""Differential tests against live PyTorch 2.13: channels-last tensors (an NHWC batch
permuted to NCHW) through convolutions, batch norm, pools and padding, and leaves whose
`.grad` keeps their layout.

torch computes a convolution whose input (or weight) suggests channels-last memory in that
memory: oneDNN's brgemm kernels, whose order engine/conv_nhwc.py reproduces, and lays the
output and the input gradient out channels-last; batch norm then runs its channels-last
kernels, pools and padding keep the format, and AccumulateGrad copies a gradient into its
leaf's own strides. Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SHOW = """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
def show(name, t):
    print(name, tuple(t.shape), t.stride(), t.sum().item(), t.flatten()[:4].tolist(),
          t.abs().max().item())
"""

# (in, out, kernel, padding, batch, stride): one brgemm call of every tap (padding under
# half the kernel), one per kernel column (the input gradient of unpadded kernels, the
# forward of a padding past half the kernel), strided gradients, 1x1 kernels; a single
# small image runs slow_conv2d's channels-last frames (im2col in (row, column, channel)
# order and MKL's gemm)
CONVS = [(3, 16, 3, 1, 2, 1), (16, 32, 3, 1, 4, 1), (8, 24, 5, 2, 3, 1), (16, 16, 1, 0, 2, 1),
         (16, 32, 3, 1, 2, 2), (3, 8, 7, 3, 2, 2), (8, 16, 3, 0, 2, 1), (8, 8, 3, 2, 2, 1),
         (32, 16, 2, 1, 2, 1), (16, 8, 3, 1, 1, 1), (3, 8, 3, 0, 1, 1), (16, 8, 3, 1, 1, 2)]


@pytest.mark.parametrize("config", CONVS, ids=lambda c: "x".join(map(str, c)))
def test_a_channels_last_convolution_and_its_gradients_match_torch(config: tuple) -> None:
    cin, cout, k, pad, n, stride = config
    script = SHOW + f"""x = torch.randn({n}, 10, 9, {cin}).permute(0, 3, 1, 2).requires_grad_()
conv = nn.Conv2d({cin}, {cout}, {k}, padding={pad}, stride={stride})
y = conv(x)
show('y', y)
y.backward(torch.randn(y.shape))
show('x.grad', x.grad)
show('bias.grad', conv.bias.grad)
"""
    if k > 1 or n == 1:  # (jit_1x1's channels-last weight gradient is not reproduced)
        script += "show('weight.grad', conv.weight.grad)\n"
    assert gradtrace_output(script) == torch_output(script)


# (out, kernel, stride, batch, length): a mono signal permuted from (N, L, 1) stays
# contiguous, so Conv1d's view4d of it is channels-last: brg_conv_fwd and an output with
# strides (O*L, 1, O) (the speech-command M5's first layer: kernel 80, stride 16)
MONO = [(8, 5, 1, 2, 40), (32, 80, 16, 4, 500), (8, 3, 2, 3, 31)]


@pytest.mark.parametrize("config", MONO, ids=lambda c: "x".join(map(str, c)))
def test_a_conv1d_of_a_permuted_mono_signal_runs_channels_last_as_torchs(config: tuple) -> None:
    cout, k, stride, n, length = config
    script = SHOW + f"""x = torch.randn({n}, {length}, 1).permute(0, 2, 1).requires_grad_()
conv = nn.Conv1d(1, {cout}, {k}, stride={stride})
y = conv(x)
show('y', y)
print(y.is_contiguous(), x.stride())
z = nn.BatchNorm1d({cout})(y)
show('z', z)
z.backward(torch.randn(z.shape))
"""
    if k < 14:  # (a wider kernel's channels-last gradients run kernels not reproduced:
        # gemm:jit's weight gradient and a strided input gradient; and a size-1 channel's
        # stride in a fresh gradient is the row-major one, where torch's is 1)
        script += "\n".join(f"print({g}.sum().item(), {g}.flatten()[:4].tolist())" for g in (
            "x.grad", "conv.weight.grad", "conv.bias.grad"))
    assert gradtrace_output(script) == torch_output(script)


def test_a_channels_last_weight_makes_the_convolution_channels_last() -> None:
    script = SHOW + """x = torch.randn(2, 3, 8, 8, requires_grad=True)
conv = nn.Conv2d(3, 8, 3, padding=1)
conv.weight.data = conv.weight.data.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
y = conv(x)
show('y', y)
y.backward(torch.randn(y.shape))
show('x.grad', x.grad)
show('weight.grad', conv.weight.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_batch_norm_of_a_channels_last_input_runs_torchs_channels_last_kernels() -> None:
    script = SHOW + """for c in (3, 16, 40):
    bn = nn.BatchNorm2d(c)
    x = torch.randn(4, 9, 7, c).permute(0, 3, 1, 2).requires_grad_()
    y = bn(x * 3 + 1)
    show('train', y)
    show('running_var', bn.running_var)
    y.backward(torch.randn(4, 9, 7, c).permute(0, 3, 1, 2))
    show('x.grad', x.grad)
    show('weight.grad', bn.weight.grad)
    bn.eval()
    show('eval', bn(x.detach()))
"""
    assert gradtrace_output(script) == torch_output(script)


def test_pools_and_padding_keep_the_channels_last_format_and_so_do_their_gradients() -> None:
    script = SHOW + """x = torch.randn(2, 6, 7, 3).permute(0, 3, 1, 2).requires_grad_()
outs = [F.max_pool2d(x, 2), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, (3, 2)),
        F.adaptive_max_pool2d(x, (2, 2)), F.pad(x, (1, 1, 1, 1)), F.max_pool2d(x, 3, 1, 1)]
for i, o in enumerate(outs):
    show(str(i), o)
sum(o.sum() for o in outs).backward()
show('x.grad', x.grad)
i = F.max_pool2d(x, 2, return_indices=True)[1]
print(i.stride(), i.flatten()[:5].tolist())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_channels_last_transposed_convolution_matches_torch() -> None:
    script = SHOW + """for cin, cout, k, s, p in ((8, 4, 3, 1, 1), (8, 24, 3, 1, 1),
                          (16, 8, 3, 1, 0), (32, 16, 4, 2, 1), (16, 8, 2, 2, 0)):
    x = torch.randn(2, 6, 7, cin).permute(0, 3, 1, 2).requires_grad_()
    m = nn.ConvTranspose2d(cin, cout, k, stride=s, padding=p)
    y = m(x)
    show('y', y)
    y.backward(torch.randn(y.shape))
    show('x.grad', x.grad)
    show('weight.grad', m.weight.grad)
    show('bias.grad', m.bias.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_leafs_grad_is_laid_out_as_the_leaf() -> None:
    """AccumulateGrad keeps a gradient whose strides are the leaf's, else copies it into
    the leaf's own strides (clone_obey_contract), row-major for a non-dense leaf."""
    script = """import torch
torch.manual_seed(0)
a = torch.randn(3, 4).t().requires_grad_()
(a * 2).sum().backward()
print(a.grad.stride(), a.grad.is_contiguous())
img = torch.rand(2, 6, 7, 3)
x = img.permute(0, 3, 1, 2).requires_grad_()
(x.exp() * x).sum().backward()
print(x.grad.stride(), x.grad.sum().item())
t = torch.rand(6, 7, 3).permute(2, 0, 1).requires_grad_()
(t * t).sum().backward()
print(t.grad.stride())
s = torch.randn(4, 6)[:, ::2].requires_grad_()
(s * 3).sum().backward()
print(s.grad.stride())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_small_cnn_trained_on_an_nhwc_batch_prints_torchs_losses() -> None:
    script = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Conv2d(16, 8, 3, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
images = torch.rand(8, 12, 12, 3)
labels = torch.randint(0, 4, (8,))
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(images.permute(0, 3, 1, 2)), labels)
    loss.backward()
    opt.step()
    print(step, loss.item(), model[0].weight.grad.abs().sum().item())
"""
    assert gradtrace_output(script) == torch_output(script)


def test_memory_format_conversions_make_and_keep_channels_last_tensors() -> None:
    """contiguous/to/clone/empty/empty_like with memory_format=torch.channels_last, the
    alias when a tensor is in that format already, torch's rank error, and Module.to
    converting only 4-D parameters (the Channels Last Memory Format tutorial's steps)."""
    script = """import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.randn(2, 3, 5, 4)
y = x.contiguous(memory_format=torch.channels_last)
print(y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last))
print(y.contiguous(memory_format=torch.channels_last) is y,
      y.to(memory_format=torch.channels_last) is y)
print(x.to(memory_format=torch.channels_last).stride(),
      x.clone(memory_format=torch.channels_last).stride(),
      torch.empty_like(x, memory_format=torch.channels_last).stride(),
      torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride())
print(torch.zeros_like(y).stride(), y.clone().stride(), y.contiguous().stride(),
      (y + 1).stride(), (y * y).stride(), y.sum(1).stride())
for make in (lambda: torch.randn(3, 4).contiguous(memory_format=torch.channels_last),
             lambda: torch.randn(3, 4).to(memory_format=torch.channels_last),
             lambda: torch.empty(2, 3, memory_format=torch.channels_last),
             lambda: torch.empty(2, 3, memory_format=torch.preserve_format)):
    try:
        make()
    except RuntimeError as e:
        print(e)
m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Linear(4, 4))
m = m.to(memory_format=torch.channels_last)
print(m[0].weight.stride(), m[0].bias.stride(), m[2].weight.stride(), m[0].weight.is_leaf)
w = torch.randn(2, 3, 4, 4, requires_grad=True)
v = w.to(memory_format=torch.channels_last)
print(type(v.grad_fn).__name__, v.stride())
v.sum().backward()
print(w.grad.stride(),
      type(w.contiguous(memory_format=torch.channels_last).grad_fn).__name__)
out = m[0](torch.randint(1, 10, (2, 3, 6, 6), dtype=torch.float32).contiguous(
    memory_format=torch.channels_last))
print(out.is_contiguous(memory_format=torch.channels_last), out.sum().item())
"""
    assert gradtrace_output(script) == torch_output(script)
