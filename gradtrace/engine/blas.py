"""Matrix products as torch 2.13 computes them on the CPU: the same BLAS routines, called
with the same arguments.

torch's float32 and float64 `mm`, `addmm`, `F.linear` and `matmul` end in ATen's
`addmm_impl_cpu_` (LinearAlgebra.cpp): it copies an addmm's expanded bias into the
result, reads the transposition flags and leading dimensions off the strides of the
result and the operands (cloning an operand that is neither row- nor column-major), and
calls MKL's Fortran `sgemm_`/`dgemm_` through `cpublas::gemm` (CPUBlas.cpp). `mv` goes to
`addmv` and `?gemv_` (Blas.cpp, BlasKernel.cpp; a zero-stride vector takes ATen's own
loop), `dot` to `?dot`, and `bmm` to ATen's own plain loop below 400 multiply-adds, else
to MKL's batched gemm for contiguous or transposed batches (`cblas_?gemm_batch`), else to
one addmm per matrix. MKL's kernels, its blocking and its split of a product across
threads decide the bits, so gradtrace follows the same dispatch and calls the same MKL
build (engine/mkl.py) with the same arguments on torch's thread count: every product then
has torch's bits (tests/test_numerics_matmul.py). Without the `mkl` wheel, the order
model of engine/blas_model.py stands in and says where it is not exact.
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..errors import NotSupportedError
from . import aligned, bfloat16, blas_model, capability, exactness, mkl
from .dtypes import is_bfloat16
from .meta import META, meta_array, stands_on_meta
from .mkl import data_pointer

BMM_NAIVE = 400  # ATen's bmm: contraction * rows * cols below this runs its own plain loop
_INT_MAX = 2**31 - 1
_P = ctypes.c_void_p
_IP = ctypes.POINTER(ctypes.c_int)


# MKL's Fortran interface takes every integer by reference and only reads it: the
# references of the sizes and strides met are made once (~0.6 us each, six a product)
_INTS: dict[int, Any] = {}


def _int(v: int) -> Any:
    ref = _INTS.get(v)
    if ref is None:
        ref = ctypes.byref(ctypes.c_int(v))
        if len(_INTS) < 4096:
            _INTS[v] = ref
    return ref


def _strides(x: np.ndarray) -> tuple[int, ...]:
    """Strides in elements (what torch's kernels read)."""
    item = x.itemsize
    if x.ndim == 2:  # every matrix product reads its three matrices' (~1 us less each)
        s0, s1 = x.strides
        return (s0 // item, s1 // item)
    return tuple([s // item for s in x.strides])


class _Routines:
    """MKL's BLAS for one float dtype, typed: ?gemm_, ?gemv_, cblas_?dot, cblas_?gemm_batch.
    For complex64/complex128 the gemms (what mm and bmm reach; alpha and beta each a (real,
    imaginary) pair) and cblas_?dotu_sub / cblas_?dotc_sub (dot and vdot)."""

    def __init__(self, lib: Any, dtype: np.dtype) -> None:
        if dtype.kind == "c":
            p, part = ("c", ctypes.c_float) if dtype == np.complex64 else ("z", ctypes.c_double)
            pair = part * 2
            self.scalar = lambda v: pair(complex(v).real, complex(v).imag)
            ref = ctypes.POINTER(pair)
            self.gemm = lib.symbol(f"{p}gemm_", None, [
                ctypes.c_char_p, ctypes.c_char_p, _IP, _IP, _IP, ref, _P, _IP, _P, _IP, ref, _P,
                _IP])
            ints = ctypes.POINTER(ctypes.c_int)
            self.gemm_batch = lib.symbol(
                f"cblas_{p}gemm_batch", None,
                [ctypes.c_int, ints, ints, ints, ints, ints, ref, _P, ints, _P, ints, ref, _P,
                 ints, ctypes.c_int, ints])
            vector_product = [ctypes.c_int, _P, ctypes.c_int, _P, ctypes.c_int, _P]
            self.dotu = lib.symbol(f"cblas_{p}dotu_sub", None, vector_product)
            self.dotc = lib.symbol(f"cblas_{p}dotc_sub", None, vector_product)
            return
        p, scalar = ("s", ctypes.c_float) if dtype == np.float32 else ("d", ctypes.c_double)
        ref = ctypes.POINTER(scalar)
        self.scalar = scalar
        self.gemm = lib.symbol(f"{p}gemm_", None, [ctypes.c_char_p, ctypes.c_char_p, _IP, _IP,
                                                    _IP, ref, _P, _IP, _P, _IP, ref, _P, _IP])
        self.gemv = lib.symbol(f"{p}gemv_", None, [ctypes.c_char_p, _IP, _IP, ref, _P, _IP, _P,
                                                    _IP, ref, _P, _IP])
        self.dot = lib.symbol(f"cblas_{p}dot", scalar, [ctypes.c_int, _P, ctypes.c_int, _P,
                                                         ctypes.c_int])
        ints = ctypes.POINTER(ctypes.c_int)
        self.gemm_batch = lib.symbol(
            f"cblas_{p}gemm_batch", None,
            [ctypes.c_int, ints, ints, ints, ints, ints, ref, _P, ints, _P, ints, ref, _P, ints,
             ctypes.c_int, ints])


_ROUTINES: dict[np.dtype, _Routines] = {}


_READY: dict[tuple[Any, int], tuple[_Routines, Any]] = {}  # (dtype, threads) set up before


def _routines(dtype: np.dtype) -> _Routines | None:
    """MKL's routines for float32/float64 (complex64/complex128: gemm) on torch's thread
    count; None without MKL."""
    threads = capability.num_threads()
    ready = _READY.get((dtype, threads))
    # every product: skip the checks (other MKL users set their count), while the MKL they
    # were made with is still the loaded one (tests unload it to see the fallback)
    if ready is not None and ready[1] is mkl.loaded():
        ready[1].set_threads(threads)
        return ready[0]
    if dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        return None
    lib = mkl.load()
    if lib is None:
        return None
    lib.set_threads(threads)
    found = _ROUTINES.get(dtype)
    if found is None:
        found = _ROUTINES[dtype] = _Routines(lib, np.dtype(dtype))
    if threads > 1 and not lib.threaded:  # noted on every product (a run's notes are its own)
        exactness.note(f"MKL runs on one thread here (no OpenMP runtime found), torch on "
                       f"{threads}: products it splits across threads may differ")
    else:
        _READY[(dtype, threads)] = (found, lib)
    return found


def _gemm(blas: _Routines, transa: bool, transb: bool, m: int, n: int, k: int, alpha: Any,
          a: np.ndarray, lda: int, b: np.ndarray, ldb: int, beta: Any, c: np.ndarray,
          ldc: int, conja: bool = False, conjb: bool = False) -> bool:
    """cpublas::gemm (column-major C = alpha op(A) op(B) + beta C): normalize_last_dims, then
    MKL when the leading dimensions are valid (use_blas_gemm). False when torch would run
    its own gemm_stub instead."""
    lda, ldb, ldc = _normalized(transa, transb, m, n, k, lda, ldb, ldc)
    if not _blas_ok(transa, transb, m, n, k, lda, ldb, ldc):
        return False
    blas.gemm(_TRANSPOSE[transa, conja], _TRANSPOSE[transb, conjb], _int(m), _int(n), _int(k),
              ctypes.byref(blas.scalar(alpha)), data_pointer(a), _int(lda), data_pointer(b),
              _int(ldb), ctypes.byref(blas.scalar(beta)), data_pointer(c), _int(ldc))
    return True


# (transposed, conjugated) -> BLAS's op letter: torch's TransposeType (a conjugated operand
# that is not transposed was written out first: addmm_impl_cpu_'s resolve_conj)
_TRANSPOSE = {(False, False): b"N", (True, False): b"T", (True, True): b"C"}


def _normalized(transa: bool, transb: bool, m: int, n: int, k: int, lda: int, ldb: int,
                ldc: int) -> tuple[int, int, int]:
    """CPUBlas.cpp's normalize_last_dims: leading dimensions of single rows/columns."""
    if n == 1:
        ldc = m
    if transa:
        lda = k if m == 1 else lda
    elif k == 1:
        lda = m
    if transb:
        ldb = n if k == 1 else ldb
    elif n == 1:
        ldb = k
    return lda, ldb, ldc


def _blas_ok(transa: bool, transb: bool, m: int, n: int, k: int, lda: int, ldb: int,
             ldc: int) -> bool:
    """CPUBlas.cpp's use_blas_gemm."""
    return (max(m, n, k, lda, ldb, ldc) <= _INT_MAX and lda >= max(1, k if transa else m)
            and ldb >= max(1, n if transb else k) and ldc >= max(1, m))


def _addmm_into(result: np.ndarray, m1: np.ndarray, m2: np.ndarray, beta: Any,
                alpha: Any, blas: _Routines, conj1: bool = False, conj2: bool = False) -> None:
    """addmm_impl_cpu_ after the bias copy: result = beta * result + alpha * m1 @ m2, with
    result C-contiguous (a fresh output) or a contiguous slice of one. `conj1`/`conj2`: the
    operand is torch's lazily conjugated view of that matrix (a complex product's gradient)."""
    rs, (rows, cols) = _strides(result), result.shape
    if rs[0] == 1 and (cols == 1 or rs[1] >= max(1, rows)):
        transpose_c = False
    elif rs[1] == 1 and (rows == 1 or rs[0] >= max(1, cols)):
        m1, m2, transpose_c = m2, m1, True
        conj1, conj2 = conj2, conj1
    else:  # not reached for torch's own outputs; kept as torch writes it
        raise AssertionError("addmm: result is neither row- nor column-major")
    m, n = (cols, rows) if transpose_c else (rows, cols)
    k = m1.shape[0 if transpose_c else 1]
    inner, outer = (1, 0) if transpose_c else (0, 1)
    a, transpose_a, conj_a = _operand(m1, inner, outer, m, k, transpose_c, conj1)
    b, transpose_b, conj_b = _operand(m2, inner, outer, k, n, transpose_c, conj2)
    lda = _strides(a)[1 if transpose_a == transpose_c else 0]
    ldb = _strides(b)[1 if transpose_b == transpose_c else 0]
    ldc = rs[0 if transpose_c else 1]
    if not _gemm(blas, transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta,
                 result, ldc, conj_a, conj_b):
        exactness.note("a matrix product whose strides send torch to its own gemm loop "
                       "(not reproduced)")
        m1, m2 = (np.conjugate(m1) if conj1 else m1), (np.conjugate(m2) if conj2 else m2)
        with np.errstate(all="ignore"):  # MKL raises no numpy warning either
            prod = m2 @ m1 if transpose_c else m1 @ m2  # (the operands were swapped)
            result[...] = alpha * prod + (beta * result if beta else 0)


def _operand(x: np.ndarray, inner: int, outer: int, rows: int, cols: int,
             transpose_c: bool, conj: bool = False) -> tuple[np.ndarray, bool, bool]:
    """addmm_impl_cpu_'s cast of an operand to a BLAS matrix: as it lies when its strides
    allow (column-major: not transposed, a lazy conjugate written out; row-major:
    transposed, conjugated by BLAS), else a contiguous clone (keeping the conjugate lazy)."""
    s = _strides(x)
    if s[inner] == 1 and s[outer] >= max(1, rows):
        return (np.conjugate(x) if conj else x), False, False
    if s[outer] == 1 and s[inner] >= max(1, cols):
        return x, True, conj
    return np.ascontiguousarray(x), not transpose_c, conj


def mm(a: np.ndarray, b: np.ndarray, conj_a: bool = False, conj_b: bool = False
       ) -> np.ndarray:
    """torch.mm: addmm_impl_cpu_ with beta 0. `conj_a`/`conj_b`: that operand is torch's
    lazily conjugated view of the array (mm_mat1_backward's `mat2.t().conj()`)."""
    return addmm(None, a, b, 0, 1, conj_a, conj_b)


def addmm(bias: np.ndarray | None, a: np.ndarray, b: np.ndarray, beta: Any = 1,
          alpha: Any = 1, conj_a: bool = False, conj_b: bool = False) -> np.ndarray:
    """torch.addmm(bias, a, b, beta=, alpha=) (bias broadcast to the result); `bias` None
    with beta 0 is torch.mm."""
    if META.used and (stands_on_meta(a) or stands_on_meta(b)):
        return meta_array((a.shape[0], b.shape[1]), np.result_type(a, b))
    m, k = a.shape
    n = b.shape[1]
    dtype = np.result_type(a, b)
    if is_bfloat16(dtype):
        return _bfloat16_addmm(bias, a, b, beta, alpha)
    blas = _routines(dtype)
    if blas is None or m * n == 0 or k == 0:
        return _without_blas(bias, np.conjugate(a) if conj_a else a,
                             np.conjugate(b) if conj_b else b, beta, alpha, dtype)
    result = aligned.empty((m, n), dtype)
    if beta != 0:
        np.copyto(result, bias)
    _addmm_into(result, a, b, beta, alpha, blas, conj_a, conj_b)
    return result


def _bfloat16_addmm(bias: np.ndarray | None, a: np.ndarray, b: np.ndarray, beta: Any,
                    alpha: Any) -> np.ndarray:
    """torch.mm of bfloat16 matrices: addmm_impl_cpu_'s transpose flags for a fresh result
    (C-contiguous: BLAS computes its transpose, the operands swapped, unless it is one
    column), then torch's own gemm loop for those flags (engine/bfloat16.py's gemm). An
    addmm's bias, alpha or beta was not measured: refused."""
    if bias is not None and beta != 0 or alpha != 1:
        raise NotSupportedError("addmm() on torch.bfloat16 is not supported by gradtrace")
    m, n = a.shape[0], b.shape[1]
    if m * n == 0:
        return np.zeros((m, n), a.dtype)
    transpose_c = n != 1
    m1, m2 = (b, a) if transpose_c else (a, b)
    rows, cols = (n, m) if transpose_c else (m, n)
    k = a.shape[1]
    inner, outer = (1, 0) if transpose_c else (0, 1)
    _, transpose_a, _ = _operand(m1, inner, outer, rows, k, transpose_c)
    _, transpose_b, _ = _operand(m2, inner, outer, k, cols, transpose_c)
    # (the loops sum over k in order whichever operand BLAS calls `a`: the flags pick one)
    return bfloat16.gemm(a, b, transpose_a, transpose_b)


def _bfloat16_baddbmm(bias: np.ndarray | None, a: np.ndarray, b: np.ndarray, beta: Any,
                      alpha: Any) -> np.ndarray:
    """torch.bmm of bfloat16 batches: under BMM_NAIVE products per output,
    baddbmm_cpu_kernel's float32 sum over k in turn, rounded once; else each batch's mm
    (addmm_impl_cpu_ on the slices, measured). A bias, alpha or beta was not measured."""
    if bias is not None or alpha != 1:
        raise NotSupportedError("baddbmm() on torch.bfloat16 is not supported by gradtrace")
    bs, m, k = a.shape
    if k * m * b.shape[2] < BMM_NAIVE:
        return np.stack([bfloat16.gemm(a[i], b[i], False, True) for i in range(bs)])
    return np.stack([_bfloat16_addmm(None, a[i], b[i], 0, 1) for i in range(bs)])


def _without_blas(bias: np.ndarray | None, a: np.ndarray, b: np.ndarray, beta: Any,
                  alpha: Any, dtype: np.dtype) -> np.ndarray:
    """Empty products, integers, and every product when MKL is not installed."""
    m, k = a.shape
    n = b.shape[1]
    if m * n == 0 or k == 0:
        out = np.zeros((m, n), dtype)
        if beta != 0 and bias is not None:
            out[...] = np.asarray(bias * beta, dtype)
        return out
    if alpha != 1 or (beta not in (0, 1) and bias is not None):
        if dtype == np.float16:  # scaled and summed in float (torch's opmath), rounded once
            prod = np.matmul(a, b, dtype=np.float32) * np.float32(alpha)
            if bias is not None and beta != 0:
                prod = prod + bias.astype(np.float32) * np.float32(beta)
            return prod.astype(dtype)
        exactness.note("addmm with alpha or beta other than 1: the BLAS's scaling order is "
                       "not reproduced")
        prod = blas_model.matmul(a, b) * alpha
        return np.asarray(prod if bias is None or beta == 0 else prod + bias * beta, dtype)
    if bias is None or beta == 0:
        return blas_model.matmul(a, b)
    return np.asarray(blas_model.matmul(a, b, bias=np.broadcast_to(bias, (m, n))), dtype)


def mv(mat: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """torch.mv: addmv with beta 0."""
    return addmv(None, mat, vec, 0, 1)


def addmv(bias: np.ndarray | None, mat: np.ndarray, vec: np.ndarray, beta: Any = 1,
          alpha: Any = 1) -> np.ndarray:
    """torch.addmv(bias, mat, vec, beta=, alpha=) as Blas.cpp's addmv_out_cpu and
    BlasKernel.cpp's gemv: the bias (broadcast to the result) is copied in unless beta is 0,
    and ?gemv_ scales it by beta (reading none of it when beta is 0, so its nans vanish)."""
    if META.used and (stands_on_meta(mat) or stands_on_meta(vec)):
        return meta_array(mat.shape[:1], np.result_type(mat, vec))
    rows, cols = mat.shape
    dtype = np.result_type(mat, vec)
    out = aligned.zeros((rows,), dtype)
    if beta != 0 and bias is not None:
        np.copyto(out, bias, casting="unsafe")
    if dtype.kind == "c":
        return _complex_addmv(out, mat, vec, beta, alpha)
    blas = _routines(mat.dtype)
    if mat.size == 0:
        return out * dtype.type(beta) if beta != 0 else out
    if blas is None:
        if beta != 1 or alpha != 1:
            exactness.note("addmv with alpha or beta other than 1: the BLAS's scaling order is "
                           "not reproduced")
        prod = blas_model.matmul(mat, vec[:, None], vector=True)[:, 0]
        return _scaled_sum(prod, out, beta, alpha, dtype)
    s = _strides(mat)
    if s[0] == 1 and (cols == 1 or s[1] >= max(1, rows)):
        trans, m, n, a, lda = b"n", rows, cols, mat, s[1]
    elif s[1] == 1 and (rows == 1 or s[0] >= max(1, cols)):
        trans, m, n, a, lda = b"t", cols, rows, mat, s[0]
    else:
        a = np.ascontiguousarray(mat)
        trans, m, n, lda = b"t", cols, rows, _strides(a)[0]
    incx = _strides(vec)[0]
    if n == 1:
        lda = m
    if not 0 < incx <= _INT_MAX:  # gemv_use_fast_path: ATen's loop, a plain chain over k
        with np.errstate(all="ignore"):
            prod = blas_model.chain(mat, vec[:, None], False)[:, 0]
            return _scaled_sum(prod, out, beta, alpha, dtype)
    with np.errstate(all="ignore"):
        blas.gemv(trans, _int(m), _int(n), ctypes.byref(blas.scalar(alpha)), data_pointer(a),
                  _int(lda), data_pointer(vec), _int(incx), ctypes.byref(blas.scalar(beta)),
                  data_pointer(out), _int(1))
    return out


def _complex_product(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """c10::complex's operator* on (real, imaginary) pairs, unfused: (ac - bd, ad + bc)."""
    (ar, ai), (br, bi) = a, b
    return ar * br - ai * bi, ar * bi + ai * br


def _complex_addmv(out: np.ndarray, mat: np.ndarray, vec: np.ndarray, beta: Any,
                   alpha: Any) -> np.ndarray:
    """A complex addmv (`out` holds the bias, or zeros with beta 0): torch's
    gemv_use_fast_path is false for complex types, so Blas.cpp's addmv_out_cpu reaches
    BlasKernel.cpp's own loop (compiled without FMA, each c10::complex product and sum
    rounded): a column-major matrix ('n') accumulates y[i] += (alpha x[j]) a[i, j] column
    by column, after y *= beta (beta not 0 or 1) or y = 0 (beta 0); any other ('t', a
    non-BLAS layout made contiguous) sums x[j] a[i, j] from 0 along each row, then
    y = alpha sum (beta 0) or beta y + alpha sum. An empty matrix gives beta * bias."""
    rows, cols = mat.shape
    part = out.real.dtype.type
    al, be = complex(alpha), complex(beta)
    alpha_pair = (part(al.real), part(al.imag))
    beta_pair = (part(be.real), part(be.imag))
    with np.errstate(all="ignore"):
        if mat.size == 0:
            if beta == 0:
                return np.zeros_like(out)
            re, im = _complex_product((out.real, out.imag), beta_pair)
            out.real, out.imag = re, im
            return out
        s = _strides(mat)
        column_major = s[0] == 1 and (cols == 1 or s[1] >= max(1, rows))
        mr, mi = np.asarray(mat.real), np.asarray(mat.imag)
        xr, xi = np.asarray(vec.real), np.asarray(vec.imag)
        if column_major:
            if beta == 0:
                yr, yi = np.zeros(rows, out.real.dtype), np.zeros(rows, out.real.dtype)
            elif beta == 1:
                yr, yi = out.real.copy(), out.imag.copy()
            else:  # scal: zeros where beta is 0, else y *= beta
                yr, yi = _complex_product((out.real, out.imag), beta_pair)
            for j in range(cols):
                zr, zi = _complex_product(alpha_pair, (xr[j], xi[j]))
                pr, pi = _complex_product((zr, zi), (mr[:, j], mi[:, j]))
                yr, yi = yr + pr, yi + pi
        else:
            sr = np.zeros(rows, out.real.dtype)
            si = np.zeros(rows, out.real.dtype)
            for j in range(cols):
                pr, pi = _complex_product((xr[j], xi[j]), (mr[:, j], mi[:, j]))
                sr, si = sr + pr, si + pi
            yr, yi = _complex_product(alpha_pair, (sr, si))
            if beta != 0:
                br, bi = _complex_product(beta_pair, (out.real, out.imag))
                yr, yi = br + yr, bi + yi
        out.real, out.imag = yr, yi
    return out


def _scaled_sum(prod: np.ndarray, bias: np.ndarray, beta: Any, alpha: Any,
                dtype: np.dtype) -> np.ndarray:
    """alpha * prod + beta * bias, each factor of 1 and a beta of 0 left out (so a product
    of -0.0 stays -0.0)."""
    with np.errstate(all="ignore"):
        out = prod if alpha == 1 else dtype.type(alpha) * prod
        if beta != 0:
            out = out + (bias if beta == 1 else dtype.type(beta) * bias)
        return np.asarray(out, dtype)


def dot(a: np.ndarray, b: np.ndarray, conjugate_first: bool = False) -> np.ndarray:
    """torch.dot (and, `conjugate_first`, torch.vdot of complex vectors): BlasKernel.cpp's
    dot_impl and vdot_impl, MKL's ?dot, or ?dotu_sub / ?dotc_sub, on the strided vectors."""
    if META.used and (stands_on_meta(a) or stands_on_meta(b)):
        return meta_array((), a.dtype)
    blas = _routines(a.dtype)
    if blas is None:
        if a.dtype.kind == "c":
            exactness.note("a complex dot product without MKL: its summation order is not "
                           "reproduced")
            return np.asarray(np.vdot(a, b) if conjugate_first else np.dot(a, b), a.dtype)
        return blas_model.dot(a, b)
    n = a.size
    inc_a, inc_b = (1, 1) if n == 1 else (_strides(a)[0], _strides(b)[0])
    with np.errstate(all="ignore"):
        if a.dtype.kind != "c":
            return np.asarray(blas.dot(n, data_pointer(a), inc_a, data_pointer(b), inc_b),
                              a.dtype)
        out = np.zeros((), a.dtype)
        (blas.dotc if conjugate_first else blas.dotu)(
            n, data_pointer(a), inc_a, data_pointer(b), inc_b, out.ctypes.data)
        return out


def bmm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.bmm: baddbmm without a bias."""
    return baddbmm(None, a, b, 0, 1)


def baddbmm(bias: np.ndarray | None, a: np.ndarray, b: np.ndarray, beta: Any = 1,
            alpha: Any = 1) -> np.ndarray:
    """torch.bmm and torch.baddbmm as LinearAlgebra.cpp's bmm_out_or_baddbmm_ dispatches
    them; `bias` (broadcast to the result) is copied into the result first unless it is
    None (bmm), and beta 0 reads none of it."""
    if META.used and (stands_on_meta(a) or stands_on_meta(b)):
        return meta_array((a.shape[0], a.shape[1], b.shape[2]), np.result_type(a, b))
    bs, m, k = a.shape
    n = b.shape[-1]
    dtype = np.result_type(a, b)
    result = aligned.zeros((bs, m, n), dtype)
    if bias is not None:
        np.copyto(result, bias, casting="unsafe")
    if bs * m * n == 0:
        return result
    if k == 0:
        return result * dtype.type(beta) if bias is not None and beta != 0 else \
            np.zeros_like(result)
    if is_bfloat16(dtype):
        return _bfloat16_baddbmm(bias, a, b, beta, alpha)
    if k * m * n < BMM_NAIVE:  # baddbmm_cpu_kernel: a plain chain, compiled without FMA
        if dtype.kind == "c" and bias is None:
            return _complex_chain(a, b)
        if not np.issubdtype(a.dtype, np.floating):
            prod = np.matmul(a, b)
        else:
            with np.errstate(all="ignore"):
                prod = blas_model.chain(a, b, False)
        if bias is None:
            return prod
        with np.errstate(all="ignore"):
            scaled = dtype.type(alpha) * prod
            return scaled if beta == 0 else result * dtype.type(beta) + scaled
    blas = _routines(a.dtype)
    if blas is None:
        prod = blas_model.bmm(a, b)
        if bias is None:
            return prod
        exactness.note("baddbmm without MKL: the BLAS's scaling order is not reproduced")
        return _scaled_sum(prod, result, beta, alpha, dtype)
    beta = beta if bias is not None else 0
    if _batch_items_blas_ready(a) and _batch_items_blas_ready(b):
        _baddbmm_with_gemm(result, a, b, beta, alpha, blas)
    else:  # split along the batch: one addmm per matrix
        for i in range(bs):
            _addmm_into(result[i], a[i], b[i], beta, alpha, blas)
    return result


def _complex_chain(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """baddbmm_cpu_kernel's complex bmm: each element acc += a[i, k] * b[k, j] from 0 over
    k, c10::complex's product (ac - bd, ad + bc) and sum, unfused (LinearAlgebra.cpp is
    compiled without FMA)."""
    ar, ai = a.real[..., :, None, :], a.imag[..., :, None, :]
    bt = np.swapaxes(b, -1, -2)[..., None, :, :]
    br, bi = bt.real, bt.imag
    with np.errstate(all="ignore"):
        re, im = ar * br - ai * bi, ar * bi + ai * br
    acc_re = np.zeros(re.shape[:-1], re.dtype)
    acc_im = np.zeros(re.shape[:-1], re.dtype)
    for i in range(re.shape[-1]):
        acc_re = acc_re + re[..., i]
        acc_im = acc_im + im[..., i]
    out = np.empty(acc_re.shape, a.dtype)
    out.real, out.imag = acc_re, acc_im
    return out


def _batch_items_blas_ready(t: np.ndarray) -> bool:
    """bmm's batch_items_contiguous_or_transposed."""
    (_, rows, cols), s = t.shape, _strides(t)
    return ((s[2] == 1 and (rows == 1 or s[1] >= cols))
            or (s[1] == 1 and (cols == 1 or s[2] >= rows)))


def _baddbmm_with_gemm(result: np.ndarray, mat1: np.ndarray, mat2: np.ndarray, beta: Any,
                       alpha: Any, blas: _Routines) -> None:
    """baddbmm_with_gemm_ and cpublas::gemm_batched_with_stride: the product of the
    transposes, column-major, as one MKL batched gemm (a single matrix: plain gemm)."""
    s1, s2, sr = _strides(mat1), _strides(mat2), _strides(result)
    transpose_a = s2[1] == 1 and s2[2] >= mat2.shape[1]
    transpose_b = s1[1] == 1 and s1[2] >= mat1.shape[1]
    bs, n, m = result.shape
    k = mat2.shape[1]
    lda, ldb, ldc = s2[2 if transpose_a else 1], s1[2 if transpose_b else 1], sr[1]
    with np.errstate(all="ignore"):
        if bs == 1:
            done = _gemm(blas, transpose_a, transpose_b, m, n, k, alpha, mat2[0], lda, mat1[0],
                         ldb, beta, result[0], ldc)
        else:
            lda, ldb, ldc = _normalized(transpose_a, transpose_b, m, n, k, lda, ldb, ldc)
            done = _blas_ok(transpose_a, transpose_b, m, n, k, lda, ldb, ldc)
            if done:
                _gemm_batch(blas, transpose_a, transpose_b, m, n, k, alpha, mat2, lda, mat1,
                            ldb, beta, result, ldc)
            else:  # gemm_batched_with_stride_generic: one gemm per matrix
                done = all(_gemm(blas, transpose_a, transpose_b, m, n, k, alpha, mat2[i], lda,
                                 mat1[i], ldb, beta, result[i], ldc) for i in range(bs))
    if not done:
        exactness.note("a batched matrix product whose strides send torch to its own gemm "
                       "loop (not reproduced)")
        result[...] = alpha * np.matmul(mat1, mat2) + (beta * result if beta != 0 else 0)


def _gemm_batch(blas: _Routines, transa: bool, transb: bool, m: int, n: int, k: int,
                alpha: Any, a: np.ndarray, lda: int, b: np.ndarray, ldb: int, beta: Any,
                c: np.ndarray, ldc: int) -> None:
    """cblas_?gemm_batch(CblasColMajor, ...) with one group of every matrix in the batch
    (mkl/LinearAlgebra.cpp's mkl_gemm_batched)."""
    bs = c.shape[0]
    ints = ctypes.c_int * 1
    pointers = ctypes.c_void_p * bs

    def starts(x: np.ndarray) -> Any:
        step, start = x.strides[0], data_pointer(x)
        return pointers(*(start + i * step for i in range(bs)))

    no, trans = 111, 112  # CblasNoTrans, CblasTrans
    blas.gemm_batch(102, ints(trans if transa else no), ints(trans if transb else no),
                    ints(m), ints(n), ints(k), ctypes.byref(blas.scalar(alpha)), starts(a),
                    ints(lda), starts(b), ints(ldb), ctypes.byref(blas.scalar(beta)), starts(c),
                    ints(ldc), 1, ints(bs))


def gemm(transa: bool, transb: bool, m: int, n: int, k: int, a: np.ndarray, lda: int,
         b: np.ndarray, ldb: int, beta: int, c: np.ndarray, ldc: int,
         threads: int | None = None) -> bool:
    """cpublas::gemm as ATen's own kernels call it (column-major C = op(A) op(B) + beta C on
    contiguous buffers), on `threads` MKL threads (torch's count when None: a call inside
    ATen's parallel_for runs on one). False when MKL is missing or torch would run its own
    loop: the caller computes the product otherwise and notes it."""
    blas = _routines(c.dtype)
    if blas is None:
        return False
    from . import mkl

    lib = mkl.load()
    if threads is not None and lib is not None:
        lib.set_threads(threads)
    with np.errstate(all="ignore"):
        return _gemm(blas, transa, transb, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
