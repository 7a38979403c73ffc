"""torch.complex64 / torch.complex128: the ops gradtrace computes exactly as torch's CPU
kernels do, and no other.

Values are numpy's complex64/complex128 arrays (a real and an imaginary float side by
side, as c10::complex lays them out, so view_as_real/view_as_complex share memory as in
torch). What runs is in `RUNS`: creation, casts, views, printing, polar/complex,
view_as_real/view_as_complex, .real/.imag, index_select, + - * /, exp, abs, sum, mean,
vector norms (linalg.vector_norm, linalg.norm, Tensor.norm; not the 0-norm, nor the nuclear
or spectral matrix norms),
isclose/allclose, linalg.eig/eigvals, torch.fft's transforms (MKL's, engine/mkl_dft.py),
einsum, bmm, mm, addmm, mv, addmv, inner, where and matmul (blas.py's complex paths: MKL's
gemm, ATen's own gemv loop), reciprocal, var, std, sqrt, `**` by a number, conj_physical,
conj views (conj_bit.py) and their autograd; every other op given a complex tensor or dtype
is refused with NotSupportedError naming it (what was not measured).

`multiply` rounds as torch 2.13's mul_kernel does (cpu_kernel_vec in ATen's Loops.h,
measured bit for bit in tests/test_complex_torch_diff.py). Its vector body (two
Vectorized<c10::complex<T>>, 8 complex64 or 4 complex128 elements with AVX2) computes
re = fl(fl(a*c) - fl(b*d)), im = fl(fl(a*d) + fl(b*c)) (_mm256_mul_ps, then hsub: no
fused multiply-add). Every other element runs c10::complex's scalar operator*, which GCC
contracts into FMAs in the AVX2 build: re = fma(a, c, -fl(b*d)), im = fma(a, d, fl(b*c)),
except that for complex64 its compiled loops keep some elements unfused (measured):
- basic_loop (a strided row, or the scalar tail of a contiguous row after its vector
  body): elements in pairs are fused, an odd last element is not; in place (the output
  is the first operand), a strided row is not fused at all;
- the tail of a row whose one input is a broadcast scalar (is_contiguous_scalar, at most
  7 elements): unfused up to 4 elements; else the first unfused, the next 4 fused, the
  rest unfused.
complex128's scalar code is fused everywhere. The `default` (non-FMA) build fuses nothing.

`divide` (`/`, torch.div, and inside linalg.eig's backward and forward derivative) rounds
as div_true_kernel does: c10::complex's operator/ everywhere (Vectorized's
falls back to it element by element), FMA-contracted, except complex64's numerators in
the odd last element of each loop (in place: every element outside the vector body).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import NotSupportedError
from . import capability, conj_bit, fp32, fp64, glibc, sleef, sleef64
from .dtypes import DType, complex64, complex128
from .meta import elementwise_strides
from .pointwise import iterator_layout, loop_row, thread_chunk

RUNS = frozenset("""
    tensor as_tensor zeros ones full zeros_like ones_like full_like empty empty_like new_zeros
    new_ones new_full new_tensor new_empty to type type_as float double half cfloat cdouble
    clone detach contiguous cpu item tolist numel nelement dim ndimension size stride
    element_size is_floating_point is_signed is_complex is_tensor promote_types result_type
    can_cast view reshape flatten unflatten squeeze unsqueeze t transpose permute expand
    expand_as view_as reshape_as unbind chunk split select narrow cat stack concat
    concatenate add sub subtract mul multiply neg negative polar complex view_as_real
    view_as_complex real imag requires_grad_ retain_grad backward register_hook storage_offset
    is_contiguous data_ptr untyped_storage movedim moveaxis swapaxes swapdims flip
    equal eq ne long int short char byte bool is_conj resolve_conj is_neg resolve_neg randn rand
    eig eigvals abs absolute isclose allclose sum mean hfft ihfft
    fft ifft rfft irfft fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn fftshift ifftshift roll
    Parameter bmm einsum is_complex conj_physical mm matmul stft istft div divide true_divide
    mv addmv addmm inner where tensordot reciprocal var std pow sqrt log
    floor_divide conj exp index_select angle cumsum dot vdot grad sgn eigh eigvalsh diag_embed
    mH H adjoint mT norm vector_norm pad constant_pad_nd
