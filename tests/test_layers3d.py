"""The 3-D and sampling layers of issue 12's held-out corpora: conv3d, conv_transpose3d,
max_pool3d, adaptive_avg_pool3d / adaptive_max_pool3d, affine_grid and grid_sample.
Finite-difference checks in float64 (second order where torch's backward is differentiable),
then differential tests against live PyTorch (values, gradients, nodes, saved values and
errors), skipped without torch."""
from __future__ import annotations

import numpy as np
import pytest
from ops_helpers import F, finite_difference_tests
from test_gradcheck import distinct, randn

from gradtrace.engine.tensor import Tensor


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([2026, 3, sum(map(ord, name))])


def _grid(r: np.random.Generator, *shape: int) -> np.ndarray:
    """Sampling locations away from the pixel boundaries (where bilinear is not smooth)."""
    return r.uniform(-0.9, 0.9, shape) * 0.97 + 0.011


CASES = {
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1),
               lambda r: [randn(r, 2, 2, 3, 4, 3), randn(r, 3, 2, 2, 2, 2), randn(r, 3)]),
    "conv3d_groups_dilated": (lambda x, w: F.conv3d(x, w, groups=2, dilation=(1, 2, 1)),
                              lambda r: [randn(r, 1, 4, 3, 5, 3), randn(r, 2, 2, 2, 2, 2)]),
    "conv_transpose3d": (lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1,
                                                            output_padding=1),
                         lambda r: [randn(r, 2, 2, 2, 3, 2), randn(r, 2, 3, 2, 3, 2),
                                    randn(r, 3)]),
    "max_pool3d": (lambda x: F.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=1,
                                          ceil_mode=True),
                   lambda r: [distinct(r, 2, 2, 3, 5, 4)]),
    "max_pool3d_dilated": (lambda x: F.max_pool3d(x, 2, dilation=(1, 2, 1)),
                           lambda r: [distinct(r, 1, 3, 4, 5, 4)]),
    "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, None)),
                            lambda r: [randn(r, 2, 2, 3, 5, 4)]),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, (2, 2, 3)),
                            lambda r: [distinct(r, 2, 3, 5, 4)]),
    "affine_grid": (lambda t: F.affine_grid(t, (2, 3, 4, 5), align_corners=False),
                    lambda r: [randn(r, 2, 2, 3)]),
    "grid_sample_bilinear": (lambda x, g: F.grid_sample(x, g, align_corners=False),
                             lambda r: [randn(r, 2, 2, 4, 5), _grid(r, 2, 3, 4, 2)]),
    "grid_sample_border": (lambda x, g: F.grid_sample(x, g * 1.3, padding_mode="border",
                                                      align_corners=True),
                           lambda r: [randn(r, 1, 2, 4, 5), _grid(r, 1, 3, 3, 2)]),
    "grid_sample_reflection": (lambda x, g: F.grid_sample(x, g * 1.4, align_corners=False,
                                                          padding_mode="reflection"),
                               lambda r: [randn(r, 1, 2, 4, 5), _grid(r, 1, 3, 3, 2)]),
    "grid_sample_nearest": (lambda x: F.grid_sample(x, Tensor(_grid(_rng("g"), 1, 3, 3, 2)),
                                                    mode="nearest", align_corners=False),
                            lambda r: [randn(r, 1, 2, 4, 5)]),
    "fractional_max_pool2d": (lambda x: F.fractional_max_pool2d(
        x, 2, output_size=(3, 2), _random_samples=Tensor(np.array([[[0.3, 0.8], [0.6, 0.1]]]))),
        lambda r: [distinct(r, 1, 2, 5, 4)]),
    "fractional_max_pool3d": (lambda x: F.fractional_max_pool3d(
        x, 2, output_size=(2, 2, 3), _random_samples=Tensor(np.array([[[0.3, 0.8, 0.5]]]))),
        lambda r: [distinct(r, 1, 1, 4, 3, 4)]),
    "pdist": (lambda x: F.pdist(x), lambda r: [randn(r, 5, 3)]),
    "pdist_p1": (lambda x: F.pdist(x, 1), lambda r: [randn(r, 4, 3)]),
    "pdist_p3": (lambda x: F.pdist(x, 3), lambda r: [randn(r, 4, 9)]),
}

SECOND_ORDER = ["fractional_max_pool2d", "fractional_max_pool3d", "conv3d",
                "conv3d_groups_dilated", "conv_transpose3d", "max_pool3d", "adaptive_avg_pool3d",
                "adaptive_max_pool3d"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)


