"""torch.bfloat16: the ops gradtrace computes exactly as torch's CPU kernels do, and no other.

Values are ml_dtypes' numpy bfloat16. torch converts into bfloat16 through float32 (c10's
BFloat16 is made from a float, rounded to nearest even: a double or an int64 is rounded to
float32 first), and computes pointwise arithmetic in float32 (its opmath type), rounding the
result once: `through_float32` and `arithmetic` do the same. What was measured bit for bit
against torch (tests/test_bfloat16.py, on random values) is in `RUNS`; every other op given a
bfloat16 tensor or dtype is refused with NotSupportedError naming it, as is autograd through
bfloat16 (its backward formulas were not measured).

Matrix products (`gemm`), sums (`sum_rows`) and 2-norms (`norm2`) follow torch 2.13's
kernels on an AVX2 machine (8 float32 lanes, 16 bfloat16 to a vector, no oneDNN for
bfloat16), measured bit for bit (tests/data/bfloat16_products.npz); under another CPU
capability they are refused (`require_avx2`), as torch's vectors and its gemm differ there.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import NotSupportedError
from .dtypes import DType, bfloat16, is_bfloat16
from .grad_mode import GRAD_MODE

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

RUNS = frozenset("""
    tensor as_tensor zeros ones full zeros_like ones_like full_like empty empty_like new_zeros
    new_ones new_full new_tensor new_empty to type type_as bfloat16 float double half long int
    short char byte bool clone detach contiguous cpu item tolist numel nelement dim ndimension
    size stride element_size is_floating_point is_signed is_complex is_tensor finfo
    promote_types result_type can_cast view reshape flatten squeeze unsqueeze t transpose
    permute expand expand_as view_as reshape_as unbind chunk split select narrow cat stack
    add sub subtract mul multiply div divide true_divide neg negative abs absolute sqrt eq ne
    lt le gt ge equal isnan isinf isfinite copy_ fill_ zero_ eig eigvals mm bmm matmul norm sum mean
""".split())
# in place: the same arithmetic written back (the result is rounded to bfloat16 either way)
RUNS = RUNS | frozenset(f"{name}_" for name in (
    "add", "sub", "mul", "div", "neg", "abs", "sqrt"))


def check_op(name: str, operands: Any, kwargs: dict[str, Any]) -> None:
    """A call of torch op `name` given a bfloat16 tensor or dtype: NotSupportedError unless
    the op is one gradtrace computes exactly as torch does."""
    from .tensor import Tensor

    if name.startswith("__"):
        return  # Python's operators: the engine's ops check them
    if name not in RUNS:
        raise NotSupportedError(
            f"{name}() on torch.bfloat16 is not supported by gradtrace: only creation, casts, "
            "views, printing, + - * /, neg, abs, sqrt, comparisons, mm, sum, mean and the "
            "2-norm are exact in bfloat16")
    # (an operand requiring grad under no_grad records nothing: an optimizer's p.add_(u))
    grad = kwargs.get("requires_grad") is True or name == "requires_grad_" or (
        GRAD_MODE.enabled and any(isinstance(t, Tensor) and t.requires_grad
                                  for t in _tensors(operands)))
    if grad:
        refuse_autograd()


def _tensors(values: Any) -> Any:
    from .tensor import Tensor

    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif type(v) in (list, tuple):
            yield from (item for item in v if isinstance(item, Tensor))


def refuse_autograd() -> None:
    raise NotSupportedError("autograd through torch.bfloat16 tensors is not supported by "
                            "gradtrace (its gradients' rounding was not measured)")


def through_float32(array: np.ndarray, target: np.dtype) -> np.ndarray:
    """`array` ready to be cast to `target` as torch casts: into bfloat16 from a float32
    (rounded once, to nearest even), out of bfloat16 through the float it widens to."""
    if is_bfloat16(target):
        return array if array.dtype == _F32 or is_bfloat16(array.dtype) else array.astype(_F32)
    if is_bfloat16(array.dtype) and target not in (_F32, _F64) and not is_bfloat16(target):
        return array.astype(_F32)
    return array


def cast(array: np.ndarray, target: np.dtype) -> np.ndarray:
    """`array.astype(target)` as torch converts, when bfloat16 is one side."""
    return through_float32(array, target).astype(target)


# torch's kernels convert a Python number operand for add and sub into bfloat16 first, and
# for mul and div use it as a float32 (measured: `x + 257` adds 256, `x * 257` multiplies by
# 257 and rounds the product)
_NUMBER_IN_BF16 = frozenset({np.add, np.subtract})


def arithmetic(ufunc: np.ufunc, x: Any, y: Any) -> np.ndarray:
    """`ufunc(x, y)` for a bfloat16 result: operands (bfloat16 arrays or Python numbers) in
    float32, one float32 operation, rounded once to bfloat16."""
    if ufunc not in _ARITHMETIC:
        raise NotSupportedError(f"{ufunc.__name__} in torch.bfloat16 is not supported by "
                                "gradtrace")
    return ufunc(_float32(ufunc, x), _float32(ufunc, y)).astype(bfloat16.np)


_ARITHMETIC = frozenset({np.add, np.subtract, np.multiply, np.true_divide})


def _float32(ufunc: np.ufunc, value: Any) -> Any:
    if type(value) is np.ndarray:
        return value.astype(_F32)
    if ufunc in _NUMBER_IN_BF16:
        return np.float32(np.float32(value).astype(bfloat16.np))
    return np.float32(value)


def check_dtype(name: str, dtype: DType) -> None:
    """An engine op reached by a Python operator (`**`, `//`, `%`, `@`) computing in
    bfloat16: refused, as it was not measured."""
    if dtype is bfloat16:
        raise NotSupportedError(f"{name} on torch.bfloat16 is not supported by gradtrace")


# --- matrix products: torch's CPU gemm for reduced-precision types (BlasKernel.cpp) -------
# On an AVX2 machine torch does not hand bfloat16 to oneDNN (its bf16 gemm needs AVX-512
# bf16/AMX): cpublas_gemm_impl runs, in float32 (opmath), the loop for the operands' layout
# (addmm_impl_cpu_'s transpose flags, in BLAS's column-major terms) and rounds each output to
# bfloat16 once. A product of two bfloat16 values is exact in float32, so only the order of
# the additions over k matters (measured bit for bit: tests/test_bfloat16.py's products).

def require_avx2(name: str) -> None:
    """The measured kernels are AVX2's: refused under another capability."""
    from . import capability

    if capability.CAPABILITY != "avx2":
        raise NotSupportedError(
            f"{name} on torch.bfloat16 is supported by gradtrace only with the AVX2 CPU "
            f"capability (ATEN_CPU_CAPABILITY=avx2; this run's is {capability.CAPABILITY})")


