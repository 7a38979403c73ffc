"""The float32 and float64 fused multiply-add emulations (engine/fp32.py, engine/fp64.py)
round once, also where the wider sum lands exactly on a rounding midpoint that the exact
sum misses by a hair: there a second rounding (ties to even) would pick the wrong
neighbour half of the time. Checked against exact rational arithmetic."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gradtrace.engine import fp32, fp64


def _nearest(exact: Fraction, dtype: type) -> float:
    """The float of `dtype` nearest to `exact`, ties to even."""
    guess = dtype(float(exact))
    candidates = [guess, np.nextafter(guess, dtype(np.inf)), np.nextafter(guess, dtype(-np.inf))]
    bits = np.uint32 if dtype is np.float32 else np.uint64
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact),
                                          int(np.array(c).view(bits)) & 1))


def test_float32_fma_of_a_conv_chain_step_that_lands_on_a_midpoint():
    """A step of a oneDNN convolution chain (found as a 1-ulp difference from torch):
    fl64(a * b + c) is a float32 midpoint, the exact sum lies beyond it."""
    a, b, c = np.float32(-2.4479663), np.float32(-0.003166455), np.float32(-0.76910335)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    got = fp32.fma(np.array([a]), np.array([b]), np.array([c]))[0]
    assert got == _nearest(exact, np.float32) == np.float32(float.fromhex("-0x1.85cfeep-1"))



def test_float32_fma_of_0_dim_arrays_on_a_midpoint_returns_the_nearest_float():
    """The same step on 0-dim arrays (a float32 norm of a 1-D tensor squares and adds its
    elements one by one: a FedProx proximal term's torch.norm raised numpy's "nonzero on
    0d arrays" ValueError where its float64 sum landed on a midpoint)."""
    a, b, c = np.float32(-2.4479663), np.float32(-0.003166455), np.float32(-0.76910335)
    got = fp32.fma(np.array(a), np.array(b), np.array(c))
    assert got.shape == () and got.dtype == np.float32
    assert got == np.float32(float.fromhex("-0x1.85cfeep-1"))
    d = np.array([1.1043623089790344e-05, -1.5040859580039978e-06, 5.073845386505127e-06,
                  8.456408977508545e-07, -7.517635822296143e-06, 6.6980719566345215e-06],
                 np.float32)
    total = np.array(0, np.float32)
    for x in d:  # the sequence that raised (torch.norm of these is 1.5876e-05)
        total = fp32.fma(np.array(x), np.array(x), total)
    assert total.shape == () and np.isclose(np.sqrt(total), 1.5876e-05, rtol=1e-4)

# c, and a product half an ulp of c short of c's neighbour by a relative 2**-46 (float32)
# or 2**-104 (float64): the wider sum rounds onto the midpoint, the exact one is nearer c
FINITE32 = st.floats(min_value=2.0 ** -100, max_value=2.0 ** 100, width=32)
FINITE64 = st.floats(min_value=2.0 ** -500, max_value=2.0 ** 500)


@settings(max_examples=300, deadline=None)
@given(FINITE32, st.booleans(), st.booleans())
def test_float32_fma_rounds_a_near_midpoint_sum_to_the_nearest_float(c, negative, up):
    c = np.float32(-c if negative else c)
    half_ulp = np.float32(np.spacing(np.abs(c)) / 2)
    a = np.float32(half_ulp * np.float32(1 + 2.0 ** -23)) * np.float32(1 if up else -1)
    b = np.float32(1 - 2.0 ** -23)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    assert fp32.fma(np.array([a]), np.array([b]), np.array([c]))[0] == _nearest(exact,
                                                                                 np.float32)


@settings(max_examples=300, deadline=None)
@given(FINITE64, st.booleans(), st.booleans())
def test_float64_fma_rounds_a_near_midpoint_sum_to_the_nearest_float(c, negative, up):
    c = np.float64(-c if negative else c)
    half_ulp = np.spacing(np.abs(c)) / 2
    a = half_ulp * (1 + 2.0 ** -52) * (1 if up else -1)
    b = np.float64(1 - 2.0 ** -52)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    assert fp64.fma(np.array([a]), np.array([b]), np.array([c]))[0] == _nearest(exact,
                                                                                 np.float64)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(FINITE32 | st.sampled_from([0.0, -0.0, 2.0 ** -130, -(2.0 ** -140),
                                                        float("inf")]),
                          FINITE32 | st.sampled_from([0.0, 2.0 ** -127, 3 * 2.0 ** -149]),
                          st.booleans(), st.booleans()), min_size=1, max_size=40))
