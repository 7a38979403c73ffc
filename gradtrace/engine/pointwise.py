"""Which elements of a pointwise float32 kernel torch computes with vector code, and which
with its scalar code (ATen's cpu_kernel_vec / vectorized_loop, TensorIterator's loops).

A kernel's vector body takes 2 x lanes elements at a time (16 with AVX2 and in the
`default` build, 32 with AVX-512) and leaves the remainder of each inner loop to the
scalar function (libm's expf, ...), which rounds differently. The inner loop is one row
of the iteration: the whole tensor when its memory is dense (any permutation of
contiguous), else the last dimension (with the dimensions that coalesce into it); rows
whose input is strided run scalar only.
Tensors of 32,768 elements or more are also cut into one chunk per thread
(at::parallel_for), and each chunk's rows end in their own tail.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import capability
from .meta import META, elementwise_result, elementwise_strides, stands_on_meta

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE


def _body_width(itemsize: int, cap: str | None) -> int:
    """Elements of one vector-loop step (two vectors) of the kernels split here into a
    vector body and a scalar tail (sigmoid, silu, logit, GELU, ELU, softplus, mish, pow,
    logaddexp): ATen registers them for AVX-512 too (ALSO_REGISTER_AVX512_DISPATCH;
    measured, capability.py), so they run at `cap` or the capability itself."""
    return 2 * capability.lanes(itemsize, cap or capability.kernel(capability.AVX512_KERNEL))


def is_dense(x: np.ndarray) -> bool:
    """Non-overlapping and dense: some permutation of the dims is C-contiguous."""
    dims = [(abs(st), n) for st, n in zip(x.strides, x.shape) if n != 1]
    if any(st == 0 for st, _ in dims):
        return False
    expected = x.itemsize
    for st, n in sorted(dims):
        if st != expected:
            return False
        expected *= n
    return True


def _iteration(x: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """(positions of x's elements in iteration order as flat C indices, inner row length,
    whether the row is contiguous for the vector loop)."""
    n = x.size
    if is_dense(x):
        order = np.argsort(np.asarray(x.strides), kind="stable")[::-1]  # outer .. inner
        flat = np.arange(n).reshape(x.shape).transpose(order).ravel()
        return flat, n, True
    # the loop runs in the output's memory order (`output_order`); coalesce its inner dims
    # while the input's strides allow
    order = output_order(x)
    shape = [x.shape[d] for d in order]
    strides = [x.strides[d] for d in order]
    inner, stride = 1, None
    for size, st in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if stride is None:
            stride, inner, expect = st, size, st * size
        elif st == expect:
            inner *= size
            expect = st * size
        else:
            break
    vec_ok = stride in (None, 0, x.itemsize)
    return np.arange(n).reshape(x.shape).transpose(order).ravel(), max(inner, 1), vec_ok


def output_order(x: np.ndarray) -> list[int]:
    """x's dims, outermost first, in the memory order of the output TensorIterator gives a
    unary op on x (reorder_dimensions by x's strides, dense or not: a slice of a
    transposed tensor gives a transposed output, measured)."""
    strides = elementwise_strides(x.shape, (x,))
    return sorted(range(x.ndim), key=lambda d: -strides[d])


def vector_mask(x: np.ndarray, cap: str | None = None) -> np.ndarray | None:
    """Boolean array in x's shape, True where torch's vector body computes the element;
    None when no element is vectorised."""
    if x.size == 0:
        return None
    width = _body_width(x.itemsize, cap)
    flat, row, contiguous = _iteration(x)
    if not contiguous:
        return None
    mask = np.empty(x.size, bool)
    mask[flat] = _vector_bodies(x.size, row, width)
    return mask.reshape(x.shape)


def _vector_bodies(n: int, row: int, width: int) -> np.ndarray:
    """For n elements in iteration order, rows of `row` cut into threads' chunks: True in
    each segment's whole vectors (`width` elements), False in its scalar tail."""
    it = np.arange(n)
    chunk = thread_chunk(n)
    c_start = it - it % chunk
    r_start = it - it % row
    seg_start = np.maximum(c_start, r_start)
    seg_end = np.minimum(np.minimum(c_start + chunk, r_start + row), n)
    body = (seg_end - seg_start) // width * width
    return (it - seg_start) < body


