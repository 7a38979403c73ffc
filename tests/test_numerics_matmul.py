"""Matrix products bit for bit as torch 2.13 (MKL, AVX2, 2 threads) computed them
(tests/data/numerics/<capability>/matmul.npz): mm (plain, b transposed, a transposed),
addmm, F.linear, mv, dot, vector @ matrix, bmm, 3-D @ 2-D matmul and outer, for every k
from 1 to 64 on small shapes and a few larger ones.

Where engine/blas.py claims to know MKL's order the result must be exact; everywhere else
the run must say so (an exactness note, which `gradtrace check` shows) and the match rate
is reported (README: "Numerics")."""
from __future__ import annotations

import numpy as np
import pytest
from mkl_skip import MODELLED_ORDER_REASON, OTHER_KERNELS
from numerics_data import Rates, floats, load, matmul_sizes, recorded_capabilities, same_bits

from gradtrace.engine import blas_model, capability, exactness, mkl
from gradtrace.engine.ops import linalg
from gradtrace.engine.tensor import Tensor

CAPABILITIES = recorded_capabilities()


def inputs(m: int, k: int, n: int) -> dict[str, np.ndarray]:
    seed = 100_000 + 10_000 * m + 100 * k + n
    return {"a": floats(seed, (m, k), -3, 1), "b": floats(seed + 1, (k, n), -3, 1),
            "bias": floats(seed + 2, (n,), -3, 1), "batch": floats(seed + 3, (3, m, k), -3, 1)}


def compute(op: str, arrays: dict[str, np.ndarray]) -> np.ndarray:
    a, b, bias = (Tensor._wrap(arrays[key]) for key in ("a", "b", "bias"))
    w = Tensor._wrap(np.ascontiguousarray(arrays["b"].T))
    at = Tensor._wrap(np.ascontiguousarray(arrays["a"].T))
    batch = Tensor._wrap(arrays["batch"])
    ops = {
        "mm": lambda: linalg.matmul(a, b), "mm_bt": lambda: linalg.matmul(a, w.t()),
        "mm_at": lambda: linalg.matmul(at.t(), b), "addmm": lambda: linalg.addmm(bias, a, b),
        "linear": lambda: linalg.linear(a, w, bias), "linear_nobias": lambda: linalg.linear(a, w),
        "mv": lambda: linalg.matmul(a, b[:, 0]), "dot": lambda: linalg.matmul(a[0], b[:, 0]),
        "vecmat": lambda: linalg.matmul(a[0], b),
        "bmm": lambda: linalg.bmm(batch, b.expand(3, *b.shape).contiguous()),
        "matmul_3d_2d": lambda: linalg.matmul(batch, b),
        "outer": lambda: linalg.outer(a[:, 0], b[0]),
    }
    return ops[op]().array


@pytest.mark.parametrize("cap", CAPABILITIES)
def test_matrix_products_match_torch_where_the_blas_order_is_known(cap, monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", cap)
    monkeypatch.setattr(capability, "BLAS_PLATFORM", "mkl-avx2")  # what recorded them
    known, unknown = Rates(), Rates()
    failures, silent = [], []
    inputs_by_size = {size: inputs(*size) for size in matmul_sizes()}
    for case in load(cap, "matmul"):
        size = (case["m"], case["k"], case["n"])
        exactness.reset()
        with np.errstate(all="ignore"):
            got = compute(case["op"], inputs_by_size[size])
        ok = same_bits(got, case["out"])
        if exactness.causes():
            unknown.add(case["op"], ok)
        else:
            known.add(case["op"], ok)
            if not ok.all() and len(failures) < 5:
                failures.append(f"{case['op']} {size}")
    assert not failures, (f"under {cap}, claimed exact: {known.report()}; first failures: "
                          f"{failures}; not claimed: {unknown.report()}")
    assert not silent
    assert known.rate("mm") == 1.0 and known.counts["mm"][1] > 0


@pytest.mark.skipif(OTHER_KERNELS, reason=MODELLED_ORDER_REASON)
def test_without_mkl_the_order_model_matches_torch_where_it_claims(monkeypatch):
    """Without the `mkl` wheel engine/blas_model.py stands in: exact where it claims an
    order, noted elsewhere."""
    monkeypatch.setitem(mkl._STATE, "mkl", None)
    monkeypatch.setitem(mkl._STATE, "reason", "not installed (test)")
    test_matrix_products_match_torch_where_the_blas_order_is_known("avx2", monkeypatch)


def test_every_matrix_product_shape_the_model_does_not_claim_is_noted(monkeypatch):
    """Without MKL, a shape past the modelled ones computes with numpy and leaves a note
    naming it."""
    monkeypatch.setattr(capability, "BLAS_PLATFORM", "mkl-avx2")
    exactness.reset()
    a = np.ones((5, 300), np.float32)
    b = np.ones((300, 6), np.float32)
    assert blas_model.gemm_order(5, 300, 6, "N", "N") is None
    assert (blas_model.matmul(a, b) == 300).all()
    assert exactness.causes() == ("matrix product 5x300 @ 300x6: the BLAS's order for this "
                                  "shape is not reproduced (mkl-avx2)",)


def test_an_unmeasured_blas_platform_claims_nothing(monkeypatch):
    monkeypatch.setattr(capability, "BLAS_PLATFORM", "mkl-avx512")
    exactness.reset()
    blas_model.matmul(np.ones((4, 3), np.float32), np.ones((3, 2), np.float32))
    assert exactness.causes() == ("matrix product 4x3 @ 3x2: the BLAS's order for this shape "
                                  "is not reproduced (mkl-avx512)",)


def test_fused_chains_round_once_per_step():
    """The fused order is k exactly rounded multiply-adds, not a float64 dot product."""
    a = np.array([[1.0, 2.0 ** -24, 2.0 ** -24]], np.float32)
    b = np.array([[1.0], [1.0], [1.0]], np.float32)
    assert blas_model.chain(a, b, True)[0, 0] == np.float32(1.0)  # each 2^-24 is a tie to even
    exact = np.float32(1.0 + 2.0 ** -23)
    assert (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)[0, 0] == exact
