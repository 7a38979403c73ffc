"""torch.linalg's singular-value and eigen-decompositions and what is built on them: svd,
svdvals, torch.svd, eigh, eigvalsh, eig, eigvals, pinv, matrix_rank and lstsq. LAPACK's
gesdd, syevd, geev and the gels family (gels, gelsy, gelsd, gelss) as torch calls them
(engine/lapack.py); the backward formulas are FunctionsManual.cpp's svd_backward,
linalg_eig_backward (the Hermitian case for eigh; for eig the general one, with torch's
complex products, quotients and solve), pinv_backward and linalg_lstsq_backward, written
with the engine's ops.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NotSupportedError, TorchRuntimeError
from .. import blas, dtypes, lapack
from ..complex import add, divide, handle_r_to_c, into_operand, multiply
from ..formulas import vjp
from ..forward_ad import has_tangent
from ..grad_mode import GRAD_MODE
from ..meta import meta_array, stands_on_meta
from ..node import Function
from ..tensor import Tensor
from ._util import not_implemented
from .decompositions import (
    _raise_singular,
    _solve_arrays,
    batch_prefix,
    check_matrices,
    linalg_error,
    named_return,
    wrap_result,
)
from .linalg import matmul
from .matrices import diag_embed, diagonal
from .reductions import ReturnTypes, sum_array
from .select_views import narrow
from .views import mT, squeeze, unsqueeze

SvdReturn = named_return("linalg_svd", "U", "S", "Vh")
TorchSvdReturn = named_return("svd", "U", "S", "V")
EighReturn = named_return("linalg_eigh", "eigenvalues", "eigenvectors")


# -- SVD -------------------------------------------------------------------------------


def _gaps(values: Tensor) -> Tensor:
    """E_jk = values_k - values_j off the diagonal, 1 on it (what svd_backward and
    linalg_eig_backward divide by; torch fills the diagonal in place)."""
    e = unsqueeze(values, -2) - unsqueeze(values, -1)
    eye = np.eye(values.array.shape[-1], dtype=bool)
    if not e.requires_grad:
        return Tensor._wrap(np.where(eye, np.ones((), dtype=e.array.dtype), e.array))
    return e + Tensor._wrap(eye.astype(e.array.dtype)) * (1 - e)  # exactly 1 on the diagonal


class LinalgSvdBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("A", "svd_backward({grad}, {U}, {S}, {Vh})"),)

    def forward(self, a: Tensor, full_matrices: bool, compute_uv: bool) -> list[np.ndarray]:
        u, s, vh, info = lapack.gesdd(a.array, full_matrices, compute_uv)
        self.save_attr(full_matrices=full_matrices, S_sym_argsize_minus_1=s.shape[-1])
        if u is None:
            u = vh = np.zeros((0,), dtype=a.array.dtype)
        return [lapack.column_major(u), s, lapack.column_major(vh)]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("S", outputs[1], is_output=True)
        self.save("U", outputs[0], is_output=True)
        self.save("Vh", outputs[2], is_output=True)

    def backward(self, g_u: Tensor | None, g_s: Tensor | None, g_vh: Tensor | None
                 ) -> Tensor | None:
        u, s, vh = self.unpack("U"), self.unpack("S"), self.unpack("Vh")
        k = s.array.shape[-1]
        if self.attrs["full_matrices"]:
            u, vh = narrow(u, -1, 0, k), narrow(vh, -2, 0, k)
            g_u = narrow(g_u, -1, 0, k) if g_u is not None else None
            g_vh = narrow(g_vh, -2, 0, k) if g_vh is not None else None
        return svd_backward(g_u, g_s, g_vh, u, s, vh)


def svd_backward(g_u: Tensor | None, g_s: Tensor | None, g_vh: Tensor | None, u: Tensor,
                 s: Tensor, vh: Tensor) -> Tensor | None:
    """FunctionsManual.cpp's svd_backward (real case)."""
    if g_s is None and g_u is None and g_vh is None:
        return None
    m, n = u.array.shape[-2], vh.array.shape[-1]
    if g_u is None and g_vh is None:
        return matmul(u, unsqueeze(g_s, -1) * vh) if m >= n \
            else matmul(u * unsqueeze(g_s, -2), vh)
    uhgu = vhgv = None
    if g_u is not None:
        x = matmul(mT(u), g_u)
        uhgu = x - mT(x)
    if g_vh is not None:
        x = matmul(vh, mT(g_vh))
        vhgv = x - mT(x)
    e = _gaps(s * s)
    if uhgu is not None and vhgv is not None:
        g_a = (uhgu * unsqueeze(s, -2) + unsqueeze(s, -1) * vhgv) / e
    elif uhgu is not None:
        g_a = (uhgu / e) * unsqueeze(s, -2)
    else:
        g_a = unsqueeze(s, -1) * (vhgv / e)
    if g_s is not None:
        g_a = g_a + diag_embed(g_s)
    if m > n and g_u is not None:
        g_a = matmul(u, g_a)
        gusinv = g_u / unsqueeze(s, -2)
        g_a = g_a + gusinv - matmul(u, matmul(mT(u), gusinv))
        return matmul(g_a, vh)
    if m < n and g_vh is not None:
        g_a = matmul(g_a, vh)
        sinvgvh = g_vh / unsqueeze(s, -1)
        g_a = g_a + sinvgvh - matmul(matmul(sinvgvh, mT(vh)), vh)
        return matmul(u, g_a)
    return matmul(u, matmul(g_a, vh)) if m >= n else matmul(matmul(u, g_a), vh)


