"""gradtrace: see what PyTorch's autograd does, step by step, without PyTorch."""
from __future__ import annotations

import os
import re
import sys
from typing import Any

from .collector import paused

__version__ = "0.1.0"

# numpy's AVX-512 loops (and only those) compute float64 exp, log, log1p, expm1, ... with
# their own approximations instead of calling libm, so on an AVX-512 CPU they differ from
# glibc, and from torch's scalar kernels, in the last bit of about one result in ten
# (the float64 special functions, torch.special, the samplers). With them switched off,
# numpy computes what it computes on an AVX2 CPU. numpy reads the switch once, when it is
# first imported, and the variable is removed again so that child processes (torch under
# `check`) see the user's environment.
def _numpy_avx512_features() -> str:
    """numpy's names for its AVX-512 dispatch targets (grouped as X86_V4 from numpy 2.4)."""
    # numpy's own version.py, read without importing numpy (which must not be imported
    # yet) or importlib.metadata (~25 ms of start-up)
    from importlib.util import find_spec

    try:
        spec = find_spec("numpy")
        text = os.path.join(os.path.dirname(spec.origin), "version.py")  # type: ignore[union-attr]
        with open(text, encoding="utf-8") as f:
            match = re.search(r'^version(?:: str)? = "(\d+)\.(\d+)', f.read(), re.M)
        major, minor = int(match[1]), int(match[2])  # type: ignore[index]
    except (AttributeError, OSError, TypeError, ValueError):
        return ""
    if (major, minor) >= (2, 4):
        return "X86_V4 AVX512_ICL AVX512_SPR"
    return ("AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL "
            "AVX512_ICL" + (" AVX512_SPR" if (major, minor) >= (2, 3) else ""))


if "numpy" not in sys.modules and "NPY_DISABLE_CPU_FEATURES" not in os.environ:
    os.environ["NPY_DISABLE_CPU_FEATURES"] = _numpy_avx512_features()
    try:
        with paused():  # numpy's import: ~40,000 objects and no garbage
            import numpy  # noqa: F401
    finally:
        del os.environ["NPY_DISABLE_CPU_FEATURES"]


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext gradtrace`: the `%%gradtrace` cell magic (see gradtrace/notebook.py)."""
    from .notebook import load_ipython_extension as load

    load(ipython)
