"""Pointwise ops that torch computes with a fused multiply-add, bit for bit as torch 2.13
computed them (tests/data/numerics/<capability>/fused.npz): add/sub with alpha (also in
place), addcmul, addcdiv, lerp with a scalar weight on either side of 0.5 and with a tensor
weight, tanh's and sigmoid's backward, plus plain mul and add, for sizes 1 to 70 (every
split between vector body and scalar tail) and 1,000, in float32 and float64."""
from __future__ import annotations

import numpy as np
import pytest
from numerics_data import (
    Rates,
    activation_outputs,
    floats,
    load,
    recorded_capabilities,
    same_bits,
)

from gradtrace.engine import capability, ops
from gradtrace.engine.ops import fused, unary
from gradtrace.engine.tensor import Tensor

CAPABILITIES = recorded_capabilities()


def inputs(dtype: str, size: int) -> list[Tensor]:
    seed = 200_000 + 10 * size + (dtype == "float64")
    t = np.float32 if dtype == "float32" else np.float64
    arrays = [floats(seed, (size,), -3, 2, t), floats(seed + 1, (size,), -3, 2, t),
              floats(seed + 2, (size,), -1, 1, t, positive=True),
              floats(seed + 3, (size,), -6, -1, t, positive=True)]
    return [Tensor._wrap(a) for a in arrays]


def compute(op: str, x: Tensor, y: Tensor, z: Tensor, w: Tensor) -> np.ndarray:
    results = {
        "add_alpha": lambda: ops.add(x, y, alpha=0.3),
        "sub_alpha": lambda: ops.sub(x, y, alpha=0.7),
        "add_alpha_inplace": lambda: ops.add_(x.clone(), y, alpha=-0.01),
        "addcmul": lambda: fused.addcmul(x, y, z, value=0.1),
        "addcmul_inplace": lambda: fused.addcmul_(x.clone(), y, y, value=0.001),
        "addcdiv": lambda: fused.addcdiv(x, y, z, value=-0.01),
        "lerp_small": lambda: fused.lerp(x, y, 0.1),
        "lerp_large": lambda: fused.lerp(x, y, 0.9),
        "lerp_tensor": lambda: fused.lerp(x, y, w),
        "mul": lambda: ops.mul(x, y), "add": lambda: ops.add(x, y),
        "tanh_backward": lambda: unary.TanhBackwardBackward0.call(y, Tensor._wrap(tanh_y)),
        "sigmoid_backward": lambda: unary.SigmoidBackwardBackward0.call(
            y, Tensor._wrap(sigmoid_y)),
    }
    tanh_y, sigmoid_y = activation_outputs(x.array)
    return results[op]().array


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_fused_pointwise_ops_match_torch_bit_for_bit(cap, monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    rates = Rates()
    failures = []
    for case in load(cap, "fused"):
        got = compute(case["op"], *inputs(case["dtype"], case["size"]))
        ok = same_bits(got, case["out"])
        rates.add(f"{case['op']} {case['dtype']}", ok)
        if not ok.all() and len(failures) < 5:
            failures.append(f"{case['op']} {case['dtype']} size {case['size']}")
    assert not failures, f"under {cap}: {rates.report()}; first failures: {failures}"


def test_default_capability_rounds_twice_and_avx2_once(monkeypatch):
    y = np.float32(1 + 2 ** -23)
    monkeypatch.setattr(capability, "CAPABILITY", "avx2")
    once = fused.multiply_add(y, y, -np.float32(1 + 2 ** -22), np.dtype(np.float32))
    monkeypatch.setattr(capability, "CAPABILITY", "default")
    twice = fused.multiply_add(y, y, -np.float32(1 + 2 ** -22), np.dtype(np.float32))
    assert once == np.float32(2.0 ** -46) and twice == 0
