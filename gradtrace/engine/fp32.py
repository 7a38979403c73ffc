"""Exact float32 fused multiply-add in numpy, for kernels that must round as a CPU does.

torch's vectorised kernels (SLEEF, oneDNN, its own polynomials) chain float32 fused
multiply-adds: `a * b + c` rounded once. numpy has none, so `fma` emulates it: the
product of two float32 values is exact in float64, and the float64 sum `p + c` rounds to
the right float32 unless it landed exactly on a float32 rounding boundary (a midpoint,
or anywhere in the float32 subnormal range) while the exact sum did not. Those rare
elements are found with a bit test and rounded through round-to-odd, using the exact
error of the float64 sum (an error-free transformation). The common path is four numpy
passes (multiply, add, bit test, cast); callers keep arrays small enough to stay in
cache, or chain through `FmaChain`'s buffers.

`two_prod` is the special case `(a * b, fma(a, b, -a * b))` of SLEEF's double-float
arithmetic: there the float64 difference is exact, so no test is needed.

Plain float32 `+ - * /` and sqrt need no help: numpy's float32 loops are IEEE operations.
All functions take and return float32 arrays (scalars are accepted for b and c).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

_LOW29 = np.int64((1 << 29) - 1)
_MID29 = np.int64(1 << 28)
_F32_TINY = float.fromhex("0x1p-126")  # below it float32 rounds at a coarser bit
_SUBNORMAL2 = np.uint32(0x01000000)  # 2 * the bits of 2**-126, the smallest normal
_U32_MAX = np.uint32(0xFFFFFFFF)


def _round_odd_to_f32(p: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """float32 rounding of the exact p + c, given s = fl64(p + c): round s to odd in
    float64 (exact-side neighbour when inexact), then to float32."""
    with np.errstate(invalid="ignore"):
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        inexact_even = np.isfinite(err) & (err != 0) & ((s.view(np.int64) & 1) == 0)
        # towards the exact sum: err is at most half an ulp of s, so s + err rounds back
        # to s and cannot give the direction
        odd = np.where(inexact_even, np.nextafter(s, np.copysign(np.inf, err)), s)
    return odd.astype(np.float32)


def _sum64(a: np.ndarray | float, b: np.ndarray | float,
           c: np.ndarray | float) -> np.ndarray:
    """fl64(a * b + c): the product is exact, the sum rounded once."""
    s = np.multiply(a, b, dtype=np.float64)
    if np.ndim(c) > s.ndim or s.shape != np.broadcast_shapes(s.shape, np.shape(c)):
        return np.add(s, c, dtype=np.float64)  # (c broadcasts the product: sub(y, x, alpha))
    s += c
    return s


def fma(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """float32 fma(a, b, c), correctly rounded."""
    if np.ndim(a) < np.ndim(b):
        a, b = b, a
    if isinstance(a, np.ndarray) and a.shape == np.broadcast_shapes(a.shape, np.shape(b),
                                                                     np.shape(c)):
        s = a.astype(np.float64)  # a copy of our own, multiplied in place: fewer passes
        s *= b
        s += c
    else:
        s = _sum64(a, b, c)
    out = s.astype(np.float32)
    low = s.view(np.int64)
    low &= _LOW29  # s is no longer needed: its low bits answer "on a float32 midpoint?"
    suspect = low == _MID29
    # zero or subnormal float32 results (2 * bits wraps nothing: zero is smallest), where
    # float32 rounds at a coarser bit: recheck them on the float64 sum
    if np.min(out.view(np.uint32) << 1, initial=_U32_MAX) < _SUBNORMAL2:
        full = _sum64(a, b, c)
        suspect |= (full != 0) & (np.abs(full) < _F32_TINY)
    if suspect.any():
        if not suspect.ndim:  # numpy has no nonzero of a 0-dim array: round the one value
            p = np.multiply(a, b, dtype=np.float64).reshape(1)
            cc = np.asarray(c, np.float64).reshape(1)
            return _round_odd_to_f32(p, cc, p + cc).reshape(())
        idx = np.nonzero(suspect)
        shape = suspect.shape
        p = np.multiply(np.broadcast_to(a, shape)[idx], np.broadcast_to(b, shape)[idx],
                        dtype=np.float64)
        cc = np.broadcast_to(np.asarray(c, np.float64), shape)[idx]
        out[idx] = _round_odd_to_f32(p, cc, p + cc)
    return out


_TINY2_LESS1 = np.uint64((np.array(_F32_TINY).view(np.uint64) << np.uint64(1)) - np.uint64(1))


class FmaChain:
    """`fma` for a chain of steps on one accumulator, in place and without allocating:
    kernels (oneDNN's convolutions) chain hundreds of thousands of fused multiply-adds
    on arrays larger than the cache, where `fma`'s fresh arrays cost more than its
    arithmetic. The same rounding as `fma`, with the float32 zero/subnormal test on the
    float64 sum itself (an exact zero sum needs no help).

    Given the arrays every step's two factors are taken from, the chain skips that test
    when no product of theirs can need it: a float64 sum below 2**-126 can be inexact only
    when its lowest bit lies 53 below its highest, under 2**-179, and a float32
    accumulator's lowest bit is at least 2**-149, so one of the products has its lowest bit
    there: |a * b| < 2**-131. Three of the step's numpy passes fewer (of ten)."""

    def __init__(self, *factors: np.ndarray) -> None:
        self._shape: tuple[int, ...] = ()
        self._strides: tuple[int, ...] = ()
        self._sum = self._bits = self._flag = self._tiny = np.empty(0)
        self._check_tiny = len(factors) != 2 or (
            _smallest_magnitude(factors[0]) * _smallest_magnitude(factors[1]) < _TINY_PRODUCT)

    @contextlib.contextmanager
    def working(self, acc: np.ndarray) -> Iterator[np.ndarray]:
        """acc's values in a dense buffer with acc's largest axis innermost, for a run of
        steps on one accumulator, put back into acc at the end: numpy walks each of a
        step's passes in the buffers' memory order, and a strided window or a short last
        axis (a Conv1d's 4 output columns, its 512 channels outside) cuts every pass into
        many short inner loops. Values are unchanged: each element's chain is its own."""
        sizes = acc.shape
        order = sorted(range(acc.ndim), key=lambda axis: sizes[axis] == max(sizes))
        if acc.flags.c_contiguous and (not sizes or sizes[-1] == max(sizes)):
            yield acc
            return
        work = np.empty([sizes[axis] for axis in order], acc.dtype).transpose(
            np.argsort(order))
        np.copyto(work, acc)
        yield work
        np.copyto(acc, work)

    def _buffers(self, acc: np.ndarray) -> None:
        """Buffers laid out in memory as acc is (numpy then walks all of them in one
        order, the shortest stride innermost)."""
        self._shape = acc.shape
        self._strides = acc.strides
        self._sum = np.empty_like(acc, np.float64)
        self._bits = np.empty_like(acc, np.uint64)
        self._flag = np.empty_like(acc, np.bool_)
        if self._check_tiny:
            self._tiny = np.empty_like(acc, np.bool_)

    def step(self, a: np.ndarray, b: np.ndarray, acc: np.ndarray) -> None:
        """acc = fma(a, b, acc), acc a float32 array (or view); a and b float64 arrays
        holding float32 values (so their product is exact) that broadcast to acc."""
        if acc.shape != self._shape or acc.strides != self._strides:
            self._buffers(acc)
        s, bits, flag = self._sum, self._bits, self._flag
        np.multiply(a, b, out=s)
        np.add(s, acc, out=s)
        u = s.view(np.uint64)
        np.bitwise_and(u, np.uint64(_LOW29), out=bits)
        np.equal(bits, np.uint64(_MID29), out=flag)
        if self._check_tiny:
            np.left_shift(u, np.uint64(1), out=bits)  # |s| in the float32 subnormal range:
            np.subtract(bits, np.uint64(1), out=bits)  # 0 < 2|s| bits < 2 * bits of 2**-126
            np.less(bits, _TINY2_LESS1, out=self._tiny)
            np.logical_or(flag, self._tiny, out=flag)
        fixed = None
        if flag.any():
            idx = np.nonzero(flag)
            p = np.broadcast_to(a, s.shape)[idx] * np.broadcast_to(b, s.shape)[idx]
            fixed = _round_odd_to_f32(p, acc[idx].astype(np.float64), s[idx])
        np.copyto(acc, s, casting="unsafe")
        if fixed is not None:
            acc[idx] = fixed


_TINY_PRODUCT = float.fromhex("0x1p-131")


def float64_along(a: np.ndarray, axis: int) -> np.ndarray:
    """a in float64 (same shape), laid out with `axis` innermost in memory: the vector
    along it that an FmaChain step multiplies by (a weight's output or input channels) is
    then dense, where a strided one costs a cache line per element."""
    dense = np.ascontiguousarray(np.moveaxis(a, axis, -1), dtype=np.float64)
    return np.moveaxis(dense, -1, axis)


def _smallest_magnitude(a: np.ndarray) -> float:
    """The smallest nonzero |element| of `a` (NaNs aside); inf when there is none."""
    with np.errstate(invalid="ignore"):
        magnitudes = np.abs(a[(a != 0) & (a == a)])
    return float(magnitudes.min()) if magnitudes.size else float("inf")


def two_prod(a: np.ndarray, b: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """(a * b, fma(a, b, -(a * b))) in float32: the product and its exact rounding error."""
    p = np.multiply(a, b, dtype=np.float64)
    hi = p.astype(np.float32)
    p -= hi
    return hi, p.astype(np.float32)


def float32_of_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y (float64 arrays of one shape whose exact sum float32 should round) rounded
    once to float32: the float64 sum rounds to the same float32 unless it fell on a float32
    rounding boundary (as in `fma`); only those elements are redone, rounding to odd."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = x + y
        out = np.asarray(total.astype(np.float32))
        suspect = (np.asarray(total).view(np.int64) & _LOW29) == _MID29
        if np.min(out.view(np.uint32) << 1, initial=_U32_MAX) < _SUBNORMAL2:
            suspect |= (total != 0) & (np.abs(total) < _F32_TINY)
        if suspect.any():
            out[suspect] = _round_odd_to_f32(x[suspect], y[suspect], total[suspect])
    return out
