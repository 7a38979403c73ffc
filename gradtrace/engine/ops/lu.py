"""torch.linalg's LU family: lu_factor, lu_factor_ex, lu, lu_solve, torch.lu_unpack and the
deprecated torch.lu / torch.lu_solve, with torch 2.13's nodes (LinalgLuFactorExBackward0,
LinalgLuBackward0, LuUnpackBackward0, LinalgLuSolveBackward0), saved values, checks and
error texts.

The factorization is MKL's ?getrf and the solve ?getrs, called as torch's CPU kernels call
them (engine/lapack.py), so the bits are torch's. The backward formulas are
FunctionsManual.cpp's (lu_factor_ex_backward, linalg_lu_backward, lu_unpack_backward,
linalg_lu_solve_LU), written with the engine's own ops so that create_graph records them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import TorchRuntimeError
from .. import lapack
from ..formulas import vjp
from ..node import Function
from ..shapes import broadcast_shapes
from ..tensor import Tensor
from ._util import not_implemented
from .decompositions import named_return, solve_triangular, wrap_result
from .linalg import matmul
from .matrices import tril, triu
from .reductions import ReturnTypes
from .select_views import narrow
from .views import mT, sum_to

LuFactorReturn = named_return("linalg_lu_factor", "LU", "pivots")
LuFactorExReturn = named_return("linalg_lu_factor_ex", "LU", "pivots", "info")
LuReturn = named_return("linalg_lu", "P", "L", "U")
LuUnpackReturn = named_return("lu_unpack", "P", "L", "U")
LuWithInfoReturn = named_return("_lu_with_info", "LU", "pivots", "info")

_LU_DEPRECATED = (
    "UserWarning: torch.lu is deprecated in favor of torch.linalg.lu_factor / "
    "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
    "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
    "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")
_LU_SOLVE_DEPRECATED = (
    "UserWarning: torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
    "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
    "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")


def _no_grad_output(t: Tensor) -> Tensor:
    """An output torch marks non-differentiable (pivots, P): no grad_fn."""
    t.requires_grad = False
    t.grad_fn = None
    return t


def lapack_dtype(a: Tensor, kernel: str) -> None:
    """torch's CPU LAPACK kernels exist for float32 and float64 (and complex) only: any
    other dtype (integers, float16, bfloat16) has no `kernel`."""
    if a.array.dtype not in (np.float32, np.float64):
        raise not_implemented(kernel, a.dtype)


def _check_lu_input(a: Tensor, fname: str) -> None:
    if a.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: Expected tensor with 2 or more dimensions. Got size: "
                                f"{list(a.array.shape)} instead")
    lapack_dtype(a, "lu_cpu")


def _factor(a: Tensor, pivot: bool, fname: str = "torch.lu_factor"
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """getrf of each matrix: LU (column-major, as torch returns it), pivots, info."""
    _check_lu_input(a, fname)
    if not pivot:
        raise TorchRuntimeError("linalg.lu_factor: LU without pivoting is not implemented on "
                                "the CPU")
    lu, piv, info = lapack.getrf(a.array)
    return lapack.column_major(lu), piv, info


def _raise_zero_pivot(info: np.ndarray, fname: str) -> None:
    if (info > 0).any():
        flat = info.reshape(-1)
        k = int(np.flatnonzero(flat)[0])
        prefix = f"(Batch element {k}): " if info.ndim else ""
        i = int(flat[k])
        raise TorchRuntimeError(
            f"{fname}: {prefix}U[{i},{i}] is zero and using it on lu_solve would result in a "
            "division by zero. If you still want to perform the factorization, consider "
            "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


# -- lu_factor -------------------------------------------------------------------------


class LinalgLuFactorExBackward0(Function):
    __slots__ = ()
    formulas = (vjp("A", "lu_factor_ex_backward({grad}, {LU}, {pivots}, {pivot})"),)

    def forward(self, a: Tensor, *, pivot: bool, lu: np.ndarray, pivots: Tensor
                ) -> np.ndarray:
        self.save_attr(pivot=pivot)
        self.save("pivots", pivots)
        return lu

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("LU", outputs[0], is_output=True)
        self.show_saved_as("LU", "pivots")

    def backward(self, grad: Tensor) -> Tensor:
        lu = self.unpack("LU")
        p, low, up = lu_unpack(lu, self.unpack("pivots"), True, self.attrs["pivot"])
        m, n = lu.array.shape[-2:]
        k = min(m, n)
        return lu_backward(narrow(grad, -1, 0, k), narrow(grad, -2, 0, k), p, low, up,
                           self.attrs["pivot"])


def _lu_factor_ex(a: Tensor, pivot: bool, check_errors: bool, fname: str) -> tuple[Tensor, ...]:
    lu, piv, info = _factor(a, pivot)
    if check_errors:
        _raise_zero_pivot(info, fname)
    pivots = wrap_result(piv)
    out = LinalgLuFactorExBackward0.call(a, pivot=pivot, lu=lu, pivots=pivots)
    return out, pivots, wrap_result(info)


def lu_factor_ex(a: Tensor, *, pivot: bool = True, check_errors: bool = False) -> ReturnTypes:
    return LuFactorExReturn(*_lu_factor_ex(a, pivot, check_errors, "torch.linalg.lu_factor_ex"))


def lu_factor(a: Tensor, *, pivot: bool = True) -> ReturnTypes:
    return LuFactorReturn(*_lu_factor_ex(a, pivot, True, "torch.linalg.lu_factor")[:2])


def _lu_with_info(a: Tensor, pivot: bool, get_infos: bool) -> tuple[Tensor, ...]:
    """torch._lu_with_info, which torch.lu and Tensor.lu call: lu_factor_ex, raising unless
    infos are asked for. (torch's Python warns from its own file, functional.py or
    _tensor.py; gradtrace shows the warning at the script's line.)"""
    from .creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(_LU_DEPRECATED, "torch._lu_with_info"))
    return _lu_factor_ex(a, pivot, not get_infos, "torch.linalg.lu_factor_ex")


