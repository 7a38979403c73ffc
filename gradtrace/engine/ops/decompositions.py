"""torch.linalg's triangular factorizations and what is built on them: det, slogdet,
logdet, inv, solve, solve_triangular, cholesky and qr, with torch 2.13's nodes
(LinalgDetBackward0, LinalgInvExBackward0, LinalgSolveExBackward0, ...), saved values,
checks and error texts (svd and eigh live in spectral.py).

The factorizations are MKL's LAPACK called as torch calls it (engine/lapack.py), so their
values are torch's bits. The backward formulas are FunctionsManual.cpp's
(linalg_det_backward, slogdet_backward, linalg_solve_backward, cholesky_backward,
linalg_qr_backward), written with the engine's own ops so that create_graph records their
graph.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import NotSupportedError, ScriptError, TorchRuntimeError
from .. import lapack
from ..formulas import vjp
from ..grad_mode import GRAD_MODE
from ..node import Function
from ..shapes import broadcast_shapes
from ..tensor import Tensor
from .linalg import matmul
from .matrices import diag_embed, diagonal, tril, triu
from .reductions import ReturnTypes
from .select_views import narrow
from .views import mT, squeeze, sum_to, unsqueeze


def named_return(type_name: str, *fields: str) -> type[ReturnTypes]:
    """A torch.return_types class, e.g. linalg_slogdet(sign, logabsdet)."""
    return type(f"{type_name}_return", (ReturnTypes,),
                {"__slots__": (), "type_name": type_name, "fields": fields})


SlogdetReturn = named_return("linalg_slogdet", "sign", "logabsdet")
TorchSlogdetReturn = named_return("slogdet", "sign", "logabsdet")
InvExReturn = named_return("linalg_inv_ex", "inverse", "info")
SolveExReturn = named_return("linalg_solve_ex", "result", "info")
CholeskyExReturn = named_return("linalg_cholesky_ex", "L", "info")
QrReturn = named_return("linalg_qr", "Q", "R")
TorchQrReturn = named_return("qr", "Q", "R")


def linalg_error(message: str) -> ScriptError:
    """torch.linalg.LinAlgError (torch._C._LinAlgError, a RuntimeError)."""
    return ScriptError(message, kind="_LinAlgError")


def check_matrices(a: Tensor, fname: str, square: bool = True, arg: str = "A",
                   complex_ok: bool = False) -> None:
    """squareCheckInputs and checkFloatingOrComplex, in torch's order; `complex_ok`: the
    op computes complex64/complex128 matrices too (as torch's every decomposition does;
    gradtrace's only where it was measured)."""
    if a.array.ndim < 2:
        raise TorchRuntimeError(
            f"{fname}: The input tensor {arg} must have at least 2 dimensions.")
    m, n = a.array.shape[-2:]
    if square and m != n:
        raise TorchRuntimeError(f"{fname}: {arg} must be batches of square matrices, but they "
                                f"are {m} by {n} matrices")
    if complex_ok and a.array.dtype in (np.complex64, np.complex128):
        return
    if not a.dtype.is_floating_point or a.array.dtype not in (np.float32, np.float64):
        if a.dtype.is_floating_point:
            raise NotSupportedError(f"{fname} of {a.dtype.name} tensors (only float32 and "
                                    "float64 are supported)")
        raise TorchRuntimeError(f"{fname}: Expected a floating point or complex tensor as "
                                f"input. Got {a.dtype.scalar_type}")


def wrap_result(array: np.ndarray) -> Tensor:
    """A result array as a tensor (a copy, row-major unless the op says otherwise)."""
    return Tensor._wrap(np.array(array, order="C"))


def _contiguous(a: Tensor) -> bool:
    return bool(a.array.flags.c_contiguous)


def batch_prefix(info: np.ndarray) -> tuple[int, str]:
    """The first failing batch element and torch's "(Batch element k): " prefix."""
    bad = np.flatnonzero(info.reshape(-1))
    k = int(bad[0]) if bad.size else 0
    return k, (f"(Batch element {k}): " if info.ndim else "")


def _sequential_prod(x: np.ndarray) -> np.ndarray:
    """Product over the last dim, left to right (ATen's prod of a strided diagonal)."""
    out = np.ones(x.shape[:-1], dtype=x.dtype)
    for i in range(x.shape[-1]):
        out = out * x[..., i]
    return np.asarray(out, dtype=x.dtype)


def _pivot_sign(piv: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """lu_det_P: the sign of the permutation getrf's pivots encode."""
    swaps = (piv != np.arange(1, piv.shape[-1] + 1, dtype=piv.dtype)).sum(-1)
    return np.where(swaps % 2 == 0, 1, -1).astype(dtype)


def _lu_of(a: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """det's factorization: of Aᵀ when A is contiguous (det Aᵀ = det A, and no copy to
    column-major is needed), else of A; torch saves it so."""
    x = np.swapaxes(a.array, -1, -2) if _contiguous(a) else a.array
    lu, piv, _ = lapack.getrf(x)
    return lu, piv


def _lu_solve_diag(node: Function, g: Tensor, nudge_zeros: bool) -> Tensor:
    """A⁻ᴴ diag(g) from the saved LU (det and slogdet's backward without create_graph),
    column-major as linalg_lu_solve returns it: the layout the next product reads (an
    Intel CPU's MKL runs other kernels for a transposed operand)."""
    a, lu, piv = node.unpack("A"), node.unpack("LU"), node.unpack("pivots")
    n = a.array.shape[-1]
    d = np.eye(n, dtype=lu.array.dtype) * np.asarray(g.array)[..., None, None]
    lu_arr = lu.array
    if nudge_zeros:  # det's C¹ extension to singular matrices: zero pivots become eps
        diag = np.diagonal(lu_arr, axis1=-2, axis2=-1)
        lu_arr = lu_arr + np.eye(n, dtype=lu_arr.dtype) * np.where(
            diag == 0, np.finfo(lu_arr.dtype).eps, 0).astype(lu_arr.dtype)[..., None, :]
    d = np.broadcast_to(d, lu_arr.shape[:-2] + (n, n)).copy()
    return Tensor._wrap(lapack.column_major(
        lapack.getrs(lu_arr, piv.array, d, transpose=not _contiguous(a))))


def _trace_a_inv(node: Function, a: Tensor, a_t: Tensor) -> Tensor:
    """tr(A⁻¹ A_t) from det's saved LU (of Aᵀ when A is contiguous: torch's use_A_T)."""
    from .lu import lu_solve

    solved = lu_solve(node.unpack("LU"), node.unpack("pivots"), a_t, left=True,
                      adjoint=_contiguous(a))
    return diagonal(solved, 0, -2, -1).sum(-1)


class LinalgDetBackward0(Function):
    __slots__ = ()
    formulas = (vjp("A", "{grad} × {result} × {A}⁻ᵀ"),)

    def forward(self, a: Tensor) -> np.ndarray:
        lu, piv = _lu_of(a)
        self.save("A", a)
        self.save("LU", wrap_result(lu))
        self.save("pivots", wrap_result(piv))
        diag = np.diagonal(lu, axis1=-2, axis2=-1)
        return _pivot_sign(piv, lu.dtype) * _sequential_prod(diag)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    jvp_reads_saved = True

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # linalg_det_jvp: lu_solve(LU, pivots, A_t, adjoint=use_A_T).diagonal().sum(-1) * det
        return _trace_a_inv(self, inputs[0], t[0]) * outs[0]

    def backward(self, grad: Tensor) -> Tensor:
        a, det = self.unpack("A"), self.unpack("result")
        if a.array.size == 0:
            return Tensor._wrap(np.zeros_like(a.array))
        d_diag = grad * det
        if not GRAD_MODE.enabled:
            return _lu_solve_diag(self, d_diag, True)
        eye = Tensor._wrap(np.eye(a.array.shape[-1], dtype=a.array.dtype))
        return linalg_solve(mT(a), unsqueeze(unsqueeze(d_diag, -1), -1) * eye)


def det(a: Tensor) -> Tensor:
    check_matrices(a, "linalg.det")
    return LinalgDetBackward0.call(a)


class LinalgSlogdetBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("A", "{grad}[1] × {A}⁻ᵀ"),)

    def forward(self, a: Tensor) -> list[np.ndarray]:
        from .unary import abs as abs_
        from .unary import log

        lu, piv = _lu_of(a)
        self.save("A", a)
        self.save("LU", wrap_result(lu))
        self.save("pivots", wrap_result(piv))
        diag = np.diagonal(lu, axis1=-2, axis2=-1)
        sign = _pivot_sign(piv, lu.dtype) * _sequential_prod(np.sign(diag).astype(lu.dtype))
        from .reductions import sum as sum_

        logabs = sum_(log(abs_(wrap_result(diag))), -1).array
        return [np.asarray(sign, dtype=lu.dtype), np.asarray(logabs, dtype=lu.dtype)]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("sign", outputs[0], is_output=True)

    jvp_reads_saved = True

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # slogdet_jvp: (a zero tensor for sign, tr(A⁻¹ A_t) for logabsdet)
        from .creation import zeros_like

        return [zeros_like(outs[0]), _trace_a_inv(self, inputs[0], t[0])]

    def backward(self, grad_sign: Tensor | None, grad_logabsdet: Tensor | None) -> Tensor | None:
        if grad_logabsdet is None:
            return None
        if not GRAD_MODE.enabled:
            return _lu_solve_diag(self, grad_logabsdet, False)
        a = self.unpack("A")
        eye = Tensor._wrap(np.eye(a.array.shape[-1], dtype=a.array.dtype))
        return linalg_solve(mT(a), unsqueeze(unsqueeze(grad_logabsdet, -1), -1) * eye)


def slogdet(a: Tensor) -> ReturnTypes:
    check_matrices(a, "linalg.slogdet")
    return SlogdetReturn(*LinalgSlogdetBackward0.call(a))


def torch_slogdet(a: Tensor) -> ReturnTypes:
    check_matrices(a, "linalg.slogdet")
    return TorchSlogdetReturn(*LinalgSlogdetBackward0.call(a))


def logdet(a: Tensor) -> Tensor:
    """torch.logdet: slogdet's logabsdet, NaN where the determinant is negative."""
    from .reductions import where

    check_matrices(a, "logdet")
    sign, logabsdet = LinalgSlogdetBackward0.call(a)
    return where(sign == -1.0, math.nan, logabsdet)


# -- inverse and solve -----------------------------------------------------------------


def _is_vector_rhs(a: Tensor, b: Tensor) -> bool:
    """linalg_solve_is_vector_rhs: B is a (batch of) vector(s) rather than matrices."""
    bs = b.array.shape
    return b.array.ndim == 1 or (a.array.ndim - 1 == b.array.ndim and
                                 bs == a.array.shape[:-1])


def _solve_arrays(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """getrf + getrs on broadcast batches: X, LU, pivots, info."""
    lu, piv, info = lapack.getrf(a)
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n = a.shape[-1]
    lu_b = np.broadcast_to(lu, batch + lu.shape[-2:])
    piv_b = np.broadcast_to(piv, batch + piv.shape[-1:])
    b_b = np.broadcast_to(b, batch + b.shape[-2:])
    x = lapack.getrs(lu_b, piv_b, b_b) if n else np.zeros(b_b.shape, dtype=b.dtype)
    return x, lu, piv, info


class LinalgSolveExBackward0(Function):
    __slots__ = ()
    formulas = (vjp("A", "-{A}⁻ᵀ @ {grad} @ {result}ᵀ"), vjp("B", "{A}⁻ᵀ @ {grad}"))

    def forward(self, a: Tensor, b: Tensor, left: bool = True) -> np.ndarray:
        vector = _is_vector_rhs(a, b)
        bm = b.array[..., None] if vector else b.array
        x, lu, piv, _ = _solve_arrays(a.array, bm)
        self.save("A", a)
        self.save("LU", wrap_result(lu))
        self.save("pivots", wrap_result(piv))
        self.save_attr(left=left)
        return x[..., 0] if vector else lapack.column_major(x)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    jvp_reads_saved = True

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # linalg_solve_jvp: lu_solve(LU, pivots, B_t - A_t X) (left), vectors as columns
        from .lu import lu_solve

        a, x = inputs[0], outs[0]
        left = params.get("left", True)
        vector = x.array.ndim == a.array.ndim - 1
        x_ = unsqueeze(x, -1) if vector else x
        db_ = unsqueeze(t[1], -1) if vector else t[1]
        r_ = matmul(t[0], x_) if left else matmul(x_, t[0])
        dx_ = lu_solve(self.unpack("LU"), self.unpack("pivots"), db_ - r_, left=left)
        return squeeze(dx_, -1) if vector else dx_

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, x = self.unpack("A"), self.unpack("result")
        vector = x.array.ndim == a.array.ndim - 1
        g = unsqueeze(grad, -1) if vector else grad
        if GRAD_MODE.enabled:
            gb = linalg_solve(mT(a), g)
        else:
            batch = g.array.shape[:-2]
            lu = np.broadcast_to(self.unpack("LU").array, batch + a.array.shape[-2:])
            piv = np.broadcast_to(self.unpack("pivots").array, batch + a.array.shape[-1:])
            gb = wrap_result(lapack.getrs(lu, piv, g.array, transpose=True))
        ga = None
        if self.needs_input_grad(0):
            xm = unsqueeze(x, -1) if vector else x
            ga = sum_to(-matmul(gb, mT(xm)), a.array.shape)
        b_shape = self.input_meta[1][0]
        gb_out = sum_to(squeeze(gb, -1) if vector else gb, b_shape) \
            if self.needs_input_grad(1) else None
        return ga, gb_out


def _check_solve(a: Tensor, b: Tensor, fname: str) -> None:
    check_matrices(a, fname)
    if a.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"{fname}: Expected A and B to have the same dtype, but found A of type "
            f"{a.dtype.scalar_type} and B of type {b.dtype.scalar_type} instead")
    vector = _is_vector_rhs(a, b)
    rows = b.array.shape[-1] if vector else (b.array.shape[-2] if b.array.ndim >= 2 else 1)
    cols = 1 if vector else b.array.shape[-1]
    if b.array.ndim == 0 or rows != a.array.shape[-1]:
        n = a.array.shape[-1]
        raise TorchRuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                                f"AX = B ({n}x{n} and {rows}x{cols})")
    b_batch = b.array.shape[:-1] if vector else b.array.shape[:-2]
    broadcast_shapes(a.array.shape[:-2], b_batch)


def solve_ex(a: Tensor, b: Tensor, *, left: bool = True, check_errors: bool = False
             ) -> ReturnTypes:
    """torch.linalg.solve_ex: the solution and LAPACK's info, raising only if asked."""
    if not left:
        raise NotSupportedError("torch.linalg.solve(..., left=False)")
    _check_solve(a, b, "linalg.solve")
    node_out = LinalgSolveExBackward0.call(a, b, left=left)
    info = _solve_info(a, b)
    if check_errors:
        _raise_singular(info, "torch.linalg.solve_ex")
    return SolveExReturn(node_out, wrap_result(info))


def _solve_info(a: Tensor, b: Tensor) -> np.ndarray:
    _, _, info = lapack.getrf(a.array)
    return info


def _raise_singular(info: np.ndarray, fname: str) -> None:
    if (info > 0).any():
        k, prefix = batch_prefix(info)
        raise linalg_error(f"{fname}: {prefix}The solver failed because the input matrix is "
                           "singular.")


def linalg_solve(a: Tensor, b: Tensor, *, left: bool = True) -> Tensor:
    if not left:
        raise NotSupportedError("torch.linalg.solve(..., left=False)")
    _check_solve(a, b, "linalg.solve")
    _, _, info = lapack.getrf(a.array)
    _raise_singular(info, "torch.linalg.solve")
    return LinalgSolveExBackward0.call(a, b, left=left)


class LinalgInvExBackward0(Function):
    __slots__ = ()
    formulas = (vjp("A", "-{inverse}ᵀ @ {grad} @ {inverse}ᵀ"),)

    def forward(self, a: Tensor) -> np.ndarray:
        n = a.array.shape[-1]
        eye = np.broadcast_to(np.eye(n, dtype=a.array.dtype), a.array.shape)
        x, _, _, _ = _solve_arrays(a.array, eye)
        return lapack.column_major(x)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("inverse", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        # inverse: -at::matmul(at::matmul(inverse, A_t), inverse)
        return -matmul(matmul(outs[0], t[0]), outs[0])

    def backward(self, grad: Tensor) -> Tensor:
        inv_h = mT(self.unpack("inverse"))
        return -matmul(inv_h, matmul(grad, inv_h))


def _inverse_info(a: Tensor) -> np.ndarray:
    _, _, info = lapack.getrf(a.array)
    return info


def inv_ex(a: Tensor, *, check_errors: bool = False) -> ReturnTypes:
    check_matrices(a, "linalg.inv_ex")
    info = _inverse_info(a)
    if check_errors:
        _raise_not_invertible(info, "torch.linalg.inv_ex")
    return InvExReturn(LinalgInvExBackward0.call(a), wrap_result(info))


def _raise_not_invertible(info: np.ndarray, fname: str) -> None:
    if (info > 0).any():
        k, prefix = batch_prefix(info)
        raise linalg_error(
            f"{fname}: {prefix}The diagonal element {int(info.reshape(-1)[k])} is zero, the "
            "inversion could not be completed because the input matrix is singular.")


def inv(a: Tensor) -> Tensor:
    check_matrices(a, "linalg.inv")
    _raise_not_invertible(_inverse_info(a), "linalg.inv")
    return LinalgInvExBackward0.call(a)


# -- triangular solve ------------------------------------------------------------------


class LinalgSolveTriangularBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "-({self}⁻ᵀ @ {grad}) @ {result}ᵀ"),
                vjp("B", "{self}⁻ᵀ @ {grad}"))

    def forward(self, a: Tensor, b: Tensor, upper: bool, left: bool,
                unitriangular: bool) -> np.ndarray:
        self.save("self", a)
        self.save_attr(left=left, unitriangular=unitriangular, upper=upper)
        batch = broadcast_shapes(a.array.shape[:-2], b.array.shape[:-2])
        aa = np.broadcast_to(a.array, batch + a.array.shape[-2:])
        bb = np.broadcast_to(b.array, batch + b.array.shape[-2:])
        return lapack.column_major(lapack.trsm(aa, bb, upper, left, unitriangular))

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """torch's linalg_solve_triangular_forward_AD: A⁻¹(B_t - proj(A_t) X)."""
        upper, left, unit = params["upper"], params["left"], params["unitriangular"]
        proj = triu(t[0], int(unit)) if upper else tril(t[0], -int(unit))
        x_t = t[1] - (matmul(proj, outs[0]) if left else matmul(outs[0], proj))
        return solve_triangular(inputs[0], x_t, upper=upper, left=left, unitriangular=unit)

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        upper, left, unit = at["upper"], at["left"], at["unitriangular"]
        a, x = self.unpack("self"), self.unpack("result")
        g_b = solve_triangular(mT(a), grad, upper=not upper, left=left,
                               unitriangular=unit)
        g_a = None
        if self.needs_input_grad(0):
            g_a = -matmul(g_b, mT(x)) if left else -matmul(mT(x), g_b)
            g_a = triu(g_a, int(unit)) if upper else tril(g_a, -int(unit))
            g_a = sum_to(g_a, a.array.shape)
        g_b_out = sum_to(g_b, self.input_meta[1][0]) if self.needs_input_grad(1) else None
        return g_a, g_b_out


