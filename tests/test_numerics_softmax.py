"""softmax, log_softmax, their backward kernels and logsumexp bit for bit as torch 2.13
computed them (tests/data/numerics/<capability>/softmax.npz), along every dim of 1-D to 3-D
inputs.

The order around the transcendental functions is checked on its own: exp and log are
replaced by tables of the values torch's kernels produced (SLEEF's vector exp, the scalar
libm exp, the log of each row's sum; torch.exp / torch.log for the composite logsumexp).
A table miss means gradtrace asked for the exp or log of a value torch never computed,
i.e. an order that differs from torch's upstream of it. A second test runs with
gradtrace's own exp and log and reports its match rate (that depends on the SLEEF
emulation, not on the order)."""
from __future__ import annotations

import numpy as np
import pytest
from numerics_data import Lookup, Rates, floats, load, recorded_capabilities, same_bits

from gradtrace.engine import capability, kernels
from gradtrace.engine.ops import norms, softmax

CAPABILITIES = recorded_capabilities()


def family(case: dict) -> str:
    last = case["dim"] == len(case["shape"]) - 1
    if case["op"] == "softmax" and not last:
        return "softmax along another dim"
    if case["op"] == "softmax_backward" and last:
        return "softmax_backward along the last dim"
    return case["op"]


def inputs(case: dict) -> tuple[np.ndarray, np.ndarray]:
    shape = tuple(case["shape"])
    return floats(case["seed"], shape, -3, 3), floats(case["grad_seed"], shape, -3, 1)


def run(case: dict, monkeypatch, tables: bool) -> np.ndarray:
    x, g = inputs(case)
    d = case["dim"]
    op = case["op"]
    if tables and op in ("softmax", "log_softmax"):
        shifted = x - np.max(x, axis=d, keepdims=True)
        monkeypatch.setattr(softmax, "vector_exp", Lookup(shifted, case["vexp"]))
        monkeypatch.setattr(softmax, "scalar_exp", Lookup(shifted, case["sexp"]))
        if op == "log_softmax":
            monkeypatch.setattr(softmax, "vector_log",
                                lambda s: case["logs"].reshape(np.shape(s)))
    if tables and op == "log_softmax_backward":
        monkeypatch.setattr(softmax, "vector_exp", Lookup(case["y"], case["vexp"]))
        monkeypatch.setattr(softmax, "scalar_exp", Lookup(case["y"], case["sexp"]))
    if tables and op == "logsumexp":
        shifted = x - np.max(x, axis=d, keepdims=True)
        exp = Lookup(shifted, case["exp_out"])
        log = Lookup(case["log_in"], case["log_out"])
        monkeypatch.setattr(norms, "unary_kernel",
                            lambda name, v: exp(v) if name == "exp" else log(v))
    with np.errstate(all="ignore"):
        if op == "softmax":
            return softmax.softmax_values(x, d)
        if op == "log_softmax":
            return softmax.log_softmax_values(x, d)
        if op == "softmax_backward":
            return softmax.softmax_backward_values(g, case["y"], d)
        if op == "log_softmax_backward":
            return softmax.log_softmax_backward_values(g, case["y"], d)
        from gradtrace.engine.tensor import Tensor

        return norms.logsumexp(Tensor._wrap(x), d).array


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_softmax_family_order_matches_torch_given_torchs_exp_and_log(cap, monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    rates = Rates()
    failures = []
    for case in load(cap, "softmax"):
        with monkeypatch.context() as m:
            try:
                got = run(case, m, tables=True)
                ok = same_bits(got, case["out"])
            except AssertionError as miss:
                ok, got = np.zeros(case["out"].shape, bool), str(miss)
        rates.add(family(case), ok)
        if not ok.all() and len(failures) < 5:
            failures.append(f"{case['op']} {case['shape']} dim={case['dim']}")
    assert not failures, f"under {cap}: {rates.report()}; first failures: {failures}"


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_softmax_family_with_gradtraces_own_exp_and_log(cap, monkeypatch):
    """End to end with the engine's SLEEF/glibc exp and log: exact; logsumexp is composite
    (torch.exp, torch.log: MKL's VML), exact with MKL."""
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    rates = Rates()
    for case in load(cap, "softmax"):
        rates.add(family(case), same_bits(run(case, monkeypatch, tables=False), case["out"]))
    for name in rates.counts:
        if name != "logsumexp":
            assert rates.rate(name) == 1.0, rates.report()
    assert rates.rate("logsumexp") == 1.0 or kernels.mkl_unavailable_reason(), rates.report()
