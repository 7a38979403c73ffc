"""Finite-difference checks (float64, torch.autograd.gradcheck's tolerances) of every
differentiable op added for real code: first order for all, second order (gradients of
gradients built with create_graph=True) for those with a double backward of their own.
Inputs stay away from kinks (clamp bounds, ties, pool window ties).
"""
from __future__ import annotations

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import F, finite_difference_tests
from test_gradcheck import away, distinct, pos, prob, randn

from gradtrace.engine.tensor import Tensor

RNG_SEED = 4321


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([RNG_SEED, sum(map(ord, name))])


def _long(values) -> Tensor:
    return Tensor(np.asarray(values, dtype=np.int64))


IDX = _long([[0, 2], [1, 0], [2, 1]])
MASK = Tensor(np.array([[True, False, True], [False, True, True]]))


def _inplace(method: str, *args):
    def fn(a, *others):
        y = a * 1
        return getattr(y, method)(*others, *args)
    return fn


CASES = {
    # elementwise
    "tan": (lambda a: a.tan(), lambda r: [randn(r, 2, 3) * 0.5]),
    "asin": (lambda a: a.asin(), lambda r: [prob(r, 2, 3)]),
    "acos": (lambda a: a.acos(), lambda r: [prob(r, 2, 3)]),
    "atan": (lambda a: a.atan(), lambda r: [randn(r, 2, 3)]),
    "sinh": (lambda a: a.sinh(), lambda r: [randn(r, 2, 3)]),
    "cosh": (lambda a: a.cosh(), lambda r: [randn(r, 2, 3)]),
    "asinh": (lambda a: a.asinh(), lambda r: [randn(r, 2, 3)]),
    "acosh": (lambda a: a.acosh(), lambda r: [pos(r, 2, 3) + 1]),
    "atanh": (lambda a: a.atanh(), lambda r: [prob(r, 2, 3) - 0.5]),
    "log2": (lambda a: a.log2(), lambda r: [pos(r, 2, 3)]),
    "log10": (lambda a: a.log10(), lambda r: [pos(r, 2, 3)]),
    "exp2": (lambda a: a.exp2(), lambda r: [randn(r, 2, 3)]),
    "erf": (lambda a: a.erf(), lambda r: [randn(r, 2, 3)]),
    "erfc": (lambda a: a.erfc(), lambda r: [randn(r, 2, 3)]),
    "erfinv": (lambda a: a.erfinv(), lambda r: [prob(r, 2, 3) - 0.5]),
    "frac": (lambda a: a.frac(), lambda r: [np.array([0.3, 1.6, -2.2])]),
    "atan2": (lambda a, b: torch.atan2(a, b), lambda r: [randn(r, 2, 3), away(r, 3)]),
    "hypot": (lambda a, b: torch.hypot(a, b), lambda r: [away(r, 2, 3), away(r, 3)]),
    "logaddexp": (lambda a, b: torch.logaddexp(a, b), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "xlogy": (lambda a, b: torch.xlogy(a, b), lambda r: [randn(r, 2, 3), pos(r, 2, 3)]),
    "xlogy_scalar": (lambda a: torch.xlogy(a, 2.5), lambda r: [randn(r, 2, 3)]),
    "lerp_scalar": (lambda a, b: torch.lerp(a, b, 0.3), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "lerp_tensor": (lambda a, b, w: torch.lerp(a, b, w),
                    lambda r: [randn(r, 2, 3), randn(r, 2, 3), prob(r, 2, 3)]),
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c, value=0.7),
                lambda r: [randn(r, 2, 3), randn(r, 2, 3), randn(r, 3)]),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c, value=0.7),
                lambda r: [randn(r, 2, 3), randn(r, 2, 3), pos(r, 3)]),
    "fmod_tensor": (lambda a, b: torch.fmod(a, b), lambda r: [pos(r, 2, 3) * 3, pos(r, 2, 3)]),
    "clamp_tensor": (lambda a, lo, hi: a.clamp(lo, hi),
                     lambda r: [np.array([[-1.0, 0.2, 0.9], [0.4, -0.3, 2.0]]),
                                np.array([-0.5, -0.5, -0.5]), np.array([0.5, 0.5, 1.5])]),
    "clamp_min_tensor": (lambda a, b: a.clamp_min(b),
                         lambda r: [np.array([[-1.0, 0.2], [0.4, 2.0]]), np.array([0.0, 1.0])]),
    # in-place forms
    "cos_": (_inplace("cos_"), lambda r: [randn(r, 2, 3)]),
    "sqrt_": (_inplace("sqrt_"), lambda r: [pos(r, 2, 3)]),
    "tan_": (_inplace("tan_"), lambda r: [randn(r, 2, 3) * 0.5]),
    "addcmul_": (_inplace("addcmul_"), lambda r: [randn(r, 2, 3), randn(r, 2, 3), randn(r, 3)]),
    "lerp_": (lambda a, b: (a * 1).lerp_(b, 0.25), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "index_add_": (lambda a, s: (a * 1).index_add_(0, _long([1, 0]), s, alpha=1.5),
                   lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "shape_inplace": (lambda a: (a * 1).unsqueeze_(0).transpose_(0, 2).squeeze_(2).t_() * 2,
                      lambda r: [randn(r, 2, 3)]),
    # nn
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
               lambda r: [randn(r, 1, 2, 5, 4), randn(r, 3, 2, 3, 3), randn(r, 3)]),
    "conv2d_groups_dilation": (lambda x, w: F.conv2d(x, w, groups=2, dilation=(2, 1)),
                               lambda r: [randn(r, 1, 4, 6, 5), randn(r, 2, 2, 2, 3)]),
    "conv1d_same": (lambda x, w: F.conv1d(x, w, padding="same"),
                    lambda r: [randn(r, 2, 2, 6), randn(r, 3, 2, 4)]),
    "pad_reflect": (lambda x: F.pad(x, (2, 1, 1, 0), mode="reflect"),
                    lambda r: [randn(r, 1, 1, 3, 4)]),
    "pad_replicate": (lambda x: F.pad(x, (2, 1), mode="replicate"), lambda r: [randn(r, 2, 3)]),
    "pad_constant": (lambda x: F.pad(x, (1, -1, 0, 2), value=0.5), lambda r: [randn(r, 2, 3)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 3, stride=2, padding=1),
                   lambda r: [distinct(r, 1, 2, 5, 5)]),
    "max_pool1d": (lambda x: F.max_pool1d(x, 2), lambda r: [distinct(r, 2, 2, 6)]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False,
                                          ceil_mode=True), lambda r: [randn(r, 1, 2, 5, 5)]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
                            lambda r: [randn(r, 1, 2, 5, 7)]),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2),
                            lambda r: [distinct(r, 1, 2, 5, 4)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b),
                   lambda r: [randn(r, 3, 4), randn(r, 4), randn(r, 4)]),
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                         lambda r: [randn(r, 4, 3, 2), randn(r, 3), randn(r, 3)]),
    "batch_norm_eval": (lambda x, w: F.batch_norm(
        x, Tensor(np.array([0.1, -0.2, 0.3])), Tensor(np.array([1.0, 0.5, 2.0])), w),
        lambda r: [randn(r, 4, 3), randn(r, 3)]),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b),
                   lambda r: [randn(r, 2, 4, 3), randn(r, 4), randn(r, 4)]),
    "embedding": (lambda w: F.embedding(_long([[0, 2], [4, 2]]), w, padding_idx=1),
                  lambda r: [randn(r, 5, 3)]),
    "normalize": (lambda x: F.normalize(x, dim=0), lambda r: [randn(r, 3, 4)]),
    "cosine_similarity": (lambda a, b: F.cosine_similarity(a, b),
                          lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    "pairwise_distance": (lambda a, b: F.pairwise_distance(a, b),
                          lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    "hardtanh": (lambda x: F.hardtanh(x), lambda r: [away(r, 2, 4) * 0.8]),
    "logsigmoid": (lambda x: F.logsigmoid(x), lambda r: [randn(r, 2, 4) * 2]),
    "softsign": (lambda x: F.softsign(x), lambda r: [away(r, 2, 4)]),
    "tanhshrink": (lambda x: F.tanhshrink(x), lambda r: [randn(r, 2, 4)]),
    "hardswish": (lambda x: F.hardswish(x), lambda r: [away(r, 2, 4) * 2]),
    "mish": (lambda x: F.mish(x), lambda r: [randn(r, 2, 4) * 2]),
    "glu": (lambda x: F.glu(x, 0), lambda r: [randn(r, 4, 3)]),
    "selu": (lambda x: F.selu(x), lambda r: [away(r, 2, 4)]),
    "elu_inplace": (lambda x: F.elu(x * 1, inplace=True), lambda r: [away(r, 2, 4)]),
    "celu": (lambda x: F.celu(x, alpha=0.6), lambda r: [away(r, 2, 4)]),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3), lambda r: [away(r, 2, 4)]),
    "cross": (lambda a, b: torch.cross(a, b, dim=1), lambda r: [randn(r, 2, 3), randn(r, 1, 3)]),
    "celu_inplace": (lambda x: F.celu(x * 1, alpha=1.7, inplace=True),
                     lambda r: [away(r, 2, 4)]),
    "smooth_l1_loss": (lambda a, b: F.smooth_l1_loss(a, b, beta=0.5),
                       lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "huber_loss": (lambda a, b: F.huber_loss(a, b, delta=0.7, reduction="sum"),
                   lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "soft_margin_loss": (lambda a: F.soft_margin_loss(
        a, Tensor(np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]))), lambda r: [randn(r, 2, 3)]),
    "kl_div": (lambda a, b: F.kl_div(a, b, reduction="batchmean"),
               lambda r: [randn(r, 2, 3), prob(r, 2, 3)]),
    "cross_entropy_smoothing": (lambda a: F.cross_entropy(a, _long([0, 2, 1]),
                                                           label_smoothing=0.2),
                                lambda r: [randn(r, 3, 4)]),
    "cross_entropy_2d": (lambda a: F.cross_entropy(a, _long([[[0, 2], [1, 1]]])),
                         lambda r: [randn(r, 1, 3, 2, 2)]),
    "margin_ranking": (lambda a, b: F.margin_ranking_loss(a, b, Tensor(np.array([1.0, -1.0, 1.0])),
                                                          margin=0.1),
                       lambda r: [randn(r, 3) * 3, randn(r, 3) * 3]),
    "cosine_embedding": (lambda a, b: F.cosine_embedding_loss(
        a, b, Tensor(np.array([1.0, -1.0]))), lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    # tensor ops
    "sort": (lambda a: a.sort(1)[0], lambda r: [distinct(r, 2, 4)]),
    "topk": (lambda a: a.topk(2)[0], lambda r: [distinct(r, 3, 4)]),
    "kthvalue": (lambda a: a.kthvalue(2, 0)[0], lambda r: [distinct(r, 3, 4)]),
    "median": (lambda a: a.median(1)[0], lambda r: [distinct(r, 3, 5)]),
    "tril": (lambda a: a.tril(-1), lambda r: [randn(r, 3, 4)]),
    "diagonal": (lambda a: a.diagonal(1), lambda r: [randn(r, 3, 4)]),
    "unfold_overlapping": (lambda a: a.unfold(1, 3, 2) ** 2, lambda r: [randn(r, 2, 7)]),
    "pixel_shuffle": (lambda a: F.pixel_shuffle(a, 2) ** 2, lambda r: [randn(r, 1, 8, 2, 3)]),
    "unfold_im2col": (lambda a: F.unfold(a, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
                      ** 2, lambda r: [randn(r, 2, 2, 4, 5)]),
    "fold_col2im": (lambda a: F.fold(a, (4, 5), 2, padding=1, stride=(1, 2)) ** 2,
                    lambda r: [randn(r, 1, 8, 15)]),
    "pixel_unshuffle": (lambda a: F.pixel_unshuffle(a, 2) ** 2, lambda r: [randn(r, 2, 1, 4, 2)]),
    "unfold_gaps": (lambda a: a.unfold(-1, 2, 3), lambda r: [randn(r, 3, 8)]),
    "diag_embed": (lambda a: torch.diag_embed(a, 1), lambda r: [randn(r, 2, 3)]),
    "trace": (lambda a: a.trace(), lambda r: [randn(r, 3, 4)]),
    "roll": (lambda a: a.roll((1, -1), (0, 1)), lambda r: [randn(r, 3, 4)]),
    "cumprod": (lambda a: a.cumprod(1), lambda r: [away(r, 2, 4)]),
    "cummax": (lambda a: a.cummax(1)[0], lambda r: [distinct(r, 2, 5)]),
    "std_mean": (lambda a: torch.std_mean(a, 1)[0] * torch.std_mean(a, 1)[1],
                 lambda r: [randn(r, 3, 4)]),
    "var_mean": (lambda a: torch.var_mean(a)[0] + torch.var_mean(a)[1] ** 2,
                 lambda r: [randn(r, 3, 4)]),
    "index_copy": (lambda a, s: a.index_copy(1, _long([2, 0]), s),
                   lambda r: [randn(r, 2, 3), randn(r, 2, 2)]),
    "index_fill_tensor": (lambda a, v: a.index_fill(1, _long([0, 2]), v.sum()),
                          lambda r: [randn(r, 2, 3), randn(r, 2)]),
    "scatter": (lambda a, s: a.scatter(1, IDX, s), lambda r: [randn(r, 3, 3), randn(r, 3, 2)]),
    "masked_select": (lambda a: a.masked_select(MASK), lambda r: [randn(r, 2, 3)]),
    "masked_scatter": (lambda a, s: a.masked_scatter(MASK, s),
                       lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    # a self smaller than the mask broadcasts; its gradient sums over the broadcast rows
    "masked_scatter_broadcast_self": (lambda a, s: a.masked_scatter(MASK, s),
                                      lambda r: [randn(r, 3), randn(r, 2, 3)]),
    "einsum_bmm": (lambda a, b: torch.einsum("bij,bjk->bik", a, b),
                   lambda r: [randn(r, 2, 2, 3), randn(r, 2, 3, 2)]),
    "einsum_trace_outer": (lambda a, v: torch.einsum("ii,j->j", a, v),
                           lambda r: [randn(r, 3, 3), randn(r, 2)]),
    # the remaining node classes of these ops (every one is in tests/test_formulas' corpus)
    "clamp_max_scalar": (lambda a: a.clamp_max(0.3),
                         lambda r: [np.array([[-1.0, 0.2, 0.9], [0.4, -0.3, 2.0]])]),
    "clamp_max_tensor": (lambda a, b: a.clamp_max(b),
                         lambda r: [np.array([[-1.0, 0.2], [0.4, 2.0]]), np.array([0.0, 1.0])]),
    "fmod_scalar": (lambda a: torch.fmod(a, 0.7), lambda r: [np.array([0.3, 1.6, -2.2])]),
    "xlogy_scalar_self": (lambda b: torch.xlogy(2.5, b), lambda r: [pos(r, 2, 3)]),
    "hardshrink": (lambda x: F.hardshrink(x, 0.3), lambda r: [away(r, 2, 4, gap=0.5)]),
    "softshrink": (lambda x: F.softshrink(x, 0.3), lambda r: [away(r, 2, 4, gap=0.5)]),
    "threshold": (lambda x: F.threshold(x, 0.1, -2.0), lambda r: [away(r, 2, 4, gap=0.3)]),
    "threshold_inplace": (lambda x: F.threshold(x * 1, 0.1, -2.0, inplace=True),
                          lambda r: [away(r, 2, 4, gap=0.3)]),
    "hardsigmoid": (lambda x: F.hardsigmoid(x), lambda r: [away(r, 2, 4) * 2]),
    "relu6": (lambda x: F.relu6(x * 4), lambda r: [away(r, 2, 4)]),
    "reflect_pad1d": (lambda x: F.pad(x, (2, 1), mode="reflect"), lambda r: [randn(r, 2, 4)]),
    "reflect_pad3d": (lambda x: F.pad(x, (1, 1, 0, 1, 1, 0), mode="reflect"),
                      lambda r: [randn(r, 1, 2, 2, 3)]),
    "replicate_pad2d": (lambda x: F.pad(x, (1, 2, 2, 0), mode="replicate"),
                        lambda r: [randn(r, 1, 2, 3)]),
    "replicate_pad3d": (lambda x: F.pad(x, (0, 1, 1, 0, 2, 1), mode="replicate"),
                        lambda r: [randn(r, 1, 2, 2, 2)]),
    "cummin": (lambda a: a.cummin(1)[0], lambda r: [distinct(r, 2, 5)]),
    "median_all": (lambda a: a.median(), lambda r: [distinct(r, 3, 5)]),
    # distinct values: every value is as frequent, so the mode is the smallest
    "mode": (lambda a: a.mode(1, keepdim=True)[0], lambda r: [distinct(r, 2, 4)]),
    "sort_stable": (lambda a: a.sort(0, descending=True, stable=True)[0],
                    lambda r: [distinct(r, 3, 2)]),
    "triu": (lambda a: a.triu(1), lambda r: [randn(r, 3, 4)]),
    "diag_matrix": (lambda a: torch.diag(a, -1), lambda r: [randn(r, 4, 3)]),
    "scatter_value": (lambda a: a.scatter(1, IDX, 0.5), lambda r: [randn(r, 3, 3)]),
    "index_fill_scalar": (lambda a: a.index_fill(0, _long([1]), -1.0),
                          lambda r: [randn(r, 2, 3)]),
    "squeeze_all_inplace": (lambda a: (a * 1).squeeze_() * 2, lambda r: [randn(r, 1, 3, 1)]),
    "squeeze_dims_inplace": (lambda a: (a * 1).squeeze_((0, 2)) * 2,
                             lambda r: [randn(r, 1, 3, 1)]),
    # corpus round 3
    "take": (lambda a: torch.take(a, _long([[0, -1], [4, 4]])), lambda r: [randn(r, 2, 3)]),
    "dist_2_broadcast": (lambda a, b: torch.dist(a, b), lambda r: [randn(r, 2, 3), randn(r, 3)]),
    "dist_3": (lambda a, b: torch.dist(a, b, 3), lambda r: [randn(r, 2, 3), randn(r, 2, 3)]),
    "dist_1": (lambda a, b: a.dist(b, 1), lambda r: [away(r, 2, 3), randn(r, 2, 3) * 0]),
    "dist_inf": (lambda a, b: torch.dist(a, b, float("inf")),
                 lambda r: [distinct(r, 2, 3), randn(r, 2, 3) * 0]),
    "diff_prepend_append": (lambda a, p: torch.diff(a, n=2, dim=0, prepend=p, append=p),
                            lambda r: [randn(r, 3, 2), randn(r, 1, 2)]),
    "put": (lambda a, s: a.put(_long([1, 4]), s), lambda r: [randn(r, 2, 3), randn(r, 2)]),
    "put_accumulate": (lambda a, s: (a * 1).put_(_long([[1], [1]]), s, accumulate=True),
                       lambda r: [randn(r, 2, 3), randn(r, 2, 1)]),
    "einsum_sublist": (lambda a, b: torch.einsum(a, [..., 0, 1], b, [1, 2], [..., 0, 2]),
                       lambda r: [randn(r, 2, 2, 3), randn(r, 3, 2)]),
}

SECOND_ORDER = [
    "tan", "asin", "atan", "sinh", "asinh", "log2", "exp2", "erf", "erfinv", "atan2", "hypot",
    "logaddexp", "xlogy", "lerp_tensor", "addcmul", "addcdiv", "conv2d", "conv1d_same",
    "pad_reflect", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "layer_norm",
    "batch_norm_train", "batch_norm_eval", "group_norm", "embedding", "normalize",
    "cosine_similarity", "logsigmoid", "hardswish", "mish", "glu", "smooth_l1_loss",
    "huber_loss", "soft_margin_loss", "kl_div", "cross_entropy_smoothing", "cross_entropy_2d",
    "cumprod", "std_mean", "var_mean", "index_copy", "scatter", "masked_scatter", "einsum_bmm",
    "reflect_pad1d", "reflect_pad3d", "replicate_pad2d", "replicate_pad3d", "hardshrink",
    "adaptive_max_pool2d", "diagonal", "unfold_overlapping", "pixel_shuffle", "fold_col2im",
    "hardtanh",
    "pad_replicate",
    "diag_matrix",
    "take", "put", "put_accumulate", "dist_2_broadcast", "dist_3", "diff_prepend_append",
    "einsum_sublist",
]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
