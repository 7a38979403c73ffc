"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 68
(interpretability and attribution: saliency, Grad-CAM, integrated gradients) found: a custom
Function that returns an input unchanged returns `input.view_as(input)`, and view computes
its strides afresh (computeStride), so a size-1 dim's stride can change: a channels-last
(1, C, H, W) tensor (strides (HWC, 1, WC, C)) comes back with strides (C, 1, WC, C), which
convolution no longer suggests as channels-last. nn.Module's full backward hooks apply such
a Function (BackwardHookFunction) to the module's inputs, so a hooked convolution block on a
channels-last image ran channels-last in gradtrace and contiguous in torch, and the input
gradients differed in the last float32 bits (PAIR-code/saliency's PyTorch example, whose
Grad-CAM hooks use register_full_backward_hook). gradtrace kept the input's own strides.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


RETURNED_INPUT_STRIDES = """import torch
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, *args):
        return args
    @staticmethod
    def backward(ctx, *grads):
        return grads
class Dirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)
    @staticmethod
    def backward(ctx, g):
        return g * 2
torch.manual_seed(0)
nhwc = torch.randn(1, 5, 5, 3).permute(0, 3, 1, 2)
odd = torch.randn(2, 1, 4, 3).permute(0, 3, 1, 2)
col = torch.randn(1, 4).t()
for t in (nhwc, odd, col, torch.randn(3, 1, 2)):
    for rg in (True, False):
        x = t.clone(memory_format=torch.preserve_format).requires_grad_(rg)
        y, = Id.apply(x)
        print(x.stride(), y.stride(), y.is_contiguous(), y.requires_grad,
              y.is_contiguous(memory_format=torch.channels_last) if y.dim() == 4 else None)
a = nhwc.clone(memory_format=torch.preserve_format).requires_grad_(True) * 1
b = Dirty.apply(a)
print(a.stride(), b.stride(), b is a)
"""


def test_custom_function_returns_an_input_with_views_strides_as_torch() -> None:
    """An input returned as-is comes back as `view_as(input)`: computeStride's strides for
    its own sizes (a size-1 dim's stride is the next dim's extent), whether or not it
    requires grad; a tensor given to mark_dirty keeps its own."""
    assert gradtrace_output(RETURNED_INPUT_STRIDES) == torch_output(RETURNED_INPUT_STRIDES)


FULL_BACKWARD_HOOK_CHANNELS_LAST = """import numpy as np
import torch
torch.manual_seed(0)
stem = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU())
block = torch.nn.Sequential(torch.nn.Conv2d(4, 6, 3, padding=1), torch.nn.ReLU())
fc = torch.nn.Linear(6, 5)
seen = []
block.register_forward_pre_hook(lambda m, i: seen.append(('pre', i[0].stride())))
block[0].register_forward_pre_hook(lambda m, i: seen.append(('conv in', i[0].stride())))
block.register_full_backward_hook(
    lambda m, gi, go: seen.append(('hook', [g.stride() for g in gi], [g.stride() for g in go])))
np.random.seed(0)
im = np.random.randint(0, 256, (10, 10, 3)).astype(np.float32)
x = torch.tensor(np.transpose(im[None] / 255, (0, 3, 1, 2)), dtype=torch.float32)
x.requires_grad_(True)
a = stem(x)
b = block(a)
print(x.stride(), a.stride(), b.stride(), b.grad_fn.name())
out = torch.softmax(fc(b.mean(dim=(2, 3))), dim=1)[:, 1]
ga, gx = torch.autograd.grad(out, [a, x], grad_outputs=torch.ones_like(out))
print(seen)
print(ga.stride(), gx.stride())
print(ga.flatten()[:8].tolist())
print(gx.flatten()[:8].tolist())
"""


def test_full_backward_hook_views_the_modules_inputs_as_torch() -> None:
    """A module with a full backward hook sees its input through BackwardHookFunction's
    view_as: a channels-last (1, C, H, W) activation's batch stride becomes C, so the hooked
    convolution runs contiguous as torch's does, with torch's output strides and gradient
    bits."""
    assert gradtrace_output(FULL_BACKWARD_HOOK_CHANNELS_LAST) == \
        torch_output(FULL_BACKWARD_HOOK_CHANNELS_LAST)