def loop_row(views: list[np.ndarray], itemsize: int) -> tuple[int, str]:
    """TensorIterator's inner loop over inputs broadcast to one shape (the output
    C-contiguous): its length (the trailing dims every operand's strides coalesce) and how
    cpu_kernel_vec runs it: "contiguous" (every input's stride is the element size),
    "scalar" (one input's is 0, the rest contiguous: is_contiguous_scalar), both vectorised,
    or "strided" (basic_loop)."""
    shape = views[0].shape
    out_strides = [itemsize] * len(shape)  # C-contiguous
    for d in range(len(shape) - 2, -1, -1):
        out_strides[d] = out_strides[d + 1] * shape[d + 1]
    operands = [v.strides for v in views] + [tuple(out_strides)]
    inner, first, expect = 1, None, None
    for d in reversed(range(len(shape))):
        if shape[d] == 1:
            continue
        strides = [s[d] for s in operands]
        if first is None:
            first, inner = strides, shape[d]
        elif any(st != e for st, e in zip(strides, expect, strict=True)):
            break
        else:
            inner *= shape[d]
        expect = [st * shape[d] for st in strides]
    if first is None:
        return 1, "contiguous"
    ins = first[:-1]
    if all(st == itemsize for st in ins):
        return inner, "contiguous"
    if sum(st == 0 for st in ins) == 1 and all(st in (0, itemsize) for st in ins):
        return inner, "scalar"
    return inner, "strided"