def test_fma_chain_steps_round_as_fma_does(rows):
    """FmaChain (conv kernels' in-place chain) against `fma`, on near-midpoint sums,
    subnormal and zero results, signed zeros and infinities, in a strided accumulator."""
    a = np.array([r[0] * (-1 if r[2] else 1) for r in rows], np.float32)
    c = np.array([r[1] * (-1 if r[3] else 1) for r in rows], np.float32)
    half_ulp = (np.spacing(np.abs(c)) / 2).astype(np.float32)
    b = np.float32(1 - 2.0 ** -23)
    for factor in (a, half_ulp * np.float32(1 + 2.0 ** -23), -c):
        acc = np.zeros((len(rows), 2), np.float32)
        acc[:, 1] = c
        chain = fp32.FmaChain()
        with np.errstate(all="ignore"):
            want = fp32.fma(factor, np.full_like(factor, b), c)
            chain.step(factor.astype(np.float64), np.float64(b), acc[:, 1])
        assert np.array_equal(acc[:, 1].view(np.uint32), want.view(np.uint32))


TINY_OR_NOT32 = st.floats(min_value=2.0 ** -149, max_value=2.0 ** 60, width=32)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TINY_OR_NOT32, TINY_OR_NOT32, TINY_OR_NOT32, st.booleans(),
                          st.booleans()), min_size=1, max_size=30))
def test_fma_chain_given_its_factors_rounds_as_fma_also_in_the_subnormal_range(rows):
    """A chain told its factor arrays skips the subnormal test only where no product can
    need it (|a * b| >= 2**-131); with tiny factors it keeps it. Each step against `fma`,
    three steps chained, factors from subnormal to 2**60."""
    a = np.array([r[0] * (-1 if r[3] else 1) for r in rows], np.float32)
    b = np.array([r[1] * (-1 if r[4] else 1) for r in rows], np.float32)
    c = np.array([-r[2] for r in rows], np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    chain = fp32.FmaChain(a64, b64)
    tiny = float(np.min(np.abs(a64))) * float(np.min(np.abs(b64))) < 2.0 ** -131
    assert chain._check_tiny == tiny
    acc, want = c.copy(), c.copy()
    with np.errstate(all="ignore"):
        for factor in (a64, b64, a64 * 0.5):
            chain.step(factor, b64, acc)
            want = fp32.fma(factor.astype(np.float32), b, want)
    assert np.array_equal(acc.view(np.uint32), want.view(np.uint32))


def test_fma_chain_working_buffer_gives_the_strided_accumulators_bits_and_writes_back():
    """`working` runs a chain in a dense copy with the largest axis innermost (a Conv1d's
    channels outside its 4 columns; a padded window) and puts the values back: the same
    bits as stepping on the strided accumulator itself."""
    rng = np.random.default_rng(7)
    for shape, window in (((16, 512, 1, 4), np.s_[:]), ((3, 8, 10, 12), np.s_[:, :, 1:9, 2:11:2])):
        base = rng.standard_normal(shape).astype(np.float32)
        direct, buffered = base.copy(), base.copy()
        target = direct[window]
        x = rng.standard_normal(target.shape[:1] + (1,) + target.shape[2:])
        w = rng.standard_normal((1, target.shape[1], 1, 1))
        plain, chain = fp32.FmaChain(x, w), fp32.FmaChain(x, w)
        for _ in range(5):
            plain.step(x, w, direct[window])
        with chain.working(buffered[window]) as work:
            assert work.shape == target.shape
            largest = max(i for i, size in enumerate(work.shape) if size == max(work.shape))
            assert work.strides[largest] == 4  # the (last) largest axis innermost
            for _ in range(5):
                chain.step(x, w, work)
        assert np.array_equal(buffered.view(np.uint32), direct.view(np.uint32))


def test_float64_along_keeps_shape_and_values_with_the_axis_dense():
    w = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    for axis in range(3):
        got = fp32.float64_along(w, axis)
        assert got.shape == w.shape and got.dtype == np.float64 and got.strides[axis] == 8
        assert np.array_equal(got, w)
