"""float32 reductions bit for bit as torch 2.13 computed them, under each recorded CPU
capability (tests/data/numerics/<capability>/reductions.npz, recorded by
tests/tools/record_numerics.py): sum, mean, prod, vector norms, var/std, cumsum, over every
dim set of 1-D to 3-D inputs of up to 2,100 elements per reduced row, contiguous,
transposed, sliced and expanded. No torch needed."""
from __future__ import annotations

import numpy as np
import pytest
from numerics_data import (
    Rates,
    base_shape,
    floats,
    load,
    recorded_capabilities,
    same_bits,
    view,
)

from gradtrace.engine import capability
from gradtrace.engine.ops import norms as N
from gradtrace.engine.ops import reductions as R
from gradtrace.engine.tensor import Tensor

CAPABILITIES = recorded_capabilities()


@pytest.fixture
def at_capability(monkeypatch):
    def use(name: str) -> None:
        monkeypatch.setattr(capability, "CAPABILITY", name)
    return use


def compute(case: dict, x: np.ndarray, near_one: np.ndarray) -> np.ndarray:
    op, dims = case["op"], case["dims"]
    kw = {} if dims is None else {"dim": tuple(dims)}
    t = Tensor._wrap(x)
    if op == "sum":
        return R.sum(t, keepdim=bool(case.get("keepdim")), **kw).array
    if op == "mean":
        return R.mean(t, **kw).array
    if op == "norm2":
        return N.vector_norm(t, 2, **kw).array
    if op == "norm1":
        return N.vector_norm(t, 1, **kw).array
    if op == "norminf":
        return N.vector_norm(t, float("inf"), **kw).array
    if op in ("var", "std"):
        return getattr(N, op)(t, **kw).array
    if op == "var0":
        return N.var(t, correction=0, **kw).array
    if op == "cumsum":
        return R.cumsum(t, dims[0]).array
    if op == "prod":  # on values near 1 (a product of 2,100 of them stays finite)
        t = Tensor._wrap(near_one)
        return (R.prod(t) if dims is None else R.prod(t, dims[0])).array
    raise AssertionError(op)


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_reductions_match_torch_bit_for_bit(cap, at_capability):
    at_capability(cap)
    rates = Rates()
    bases: dict[int, np.ndarray] = {}
    failures = []
    for case in load(cap, "reductions"):
        shape, layout = tuple(case["shape"]), case["layout"]
        key = case["seed"]
        if key not in bases:
            bases[key] = floats(key, base_shape(shape, layout))
        base = bases[key]
        x = view(base, layout, shape)
        near_one = view((1 + base / np.float32(64)).astype(np.float32), layout, shape)
        with np.errstate(all="ignore"):
            got = compute(case, x, near_one)
        ok = same_bits(got, case["out"])
        rates.add(case["op"], ok)
        if not ok.all() and len(failures) < 5:
            failures.append(f"{case['op']} {shape} {layout} dims={case['dims']}")
    assert not failures, f"under {cap}: {rates.report()}; first failures: {failures}"
    assert len(rates.counts) == 10