""".split())
# in place: the same arithmetic written back
RUNS = RUNS | frozenset(f"{name}_" for name in ("add", "sub", "mul", "neg", "zero", "fill",
                                                 "copy", "div", "divide", "true_divide",
                                                 "exp", "cumsum", "reciprocal"))


# the ordering comparisons, which have no complex kernel: op name -> torch's kernel name
_COMPARISONS = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "less": "lt",
                "less_equal": "le", "greater": "gt", "greater_equal": "ge"}


def _torch_error(name: str, dtype: DType) -> Exception | None:
    """torch's own error for op `name` on a complex tensor, where torch raises one."""
    from ..errors import ScriptError, TorchRuntimeError

    if name == "abs_":
        return TorchRuntimeError("In-place abs is not supported for complex tensors.")
    kernel = _COMPARISONS.get(name.removesuffix("_"))
    if kernel is not None:
        return ScriptError(f'"{kernel}_cpu" not implemented for \'{dtype.scalar_type}\'',
                           kind="NotImplementedError")
    return None


def check_op(name: str, operands: Any, kwargs: dict[str, Any], dtype: DType) -> None:
    """A call of torch op `name` given a complex tensor or dtype: NotSupportedError unless
    the op is one gradtrace computes exactly as torch does (or torch's error, where torch
    has no such op for complex tensors)."""
    if name.startswith("__"):
        return  # Python's operators: the engine's ops check them
    if name == "numpy" and kwargs.get("force") is not True and conj_bit.is_conj(operands[0]):
        from ..errors import TorchRuntimeError

        raise TorchRuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                                "tensor.resolve_conj().numpy() instead.")
    error = _torch_error(name, dtype)
    if error is not None:
        raise error
    if name not in RUNS:
        raise NotSupportedError(
            f"{name}() on torch.{dtype.name} is not supported by gradtrace: only creation, "
            "casts, views, printing, polar, view_as_real/view_as_complex, .real/.imag, "
            "+ - * /, torch.fft's transforms and their gradients are exact in complex dtypes")


def check_dtype(name: str, dtype: DType) -> None:
    """An engine op reached by a Python operator (`/`, `**`, `@`, ...) computing in a
    complex dtype: refused, as it was not measured."""
    if dtype.is_complex:
        raise NotSupportedError(f"{name} on torch.{dtype.name} is not supported by "
                                "gradtrace")


# Python's operators on tensors other than + - * / // @ == != abs() and unary - +: refused when
# an operand is complex (powers of complex values were not measured; its comparisons,
# bitwise ops and float()/int() raise errors gradtrace does not word)
_OPERATORS = {
    "__ipow__": "**=", "__mod__": "%",
    "__rmod__": "%", "__and__": "&", "__or__": "|", "__xor__": "^", "__rand__": "&",
    "__ror__": "|", "__rxor__": "^", "__lt__": "<", "__le__": "<=", "__gt__": ">",
    "__ge__": ">=", "__invert__": "~", "__lshift__": "<<", "__rlshift__": "<<",
    "__rshift__": ">>", "__rrshift__": ">>", "__float__": "float()", "__int__": "int()",
    "__index__": "an index",
}


def _guarded(fn: Any, symbol: str) -> Any:
    from .tensor import Tensor

    def op(self: Any, *args: Any) -> Any:
        other = args[0] if args else None
        if self.dtype.is_complex or type(other) is complex or (
                isinstance(other, Tensor) and other.dtype.is_complex):
            error = _torch_error(_OPERATOR_OPS.get(symbol, ""), _complex_operand(self, other))
            if error is not None:
                raise error
            if symbol in ("float()", "int()") and self.dtype.is_complex:
                if self.array.size != 1:
                    return fn(self, *args)  # (torch's error for more than one element)
                _check_real_valued(self, symbol)
                value = self.array.reshape(-1)[0].real
                return float(value) if symbol == "float()" else int(value)
            raise NotSupportedError(f"the {symbol} operator on complex values is not "
                                    "supported by gradtrace")
        return fn(self, *args)

    op.__name__ = getattr(fn, "__name__", symbol)
    return op


_OPERATOR_OPS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}  # (the operators' ops)


def _complex_operand(a: Any, b: Any) -> DType:
    from .tensor import Tensor

    if a.dtype.is_complex:
        return a.dtype
    if isinstance(b, Tensor) and b.dtype.is_complex:
        return b.dtype
    return complex64 if a.dtype.itemsize <= 4 else complex128


