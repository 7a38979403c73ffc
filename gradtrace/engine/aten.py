"""torch's own vector formulas (Vectorized<float> members that are not SLEEF calls), step
for step in numpy, for the AVX2/AVX-512 builds (ATen/cpu/vec/vec256/vec256_float.h):
every `_mm256_fmadd_ps` is a float32 fused multiply-add. Take and return float32 arrays.
"""
from __future__ import annotations

import numpy as np

from . import sleef
from .fp32 import fma

_F = np.float32
_ONE = _F(1)
_P = _F(0.3275911)
_ERF_POLY = [_F(v) for v in (1.061405429, -1.453152027, 1.421413741, -0.284496736,
                             0.254829592)]


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorized<float>::erf: Abramowitz and Stegun 7.1.26 with SLEEF's expf."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        sign = x.view(np.int32) & np.int32(-2**31)
        ax = np.abs(x)
        t = _ONE / fma(np.full_like(ax, _P), ax, _ONE)
        r = np.full_like(t, _ERF_POLY[0])
        for c in _ERF_POLY[1:]:
            r = fma(r, t, c)
        e = -sleef.expf(-(x * x))
        y = fma(e * t, r, _ONE)
        return (y.view(np.int32) ^ sign).view(np.float32)
