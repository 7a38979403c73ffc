"""torch.cholesky_solve and torch.cholesky_inverse (and their Tensor methods): A X = B and
A⁻¹ from A's Cholesky factor, through MKL's ?potrs / ?potri as torch's CPU kernels call them
(lapack.potrs, lapack.potri), with CholeskySolveBackward0 / CholeskyInverseBackward0 (torch's
cholesky_solve_backward, cholesky_inverse_backward)."""
from __future__ import annotations

import numpy as np

from ...errors import TorchRuntimeError
from .. import lapack
from ..formulas import vjp
from ..node import Function
from ..shapes import broadcast_shapes
from ..tensor import Tensor
from ._util import not_implemented
from .linalg import matmul
from .views import mT, sum_to


def _check(b: Tensor, factor: Tensor) -> None:
    if b.array.ndim < 2:
        raise TorchRuntimeError(
            f"b should have at least 2 dimensions, but has {b.array.ndim} dimensions instead")
    if factor.array.ndim < 2:
        raise TorchRuntimeError(
            f"u should have at least 2 dimensions, but has {factor.array.ndim} dimensions "
            "instead")
    if b.dtype is not factor.dtype:
        raise TorchRuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{b.dtype.tensor_type[:-6]} and A of type {factor.dtype.tensor_type[:-6]} "
            "instead.")
    rows, cols = factor.array.shape[-2:]
    if rows != cols:
        raise TorchRuntimeError(
            f"A must be batches of square matrices, but they are {rows} by {cols} matrices")
    if b.array.shape[-2] != rows:
        raise TorchRuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {rows} by {cols} "
            f"but each b matrix is {b.array.shape[-2]} by {b.array.shape[-1]}")
    if not b.dtype.is_floating_point:
        raise not_implemented("cholesky_solve_cpu", b.dtype)


class CholeskySolveBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("self", "{grad}.cholesky_solve({input2}, {upper})"),
        vjp("input2", "-({grad}.cholesky_solve({input2}) @ {result}ᵀ + {result} @ "
                      "{grad}.cholesky_solve({input2})ᵀ) @ {input2}", when=(("upper", False),)),
        vjp("input2", "-{input2} @ ({grad}.cholesky_solve({input2}, upper=True) @ {result}ᵀ + "
                      "{result} @ {grad}.cholesky_solve({input2}, upper=True)ᵀ)"),
    )

    def forward(self, b: Tensor, factor: Tensor, upper: bool = False) -> np.ndarray:
        _check(b, factor)
        self.save("self", b)
        self.save("input2", factor)
        self.save_attr(upper=upper)
        batch = broadcast_shapes(b.array.shape[:-2], factor.array.shape[:-2])
        bb = np.broadcast_to(b.array, batch + b.array.shape[-2:])
        ff = np.broadcast_to(factor.array, batch + factor.array.shape[-2:])
        return lapack.column_major(lapack.potrs(ff, bb, upper))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        upper = self.attrs["upper"]
        factor, result = self.unpack("input2"), self.unpack("result")
        g_self = cholesky_solve(grad, factor, upper)
        g_factor = None
        if self.needs_input_grad(1):
            common = matmul(g_self, mT(result))
            common = common + mT(common)
            g_factor = -matmul(factor, common) if upper else -matmul(common, factor)
            g_factor = sum_to(g_factor, factor.array.shape)
        g_b = sum_to(g_self, self.input_meta[0][0]) if self.needs_input_grad(0) else None
        return g_b, g_factor


def cholesky_solve(b: Tensor, factor: Tensor, upper: bool = False) -> Tensor:
    return CholeskySolveBackward0.call(b, factor, upper=upper)


class CholeskyInverseBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("self", "-({result} @ ({grad} + {grad}ᵀ) @ {result}) @ {self}",
            when=(("upper", False),)),
        vjp("self", "-{self} @ ({result} @ ({grad} + {grad}ᵀ) @ {result})"),
    )

    def forward(self, factor: Tensor, upper: bool = False) -> np.ndarray:
        if factor.array.ndim < 2:
            raise TorchRuntimeError(
                "cholesky_inverse: The input tensor A must have at least 2 dimensions.")
        rows, cols = factor.array.shape[-2:]
        if rows != cols:
            raise TorchRuntimeError("cholesky_inverse: A must be batches of square matrices, "
                                    f"but they are {rows} by {cols} matrices")
        if not factor.dtype.is_floating_point:
            raise not_implemented("cholesky_inverse_out_cpu", factor.dtype)
        self.save("self", factor)
        self.save_attr(upper=upper)
        return lapack.column_major(lapack.potri(factor.array, upper))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        factor, inverse = self.unpack("self"), self.unpack("result")
        common = matmul(inverse, matmul(grad + mT(grad), inverse))
        return -matmul(factor, common) if self.attrs["upper"] else -matmul(common, factor)


def cholesky_inverse(factor: Tensor, upper: bool = False) -> Tensor:
    return CholeskyInverseBackward0.call(factor, upper=upper)


TENSOR_METHODS = {"cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse}