def _check_real_valued(a: Any, symbol: str) -> None:
    """float()/int() of a one-element complex tensor is its real part, unless its imaginary
    part is not zero: torch's overflow error (c10's checked convert)."""
    from ..errors import TorchRuntimeError

    if a.array.reshape(-1)[0].imag != 0:
        target = "double" if symbol == "float()" else "int64_t"
        raise TorchRuntimeError(f"value cannot be converted to type {target} without overflow")


def guard_operators(cls: type) -> None:
    """Wrap Tensor's operator methods in `_OPERATORS` (and the ops they wrap, which the
    interpreter calls directly) with the complex check."""
    for name, symbol in _OPERATORS.items():
        original = getattr(cls, name, None)
        if original is None:
            continue
        wrapper = _guarded(original, symbol)
        inner = getattr(original, "__wrapped__", None)
        if inner is not None:
            wrapper.__wrapped__ = _guarded(inner, symbol)  # type: ignore[attr-defined]
        setattr(cls, name, wrapper)


def complex_of(dtype: DType) -> DType:
    """The complex dtype whose parts are `dtype` (torch's toComplexType)."""
    return complex128 if dtype.itemsize == 8 and not dtype.is_complex or \
        dtype is complex128 else complex64


# -- the product, rounded as mul_kernel rounds --------------------------------------------

_VECTOR, _FUSED, _PLAIN = 0, 1, 2


