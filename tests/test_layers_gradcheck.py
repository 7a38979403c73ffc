"""Finite-difference checks (float64) of the layers and products of issue 12's `layers`
part: first order for every op, second order for those whose backward is differentiable
in torch (the products, avg_pool3d, max_unpool and the composites)."""
from __future__ import annotations

import numpy as np
from ops_helpers import TORCH as torch
from ops_helpers import F, finite_difference_tests
from test_gradcheck import distinct, pos, randn

from gradtrace.engine.tensor import Tensor


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([2026, sum(map(ord, name))])


def _long(values) -> Tensor:
    return Tensor(np.asarray(values, dtype=np.int64))


BAG = _long([1, 2, 4, 5, 4, 3, 2, 9])
OFFSETS = _long([0, 3, 3])


def _unpool1d(x):
    out, idx = F.max_pool1d(x, 2, return_indices=True)
    return F.max_unpool1d(out * 2, idx, 2)


def _unpool3d(x):
    idx = _long(np.arange(8).reshape(1, 2, 2, 2) * 3 % 27)
    return F.max_unpool3d(x, idx.expand(2, 2, 2, 2), 3)


CASES = {
    "baddbmm": (lambda m, a, b: torch.baddbmm(m, a, b, beta=0.5, alpha=2.0),
                lambda r: [randn(r, 4), randn(r, 2, 3, 5), randn(r, 2, 5, 4)]),
    "baddbmm_full": (lambda m, a, b: torch.baddbmm(m, a, b),
                     lambda r: [randn(r, 2, 3, 4), randn(r, 2, 3, 5), randn(r, 2, 5, 4)]),
    "addbmm": (lambda m, a, b: torch.addbmm(m, a, b, beta=-1, alpha=0.5),
               lambda r: [randn(r, 3, 1), randn(r, 2, 3, 5), randn(r, 2, 5, 4)]),
    "addmv": (lambda m, a, v: torch.addmv(m, a, v, beta=2, alpha=-0.5),
              lambda r: [randn(r, 3), randn(r, 3, 4), randn(r, 4)]),
    "addr": (lambda m, a, b: torch.addr(m, a, b, beta=0.5, alpha=3),
             lambda r: [randn(r, 3, 4), randn(r, 3), randn(r, 4)]),
    "addr_inplace": (lambda m, a, b: (m * 1).addr_(a, b),
                     lambda r: [randn(r, 3, 4), randn(r, 3), randn(r, 4)]),
    "embedding_bag_mean": (lambda w: F.embedding_bag(BAG, w, OFFSETS),
                           lambda r: [randn(r, 10, 3)]),
    "embedding_bag_sum_padding": (lambda w: F.embedding_bag(BAG, w, OFFSETS, mode="sum",
                                                            padding_idx=2),
                                  lambda r: [randn(r, 10, 3)]),
    "embedding_bag_max": (lambda w: F.embedding_bag(BAG, w, OFFSETS, mode="max"),
                          lambda r: [distinct(r, 10, 3)]),
    "embedding_bag_weighted": (lambda w, p: F.embedding_bag(BAG, w, OFFSETS, mode="sum",
                                                            per_sample_weights=p),
                               lambda r: [randn(r, 10, 3), randn(r, 8)]),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2, stride=1, padding=1),
                   lambda r: [randn(r, 2, 3, 3, 4)]),
    "avg_pool3d_ceil": (lambda x: F.avg_pool3d(x, (2, 3, 2), stride=2, ceil_mode=True,
                                               count_include_pad=False),
                        lambda r: [randn(r, 1, 2, 5, 5, 3)]),
    "max_unpool1d": (_unpool1d, lambda r: [distinct(r, 2, 2, 6)]),
    "max_unpool3d": (_unpool3d, lambda r: [randn(r, 2, 2, 2, 2)]),
    "lp_pool1d": (lambda x: F.lp_pool1d(x, 2, 3, stride=2), lambda r: [pos(r, 2, 3, 7)]),
    "lp_pool2d": (lambda x: F.lp_pool2d(x, 3, 2), lambda r: [pos(r, 1, 2, 4, 4)]),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
                      lambda r: [randn(r, 2, 3, 5), pos(r, 3), randn(r, 3)]),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3, alpha=0.5),
                            lambda r: [randn(r, 2, 4, 3, 2)]),
    "local_response_norm_3d": (lambda x: F.local_response_norm(x, 2, alpha=0.5),
                               lambda r: [randn(r, 2, 4, 3)]),
    "rms_norm": (lambda x, w: F.rms_norm(x, [2, 3], w), lambda r: [randn(r, 4, 2, 3),
                                                                  pos(r, 2, 3)]),
    "channel_shuffle": (lambda x: F.channel_shuffle(x, 2), lambda r: [randn(r, 2, 6, 3)]),
}

SECOND_ORDER = ["baddbmm", "addbmm", "addmv", "addr", "avg_pool3d", "avg_pool3d_ceil",
                "max_unpool1d", "lp_pool1d", "instance_norm", "local_response_norm",
                "rms_norm", "channel_shuffle"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)