def torch_lu(a: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """torch.lu (deprecated): (LU, pivots), or _lu_with_info(LU, pivots, info)."""
    lu, piv, info = _lu_with_info(a, pivot, get_infos)
    return LuWithInfoReturn(lu, piv, info) if get_infos else (lu, piv)


def tensor_lu(a: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """Tensor.lu (deprecated): a plain tuple (LU, pivots[, info])."""
    lu, piv, info = _lu_with_info(a, pivot, get_infos)
    return (lu, piv, info) if get_infos else (lu, piv)


# -- lu and lu_unpack ------------------------------------------------------------------


def _permutation(piv: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """P with A = P L U from getrf's 1-based row swaps (applied in order)."""
    out = np.zeros(piv.shape[:-1] + (m, m), dtype=dtype)
    for idx in np.ndindex(*piv.shape[:-1]):
        perm = np.arange(m)
        for i, p in enumerate(piv[idx]):
            perm[[i, p - 1]] = perm[[p - 1, i]]
        out[idx][perm, np.arange(m)] = 1
    return out


def _unpack_arrays(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return low, np.triu(lu[..., :k, :])


class LuUnpackBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("LU_data", "zeros({LU_data_sym_argsize_minus_2}, "
                    "{LU_data_sym_argsize_minus_1}) + {grad}[1].tril(-1) + {grad}[2].triu()"),)

    def forward(self, lu: Tensor, *, pivots: np.ndarray, unpack_data: bool,
                unpack_pivots: bool) -> list[np.ndarray]:
        m, n = lu.array.shape[-2:]
        self.save_attr(LU_data_sym_argsize_minus_1=n, LU_data_sym_argsize_minus_2=m)
        empty = np.zeros((0,), dtype=lu.array.dtype)
        p = _permutation(pivots, m, lu.array.dtype) if unpack_pivots else empty
        low, up = _unpack_arrays(lu.array) if unpack_data else (empty, empty)
        return [p, low, up]

    def backward(self, g_p: Tensor | None, g_l: Tensor | None, g_u: Tensor | None
                 ) -> Tensor | None:
        m = self.attrs["LU_data_sym_argsize_minus_2"]
        n = self.attrs["LU_data_sym_argsize_minus_1"]
        return _unpack_backward(g_l, g_u, m, n)


def _unpack_backward(g_l: Tensor | None, g_u: Tensor | None, m: int, n: int
                     ) -> Tensor | None:
    """lu_unpack_backward: L's strict lower part and U's upper part of the gradient, each
    padded with zeros to (m, n)."""
    from .padding import pad

    if g_l is None and g_u is None:
        return None
    k = min(m, n)
    out = None
    if g_l is not None:
        out = tril(g_l, -1)
        if n > k:
            out = pad(out, (0, n - k))
    if g_u is not None:
        up = triu(g_u)
        if m > k:
            up = pad(up, (0, 0, 0, m - k))
        out = up if out is None else out + up
    return out


def _check_unpack(lu: Tensor, pivots: Tensor) -> None:
    _check_lu_unpack_dims(lu)
    if pivots.array.dtype != np.int32:
        raise TorchRuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous "
                                "tensor of torch.int32 dtype.\nNote: this function is intended "
                                "to be used with the output produced by torch.linalg.lu_factor")
    m = lu.array.shape[-2]
    if pivots.array.size and ((pivots.array < 1).any() or (pivots.array > m).any()):
        raise TorchRuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                                "inclusive.Did you properly pass the result of lu_factor?")


def _check_lu_unpack_dims(lu: Tensor) -> None:
    if lu.array.ndim < 2:
        raise TorchRuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. "
                                f"Got size: {list(lu.array.shape)} instead")


