"""The ops a training loop runs, forward and backward, bit for bit as torch 2.13 computed
them (tests/data/numerics/<capability>/training.npz, cases in tests/training_cases.py):
matrix products, layer/batch/group norm, losses, convolutions, activations and statistics.

A case whose run leaves no exactness note claims torch's bits and must have them, outputs
and every input gradient; a case that notes a cause (a kernel whose order gradtrace does not
reproduce) is only counted, and its rate reported in the failure message."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import training_cases as tc
from numerics_data import Rates, floats, load, recorded_capabilities, same_bits
from test_conformance import use_capability

from gradtrace.engine import api, exactness
from gradtrace.engine.tensor import Tensor

CAPABILITIES = recorded_capabilities()
TORCH = SimpleNamespace(**api.TORCH_FUNCTIONS)
FUNCTIONAL = SimpleNamespace(**api.FUNCTIONAL)


def run_case(index: int, case: tc.Case) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    """The case's outputs and, after a backward of the first with the recorded incoming
    gradient, the gradient of every input that requires one."""
    tensors = {}
    for name, array in case.arrays(index).items():
        t = Tensor._wrap(array.copy())
        if case.inputs[name].grad and array.dtype.kind == "f":
            t.requires_grad_(True)
        tensors[name] = t
    outs = case.fn(TORCH, FUNCTIONAL, **tensors)
    outs = outs if isinstance(outs, tuple) else (outs,)
    arrays = [o.detach().array.copy() for o in outs]
    grads = {}
    if outs[0].requires_grad:
        first = arrays[0]
        grad = floats(tc.grad_seed(index), first.shape, -3, 1, first.dtype.type)
        outs[0].backward(Tensor._wrap(grad))
        grads = {k: t.grad.array for k, t in tensors.items() if t.grad is not None}
    return arrays, grads


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_training_ops_match_torch_bit_for_bit_where_claimed(cap, monkeypatch):
    use_capability(monkeypatch, cap)  # and the libraries as they ran where it was recorded
    cases = tc.training_cases()
    recorded = load(cap, "training")
    assert [r["name"] for r in recorded] == [c.name for c in cases]
    claimed, noted = Rates(), Rates()
    failures = []
    for index, (case, record) in enumerate(zip(cases, recorded)):
        exactness.reset()
        with np.errstate(all="ignore"):
            outs, grads = run_case(index, case)
        checks = [(f"out{i}", got, want) for i, (got, want)
                  in enumerate(zip(outs, record["outs"]))]
        assert grads.keys() == record.get("grads", {}).keys(), case.name
        checks += [(f"grad {k}", grads[k], record["grads"][k]) for k in sorted(grads)]
        rates = noted if exactness.causes() else claimed
        for what, got, want in checks:
            ok = same_bits(got, want)
            rates.add(f"{case.family} {what}", ok)
            if not ok.all() and rates is claimed and len(failures) < 8:
                failures.append(f"{case.name}: {what} {int((~ok).sum())}/{ok.size} differ")
    assert not failures, (f"under {cap}, claimed exact: {claimed.report()}; first failures: "
                          f"{failures}; noted: {noted.report()}")
    # every family a training loop runs has cases gradtrace claims exact
    assert {key.split()[0] for key in claimed.counts} == {c.family for c in cases}

