"""F.interpolate / nn.Upsample give torch 2.13's float bits (issue 12): every mode's output
and input gradient in float32 and float64, over both of ATen's forward kernels (the generic
one and the channels-last one bilinear takes for small outputs, channels-last inputs or one
thread with 3 channels), odd sizes, non-integer scale factors with and without
recompute_scale_factor, channels-last inputs and gradients; the nodes' names, saved
attributes and output strides; torch's messages for bad arguments; float64 gradchecks of
the modes added (3-d, channels-last). The torch side runs in one child Python (AVX2)."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import F, gradcheck
from script_runs import gradtrace_output, torch_outputs_in_child

from gradtrace.engine.tensor import Tensor

_SCRIPT = """import torch
import torch.nn.functional as F
torch.manual_seed(0)
{pre}
x = {make}
x.requires_grad_(True)
y = {call}
g = torch.randn(y.shape, dtype=torch.{dt})
{post}
print(y.detach().flatten().tolist())
print(x.grad.flatten().tolist())
node = y.grad_fn
print(node.name(), y.is_contiguous(), y.stride(), node.next_functions[0][0].name())
print({saved})
"""

# name: (setup, input, call, backward)
BITS = {
    "nearest_x2": ("", "torch.randn(2, 3, 5, 7, dtype={dt})", "F.interpolate(x, scale_factor=2)",
                   "y.backward(g)"),
    "nearest_size_big": ("", "torch.randn(1, 2, 50, 60, dtype={dt})",
                         "F.interpolate(x, size=(77, 91))", "y.backward(g)"),
    "nearest_2_1_doubles": ("", "torch.randn(1, 2, 5, 6, dtype={dt})",
                            "F.interpolate(x, scale_factor=2.1)", "y.backward(g)"),
    "nearest_channels_last": ("", "torch.randn(1, 5, 6, 9, dtype={dt}).permute(0, 3, 1, 2)",
                              "F.interpolate(x, scale_factor=1.7)", "y.backward(g)"),
    "nearest_1d": ("", "torch.randn(2, 3, 7, dtype={dt})", "F.interpolate(x, scale_factor=2.6)",
                   "y.backward(g)"),
    "nearest_3d": ("", "torch.randn(1, 2, 3, 4, 5, dtype={dt})",
                   "F.interpolate(x, size=(4, 7, 3))", "y.backward(g)"),
    "nearest_exact_2d": ("", "torch.randn(2, 3, 5, 7, dtype={dt})",
                         "F.interpolate(x, scale_factor=1.3, mode='nearest-exact')",
                         "y.backward(g)"),
    "nearest_exact_big": ("", "torch.randn(1, 2, 50, 60, dtype={dt})",
                          "F.interpolate(x, size=(77, 91), mode='nearest-exact')",
                          "y.backward(g)"),
    "nearest_exact_3d": ("", "torch.randn(1, 2, 3, 5, 7, dtype={dt})",
                         "F.interpolate(x, scale_factor=(1.5, 2.3, 0.6), mode='nearest-exact')",
                         "y.backward(g)"),
    "linear_size": ("", "torch.randn(2, 3, 7, dtype={dt})",
                    "F.interpolate(x, size=13, mode='linear')", "y.backward(g)"),
    "linear_corners": ("", "torch.randn(2, 3, 7, dtype={dt})",
                       "F.interpolate(x, size=13, mode='linear', align_corners=True)",
                       "y.backward(g)"),
    "linear_recompute": ("", "torch.randn(2, 3, 7, dtype={dt})",
                         "F.interpolate(x, scale_factor=2.6, mode='linear', "
                         "recompute_scale_factor=True)", "y.backward(g)"),
    "bilinear_x2_small": ("", "torch.randn(2, 3, 5, 7, dtype={dt})",
                          "F.interpolate(x, scale_factor=2, mode='bilinear')", "y.backward(g)"),
    "bilinear_1_7": ("", "torch.randn(2, 3, 5, 7, dtype={dt})",
                     "F.interpolate(x, scale_factor=1.7, mode='bilinear')", "y.backward(g)"),
    "bilinear_downsample": ("", "torch.randn(2, 3, 9, 11, dtype={dt})",
                            "F.interpolate(x, size=(4, 5), mode='bilinear')", "y.backward(g)"),
    "bilinear_generic_kernel": ("", "torch.randn(1, 2, 40, 50, dtype={dt})",
                                "F.interpolate(x, size=(70, 90), mode='bilinear')",
                                "y.backward(g)"),
    "bilinear_generic_corners": ("", "torch.randn(1, 2, 21, 13, dtype={dt})",
                                 "F.interpolate(x, size=(61, 97), mode='bilinear', "
                                 "align_corners=True)", "y.backward(g)"),
    "bilinear_vector_and_tail": ("", "torch.randn(2, 19, 6, 7, dtype={dt})",
                                 "F.interpolate(x, scale_factor=2, mode='bilinear')",
                                 "y.backward(g)"),
    "bilinear_channels_last_big": ("", "torch.randn(1, 40, 50, 5, dtype={dt}).permute(0, 3, 1, 2)",
                                   "F.interpolate(x, size=(70, 90), mode='bilinear', "
                                   "align_corners=True)", "y.backward(g)"),
    "bilinear_one_thread_rgb": ("torch.set_num_threads(1)", "torch.randn(1, 3, 40, 50, dtype={dt})",
                                "F.interpolate(x, size=(70, 90), mode='bilinear')",
                                "y.backward(g)"),
    "bilinear_third": ("", "torch.randn(1, 2, 64, 64, dtype={dt})",
                       "F.interpolate(x, scale_factor=1/3, mode='bilinear')", "y.backward(g)"),
    "bilinear_channels_last_grad": ("", "torch.randn(1, 9, 6, 7, dtype={dt})",
                                    "F.interpolate(x, scale_factor=2, mode='bilinear')",
                                    "(y.permute(0, 2, 3, 1).contiguous() * "
                                    "g.permute(0, 2, 3, 1)).sum().backward()"),
    "upsampling_bilinear2d": ("", "torch.randn(1, 4, 6, 7, dtype={dt})",
                              "torch.nn.UpsamplingBilinear2d(scale_factor=2)(x)",
                              "y.backward(g)"),
    "trilinear_x2": ("", "torch.randn(1, 2, 3, 4, 5, dtype={dt})",
                     "F.interpolate(x, scale_factor=2, mode='trilinear')", "y.backward(g)"),
    "trilinear_corners": ("", "torch.randn(2, 3, 3, 4, 5, dtype={dt})",
                          "F.interpolate(x, size=(5, 7, 9), mode='trilinear', "
                          "align_corners=True)", "y.backward(g)"),
    "trilinear_channels_last": ("", "torch.randn(1, 3, 4, 5, 11, dtype={dt})"
                                ".permute(0, 4, 1, 2, 3)",
                                "F.interpolate(x, scale_factor=(1.5, 2, 1.3), mode='trilinear')",
                                "y.backward(g)"),
    "bicubic_module": ("", "torch.randn(1, 4, 6, 7, dtype={dt})",
                       "torch.nn.Upsample(scale_factor=1.5, mode='bicubic')(x)",
                       "y.backward(g)"),
    "bicubic_antialias": ("", "torch.randn(2, 3, 13, 17, dtype={dt})",
                          "F.interpolate(x, size=(5, 7), mode='bicubic', antialias=True)",
                          "y.backward(g)"),
    "bilinear_antialias": ("", "torch.randn(2, 3, 13, 17, dtype={dt})",
                           "F.interpolate(x, size=(5, 7), mode='bilinear', antialias=True)",
                           "y.backward(g)"),
}


def _saved(make: str, call: str) -> str:
    """The node's saved attributes, as an expression."""
    dims = make.split("(")[1].count(",") - 2
    names = ["output_size", "self_sym_sizes"]
    names += {1: ["scales"], 2: ["scales_h", "scales_w"],
              3: ["scales_d", "scales_h", "scales_w"]}[dims]
    if "linear" in call.lower() or "bicubic" in call:
        names.append("align_corners")
    return "[" + ", ".join(f"node._saved_{n}" for n in names) + "]"


