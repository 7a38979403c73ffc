"""engine/glibc.py against this machine's libm, element for element: the scalar functions
torch's tails and `default` kernels call (`std::exp` on a float is glibc's expf, ...).

The emulations follow glibc 2.28-2.40 (Arm's double-evaluated expf, fdlibm's float
expm1f, log1pf, tanhf, erff); glibc 2.41 replaced several with CORE-MATH's correctly
rounded code, so the test runs only where the C library is a glibc of those versions.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

from gradtrace.engine import glibc


def _glibc_version() -> tuple[int, int] | None:
    try:
        name, version = os.confstr("CS_GNU_LIBC_VERSION").split()
    except (AttributeError, ValueError, OSError):
        return None
    major, minor = version.split(".")[:2]
    return (int(major), int(minor)) if name == "glibc" else None


VERSION = _glibc_version()
pytestmark = pytest.mark.skipif(
    VERSION is None or not (2, 28) <= VERSION < (2, 41),
    reason=f"the emulations follow glibc 2.28-2.40; this C library is {VERSION}")


def _points() -> np.ndarray:
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(4000) * s for s in (1e-3, 0.3, 1, 3, 30)])
    mags = 10 ** rng.uniform(-45, 38.5, 4000) * rng.choice([-1, 1], 4000)
    special = [0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 88.72283, 88.72284, -1,
               -0.9999999, 0.41422, -0.2929, 22, -22, 9, 1, 6, -6, 0.84375, 1.25]
    return np.concatenate([x, mags, special]).astype(np.float32)


def _libm(name: str, *args: np.ndarray) -> np.ndarray:
    fn = getattr(ctypes.CDLL("libm.so.6"), name)
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float] * len(args)
    return np.array([fn(*(float(a) for a in vals)) for vals in zip(*args)], np.float32)


def _same(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    return (ours.view(np.uint32) == theirs.view(np.uint32)) | (np.isnan(ours) &
                                                                np.isnan(theirs))


@pytest.mark.parametrize("name", ["expf", "expm1f", "log1pf", "tanhf", "erff"])
def test_unary_function_matches_libm_bit_for_bit(name):
    x = _points()
    ours = getattr(glibc, name)(x)
    theirs = _libm(name, x)
    bad = ~_same(ours, theirs)
    assert not bad.any(), list(zip(x[bad][:5], ours[bad][:5], theirs[bad][:5]))


@pytest.mark.parametrize("exponent", [1.7, -1.3, 0.25, 3.0])
def test_powf_is_libms(exponent):
    x = np.abs(_points())
    y = np.full_like(x, exponent)
    assert _same(glibc.powf(x, y), _libm("powf", x, y)).all()
