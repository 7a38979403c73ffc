"""torch.linalg.matrix_exp (torch.matrix_exp, Tensor.matrix_exp) and its node
LinalgMatrixExpBackward0, as LinearAlgebra.cpp computes it on the CPU: Bader, Blanes and
Casas' optimized Taylor polynomials of degree 1, 2, 4, 8, 12 or 18 picked by each matrix's
1-norm, with scaling and squaring above degree 12's bound, from the same matrix products
(blas.bmm / blas.mm, torch's bits) and the same linear combinations
(_compute_linear_combination: a sequential sum from zero, products rounded before each
add: no fused multiply-add, measured). The backward is linalg_matrix_exp_differential:
the top-right block of the exponential of [[Aᵀ, G], [0, Aᵀ]].
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import blas
from ..formulas import vjp
from ..node import Function
from ..tensor import Tensor
from .decompositions import check_matrices

# the 1-norm bounds of the degree 1, 2, 4, 8, 12 and 18 approximations
_THETAS_FLOAT = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                 5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00)
_THETAS_DOUBLE = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                  4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)

_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052,
         -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
         -0.00675951846863086359))
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
         -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00,
         4.98289622525382669416e-01, -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00,
         5.71779846478865511061e-02, -6.98210122488052056106e-03,
         3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02,
         6.75961301770459654925e-02, 2.95552570429315521194e-02,
         -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05))


def _lincomb(mats: Sequence[np.ndarray], coeffs: Sequence[float]) -> np.ndarray:
    """Σ coeffs[j] · mats[j], summed in order from zero (the coefficients rounded to the
    matrices' dtype first, as torch's coefficient tensor is)."""
    dtype = mats[0].dtype
    out = np.zeros(mats[0].shape, dtype=dtype)
    with np.errstate(all="ignore"):
        for m, c in zip(mats, coeffs, strict=True):
            out = out + m * dtype.type(c)
    return out


def _powers(a: np.ndarray, count: int) -> list[np.ndarray]:
    """I, A, A², A³, A⁶ (the first `count`), by torch's products."""
    out = [np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy(), a]
    if count > 2:
        out.append(blas.bmm(a, a))
    if count > 3:
        out.append(blas.bmm(a, out[2]))
    if count > 4:
        out.append(blas.bmm(out[3], out[3]))
    return out


def _t1(a: np.ndarray) -> np.ndarray:
    i, x = _powers(a, 2)
    return i + x


def _t2(a: np.ndarray) -> np.ndarray:
    i, x, x2 = _powers(a, 3)
    return (i + x) + x2 / a.dtype.type(2.0)


def _t4(a: np.ndarray) -> np.ndarray:
    ps = _powers(a, 3)
    ps.append(blas.bmm(ps[2], _lincomb(ps, (1 / 2.0, 1 / 6.0, 1 / 24.0))))
    return _lincomb(ps, (1.0, 1.0, 0.0, 1.0))


def _t8_coefficients(dtype: np.dtype) -> tuple[float, ...]:
    """compute_T8's constexpr coefficients, each rounded to scalar_t as C++ does (the
    double arithmetic on scalar_t values)."""
    t = dtype.type
    s = float(t(0.1330413469565007072504e+2))
    x3 = float(t(2. / 3.))
    x1 = t(x3 * ((1. + s) / 88.))
    x2 = t(x3 * ((1. + s) / 352.))
    x4 = t((-271. + 29. * s) / (315. * x3))
    x5 = t((-11. + 11. * s) / (1260. * x3))
    x6 = t((-99. + 11. * s) / (5040. * x3))
    x7 = t((89. - s) / (5040. * x3))
    y2 = t((857. - 58. * s) / 630.)
    return x1, x2, x3, x4, x5, x6, x7, y2


def _t8(a: np.ndarray) -> np.ndarray:
    x1, x2, x3, x4, x5, x6, x7, y2 = _t8_coefficients(a.dtype)
    ps = _powers(a, 3)
    ps.append(blas.bmm(ps[2], _lincomb(ps[1:3], (x1, x2))))
    ps.append(blas.bmm(_lincomb(ps[2:4], (x3, 1.0)), _lincomb(ps[0:4], (x4, x5, x6, x7))))
    return _lincomb(ps, (1.0, 1.0, y2, 0.0, 1.0))


def _t12(a: np.ndarray) -> np.ndarray:
    ps = _powers(a, 4)
    bs = [_lincomb(ps, row) for row in _B12]
    bs[2] = bs[2] + blas.bmm(bs[3], bs[3])
    bs[1] = bs[1] + bs[2]
    return bs[0] + blas.bmm(bs[1], bs[2])