def svd(a: Tensor, full_matrices: bool = True, *, driver: Any = None) -> ReturnTypes:
    check_matrices(a, "linalg.svd", square=False)
    return SvdReturn(*LinalgSvdBackward0.call(a, full_matrices=full_matrices, compute_uv=True))


def _needs_uv(a: Tensor) -> bool:
    return GRAD_MODE.enabled and a.requires_grad


def svdvals(a: Tensor, *, driver: Any = None) -> Tensor:
    """The singular values; U and Vh are computed (and saved) only when A needs a grad."""
    check_matrices(a, "linalg.svd", square=False)
    return LinalgSvdBackward0.call(a, full_matrices=False, compute_uv=_needs_uv(a))[1]


def torch_svd(a: Tensor, some: bool = True, compute_uv: bool = True) -> ReturnTypes:
    """torch.svd: V rather than Vh; with compute_uv=False, zero U and V."""
    check_matrices(a, "linalg.svd", square=False)
    if not compute_uv:
        s = svdvals(a)
        m, n = a.array.shape[-2:]
        batch = a.array.shape[:-2]
        from ..tensor import bump_version

        u, v = (wrap_result(np.zeros(batch + (k, k), dtype=a.array.dtype)) for k in (m, n))
        bump_version(u)  # torch zero-fills them in place, and returns V as Vhᴴ
        bump_version(v)
        return TorchSvdReturn(u, s, mT(v))
    u, s, vh = LinalgSvdBackward0.call(a, full_matrices=not some, compute_uv=True)
    return TorchSvdReturn(u, s, mT(vh))


# -- symmetric eigen-decomposition -------------------------------------------------------


class LinalgEighBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("A", "{eigenvectors} @ (diag_embed({grad}[0]) + skew({eigenvectors}ᵀ @ "
                    "{grad}[1]) / ({eigenvalues}.unsqueeze(-2) - {eigenvalues}.unsqueeze(-1))) @ "
                    "{eigenvectors}ᵀ"),)

    def forward(self, a: Tensor, uplo: str, compute_v: bool) -> list[np.ndarray]:
        w, v, _ = lapack.syevd(a.array, uplo == "U", compute_v)
        if v is None:
            v = np.zeros((0,), dtype=a.array.dtype)
        return [w, lapack.column_major(v)]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("eigenvalues", outputs[0], is_output=True)
        self.save("eigenvectors", outputs[1], is_output=True)

    def backward(self, g_l: Tensor | None, g_v: Tensor | None) -> Tensor | None:
        lam, v = self.unpack("eigenvalues"), self.unpack("eigenvectors")
        if g_l is None and g_v is None:
            return None
        if g_v is None:
            return matmul(v * unsqueeze(g_l, -2), mT(v))
        vhgv = matmul(mT(v), g_v)
        vhgv = 0.5 * (vhgv - mT(vhgv))
        ret = vhgv / _gaps(lam)
        if g_l is not None:
            ret = ret - diag_embed(diagonal(ret, 0, -2, -1)) + diag_embed(g_l)
        return matmul(v, matmul(ret, mT(v)))


def _check_uplo(uplo: str) -> None:
    if uplo not in ("L", "U"):
        raise TorchRuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {uplo}")


