"""Without MKL: float32 matrix products in the order MKL computes them, where it is known.

engine/blas.py calls torch's own MKL when the `mkl` wheel is installed and every product is
then exact; this module is its fallback. MKL picks its kernels from the CPU's own
instruction set (not ATEN_CPU_CAPABILITY), and on an AVX2 CPU with two threads its order
was found by experiment (tests/tools/record_numerics.py records the evidence;
tests/test_numerics_matmul.py measures it):

* every output element is one chain over k, in order, starting from 0;
* the chain is fused (one rounding per step, `fma(a, b, acc)`) in the large kernel: at
  least 12 output columns, rows in whole blocks of 4, k up to 192 (at 256 MKL blocks k),
  `a` or `b` (not both) possibly transposed;
* the chain rounds the product and the sum separately in MKL's small kernels, `b` not
  transposed: one output row; 2 or 3 rows and 2 or more columns; 2, 3, 4 or 8 columns;
  one column with k up to 4; with `a` transposed, up to 5 or exactly 8 columns;
* `addmm`'s bias starts the small kernels' chains (MKL's beta * C) and is added to the
  finished chain by the large kernel and by the one-column (matrix-vector) kernel;
* `mv` goes to MKL's sgemv: plain chains for k up to 4, unknown beyond.

Every other shape and layout goes to numpy's matmul and is noted as inexact (see
engine/exactness.py), so `gradtrace check` can name the cause; so are products too
large for the emulation to be cheap (`MAX_EMULATED` multiply-adds). ATen's own loops
(bmm below 400 multiply-adds, gemv with a zero-stride vector) are plain chains, `chain`.
"""
from __future__ import annotations

import numpy as np

from . import capability, exactness
from .fp32 import float32_of_sum

MAX_EMULATED = 1 << 18  # m * k * n above this: numpy's matmul (see benchmarks/README.md)
FUSED_MAX_K = 192


def _layout(x: np.ndarray) -> str:
    """'N' for a row-major matrix, 'T' for a column-major one (what torch passes MKL)."""
    if x.shape[0] <= 1 or x.shape[1] <= 1:
        return "N"
    s0, s1 = x.strides
    if s1 == x.itemsize and s0 >= x.shape[1] * x.itemsize:
        return "N"
    if s0 == x.itemsize and s1 >= x.shape[0] * x.itemsize:
        return "T"
    return "copy"


def gemm_order(m: int, k: int, n: int, a_layout: str, b_layout: str) -> str | None:
    """How MKL orders (m x k) @ (k x n): 'fused' or 'plain' chains, or None if unknown."""
    if capability.BLAS_PLATFORM != "mkl-avx2" or m * k * n > MAX_EMULATED:
        return None
    if "copy" in (a_layout, b_layout):
        return None
    if n >= 12 and m % 4 == 0 and k <= FUSED_MAX_K and (a_layout, b_layout) != ("T", "T"):
        return "fused"
    if b_layout != "N":
        return None
    if a_layout == "T":  # a transposed (the backward's X.t() @ grad): MKL's small kernels
        return "plain" if n <= 5 or n == 8 else None
    if m == 1 or (m <= 3 and n >= 2) or n in (2, 3, 4, 8) or (n == 1 and k <= 4):
        return "plain"
    return None


def chain(a: np.ndarray, b: np.ndarray, fused: bool,
          start: np.ndarray | None = None) -> np.ndarray:
    """Each element of `a @ b` (matrices, or stacks of them) as one chain over k from 0
    (or from `start`, broadcast to the result).

    A fused step is float32's exactly rounded `a * b + acc`: the product is exact in
    float64, and fp32.float32_of_sum rounds the sum once."""
    k = a.shape[-1]
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    acc = np.zeros(shape, a.dtype)
    if start is not None:
        acc[...] = start
    if not fused:  # the rounded products summed in order along k (one numpy accumulate)
        terms = np.empty(shape + (k + 1,), a.dtype)
        terms[..., 0] = acc
        np.multiply(a[..., :, None, :], np.swapaxes(b, -1, -2)[..., None, :, :],
                    out=terms[..., 1:])
        return np.ascontiguousarray(np.add.accumulate(terms, axis=-1)[..., -1])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    acc64 = acc.astype(np.float64)
    prod = np.empty(shape, np.float64)
    for i in range(k):
        np.multiply(a64[..., :, i:i + 1], b64[..., i:i + 1, :], out=prod)
        acc64 = float32_of_sum(prod, acc64).astype(np.float64)
    return acc64.astype(np.float32)


def matmul(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None = None,
           vector: bool = False) -> np.ndarray:
    """`a @ b` (+ `bias`, as addmm) for 2-D float arrays, bit for bit as torch where the
    order is known; `vector` for torch.mv (MKL's sgemv)."""
    m, k = a.shape
    n = b.shape[1]
    if not np.issubdtype(a.dtype, np.floating):  # integers: exact in any order
        out = np.matmul(a, b)
        return out if bias is None else out + bias
    if k <= 1 and bias is None:  # single products: exact in any order
        return np.multiply(a, b) if k == 1 else np.matmul(a, b)
    order = None
    if a.dtype == np.float32:
        order = ("plain" if k <= 4 else None) if vector else gemm_order(
            m, k, n, _layout(a), _layout(b))
    if order is None:
        what = "matrix-vector product" if vector else "matrix product"
        exactness.note(f"{what} {m}x{k} @ {k}x{n}: the BLAS's order for this shape is not "
                       f"reproduced ({capability.BLAS_PLATFORM})" if a.dtype == np.float32
                       else f"{a.dtype} matrix products use numpy's order, not the BLAS's")
        if bias is not None and a.dtype == np.float16:
            # torch's half addmm adds the bias to the product in float (its opmath type)
            # and rounds once, where a half product plus a half bias would round twice
            out = np.matmul(a, b, dtype=np.float32) + bias.astype(np.float32)
            return out.astype(np.float16)
        out = np.matmul(a, b)
        return out if bias is None else out + bias
    bias_first = bias is not None and order == "plain" and not (n == 1 and m > 1)
    with np.errstate(over="ignore", invalid="ignore"):
        out = chain(a, b, order == "fused", bias if bias_first else None)
        return out if bias is None or bias_first else out + bias


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.dot: MKL's sdot, a plain chain up to 3 terms (measured); its order for longer
    vectors is not reproduced."""
    if a.dtype == np.float32 and a.size > 3:
        exactness.note(f"dot product of {a.size} elements: the BLAS's order is not reproduced")
    if a.dtype != np.float32 or a.size > 3:
        return np.asarray(np.dot(a, b))
    with np.errstate(over="ignore", invalid="ignore"):
        return chain(a[None, :], b[:, None], False)[0, 0]


def bmm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch.bmm past ATen's own loop (engine/blas.py): MKL per matrix."""
    _, m, k = a.shape
    n = b.shape[-1]
    if a.dtype == np.float32 and k > 1:
        order = gemm_order(m, k, n, "N", "N")
        if order is not None and all(_layout(x) == "N" for x in (*a, *b)):
            with np.errstate(over="ignore", invalid="ignore"):
                return chain(a, b, order == "fused")
        exactness.note(f"batched matrix product {m}x{k} @ {k}x{n}: the BLAS's order for "
                       f"this shape is not reproduced ({capability.BLAS_PLATFORM})")
    return np.matmul(a, b)
