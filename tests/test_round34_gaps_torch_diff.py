"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 34
found: F.interpolate(..., antialias=True) returned a contiguous tensor for a channels-last
input, where torch's _upsample_{bilinear,bicubic}2d_aa keep the input's suggested memory
format (timm's resample_abs_pos_embed permutes a (1, H, W, C) grid to NCHW, so its
`permute(0, 2, 3, 1).reshape(...)` after the interpolation is a view in torch, and sums over
the result run in memory order), as adaptive_avg_pool2d (mode "area") did too, and the
input gradients of the upsampling modes were laid out unlike torch's; and a function's
`__isabstractmethod__`, which abc.abstractmethod sets (AntixK's PyTorch-VAE marks BaseVAE's
forward and loss_function).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


INTERPOLATE_LAYOUT = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
modes = [("bicubic", True), ("bilinear", True), ("bicubic", False), ("bilinear", False),
         ("nearest", False), ("nearest-exact", False), ("area", False)]
for mode, aa in modes:
    for shape, perm in [((1, 4, 4, 6), (0, 3, 1, 2)), ((2, 3, 4, 5), (0, 1, 2, 3)),
                        ((2, 4, 3, 5), (0, 3, 1, 2))]:
        x = torch.randn(*shape, requires_grad=True).permute(*perm)
        for size in [(7, 5), (2, 3), tuple(x.shape[2:])]:
            y = F.interpolate(x, size=size, mode=mode, antialias=aa)
            flat = y.permute(0, 2, 3, 1).reshape(1, -1)
            g, = torch.autograd.grad((y * y).sum(), x, retain_graph=True)
            h, = torch.autograd.grad(y, x, torch.ones(y.shape))
            print(mode, aa, shape, size, y.stride(), y.is_contiguous(), flat.grad_fn.name(),
                  y.sum().item(), g.stride(), g.sum().item(), h.stride())
"""


def test_interpolate_outputs_and_gradients_keep_torch_memory_format() -> None:
    """A channels-last input gives a channels-last output in every mode (antialiased
    bilinear/bicubic, as the others did; `area`'s adaptive_avg_pool2d too), as torch's meta
    functions make it; the input gradient takes grad_output's suggested format for nearest,
    nearest-exact, bilinear (antialiased or not) and the input's for area, while every
    bicubic gradient is contiguous (the same-size one too). Strides, contiguity, whether a
    later reshape is a view, and the memory-order sums agree."""
    assert gradtrace_output(INTERPOLATE_LAYOUT) == torch_output(INTERPOLATE_LAYOUT)


ABSTRACT_FLAG = """from abc import ABC, abstractmethod
import torch.nn as nn


class BaseVAE(nn.Module):
    @abstractmethod
    def forward(self, *inputs):
        pass

    @staticmethod
    @abstractmethod
    def make():
        pass

    @property
    @abstractmethod
    def size(self):
        return 1

    @property
    def plain(self):
        return 2

    def helper(self):
        pass


class A(ABC):
    @classmethod
    @abstractmethod
    def build(cls):
        pass


print(BaseVAE.forward.__isabstractmethod__, BaseVAE.make.__isabstractmethod__)
print(BaseVAE.size.__isabstractmethod__, BaseVAE.plain.__isabstractmethod__)
print(BaseVAE().forward.__isabstractmethod__, A.build.__isabstractmethod__)
print(getattr(BaseVAE.helper, "__isabstractmethod__", "absent"),
      hasattr(len, "__isabstractmethod__"))
try:
    BaseVAE.helper.__isabstractmethod__
except AttributeError as err:
    print(err)
"""


def test_abstractmethod_marks_isabstractmethod_as_python() -> None:
    """abc.abstractmethod's `__isabstractmethod__ = True` reads through functions, bound
    methods, classmethods and staticmethods; a property answers whether any accessor is
    abstract (False otherwise); an unmarked function has no such attribute."""
    assert gradtrace_output(ABSTRACT_FLAG) == torch_output(ABSTRACT_FLAG)