def _refuse_complex_grad(a: Tensor, fname: str) -> None:
    """A Hermitian (complex) matrix decomposes as torch's ?heevd does; its gradient
    (linalg_eig_backward's Hermitian case, with Vᴴ and complex products) is not
    written."""
    if a.dtype.is_complex and ((GRAD_MODE.enabled and a.requires_grad) or has_tangent(a)):
        raise NotSupportedError(f"the gradient of {fname} of a complex (Hermitian) matrix is "
                                "not supported by gradtrace: the decomposition itself is "
                                "computed (detach() the input)")


def eigh(a: Tensor, UPLO: str = "L") -> ReturnTypes:  # noqa: N803 - torch's name
    check_matrices(a, "linalg.eigh", complex_ok=True)
    _check_uplo(UPLO)
    _refuse_complex_grad(a, "torch.linalg.eigh")
    return EighReturn(*LinalgEighBackward0.call(a, uplo=UPLO, compute_v=True))


def eigvalsh(a: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803 - torch's name
    check_matrices(a, "linalg.eigh", complex_ok=True)
    _check_uplo(UPLO)
    _refuse_complex_grad(a, "torch.linalg.eigvalsh")
    return LinalgEighBackward0.call(a, uplo=UPLO, compute_v=_needs_uv(a))[0]


# -- general eigen-decomposition --------------------------------------------------------

EigReturn = named_return("linalg_eig", "eigenvalues", "eigenvectors")


class LinalgEigBackward0(Function):
    """torch.linalg.eig (and eigvals of a matrix that needs a gradient): LAPACK's geev,
    complex results whatever the input. The backward is linalg_eig_backward, with the
    complex ops torch runs: Vᴴ resolved (the conjugate fallback's and addmm's copy), mm
    (MKL's cgemm/zgemm) and bmm (ATen's loop or MKL's batched gemm), mul_kernel's products
    and div_true_kernel's quotients (engine/complex.py), linalg.solve's getrf + getrs; a
    real input gets the real part (handle_r_to_c). Through the eigenvalues alone:
    solve(Vᴴ, gL.unsqueeze(-1) * Vᴴ).
    Through the eigenvectors: (Vᴴ gV - Vᴴ V diag(re(Vᴴ gV))) / conj(E) with gL on its
    diagonal, then solve(Vᴴ, that @ Vᴴ)."""

    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("self", "{eigenvectors}⁻ᴴ (diag_embed({grad}[0]) + ({eigenvectors}ᴴ "
                            "{grad}[1] - {eigenvectors}ᴴ {eigenvectors} "
                            "diag(re({eigenvectors}ᴴ {grad}[1]))) / conj(Δ)) "
                            "{eigenvectors}ᴴ [Δᵢⱼ = λⱼ - λᵢ, Δᵢᵢ = 1]"),)

    def forward(self, a: Tensor, compute_v: bool) -> list[np.ndarray]:
        w, v, info = lapack.geev(a.array, compute_v)
        _check_converged(info, "torch.linalg.eig" if compute_v else "torch.linalg.eigvals")
        if v is None:
            v = np.zeros((0,), dtype=w.dtype)
        return [w, lapack.column_major(v)]

    def meta_forward(self, a: Tensor, compute_v: bool) -> list[np.ndarray]:
        """torch's meta kernel: no values, both results contiguous (measured)."""
        dtype = np.result_type(a.array.dtype, np.complex64)
        v_shape = a.array.shape if compute_v else (0,)
        return [meta_array(a.array.shape[:-1], dtype), meta_array(v_shape, dtype)]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("eigenvalues", outputs[0], is_output=True)
        self.save("eigenvectors", outputs[1], is_output=True)

    def jvp(self, t: list, outs: list, inputs: tuple, params: dict) -> list[Tensor]:
        """linalg_eig_jvp: dP = solve(V, dA V), dL = diag(dP), dX = V (dP / E with its
        diagonal zeroed), dV = dX - V diag(re(Vᴴ dX)); E_ij = λ_j - λ_i."""
        lam, v = outs[0].array, outs[1].array
        d_a = np.array(t[0].array, dtype=v.dtype, order="K")  # to(complex): a strided copy
        d_p, _, _, info = _solve_arrays(v, _complex_matmul(d_a, v))
        _raise_singular(info, "torch.linalg.solve")
        d_p = lapack.column_major(d_p)
        d_l = np.einsum("...ii->...i", d_p)
        with np.errstate(all="ignore"):
            ret = divide(d_p, add(np.expand_dims(lam, -2), np.expand_dims(lam, -1), -1))
        np.einsum("...ii->...i", ret)[...] = 0
        d_x = _complex_matmul(v, ret)
        vh = np.conj(np.swapaxes(v, -1, -2))
        scale = np.einsum("...ii->...i", _complex_matmul(vh, d_x)).real.astype(v.dtype)
        d_v = add(d_x, multiply(v, np.expand_dims(scale, -2)), -1)
        return [Tensor._wrap(_primal_layout(d_l, lam)), Tensor._wrap(_primal_layout(d_v, v))]

    def backward(self, g_l: Tensor | None, g_v: Tensor | None) -> Tensor | None:
        if g_l is None and g_v is None:
            return None
        if GRAD_MODE.enabled:
            raise NotSupportedError("a gradient of torch.linalg.eig's backward "
                                    "(create_graph=True)")
        v = self.unpack("eigenvectors").array
        vh = np.conj(np.swapaxes(v, -1, -2))  # resolve_conj keeps V.mH's (row-major) strides
        if g_v is None:
            rhs = multiply(np.expand_dims(g_l.array, -1), vh)
        else:
            g_a = _eigenvector_term(self.unpack("eigenvalues").array, v, vh, g_v.array)
            if g_l is not None:
                np.einsum("...ii->...i", g_a)[...] = g_l.array
            rhs = _complex_matmul(g_a, vh)
        x, _, _, info = _solve_arrays(vh, rhs)
        _raise_singular(info, "torch.linalg.solve")
        return handle_r_to_c(self.input_meta[0][1], Tensor._wrap(lapack.column_major(x)))