def lu_unpack(lu: Tensor, pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True) -> ReturnTypes:
    _check_unpack(lu, pivots)
    p, low, up = LuUnpackBackward0.call(lu, pivots=pivots.array, unpack_data=unpack_data,
                                        unpack_pivots=unpack_pivots)
    return LuUnpackReturn(_no_grad_output(p), low, up)


class LinalgLuBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("A", "linalg_lu_backward({grad}[1], {grad}[2], {P}, {L}, {U}, {pivot})"),)

    def forward(self, a: Tensor, *, pivot: bool) -> list[np.ndarray]:
        lu, piv, _ = _factor(a, pivot, "linalg.lu")
        p = _permutation(piv, a.array.shape[-2], a.array.dtype)
        low, up = _unpack_arrays(lu)
        self.save("P", wrap_result(p))
        self.save_attr(pivot=pivot)
        return [p, low, up]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("L", outputs[1], is_output=True)
        self.save("U", outputs[2], is_output=True)
        self.show_saved_as("L", "P", "U")

    def backward(self, g_p: Tensor | None, g_l: Tensor | None, g_u: Tensor | None
                 ) -> Tensor | None:
        return lu_backward(g_l, g_u, self.unpack("P"), self.unpack("L"), self.unpack("U"),
                           self.attrs["pivot"])


def linalg_lu(a: Tensor, *, pivot: bool = True) -> ReturnTypes:
    _check_lu_input(a, "linalg.lu")
    p, low, up = LinalgLuBackward0.call(a, pivot=pivot)
    return LuReturn(_no_grad_output(p), low, up)


