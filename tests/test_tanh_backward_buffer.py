"""tanh's backward in one buffer (TanhBackwardBackward0.forward's contiguous path) gives the
bytes of the casting-loop formula it replaced: grad * float32(1 - y*y in float64), the
fma build's `grad * fma(-y, y, 1)`."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import capability
from gradtrace.engine.ops.unary import tanh_backward
from gradtrace.engine.tensor import Tensor

SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1e-20,
                     0.99999994, -0.99999994, 3e38], np.float32)


def _casting_formula(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    one_minus = np.subtract(1.0, np.multiply(y, y, dtype=np.float64))
    return np.multiply(g, one_minus, dtype=y.dtype, casting="same_kind")


@pytest.mark.skipif(not capability.fma_build(), reason="the fma build's formula")
@pytest.mark.parametrize("shape", [(512, 128), (7,), (3, 5, 11), (1, 1), (65536,)])
def test_tanh_backward_in_one_buffer_matches_the_casting_formula(shape):
    rng = np.random.default_rng(int(np.prod(shape)))
    for scale in (1e-3, 1.0, 5.0):
        y = np.tanh(rng.standard_normal(shape) * scale).astype(np.float32)
        g = (rng.standard_normal(shape) * rng.choice([1e-30, 1.0, 1e30], shape)).astype(
            np.float32)
        y.reshape(-1)[rng.integers(0, y.size, 3)] = rng.choice(SPECIALS, 3)
        g.reshape(-1)[rng.integers(0, g.size, 3)] = rng.choice(SPECIALS, 3)
        got = tanh_backward(Tensor._wrap(g), Tensor._wrap(y)).array
        want = _casting_formula(g, y)
        assert got.strides == want.strides and got.tobytes() == want.tobytes()
