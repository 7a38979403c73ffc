"""torch.triangular_solve (deprecated): A X = B (or Aᵀ X = B) for triangular A through BLAS
?trsm as linalg.solve_triangular, returning the solution and a copy of A from one node
(TriangularSolveBackward0, torch's triangular_solve_backward)."""
from __future__ import annotations

import numpy as np

from ...errors import TorchRuntimeError
from .. import lapack
from ..formulas import vjp
from ..node import Function
from ..shapes import broadcast_shapes
from ..tensor import Tensor
from ._util import not_implemented
from .creation import WARNINGS, OnceWarning
from .linalg import matmul
from .matrices import tril, triu
from .reductions import ReturnTypes
from .views import mT, sum_to

DEPRECATION = (
    "UserWarning: torch.triangular_solve is deprecated in favor of "
    "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
    "torch.linalg.solve_triangular has its arguments reversed and does not return a copy of "
    "one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B). (Triggered internally at /__w/pytorch/pytorch/"
    "aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)")


class TriangularSolveReturn(ReturnTypes):
    __slots__ = ()
    type_name = "triangular_solve"
    fields = ("solution", "cloned_coefficient")


def _check(b: Tensor, a: Tensor) -> None:
    if b.array.ndim < 2:
        raise TorchRuntimeError("torch.triangular_solve: Expected b to have at least 2 "
                                f"dimensions, but it has {b.array.ndim} dimensions instead")
    if a.array.ndim < 2:
        raise TorchRuntimeError("torch.triangular_solve: Expected A to have at least 2 "
                                f"dimensions, but it has {a.array.ndim} dimensions instead")
    rows, cols = a.array.shape[-2:]
    if rows != cols:
        raise TorchRuntimeError(
            f"A must be batches of square matrices, but they are {rows} by {cols} matrices")
    if b.dtype is not a.dtype:
        raise TorchRuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b.dtype.tensor_type[:-6]} and A of type {a.dtype.tensor_type[:-6]} instead.")
    if b.array.shape[-2] != rows:
        raise TorchRuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {rows} by "
            f"{cols} but each b matrix is {b.array.shape[-2]} by {b.array.shape[-1]}")
    if not b.dtype.is_floating_point:
        raise not_implemented("triangular_solve_cpu", b.dtype)


class TriangularSolveBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (
        vjp("self", "{A}⁻ᵀ @ {grad}[0]", when=(("transpose", False),)),
        vjp("self", "{A}⁻¹ @ {grad}[0]"),
        vjp("A", "-({A}⁻ᵀ @ {grad}[0]) @ {solution}ᵀ + {grad}[1]", when=(("transpose", False),)),
        vjp("A", "-{solution} @ ({A}⁻¹ @ {grad}[0])ᵀ + {grad}[1]"),
    )

    def forward(self, b: Tensor, a: Tensor, upper: bool, transpose: bool,
                unitriangular: bool) -> list[np.ndarray]:
        _check(b, a)
        self.save("A", a)
        self.save("self", b)
        self.save_attr(transpose=transpose, unitriangular=unitriangular, upper=upper)
        batch = broadcast_shapes(b.array.shape[:-2], a.array.shape[:-2])
        aa = np.broadcast_to(a.array, batch + a.array.shape[-2:])
        bb = np.broadcast_to(b.array, batch + b.array.shape[-2:])
        # torch hands ?trsm a column-major copy of A, with trans='T' for Aᵀ X = B: a
        # column-major A is trsm's 'N'; the row-major buffer of Aᵀ (the same memory) its 'T'
        solve_with = (np.ascontiguousarray(np.swapaxes(aa, -1, -2)) if transpose
                      else lapack.column_major(np.array(aa)))
        x = lapack.trsm(solve_with, bb, upper != transpose, True, unitriangular)
        return [lapack.column_major(x), lapack.column_major(np.array(aa))]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("solution", outputs[0], is_output=True)

    def backward(self, g_x: Tensor | None, g_m: Tensor | None
                 ) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        upper, transpose, unit = at["upper"], at["transpose"], at["unitriangular"]
        a, b, x = self.unpack("A"), self.unpack("self"), self.unpack("solution")
        g_b = g_a = None
        if g_x is not None:
            g_b = triangular_solve(g_x, a, upper, not transpose, unit, warn=False)[0]
            if self.needs_input_grad(1):
                g_a = -matmul(x, mT(g_b)) if transpose else -matmul(g_b, mT(x))
                g_a = triu(g_a, int(unit)) if upper else tril(g_a, -int(unit))
        if g_a is None:
            g_a = Tensor._wrap(np.zeros(1, a.array.dtype)).expand(*a.array.shape)
        if g_b is None:
            g_b = Tensor._wrap(np.zeros(1, b.array.dtype)).expand(*b.array.shape)
        if self.needs_input_grad(1) and g_m is not None:
            g_a = g_a + g_m
        return (sum_to(g_b, b.array.shape) if self.needs_input_grad(0) else None,
                sum_to(g_a, a.array.shape) if self.needs_input_grad(1) else None)


def triangular_solve(b: Tensor, a: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, warn: bool = True) -> TriangularSolveReturn:
    if warn:
        WARNINGS.append(OnceWarning(DEPRECATION, "triangular_solve"))
    return TriangularSolveReturn(*TriangularSolveBackward0.call(
        b, a, upper=upper, transpose=transpose, unitriangular=unitriangular))


def _triangular_solve(b: Tensor, a: Tensor, upper: bool = True, transpose: bool = False,
                      unitriangular: bool = False) -> TriangularSolveReturn:
    """What a script calls: no `warn` keyword."""
    return triangular_solve(b, a, upper, transpose, unitriangular)


TENSOR_METHODS = {"triangular_solve": _triangular_solve}