def lu_backward(g_l: Tensor | None, g_u: Tensor | None, p: Tensor, low: Tensor, up: Tensor,
                pivot: bool) -> Tensor | None:
    """linalg_lu_backward: A's gradient from L's and U's, for square, wide and tall A."""
    from .joins import cat
    from .padding import pad

    if g_l is None and g_u is None:
        return None
    m, n = low.array.shape[-2], up.array.shape[-1]
    k = min(m, n)
    if m == n:
        g_a = tril(matmul(mT(low), g_l), -1) if g_l is not None else None
        if g_u is not None:
            part = triu(matmul(g_u, mT(up)))
            g_a = part if g_a is None else g_a + part
        g_a = solve_triangular(mT(up), g_a, upper=False, left=False)
        g_a = solve_triangular(mT(low), g_a, upper=True, left=True, unitriangular=True)
    elif m < n:
        u1 = narrow(up, -1, 0, k)
        g_a = matmul(mT(low), g_l) if g_l is not None else None
        if g_u is not None:
            part = matmul(triu(g_u), mT(up))
            g_a = -part if g_a is None else g_a - part
        g_a = solve_triangular(mT(u1), tril(g_a, -1), upper=False, left=False)
        if g_u is not None:
            g_a = cat([g_a + triu(narrow(g_u, -1, 0, k)), narrow(g_u, -1, k, n - k)], -1)
        g_a = solve_triangular(mT(low), g_a, upper=True, left=True, unitriangular=True)
        if g_u is None:
            g_a = pad(g_a, (0, n - k))
    else:
        l1 = narrow(low, -2, 0, k)
        g_a = matmul(g_u, mT(up)) if g_u is not None else None
        if g_l is not None:
            part = matmul(mT(low), tril(g_l, -1))
            g_a = -part if g_a is None else g_a - part
        g_a = solve_triangular(mT(l1), triu(g_a), upper=True, left=True, unitriangular=True)
        if g_l is not None:
            g_a = cat([g_a + tril(narrow(g_l, -2, 0, k), -1), narrow(g_l, -2, k, m - k)], -2)
        g_a = solve_triangular(mT(up), g_a, upper=False, left=False)
        if g_l is None:
            g_a = pad(g_a, (0, 0, 0, m - k))
    return matmul(p, g_a) if pivot else g_a


# -- lu_solve --------------------------------------------------------------------------


def _check_lu_solve(lu: Tensor, pivots: Tensor, b: Tensor, left: bool) -> None:
    fname = "linalg.lu_solve"
    if lu.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: The input tensor LU must have at least 2 dimensions.")
    if b.array.ndim < 2:
        raise TorchRuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    m, n = lu.array.shape[-2:]
    if m != n:
        raise TorchRuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, "
                                f"but they are {m} by {n} matrices")
    rows, cols = b.array.shape[-2:]
    if (rows if left else cols) != n:
        eq = "AX = B" if left else "XA = B"
        raise TorchRuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                                f"{eq} ({n}x{n} and {rows}x{cols})")
    if lu.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"{fname}: Expected LU and B to have the same dtype, but found LU of type "
            f"{lu.dtype.scalar_type} and B of type {b.dtype.scalar_type} instead")
    if pivots.array.dtype != np.int32:
        raise TorchRuntimeError(f"{fname}: pivots should be a Tensor of scalar type torch.int32")
    if pivots.array.shape[-1:] != (n,):
        raise TorchRuntimeError(f"{fname}: Number of pivots per batch should be same as the "
                                "dimension of the matrix")
    broadcast_shapes(lu.array.shape[:-2], b.array.shape[:-2])
    lapack_dtype(lu, "linalg.lu_solve_cpu")


def _solve_arrays(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, left: bool,
                  adjoint: bool) -> np.ndarray:
    batch = broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    if not left:
        b, adjoint = np.swapaxes(b, -1, -2), not adjoint
    n = lu.shape[-1]
    lu_b = np.broadcast_to(lu, batch + lu.shape[-2:])
    piv_b = np.broadcast_to(piv, batch + piv.shape[-1:])
    b_b = np.broadcast_to(b, batch + b.shape[-2:])
    if b_b.size == 0:
        x = np.zeros(b_b.shape, dtype=b.dtype)
    else:
        if (piv < 1).any():
            raise TorchRuntimeError("Pivots given to lu_solve must all be greater or equal to 1. "
                                    "Did you properly pass the result of lu_factor?")
        if (piv > n).any():
            raise TorchRuntimeError("Pivots given to lu_solve must all be smaller or equal to "
                                    "LU.size(-2). Did you properly pass the result of "
                                    "lu_factor?")
        x = lapack.getrs(lu_b, piv_b, b_b, transpose=adjoint)
    x = lapack.column_major(x)
    return np.swapaxes(x, -1, -2) if not left else x


