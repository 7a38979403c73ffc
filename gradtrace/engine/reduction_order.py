"""The order in which torch's CPU reduction kernels add float numbers, in vectorised numpy.

A float32 sum's last bits depend on the order of its additions. torch's order comes from
two places, reproduced here:

* TensorIterator (`TensorIterator.cpp`): the reduced dims go first, the rest sorted by
  stride (`reorder_dimensions`), then adjacent dims that walk memory as one are merged
  (`coalesce_dimensions`). The kernel sees a 2-D loop over the two fastest dims, called
  once per index of the others (`serial_for_each`), and every call adds (`+=`) into an
  output that starts at 0.
* `SumKernel.cpp`'s cascade sum: chunks of 16 or more terms summed left to right, the
  chunk sums summed in chunks and so on (`multi_row_sum`); a row split into 4 interleaved
  accumulators (`row_sum`); vectors of `capability.lanes()` for a contiguous row
  (`vectorized_inner_sum`) or for contiguous columns (`vectorized_outer_sum`).

Every step is an IEEE addition in the tensor's dtype, done by numpy over all the
independent accumulators at once; Python loops run only over the (short) chunk length.
Reductions of 32,768 or more elements that torch splits across threads are summed here
as by one thread (README: "Numerics").
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import capability, exactness
from .meta import META, reduced_result, stands_on_meta
from .pointwise import is_dense, thread_chunk
from .shapes import reordered_dims, strided_view


def lanes(dtype: np.dtype) -> int:
    """Elements of `dtype` in one of torch's vectors (capability.lanes)."""
    return capability.lanes(np.dtype(dtype).itemsize)


# -- TensorIterator's layout of a reduction ------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """A reduction as TensorIterator iterates it: dims fastest first, strides in bytes."""

    shape: tuple[int, ...]
    in_strides: tuple[int, ...]
    out_strides: tuple[int, ...]


def _output_strides(shape: tuple[int, ...], axes: tuple[int, ...], itemsize: int) -> list[int]:
    """A freshly allocated (contiguous, keepdim-shaped) output's strides; 0 where reduced."""
    out_shape = [1 if d in axes else n for d, n in enumerate(shape)]
    strides = [0] * len(shape)
    step = itemsize
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= out_shape[d]
    for d, n in enumerate(shape):
        if d in axes and n != 1:
            strides[d] = 0
    return strides


def reduction_layout(array: np.ndarray, axes: tuple[int, ...]) -> Layout:
    """TensorIterator's reorder_dimensions and coalesce_dimensions for `array` reduced over
    `axes` (an output that is contiguous in the kept dims)."""
    shape = array.shape
    ndim = len(shape)
    ins = list(array.strides)
    outs = _output_strides(shape, axes, array.itemsize)

    def should_swap(d0: int, d1: int) -> int:
        for strides, is_output in ((outs, True), (ins, False)):
            s0, s1 = strides[d0], strides[d1]
            if is_output and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = reordered_dims(ndim, should_swap)
    sh = [shape[p] for p in perm]
    st = [[ins[p] for p in perm], [outs[p] for p in perm]]
    if not sh:
        return Layout((), (), ())
    prev = 0
    for d in range(1, len(sh)):
        if sh[prev] == 1 or sh[d] == 1 or all(sh[prev] * s[prev] == s[d] for s in st):
            if sh[prev] == 1:
                for s in st:
                    s[prev] = s[d]
            sh[prev] *= sh[d]
        else:
            prev += 1
            for s in st:
                s[prev] = s[d]
            sh[prev] = sh[d]
    n = prev + 1
    return Layout(tuple(sh[:n]), tuple(st[0][:n]), tuple(st[1][:n]))


def iteration_view(array: np.ndarray, layout: Layout) -> np.ndarray:
    """`array` seen in iteration order, C-ordered (the fastest iteration dim last)."""
    return strided_view(array, layout.shape[::-1], layout.in_strides[::-1], writeable=False)