def _eigenvector_term(lam: np.ndarray, v: np.ndarray, vh: np.ndarray, g_v: np.ndarray
                      ) -> np.ndarray:
    """linalg_eig_backward's (Vᴴ gV - Vᴴ V diag(re(Vᴴ gV))) / conj(E), after its check that
    the loss does not depend on the eigenvectors' phases."""
    vhgv = _complex_matmul(vh, g_v)
    diag = np.einsum("...ii->...i", vhgv)
    _check_phase_invariant(diag.imag)
    scale = np.expand_dims(diag.real.astype(vhgv.dtype), -2)  # (TensorIterator's copy)
    vhgv = add(vhgv, _complex_matmul(vh, multiply(v, scale)), -1)
    lconj = np.conj(lam)
    e = add(np.expand_dims(lconj, -2), np.expand_dims(lconj, -1), -1)
    np.einsum("...ii->...i", e)[...] = 1
    with into_operand():  # (VhgV.div_(Econj): in place)
        return divide(vhgv, e)


def _primal_layout(tangent: np.ndarray, primal: np.ndarray) -> np.ndarray:
    """A tangent as forward AD stores it: as it is when its strides are the primal's (those
    of size-1 dims aside), else copied into the primal's layout."""
    if all(t == p for n, t, p in zip(primal.shape, tangent.strides, primal.strides) if n > 1):
        return tangent
    out = np.empty_like(primal)
    out[...] = tangent
    return out


def _complex_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """at::matmul of two (batches of) square complex matrices of one batch shape: mm, or
    bmm over the batch flattened (its own loop below 400 multiply-adds, MKL's batched gemm
    above); the conjugate of an operand already resolved, as bmm and addmm resolve it."""
    if a.ndim == 2:
        return blas.mm(a, b)
    n = a.shape[-1]
    return blas.bmm(a.reshape(-1, n, n), b.reshape(-1, n, n)).reshape(a.shape)


def _check_converged(info: np.ndarray, fname: str) -> None:
    """_linalg_check_errors for geev: info > 0 when the QR algorithm did not converge."""
    if (info > 0).any():
        k, prefix = batch_prefix(info)
        raise linalg_error(
            f"{fname}: {prefix}The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated eigenvalues (error code: "
            f"{int(info.reshape(-1)[k])}).")


def _check_phase_invariant(im_diag: np.ndarray) -> None:
    """linalg_eig_backward's check that the loss does not change when an eigenvector is
    multiplied by e^{iφ}: allclose(Im diag(Vᴴ gV), 0, rtol=1e-2, atol=1e-2)."""
    if not bool(np.all(np.abs(im_diag) <= im_diag.dtype.type(1e-2))):
        raise TorchRuntimeError(
            "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
            "multiplication by e^{i phi}. The specified loss function depends on this "
            "quantity, so it is ill-defined.")