def thread_chunk(n: int) -> int:
    """at::parallel_for's chunk: one per thread past GRAIN_SIZE elements, else all."""
    if n < GRAIN_SIZE:
        return max(n, 1)
    threads = capability.num_threads()
    if threads == 1:
        return n
    return -(-n // min(threads, -(-n // GRAIN_SIZE)))


def elementwise(x: np.ndarray, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """fn over x's elements, given them as one 1-D array in memory order (a view when x is
    dense). The result is laid out as torch lays out a unary op's output: with x's
    strides when x is dense (any permutation of contiguous), else packed in the order of
    x's strides (`output_order`)."""
    if META.used and stands_on_meta(x):
        return elementwise_result([x], fn)
    if x.flags.c_contiguous:
        return fn(x.reshape(-1)).reshape(x.shape)
    perm = np.argsort([-st for st in x.strides], kind="stable")
    xt = x.transpose(perm)
    if xt.flags.c_contiguous:
        # (numpy's strides for a size-1 dim are not torch's: iterator_layout sets them)
        return iterator_layout(fn(xt.reshape(-1)).reshape(xt.shape).transpose(
            np.argsort(perm)), x)
    order = output_order(x)
    xt = np.ascontiguousarray(x.transpose(order))
    return fn(xt.reshape(-1)).reshape(xt.shape).transpose(np.argsort(order))


def iterator_layout(out: np.ndarray, *operands: Any) -> np.ndarray:
    """`out`, computed by numpy from `operands` (in the order the op hands them to
    TensorIterator), laid out as TensorIterator lays out an elementwise result: its dims
    ordered by the first operand whose strides tell them apart, where numpy's ufuncs let any
    input that keeps row-major order win (`g.t() * e` is column-major in torch, row-major in
    numpy) and np.where lays its result out row-major; a later sum walks memory in that
    order, and `stride()` shows it. Python numbers and 0-d operands (a binary op's wrapped
    scalars) take no part in the order, but, being operands of another shape, they rule
    out TensorIterator's fast setup (the channels-last output of channels-last inputs):
    callers pass only the operands torch's TensorIterator has (clamp's Scalar bounds are
    not among them). None operands are skipped."""
    if type(out) is not np.ndarray or out.ndim < 2:
        return out
    arrays = [x for x in operands if type(x) is np.ndarray and x.ndim]
    if all(x.flags.c_contiguous for x in arrays):
        return out
    strides = elementwise_strides(out.shape, tuple(x for x in operands if x is not None))
    if tuple(s // out.itemsize for s in out.strides) == strides:
        return out
    size = 1 + sum((n - 1) * s for n, s in zip(out.shape, strides, strict=True))
    laid = np.lib.stride_tricks.as_strided(np.empty(size, out.dtype), out.shape,
                                           tuple(s * out.itemsize for s in strides))
    laid[...] = out
    return laid


def chunked(fn: Callable[[np.ndarray], np.ndarray], flat: np.ndarray,
            size: int = 8192) -> np.ndarray:
    """fn over a 1-D array in pieces small enough for its temporaries to stay in cache."""
    if flat.size <= size:
        return fn(flat)
    out = np.empty_like(flat)
    for i in range(0, flat.size, size):
        out[i:i + size] = fn(flat[i:i + size])
    return out


def _dense_split(flat: np.ndarray, vector: Callable[[np.ndarray], np.ndarray],
                 scalar: Callable[[np.ndarray], np.ndarray], width: int) -> np.ndarray:
    """A dense tensor is one row: each thread chunk runs its vector body, then its tail."""
    n = flat.size
    chunk = thread_chunk(n)
    tails = [np.arange(start + (min(start + chunk, n) - start) // width * width,
                       min(start + chunk, n)) for start in range(0, n, chunk)]
    idx = np.concatenate(tails)
    if idx.size == n:
        return chunked(scalar, flat)
    out = chunked(vector, flat)
    if idx.size:
        out[idx] = scalar(flat[idx])
    return out


def apply(x: np.ndarray, vector: Callable[[np.ndarray], np.ndarray],
          scalar: Callable[[np.ndarray], np.ndarray], cap: str | None = None) -> np.ndarray:
    """Evaluate a float32 pointwise kernel element by element as torch would: `vector`
    (the Vectorized<float> formula) on the vector body, `scalar` (the scalar lambda)
    elsewhere. Both take and return 1-D float32 arrays. The `default` build has vector
    bodies too: its Vectorized<float> runs libm per lane, which is only the scalar
    formula when the two lambdas agree (pow's do not), so callers pick `vector` by
    capability."""
    if META.used and stands_on_meta(x):
        return elementwise_result([x], scalar)
    if x.size == 0:
        return x.copy()
    width = _body_width(x.itemsize, cap)
    if is_dense(x):
        return elementwise(x, lambda flat: _dense_split(flat, vector, scalar, width))
    order = output_order(x)  # the output's memory order, which the loop follows
    xt = x.transpose(order)
    mask = vector_mask(xt, cap)
    flat = np.ascontiguousarray(xt).ravel()
    if mask is None:
        out = chunked(scalar, flat)
    else:
        m = mask.ravel()
        out = np.empty_like(flat)
        out[m] = chunked(vector, flat[m])
        out[~m] = scalar(flat[~m])
    return out.reshape(xt.shape).transpose(np.argsort(order))


def apply_many(arrays: list[np.ndarray], vector: Callable[..., np.ndarray],
               scalar: Callable[..., np.ndarray], cap: str | None = None,
               contiguous_out: bool = False) -> np.ndarray:
    """`apply` for a kernel of several inputs: the vector body and scalar tails follow the
    operands' joint inner loop when one is broadcast (the output laid out as TensorIterator
    lays it out), else the first input that is not C-contiguous, else a contiguous
    output's; `vector` and `scalar` take and return 1-D arrays, one per input.
    `contiguous_out`: the output was allocated C-contiguous before the loop (a meta function
    that sets no strides, as pow(Scalar, Tensor)'s), so TensorIterator iterates in C order
    over the operands as they lie and the result is C-contiguous."""
    if META.used and any(stands_on_meta(a) for a in arrays):
        return elementwise_result(arrays, scalar)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    if contiguous_out:
        return _apply_broadcast([np.broadcast_to(a, shape) for a in arrays], vector, scalar,
                                cap)
    layout = _element_strides(arrays[0])
    if any(a.shape != shape or _element_strides(a) != layout for a in arrays):
        # TensorIterator's output keeps its inputs' memory order, and it iterates in it:
        # the kernel runs over the operands transposed to that order (outermost first),
        # whose output is then C-contiguous (operands in one layout coalesce instead)
        out_strides = elementwise_strides(shape, tuple(arrays))
        order = sorted(range(len(shape)), key=lambda d: -out_strides[d])
        views = [np.broadcast_to(a, shape).transpose(order) for a in arrays]
        return _apply_broadcast(views, vector, scalar, cap).transpose(np.argsort(order))
    flats = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    if not flats[0].size:
        return np.empty(shape, np.result_type(*arrays))
    dtype = np.result_type(*arrays)
    lead = next((a for a in arrays if not a.flags.c_contiguous), None)
    mask = vector_mask(lead if lead is not None else np.empty(shape, dtype), cap)
    if mask is None:
        return iterator_layout(scalar(*flats).reshape(shape), *arrays)
    return iterator_layout(_split_flat(flats, mask.reshape(-1), vector, scalar, dtype
                                      ).reshape(shape), *arrays)


def _element_strides(a: np.ndarray) -> tuple[int, ...]:
    """a's strides in elements, a size-1 dim's as 0 (TensorIterator ignores them)."""
    return tuple(s // a.itemsize if n != 1 else 0 for s, n in zip(a.strides, a.shape))


def _apply_broadcast(views: list[np.ndarray], vector: Callable[..., np.ndarray],
                     scalar: Callable[..., np.ndarray], cap: str | None) -> np.ndarray:
    """apply_many over operands broadcast to one shape whose output is C-contiguous: the
    vector bodies are the operands' joint inner loop's."""
    shape = views[0].shape
    flats = [np.ascontiguousarray(v).reshape(-1) for v in views]
    dtype = np.result_type(*views)
    if not flats[0].size:
        return np.empty(shape, dtype)
    row, mode = loop_row(views, np.dtype(dtype).itemsize)
    vectorised = mode != "strided"
    if not vectorised:
        return scalar(*flats).reshape(shape)
    m = _vector_bodies(flats[0].size, row, _body_width(np.dtype(dtype).itemsize, cap))
    return _split_flat(flats, m, vector, scalar, dtype).reshape(shape)


def _split_flat(flats: list[np.ndarray], m: np.ndarray, vector: Callable[..., np.ndarray],
                scalar: Callable[..., np.ndarray], dtype: Any) -> np.ndarray:
    """`vector` where m is True, `scalar` elsewhere, over operands in iteration order."""
    out = np.empty(flats[0].size, dtype)
    out[m] = vector(*(f[m] for f in flats))
    out[~m] = scalar(*(f[~m] for f in flats))
    return out

