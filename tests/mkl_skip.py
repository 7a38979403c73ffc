"""The one skip reason of every test that needs torch's MKL: torch computes exp, log, sin,
cos, tanh, sqrt, erf, ... with MKL's VML, whose bits only the same MKL build reproduces."""
from __future__ import annotations

import pytest

from gradtrace.engine import kernels

MISSING = kernels.mkl_unavailable_reason()
REASON = f"needs torch's MKL (VML computes exp, log, sin, cos, tanh, sqrt, ...): {MISSING}"
needs_mkl = pytest.mark.skipif(bool(MISSING), reason=REASON)
