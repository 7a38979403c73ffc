"""Bit-exactness against live torch 2.13 of the kernels whose order gradtrace reproduces:
slow_conv2d, slow_conv_dilated2d and slow_conv_transpose2d (float64, and float32 where
torch's use_mkldnn declines: one small image), oneDNN's AVX2 kernels for the float32
convolutions it runs (jit:avx2, brgconv_strided's input gradients), and _trilinear
(nn.Bilinear) with its gradients. Forward values and every gradient must have torch's
bits; the run must note no inexact cause (oneDNN: none but a kernel not reproduced).
Skips without torch or without the MKL that torch's BLAS calls use."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import capability, conv_kernels, exactness, mkl, onednn
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


# float32 convolutions torch sends to oneDNN, whose AVX2 orders engine/conv_kernels.py
# (jit:avx2 direct) and engine/conv_brgemm.py (brgconv_strided input gradients) reproduce:
# (input shape, weight shape, stride, padding); each measured with 1 and 2 threads
ONEDNN_AVX2 = [
    ((2, 64, 8, 8), (64, 64, 3, 3), 1, 1),  # more than 32 output channels: summed chains
    ((2, 8, 8, 8), (40, 8, 3, 3), 1, 1),
    ((2, 20, 9, 9), (44, 20, 3, 3), 1, 1),
    ((2, 32, 26, 26), (64, 32, 3, 3), 1, 0),  # input gradient: 2 blocks a call (width 24)
    ((2, 8, 42, 42), (40, 8, 3, 3), 1, 1),  # and 1 block a call (width 42)
    ((2, 1, 28, 28), (32, 1, 3, 3), 1, 0),  # one input channel (pytorch/examples' MNIST)
    ((3, 12, 10, 10), (96, 12, 3, 3), 1, 0),
    ((2, 3, 9, 9), (100, 3, 5, 5), 1, 2),
    ((2, 64, 16, 16), (128, 64, 3, 3), 2, 1),  # brgconv_strided: full and partial columns
    ((2, 128, 8, 8), (256, 128, 3, 3), 2, 1),
    ((2, 256, 4, 4), (512, 256, 3, 3), 2, 1),
    ((2, 3, 64, 64), (64, 3, 4, 4), 2, 1),
    ((2, 4, 9, 9), (8, 4, 3, 3), 2, 0),  # width not a multiple of the stride: one call
    ((2, 16, 9, 9), (24, 16, 3, 3), 2, 0),
    ((2, 8, 15, 15), (16, 8, 3, 3), 2, 1),
    ((2, 4, 8, 8), (8, 4, 3, 3), 2, 0),  # a column no tap meets
    ((2, 16, 8, 8), (512, 16, 4, 4), 2, 1),  # past the kw_block L2 test: a call per tap
    ((2, 32, 8, 8), (512, 32, 4, 4), 2, 1),
    ((2, 48, 8, 8), (512, 48, 4, 4), 2, 1),
    ((2, 32, 8, 8), (384, 32, 4, 4), 2, 1),
    ((2, 1, 28, 28), (16, 1, 5, 5), 2, 2),
    ((3, 5, 11, 7), (7, 5, 3, 2), (2, 3), (1, 0)),
    ((2, 8, 12, 10), (16, 8, 3, 3), (2, 1), 1),
    ((2, 8, 12, 10), (16, 8, 3, 3), (1, 2), 1),
    ((2, 8, 13, 13), (16, 8, 5, 5), 3, 2),
    ((2, 12, 20, 20), (24, 12, 3, 3), 4, 1),
    ((2, 64, 8, 8), (64, 64, 7, 7), 2, 3),
    ((2, 8, 10, 10), (12, 8, 2, 2), 2, 0),
    ((2, 64, 8, 8), (128, 64, 1, 1), 2, 0),  # 1x1: jit_1x1's forward and weight gradient,
    ((4, 3, 6, 6), (6, 3, 1, 1), 2, 0),  # brgconv's strided input gradient
    ((2, 256, 2, 2), (512, 256, 1, 1), 2, 0),
    ((16, 256, 4, 4), (64, 256, 1, 1), 1, 0),  # jit_1x1's input gradient: 64 channels a call
    ((2, 300, 3, 3), (10, 300, 1, 1), 1, 0),
    ((16, 3, 20, 20), (8, 3, 1, 1), 1, 0),
    ((2, 12, 15, 15), (20, 12, 1, 1), 1, 0),  # 225 positions: weight calls of 128 and 97
    ((1, 64, 20, 20), (32, 64, 1, 1), 1, 0),  # one image's positions split between threads
    ((2, 5, 16, 16), (7, 5, 1, 1), 1, 0),  # channels padded to a block
    ((2, 200, 9, 9), (16, 200, 1, 1), 3, 0),  # the stride reads to the end: jit_1x1
    ((2, 200, 7, 7), (16, 200, 1, 1), 2, 0),  # it does not: the direct kernel
    ((2, 20, 7, 7), (12, 20, 1, 1), 3, 0),
    ((2, 3, 16, 16), (8, 3, 9, 9), 1, (4, 3)),  # left padding up to 3: still jit:avx2
    ((2, 16, 8, 2), (16, 16, 3, 3), 1, 1),  # narrower than the kernel: still jit:avx2
    ((4, 3, 25), (8, 3, 3), 2, 1),
    ((2, 16, 2, 8), (16, 16, 3, 3), 1, 1),  # lower than the kernel: gemm:jit weights, noted
    ((2, 256, 2, 2), (512, 256, 3, 3), 2, 1),
]


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def threads(request, monkeypatch):
    """torch and gradtrace with the same intra-op thread count (oneDNN splits reductions)."""
    before = torch.get_num_threads()
    torch.set_num_threads(request.param)
    monkeypatch.setattr(capability, "num_threads", lambda environ=None: request.param)
    yield request.param
    torch.set_num_threads(before)


@pytest.mark.parametrize(("xs", "ws", "stride", "padding"), ONEDNN_AVX2)
def test_float32_onednn_avx2_convolution_has_torchs_bits_where_the_order_is_known(
        xs, ws, stride, padding, threads):
    """Every result has torch's bits unless the run notes its direction's cause."""
    assert not onednn.AVX512_CORE  # conftest caps oneDNN at AVX2
    x, w, b = _arrays(np.float32, xs, ws, (ws[0],))
    fn = (F.conv1d, conv.conv1d) if len(xs) == 3 else (F.conv2d, conv.conv2d)
    ts = [torch.from_numpy(a).requires_grad_() for a in (x, w, b)]
    expected = fn[0](ts[0], ts[1], ts[2], stride, padding)
    g = np.random.default_rng(3).standard_normal(tuple(expected.shape)).astype(np.float32)
    expected_grads = torch.autograd.grad(expected, ts, torch.from_numpy(g))
    exactness.reset()
    gs = [Tensor(a, requires_grad=True) for a in (x, w, b)]
    out = fn[1](*gs, stride=stride, padding=padding)
    grads = gt_grad((out * Tensor(g)).sum(), gs)
    causes = " ".join(exactness.causes())
    known = [name for name, direction in (("y", "forward"), ("gx", "input"), ("gw", "weight"),
                                          ("gb", "weight")) if f"({direction})" not in causes]
    assert known == ["y", "gx", "gw", "gb"]  # (an input lower than the kernel: gemm:jit's
    # weight gradient, engine/conv_gemm.py)
    for name, mine, theirs in zip(("y", "gx", "gw", "gb"), [out, *grads],
                                  [expected.detach(), *expected_grads], strict=True):
        if name in known:
            np.testing.assert_array_equal(mine.array, theirs.numpy(), strict=True,
                                          err_msg=name)


@pytest.mark.parametrize("padding", [(0, 4), 4, (1, 5)])
def test_a_float32_forward_with_left_padding_past_3_runs_onednns_gemm_with_torchs_bits(
        padding):
    """oneDNN's jit:avx2 forward takes left padding up to its 3-wide register block; past
    it the forward runs gemm:jit (ONEDNN_VERBOSE), reproduced by engine/conv_gemm.py."""
    x, w = _arrays(np.float32, (2, 3, 16, 16), (8, 3, 9, 11))
    expected = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=padding)
    exactness.reset()
    out = conv.conv2d(Tensor(x), Tensor(w), padding=padding)
    assert exactness.causes() == ()
    np.testing.assert_array_equal(out.array, expected.numpy(), strict=True)


def test_convolutions_past_the_runs_emulation_budget_round_through_float64_noted(
        monkeypatch):
    """The budget keeps a run of many large convolutions within its time limit: the one
    that would overspend it (and the rest) accumulates in float64, and the run says so."""
    x, w = _arrays(np.float32, (2, 8, 10, 10), (16, 8, 3, 3))
    steps = conv_kernels.chain_steps(x.shape, w.shape)
    monkeypatch.setattr(exactness, "EMULATION_BUDGET", steps)
    exactness.reset()
    first = conv.conv2d(Tensor(x), Tensor(w)).array
    assert exactness.causes() == ()
    second = conv.conv2d(Tensor(x), Tensor(w)).array
    assert any("budget" in cause for cause in exactness.causes())
    assert np.allclose(first, second, rtol=1e-5, atol=1e-5)
    exactness.reset()  # a new run has the whole budget again
    assert np.array_equal(conv.conv2d(Tensor(x), Tensor(w)).array, first)
    assert exactness.causes() == ()


ONEDNN_AVX2_TRANSPOSED = [  # (input shape, weight shape, stride, padding, output_padding)
    ((4, 100, 1, 1), (100, 64, 4, 4), 1, 0, 0),  # DCGAN's first layer: conv:any+jit:avx2
    ((4, 64, 8, 8), (64, 32, 4, 4), 2, 1, 0),  # brg_deconv+brgconv_strided
    ((2, 16, 5, 5), (16, 8, 3, 3), 2, 1, 1),
    ((3, 4, 6, 5), (4, 2, 3, 2), 2, 1, 1),
    ((2, 32, 8, 8), (32, 64, 3, 3), 1, 1, 0),
    ((2, 3, 9, 9), (3, 5, 5, 5), 3, 2, 2),
    ((2, 40, 5, 5), (40, 8, 3, 3), 1, 0, 0),
    ((3, 16, 6, 6), (16, 8, 1, 1), 1, 0, 0),  # 1x1: jit_1x1's kernels
    ((3, 72, 4, 4), (72, 80, 1, 1), 1, 0, 0),
    ((3, 8, 5, 5), (8, 16, 1, 1), 2, 0, 1),
]


@pytest.mark.parametrize(("xs", "ws", "stride", "padding", "output_padding"),
                         ONEDNN_AVX2_TRANSPOSED)
def test_float32_onednn_avx2_transposed_convolution_has_torchs_bits(
        xs, ws, stride, padding, output_padding, threads):
    """oneDNN's deconvolution as the convolution it is the data gradient of: output, input
    and weight gradients with torch's bits and no noted cause; the bias gradient as
    ref_deconvolution sums it."""
    x, w, b = _arrays(np.float32, xs, ws, (ws[1],))
    ts = [torch.from_numpy(a).requires_grad_() for a in (x, w, b)]
    expected = F.conv_transpose2d(ts[0], ts[1], ts[2], stride, padding, output_padding)
    g = np.random.default_rng(3).standard_normal(tuple(expected.shape)).astype(np.float32)
    expected_grads = torch.autograd.grad(expected, ts, torch.from_numpy(g))
    exactness.reset()
    gs = [Tensor(a, requires_grad=True) for a in (x, w, b)]
    out = conv_transpose.conv_transpose2d(*gs, stride=stride, padding=padding,
                                          output_padding=output_padding)
    grads = gt_grad((out * Tensor(g)).sum(), gs)
    assert exactness.causes() == ()
    for mine, theirs in zip([out, *grads], [expected.detach(), *expected_grads], strict=True):
        np.testing.assert_array_equal(mine.array, theirs.numpy(), strict=True)


@pytest.mark.parametrize(("module", "shape"), [
    ("ConvTranspose1d", (4, 8, 50)), ("ConvTranspose3d", (2, 4, 5, 5, 5))])
def test_onednn_deconvolution_bias_gradient_has_torchs_bits_in_1d_and_3d(module, shape):
    """ref_deconvolution's bias gradient (each channel's float32 sum over images and
    positions in turn) does not depend on the dimensions: exact where the input and weight
    gradients of a 3-D deconvolution are only noted."""
    nd = len(shape) - 2
    x, w, b = _arrays(np.float32, shape, (shape[1], 6) + (3,) * nd, (6,))
    ts = [torch.from_numpy(a).requires_grad_() for a in (x, w, b)]
    fn = getattr(F, f"conv_transpose{nd}d")
    expected = fn(ts[0], ts[1], ts[2], stride=2)
    g = np.random.default_rng(3).standard_normal(tuple(expected.shape)).astype(np.float32)
    expected_bias = torch.autograd.grad(expected, ts[2], torch.from_numpy(g))[0]
    gs = [Tensor(a, requires_grad=True) for a in (x, w, b)]
    out = getattr(conv_transpose, f"conv_transpose{nd}d")(*gs, stride=2)
    bias = gt_grad((out * Tensor(g)).sum(), gs[2:])[0]
    np.testing.assert_array_equal(bias.array, expected_bias.numpy(), strict=True)


# depthwise float32 convolutions (groups == channels, one output channel each), which
# oneDNN runs through jit_dw:avx2 (engine/conv_depthwise.py): (input shape, kernel,
# stride, padding, dilation); the first is mamba-minimal's causal Conv1d
DEPTHWISE = [
    ((2, 16, 6), 4, 1, 3, 1),
    ((3, 3, 11), 3, 2, 1, 1),
    ((2, 8, 9), 7, 1, 4, 1),  # padding 4 still jit_dw (5 runs gemm:jit)
    ((2, 8, 7, 7), 3, 1, 1, 1),
    ((1, 16, 9, 9), 5, 2, 2, 1),
    ((2, 8, 11, 11), 3, 1, 2, 2),  # dilated: jit_dw forward, gemm:jit input gradient
]


@pytest.mark.parametrize(("xs", "k", "stride", "padding", "dilation"), DEPTHWISE)
def test_float32_depthwise_convolution_forward_and_input_gradient_have_torchs_bits(
        xs, k, stride, padding, dilation, threads):
    """jit_dw's chains: each output from its bias over the kernel taps, each input
    gradient from 0 over the taps that meet it (the weight gradient is not reproduced)."""
    c = xs[1]
    ws = (c, 1) + (k,) * (len(xs) - 2)
    x, w, b = _arrays(np.float32, xs, ws, (c,))
    fn = (F.conv1d, conv.conv1d) if len(xs) == 3 else (F.conv2d, conv.conv2d)
    ts = [torch.from_numpy(a).requires_grad_() for a in (x, w, b)]
    expected = fn[0](ts[0], ts[1], ts[2], stride, padding, dilation, c)
    g = np.random.default_rng(3).standard_normal(tuple(expected.shape)).astype(np.float32)
    expected_gx = torch.autograd.grad(expected, ts[0], torch.from_numpy(g))[0]
    gs = [Tensor(a, requires_grad=True) for a in (x, w, b)]
    out = fn[1](*gs, stride=stride, padding=padding, dilation=dilation, groups=c)
    gx = gt_grad((out * Tensor(g)).sum(), gs[:1])[0]
    np.testing.assert_array_equal(out.array, expected.detach().numpy(), strict=True)
    if dilation == 1:
        np.testing.assert_array_equal(gx.array, expected_gx.numpy(), strict=True)
