"""Issue 12's nn additions: F.interpolate(mode='bicubic') (UpsampleBicubic2DBackward0),
3-D F.affine_grid,
antialiased bilinear/bicubic (UpsampleBilinear2DAaBackward0, UpsampleBicubic2DAaBackward0) and
F.grid_sample on 5-d input (GridSampler3DBackward0). Finite-difference checks in float64
(second order where the backward is differentiable), then differential tests against live
PyTorch (values, gradients, nodes, saved values and errors), skipped without torch. The
library modules (AdaptiveLogSoftmaxWithLoss, LKJCholesky, Wishart) are checked by the
torch-recorded conformance cases tests/conformance_extra/nnmore_*.gt."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ops_helpers import F, finite_difference_tests
from test_gradcheck import randn

from gradtrace.engine.tensor import Tensor


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([2026, 12, sum(map(ord, name))])


def _grid(r: np.random.Generator, *shape: int) -> np.ndarray:
    """Sampling locations away from the voxel boundaries (where trilinear is not smooth)."""
    return r.uniform(-0.9, 0.9, shape) * 0.97 + 0.011


CASES = {
    "bicubic_up": (lambda x: F.interpolate(x, size=(5, 7), mode="bicubic"),
                   lambda r: [randn(r, 2, 2, 3, 4)]),
    "bicubic_down_align_corners": (
        lambda x: F.interpolate(x, size=(3, 2), mode="bicubic", align_corners=True),
        lambda r: [randn(r, 1, 2, 6, 5)]),
    "bicubic_scale_factor": (
        lambda x: F.interpolate(x, scale_factor=(1.5, 0.7), mode="bicubic"),
        lambda r: [randn(r, 1, 1, 4, 6)]),
    "bilinear_antialias": (
        lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", antialias=True),
        lambda r: [randn(r, 1, 2, 7, 9)]),
    "bicubic_antialias": (
        lambda x: F.interpolate(x, size=(4, 2), mode="bicubic", antialias=True,
                                align_corners=True),
        lambda r: [randn(r, 2, 1, 9, 6)]),
    "bicubic_antialias_up": (
        lambda x: F.interpolate(x, scale_factor=(1.5, 0.5), mode="bicubic", antialias=True),
        lambda r: [randn(r, 1, 1, 4, 8)]),
    "affine_grid_3d": (lambda t: F.affine_grid(t, (2, 3, 2, 3, 4), align_corners=False),
                       lambda r: [randn(r, 2, 3, 4)]),
    "affine_grid_3d_grid_sample": (
        lambda x, t: F.grid_sample(x, F.affine_grid(t, (1, 2, 3, 2, 4), align_corners=True),
                                   align_corners=True),
        lambda r: [randn(r, 1, 2, 3, 3, 3), np.eye(3, 4)[None] * 0.83 + 0.013]),
    "grid_sample_3d_bilinear": (lambda x, g: F.grid_sample(x, g, align_corners=False),
                                lambda r: [randn(r, 2, 2, 3, 4, 3), _grid(r, 2, 2, 3, 2, 3)]),
    "grid_sample_3d_border": (lambda x, g: F.grid_sample(x, g * 1.3, padding_mode="border",
                                                         align_corners=True),
                              lambda r: [randn(r, 1, 2, 3, 4, 3), _grid(r, 1, 2, 2, 3, 3)]),
    "grid_sample_3d_reflection": (
        lambda x, g: F.grid_sample(x, g * 1.4, padding_mode="reflection", align_corners=False),
        lambda r: [randn(r, 1, 1, 3, 4, 5), _grid(r, 1, 3, 2, 2, 3)]),
    "grid_sample_3d_nearest": (
        lambda x: F.grid_sample(x, Tensor(_grid(_rng("g3"), 1, 2, 3, 2, 3)), mode="nearest",
                                align_corners=False),
        lambda r: [randn(r, 1, 2, 3, 4, 3)]),
}

SECOND_ORDER = ["bicubic_up", "bicubic_down_align_corners", "bilinear_antialias",
                "bicubic_antialias"]


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)


VOL = "img.unsqueeze(2).expand(2, 3, 3, 5, 5) * torch.arange(1., 4.).view(1, 1, 3, 1, 1)"
GRID = "torch.tanh(C[:2, :, :3].reshape(2, 1, 3, 3, 1).expand(2, 2, 3, 3, 3) * 2)"

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
    "F.interpolate(img, size=(3, 2), mode='bilinear', antialias=True)",
    "F.interpolate(img, size=(2, 4), mode='bicubic', antialias=True, align_corners=True)",
    "F.interpolate(img, scale_factor=0.45, mode='bicubic', antialias=True)",
    "F.interpolate(img.to(torch.float64), size=(3, 3), mode='bicubic', antialias=True)",
    "F.interpolate(img, size=(5, 1), mode='bilinear', antialias=True)",
    "F.interpolate(img, size=(4, 4), mode='lanczos', antialias=False)",
    "F.affine_grid(C[:2, :, :4], (2, 3, 4, 5, 6), align_corners=False)",
    "F.affine_grid(C[:2, :, :4].to(torch.float64), (2, 1, 2, 1, 3), align_corners=True)",
    "F.affine_grid(C[:2, :, :4], (2, 3, 4, 5, 6))",
    "F.affine_grid(C[:2, :, 1:], (2, 3, 4, 5, 6), align_corners=True)",
    "F.affine_grid(B[:2, :2], (2, 3, 4, 5, 6), align_corners=False)",
    "F.affine_grid(C[:1, :, :4], (2, 3, 4, 5, 6), align_corners=False)",
    f"F.grid_sample({VOL}, {GRID}, align_corners=False)",
    f"F.grid_sample({VOL}, {GRID} * 1.5, padding_mode='border', align_corners=True)",
    f"F.grid_sample({VOL}, {GRID} * 1.5, padding_mode='reflection', align_corners=False)",
    f"F.grid_sample({VOL}, {GRID} * 2, padding_mode='reflection', align_corners=True)",
    f"F.grid_sample({VOL}, {GRID} * 1.2, mode='nearest', align_corners=False)",
    f"F.grid_sample({VOL}, {GRID} * 1.2, mode='nearest', padding_mode='border')",
    f"F.grid_sample({VOL}.to(torch.float64), {GRID}.to(torch.float64), align_corners=True)",
    f"F.grid_sample({VOL}, {GRID}, mode='bicubic', align_corners=False)",
    f"F.grid_sample({VOL}, {GRID}[..., :2], align_corners=False)",
    f"F.grid_sample({VOL}, {GRID}[:1], align_corners=False)",
    f"F.grid_sample({VOL}, {GRID}.to(torch.float64), align_corners=False)",
    f"F.grid_sample({VOL}, img, align_corners=False)",
    f"F.grid_sample({VOL}, {GRID}[0], align_corners=False)",
    f"F.grid_sample({VOL}[:, :, :0], {GRID}, align_corners=False)",
]


@pytest.mark.parametrize("code", TORCH_CASES)
def test_matches_torch(code: str) -> None:
    pytest.importorskip("torch")
    from test_ops_torch_diff import check_case

    check_case(code)


ORTHOGONAL = Path(__file__).parent / "data" / "nnmore" / "orthogonal.gt"


def test_orthogonal_parametrization_prints_what_torch_printed() -> None:
    """nn.utils.parametrizations.orthogonal (every map, with and without trivialization,
    batched and conv weights, errors) against torch's recording; it needs the engine's
    geqrf, householder_product and matrix_exp (the linalg2 work), so it waits for them."""
    from gradtrace.engine import api

    missing = [name for name in ("geqrf", "matrix_exp") if name not in api.TORCH_FUNCTIONS]
    if missing:
        pytest.skip(f"the engine has no torch.{missing[0]} yet")
    from test_conformance import assert_matches_torch

    assert_matches_torch(ORTHOGONAL)
