"""gradtrace: see what PyTorch's autograd does, step by step, without PyTorch."""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext gradtrace`: the `%%gradtrace` cell magic (see gradtrace/notebook.py)."""
    from .notebook import load_ipython_extension as load

    load(ipython)