def _check_eig_input(a: Tensor, fname: str) -> None:
    """linalg_eig's checks in torch's order: a complex result dtype (toComplexType), at least
    two dimensions, square matrices, then the CPU kernel's dtypes."""
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        raise TorchRuntimeError(f"Unknown Complex ScalarType for {a.dtype.scalar_type}")
    if a.array.ndim < 2:
        raise TorchRuntimeError(
            f"{fname}: The input tensor A must have at least 2 dimensions.")
    m, n = a.array.shape[-2:]
    if m != n:
        raise TorchRuntimeError(f"{fname}: A must be batches of square matrices, but they are "
                                f"{m} by {n} matrices")
    if a.dtype is dtypes.float16:
        raise NotSupportedError(f"torch.{fname} of float16 tensors (torch.complex32)")
    if a.array.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise not_implemented("linalg_eig_out_cpu", a.dtype)


def _check_finite(a: Tensor) -> None:
    """linalg_eig_out's check before geev computes eigenvectors (a meta tensor has no
    values to check)."""
    if not stands_on_meta(a.array) and not bool(np.isfinite(a.array).all()):
        raise TorchRuntimeError(
            "torch.linalg.eig: input tensor should not contain infs or NaNs.")


def eig(a: Tensor) -> ReturnTypes:
    """torch.linalg.eig: complex eigenvalues and unit eigenvectors of general matrices."""
    _check_eig_input(a, "linalg.eig")
    _check_finite(a)
    return EigReturn(*LinalgEigBackward0.call(a, compute_v=True))


def eigvals(a: Tensor) -> Tensor:
    """torch.linalg.eigvals: linalg.eig's eigenvalues when A needs a gradient (its node,
    eigenvectors saved), else geev without eigenvectors (whose eigenvalues may differ in the
    last bits) and without linalg.eig's check for infs and NaNs."""
    _check_eig_input(a, "linalg.eigvals")
    if _needs_uv(a) or has_tangent((a,)):  # _may_require_fw_or_bw_grad
        _check_finite(a)
        return LinalgEigBackward0.call(a, compute_v=True)[0]
    if stands_on_meta(a.array):
        return Tensor._wrap(meta_array(a.array.shape[:-1], np.result_type(a.array.dtype,
                                                                          np.complex64)))
    w, _, info = lapack.geev(a.array, False)
    _check_converged(info, "torch.linalg.eigvals")
    return wrap_result(w)


# -- pseudo-inverse --------------------------------------------------------------------


class LinalgPinvBackward0(Function):
    __slots__ = ()
    formulas = (vjp("self", "pinv_backward({grad}, {result}, {self})"),)

    def forward(self, a: Tensor, atol: Any, rtol: Any, hermitian: bool) -> np.ndarray:
        self.save("self", a)
        x = a.array
        m, n = x.shape[-2:]
        u, s, vh, _ = lapack.gesdd(x, False, True)
        assert u is not None and vh is not None
        if s.shape[-1] == 0:
            return np.zeros(x.shape[:-2] + (n, m), dtype=x.dtype)
        max_val = s[..., :1]
        eps = np.finfo(x.dtype).eps
        if atol is None and rtol is None:
            tol = max_val * (eps * max(m, n))
        else:
            atol_ = 0.0 if atol is None else atol
            rtol_ = (eps * max(m, n) if atol is None or atol <= 0 else 0.0) \
                if rtol is None else rtol
            tol = np.maximum(np.asarray(atol_, dtype=x.dtype),
                             np.asarray(rtol_, dtype=x.dtype) * max_val)
        with np.errstate(divide="ignore"):
            s_inv = np.where(s > tol, np.reciprocal(s), np.zeros((), dtype=x.dtype))
        left = wrap_result(np.swapaxes(vh, -1, -2) * s_inv[..., None, :])
        return matmul(left, wrap_result(np.swapaxes(u, -1, -2))).array

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("result", outputs[0], is_output=True)

    def backward(self, grad: Tensor) -> Tensor:
        return pinv_backward(grad, self.unpack("result"), self.unpack("self"))