def _scripts() -> dict[str, str]:
    return {f"{name}-{dt}": _SCRIPT.format(pre=pre, make=make.format(dt=f"torch.{dt}"),
                                           call=call, post=post, dt=dt,
                                           saved=_saved(make, call))
            for name, (pre, make, call, post) in BITS.items()
            for dt in ("float32", "float64")}


@pytest.fixture(scope="module")
def torch_prints() -> dict[str, list[str]]:
    pytest.importorskip("torch")
    return torch_outputs_in_child(_scripts())


@pytest.mark.parametrize("case", list(_scripts()))
def test_interpolate_output_and_gradient_bits_match_torch(case, torch_prints):
    expected, error = torch_prints[case]
    assert not error
    assert gradtrace_output(_scripts()[case]) == expected


ERRORS = [
    "F.interpolate(x4, size=(0, 3))", "F.interpolate(x3, size=0, mode='linear')",
    "F.interpolate(x5, size=(0, 3, 2))", "F.interpolate(x4, scale_factor=0.1)",
    "F.interpolate(torch.randn(1, 0, 5, 7), size=3)", "F.interpolate(x4, size=[2, 3, 4])",
    "F.interpolate(torch.arange(12).reshape(1, 1, 3, 4), size=5)",
    "F.interpolate(torch.arange(12).reshape(1, 1, 3, 4), size=(50, 90), mode='bilinear')",
    "F.interpolate(torch.arange(12).reshape(1, 1, 12), size=5, mode='linear')",
    "F.interpolate(x4, size=(2.0, 3))", "F.interpolate(x4, size=3, recompute_scale_factor=True)",
    "F.interpolate(x4, scale_factor=[2])", "F.interpolate(x4, size=3, mode='linear')",
    "F.interpolate(x4, size=3, mode='trilinear')", "F.interpolate(x3, size=3, mode='bilinear')",
    "F.interpolate(torch.randn(2, 3), size=3)", "F.interpolate(x4, size=3, mode='foo')",
    "F.interpolate(x4, size=3, align_corners=False)", "F.interpolate(x4, scale_factor=-2)",
    "F.interpolate(x4, size=torch.Size([2, 3, 4]))", "F.interpolate(x4)",
    "F.interpolate(x4, 3, 2)", "F.interpolate(x3, size=4, mode='bicubic')",
    "F.interpolate(x4, size=4, antialias=True)", "F.interpolate(x4, scale_factor=1e300)",
    "torch.nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)(x3)",
]