def _positions(n: int, row: int, mode: str, dtype: DType
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For n elements in iteration order (rows of `row`, cut into threads' chunks): each
    one's position in its loop, the length of its loop's vector body, and its loop's
    length (cpu_kernel_vec's vectorized_loop: two Vectorized a step, the rest basic_loop;
    a strided loop is all basic_loop)."""
    width = 2 * capability.lanes(dtype.itemsize)
    it = np.arange(n)
    chunk = thread_chunk(n)
    c_start = it - it % chunk
    r_start = it - it % row
    start = np.maximum(c_start, r_start)
    length = np.minimum(np.minimum(c_start + chunk, r_start + row), n) - start
    pos = it - start
    body = length // width * width if mode != "strided" else np.zeros_like(length)
    return pos, body, length


# Whether the running op writes its result into an operand's memory (an in-place op): GCC
# compiled the kernels' scalar loops twice, for an output that may alias an input and for
# one that does not, and the two contract different product-sums into FMAs (measured)
_INTO_OPERAND = [False]


@contextmanager
def into_operand() -> Iterator[None]:
    """Run an op whose result overwrites its first operand (apply_inplace)."""
    before = _INTO_OPERAND[0]
    _INTO_OPERAND[0] = True
    try:
        yield
    finally:
        _INTO_OPERAND[0] = before


def _kinds(n: int, row: int, mode: str, dtype: DType) -> np.ndarray:
    """For n elements in iteration order: how mul_kernel computes each, _VECTOR, _FUSED or
    _PLAIN (see the module's docstring)."""
    if not capability.fma_build(capability.kernel()):
        return np.full(n, _PLAIN, np.int8)
    pos, body, length = _positions(n, row, mode, dtype)
    kinds = np.full(n, _FUSED, np.int8)
    q, m = pos - body, length - body
    if dtype is complex64:
        if mode == "strided" and _INTO_OPERAND[0]:
            kinds[:] = _PLAIN
        elif mode == "scalar":
            kinds[(m <= 4) | (q == 0) | (q > 4)] = _PLAIN
        else:
            kinds[q >= m // 2 * 2] = _PLAIN
    kinds[pos < body] = _VECTOR
    return kinds


def _parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.ascontiguousarray(x.real), np.ascontiguousarray(x.imag)


def _binary(x: np.ndarray, y: np.ndarray, kernel: Any) -> np.ndarray:
    """`kernel(a, b, kinds)` over complex operands of one dtype broadcast to one shape, in
    TensorIterator's order: the output laid out as torch lays it out from its inputs', the
    operands flattened in that order (1-D), `kinds` from `_kinds` (None for an empty one)."""
    dtype = complex64 if x.dtype == np.complex64 else complex128
    shape = np.broadcast_shapes(x.shape, y.shape)
    if 0 in shape:
        return np.empty(shape, x.dtype)
    out_strides = elementwise_strides(shape, (x, y))
    order = sorted(range(len(shape)), key=lambda d: -out_strides[d])
    views = [np.broadcast_to(v, shape).transpose(order) for v in (x, y)]
    row, mode = loop_row(views, x.itemsize)
    a, b = (np.ascontiguousarray(v).reshape(-1) for v in views)
    with np.errstate(all="ignore"):
        out = kernel(a, b, row, mode, dtype)
    # torch's layout, the strides of size-1 dims included (a transpose of the flat result
    # would give those others)
    result = np.lib.stride_tricks.as_strided(
        np.empty(out.size, out.dtype), shape, tuple(st * out.itemsize for st in out_strides))
    result.transpose(order)[...] = out.reshape(tuple(shape[d] for d in order))
    return result


def _product(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType) -> np.ndarray:
    kinds = _kinds(a.size, row, mode, dtype)
    ar, ai = _parts(a)
    br, bi = _parts(b)
    fma = fp32.fma if dtype is complex64 else fp64.fma
    bd, bc = ai * bi, ai * br
    fused = kinds == _FUSED
    re = ar * br - bd
    im = ar * bi + bc
    if fused.any():
        re[fused] = fma(ar[fused], br[fused], -bd[fused])
        im[fused] = fma(ar[fused], bi[fused], bc[fused])
    out = np.empty(a.size, a.dtype)
    out.real, out.imag = re, im
    return out


def multiply(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`x * y` for complex arrays of one dtype (broadcasting), laid out and rounded as
    torch's mul_kernel lays out and rounds it."""
    return _binary(x, y, _product)


def _quotient(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType
              ) -> np.ndarray:
    """c10::complex's operator/ (Smith's algorithm, as numpy's): with |c| >= |d|,
    rat = d/c, scl = 1/(c + d rat), re = (a + b rat) scl, im = (b - a rat) scl (the roles
    of c and d swapped otherwise; 0/0 divides the parts). Vectorized's operator/ runs it
    element by element too; GCC contracts every product-sum into an FMA, except complex64's
    numerators: into a fresh output, those of each loop's odd last element (contiguous,
    strided, a broadcast divisor or dividend); in place, all but the vector body's
    (measured on each length from 1 to 39, 40-50 random draws each)."""
    ar, ai = _parts(a)
    c, d = _parts(b)
    fma = fp32.fma if dtype is complex64 else fp64.fma
    fused_num = np.ones(a.size, bool)
    if not capability.fma_build(capability.kernel()):
        fused_num[:] = False
    elif dtype is complex64:
        pos, body, length = _positions(a.size, row, mode, dtype)
        fused_num = pos < body if _INTO_OPERAND[0] else pos < length // 2 * 2
    big = np.abs(c) >= np.abs(d)
    one = ar.dtype.type(1)
    rat = np.where(big, d / c, c / d)
    first, second = np.where(big, c, d), np.where(big, d, c)  # den = first + second rat
    den = fma(second, rat, first) if capability.fma_build(capability.kernel()) \
        else first + second * rat
    scl = one / den
    p, q = np.where(big, ar, ai), np.where(big, ai, ar)  # re: p + q rat (swapped: q rat + p)
    re = np.where(fused_num, fma(q, rat, p), p + q * rat)
    im = np.where(big, np.where(fused_num, fma(-ar, rat, ai), ai - ar * rat),
                  np.where(fused_num, fma(ai, rat, -ar), ai * rat - ar))
    out = np.empty(a.size, a.dtype)
    out.real, out.imag = re * scl, im * scl
    zero = (c == 0) & (d == 0)
    if zero.any():
        out.real[zero], out.imag[zero] = ar[zero] / np.abs(c[zero]), ai[zero] / np.abs(d[zero])
    return out


def divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`x / y` for complex arrays of one dtype (broadcasting), as torch's div_true_kernel
    computes it (measured on contiguous operands, strided rows and a scalar divisor:
    tests/test_linalg_eig_torch_diff.py, test_complex_torch_diff.py)."""
    return _binary(x, y, _quotient)


def reciprocal(x: np.ndarray) -> np.ndarray:
    """torch.reciprocal of a complex array: reciprocal_kernel's `1 / a`, c10::complex's
    operator/ in its vector body and its scalar code alike (every element, contiguous,
    strided and broadcast, measured bit for bit on 10^5 random values of each dtype): with
    the numerator 1 + 0i, its products with `rat` are exact, so only the denominator's FMA
    counts, fused everywhere. Dividing 0 by 0 gives inf + nan i, whose nan torch's build
    gives the positive sign (numpy's 0/0 the negative one: measured)."""
    def kernel(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType
               ) -> np.ndarray:
        out = _quotient(np.ones_like(a), a, row, mode, dtype)
        zero = (a.real == 0) & (a.imag == 0)
        if zero.any():
            out.imag[zero] = np.abs(out.imag[zero])
        return out

    return _binary(x, x, kernel)


def _pow_product(p: np.ndarray, q: np.ndarray, fused: np.ndarray, dtype: DType
                 ) -> np.ndarray:
    """c10::complex's product p * q, FMA-contracted where `fused` (as `_product`)."""
    fma = fp32.fma if dtype is complex64 else fp64.fma
    pr, pi = _parts(p)
    qr, qi = _parts(q)
    bd, bc = pi * qi, pi * qr
    out = np.empty(p.size, p.dtype)
    out.real = np.where(fused, fma(pr, qr, -bd), pr * qr - bd)
    out.imag = np.where(fused, fma(pr, qi, bc), pr * qi + bc)
    return out


def power(x: np.ndarray, exponent: int) -> np.ndarray:
    """`x ** exponent` for exponent 2, 3 or -2, as PowKernel.cpp's
    pow_tensor_scalar_optimized_kernel computes it: base * base, base * base * base and
    1 / (base * base) (the reciprocal as reciprocal_kernel's). Its vector body multiplies
    unfused (Vectorized's operator*); GCC contracted its scalar code's products into FMAs
    (measured on contiguous, strided and transposed rows of 1 to 1001 elements): every one,
    except for complex64 the cube's second product in the odd last element of each loop.
    (A broadcast base, a zero stride, rounds otherwise: callers refuse it.)"""
    def kernel(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType
               ) -> np.ndarray:
        fusing = capability.fma_build(capability.kernel())
        pos, body, length = _positions(a.size, row, mode, dtype)
        scalar = (pos >= body) & fusing
        square = _pow_product(a, a, scalar, dtype)
        if exponent == 2:
            return square
        if exponent == -2:
            out = _quotient(np.ones_like(square), square, row, mode, dtype)
            zero = (square.real == 0) & (square.imag == 0)
            out.imag[zero] = np.abs(out.imag[zero])
            return out
        last = scalar.copy()
        if dtype is complex64:
            last &= (pos - body) < (length - body) // 2 * 2
        return _pow_product(square, a, last, dtype)

    return _binary(x, x, kernel)


_CPOW: dict[np.dtype, Any] = {}


def _cpow_function(dtype: np.dtype) -> Any:
    """The C library's cpowf/cpow through ctypes: a struct of two floats (doubles) is
    passed and returned as C's _Complex float (double) is on x86-64."""
    found = _CPOW.get(dtype)
    if found is None:
        import ctypes
        import ctypes.util

        part = ctypes.c_float if dtype == np.complex64 else ctypes.c_double
        pair = type("Pair", (ctypes.Structure,), {"_fields_": [("re", part), ("im", part)]})
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        function = libm.cpowf if dtype == np.complex64 else libm.cpow
        function.restype, function.argtypes = pair, [pair, pair]
        found = _CPOW[dtype] = (function, pair)
    return found


def cpow(x: np.ndarray, exponent: complex) -> np.ndarray:
    """std::pow(z, exponent) of every element (pow_tensor_scalar_optimized_kernel's general
    case, its vector body mapping the same std::pow): libstdc++'s __builtin_cpow, the C
    library's cpowf/cpow, called element by element (numpy's power calls it too for
    exponents that are not integers, but multiplies for integer ones: measured), laid out
    as the input."""
    function, pair = _cpow_function(x.dtype)
    e = pair(exponent.real, exponent.imag)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.size, x.dtype)
    for i, (re, im) in enumerate(zip(flat.real.tolist(), flat.imag.tolist(), strict=True)):
        r = function(pair(re, im), e)
        out[i] = complex(r.re, r.im)
    return iterator_layout(out.reshape(x.shape), x)


def cpow_pairs(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """pow_tensor_tensor_kernel of complex arrays of one dtype (broadcasting): std::pow of
    each pair, the C library's cpowf/cpow, in its vector body too (even for a 0-d
    exponent: measured), laid out as TensorIterator lays out the result."""
    function, pair = _cpow_function(x.dtype)

    def kernel(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType
               ) -> np.ndarray:
        out = np.empty(a.size, a.dtype)
        for i, (ar, ai, br, bi) in enumerate(zip(a.real.tolist(), a.imag.tolist(),
                                                b.real.tolist(), b.imag.tolist(), strict=True)):
            r = function(pair(ar, ai), pair(br, bi))
            out[i] = complex(r.re, r.im)
        return out

    return _binary(x, y, kernel)


def logarithm(x: np.ndarray) -> np.ndarray:
    """log_kernel of a complex array: Vectorized's log maps std::log, the C library's
    clogf/clog, which numpy's complex log calls (measured bit for bit); laid out as the
    input."""
    with np.errstate(all="ignore"):
        return iterator_layout(np.log(x), x)


def square_root(x: np.ndarray) -> np.ndarray:
    """sqrt_kernel of a complex array: Vectorized's sqrt maps std::sqrt, the C library's
    csqrtf/csqrt, which numpy's complex sqrt calls (measured bit for bit); laid out as the
    input."""
    with np.errstate(all="ignore"):
        return iterator_layout(np.sqrt(x), x)


def reciprocal_square_root(x: np.ndarray) -> np.ndarray:
    """rsqrt_kernel of a complex array: 1 / std::sqrt(a) (the vector body's
    sqrt().reciprocal() too): c10::complex's division of 1 by csqrt, as `reciprocal`."""
    return reciprocal(square_root(x))


def angle(x: np.ndarray) -> np.ndarray:
    """torch.angle of a complex array, in its parts' real dtype: angle_kernel's vector body
    takes SLEEF's atan2 (Sleef_atan2f8_u10 / atan2d4_u10) of the imaginary and real parts,
    its scalar code std::arg, the C library's atan2f/atan2; laid out as the input."""
    def kernel(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType
               ) -> np.ndarray:
        pos, body, _ = _positions(a.size, row, mode, dtype)
        re, im = _parts(a)
        out = np.empty(a.size, re.dtype)
        vector = pos < body
        if vector.any():
            atan2 = sleef.atan2f if dtype is complex64 else sleef64.atan2
            out[vector] = atan2(im[vector], re[vector])
        if not vector.all():
            out[~vector] = glibc.atan2(im[~vector], re[~vector])
        return out

    return _binary(x, x, kernel)


def exp(x: np.ndarray) -> np.ndarray:
    """torch.exp of a complex array: Vectorized<c10::complex<T>>::exp maps std::exp over
    the elements (its SLEEF version is commented out in torch 2.13), i.e. the C library's
    cexpf/cexp, which numpy's complex exp gives bit for bit (1.2 million random values of
    each dtype at six scales and 63 special values, measured); laid out as the input."""
    with np.errstate(all="ignore"):
        out = np.exp(x)
    return iterator_layout(out, x)


def _moduli(a: np.ndarray, row: int, mode: str, dtype: DType
            ) -> tuple[np.ndarray, np.ndarray]:
    """|z| as abs_kernel computes it, and which elements the vector body computes:
    Vectorized's abs_() is SLEEF's hypot (u05), the scalar code std::abs, glibc's
    hypotf/hypot (numpy's np.hypot calls the same)."""
    re, im = _parts(a)
    pos, body, _ = _positions(a.size, row, mode, dtype)
    vector = pos < body
    out = np.hypot(re, im)
    if vector.any():
        hypot = sleef.hypotf if dtype is complex64 else sleef64.hypot
        out[vector] = hypot(re[vector], im[vector])
    return out, vector


def absolute(x: np.ndarray) -> np.ndarray:
    """torch.abs of a complex array: abs_kernel run complex to complex (the modulus in the
    real part), then its real part copied into a real array laid out as `x`."""
    def kernel(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType
               ) -> np.ndarray:
        return _moduli(a, row, mode, dtype)[0].astype(a.dtype)

    return _copy_like(_binary(x, x, kernel).real, x, x.real.dtype)


def _copy_like(values: np.ndarray, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`values` in a new array of `dtype` laid out as at::empty_like(x) (what .to() and
    empty_like give): a dense x's strides, any other x's contiguous ones."""
    items = [(n, abs(st) // x.itemsize) for n, st in zip(x.shape, x.strides) if n > 1]
    dense = all(st for _, st in items) and sum((n - 1) * st for n, st in items) + 1 == x.size
    out = np.empty_like(x, dtype=dtype) if dense else np.empty(x.shape, dtype)
    out[...] = values
    return out


def _signs(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType) -> np.ndarray:
    """sgn_kernel: 0 at 0, else z / |z|. The vector body divides each part by SLEEF's
    hypot (_mm256_div_ps); the scalar sgn_impl divides z by the complex zabs(z) = (|z|, 0)
    with c10::complex's operator/ (so multiplies by 1/|z|, rounded as `_quotient`)."""
    modulus, vector = _moduli(a, row, mode, dtype)
    out = _quotient(a, modulus.astype(a.dtype), row, mode, dtype)
    re, im = _parts(a)
    out.real[vector], out.imag[vector] = re[vector] / modulus[vector], \
        im[vector] / modulus[vector]
    out[modulus == 0] = 0
    return out


def sign(x: np.ndarray) -> np.ndarray:
    """torch.sgn of a complex array (sgn_kernel, see `_signs`), laid out as the input."""
    return _binary(x, x, _signs)


def abs_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """AbsBackward0's grad * self.sgn() for complex x: sgn_kernel's signs, times the real
    grad cast to complex (TensorIterator's copy), as mul_kernel rounds."""
    return multiply(_copy_like(grad, grad, x.dtype), sign(x))


def polar_backward(grad: np.ndarray, result: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """polar_backward: real(grad.conj() * sgn(result)) for abs and real(grad.conj() *
    (result * 1j)) for angle, the conjugate resolved and each product rounded as mul_kernel
    rounds it; the real parts are views of the products, as at::real's."""
    g = np.conj(grad)
    grad_abs = multiply(g, _binary(result, result, _signs)).real
    grad_angle = multiply(g, multiply(result, np.asarray(1j, result.dtype))).real
    return grad_abs, grad_angle


def abs_jvp(tangent: np.ndarray, x: np.ndarray) -> np.ndarray:
    """abs()'s forward derivative for complex x: the real part of conj(tangent) * sgn(x)
    (the conjugate resolved, the product as mul_kernel rounds it)."""
    return np.ascontiguousarray(multiply(np.conj(tangent), _binary(x, x, _signs)).real)


def add(x: np.ndarray, y: np.ndarray, alpha: complex = 1) -> np.ndarray:
    """`x + alpha * y` for complex arrays of one dtype, as torch's add kernel computes it
    (alpha a c10::complex: alpha * y is a complex product, whose zeros meet y's infinities:
    (1+1j) + (inf+0j) is inf+nanj in torch). The product's terms are exact for alpha = 1
    or -1, so neither loop's rounding can differ."""
    def kernel(a: np.ndarray, b: np.ndarray, row: int, mode: str, dtype: DType) -> np.ndarray:
        part = a.real.dtype.type
        ar, ai = part(alpha.real), part(alpha.imag)
        t = np.empty(b.shape, b.dtype)
        t.real = ar * b.real - ai * b.imag
        t.imag = ar * b.imag + ai * b.real
        return a + t

    return _binary(x, y, kernel)


def handle_r_to_c(dtype: DType, grad: Any) -> Any:
    """torch's handle_r_to_c: a complex gradient for a real input is its real part."""
    if grad is None or dtype.is_complex or not grad.dtype.is_complex:
        return grad
    from .ops.complex_ops import real

    return real(grad)


def discard_imaginary_warning() -> None:
    """TORCH_WARN_ONCE of at::native::copy_ when a complex tensor is cast to a real one."""
    from .ops.creation import WARNINGS, OnceWarning

    WARNINGS.append(OnceWarning(
        "UserWarning: Casting complex values to real discards the imaginary part (Triggered "
        "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)",
        "complex_to_real"))


def to_real(array: np.ndarray, dtype: DType | None) -> np.ndarray:
    """A complex array cast to a real dtype (None: its parts' float type) as c10 casts
    it, after copy_'s warning: the real part, but bool is `real || imag`."""
    discard_imaginary_warning()
    if dtype is not None and dtype.name == "bool":
        return array != 0
    return array.real if dtype is None else array.real.astype(dtype.np)


def refuse(what: str) -> NotSupportedError:
    return NotSupportedError(f"{what} is not supported by gradtrace")