class LinalgLuSolveBackward0(Function):
    __slots__ = ()
    formulas = (
        vjp("LU", "linalg_lu_solve_LU({grad}, {LU}, {pivots}, {result}, {left}, {adjoint})"),
        vjp("B", "linalg_lu_solve({LU}, {pivots}, {grad}, {left}, ¬{adjoint})"),
    )

    def forward(self, lu: Tensor, b: Tensor, *, pivots: Tensor, left: bool, adjoint: bool
                ) -> np.ndarray:
        self.save("LU", lu)
        self.save("pivots", pivots)
        self.save_attr(adjoint=adjoint, left=left)
        return _solve_arrays(lu.array, pivots.array, b.array, left, adjoint)

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)
        self.show_saved_as("LU", "pivots", "result")

    def backward(self, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        at = self.attrs
        left, adjoint = at["left"], at["adjoint"]
        lu, pivots = self.unpack("LU"), self.unpack("pivots")
        g_lu = None
        if self.needs_input_grad(0):
            g_lu = sum_to(_lu_solve_lu_grad(grad, lu, pivots, self.unpack("result"), left,
                                            adjoint), lu.array.shape)
        g_b = None
        if self.needs_input_grad(1):
            g_b = sum_to(lu_solve(lu, pivots, grad, left=left, adjoint=not adjoint),
                         self.input_meta[1][0])
        return g_lu, g_b


def _lu_solve_lu_grad(g_x: Tensor, lu: Tensor, pivots: Tensor, x: Tensor, left: bool,
                      adjoint: bool) -> Tensor:
    """linalg_lu_solve_LU: LU's gradient, through gR (see FunctionsManual.cpp)."""
    p, low, up = lu_unpack(lu, pivots, True, left == adjoint)
    if left != adjoint:
        rhs = -matmul(g_x if left else mT(g_x), mT(x) if left else x)
        g_r = solve_triangular(mT(up), rhs, upper=False)
        g_l = tril(solve_triangular(mT(low), matmul(g_r, mT(up)), upper=True, left=True,
                                    unitriangular=True), -1)
        return g_l + triu(g_r)
    g_r = -matmul(matmul(matmul(mT(p), x if left else mT(x)), mT(g_x) if left else g_x), p)
    g_r = solve_triangular(mT(low), g_r, upper=True, left=False, unitriangular=True)
    g_u = triu(solve_triangular(mT(up), matmul(mT(low), g_r), upper=False, left=False))
    return tril(g_r, -1) + g_u


def lu_solve(lu: Tensor, pivots: Tensor, b: Tensor, *, left: bool = True,
             adjoint: bool = False) -> Tensor:
    _check_lu_solve(lu, pivots, b, left)
    return LinalgLuSolveBackward0.call(lu, b, pivots=pivots, left=left, adjoint=adjoint)


def torch_lu_solve(b: Tensor, lu: Tensor, pivots: Tensor) -> Tensor:
    """torch.lu_solve / Tensor.lu_solve (deprecated): linalg.lu_solve(LU, pivots, B)."""
    from .creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(_LU_SOLVE_DEPRECATED, "torch.lu_solve"))
    return lu_solve(lu, pivots, b)


LINALG_FUNCTIONS = {"lu_factor": lu_factor, "lu_factor_ex": lu_factor_ex, "lu": linalg_lu,
                    "lu_solve": lu_solve}
TENSOR_METHODS = {"lu": tensor_lu, "lu_solve": torch_lu_solve}
TORCH_FUNCTIONS = {"lu_unpack": lu_unpack, "lu": torch_lu}
