"""The nn pieces added for tutorials' recurrent and parametric layers (issue 12): float64
finite-difference gradchecks of every new differentiable op (unsafe_split,
mkldnn_rnn_layer, _prelu_kernel, _trilinear, circular padding), differential tests of
their functional forms against live torch (check_case: values, graph, saved values,
errors), and the library layers' parameters, reprs and graphs against live torch.
The recorded parity cases are tests/conformance_extra/nn_*.gt."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import TORCH as torch
from ops_helpers import F, gradcheck
from test_gradcheck import randn

from gradtrace.engine.ops import rnn
from gradtrace.engine.tensor import Tensor
from gradtrace.runner import run_text


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([77, sum(map(ord, name))])


def _lstm_layer(reverse: bool, biases: bool = True):
    def fn(x, w0, w1, b0, b1, h, c):
        if not biases:
            b0, b1 = b0.detach() * 0, b1.detach() * 0
        return rnn.mkldnn_rnn_layer(x, w0, w1, b0, b1, h, c, reverse, 2, 1, biases, False,
                                    False, True)
    return fn


def _lstm_inputs(r: np.random.Generator) -> list[np.ndarray]:
    return [randn(r, 3, 2, 4), randn(r, 8, 4) * 0.5, randn(r, 8, 2) * 0.5, randn(r, 8),
            randn(r, 8), randn(r, 2, 2), randn(r, 2, 2)]


CASES = {
    "unsafe_chunk": (lambda a: torch.cat([p * (i + 1) for i, p in enumerate(
        a.unsafe_chunk(3, 1))], 1), lambda r: [randn(r, 2, 6)]),
    "unsafe_split_inplace": (lambda a: (a * 1).unsafe_split(2, 1)[1].sigmoid_(),
                             lambda r: [randn(r, 2, 4)]),
    "mkldnn_rnn_layer": (_lstm_layer(False), _lstm_inputs),
    "mkldnn_rnn_layer_reverse": (_lstm_layer(True), _lstm_inputs),
    "mkldnn_rnn_layer_no_bias": (_lstm_layer(False, biases=False), _lstm_inputs),
    "prelu": (lambda x, w: F.prelu(x, w), lambda r: [randn(r, 2, 3, 4), np.array([0.3])]),
    "prelu_channels": (lambda x, w: F.prelu(x, w),
                       lambda r: [randn(r, 2, 3, 4), np.array([0.3, -0.2, 0.5])]),
    "prelu_1d": (lambda x, w: F.prelu(x, w), lambda r: [randn(r, 5), np.array([0.1])]),
    "bilinear": (lambda a, b, w, bias: F.bilinear(a, b, w, bias),
                 lambda r: [randn(r, 4, 3), randn(r, 4, 2), randn(r, 5, 3, 2), randn(r, 5)]),
    "bilinear_3d": (lambda a, b, w: F.bilinear(a, b, w),
                    lambda r: [randn(r, 2, 3, 3), randn(r, 2, 3, 2), randn(r, 2, 3, 2)]),
    "pad_circular": (lambda x: F.pad(x, (1, 2, 2, 0), mode="circular"),
                     lambda r: [randn(r, 1, 2, 3, 4)]),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                          output_padding=1),
                         lambda r: [randn(r, 1, 2, 3, 3), randn(r, 2, 3, 3, 3), randn(r, 3)]),
    "conv_transpose2d_groups": (lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
                                lambda r: [randn(r, 1, 4, 2, 3), randn(r, 4, 1, 2, 2)]),
    "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=1),
                         lambda r: [randn(r, 2, 2, 4), randn(r, 2, 3, 3)]),
    "interpolate_nearest": (lambda x: F.interpolate(x, scale_factor=1.5),
                            lambda r: [randn(r, 1, 2, 3, 4)]),
    "interpolate_nearest_exact_1d": (lambda x: F.interpolate(x, size=7, mode="nearest-exact"),
                                     lambda r: [randn(r, 2, 2, 3)]),
    "interpolate_bilinear": (lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"),
                             lambda r: [randn(r, 1, 2, 3, 4)]),
    "interpolate_bilinear_corners": (lambda x: F.interpolate(x, scale_factor=1.7,
                                                             mode="bilinear",
                                                             align_corners=True),
                                     lambda r: [randn(r, 1, 1, 3, 4)]),
    "interpolate_linear": (lambda x: F.interpolate(x, size=8, mode="linear"),
                           lambda r: [randn(r, 2, 2, 5)]),
    "pad_circular_negative": (lambda x: F.pad(x, (-1, 2), mode="circular"),
                              lambda r: [randn(r, 2, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck(name: str) -> None:
    fn, build = CASES[name]
    inputs = [Tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
              for a in build(_rng(name))]
    assert gradcheck(fn, inputs)


def test_lstm_layer_matches_the_decomposed_cells_in_float64():
    """The oneDNN node computes what ATen's LSTMCell computes, step after step."""
    r = _rng("lstm_cells")
    x, w0, w1, b0, b1, h, c = (Tensor(a) for a in _lstm_inputs(r))
    out, hy, cy = rnn.mkldnn_rnn_layer(x, w0, w1, b0, b1, h, c, False, 2, 1, True, False,
                                       False, True)
    for t in range(3):
        gates = (x.array[t] @ w0.array.T + b0.array + h.array @ w1.array.T + b1.array)
        i, f, g, o = np.split(gates, 4, axis=1)
        sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
        c = Tensor(sig(f) * c.array + sig(i) * np.tanh(g))
        h = Tensor(sig(o) * np.tanh(c.array))
        np.testing.assert_allclose(out.array[t], h.array, rtol=1e-12)
    np.testing.assert_allclose(hy.array, h.array, rtol=1e-12)
    np.testing.assert_allclose(cy.array, c.array, rtol=1e-12)


