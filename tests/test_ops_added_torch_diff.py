"""Differential tests against live PyTorch for the ops added for real code (issue 12):
values, gradients, node names, next_functions, saved values, errors and warnings
(check_case of test_ops_torch_diff), and the graphs create_graph=True records.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest

pytest.importorskip("torch")
from test_ops_torch_diff import (  # noqa: E402
    check_case,
    test_create_graph_records_torchs_nodes,
    test_second_order_matches_torch,
)

POINTWISE = [
    # unary functions
    "x.tan()", "p.asin()", "p.acos()", "x.atan()", "x.sinh()", "x.cosh()", "x.asinh()",
    "(P + 1).acosh()", "p.atanh()", "P.log2()", "P.log10()", "x.exp2()", "x.erf()",
    "x.erfc()", "p.erfinv()", "x.frac()", "torch.tan(x)", "torch.arcsin(p)", "torch.arctan(x)",
    "torch.erfinv(torch.tensor([-1.0, 1.0, 0.5, 2.0]))", "torch.erf(tgt)", "torch.exp2(tgt)",
    "torch.frac(tgt)", "torch.log2(tgt)", "x.absolute()", "x.negative()", "x.fix()",
    # binary and ternary
    "torch.atan2(x, y)", "torch.atan2(x, v)", "x.arctan2(y)", "torch.hypot(x, y)",
    "torch.hypot(x, v)", "torch.logaddexp(x, y)", "torch.logaddexp(x, v)",
    "torch.logaddexp(torch.tensor([float('inf')]), torch.tensor([float('inf')]))",
    "torch.xlogy(P, y.abs())", "torch.xlogy(x, 2.0)", "torch.xlogy(2.0, P)",
    "torch.xlogy(x, P)", "torch.xlogy(torch.zeros(3), v)", "torch.lerp(x, y, 0.3)",
    "torch.lerp(x, y, 0.7)", "torch.lerp(x, y, P)", "torch.lerp(x, v, 0.5)", "x.lerp(y, q)",
    "torch.lerp(x, x64, 0.5)", "torch.addcmul(x, y, P)", "torch.addcmul(x, y, v, value=2.5)",
    "x.addcmul(y, P, value=-1)", "torch.addcdiv(x, y, P)", "torch.addcdiv(x, y, P, value=0.5)",
    "torch.addcdiv(x, v, P)", "torch.addcdiv(tgt, tgt, tgt)", "torch.fmod(x, 0.7)",
    "torch.fmod(x, P)", "x.fmod(v)", "torch.remainder(-P, 0.5)", "torch.remainder(x, -P)",
    "P.pow(y)", "torch.pow(2.5, x)", "10 ** x", "P ** (y * 3)", "torch.pow(P, v)",
    "torch.linspace(0.1, 3, 77).pow(torch.linspace(-2, 2, 77))",
    "10 ** torch.linspace(-3, 0, 1000)",
    "torch.linspace(-3, 3, 2000).unsqueeze(-1).pow(torch.tensor([1, 2, 3]))",
    "(torch.linspace(0.5, 2, 40).unsqueeze(-1) + torch.zeros(37)) ** torch.linspace(-1, 1, 37)",
    "torch.linspace(0.5, 2, 40).unsqueeze(-1) ** torch.linspace(-1, 1, 37)",
    "torch.remainder(torch.tensor([-1.5, 3.0, -4.5]), 1.5)", "torch.fmod(tgt, 2)",
    # clamp with tensor bounds, clamp_min/clamp_max
    "x.clamp(-P, P)", "x.clamp(min=v)", "x.clamp(max=v)", "x.clamp(v, 0.5)", "x.clamp(y, -P)",
    "torch.clamp(x, min=y)", "x.clamp_min(0.2)", "x.clamp_max(0.2)", "x.clamp_min(y)",
    "x.clamp_max(v)", "torch.clamp_min(x, 0.1)", "torch.clamp_max(x, y)", "x.clip(-0.5, v)",
]

INPLACE = [f"y2 = x * 1\nout = y2.{m}_()" for m in (
    "abs", "neg", "exp", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "asinh", "sigmoid",
    "relu", "reciprocal", "floor", "ceil", "round", "trunc", "frac", "exp2", "erf", "erfc",
    "square", "sign", "fix", "negative", "absolute", "arctan", "arcsinh")] + [
    f"y2 = P * 1\nout = y2.{m}_()" for m in ("log", "log1p", "sqrt", "rsqrt", "log2", "log10")
] + [f"y2 = p * 1\nout = y2.{m}_()" for m in ("asin", "acos", "atanh", "erfinv", "arcsin")] + [
    "y2 = P + 1\nout = y2.acosh_()", "y2 = x * 1\nout = y2.expm1_()",
    "y2 = x * 1\nout = y2.round_(decimals=1)", "y2 = x * 1\nout = y2.clamp_min_(0.1)",
    "y2 = x * 1\nout = y2.clamp_max_(v)", "y2 = x * 1\nout = y2.clamp_(y, P)",
    "y2 = x * 1\nout = y2.clamp_(v, 0.5)", "y2 = x * 1\nout = y2.clip_(-0.5, 0.5)",
    "y2 = x * 1\nout = y2.fmod_(0.5)", "y2 = x * 1\nout = y2.fmod_(P)",
    "y2 = x * 1\nout = y2.remainder_(0.5)", "y2 = x * 1\nout = y2.remainder_(P)",
    "y2 = x * 1\nout = y2.lerp_(y, 0.25)", "y2 = x * 1\nout = y2.lerp_(y, P)",
    "y2 = x * 1\nout = y2.addcmul_(y, P, value=2)", "y2 = x * 1\nout = y2.addcdiv_(y, P)",
    "y2 = x * 1\nout = y2.atan2_(y)", "y2 = x * 1\nout = y2.hypot_(y)",
    "y2 = P * 1\nout = y2.xlogy_(P)", "y2 = P * 1\nout = y2.xlogy_(3.0)",
    "y2 = x * 1\nout = torch.cos_(y2)", "y2 = x * 1\nout = torch.clamp_min_(y2, 0.0)",
    "y2 = x * 1\nout = y2[0].cos_()", "y2 = x * 1\nw2 = y2[:, 1]\nw2.tan_()\nout = y2",
    "x.cos_()", "x.detach().sqrt_()", "tgt.sqrt_()", "y2 = x * 1\nout = y2.addcmul_(y, q)",
    "y2 = x * 1\nz = y2.sin()\ny2.cos_()\nout = z",
    "y2 = x * 1\nw2 = y2.unbind()[0]\nw2.exp2_()\nout = w2",
]

SECOND = [
    "x.tan()", "p.asin()", "p.acos()", "x.atan()", "x.sinh()", "x.cosh()", "x.asinh()",
    "(P + 1).acosh()", "p.atanh()", "P.log2()", "P.log10()", "x.exp2()", "x.erf()", "x.erfc()",
    "p.erfinv()", "x.frac() * y", "torch.atan2(x, y)", "torch.hypot(x, y)",
    "torch.logaddexp(x, y)", "torch.xlogy(P, y.abs() + 0.5)", "torch.xlogy(x, 2.0)",
    "torch.xlogy(2.0, P)", "torch.lerp(x, y, 0.3) ** 2", "torch.lerp(x, y, P)",
    "torch.addcmul(x, y, P, value=2)", "torch.addcdiv(x, y, P, value=0.5)",
    "torch.fmod(x, P) * y", "x.clamp(-P, P) * y", "x.clamp_min(y) * x", "x.clamp_max(0.2) * x",
]


@pytest.mark.parametrize("code", POINTWISE + INPLACE)
def test_matches_torch(code: str) -> None:
    check_case(code)


@pytest.mark.parametrize("code", SECOND)
def test_second_order(code: str) -> None:
    test_second_order_matches_torch(code)


@pytest.mark.parametrize("code", SECOND)
def test_create_graph(code: str) -> None:
    test_create_graph_records_torchs_nodes(code)


NN = [
    # convolution
    "F.conv2d(img, ker)", "F.conv2d(img, ker, b4)", "F.conv2d(img, ker, b4, stride=2, padding=1)",
    "F.conv2d(img, ker, b4, padding='same')", "F.conv2d(img, ker, padding='valid')",
    "F.conv2d(img, ker, b4, stride=(1, 2), padding=(0, 1), dilation=(2, 1))",
    "F.conv2d(img, ker[:, :1].expand(6, 1, 3, 3).contiguous(), groups=3)",
    "F.conv2d(img[0], ker, b4)", "F.conv2d(img, ker[:, :, :2, :2], padding='same')",
    "F.conv1d(seq, ker1, b4, padding=1)", "F.conv1d(seq, ker1, b4, padding='same', dilation=2)",
    "F.conv1d(seq[0], ker1)", "torch.conv2d(img, ker, b4, 1, 1)", "torch.conv1d(seq, ker1)",
    "F.conv2d(img, ker[:, :2], b4)", "F.conv2d(img, ker, b4[:2])", "F.conv2d(img[0, 0], ker)",
    "F.conv2d(img, ker, padding='same', stride=2)", "F.conv2d(img, ker, padding='foo')",
    "F.conv2d(img[:, :, :2, :2], ker)", "F.conv2d(img, ker, stride=0)",
    "F.conv2d(img, ker, padding=-1)", "F.conv2d(img, ker.to(torch.float64))",
    "F.conv2d(img, ker, groups=2)",
    "F.conv1d(img, ker)", "F.conv2d(seq, ker1)", "F.conv2d(img, ker, dilation=0)",
    # padding
    "F.pad(x, (1, 2))", "F.pad(img, (1, 2, 0, 1), value=0.5)",
    "F.pad(img, (1, 1, 2, 0), mode='reflect')",
    "F.pad(img, (1, 1, 2, 0), mode='replicate')", "F.pad(seq, (2, 1), mode='reflect')",
    "F.pad(seq, (2, 1), mode='replicate')", "F.pad(img, (1, 1), mode='reflect')",
    "F.pad(x, (-1, 1))",
    "F.pad(img, (5, 5, 0, 0), mode='reflect')", "F.pad(x, (1,))", "F.pad(img, (1, 1), mode='foo')",
    "F.pad(img, (-1, 0, 0, 0), mode='reflect')",
    # pooling
    "F.max_pool2d(img, 2)", "F.max_pool2d(img, 3, stride=2, padding=1)",
    "F.max_pool2d(img, (2, 3), ceil_mode=True)", "F.max_pool2d(img, 2, dilation=2)",
    "F.max_pool2d(img, 2, return_indices=True)", "F.max_pool2d(img[0], 2)",
    "F.max_pool1d(seq, 2)", "F.max_pool1d(seq, 3, stride=1, padding=1)",
    "F.max_pool1d(seq, 2, return_indices=True)", "F.avg_pool2d(img, 2)",
    "F.avg_pool2d(img, 3, stride=2, padding=1)",
    "F.avg_pool2d(img, 3, stride=2, padding=1, count_include_pad=False)",
    "F.avg_pool2d(img, 2, ceil_mode=True)", "F.avg_pool2d(img, 2, divisor_override=3)",
    "F.avg_pool1d(seq, 2)", "F.avg_pool1d(seq, 3, padding=1, count_include_pad=False)",
    "F.adaptive_avg_pool2d(img, (2, 3))", "F.adaptive_avg_pool2d(img, 1)",
    "F.adaptive_avg_pool2d(img, (None, 2))", "F.adaptive_avg_pool1d(seq, 3)",
    "F.adaptive_max_pool2d(img, 2)", "F.adaptive_max_pool2d(img, (3, 2), return_indices=True)",
    "F.adaptive_max_pool1d(seq, 3)", "torch.max_pool1d(seq, 2)",
    "torch.adaptive_max_pool1d(seq, 2)",
    "F.max_pool2d(img, 2, padding=2)", "F.max_pool2d(img, 8)", "F.avg_pool2d(img, 8)",
    "F.max_pool2d(img[0, 0], 2)", "F.max_pool2d(img, 2, stride=0)",
    # normalization
    "F.layer_norm(img, (5,))", "F.layer_norm(seq, (7,), seq[0, 0], seq[1, 0])",
    "F.layer_norm(img, (5, 5))", "F.layer_norm(img, [5], img[0, 0, 0], None, eps=1e-3)",
    "F.layer_norm(img, (4,))", "F.layer_norm(img, (5,), b4)", "F.layer_norm(img, 5)",
    "F.batch_norm(x, None, None, training=True)", "F.batch_norm(x, rm, rv, v, u, training=True)",
    "F.batch_norm(x, rm, rv, v, u)",
    "F.batch_norm(img, rm, rv, g3, v, training=True, momentum=0.2)",
    "F.batch_norm(img, rm, rv, training=False)", "F.batch_norm(x, rm[:2], rv)",
    "F.batch_norm(x[:1], None, None, training=True)",
    "out = F.batch_norm(img, rm, rv, training=True)\nout = (out, rm, rv, rm._version)",
    "F.group_norm(img, 3, g3, v)", "F.group_norm(img, 1)", "F.group_norm(img, 2)",
    "torch.layer_norm(img, (5,))", "torch.batch_norm(x, u, v, rm, rv, True, 0.1, 1e-5, False)",
    # embedding and friends
    "F.embedding(ids, emb)", "F.embedding(ids, emb, padding_idx=0)",
    "F.embedding(ids, emb, padding_idx=-1)", "F.embedding(ids[0, 0], emb)",
    "torch.embedding(emb, ids)", "F.embedding(ids.to(torch.float32), emb)",
    "F.embedding(torch.tensor([10]), emb)", "F.embedding(ids, emb, scale_grad_by_freq=True)",
    "F.embedding(ids, emb, padding_idx=10)",
    "out = F.embedding(ids, emb, max_norm=1.0)\nout = (out, emb._version)",
    "F.one_hot(tgt)", "F.one_hot(tgt, 5)", "F.one_hot(tgt, 1)", "F.one_hot(idx.to(torch.float32))",
    "F.normalize(x)", "F.normalize(x, p=1, dim=0)", "F.cosine_similarity(x, y)",
    "F.cosine_similarity(x, y[0], dim=1)", "F.pairwise_distance(x, y)",
    "F.pairwise_distance(x, y, p=1, keepdim=True)", "torch.cosine_similarity(x, y, 0)",
]

ACTIVATIONS = [
    "F.relu6(x * 4)", "F.hardtanh(x)", "F.hardtanh(x, -0.5, 0.5)", "F.threshold(x, 0.1, 20.0)",
    "F.logsigmoid(x)", "F.softsign(x)", "F.tanhshrink(x)", "F.hardsigmoid(x * 4)",
    "F.hardswish(x * 4)", "F.mish(x)", "F.glu(B)", "F.glu(x, 0)", "F.glu(x)",
    "F.relu_(x * 1)", "F.relu_(x)", "F.hardtanh_(x * 1)", "F.relu6(x * 4, inplace=True)",
    "F.threshold_(x * 1, 0.1, 2.0)", "F.threshold(x * 1, 0.1, 2.0, inplace=True)",
    "F.hardsigmoid(x * 1, inplace=True)", "F.hardswish(x * 1, True)",
    "F.mish(x * 1, inplace=True)", "F.elu(x * 1, inplace=True)", "F.elu_(x * 1)",
    "F.leaky_relu(x * 1, 0.2, inplace=True)", "F.leaky_relu_(x * 1)", "F.selu(x)",
    "F.softshrink(x)", "F.hardshrink(x, 0.3)", "F.softmin(x, 1)", "torch.threshold(x, 0.0, 1.0)",
    "torch.relu_(x * 1)", "torch.selu(x)",
]

LOSSES = [
    "F.smooth_l1_loss(x, y)", "F.smooth_l1_loss(x, y, beta=0.5, reduction='sum')",
    "F.smooth_l1_loss(x, y, beta=0.0)", "F.smooth_l1_loss(x, v, reduction='none')",
    "F.huber_loss(x, y)", "F.huber_loss(x, y, delta=0.5, reduction='none')",
    "F.huber_loss(x, y, reduction='sum')",
    "F.kl_div(x.log_softmax(1), y.softmax(1), reduction='batchmean')",
    "F.kl_div(x, y, log_target=True)", "F.kl_div(x, y.softmax(1))",
    "F.kl_div(x, y.softmax(1), reduction='sum')", "F.kl_div(x, y.softmax(1), reduction='none')",
    "F.cross_entropy(x, tgt, label_smoothing=0.1)",
    "F.cross_entropy(x, tgt, label_smoothing=0.1, reduction='sum')",
    "F.cross_entropy(x, tgt, label_smoothing=0.2, reduction='none')",
    "F.cross_entropy(x, tgt, label_smoothing=0.2, weight=w)",
    "F.cross_entropy(x, tgt, label_smoothing=0.1, ignore_index=2)",
    "F.cross_entropy(x, y.softmax(1), label_smoothing=0.1)",
    "F.cross_entropy(x, tgt, label_smoothing=1.5)",
    "F.cross_entropy(img, tgt4)", "F.cross_entropy(img, tgt4, reduction='none')",
    "F.cross_entropy(img, tgt4, weight=w, ignore_index=1)",
    "F.cross_entropy(img, tgt4, label_smoothing=0.1)", "F.nll_loss(img, tgt4)",
    "F.nll_loss(seq, tgt4[:, 0, :].clamp(0, 2)[:, :7].repeat(1, 2)[:, :7])",
    "F.cross_entropy(seq, torch.zeros(2, 7, dtype=torch.int64))",
    "F.cross_entropy(seq, torch.zeros(2, 7, dtype=torch.int64), reduction='none')",
    "F.nll_loss(img, tgt4[:, 0])", "F.nll_loss(img, tgt4[:1])", "F.nll_loss(seq, tgt4[:, 0])",
    "F.soft_margin_loss(x, sign)", "F.soft_margin_loss(x, sign, reduction='none')",
    "F.margin_ranking_loss(x[0], y[0], sign[0])",
    "F.margin_ranking_loss(x[0], y[0], sign[0], margin=0.5, reduction='sum')",
    "F.cosine_embedding_loss(x, y, sign[:, 0])",
    "F.cosine_embedding_loss(x, y, sign[:, 0], margin=0.2, reduction='none')",
]


@pytest.mark.parametrize("code", NN + ACTIVATIONS + LOSSES)
def test_nn_matches_torch(code: str) -> None:
    check_case(code)


SECOND_NN = [
    "F.conv2d(img, ker, b4, padding=1) ** 2", "F.conv1d(seq, ker1, b4, stride=2) ** 2",
    "F.max_pool2d(img, 2) ** 2", "F.avg_pool2d(img, 3, stride=2, padding=1) ** 2",
    "F.adaptive_avg_pool2d(img, (2, 3)) ** 2", "F.adaptive_max_pool2d(img, 2) ** 2",
    "F.layer_norm(seq, (7,), seq[0, 0], seq[1, 0]) ** 2", "F.layer_norm(img, (5, 5)) ** 2",
    "F.batch_norm(x, None, None, v, u, training=True) ** 2",
    "F.batch_norm(x, rm, rv, v, u) ** 2", "F.group_norm(img, 3, g3, v) ** 2",
    "F.embedding(ids, emb, padding_idx=2) ** 2", "F.pad(img, (1, 1, 2, 0), mode='reflect') ** 2",
    "F.pad(img, (1, 1, 2, 0), mode='replicate') ** 2", "F.pad(img, (1, 2)) ** 2",
    "F.relu6(x * 4) ** 2", "F.hardtanh(x) ** 2", "F.logsigmoid(x)", "F.softsign(x)",
    "F.tanhshrink(x)", "F.hardswish(x * 4)", "F.mish(x)", "F.glu(B, 1)", "F.selu(x)",
    "F.smooth_l1_loss(x, y, beta=0.5) ** 2", "F.huber_loss(x, y, delta=0.5)",
    "F.huber_loss(x, y, reduction='none') ** 2", "F.soft_margin_loss(x, sign)",
    "F.kl_div(x.log_softmax(1), y.softmax(1), reduction='batchmean')",
    "F.cross_entropy(x, tgt, label_smoothing=0.1)", "F.cross_entropy(img, tgt4)",
    "F.normalize(x)", "F.cosine_similarity(x, y)", "F.pairwise_distance(x, y)",
    "F.margin_ranking_loss(x[0], y[0], sign[0]) ** 2", "F.cosine_embedding_loss(x, y, sign[:, 0])",
]


@pytest.mark.parametrize("code", SECOND_NN)
def test_nn_second_order(code: str) -> None:
    test_second_order_matches_torch(code)


# Where the graph create_graph records differs from torch's (values agree: see
# test_nn_second_order); reported, not hidden.
CREATE_GRAPH_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("code", SECOND_NN)
def test_nn_create_graph(code: str, request: pytest.FixtureRequest) -> None:
    if code in CREATE_GRAPH_DIFFERENCES:
        request.applymarker(pytest.mark.xfail(reason=CREATE_GRAPH_DIFFERENCES[code],
                                              strict=True))
    test_create_graph_records_torchs_nodes(code)


TENSOR_OPS = [
    # sorting and selection
    "x.sort()", "x.sort(0, descending=True)", "torch.sort(x, stable=True)", "x.sort(dim=1)[1]",
    "x.argsort()", "x.argsort(0, descending=True)", "x.msort()", "x.topk(2)",
    "x.topk(2, dim=0, largest=False)", "torch.topk(x, 1, sorted=False)", "x.topk(4)",
    "x.kthvalue(2)", "x.kthvalue(2, 0, True)", "x.kthvalue(0)", "x.median()", "x.median(1)",
    "x.median(0, keepdim=True)",
    "torch.tensor([[1., 3., 3., 1., 2.], [5., 5., 4., 4., 0.]]).mode(1)",
    "x.mode(0)", "torch.unique(tgt)", "torch.unique(torch.tensor([3, 1, 3]), return_counts=True)",
    "torch.unique(torch.tensor([3, 1, 3]), return_inverse=True)", "torch.unique(x)",
    "torch.unique(x, dim=0)", "x.unique(dim=-1, return_counts=True)",
    "torch.cat([x, x.flip(0), x]).unique(dim=0, return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True)",
    "torch.unique(torch.tensor([[[1, 0], [1, 0]], [[0, 1], [0, 1]]]), dim=2, sorted=False)",
    "torch.unique(torch.zeros(0, 3), dim=0, return_counts=True)",
    "torch.unique(torch.zeros(3, 0), dim=0)", "torch.unique(x, dim=2)",
    "torch.tensor([1., float('nan'), 0.]).sort(descending=True)", "v.sort(descending=True)",
    # matrices
    "x.tril()", "x.triu(1)", "torch.tril(x, -1)", "y2 = x * 1\nout = y2.tril_()", "v.tril()",
    "v.diag()", "v.diag(1)", "x.diag()", "x.diag(1)", "x.diagonal()", "x.diagonal(1)",
    "torch.diagonal(x, 0, 1, 0)", "B.diagonal(0, 1, 2)", "torch.diag_embed(x)", "x.diag_embed(1)",
    "x.trace()", "B.trace()", "x.roll(1)", "x.roll(1, 0)", "x.roll((1, -1), (0, 1))",
    "x.roll((1, 2), 0)", "x.tile((2,))", "x.tile((2, 1, 1))", "torch.tile(v, (2, 2))",
    "y2 = x * 1\nd2 = y2.diagonal()\nd2.mul_(2)\nout = y2",
    # statistics and counting
    "x.cumprod(1)", "torch.cumprod(x, 0)", "x.cummax(1)", "x.cummin(0)", "torch.cummax(v, 0)",
    "torch.cumprod(torch.tensor([[1., 0., 2.], [3., 2., 0.]], requires_grad=True), 1)",
    "torch.std_mean(x)", "torch.var_mean(x, 1)", "torch.std_mean(x, dim=0, unbiased=False)",
    "torch.var_mean(x, 1, keepdim=True, correction=0)", "torch.var_mean(x)[1]",
    "x.count_nonzero()", "torch.count_nonzero(x, dim=0)", "torch.isclose(x, y)",
    "torch.isclose(x, x + 1e-9)", "x.equal(y)", "x.equal(x)", "torch.equal(x, x.clone())",
    "torch.bincount(torch.tensor([1, 1, 3]))", "torch.bincount(tgt, weights=v[:2])",
    "torch.bincount(tgt, minlength=5)", "torch.histc(x, 4)", "torch.histc(x, 3, -1, 1)",
    "x.nonzero()", "(x > 0).nonzero()", "torch.nonzero(x > 0, as_tuple=True)", "(x > 0).argwhere()",
    # indexing ops
    "x.index_copy(0, torch.tensor([1, 0]), y)",
    "y2 = x * 1\nout = y2.index_copy_(1, torch.tensor([2, 0]), y[:, :2])",
    "x.index_add(0, torch.tensor([1, 1]), y)",
    "x.index_add(1, torch.tensor([0, 2]), y[:, :2], alpha=2.0)",
    "y2 = x * 1\nout = y2.index_add_(0, torch.tensor([1, 0]), y)",
    "y2 = x * 1\nout = y2.index_fill_(1, torch.tensor([0, 2]), 0.5)",
    "x.index_fill(1, torch.tensor([0, 2]), 0.5)", "x.index_fill(1, torch.tensor([0, 2]), v.sum())",
    "x.index_copy(0, torch.tensor([5]), y[:1])", "x.index_fill(1, torch.tensor([1.0]), 0)",
    "x.scatter(1, idx, y[:, :2])", "x.scatter(1, idx, 1.5)",
    "y2 = x * 1\nout = y2.scatter_(1, idx, y)",
    "x.scatter(1, idx, y, reduce='add')", "x.scatter(1, idx, 2.0, reduce='multiply')",
    "torch.scatter(x, 0, idx, y)", "y2 = x * 1\nout = y2.scatter_add_(1, idx, y)",
    "x.scatter(1, torch.tensor([[5]]), 1.0)", "x.masked_select(x > 0)", "x.masked_select(mask)",
    "torch.masked_select(x, mask[0])", "y2 = x * 1\nout = y2.masked_scatter_(mask, y)",
    "x.masked_scatter(mask, y)", "x.masked_scatter(mask, y[:1])", "x[0].masked_scatter(mask, y)",
    "x[:1, :1].masked_scatter(mask, y)", "y2 = x * 1\nout = y2[0].masked_scatter_(mask, y)",
    # indexing with ranges, lists, bool lists, tensors and mixtures
    "x[range(2)]", "x[:, range(1, 3)]", "x[[0, 1]]", "x[[0, 1], [1, 2]]", "x[[True, False]]",
    "x[:, [True, False, True]]", "x[None, [0, 1]]", "x[..., [0, 2]]", "x[[1], ...]",
    "x[[0, 1], None]", "B[:, range(2), 0]", "B[range(2), :, [0, 2]]", "x[range(0)]",
    "x[torch.tensor([[0, 1], [1, 0]])]", "B[torch.tensor([0, 3]), None, 1:]",
    "y2 = x * 1\ny2[range(2)] = 0.0\nout = y2", "y2 = x * 1\ny2[:, [0, 2]] = v[:2, None]\nout = y2",
    "y2 = x * 1\ny2[[True, False]] = 1.5\nout = y2",
    "y2 = x * 1\ny2[[0, 1], [2, 0]] += 1\nout = y2",
]


@pytest.mark.parametrize("code", TENSOR_OPS)
def test_tensor_ops_match_torch(code: str) -> None:
    check_case(code)


SECOND_TENSOR_OPS = [
    "x.sort(1)[0] ** 2", "x.topk(2)[0] ** 2", "x.kthvalue(2)[0] ** 2", "x.median() ** 2",
    "x.median(1)[0] ** 2", "x.cumprod(1)", "x.cummax(1)[0] ** 2", "x.tril() ** 2",
    "x.diagonal() ** 2", "x.diag_embed() ** 2", "x.trace() ** 2", "x.roll(1, 0) ** 2",
    "x.tile((2,)) ** 2", "torch.std_mean(x, 1)[0]", "torch.var_mean(x)[0] * torch.var_mean(x)[1]",
    "x.index_copy(0, torch.tensor([1, 0]), y) ** 2", "x.index_add(0, torch.tensor([1, 1]), y) ** 2",
    "x.index_fill(1, torch.tensor([0, 2]), v.sum()) ** 2", "x.scatter(1, idx, y[:, :2]) ** 2",
    "x.masked_select(mask) ** 2", "x.masked_scatter(mask, y) ** 2",
]


@pytest.mark.parametrize("code", SECOND_TENSOR_OPS)
def test_tensor_ops_second_order(code: str) -> None:
    test_second_order_matches_torch(code)


@pytest.mark.parametrize("code", SECOND_TENSOR_OPS)
def test_tensor_ops_create_graph(code: str) -> None:
    test_create_graph_records_torchs_nodes(code)


EINSUM = [
    "torch.einsum('ij,jk->ik', x, M)", "torch.einsum('ij,jk', x, M)", "torch.einsum('ij->ji', x)",
    "torch.einsum('ij->', x)", "torch.einsum('ii->i', M @ x)", "torch.einsum('ii', M @ x)",
    "torch.einsum('i,i->', v, u)", "torch.einsum('i,j->ij', v, u)",
    "torch.einsum('bij,bjk->bik', B, C)",
    "torch.einsum('bij,jk->bik', B, torch.ones(3, 2))", "torch.einsum('ij,ij->ij', x, y)",
    "torch.einsum('ij,ij->i', x, y)", "torch.einsum('...j,j->...', B, v)",
    "torch.einsum('b...,b...->b', B, B)", "torch.einsum('ij,jk,kl->il', x, M, M.t())",
    "torch.einsum('i,i,i->', v, u, v)", "torch.einsum('ij,j->i', [x, v])", "torch.einsum('i', v)",
    "torch.einsum('ijk->kj', B)", "torch.einsum('ij,kj->ik', x, y)",
    "torch.einsum('ij,jk->ik', x, y)",
    "torch.einsum('ij->jj', x)", "torch.einsum('ij,jk->ik', x)", "torch.einsum('i.j->i', x)",
]


@pytest.mark.parametrize("code", EINSUM)
def test_einsum_matches_torch(code: str) -> None:
    check_case(code)


@pytest.mark.parametrize("code", EINSUM[:16])
def test_einsum_gradient_graph_matches_torch(code: str) -> None:
    """The gradient taken with create_graph=True has torch's graph (first order; the
    second-order graphs go through reshape/bmm double backwards that differ, see report)."""
    check_gradient_graph(code)


def check_gradient_graph(code: str) -> None:
    import numpy as np
    import torch
    from test_ops_torch_diff import NO_GRAD, _compare_graph, _gt_env, _inputs, _run, _torch_env

    from gradtrace.engine.backward import grad as gt_grad
    from gradtrace.engine.tensor import Tensor

    arrays = _inputs(3)
    tenv, genv = _torch_env(arrays), _gt_env(arrays)
    names = [k for k in arrays if k not in NO_GRAD and arrays[k].dtype.kind == "f"]
    tout, gout = _run(code, tenv), _run(code, genv)
    w = np.random.default_rng(7).standard_normal(tuple(tout.shape)).astype(np.float32)
    tg = torch.autograd.grad((tout * torch.tensor(w)).sum(), [tenv[n] for n in names],
                             create_graph=True, allow_unused=True)
    gg = gt_grad((gout * Tensor(w)).sum(), [genv[n] for n in names], create_graph=True,
                 allow_unused=True)
    for name, t1, g1 in zip(names, tg, gg, strict=True):
        assert (t1 is None) == (g1 is None), name
        if t1 is not None:
            _compare_graph(g1.grad_fn, t1.grad_fn, f"d/d{name}", set())
