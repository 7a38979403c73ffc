"""LAPACK as torch 2.13 calls it on the CPU: the same MKL routines (getrf, getrs, potrf,
geqrf/orgqr, gesdd, syevd, geev) on column-major copies of each matrix of a batch, with the
workspace sizes LAPACK's own query returns (BatchLinearAlgebra.cpp's apply_* functions).

MKL's LAPACK decides the bits of det, inv, solve, cholesky (cholesky_solve,
cholesky_inverse), qr, svd, eigh and eig; gradtrace
calls the same build (engine/mkl.py) so that they are torch's. Without the `mkl` wheel
numpy's LAPACK (OpenBLAS) stands in: the same algorithms, other blocking and kernels, so
results may differ in the last bits, and `exactness` says so.

Every function takes and returns row-major arrays of shape (..., m, n) and loops over the
batch, as torch's CPU kernels do.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

from . import aligned, capability, exactness, unreproducible

_P = ctypes.c_void_p
_IP = ctypes.POINTER(ctypes.c_int)
_CP = ctypes.c_char_p


def _int(v: int) -> Any:
    return ctypes.byref(ctypes.c_int(v))


def _mkl() -> Any:
    from . import mkl

    lib = mkl.load()
    if lib is None:
        exactness.note("LAPACK results come from numpy's LAPACK, not torch's MKL: "
                       "decompositions may differ in the last bits")
        return None
    lib.set_threads(capability.num_threads())
    return lib


_PREFIXES = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
             np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def _routine(lib: Any, dtype: np.dtype, name: str, n_args: int) -> Callable[..., Any]:
    return lib.symbol(f"{_PREFIXES[np.dtype(dtype)]}{name}_", None, [_P] * n_args)


def _batched_column_major(a: np.ndarray) -> np.ndarray:
    """A copy of `a` laid out as torch's cloneBatchedColumnMajor lays it: one buffer at a
    64-byte boundary, each matrix column-major, matrix i at i * m * n. On an AMD CPU MKL's
    LAPACK kernels take other summation orders for other 16-byte phases of a matrix
    (measured: a float32 11x11 sgeev's eigenvalues changed with the copy's offset), so
    each matrix must lie where torch's does."""
    out = aligned.empty(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
    out[...] = np.swapaxes(a, -1, -2)
    return np.swapaxes(out, -1, -2)


def _is_batched_column_major(a: np.ndarray) -> bool:
    """Whether `a` lies as _batched_column_major lays it out (each matrix's columns
    contiguous, the matrices one after another)."""
    return np.swapaxes(a, -1, -2).flags.c_contiguous


def _each_with_one_workspace(dtype: np.dtype, batch: tuple[int, ...],
                             call: Callable[[tuple[int, ...], np.ndarray, int], int]
                             ) -> np.ndarray:
    """apply_geqrf's, apply_orgqr's, apply_svd's and apply_linalg_eig's pattern: one
    workspace query (lwork -1) on the batch's first matrix, then `call(idx, work, lwork)`
    on every matrix with that one 64-byte-aligned workspace; LAPACK's infos."""
    query = np.zeros(1, dtype=dtype)
    call((0,) * len(batch), query, -1)
    work = aligned.zeros((max(1, int(query[0].real)),), dtype)
    info = np.zeros(batch, dtype=np.int32)
    for idx in np.ndindex(*batch):
        info[idx] = call(idx, work, work.size)
    return info


def _batches(a: np.ndarray) -> list[tuple[int, ...]]:
    return list(np.ndindex(*a.shape[:-2]))


def _work(dtype: np.dtype, size: float) -> np.ndarray:
    return np.zeros(max(1, int(size)), dtype=dtype)


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LU with partial pivoting of each (m, n) matrix: (LU, 1-based pivots, info)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    piv = np.zeros(a.shape[:-2] + (k,), dtype=np.int32)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    lib = _mkl()
    if lib is None:
        lu = np.empty(a.shape, dtype=a.dtype)
        for idx in _batches(a):
            lu[idx], piv[idx], info[idx] = _getrf_numpy(a[idx])
        return lu, piv, info
    lu = _batched_column_major(a)  # factored in place, as linalg_lu_factor_ex's LU
    for idx in _batches(a):
        p = np.zeros(k, dtype=np.int32)
        res = ctypes.c_int(0)
        if m and n:
            _routine(lib, a.dtype, "getrf", 6)(_int(m), _int(n), lu[idx].ctypes.data,
                                               _int(max(1, m)), p.ctypes.data,
                                               ctypes.byref(res))
        piv[idx], info[idx] = p, res.value
    return lu, piv, info


def _getrf_numpy(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Right-looking LU with partial pivoting (LAPACK's getf2), for want of MKL."""
    lu = a.astype(a.dtype, copy=True)
    m, n = lu.shape
    piv = np.zeros(min(m, n), dtype=np.int32)
    info = 0
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        piv[j] = p + 1
        if lu[p, j] != 0:
            if p != j:
                lu[[j, p]] = lu[[p, j]]
            lu[j + 1:, j] /= lu[j, j]
        elif info == 0:
            info = j + 1
        lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
    return lu, piv, info


def getrs(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, transpose: bool = False
          ) -> np.ndarray:
    """Solve A X = B (or Aᵀ X = B) from getrf's factors, each batch alone."""
    n, nrhs = b.shape[-2:]
    lib = _mkl()
    if lib is None:
        out = np.empty(b.shape, dtype=b.dtype)
        for idx in _batches(b):
            li = idx[len(idx) - (lu.ndim - 2):] if lu.ndim > 2 else ()
            out[idx] = _getrs_numpy(lu[li], piv[li], b[idx], transpose)
        return out
    out = _batched_column_major(b)  # solved in place, as torch's result
    f_lu = lu if _is_batched_column_major(lu) else _batched_column_major(lu)
    for idx in _batches(b):
        li = idx[len(idx) - (lu.ndim - 2):] if lu.ndim > 2 else ()
        res = ctypes.c_int(0)
        if n and nrhs:
            p = np.ascontiguousarray(piv[li], dtype=np.int32)
            _routine(lib, b.dtype, "getrs", 9)(_CP(b"T" if transpose else b"N"), _int(n),
                                               _int(nrhs), f_lu[li].ctypes.data,
                                               _int(max(1, n)), p.ctypes.data,
                                               out[idx].ctypes.data, _int(max(1, n)),
                                               ctypes.byref(res))
    return out


def _getrs_numpy(lu: np.ndarray, piv: np.ndarray, b: np.ndarray, transpose: bool
                 ) -> np.ndarray:
    n = lu.shape[0]
    lower = np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)
    upper = np.triu(lu)
    perm = np.arange(n)
    for i, p in enumerate(piv):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    if not transpose:
        return np.linalg.solve(upper, np.linalg.solve(lower, b[perm]))
    y = np.linalg.solve(lower.T, np.linalg.solve(upper.T, b))
    out = np.empty_like(y)
    out[perm] = y
    return out


def potrs(factor: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    """Solve A X = B from A's Cholesky factor (?potrs on column-major copies of each batch,
    as apply_cholesky_solve); `factor` and `b` already broadcast to one batch shape."""
    n, nrhs = b.shape[-2:]
    out = np.empty(b.shape, dtype=b.dtype)
    lib = _mkl()
    b_cm = _batched_column_major(b)
    factor_cm = _batched_column_major(factor)
    for idx in _batches(b):
        f_a, f_b = factor_cm[idx], b_cm[idx]
        if lib is None:
            tri = np.triu(f_a) if upper else np.tril(f_a)
            low = tri.T if upper else tri
            out[idx] = np.linalg.solve(low.T, np.linalg.solve(low, f_b)) if f_b.size else f_b
            continue
        if n and nrhs:
            res = ctypes.c_int(0)
            _routine(lib, b.dtype, "potrs", 8)(_CP(b"U" if upper else b"L"), _int(n),
                                               _int(nrhs), f_a.ctypes.data, _int(max(1, n)),
                                               f_b.ctypes.data, _int(max(1, n)),
                                               ctypes.byref(res))
        out[idx] = f_b
    return out


def potri(factor: np.ndarray, upper: bool) -> np.ndarray:
    """The inverse of A from its Cholesky factor (?potri on a column-major copy of each
    matrix, as apply_cholesky_inverse), the triangle LAPACK writes copied to the other."""
    n = factor.shape[-1]
    out = np.empty(factor.shape, dtype=factor.dtype)
    lib = _mkl()
    factor_cm = _batched_column_major(factor)
    for idx in _batches(factor):
        f_a = factor_cm[idx]
        if lib is None:
            tri = np.triu(f_a) if upper else np.tril(f_a)
            low = tri.T if upper else tri
            f_a = np.linalg.inv(low @ low.T) if n else f_a
        elif n:
            res = ctypes.c_int(0)
            _routine(lib, factor.dtype, "potri", 5)(_CP(b"U" if upper else b"L"), _int(n),
                                                    f_a.ctypes.data, _int(max(1, n)),
                                                    ctypes.byref(res))
        tri = np.triu(f_a) if upper else np.tril(f_a)
        below = np.tril_indices(n, -1) if upper else np.triu_indices(n, 1)
        tri[below] = tri.T[below]
        out[idx] = tri
    return out


def potrf(a: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cholesky factor of each matrix (the other triangle zeroed) and LAPACK's info."""
    n = a.shape[-1]
    out = np.empty(a.shape, dtype=a.dtype)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    lib = _mkl()
    a_cm = _batched_column_major(a)
    for idx in _batches(a):
        f = a_cm[idx]
        if lib is not None:
            res = ctypes.c_int(0)
            if n:
                _routine(lib, a.dtype, "potrf", 5)(_CP(b"U" if upper else b"L"), _int(n),
                                                   f.ctypes.data, _int(max(1, n)),
                                                   ctypes.byref(res))
            info[idx] = res.value
        else:
            try:
                low = np.linalg.cholesky(a[idx])
                f = low.T if upper else low
            except np.linalg.LinAlgError:
                info[idx] = _first_non_positive_minor(a[idx])
        out[idx] = np.triu(f) if upper else np.tril(f)
    return out, info


def _first_non_positive_minor(a: np.ndarray) -> int:
    for k in range(1, a.shape[0] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def geqrf_orgqr(a: np.ndarray, complete: bool, with_q: bool
                ) -> tuple[np.ndarray | None, np.ndarray]:
    """Householder QR of each (m, n) matrix: Q (m×k, or m×m when complete) and R, in the
    buffers linalg_qr_out uses: geqrf factors A in Q when Q is m×n, else in R when R has m
    rows, else in a copy; Q is then made by orgqr in place."""
    m, n = a.shape[-2:]
    k = min(m, n)
    qcols = m if complete else k
    rrows = m if complete else k
    lib = _mkl()
    if lib is None:
        q = np.empty(a.shape[:-2] + (m, qcols), dtype=a.dtype) if with_q else None
        r = np.empty(a.shape[:-2] + (rrows, n), dtype=a.dtype)
        for idx in _batches(a):
            qq, rr = np.linalg.qr(a[idx], mode="complete" if complete else "reduced")
            if q is not None:
                q[idx] = qq
            r[idx] = rr
        return q, r
    batch = a.shape[:-2]
    q = _batched_column_major(np.zeros(batch + (m, qcols), a.dtype)) if with_q else None
    r = _batched_column_major(np.zeros(batch + (rrows, n), a.dtype))
    tau = aligned.zeros(batch + (k,), a.dtype)
    if q is not None and qcols == n:
        qr = q
    elif rrows == m:
        qr = r
    else:
        qr = _batched_column_major(a)
    qr[...] = a
    _geqrf_batched(lib, qr, tau)
    if qr is r:
        if q is not None:
            cols = min(m, n)
            q[..., :, :cols] = qr[..., :, :cols]
        r[...] = np.triu(r)
    else:
        r[...] = np.triu(qr[..., :rrows, :])
    if q is not None:
        _orgqr_batched(lib, q, tau)
    return q, r


def _geqrf_batched(lib: Any, f: np.ndarray, tau: np.ndarray) -> None:
    """apply_geqrf on a batched column-major buffer, in place, each matrix with its row
    of `tau`."""
    m, n = f.shape[-2:]
    if f.size == 0 or not m or not n:
        return
    fn = _routine(lib, f.dtype, "geqrf", 8)
    res = ctypes.c_int(0)

    def call(idx: tuple[int, ...], work: np.ndarray, lwork: int) -> int:
        fn(_int(m), _int(n), f[idx].ctypes.data, _int(max(1, m)), tau[idx].ctypes.data,
           work.ctypes.data, _int(lwork), ctypes.byref(res))
        return res.value

    _each_with_one_workspace(f.dtype, f.shape[:-2], call)


def _orgqr_batched(lib: Any, f: np.ndarray, tau: np.ndarray) -> None:
    """apply_orgqr on a batched column-major buffer holding the reflectors, in place: the
    (m, n) Q of each matrix's k = tau.shape[-1] reflectors."""
    m, n = f.shape[-2:]
    k = tau.shape[-1]
    if f.size == 0 or not m or not n:
        return
    fn = _routine(lib, f.dtype, "orgqr", 9)
    res = ctypes.c_int(0)

    def call(idx: tuple[int, ...], work: np.ndarray, lwork: int) -> int:
        fn(_int(m), _int(n), _int(k), f[idx].ctypes.data, _int(max(1, m)),
           tau[idx].ctypes.data, work.ctypes.data, _int(lwork), ctypes.byref(res))
        return res.value

    _each_with_one_workspace(f.dtype, f.shape[:-2], call)


def gesdd(a: np.ndarray, full_matrices: bool, compute_uv: bool
          ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None, np.ndarray]:
    """SVD of each (m, n) matrix by divide and conquer: U, S, Vh and LAPACK's info, in
    apply_svd's buffers (A, U and Vh batched column-major, one workspace query)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    ucols, vrows = (m, n) if full_matrices else (k, k)
    batch = a.shape[:-2]
    info = np.zeros(batch, dtype=np.int32)
    lib = _mkl()
    if lib is None:
        s = np.empty(batch + (k,), dtype=a.dtype)
        u = np.empty(batch + (m, ucols), dtype=a.dtype) if compute_uv else None
        vh = np.empty(batch + (vrows, n), dtype=a.dtype) if compute_uv else None
        for idx in _batches(a):
            if compute_uv:
                uu, ss, vv = np.linalg.svd(a[idx], full_matrices=full_matrices)
                u[idx], vh[idx] = uu, vv  # type: ignore[index]
            else:
                ss = np.linalg.svd(a[idx], compute_uv=False)
            s[idx] = ss
        return u, s, vh, info
    s = aligned.zeros(batch + (k,), a.dtype)
    u = _batched_column_major(np.zeros(batch + (m, ucols), a.dtype)) if compute_uv else None
    vh = _batched_column_major(np.zeros(batch + (vrows, n), a.dtype)) if compute_uv else None
    if not m or not n:  # an empty matrix: identity factors, as LAPACK is not called
        if compute_uv:
            u[...], vh[...] = np.eye(m, ucols, dtype=a.dtype), np.eye(vrows, n, dtype=a.dtype)  # type: ignore[index]
        return u, s, vh, info
    f = _batched_column_major(a)
    fn = _routine(lib, a.dtype, "gesdd", 14)
    jobz = _CP((b"A" if full_matrices else b"S") if compute_uv else b"N")
    ldu = _int(max(1, m) if compute_uv else 1)
    ldvt = _int(max(1, vrows) if compute_uv else 1)
    iwork = np.zeros(max(1, 8 * k), dtype=np.int32)
    res = ctypes.c_int(0)

    def call(idx: tuple[int, ...], work: np.ndarray, lwork: int) -> int:
        factors = [u[idx].ctypes.data, ldu, vh[idx].ctypes.data, ldvt] if compute_uv else \
            [None, ldu, None, ldvt]  # type: ignore[index]
        fn(jobz, _int(m), _int(n), f[idx].ctypes.data, _int(max(1, m)), s[idx].ctypes.data,
           *factors, work.ctypes.data, _int(lwork), iwork.ctypes.data, ctypes.byref(res))
        return res.value

    return u, s, vh, _each_with_one_workspace(a.dtype, batch, call)


def syevd(a: np.ndarray, upper: bool, compute_v: bool
          ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Eigen-decomposition of each symmetric (complex: Hermitian) matrix from one
    triangle: ascending real eigenvalues, eigenvectors as columns, LAPACK's info. A complex
    matrix goes to ?heevd with the real workspace rwork, as apply_lapack_eigh sizes it
    from the same query (lwork, lrwork and liwork at least 1)."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    complex_input = a.dtype.kind == "c"
    real_dtype = np.empty(0, dtype=a.dtype).real.dtype
    w = np.empty(batch + (n,), dtype=real_dtype)
    v = np.empty(a.shape, dtype=a.dtype) if compute_v else None
    info = np.zeros(batch, dtype=np.int32)
    lib = _mkl()
    uplo = "U" if upper else "L"
    a_cm = _batched_column_major(a)
    for idx in _batches(a):
        if lib is None:
            if compute_v:
                w[idx], v[idx] = np.linalg.eigh(a[idx], UPLO=uplo)  # type: ignore[index]
            else:
                w[idx] = np.linalg.eigvalsh(a[idx], UPLO=uplo)
            continue
        f = a_cm[idx]
        ww = np.zeros(max(1, n), dtype=real_dtype)
        res = ctypes.c_int(0)
        if n:
            head = [_CP(b"V" if compute_v else b"N"), _CP(uplo.encode()), _int(n),
                    f.ctypes.data, _int(max(1, n)), ww.ctypes.data]
            query = np.zeros(1, dtype=a.dtype)
            iquery = np.zeros(1, dtype=np.int32)
            if complex_input:
                fn = _routine(lib, a.dtype, "heevd", 13)
                rquery = np.zeros(1, dtype=real_dtype)
                fn(*head, query.ctypes.data, _int(-1), rquery.ctypes.data, _int(-1),
                   iquery.ctypes.data, _int(-1), ctypes.byref(res))
                work = _work(a.dtype, query[0].real)
                rwork = _work(real_dtype, rquery[0])
                iwork = np.zeros(max(1, int(iquery[0])), dtype=np.int32)
                fn(*head, work.ctypes.data, _int(work.size), rwork.ctypes.data,
                   _int(rwork.size), iwork.ctypes.data, _int(iwork.size),
                   ctypes.byref(res))
            else:
                fn = _routine(lib, a.dtype, "syevd", 11)
                fn(*head, query.ctypes.data, _int(-1), iquery.ctypes.data, _int(-1),
                   ctypes.byref(res))
                work = _work(a.dtype, query[0])
                iwork = np.zeros(max(1, int(iquery[0])), dtype=np.int32)
                fn(*head, work.ctypes.data, _int(work.size), iwork.ctypes.data,
                   _int(iwork.size), ctypes.byref(res))
        w[idx], info[idx] = ww[:n], res.value
        if compute_v:
            v[idx] = f  # type: ignore[index]
    return w, v, info


def geev(a: np.ndarray, compute_v: bool
         ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Eigen-decomposition of each general matrix, as apply_linalg_eig calls ?geev (no left
    vectors, one workspace query for the batch): complex eigenvalues, right eigenvectors
    as complex columns of Euclidean norm 1 (LAPACK's normalisation, largest component
    real), LAPACK's info. A real input's pairs (wr, wi) and real vector columns become
    complex as linalg_eig_make_complex_eigenvectors makes them: a conjugate pair's columns
    VR(:, j) ± i VR(:, j+1), copied, no arithmetic."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    cdtype = np.result_type(a.dtype, np.complex64)
    w = np.empty(batch + (n,), dtype=cdtype)
    v = np.empty(a.shape, dtype=cdtype) if compute_v else None
    info = np.zeros(batch, dtype=np.int32)
    if a.size == 0:
        return w, v, info
    lib = _mkl()
    if lib is None:
        for idx in _batches(a):
            if compute_v:
                w[idx], v[idx] = np.linalg.eig(a[idx])  # type: ignore[index]
            else:
                w[idx] = np.linalg.eigvals(a[idx])
        return w, v, info
    real = a.dtype.kind == "f"
    fn = _routine(lib, a.dtype, "geev", 14)
    jobs = [_CP(b"N"), _CP(b"V" if compute_v else b"N"), _int(n)]
    ldvr = _int(n if compute_v else 1)
    # linalg_eig_out_info's buffers: the input cloned batched column-major, the values
    # (wr then wi of each matrix, 2n a matrix, for a real input), the vectors batched
    # column-major, one workspace and rwork for the batch
    f = _batched_column_major(a)
    vals = aligned.zeros(batch + ((2 * n,) if real else (n,)), a.dtype)
    vr = _batched_column_major(np.zeros(a.shape, a.dtype)) if compute_v else None
    rwork = None if real else aligned.zeros((2 * n,), a.real.dtype)
    extra = [] if real else [rwork.ctypes.data]  # type: ignore[union-attr]

    def call(idx: tuple[int, ...], work: np.ndarray, lwork: int) -> int:
        res = ctypes.c_int(0)
        v_idx = vals[idx]
        # real: wr and wi, the two halves of the matrix's 2n values; complex: w, then rwork
        outs = [v_idx.ctypes.data, v_idx[n:].ctypes.data] if real else [v_idx.ctypes.data]
        vectors = None if vr is None else vr[idx].ctypes.data
        fn(*jobs, f[idx].ctypes.data, _int(n), *outs, None, _int(1), vectors, ldvr,
           work.ctypes.data, _int(lwork), *extra, ctypes.byref(res))
        return res.value

    info = _each_with_one_workspace(a.dtype, batch, call)
    for idx in _batches(a):
        if real:
            w[idx].real, w[idx].imag = vals[idx][:n], vals[idx][n:]
        else:
            w[idx] = vals[idx]
        if vr is not None:
            v[idx] = _complex_vectors(vr[idx], vals[idx][n:]) if real else vr[idx]  # type: ignore[index]
    return w, v, info


def _complex_vectors(vr: np.ndarray, wi: np.ndarray) -> np.ndarray:
    """linalg_eig_make_complex_eigenvectors: a real eigenvalue's column as it is, a
    conjugate pair's (positive imaginary part first) VR(:, j) + i VR(:, j+1) and
    VR(:, j) - i VR(:, j+1)."""
    out = vr.astype(np.result_type(vr.dtype, np.complex64))
    j = 0
    while j < len(wi):
        if wi[j] != 0:
            out[:, j].imag = vr[:, j + 1]
            out[:, j + 1] = vr[:, j]
            out[:, j + 1].imag = -vr[:, j + 1]
            j += 1
        j += 1
    return out


def trsm(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unitriangular: bool
         ) -> np.ndarray:
    """Solve A X = B (left) or X A = B for triangular A with BLAS ?trsm, each batch alone,
    as linalg_solve_triangular_out lays it out: B copied column-major, A passed as it lies
    (transa='T' on the buffer of a row-major A, a column-major copy of any other). `a` and
    `b` already broadcast to the same batch shape."""
    out = np.empty(b.shape, dtype=b.dtype)
    lib = _mkl()
    b_cm = _batched_column_major(b)
    for idx in _batches(b):
        mat = a[idx]
        if lib is None:
            tri = np.triu(mat) if upper else np.tril(mat)
            if unitriangular:
                np.fill_diagonal(tri, 1)
            out[idx] = (np.linalg.solve(tri, b[idx]) if left else
                        np.linalg.solve(tri.T, b[idx].T).T) if b[idx].size else b[idx]
            continue
        row_major = mat.flags.c_contiguous and not mat.flags.f_contiguous
        fa = np.asfortranarray(mat.T if row_major else mat)
        fb = b_cm[idx]  # a copy: trsm overwrites it with X
        m, n = fb.shape
        if m and n:
            one = (ctypes.c_float if b.dtype == np.float32 else ctypes.c_double)(1.0)
            _routine(lib, b.dtype, "trsm", 11)(
                _CP(b"L" if left else b"R"), _CP(b"U" if upper != row_major else b"L"),
                _CP(b"T" if row_major else b"N"), _CP(b"U" if unitriangular else b"N"),
                _int(m), _int(n), ctypes.byref(one), fa.ctypes.data,
                _int(max(1, fa.shape[0])), fb.ctypes.data, _int(max(1, m)))
        out[idx] = fb
    return out


def column_major(x: np.ndarray) -> np.ndarray:
    """`x` with each matrix column-major and the batch outermost: the layout of the
    results torch's LAPACK wrappers return (strides (..., 1, m)), in a fresh buffer where
    torch's allocator puts one (np.ascontiguousarray would keep a (1, m) row's strides as
    they are, so a (m, 1) solution would keep (1, 1) where torch's has (1, m))."""
    if x.ndim < 2:
        return x
    return _batched_column_major(x)


LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def gels_family(a: np.ndarray, b: np.ndarray, rcond: float, driver: str
                ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray]:
    """Least squares min ‖A X - B‖ with one of LAPACK's drivers, as torch's apply_lstsq
    calls them, each batch alone: the column-major (max(m, n), k) buffer LAPACK leaves B's
    copy in (X in its first n rows, for m > n the residual rows after them), the effective
    ranks (gelsy, gelsd, gelss), the singular values (gelsd, gelss) and LAPACK's info.
    A and B share their batch shape."""
    m, n = a.shape[-2:]
    k = b.shape[-1]
    rows = max(m, n)
    batch = a.shape[:-2]
    out = np.zeros(batch + (k, rows), dtype=a.dtype)  # column-major buffers, transposed
    ranks = np.zeros(batch, dtype=np.int64) if driver != "gels" else None
    svals = np.zeros(batch + (min(m, n),), dtype=a.dtype) \
        if driver in ("gelsd", "gelss") else None
    info = np.zeros(batch, dtype=np.int32)
    lib = _mkl()
    # apply_lstsq's jpvt is one at::empty buffer for the whole batch: the first matrix
    # pivots by what it held (columns whose entry is non-zero stay in front), and each
    # later one starts from the permutation the one before left (all non-zero: no pivoting)
    jpvt = np.full(max(1, n), unreproducible.fill() if driver == "gelsy" else 0, np.int32)
    if lib is None:
        for idx in _batches(a):
            x, _, rank, sv = np.linalg.lstsq(a[idx], b[idx], rcond=rcond)
            out[idx][:, :n] = x.T
            if m > n:  # the residual rows: the last m - n rows of Qᵀ B
                q = np.linalg.qr(a[idx], mode="complete")[0]
                out[idx][:, n:] = (q.T @ b[idx])[n:].T
            if ranks is not None:
                ranks[idx] = rank
            if svals is not None:
                svals[idx] = sv
        return np.swapaxes(out, -1, -2), ranks, svals, info
    # linalg_lstsq_out's buffers: A cloned batched column-major, B copied into the first
    # m rows of the (max(m, n), k) solution buffers; one workspace query for the batch
    fa = _batched_column_major(a)
    fb = _batched_column_major(np.zeros(batch + (rows, k), a.dtype))
    fb[..., :m, :] = b
    s = aligned.zeros(batch + (max(1, min(m, n)),), a.dtype)
    if not (m and n and k):
        return fb, ranks, None if svals is None else s[..., :min(m, n)], info
    scalar = ctypes.c_float if a.dtype == np.float32 else ctypes.c_double
    rank = ctypes.c_int(0)
    res = ctypes.c_int(0)
    fn = _routine(lib, a.dtype, driver, {"gels": 11, "gelsy": 13, "gelsd": 14, "gelss": 13}[driver])
    iwork = np.zeros(1, dtype=np.int32)

    def call(idx: tuple[int, ...], work: np.ndarray, lwork: int) -> int:
        mats = [_int(m), _int(n), _int(k), fa[idx].ctypes.data, _int(max(1, m)),
                fb[idx].ctypes.data, _int(max(1, rows))]
        tail = [work.ctypes.data, _int(lwork)]
        if driver == "gels":
            fn(_CP(b"N"), *mats, *tail, ctypes.byref(res))
        elif driver == "gelsy":
            fn(*mats, jpvt.ctypes.data, ctypes.byref(scalar(rcond)), ctypes.byref(rank), *tail,
               ctypes.byref(res))
        elif driver == "gelsd":
            fn(*mats, s[idx].ctypes.data, ctypes.byref(scalar(rcond)), ctypes.byref(rank),
               *tail, iwork.ctypes.data, ctypes.byref(res))
        else:
            fn(*mats, s[idx].ctypes.data, ctypes.byref(scalar(rcond)), ctypes.byref(rank),
               *tail, ctypes.byref(res))
        return res.value

    query = np.zeros(1, dtype=a.dtype)
    call((0,) * len(batch), query, -1)  # (gelsd: iwork's size in iwork[0])
    work = aligned.zeros((max(1, int(query[0])),), a.dtype)
    iwork = np.zeros(max(1, int(iwork[0])), dtype=np.int32)
    for idx in _batches(a):
        info[idx] = call(idx, work, work.size)
        if ranks is not None:
            ranks[idx] = rank.value
    return fb, ranks, None if svals is None else s[..., :min(m, n)], info


def geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """?geqrf of each (m, n) matrix, as apply_geqrf: the packed factor (R above the
    diagonal, the Householder vectors below) and tau (min(m, n) scalars)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lib = _mkl()
    if lib is None:  # numpy's LAPACK: the same ?geqrf, its packed factor transposed
        out = np.empty(a.shape, dtype=a.dtype)
        taus = np.zeros(a.shape[:-2] + (k,), dtype=a.dtype)
        for idx in _batches(a):
            if m and n:
                h, tau = np.linalg.qr(a[idx], mode="raw")
                out[idx], taus[idx] = h.T, tau[:k]
            else:
                out[idx] = a[idx]
        return out, taus
    out = _batched_column_major(a)
    taus = aligned.zeros(a.shape[:-2] + (k,), a.dtype)
    _geqrf_batched(lib, out, taus)
    return out, taus


def orgqr(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """?orgqr on a column-major copy of each (m, n) matrix with its k = tau.shape[-1]
    reflectors, as apply_orgqr: one workspace query for the batch."""
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.empty(a.shape, dtype=a.dtype)
    lib = _mkl()
    if lib is None:
        out = np.empty(a.shape, dtype=a.dtype)
        for idx in _batches(a):
            out[idx] = _reflect(a[idx], tau[idx], np.eye(m, n, dtype=a.dtype), True, False)
        return out
    out = _batched_column_major(a)
    taus = aligned.empty(tau.shape, tau.dtype)
    taus[...] = tau
    _orgqr_batched(lib, out, taus)
    return out


def ormqr(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool, transpose: bool
          ) -> np.ndarray:
    """?ormqr: Q C, Qᵀ C, C Q or C Qᵀ for the Q of `a`'s k = tau.shape[-1] reflectors, on a
    column-major copy of each C, as apply_ormqr."""
    m, n = c.shape[-2:]
    k = tau.shape[-1]
    out = np.empty(c.shape, dtype=c.dtype)
    if c.size == 0:
        return out
    lib = _mkl()
    if lib is None:
        for idx in _batches(c):
            out[idx] = _reflect(a[idx], tau[idx], c[idx], left, transpose)
        return out
    a_cm, c_cm = _batched_column_major(a), _batched_column_major(c)
    fn = _routine(lib, c.dtype, "ormqr", 13)
    side, trans = _CP(b"L" if left else b"R"), _CP(b"T" if transpose else b"N")
    lda = max(1, a.shape[-2])
    for idx in _batches(c):
        fa, fc = a_cm[idx], c_cm[idx]
        t = np.ascontiguousarray(tau[idx])
        res = ctypes.c_int(0)
        head = [side, trans, _int(m), _int(n), _int(k), fa.ctypes.data, _int(lda),
                t.ctypes.data, fc.ctypes.data, _int(max(1, m))]
        query = np.zeros(1, dtype=c.dtype)
        fn(*head, query.ctypes.data, _int(-1), ctypes.byref(res))
        work = _work(c.dtype, query[0])
        fn(*head, work.ctypes.data, _int(work.size), ctypes.byref(res))
        out[idx] = fc
    return out


def sytrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bunch-Kaufman LDLᵀ of each symmetric matrix from its lower triangle (?sytrf with
    uplo 'L', as apply_ldl_factor: one workspace query for the batch): the factor with the
    upper triangle zeroed, LAPACK's pivots and info."""
    n = a.shape[-1]
    out = np.empty(a.shape, dtype=a.dtype)
    piv = np.zeros(a.shape[:-2] + (n,), dtype=np.int32)
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    if a.size == 0:
        return out, piv, info
    lib = _mkl()
    if lib is None:
        raise_without_mkl("torch.linalg.ldl_factor")
    fn = _routine(lib, a.dtype, "sytrf", 8)
    res = ctypes.c_int(0)
    query = np.zeros(1, dtype=a.dtype)
    p = np.zeros(n, dtype=np.int32)
    a_cm = _batched_column_major(a)
    fn(_CP(b"L"), _int(n), a_cm[(0,) * (a.ndim - 2)].ctypes.data, _int(max(1, n)),
       p.ctypes.data, query.ctypes.data, _int(-1), ctypes.byref(res))
    work = _work(a.dtype, query[0])
    for idx in _batches(a):
        f = a_cm[idx]
        p = np.zeros(n, dtype=np.int32)
        res = ctypes.c_int(0)
        fn(_CP(b"L"), _int(n), f.ctypes.data, _int(max(1, n)), p.ctypes.data,
           work.ctypes.data, _int(work.size), ctypes.byref(res))
        out[idx], piv[idx], info[idx] = np.tril(f), p, res.value
    return out, piv, info


def sytrs(ld: np.ndarray, piv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve A X = B from sytrf's lower factor (?sytrs, uplo 'L'), each batch alone; the
    arguments already broadcast to one batch shape."""
    n, nrhs = b.shape[-2:]
    out = np.empty(b.shape, dtype=b.dtype)
    if b.size == 0:
        return out
    lib = _mkl()
    if lib is None:
        raise_without_mkl("torch.linalg.ldl_solve")
    fn = _routine(lib, b.dtype, "sytrs", 9)
    b_cm = _batched_column_major(b)
    ld_cm = _batched_column_major(ld)
    for idx in _batches(b):
        f_ld, f_b = ld_cm[idx], b_cm[idx]
        p = np.ascontiguousarray(piv[idx], dtype=np.int32)
        res = ctypes.c_int(0)
        fn(_CP(b"L"), _int(n), _int(nrhs), f_ld.ctypes.data, _int(max(1, n)), p.ctypes.data,
           f_b.ctypes.data, _int(max(1, n)), ctypes.byref(res))
        out[idx] = f_b
    return out

def _reflect(a: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool, transpose: bool
             ) -> np.ndarray:
    """Q C, Qᵀ C, C Q or C Qᵀ with Q = H₁ ⋯ H_k, Hᵢ = I - τᵢ vᵢ vᵢᵀ from `a`'s columns (unit
    diagonal): numpy's stand-in for ?orgqr / ?ormqr without MKL (other rounding)."""
    m = a.shape[0]
    out = np.array(c, dtype=a.dtype)
    order = range(len(tau))
    # Q C applies H_k first; Qᵀ C applies H_1 first; C Q applies H_1 first; C Qᵀ H_k first
    if left != transpose:
        order = reversed(order)
    for i in order:
        v = np.zeros(m, dtype=a.dtype)
        v[i] = 1
        v[i + 1:] = a[i + 1:, i]
        if left:
            out -= tau[i] * np.outer(v, v @ out)
        else:
            out -= tau[i] * np.outer(out @ v, v)
    return out


def raise_without_mkl(fname: str) -> None:
    """The Householder routines have no numpy stand-in: without MKL they are refused."""
    from ..errors import NotSupportedError

    raise NotSupportedError(f"{fname} without MKL's LAPACK (the `mkl` wheel)")
