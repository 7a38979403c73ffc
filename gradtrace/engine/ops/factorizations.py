"""The tables of torch.linalg's LU, matrix-exponential and Householder families (lu.py,
matrix_exp.py, householder.py, tensor_linalg.py), gathered in one place for ops/__init__.py
and api.py."""
from __future__ import annotations

from typing import Any

from . import lu

LINALG_FUNCTIONS: dict[str, Any] = {**lu.LINALG_FUNCTIONS}
TENSOR_METHODS: dict[str, Any] = {**lu.TENSOR_METHODS}
TORCH_FUNCTIONS: dict[str, Any] = {**lu.TORCH_FUNCTIONS}