VOL = "img.unsqueeze(-1).expand(2, 3, 5, 5, 3)"
TORCH_CASES = [
    f"F.conv3d({VOL}, ker[:2].unsqueeze(-1).expand(2, 3, 3, 3, 2), b4[:2])",
    f"F.conv3d({VOL}[:1], ker.unsqueeze(2), stride=2, padding=(1, 0, 1))",
    f"F.conv3d({VOL}, ker[:2, :1].unsqueeze(2), groups=3, padding='same')",
    f"F.conv3d({VOL}, ker[:3, :1].unsqueeze(2), groups=3, padding='same')",
    f"F.conv3d({VOL}[0], ker.unsqueeze(2))",
    f"F.conv3d({VOL}.to(torch.float64), ker.to(torch.float64)[:2].unsqueeze(2), "
    "dilation=(1, 2, 1))",
    f"F.conv3d({VOL}, ker.unsqueeze(2)[:, :2])",
    f"F.conv3d({VOL}, ker)",
    f"F.conv_transpose3d({VOL}, ker[:3].unsqueeze(2), b4, stride=2, output_padding=1)",
    f"F.conv_transpose3d({VOL}.to(torch.float64), "
    "ker[:3, :2].to(torch.float64).unsqueeze(2), groups=3)",
    f"F.conv_transpose3d({VOL}, ker[:3].unsqueeze(2), output_padding=1)",
    f"F.max_pool3d({VOL}, 2)", f"F.max_pool3d({VOL}, (2, 3, 1), stride=1, padding=1)",
    f"F.max_pool3d({VOL}, 2, return_indices=True)",
    f"F.max_pool3d({VOL}[0], 2, ceil_mode=True, dilation=(2, 1, 1))",
    f"F.max_pool3d_with_indices({VOL}, 3, 2)", f"torch.max_pool3d({VOL}, 2)",
    f"F.max_pool3d({VOL}, 2, padding=2)", "F.max_pool3d(img, 2)", "F.max_pool3d(x, 2)",
    "torch.max_pool2d(img, 2)", "torch.max_pool1d_with_indices(seq, 2)",
    "F.max_pool2d_with_indices(img, 2)", "F.max_pool1d_with_indices(seq, 3, 2)",
    "F.adaptive_max_pool1d_with_indices(seq, 3)", "F.adaptive_max_pool2d_with_indices(img, 2)",
    f"F.adaptive_avg_pool3d({VOL}, (2, 3, 2))", f"F.adaptive_avg_pool3d({VOL}, 1)",
    f"F.adaptive_avg_pool3d({VOL}[0], (None, 2, 4))", "F.adaptive_avg_pool3d(x, 2)",
    f"F.adaptive_avg_pool3d({VOL}, (1, 2))",
    f"F.adaptive_max_pool3d({VOL}, (2, 3, 2), return_indices=True)",
    f"F.adaptive_max_pool3d_with_indices({VOL}[0], 2)", "F.adaptive_max_pool3d(x, 2)",
    "F.affine_grid(B[:2, :2], (2, 3, 4, 5), align_corners=False)",
    "F.affine_grid(B[:2, :2].to(torch.float64), (2, 1, 1, 3), align_corners=True)",
    "F.affine_grid(B[:2, :2], (3, 3, 4, 5), align_corners=False)",
    "F.affine_grid(B[:2, :1], (2, 3, 4, 5), align_corners=False)",
    "F.affine_grid(B[:2, :2], (2, 3, 4), align_corners=False)",
    "F.affine_grid(B[:2, :2], (2, 3, 4, 5))",
    "F.grid_sample(img, torch.tanh(img[:, :2].permute(0, 2, 3, 1) * 2), align_corners=False)",
    "F.grid_sample(img, torch.tanh(C[:2, :, :4].reshape(2, 3, 2, 2) * 2), mode='nearest', "
    "padding_mode='border', align_corners=True)",
    "F.grid_sample(img.to(torch.float64), C[:2, :, :4].reshape(2, 3, 2, 2).to(torch.float64) * 2, "
    "padding_mode='reflection', align_corners=False)",
    "F.grid_sample(img, C[:2, :, :4].reshape(2, 3, 2, 2) * 2, padding_mode='reflection', "
    "align_corners=True)",
    "F.grid_sample(img, C[:2, :, :4].reshape(2, 3, 2, 2))",
    "F.grid_sample(img, C[:2, :, :4].reshape(2, 3, 2, 2), mode='area', align_corners=False)",
    "F.grid_sample(img, C[:2, :, :4].reshape(2, 3, 2, 2), padding_mode='same', "
    "align_corners=False)",
    "F.grid_sample(img, C[:2, :, :3].reshape(2, 3, 1, 3), align_corners=False)",
    "F.grid_sample(img, C[:2, :, :4].reshape(2, 3, 2, 2).to(torch.float64), align_corners=False)",
    "F.pdist(img[0, 0])", "F.pdist(seq[0], 1)", "torch.pdist(C[0], float('inf'))",
    "F.pdist(x.t(), 0)", "F.pdist(C[0].to(torch.float64), 2.5)", "F.pdist(v)", "F.pdist(tgt4[0])",
    "F.pdist(x, -1)", "F.selu_(x * 1)", "torch.alpha_dropout(x, 0.5, False)",
]


@pytest.mark.parametrize("code", TORCH_CASES)
def test_matches_torch(code: str) -> None:
    pytest.importorskip("torch")
    from test_ops_torch_diff import check_case

    check_case(code)