def pinv_backward(grad: Tensor, pinv_a: Tensor, a: Tensor) -> Tensor:
    """FunctionsManual.cpp's pinv_backward, with the products of the smaller dimension."""
    m, n = a.array.shape[-2:]
    pinv_ah, gradh = mT(pinv_a), mT(grad)
    if m <= n:
        k = matmul(gradh, pinv_a)
        k_pinv_ah = matmul(k, pinv_ah)
        return (-mT(matmul(pinv_a, k)) + k_pinv_ah
                - matmul(matmul(a, pinv_a), k_pinv_ah)
                + matmul(matmul(pinv_ah, pinv_a), gradh - matmul(k, a)))
    k = matmul(pinv_a, gradh)
    pinv_ah_k = matmul(pinv_ah, k)
    return (-mT(matmul(k, pinv_a))
            + matmul(matmul(gradh - matmul(a, k), pinv_a), pinv_ah) + pinv_ah_k
            - matmul(matmul(pinv_ah_k, pinv_a), a))


def pinv(a: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
         rcond: Any = None) -> Tensor:
    if a.array.ndim < 2 or not a.dtype.is_floating_point:
        shape = ", ".join(map(str, a.array.shape))
        kind = a.dtype.scalar_type
        raise TorchRuntimeError(
            f"linalg.pinv({kind}{{[{shape}]}}): expected a tensor with 2 or more dimensions "
            "of float, double, cfloat or cdouble types")
    check_matrices(a, "linalg.pinv", square=False)
    if rcond is not None:
        rtol = rcond
    return LinalgPinvBackward0.call(a, atol=atol, rtol=rtol, hermitian=hermitian)


def pinverse(a: Tensor, rcond: float = 1e-15) -> Tensor:
    return pinv(a, rtol=rcond)


def matrix_rank(a: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
                tol: Any = None) -> Tensor:
    """The number of singular values above the tolerance (no gradient)."""
    check_matrices(a, "torch.linalg.matrix_rank", square=False)
    x = a.array
    m, n = x.shape[-2:]
    if hermitian:
        w, _, _ = lapack.syevd(x, False, False)
        s = np.abs(w)
        s_max = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    else:
        _, s, _, _ = lapack.gesdd(x, False, False)
        s_max = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), dtype=x.dtype)
    if tol is not None:
        atol = tol
    eps = np.finfo(x.dtype).eps
    atol_ = 0.0 if atol is None else atol
    rtol_ = (eps * max(m, n) if atol is None or atol <= 0 else 0.0) if rtol is None else rtol
    thresh = np.maximum(np.asarray(atol_, dtype=x.dtype), np.asarray(rtol_, dtype=x.dtype)
                        * s_max)
    from ..tensor import bump_version

    rank = wrap_result((s > thresh).sum(-1).astype(np.int64))
    bump_version(rank)  # torch counts into the result with an out= sum
    return rank


# -- least squares ----------------------------------------------------------------------

LstsqReturn = named_return("linalg_lstsq", "solution", "residuals", "rank", "singular_values")


class LinalgLstsqBackward0(Function):
    __slots__ = ()
    multi_output = True
    materialize_grads = False
    formulas = (vjp("self", "pinv_backward({grad}[0] @ {b}ᵀ, pinv({self}), {self}) "
                            "+ 2 ({grad}[1] ({self} @ {solution} - {b})) @ {solution}ᵀ"),
                vjp("b", "pinv({self})ᵀ @ {grad}[0] - 2 {grad}[1] ({self} @ {solution} - {b})"))

    def forward(self, a: Tensor, b: Tensor, rcond: float, driver: str) -> list[np.ndarray]:
        self.save("self", a)
        self.save("b", b)
        matrix = _as_matrix(a, b)
        aa, bb = _broadcast_batches(a.array, matrix.array)
        buf, ranks, _, _ = lapack.gels_family(aa, bb, rcond, driver)
        m, n = a.array.shape[-2:]
        residuals = np.zeros((0,), dtype=a.array.dtype)
        # apply_lstsq's residuals: only for m > n, never gelsy's, and for gelsd and gelss
        # only when every matrix has full rank (the rows after X square-summed)
        if m > n and driver != "gelsy" and (ranks is None or bool((ranks == n).all())):
            raw = np.square(buf[..., n:, :])
            residuals = sum_array(raw, (raw.ndim - 2,), False, a.dtype)
        solution = buf[..., :n, :]
        return [solution[..., 0] if matrix is not b else solution, residuals]

    def after_forward(self, outputs: list[Tensor]) -> None:
        self.save("solution", outputs[0], is_output=True)

    def backward(self, g_x: Tensor | None, g_l: Tensor | None) -> tuple[Tensor | None, ...]:
        has_gl = g_l is not None and g_l.array.size > 0
        if g_x is None and not has_gl:
            return None, None
        a, given = self.unpack("self"), self.unpack("b")
        b = _as_matrix(a, given)
        vector = b is not given
        if g_x is not None and vector:
            g_x = unsqueeze(g_x, -1)
        g_a = g_b = None
        if g_x is not None:
            pinv_a = pinv(a)
            if self.needs_input_grad(0):
                g_a = pinv_backward(matmul(g_x, mT(b)), pinv_a, a)
            if self.needs_input_grad(1):
                g_b = matmul(mT(pinv_a), g_x)
        if has_gl:  # the residuals ‖A X - B‖² of each column add their own term
            x = self.unpack("solution")
            x = unsqueeze(x, -1) if vector else x
            gl_r = unsqueeze(g_l, -2) * (matmul(a, x) - b)
            if self.needs_input_grad(0):
                term = matmul(gl_r, mT(x)) * 2
                g_a = term if g_a is None else g_a + term
            if self.needs_input_grad(1):
                term = gl_r * -2
                g_b = term if g_b is None else g_b + term
        return g_a, (squeeze(g_b, -1) if vector and g_b is not None else g_b)