# -- against live torch --------------------------------------------------------------------

FUNCTIONAL = [
    "F.prelu(img, v)", "F.prelu(x, torch.tensor([0.25]))", "F.prelu(x, v)", "F.prelu(x, u[:2])",
    "F.prelu(x64, v)", "F.prelu(x, torch.ones(3, 1))", "torch.prelu(img, v)",
    "F.bilinear(x, y, C)", "F.bilinear(x, y, C, u[:1].expand(4).contiguous())",
    "F.bilinear(B, B, C[:, :3, :3].contiguous())", "F.bilinear(x, M, C)",
    "F.bilinear(x, y, C, v)", "F.bilinear(x, y.t(), C)",
    "F.pad(img, (1, 2, 0, 1), mode='circular')", "F.pad(seq, (2, 1), mode='circular')",
    "F.pad(x, (1, 1), mode='circular')", "F.pad(img, (-1, 2, 1, -2), mode='circular')",
    "F.pad(seq, (8, 0), mode='circular')", "F.pad(seq, (-8, 0), mode='circular')",
    "x.unsafe_chunk(3, 1)", "torch.unsafe_split(B, 2, 0)", "B.unsafe_chunk(2, -1)",
    "y2 = x * 1\nout = y2.unsafe_chunk(3, 1)[1].tanh_()",
    "F.conv_transpose2d(img, ker.transpose(0, 1).contiguous(), b4)",
    "F.conv_transpose2d(img, ker, stride=2, padding=1, output_padding=1)",
    "F.conv_transpose2d(img, ker[:, :2], groups=3)",
    "F.conv_transpose2d(img, ker[:3, :1], groups=3)", "F.conv_transpose2d(img[0], ker)",
    "F.conv_transpose1d(seq, ker1, b4, stride=2)", "torch.conv_transpose1d(seq, ker1)",
    "F.conv_transpose2d(img, ker[:2])", "F.conv_transpose2d(img, ker, b4[:2])",
    "F.conv_transpose2d(img, ker, output_padding=1)",
    "F.interpolate(img, scale_factor=2)", "F.interpolate(img, size=(3, 8))",
    "F.interpolate(img, scale_factor=(1.5, 0.7))", "F.interpolate(seq, size=5)",
    "F.interpolate(img, scale_factor=1.3, mode='nearest-exact')",
    "F.interpolate(img, scale_factor=2, mode='bilinear')",
    "F.interpolate(img, size=(7, 4), mode='bilinear', align_corners=True)",
    "F.interpolate(img, scale_factor=2.5, mode='bilinear', recompute_scale_factor=True)",
    "F.interpolate(seq, scale_factor=1.5, mode='linear')",
    "F.interpolate(img, scale_factor=2, align_corners=True)",
    "F.interpolate(img, size=4, scale_factor=2)", "F.interpolate(img, size=(2, 3, 4))",
]


