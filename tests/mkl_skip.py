"""The one skip reason of every test that needs torch's MKL: torch computes exp, log, sin,
cos, tanh, sqrt, erf, ... with MKL's VML, whose bits only the same MKL build reproduces.
And the one of every test whose MKL bits were recorded on an AMD CPU: MKL runs its generic
kernels there and its own elsewhere (an Intel CPU), in torch and in gradtrace alike."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gradtrace.engine import kernels

sys.path.insert(0, str(Path(__file__).parent / "tools"))
from record_conformance import cpu_vendor, other_mkl_kernels  # noqa: E402

MISSING = kernels.mkl_unavailable_reason()
REASON = f"needs torch's MKL (VML computes exp, log, sin, cos, tanh, sqrt, ...): {MISSING}"
needs_mkl = pytest.mark.skipif(bool(MISSING), reason=REASON)

OTHER_KERNELS = other_mkl_kernels()
OTHER_KERNELS_REASON = (
    f"torch's MKL bits here were recorded on an AMD CPU (MKL's generic kernels); this "
    f"{cpu_vendor() or 'unknown'} CPU runs MKL's own kernels, in torch and gradtrace alike")
recorded_mkl_kernels = pytest.mark.skipif(OTHER_KERNELS, reason=OTHER_KERNELS_REASON)

MODELLED_ORDER_REASON = (
    f"gradtrace reproduces the order of MKL's generic kernels (what torch runs on an AMD CPU) "
    f"for these products and factorizations; this {cpu_vendor() or 'unknown'} CPU runs MKL's "
    "own kernels, whose order is not modelled")
"""Why a live-torch test of MKL's BLAS/LAPACK order skips on an Intel CPU."""
