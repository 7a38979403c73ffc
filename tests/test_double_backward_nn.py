"""create_graph=True through the nn ops whose first backward used to be numpy only
(PReLU, bilinear, conv_transpose1d/2d, F.interpolate, the float32 LSTM's
mkldnn_rnn_layer): float64 finite-difference checks of their second derivatives, and
differential tests against live torch 2.13 of the double-backward graph (node names,
next_functions, saved values, recursively) and of its values to third order.
The recorded parity case is tests/conformance_extra/nn_double_backward.gt."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import gradgradcheck
from test_nn_more import CASES, _rng

from gradtrace.engine.tensor import Tensor
from gradtrace.runner import run_text

SECOND_ORDER = [name for name in CASES if name.startswith(
    ("prelu", "bilinear", "conv_transpose", "interpolate", "mkldnn_rnn_layer"))]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck(name: str) -> None:
    fn, build = CASES[name]
    inputs = [Tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
              for a in build(_rng(name))]
    assert gradgradcheck(fn, inputs)


def _grad2(expr: str, inputs: str) -> str:
    """The gradients of sum(expr²) with create_graph; `{d}` in expr casts to float64."""
    expr = expr.replace("{d}", ".to(torch.float64)")
    return f"torch.autograd.grad(({expr}).pow(2).sum(), ({inputs},), create_graph=True)"


DOUBLE = [
    _grad2("F.prelu(img{d}, v{d})", "img, v"),
    _grad2("F.prelu(x64, torch.tensor([0.25], dtype=torch.float64))", "x64"),
    _grad2("F.bilinear(x{d}, y{d}, C[:, :, :3]{d}, b4{d})",
           "x, y, C, b4"),
    _grad2("F.conv_transpose2d(img{d}, ker.transpose(0, 1){d}, b4{d}, "
           "stride=2, padding=1, output_padding=1)", "img, ker, b4"),
    _grad2("F.conv_transpose2d(img{d}, ker[:3, :2]{d}, groups=3, dilation=2)",
           "img, ker"),
    _grad2("F.conv_transpose1d(seq{d}, ker1.transpose(0, 1){d}, stride=2)",
           "seq, ker1"),
    _grad2("F.conv2d(img{d}, ker{d}, b4{d}, stride=2, padding=1)",
           "img, ker, b4"),
    _grad2("F.conv2d(img{d}, ker[:, :1]{d}, groups=3, padding=1)[:, :3]",
           "img, ker"),
    _grad2("F.conv1d(seq{d}, ker1{d}, dilation=2)", "seq, ker1"),
    _grad2("F.interpolate(img{d}, scale_factor=2)", "img"),
    _grad2("F.interpolate(img{d}, size=(7, 4), mode='bilinear', align_corners=True)",
           "img"),
    _grad2("F.interpolate(seq{d}, scale_factor=1.5, mode='linear')", "seq"),
    _grad2("F.interpolate(seq{d}, size=9, mode='nearest-exact')", "seq"),
    "torch.autograd.grad(F.prelu(img.to(torch.float64), v.to(torch.float64)).pow(2).sum(), "
    "v, create_graph=True)[0].pow(3).sum()",
]


@pytest.mark.parametrize("code", DOUBLE)
def test_double_backward_graph_and_values_match_torch(code: str) -> None:
    pytest.importorskip("torch")
    from test_ops_torch_diff import check_case

    check_case(code)


LSTM = """
import torch
import torch.nn as nn
torch.manual_seed(0)
def names(fn, depth, out):
    out.append(None if fn is None else fn.name())
    if fn is not None and depth:
        for f, _ in fn.next_functions:
            names(f, depth - 1, out)
    return out
lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
x = torch.randn(3, 2, 3, requires_grad=True)
out, (h, c) = lstm(x)
g, = torch.autograd.grad(out.sum() + h.pow(2).sum() + c.sum(), x, create_graph=True)
gw = torch.autograd.grad(g.pow(2).sum(), (lstm.weight_ih_l0, lstm.bias_hh_l0_reverse))
graph = names(g.grad_fn, 8, [])
values = [g.tolist(), gw[0].tolist(), gw[1].tolist()]
"""


def test_float32_lstm_double_backward_records_torchs_graph():
    """torch's mkldnn_rnn_layer_differentiable_backward: the gates recomputed with aten ops
    and BPTT written in ops (values float32, within oneDNN's last bits)."""
    pytest.importorskip("torch")
    env: dict = {}
    exec(LSTM, env)  # noqa: S102 - the reference run under real torch
    result = run_text(LSTM + "print(graph)\nprint(values)\n")
    assert result.error is None, result.error
    graph_line, values_line = result.stdout.splitlines()
    assert graph_line == str(env["graph"])
    got = eval(values_line)  # noqa: S307 - our own printed lists of floats
    for g, t in zip(got, env["values"], strict=True):
        np.testing.assert_allclose(np.array(g), np.array(t), rtol=2e-4, atol=2e-5)
