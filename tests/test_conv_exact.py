"""Bit-exactness against live torch 2.13 of the kernels whose order gradtrace reproduces:
slow_conv2d, slow_conv_dilated2d and slow_conv_transpose2d (float64, and float32 where
torch's use_mkldnn declines: one small image), and _trilinear (nn.Bilinear) with its
gradients. Forward values and every gradient must have torch's bits; the run must note no
inexact cause. Skips without torch or without the MKL that torch's BLAS calls use."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import exactness, mkl
from gradtrace.engine.backward import grad as gt_grad
from gradtrace.engine.ops import conv, conv_transpose, weighted
from gradtrace.engine.tensor import Tensor

torch = pytest.importorskip("torch")
F = torch.nn.functional
pytestmark = pytest.mark.skipif(mkl.load() is None, reason="MKL is not installed")

CONV = [  # (input shape, weight shape, keyword arguments)
    ((1, 2, 5, 5), (2, 2, 3, 3), {}),
    ((3, 4, 11, 10), (5, 4, 3, 2), dict(dilation=(2, 1), stride=(1, 2), padding=(0, 1))),
    ((2, 6, 12, 12), (6, 3, 3, 3), dict(dilation=2, groups=2, padding=2)),
    ((2, 3, 20), (4, 3, 3), dict(dilation=2, padding=2)),
    ((2, 3, 7), (4, 3, 3), dict(stride=2)),
    ((4, 6, 10, 10), (6, 2, 3, 3), dict(groups=3, padding=1)),
    ((2, 3, 6, 6), (4, 3, 1, 1), {}),
]
CONV_TRANSPOSE = [
    ((1, 2, 5, 5), (2, 3, 3, 3), {}),
    ((3, 4, 6, 5), (4, 2, 3, 2), dict(stride=2, padding=1, output_padding=1)),
    ((2, 4, 5, 5), (4, 3, 3, 3), dict(groups=2, dilation=2, padding=1)),
    ((2, 3, 7), (3, 4, 3), dict(stride=2)),
    ((2, 3, 4, 4), (3, 5, 1, 1), {}),
]


def _compare(torch_fn, gt_fn, arrays: list[np.ndarray], kwargs: dict) -> None:
    rng = np.random.default_rng(3)
    ts = [torch.from_numpy(a).requires_grad_() for a in arrays]
    expected = torch_fn(*ts, **kwargs)
    g = rng.standard_normal(tuple(expected.shape)).astype(arrays[0].dtype)
    expected_grads = torch.autograd.grad(expected, ts, torch.from_numpy(g))
    exactness.reset()
    gs = [Tensor(a, requires_grad=True) for a in arrays]
    out = gt_fn(*gs, **kwargs)
    grads = gt_grad((out * Tensor(g)).sum(), gs)
    assert exactness.causes() == ()
    np.testing.assert_array_equal(out.array, expected.detach().numpy(), strict=True)
    for mine, theirs in zip(grads, expected_grads, strict=True):
        np.testing.assert_array_equal(mine.array, theirs.numpy(), strict=True)


def _arrays(dtype: type, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize(("xs", "ws", "kwargs"), CONV)
def test_float64_convolution_has_torchs_bits_forward_and_backward(xs, ws, kwargs):
    fns = (F.conv1d, conv.conv1d) if len(xs) == 3 else (F.conv2d, conv.conv2d)
    _compare(*fns, _arrays(np.float64, xs, ws, (ws[0],)), kwargs)


@pytest.mark.parametrize(("xs", "ws", "kwargs"), [CONV[0], ((1, 3, 9, 9), (2, 3, 3, 3),
                                                            dict(dilation=2, padding=1))])
def test_float32_convolution_outside_onednn_has_torchs_bits(xs, ws, kwargs):
    _compare(F.conv2d, conv.conv2d, _arrays(np.float32, xs, ws, (ws[0],)), kwargs)


@pytest.mark.parametrize(("xs", "ws", "kwargs"), CONV_TRANSPOSE)
def test_float64_transposed_convolution_has_torchs_bits(xs, ws, kwargs):
    fns = ((F.conv_transpose1d, conv_transpose.conv_transpose1d) if len(xs) == 3
           else (F.conv_transpose2d, conv_transpose.conv_transpose2d))
    bias = (ws[1] * kwargs.get("groups", 1),)
    _compare(*fns, _arrays(np.float64, xs, ws, bias), kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("batch", "in1", "in2", "out"),
                         [(3, 4, 5, 2), (16, 64, 48, 7), (2, 500, 3, 2), (4, 3, 600, 3)])
def test_bilinear_has_torchs_bits_forward_and_backward(dtype, batch, in1, in2, out):
    arrays = _arrays(dtype, (batch, in1), (batch, in2), (out, in1, in2), (out,))
    _compare(F.bilinear, weighted.bilinear, arrays, {})