# -- the cascade sum (SumKernel.cpp) -----------------------------------------------------


# seq_sum adds term by term in a Python loop, one numpy add over all the sums at once, when
# there are this many sums or more (or at most _LOOP_TERMS terms): accumulate would write
# every partial sum of a strided axis; the loop writes one array and reads each term once.
_LOOP_SUMS = 256
_LOOP_TERMS = 4


def seq_sum(x: np.ndarray) -> np.ndarray:
    """Left-to-right sum along the last axis, from +0.0 (an accumulator's start): numpy's
    accumulate adds in order; adding +0.0 at the end gives what starting from it gives.
    The loop performs the same additions in the same order, in the same dtype (floats
    only: accumulate widens integers to int64)."""
    n = x.shape[-1]
    if n == 0:
        return np.zeros(x.shape[:-1], x.dtype)
    if n > 2 and x.dtype.kind == "f" and _sums_inner(x):
        acc = np.add.reduce(x, axis=-1)
        acc += x.dtype.type(0)
        return acc
    if (x.dtype.kind == "f" and x.ndim > 1 and n > 1
            and (n <= _LOOP_TERMS or x.size >= n * _LOOP_SUMS)):
        acc = np.add(x[..., 0], x[..., 1])
        for i in range(2, n):
            acc += x[..., i]
        acc += x.dtype.type(0)
        return acc
    return np.add.accumulate(x, axis=-1)[..., -1] + x.dtype.type(0)


