"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve: Bunch-Kaufman LDLᵀ through MKL's
?sytrf / ?sytrs as torch's CPU kernels call them (engine/lapack.py). torch has no
derivative for either: their node is torch::autograd::NotImplemented, whose next_functions
are the inputs that require grad and whose backward raises."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import ScriptError, TorchIndexError, TorchRuntimeError
from .. import lapack
from ..formulas import undefined
from ..node import Function
from ..shapes import broadcast_shapes
from ..tensor import Tensor
from .decompositions import check_matrices, named_return, wrap_result
from .lu import lapack_dtype
from .reductions import ReturnTypes

LdlFactorReturn = named_return("linalg_ldl_factor", "LD", "pivots")
LdlFactorExReturn = named_return("linalg_ldl_factor_ex", "LD", "pivots", "info")


class LdlFactorNotImplemented(Function):
    """The NotImplemented node of ldl_factor_ex: the result comes computed beside the inputs
    that require grad."""

    __slots__ = ()
    formulas = (undefined("input", each=True),)
    op = "linalg_ldl_factor_ex"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def forward(self, *differentiable: Tensor, value: np.ndarray) -> np.ndarray:
        return value

    def backward(self, grad: Tensor) -> Any:
        raise TorchRuntimeError(f"derivative for aten::{self.op} is not implemented")


class LdlSolveNotImplemented(LdlFactorNotImplemented):
    """The NotImplemented node of ldl_solve."""

    __slots__ = ()
    op = "linalg_ldl_solve"


LdlFactorNotImplemented.__name__ = LdlSolveNotImplemented.__name__ = "NotImplemented"


def _record(value: np.ndarray, node: type[Function], *inputs: Tensor) -> Tensor:
    return node.call(*[t for t in inputs if t.requires_grad], value=value)


def _unknown_error(info: np.ndarray, fname: str) -> None:
    """torch's _linalg_check_errors has no text for sytrf's info > 0 (a zero pivot): it
    fails its own assert."""
    if (info > 0).any():
        code = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
        raise TorchRuntimeError(
            'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
            'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
            f"{fname}: Unknown error code: {code}.")


def _check(a: Tensor, fname: str, kernel: str) -> None:
    """check_matrices, except that float16 and bfloat16 pass it and then find no kernel."""
    low = a.dtype.is_floating_point and a.array.dtype not in (np.float32, np.float64)
    check_matrices(Tensor._wrap(np.zeros(a.array.shape, np.float32)) if low else a, fname)
    lapack_dtype(a, kernel)


def _factor(a: Tensor, check_errors: bool, fname: str) -> tuple[Tensor, Tensor, Tensor]:
    _check(a, "torch.linalg.ldl_factor_ex", "ldl_factor_kernel_cpu")
    ld, piv, info = lapack.sytrf(a.array)
    if check_errors:
        _unknown_error(info, fname)
    out = _record(lapack.column_major(ld), LdlFactorNotImplemented, a)
    return out, wrap_result(piv), wrap_result(info)


def ldl_factor_ex(a: Tensor, *, hermitian: bool = False, check_errors: bool = False
                  ) -> ReturnTypes:
    """(For real matrices hermitian changes nothing: both are ?sytrf.)"""
    return LdlFactorExReturn(*_factor(a, check_errors, "torch.linalg.ldl_factor_ex"))


def ldl_factor(a: Tensor, *, hermitian: bool = False) -> ReturnTypes:
    return LdlFactorReturn(*_factor(a, True, "torch.linalg.ldl_factor")[:2])


def ldl_solve(ld: Tensor, pivots: Tensor, b: Tensor, *, hermitian: bool = False) -> Tensor:
    fname = "torch.linalg.ldl_solve"
    _check(ld, fname, "ldl_solve_kernel_cpu")
    if b.array.ndim < 2:
        raise TorchIndexError(f"Dimension out of range (expected to be in range of "
                              f"[{-max(b.array.ndim, 1)}, {max(b.array.ndim, 1) - 1}], but got -2)")
    n = ld.array.shape[-1]
    if b.array.shape[-2] != n:
        raise TorchRuntimeError(
            f"Incompatible matrix sizes for {fname}: each A matrix is {n} by {n} but each b "
            f"matrix is {b.array.shape[-2]} by {b.array.shape[-1]}")
    if b.dtype is not ld.dtype:
        raise TorchRuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b.dtype.tensor_type[:-6]} and A of type {ld.dtype.tensor_type[:-6]} instead.")
    if pivots.array.shape != ld.array.shape[:-1]:
        raise TorchRuntimeError(
            f"{fname}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
            f"with shape {list(pivots.array.shape)} instead")
    if not np.issubdtype(pivots.array.dtype, np.integer):
        raise ScriptError(f"{fname}: pivots must be an integer tensor",
                          kind="RuntimeError")
    batch = broadcast_shapes(ld.array.shape[:-2], b.array.shape[:-2])
    ld_b = np.broadcast_to(ld.array, batch + ld.array.shape[-2:])
    piv_b = np.broadcast_to(pivots.array, batch + pivots.array.shape[-1:])
    b_b = np.broadcast_to(b.array, batch + b.array.shape[-2:])
    x = lapack.column_major(lapack.sytrs(ld_b, piv_b, b_b))
    return _record(x, LdlSolveNotImplemented, ld, b)


LINALG_FUNCTIONS = {"ldl_factor": ldl_factor, "ldl_factor_ex": ldl_factor_ex,
                    "ldl_solve": ldl_solve}
