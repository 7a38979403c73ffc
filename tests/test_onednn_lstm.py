"""A float32 nn.LSTM runs through oneDNN (engine/ops/rnn.py): its forward and backward are
oneDNN's AVX2 kernels step for step (engine/onednn_sgemm.py, onednn.logistic/tanh; every
printed value is checked against torch in tests/conformance_extra/nn_lstm_onednn_forward.gt
and nn_lstm_onednn_backward.gt). These tests check that a run says which of its values may
differ from torch's, and the products' arithmetic."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import onednn, onednn_sgemm
from gradtrace.engine.fp32 import fma
from gradtrace.engine.ops import rnn
from gradtrace.runner import run_text

FORWARD = """
import torch
torch.manual_seed(0)
lstm = torch.nn.LSTM(3, 4)
out, (h, c) = lstm(torch.randn(2, 3, 3))
print(out.sum().item())
"""


def test_lstm_forward_on_avx2_kernels_is_not_noted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(onednn, "AVX512_CORE", False)
    result = run_text(FORWARD)
    assert result.error is None
    assert not [c for c in result.inexact if "LSTM" in c]


def test_lstm_forward_on_avx512_kernels_is_noted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(onednn, "AVX512_CORE", True)
    assert rnn.ONEDNN_AVX512_CAUSE in run_text(FORWARD).inexact


def test_lstm_backward_on_avx2_kernels_is_not_noted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(onednn, "AVX512_CORE", False)
    result = run_text(FORWARD + "out.sum().backward()\n")
    assert result.error is None
    assert not [c for c in result.inexact if "LSTM" in c]


def test_one_column_product_is_a_fused_chain_onto_the_output():
    """gemv: y = fma(a[:, k], x[k], y) column after column, starting from c (beta 1)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    x = rng.standard_normal((1, 7)).astype(np.float32)
    c = rng.standard_normal((1, 5)).astype(np.float32)
    want = c[0]
    for k in range(7):  # every step rounded once, as a fused multiply-add
        want = fma(a[:, k], x[0, k], want)
    np.testing.assert_array_equal(onednn_sgemm.sgemm(a, x, c, 1)[0], want)


@pytest.mark.parametrize(("m", "n"), [(16, 6), (20, 7), (9, 2), (40, 13)])
def test_tiled_product_is_close_to_the_exact_one(m: int, n: int):
    """Whatever the tile and accumulation order, the product is the product."""
    rng = np.random.default_rng(m * n)
    a = rng.standard_normal((m, 11)).astype(np.float32)
    bt = rng.standard_normal((n, 11)).astype(np.float32)
    exact = bt.astype(np.float64) @ a.astype(np.float64).T
    np.testing.assert_allclose(onednn_sgemm.sgemm(a, bt, None, 2), exact, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(onednn_sgemm.chained(a, bt), exact, rtol=1e-5, atol=1e-5)