def gemm(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    """`a @ b` (bfloat16 matrices, (m, k) and (k, n)) as torch's gemm loop for BLAS's
    column-major transpose flags: gemm_notrans_ and gemm_transab_ sum each output with
    4 interleaved partial sums (BlasKernel.cpp's `sum`), gemm_transa_ takes
    bf16_dot_with_fp32_arith's dot products, gemm_transb_ accumulates over k in turn."""
    require_avx2("a matrix product")
    x, y = a.astype(_F32), b.astype(_F32)
    if transpose_a and not transpose_b:
        out = _dot_with_fp32_arith(x, y)
    elif transpose_b and not transpose_a:
        out = np.zeros((x.shape[0], y.shape[1]), _F32)
        for ll in range(x.shape[1]):
            out += _product(x, y, ll)
    else:
        out = _ilp_sum(x, y)
    return out.astype(bfloat16.np)


def _product(x: np.ndarray, y: np.ndarray, ll: int) -> np.ndarray:
    """Every output's `ll`-th product x[i, ll] * y[ll, j] (exact in float32)."""
    return x[:, ll, None] * y[None, ll, :]


def _ilp_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """BlasKernel.cpp's `sum` (ilp_factor 4): product ll into partial sum ll % 4 while 4 are
    left, the rest into the first, then the partial sums added in order."""
    k = x.shape[1]
    parts = [np.zeros((x.shape[0], y.shape[1]), _F32) for _ in range(4)]
    for ll in range(k):
        parts[ll % 4 if ll < k - k % 4 else 0] += _product(x, y, ll)
    return ((parts[0] + parts[1]) + parts[2]) + parts[3]


# Vectorized<float> has 8 lanes on AVX2, Vectorized<BFloat16> 16; the main loop keeps
# 8 float registers (64 products a step)
_LANES = 8
_REGISTERS = 8


def _lane_tree(v: np.ndarray) -> np.ndarray:
    """vec_reduce_all's sum over AVX2 lanes (axis 0): halves added, then quarters, then
    the pair."""
    while len(v) > 1:
        half = len(v) // 2
        v = v[:half] + v[half:]
    return v[0]


def _dot_with_fp32_arith(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ReducedPrecisionFloatGemvFastPathKernel.cpp's dot_with_fp32_arith_no_bfdot for every
    output: 64 accumulators (8 registers of 8 lanes) over whole steps of 64 products,
    reduced register-halving then across lanes; then 16-product steps fused into one
    8-lane register (low then high half), reduced across lanes and added; then the last
    products one by one."""
    m, k = x.shape
    n = y.shape[1]
    step = _REGISTERS * _LANES
    main = k - k % step
    acc = np.zeros((_REGISTERS, _LANES, m, n), _F32)
    for j in range(0, main, step):
        for q in range(step):
            acc[q // _LANES, q % _LANES] += _product(x, y, j + q)
    total = _lane_tree(_lane_tree(acc))
    vector = k - k % (2 * _LANES)
    tail = np.zeros((_LANES, m, n), _F32)
    for j in range(main, vector, 2 * _LANES):
        for half in (0, _LANES):
            tail += x[:, j + half:j + half + _LANES].T[:, :, None] * \
                y[j + half:j + half + _LANES, None, :]
    total = total + _lane_tree(tail)
    for ll in range(vector, k):
        total = total + _product(x, y, ll)
    return total


def norm2(x: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """The 2-norm of a bfloat16 array over `axes` as torch's norm kernel's bfloat16 fast
    path (ReduceOpsKernel.cpp, reduced over one contiguous run, in memory order): squares
    summed in float32 into 8 lanes, a 16-element step at a time (low half then high half),
    the lanes added in order, the leftover squares one by one, the float square root
    rounded to bfloat16. Refused where torch's iterator would not reduce one contiguous
    run (measured: all the dims of a dense array, or the trailing dims of a C-contiguous
    one)."""
    require_avx2("norm()")
    ndim = x.ndim
    if len(set(axes)) == ndim and dense(x):
        rows = x.ravel(order="K").reshape(1, -1)
    elif sorted(set(axes)) == list(range(ndim - len(set(axes)), ndim)) and \
            x.flags.c_contiguous:
        rows = x.reshape(-1, math.prod(x.shape[d] for d in set(axes)) if axes else 1)
    else:
        raise NotSupportedError("norm() of a torch.bfloat16 tensor over other than its "
                                "trailing dims of a contiguous tensor is not supported by "
                                "gradtrace")
    sq = rows.astype(_F32) ** 2
    size = sq.shape[1]
    lanes = np.zeros((_LANES, sq.shape[0]), _F32)
    vector = size - size % (2 * _LANES)
    for d in range(0, vector, 2 * _LANES):
        lanes += sq[:, d:d + _LANES].T
        lanes += sq[:, d + _LANES:d + 2 * _LANES].T
    total = lanes[0]
    for j in range(1, _LANES):
        total = total + lanes[j]
    for d in range(vector, size):
        total = total + sq[:, d]
    out = np.sqrt(total).astype(bfloat16.np)
    kept = tuple(1 if d in axes else s for d, s in enumerate(x.shape))
    out = out.reshape(kept)
    return out if keepdim else out.reshape(tuple(s for d, s in enumerate(x.shape)
                                                 if d not in axes))


def dense(x: np.ndarray) -> bool:
    """Whether `x` lies in memory as a permutation of a C-contiguous array."""
    order = sorted((s, d) for d, s in enumerate(x.strides) if x.shape[d] != 1)
    expected = x.itemsize
    for stride, d in order:
        if stride != expected:
            return False
        expected *= x.shape[d]
    return True


def sum_rows(rows: np.ndarray) -> np.ndarray:
    """torch.sum of bfloat16 rows (the last axis, contiguous: one output each) as
    SumKernel.cpp's cascade_sum for a reduced type: rows of 16 or more take
    vectorized_inner_sum with InnerSumCastLoadPolicy (each 16-element load widened to two
    float32 vectors added lane-wise, those vectors row_summed), then the scalar tail and
    the 8 lanes added in turn; shorter rows a float32 row_sum; each result rounded once."""
    from .reduction_order import row_sum, seq_sum

    require_avx2("sum()")
    x = rows.astype(_F32)
    size = x.shape[-1]
    step = 2 * _LANES
    if size < step:
        return row_sum(x).astype(bfloat16.np)
    nvec = size // step
    pairs = x[..., :nvec * step].reshape(x.shape[:-1] + (nvec, 2, _LANES))
    vectors = pairs[..., 0, :] + pairs[..., 1, :]
    lanes = row_sum(vectors.swapaxes(-1, -2))
    return seq_sum(np.concatenate([x[..., nvec * step:], lanes], axis=-1)).astype(bfloat16.np)
