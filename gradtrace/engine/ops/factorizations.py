"""The tables of torch.linalg's LU, matrix-exponential and Householder families (lu.py,
matrix_exp.py, householder.py, tensor_linalg.py), gathered in one place for ops/__init__.py
and api.py."""
from __future__ import annotations

from typing import Any

from . import householder, ldl, lu, matrix_exp, tensor_linalg

_MODULES = (lu, matrix_exp, tensor_linalg, householder, ldl)

LINALG_FUNCTIONS: dict[str, Any] = {}
TENSOR_METHODS: dict[str, Any] = {}
TORCH_FUNCTIONS: dict[str, Any] = {}
for _module in _MODULES:
    LINALG_FUNCTIONS.update(getattr(_module, "LINALG_FUNCTIONS", {}))
    TENSOR_METHODS.update(getattr(_module, "TENSOR_METHODS", {}))
    TORCH_FUNCTIONS.update(getattr(_module, "TORCH_FUNCTIONS", {}))