def _sums_inner(x: np.ndarray) -> bool:
    """Whether numpy's add.reduce over x's last axis runs as seq_sum's loop does: one
    elementwise `out += x[..., i]` per term, in term order. numpy's iterator puts the axis
    of smallest stride innermost; when that is a kept, contiguous axis (and every stride is
    positive, so no axis is walked backwards), its inner loop is a plain add over the sums,
    never the pairwise reduction it uses when the summed axis is innermost. One call
    instead of a Python loop over the terms (the column sums of a bias gradient, the lanes
    of a vectorised row sum). tests/test_seq_sum_loop.py keeps this equal to accumulate."""
    if x.ndim < 2:
        return False
    item = x.itemsize
    strides, shape = x.strides, x.shape
    last = strides[-1]
    if last <= item:
        return False
    inner = False
    for s, n in zip(strides[:-1], shape[:-1]):
        if n == 1:
            continue
        if s <= 0 or s == last:
            return False
        if s == item:
            inner = True
        elif s < item:
            return False
    return inner


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def multi_row_sum(x: np.ndarray) -> np.ndarray:
    """multi_row_sum along the last axis: four levels of chunk sums, each level flushed into
    the next every `level_step` chunks."""
    size = x.shape[-1]
    power = max(4, _ceil_log2(size) // 4)
    step = 1 << power
    if size <= step:  # no chunk completes, or one with nothing after it: one running sum
        return seq_sum(x)
    lead = x.shape[:-1]
    nb = size // step
    blocks = seq_sum(x[..., :nb * step].reshape(lead + (nb, step)))
    ng = nb // step
    if x.dtype.kind not in "fc":  # (seq_sum's accumulate widens some integers)
        groups = seq_sum(blocks[..., :ng * step].reshape(lead + (ng, step)))
        nh = ng // step
        supers = seq_sum(groups[..., :nh * step].reshape(lead + (nh, step)))
        acc = seq_sum(x[..., nb * step:])
        acc += seq_sum(blocks[..., ng * step:])
        acc += seq_sum(groups[..., nh * step:])
        acc += seq_sum(supers)
        return acc
    groups = seq_sum(blocks[..., :ng * step].reshape(lead + (ng, step))) if ng else None
    nh = ng // step
    supers = seq_sum(groups[..., :nh * step].reshape(lead + (nh, step))) if nh else None
    # the running sum starts at +0.0 and takes the four levels' leftovers in this order;
    # a level with none left adds +0.0, which changes no seq_sum result (never -0.0: it
    # ends with `+ 0.0`), so it is skipped, and the first level left starts the sum
    acc = None
    for rest in (x[..., nb * step:], blocks[..., ng * step:],
                 None if groups is None else groups[..., nh * step:], supers):
        if rest is not None and rest.shape[-1]:
            if acc is None:
                acc = seq_sum(rest)
            else:
                acc += seq_sum(rest)
    return acc


def row_sum(x: np.ndarray) -> np.ndarray:
    """row_sum along the last axis: four interleaved cascades, the tail into the first."""
    size = x.shape[-1]
    ilp = size // 4
    parts = multi_row_sum(x[..., :ilp * 4].reshape(x.shape[:-1] + (ilp, 4)).swapaxes(-1, -2))
    acc = parts[..., 0]
    for i in range(ilp * 4, size):
        acc += x[..., i]
    for k in range(1, 4):
        acc += parts[..., k]
    return acc


def vectorized_inner_sum(x: np.ndarray, width: int) -> np.ndarray:
    """Contiguous rows: a row_sum of whole vectors, then the scalar tail and the lanes."""
    size = x.shape[-1]
    nvec = size // width
    vec = row_sum(x[..., :nvec * width].reshape(x.shape[:-1] + (nvec, width)).swapaxes(-1, -2))
    return seq_sum(np.concatenate([x[..., nvec * width:], vec], axis=-1))


def _column_sums(cols: np.ndarray, group: int) -> np.ndarray:
    """Columns (last axis) summed down axis -2: the first whole groups of `group` columns by
    multi_row_sum, the rest by row_sum (vectorized_outer_sum / scalar_outer_sum)."""
    ncols = cols.shape[-1]
    split = ncols // group * group
    down = cols.swapaxes(-1, -2)
    out = np.empty(cols.shape[:-2] + (ncols,), cols.dtype)
    if split:
        out[..., :split] = multi_row_sum(down[..., :split, :])
    if split < ncols:
        out[..., split:] = row_sum(down[..., split:, :])
    return out


def _partials(x: np.ndarray, layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """cascade_sum's 2-D loop over every outer index at once: the partial sums it adds into
    the output, in execution order, and the output byte offset each goes to."""
    shape, ins, outs = list(layout.shape), list(layout.in_strides), list(layout.out_strides)
    while len(shape) < 2:
        x = x[None]
        shape.append(1)
        ins.append(0)
        outs.append(0)
    if outs[0] != 0 and outs[1] == 0:  # "move reduction to be the 1st dim"
        x = x.swapaxes(-1, -2)
        for v in (shape, ins, outs):
            v[0], v[1] = v[1], v[0]
    size0, size1 = shape[0], shape[1]
    item = x.itemsize
    width = lanes(x.dtype)
    if outs[0] != 0:  # not a true reduction: out += in, element by element
        q = x
        off_inner = (np.arange(size1)[:, None] * outs[1] + np.arange(size0) * outs[0])
    else:
        if ins[0] == item and size0 >= width:
            q = vectorized_inner_sum(x, width)
        elif ins[1] == item and size1 >= width:
            q = _column_sums(x.swapaxes(-1, -2), 4 * width)
        elif ins[0] < ins[1]:
            q = row_sum(x)
        else:
            q = _column_sums(x.swapaxes(-1, -2), 4)
        off_inner = np.arange(size1) * outs[1]
    outer_off = np.zeros((), np.int64)
    for n, s in zip(shape[:1:-1], outs[:1:-1], strict=True):  # slowest outer dim first
        outer_off = outer_off[..., None] + np.arange(n) * s
    off = outer_off.reshape(outer_off.shape + (1,) * off_inner.ndim) + off_inner
    return q.reshape(-1), np.broadcast_to(off, q.shape).reshape(-1)


def _accumulate(q: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Each output: 0 plus its partials in execution order; outputs in offset order."""
    if off.size < 2 or bool((off[1:] > off[:-1]).all()):  # one partial per output, in order
        return q + q.dtype.type(0)
    order = np.argsort(off, kind="stable")
    nout = np.unique(off).size
    ordered = q[order].reshape(nout, -1)
    return seq_sum(ordered) if ordered.shape[1] > 1 else ordered[:, 0] + ordered.dtype.type(0)


def cascade_sum(array: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """torch.sum of a float array over `axes` (all when empty), in torch's order."""
    if META.used and stands_on_meta(array):
        return reduced_result(array, axes, keepdim)
    axes = tuple(range(array.ndim)) if not axes else tuple(sorted(axes))
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(array.shape))
    if array.size == 0 or array.ndim == 0:
        out = np.sum(array, axis=axes or None, keepdims=True) + array.dtype.type(0)
        return out if keepdim else np.squeeze(out, axes)
    if array.flags.c_contiguous and axes == tuple(range(array.ndim - len(axes), array.ndim)):
        # the common case, reduced dims trailing and contiguous: TensorIterator makes them
        # one contiguous row per output (rows of fewer than a vector: row_sum)
        rows = array.reshape(-1, math.prod(array.shape[array.ndim - len(axes):]))
        width = lanes(array.dtype)
        chunk = thread_chunk(rows.shape[1]) if rows.shape[0] == 1 else rows.shape[1]
        if chunk < rows.shape[1]:  # one output: two_pass_reduction
            out = _two_pass_sum(rows[0], chunk)
        else:
            q = vectorized_inner_sum(rows, width) if rows.shape[1] >= width else row_sum(rows)
            out = q + array.dtype.type(0)
        return out.reshape(out_shape if keepdim else tuple(
            n for d, n in enumerate(array.shape) if d not in axes))
    if axes == (0,) and array.ndim == 2 and array.flags.c_contiguous and array.shape[0] > 1:
        # a bias gradient's column sums: the layout below comes out as these very columns,
        # each output getting its one partial in order (skipped: layout, offsets, sort)
        rows, cols = array.shape
        width = lanes(array.dtype)
        if cols > 1:
            out = _column_sums(array, 4 * width if cols >= width else 4)
            out += array.dtype.type(0)
            return out[None] if keepdim else out
        if width <= rows and thread_chunk(rows) >= rows:
            # one column: TensorIterator coalesces it into one contiguous row
            out = vectorized_inner_sum(array.reshape(1, rows), width) + array.dtype.type(0)
            return out.reshape((1, 1) if keepdim else (1,))
    if len(axes) == array.ndim and is_dense(array) and \
            all(s > 0 for s, n in zip(array.strides, array.shape) if n != 1):
        # a full sum of a dense tensor in another dim order (a transpose): TensorIterator
        # coalesces its dims into its memory, one contiguous row, as for a contiguous one
        out = cascade_sum(array.ravel(order="K"), (), False)
        return out.reshape(out_shape) if keepdim else out
    if len(axes) == array.ndim and thread_chunk(array.size) < array.size:
        exactness.note("a full sum of a non-contiguous tensor split across threads: the "
                       "threads' ranges over its iteration shape are not reproduced")
    layout = reduction_layout(array, axes)
    q, off = _partials(iteration_view(array, layout), layout)
    out = _accumulate(q, off).reshape(out_shape)
    return out if keepdim else out.reshape(tuple(n for d, n in enumerate(array.shape)
                                                 if d not in axes))


def _two_pass_sum(flat: np.ndarray, chunk: int) -> np.ndarray:
    """TensorIteratorReduce.cpp's two_pass_reduction of a contiguous full sum past
    GRAIN_SIZE elements: each thread sums its parallel_for chunk into its own slot of a
    buffer of identities (one per thread), then the buffer is summed as a tensor."""
    width = lanes(flat.dtype)
    buffer = np.zeros(capability.num_threads(), flat.dtype)
    for t, start in enumerate(range(0, flat.size, chunk)):
        part = flat[None, start:start + chunk]
        q = vectorized_inner_sum(part, width) if part.shape[1] >= width else row_sum(part)
        buffer[t] += q[0]
    return cascade_sum(buffer, (0,), False)


# -- reductions that visit elements one by one (binary_kernel_reduce) -------------------


def reduced_rows(array: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, Layout, int]:
    """The reduced elements of every output as the last axis, in the order torch's
    per-output reductions visit them (TensorIterator's fastest reduced dim first); the
    leading axes are the kept dims in iteration order. Also the layout and the number of
    reduced iteration dims."""
    axes = tuple(range(array.ndim)) if not axes else tuple(sorted(axes))
    layout = reduction_layout(array, axes)
    nred = sum(1 for s in layout.out_strides if s == 0)
    view = iteration_view(array, layout)
    kept = view.shape[:view.ndim - nred]
    return view.reshape(kept + (-1,)), layout, nred


def place(values: np.ndarray, array: np.ndarray, axes: tuple[int, ...], layout: Layout,
          nred: int, keepdim: bool) -> np.ndarray:
    """Per-output results (leading axes of `reduced_rows`) put into the output's shape."""
    axes = tuple(range(array.ndim)) if not axes else tuple(sorted(axes))
    out_shape = tuple(1 if d in axes else n for d, n in enumerate(array.shape))
    out = np.empty(out_shape, values.dtype)
    kept_shape = layout.shape[nred:][::-1]
    kept_strides = tuple(s // array.itemsize * values.itemsize
                         for s in layout.out_strides[nred:][::-1])
    np.lib.stride_tricks.as_strided(out, kept_shape, kept_strides)[...] = values.reshape(
        kept_shape)
    return out if keepdim else out.reshape(tuple(n for d, n in enumerate(array.shape)
                                                 if d not in axes))


def first_sum(x: np.ndarray) -> np.ndarray:
    """Left-to-right sum along the last axis that starts from its first element, as
    vec_reduce_all's lane loop does (acc = lane 0, then + lane 1, ...): seq_sum's, except
    that a row of -0.0 only sums to -0.0 (seq_sum's +0.0 start makes it +0.0; the two
    differ only while every term is -0.0). Measured: the last-dim log_softmax and softmax
    backward of a row of -0.0 gradients give +0.0 under torch, -0.0 - exp(y) * (-0.0)."""
    total = seq_sum(x)
    if x.dtype.kind != "f" or not x.shape[-1]:
        return total
    negative_zeros = np.all((x == 0) & np.signbit(x), axis=-1)
    if not negative_zeros.any():
        return total
    return np.where(negative_zeros, x.dtype.type(-0.0), total).astype(x.dtype, copy=False)


def lane_sum(v: np.ndarray) -> np.ndarray:
    """vec_reduce_all(+) of a vector (last axis): the AVX2/AVX-512 shuffle tree (halves,
    then quarters, ...) of Vectorized<float>, which functional_base.h specialises; lane by
    lane from lane 0 for any other type (double) and in the default build."""
    if capability.CAPABILITY == "default" or v.dtype != np.float32:
        return first_sum(v)
    while v.shape[-1] > 1:
        half = v.shape[-1] // 2
        v = v[..., :half] + v[..., half:]
    return v[..., 0]


def reduce_all_sum(x: np.ndarray, width: int | None = None) -> np.ndarray:
    """vec::reduce_all(+) over the last axis (at/cpu/vec/functional_base.h) with vectors of
    `width` (default: a REGISTER_DISPATCH kernel's): the first vector, then each whole
    vector added lane-wise, a zero-padded tail added to its lanes, then the lanes summed;
    a row shorter than a vector is summed lane by lane from its first element."""
    size = x.shape[-1]
    width = width or lanes(x.dtype)
    if size < width:
        return first_sum(x) if size else np.zeros(x.shape[:-1], x.dtype)
    nvec = size // width
    acc = x[..., :width].copy()
    for k in range(1, nvec):
        acc += x[..., k * width:(k + 1) * width]
    tail = size - nvec * width
    if tail:
        acc[..., :tail] += x[..., nvec * width:]
    return lane_sum(acc)