def solve_triangular(a: Tensor, b: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    fname = "linalg.solve_triangular"
    check_matrices(a, fname)
    if b.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    n = a.array.shape[-1]
    k = b.array.shape[-2] if left else b.array.shape[-1]
    if k != n:
        raise TorchRuntimeError(
            f"{fname}: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.array.shape[-2]}x"
            f"{b.array.shape[-1]})")
    return LinalgSolveTriangularBackward0.call(a, b, upper=upper, left=left,
                                               unitriangular=unitriangular)


# -- Cholesky ------------------------------------------------------------------------


class LinalgCholeskyExBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "{L}⁻ᵀ ½(X + X.tril(-1)ᵀ) {L}⁻¹, X = ({L}ᵀ @ {grad}).tril()"),)

    def forward(self, a: Tensor, upper: bool) -> np.ndarray:
        factor, _ = lapack.potrf(a.array, upper)
        self.save_attr(upper=upper)
        return lapack.column_major(factor)

    factor_name = "L"

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save(self.factor_name, outputs[0], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> Tensor:
        """torch's cholesky_jvp: L π(L⁻¹ dA L⁻ᴴ), π(X) = X.tril() - diag(X) / 2."""
        upper = params["upper"]
        factor = mT(outs[0]) if upper else outs[0]
        d_l = solve_triangular(factor, t[0], upper=False, left=True)
        d_l = solve_triangular(mT(factor), d_l, upper=True, left=False)
        d_l = tril(d_l) - diag_embed(diagonal(d_l, 0, -2, -1).mul(0.5))
        d_l = matmul(factor, d_l)
        return mT(d_l) if upper else d_l

    def backward(self, grad: Tensor) -> Tensor:
        """cholesky_backward: L⁻ᴴ π*(tril(Lᴴ gL)) L⁻¹ with π*(X) = ½ (X + X.tril(-1)ᴴ), by two
        triangular solves."""
        low, g = self.unpack(self.factor_name), grad
        if self.attrs["upper"]:
            low, g = mT(low), mT(g)
        g_a = tril(matmul(mT(low), g))
        g_a = 0.5 * (g_a + mT(tril(g_a, -1)))
        g_a = solve_triangular(mT(low), g_a, upper=True, left=True)
        return solve_triangular(low, g_a, upper=False, left=False)


def _cholesky_info(info: np.ndarray, fname: str) -> None:
    if (info > 0).any():
        k, prefix = batch_prefix(info)
        raise linalg_error(
            f"{fname}: {prefix}The factorization could not be completed because the input is "
            f"not positive-definite (the leading minor of order {int(info.reshape(-1)[k])} is "
            "not positive-definite).")


def cholesky_ex(a: Tensor, *, upper: bool = False, check_errors: bool = False) -> ReturnTypes:
    check_matrices(a, "linalg.cholesky")
    out = LinalgCholeskyExBackward0.call(a, upper=upper)
    _, info = lapack.potrf(a.array, upper)
    if check_errors:
        _cholesky_info(info, "linalg.cholesky_ex")
    return CholeskyExReturn(out, wrap_result(info))


def cholesky(a: Tensor, *, upper: bool = False) -> Tensor:
    check_matrices(a, "linalg.cholesky")
    _, info = lapack.potrf(a.array, upper)
    _cholesky_info(info, "linalg.cholesky")
    return LinalgCholeskyExBackward0.call(a, upper=upper)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    """torch.cholesky (deprecated): linalg.cholesky's factor and backward, saved as
    `result`."""

    __slots__ = ()
    formulas = (vjp("self", "{result}⁻ᵀ ½(X + X.tril(-1)ᵀ) {result}⁻¹, "
                    "X = ({result}ᵀ @ {grad}).tril()"),)
    factor_name = "result"


_CHOLESKY_DEPRECATED = (
    "UserWarning: torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
    "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
    "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent "
    "results for all valid (symmetric positive definite) inputs. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")


def torch_cholesky(a: Tensor, upper: bool = False) -> Tensor:
    from .creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(_CHOLESKY_DEPRECATED, "torch.cholesky"))
    check_matrices(a, "cholesky")
    _, info = lapack.potrf(a.array, upper)
    _cholesky_info(info, "cholesky")
    return CholeskyBackward0.call(a, upper=upper)