def test_bad_arguments_raise_torchs_errors(torch_prints):
    prelude = ("import torch\nimport torch.nn.functional as F\nx3 = torch.randn(1, 2, 5)\n"
               "x4 = torch.randn(1, 2, 5, 7)\nx5 = torch.randn(1, 2, 3, 4, 5)\n")
    scripts = {call: f"{prelude}{call}\n" for call in ERRORS}
    expected = torch_outputs_in_child(scripts)
    for call, script in scripts.items():
        kind, message = expected[call][1].split(": ", 1)
        assert gradtrace_output(script) == f"{kind} {message}\n", call


def test_area_mode_is_adaptive_average_pooling():
    x = Tensor(np.arange(48, dtype=np.float32).reshape(1, 2, 4, 6))
    out = F.interpolate(x, scale_factor=0.5, mode="area")
    assert out.shape == (1, 2, 2, 3)
    assert out.array[0, 0].tolist() == [[3.5, 5.5, 7.5], [15.5, 17.5, 19.5]]


GRADCHECKS = {
    "trilinear": (lambda x: F.interpolate(x, size=(3, 5, 4), mode="trilinear"), (1, 2, 2, 3, 3)),
    "trilinear_corners": (lambda x: F.interpolate(x, scale_factor=1.6, mode="trilinear",
                                                  align_corners=True), (1, 1, 2, 3, 2)),
    "nearest_3d": (lambda x: F.interpolate(x, size=(3, 2, 5)), (1, 2, 2, 3, 3)),
    "nearest_exact_3d": (lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
                         (1, 1, 2, 3, 2)),
    "bilinear_channels_last": (lambda x: F.interpolate(x.permute(0, 3, 1, 2), scale_factor=1.5,
                                                       mode="bilinear"), (1, 3, 2, 9)),
    "linear_downsample": (lambda x: F.interpolate(x, scale_factor=0.4, mode="linear"),
                          (2, 1, 9)),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_interpolate_backward_passes_float64_gradcheck(name):
    fn, shape = GRADCHECKS[name]
    rng = np.random.default_rng([5, len(name)])
    x = Tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradcheck(fn, [x])