@pytest.mark.parametrize("code", FUNCTIONAL)
def test_functional_form_matches_torch(code: str) -> None:
    pytest.importorskip("torch")
    from test_ops_torch_diff import check_case

    check_case(code)


LAYERS = """
import torch
import torch.nn as nn
torch.manual_seed(3)
layers = [nn.RNN(4, 3, 2), nn.GRU(4, 3, bidirectional=True), nn.LSTM(4, 3, batch_first=True),
          nn.LSTM(4, 3, proj_size=2), nn.RNNCell(4, 3, nonlinearity="relu"),
          nn.GRUCell(4, 3, bias=False), nn.LSTMCell(4, 3), nn.PReLU(3),
          nn.Bilinear(4, 2, 3), nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular"),
          nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1, groups=2),
          nn.ConvTranspose1d(3, 2, 2, bias=False, dilation=2), nn.Upsample(scale_factor=2),
          nn.Upsample(size=(4, 5), mode="bilinear"), nn.UpsamplingNearest2d(size=3),
          nn.UpsamplingBilinear2d(scale_factor=(2, 3))]
"""


def test_layers_have_torchs_parameters_reprs_and_initial_values():
    """Names, order, shapes and initial values (drawn from torch's generator in torch's
    order) and `print(model)` of every layer added, against torch's."""
    real = pytest.importorskip("torch")
    env: dict = {}
    exec(LAYERS, env)  # noqa: S102 - the reference run under real torch
    result = run_text(LAYERS + "\nfor m in layers:\n    print(m)\n"
                               "    for n, p in m.named_parameters():\n"
                               "        print(n, tuple(p.shape), p.tolist())\n")
    expected = []
    for m in env["layers"]:
        expected.append(repr(m))
        expected += [f"{n} {tuple(p.shape)} {p.tolist()}" for n, p in m.named_parameters()]
    assert result.stdout.splitlines() == "\n".join(expected).splitlines()
    assert real.__version__.startswith("2.13")


# -- optimizers ------------------------------------------------------------------------------

def test_sparse_adam_on_a_dense_gradient_raises_torchs_error():
    result = run_text("import torch\nw = torch.zeros(3, requires_grad=True)\n"
                      "opt = torch.optim.SparseAdam([w])\nw.sum().backward()\nopt.step()\n")
    assert result.error.kind == "RuntimeError"
    assert result.error.message == ("SparseAdam does not support dense gradients, please "
                                    "consider Adam instead")
    assert result.error.span.line == 5


@pytest.mark.parametrize("call", ["F.elu_(x)", "F.celu_(x)", "F.rrelu_(x)", "F.selu(x, True)",
                                  "F.pairwise_distance(x[None], x[None])",
                                  "nn.PairwiseDistance()(x[None], x[None])"])
def test_ops_that_adjust_their_node_run_when_nothing_is_recorded(call):
    """Their forward edits what the node saved; a node that records nothing has none."""
    result = run_text(f"import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
                      f"x = torch.tensor([-1.0, 0.5, 2.0])\nprint({call}.requires_grad)\n")
    assert result.error is None, result.error
    assert result.stdout == "False\n"


def test_lbfgs_step_is_told_as_updates_at_the_users_line():
    from gradtrace.render import explain as ex

    text = ("import torch\nw = torch.tensor([1.0, -1.0], requires_grad=True)\n"
            "opt = torch.optim.LBFGS([w], max_iter=2)\n"
            "def closure():\n    opt.zero_grad()\n    loss = (w ** 2).sum()\n"
            "    loss.backward()\n    return loss\n"
            "opt.step(closure)\nprint(w.tolist())\n")
    result = run_text(text, trace=True)
    assert result.error is None and result.stdout == "[0.5, -0.5]\n"  # as torch 2.13 prints
    steps = [s for s in ex.explain(result, "en").steps if s.kind == "optimizer.update"]
    assert [s.line for s in steps] == [9]  # the second direction is 0: torch stops there
    assert all(s.facts["rule"] == "w ← w + t·d" for s in steps)