# -- QR --------------------------------------------------------------------------------


class LinalgQrBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("A", "qr_backward({grad}, {Q}, {R})"),)

    def forward(self, a: Tensor, mode: str) -> list[np.ndarray]:
        q, r = lapack.geqrf_orgqr(a.array, mode == "complete", mode != "r")
        self.save_attr(mode=mode)
        if q is None:
            q = np.zeros((0,), dtype=a.array.dtype)
        return [lapack.column_major(q), lapack.column_major(r)]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("Q", outputs[0], is_output=True)
        self.save("R", outputs[1], is_output=True)

    def backward(self, g_q: Tensor | None, g_r: Tensor | None) -> Tensor | None:
        mode = self.attrs["mode"]
        if mode == "r":
            raise TorchRuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when "
                "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                "differentiate through linalg.qr.")
        q, r = self.unpack("Q"), self.unpack("R")
        m, n = q.array.shape[-2], r.array.shape[-1]
        if mode == "complete" and m > n:
            raise TorchRuntimeError("The QR decomposition is not differentiable when "
                                    "mode='complete' and nrows > ncols.")
        if g_q is None and g_r is None:
            return None
        if g_q is not None:
            g_a = matmul(g_r, mT(r)) - matmul(mT(q), g_q) if g_r is not None \
                else -matmul(mT(q), g_q)
        else:
            g_a = matmul(g_r, mT(r))
        if m >= n:
            upper_part = triu(g_a)
            sym = upper_part + mT(upper_part)
            sym = sym - diag_embed(diagonal(sym, 0, -2, -1)) * 0.5
            g_a = matmul(q, sym)
            if g_q is not None:
                g_a = g_a + g_q
            return solve_triangular(mT(r), g_a, upper=False, left=False)
        neg = -g_a
        g_a = matmul(q, tril(neg - mT(neg)))
        g_a = solve_triangular(mT(narrow(r, -1, 0, m)), g_a, upper=False, left=False)
        from .joins import cat

        pad = Tensor._wrap(np.zeros(g_a.array.shape[:-1] + (n - m,), dtype=g_a.array.dtype))
        g_a = cat([g_a, pad], -1)
        if g_r is not None:
            g_a = g_a + matmul(q, g_r)
        return g_a


def _qr(a: Tensor, mode: str, ret: type[ReturnTypes]) -> ReturnTypes:
    check_matrices(a, "linalg.qr", square=False)
    if mode not in ("reduced", "r", "complete"):
        raise TorchRuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                                "'reduced' (default), 'r', or 'complete'")
    return ret(*LinalgQrBackward0.call(a, mode=mode))


def qr(a: Tensor, mode: str = "reduced") -> ReturnTypes:
    return _qr(a, mode, QrReturn)


def torch_qr(a: Tensor, some: bool = True) -> ReturnTypes:
    """torch.qr (deprecated): `some` picks 'reduced' or 'complete'."""
    from .creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(
        "UserWarning: torch.qr is deprecated in favor of torch.linalg.qr and will be removed "
        "in a future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
        "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R "
        "= torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)", "torch.qr"))
    return _qr(a, "reduced" if some else "complete", TorchQrReturn)
