"""SLEEF's float32 vector functions (the `Sleef_*f8_u10` torch's AVX2/AVX-512 kernels call),
step for step in numpy.

SLEEF is built with FMA on these targets: every `vmla` is a float32 fused multiply-add
(`fp32.fma`); every other operation is a plain float32 numpy operation, which rounds as
the vector instruction does. Algorithms: SLEEF 3.x `sleefsimdsp.c` (Boost licence).
Functions take and return float32 arrays.
"""
from __future__ import annotations

import numpy as np

from .fp32 import fma

F = np.float32
_R_LN2 = F(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F(0.693145751953125)
_L2L = F(1.428606765330187045e-06)
_EXP_POLY = [F(c) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5)]


def pow2i(q: np.ndarray) -> np.ndarray:
    """vpow2i_vf_vi2: 2**q as float32 for int32 q in [-126, 127], built from its bits."""
    return ((q + 127) << 23).view(np.float32)


def ldexp2(u: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp2_vf_vf_vi2: u * 2**(q>>1) * 2**(q - (q>>1)), two float32 products."""
    half = q >> 1
    return u * pow2i(half) * pow2i(q - half)


def rint_i32(x: np.ndarray) -> np.ndarray:
    """vrint_vi2_vf (cvtps2dq): round half to even; NaN and out-of-range give INT_MIN."""
    with np.errstate(invalid="ignore"):
        r = np.rint(x)
        bad = ~(np.abs(r) < 2.0 ** 31)
        q = r.astype(np.int32)
    if bad.any():
        q[bad] = np.iinfo(np.int32).min
    return q


def expf(d: np.ndarray) -> np.ndarray:
    """Sleef_expf8_u10 (xexpf)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        q = rint_i32(d * _R_LN2)
        qf = q.astype(np.float32)
        s = fma(qf, -_L2U, d)
        s = fma(qf, -_L2L, s)
        u = np.full_like(s, _EXP_POLY[0])
        for c in _EXP_POLY[1:]:
            u = fma(u, s, c)
        u = F(1) + fma(s * s, u, s)
        # |q| > 150 only where d is out of range and replaced below
        u = ldexp2(u, np.clip(q, -150, 150))
        u[d < -104] = 0
        u[d > 100] = np.inf
    return u