def _as_matrix(a: Tensor, b: Tensor) -> Tensor:
    """B as linalg_lstsq solves it: a vector B (linalg_solve_is_vector_rhs: 1-D, or shaped as
    A without its last dimension) becomes one column; any other B is itself."""
    vector = b.array.ndim == 1 or b.array.shape == a.array.shape[:-1]
    return unsqueeze(b, -1) if vector else b


def _broadcast_batches(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A and B with their batch dimensions broadcast together (_linalg_broadcast_batch_dims)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))


def lstsq(a: Tensor, b: Tensor, rcond: Any = None, *, driver: Any = None) -> ReturnTypes:
    """torch.linalg.lstsq with any of the CPU's drivers (gelsy by default): the solution,
    the residuals (gels always, gelsd and gelss at full rank, for m > n), the ranks (all
    but gels) and the singular values (gelsd, gelss); empty where a driver has none."""
    if driver is None:
        driver = "gelsy"
    if driver not in lapack.LSTSQ_DRIVERS:
        raise TorchRuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                                "(gels, gelsy, gelsd, gelss)")
    if a.array.ndim < 2:
        raise TorchRuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    check_matrices(a, "torch.linalg.lstsq", square=False)
    if b.array.ndim < 1:
        raise TorchRuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if a.dtype is not b.dtype:
        raise TorchRuntimeError(
            f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {a.dtype.scalar_type} and other's dtype "
            f"{b.dtype.scalar_type}")
    if not 0 <= a.array.ndim - b.array.ndim <= 1:
        raise TorchRuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                                "other.dim() and (input.dim() - other.dim()) <= 1")
    matrix = _as_matrix(a, b)
    if a.array.shape[-2] != matrix.array.shape[-2]:
        raise TorchRuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size("
                                f"{-1 if matrix is not b else -2})")
    m, n = a.array.shape[-2:]
    if rcond is None:
        rcond = float(np.finfo(a.array.dtype).eps) * max(m, n)
    aa, bb = _broadcast_batches(a.array, matrix.array)
    _, ranks, svals, info = lapack.gels_family(aa, bb, rcond, driver)
    if info.size and info.max() > 0:
        k, prefix = batch_prefix(info)
        raise linalg_error(
            f"torch.linalg.lstsq: {prefix}The least squares solution could not be computed "
            f"because the input matrix does not have full rank (error code: "
            f"{int(info.reshape(-1)[k])}).")
    solution, residuals = LinalgLstsqBackward0.call(a, b, rcond=rcond, driver=driver)
    # the ranks and singular values keep A's own batch shape (they depend on A alone)
    own = tuple(slice(0, 1) if d == 1 else slice(None) for d in a.array.shape[:-2])
    ranks = None if ranks is None else ranks[own]
    svals = None if svals is None else svals[own]
    empty = np.zeros((0,), dtype=a.array.dtype)
    rank = wrap_result(np.zeros((0,), dtype=np.int64) if ranks is None else ranks)
    return LstsqReturn(solution, residuals, rank, wrap_result(empty if svals is None else svals))
