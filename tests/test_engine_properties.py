"""Hypothesis: random chains of ops on random shapes keep the engine's invariants.

Invariants: every leaf's grad has the leaf's shape and dtype; gradients agree with
central finite differences in float64; backward never depends on Python recursion.
"""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gradtrace.engine import ops
from gradtrace.engine.dtypes import float64
from gradtrace.engine.grad_mode import no_grad
from gradtrace.engine.tensor import Tensor

# name -> (function of (x, other), needs a positive input)
UNARY = {
    "exp": (lambda x: ops.exp(x * 0.1), False),
    "tanh": (ops.tanh, False),
    "sigmoid": (ops.sigmoid, False),
    "sin": (ops.sin, False),
    "square": (lambda x: x * x, False),
    "log": (lambda x: ops.log(x * x + 1.0), False),
    "sqrt": (lambda x: ops.sqrt(x * x + 1.0), False),
    "neg": (ops.neg, False),
    "pow": (lambda x: (x * x + 1.0) ** 1.5, False),
    "recip": (lambda x: 1.0 / (x * x + 1.0), False),
}
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / (y * y + 1.0),
    "rsub": lambda x, y: 2.0 - x * y,
}

shapes = st.sampled_from([(), (3,), (2, 3), (1, 3), (2, 1), (4, 1, 2)])


def broadcastable(shape):
    """A shape that broadcasts with `shape`: some dims set to 1, leading dims dropped."""
    return st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)).flatmap(
        lambda ones: st.integers(0, len(shape)).map(
            lambda drop: tuple(1 if o else s for s, o in zip(shape, ones))[drop:]))


programs = shapes.flatmap(lambda shape: st.tuples(
    st.just(shape), broadcastable(shape),
    st.lists(st.one_of(st.tuples(st.just("u"), st.sampled_from(sorted(UNARY))),
                       st.tuples(st.just("b"), st.sampled_from(sorted(BINARY)))),
             min_size=1, max_size=6),
    st.integers(0, 2**32 - 1)))


def build(shape, other_shape, steps, x_arr, y_arr):
    x = Tensor(x_arr, requires_grad=True)
    y = Tensor(y_arr, requires_grad=True)
    z = x
    for kind, name in steps:
        z = UNARY[name][0](z) if kind == "u" else BINARY[name](z, y)
    return x, y, z.sum()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_random_programs_match_finite_differences_in_float64(program):
    shape, other_shape, steps, seed = program
    rng = np.random.default_rng(seed)
    x_arr = rng.uniform(-1, 1, shape).astype(np.float64)
    y_arr = rng.uniform(-1, 1, other_shape).astype(np.float64)
    x, y, loss = build(shape, other_shape, steps, x_arr, y_arr)
    # a central difference of step 1e-6 means nothing where the loss is astronomically large
    # (exp of a pow of a pow reaches 1e53): there float64 cannot resolve the change
    assume(abs(loss.item()) < 1e8)
    loss.backward()
    for leaf, arr, which in ((x, x_arr, 0), (y, y_arr, 1)):
        if leaf.grad is None:
            continue
        assert leaf.grad.shape == leaf.shape and leaf.grad.dtype is float64
        numeric = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += 1e-6
            minus[idx] -= 1e-6
            with no_grad():
                args = (plus, y_arr) if which == 0 else (x_arr, plus)
                f_plus = build(shape, other_shape, steps, *args)[2].item()
                args = (minus, y_arr) if which == 0 else (x_arr, minus)
                f_minus = build(shape, other_shape, steps, *args)[2].item()
            numeric[idx] = (f_plus - f_minus) / 2e-6
        np.testing.assert_allclose(leaf.grad.array, numeric, rtol=1e-3, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(shapes, st.integers(1, 4))
def test_accumulated_grad_is_sum_of_backward_calls(shape, calls):
    x = Tensor(np.ones(shape, np.float32), requires_grad=True)
    for _ in range(calls):
        (x * 3.0).sum().backward()
    assert x.grad.shape == x.shape
    np.testing.assert_allclose(x.grad.array, np.full(shape, 3.0 * calls))