def _t18(a: np.ndarray) -> np.ndarray:
    ps = _powers(a, 5)
    bs = [_lincomb(ps, row) for row in _B18]
    bs[3] = bs[3] + blas.bmm(bs[0], bs[4])
    bs[2] = bs[2] + bs[3]
    return bs[1] + blas.bmm(bs[2], bs[3])


def _scale_square(a: np.ndarray, norm: np.ndarray, theta: float) -> np.ndarray:
    """compute_T18_scale_square: exp(A / 2ˢ) squared s times, s = max(0, ⌈log₂(‖A‖₁/θ)⌉).
    Each squaring is a batched product (measured: bmm's own loop below 400 multiply-adds,
    not mm's MKL gemm, whose bits differ from it on an Intel CPU)."""
    t = a.dtype.type
    with np.errstate(all="ignore"):
        s = np.maximum(np.zeros_like(norm), np.ceil(np.log2(norm / t(theta))))
    s = np.nan_to_num(s, nan=0, posinf=0).astype(np.int64)  # a NaN/inf norm: .to(kLong)
    scaled = a / (2.0 ** s).astype(a.dtype)[:, None, None]
    out = _t18(scaled)
    for i in range(out.shape[0]):
        m = out[i:i + 1]
        for _ in range(int(s[i])):
            m = blas.bmm(m, m)
        out[i] = m[0]
    return out


def _one_norms(a: np.ndarray) -> np.ndarray:
    """operator_1_norm: the largest column sum of |A| (the engine's sum, torch's order)."""
    from .reductions import sum as sum_
    from .unary import abs as abs_

    sums = sum_(abs_(Tensor._wrap(a)), -2).array
    return np.max(sums, axis=-1) if sums.shape[-1] else np.zeros(sums.shape[:-1], a.dtype)


def mexp(a: np.ndarray) -> np.ndarray:
    """mexp_impl on a (b, n, n) batch, n ≥ 2: a batch of more than one matrix goes all
    through degree 18 with scaling and squaring (measured), one matrix through the degree
    its norm picks."""
    thetas = _THETAS_FLOAT if a.dtype == np.float32 else _THETAS_DOUBLE
    t = a.dtype.type
    norm = _one_norms(a)
    if a.shape[0] > 1:
        return _scale_square(a, norm, thetas[5])
    res = np.full(a.shape, np.nan, dtype=a.dtype)
    with np.errstate(invalid="ignore"):
        for i, fn in enumerate((_t1, _t2, _t4, _t8, _t12)):
            low = t(-1) if i == 0 else t(thetas[i - 1])
            idx = np.flatnonzero((low < norm) & (norm <= t(thetas[i])))
            if idx.size:
                res[idx] = fn(a[idx])
        idx = np.flatnonzero(norm >= t(thetas[4]))
        if idx.size:
            res[idx] = _scale_square(a[idx], norm[idx], thetas[5])
    return res


def matrix_exp_array(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    if n == 0:
        return a.copy()
    if n == 1:
        from .unary import exp

        return exp(Tensor._wrap(a)).array
    from ..limits import reserve

    reserve((10,) + a.shape, a.itemsize)  # degree 18's powers and combinations at once
    flat = np.ascontiguousarray(a).reshape((-1, n, n))
    return mexp(flat).reshape(a.shape)


class LinalgMatrixExpBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "matrix_exp([[{self}ᵀ, {grad}], [0, {self}ᵀ]])"
                    "[:{self}.shape[-1], {self}.shape[-1]:]"),)

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return matrix_exp_array(a.array)

    def backward(self, grad: Tensor) -> Tensor:
        """linalg_matrix_exp_differential(self, grad, adjoint=True)."""
        from .joins import cat
        from .select_views import narrow
        from .views import mT

        a = mT(self.unpack("self"))
        n = a.array.shape[-1]
        zeros = Tensor._wrap(np.zeros(a.array.shape, dtype=grad.array.dtype))
        meta = cat([cat([a, grad], -1), cat([zeros, a], -1)], -2)
        return narrow(narrow(linalg_matrix_exp(meta), -2, 0, n), -1, n, n)


def linalg_matrix_exp(a: Tensor) -> Tensor:
    check_matrices(a, "linalg.matrix_exp")
    return LinalgMatrixExpBackward0.call(a)


LINALG_FUNCTIONS = {"matrix_exp": linalg_matrix_exp}
TENSOR_METHODS = {"matrix_exp": linalg_matrix_exp}
