"""Bit-exactness against live torch 2.13 of exact GELU through oneDNN on an AVX-512 CPU:
the forward's piecewise minimax erf (onednn.gelu_erf_avx512) and the backward's
Abramowitz-Stegun derivative. The suite caps oneDNN at AVX2 (conftest), so torch runs in
a subprocess without the cap; skips without torch or on a CPU without AVX-512."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gradtrace.engine import kernels, onednn

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not onednn.uses_avx512_core(environ={}),
                                reason="the CPU has no AVX-512: oneDNN runs its AVX2 kernels")

_TORCH = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    import torch.nn.functional as F
    data = dict(np.load(sys.argv[1]))
    x = torch.from_numpy(data["x"]).requires_grad_()
    y = F.gelu(x)
    gx, = torch.autograd.grad(y, x, torch.from_numpy(data["g"]))
    np.savez(sys.argv[1], y=y.detach().numpy(), gx=gx.numpy())
""")


def _values() -> np.ndarray:
    """Every interval of the polynomial table: scaled normals, random bit patterns (with
    subnormals, huge values, infinities and NaNs) and the edges around the right bound."""
    rng = np.random.default_rng(7)
    parts = [rng.standard_normal(20000).astype(np.float32) * s for s in (1e-3, 1, 4, 30)]
    parts.append(rng.integers(0, 2**32, 40000, dtype=np.uint64).astype(np.uint32)
                 .view(np.float32))
    parts.append(np.array([0, -0.0, 1e-45, -1e-45, 5.54, 5.5425, 5.55, -5.55, np.inf,
                           -np.inf, np.nan, 3.4e38], np.float32))
    return np.concatenate(parts).reshape(-1, 4)


@pytest.fixture(scope="module")
def torch_gelu(tmp_path_factory):
    x = _values()
    g = np.random.default_rng(8).standard_normal(x.shape).astype(np.float32)
    path = tmp_path_factory.mktemp("gelu512") / "gelu.npz"
    np.savez(path, x=x, g=g)
    env = {k: v for k, v in os.environ.items() if k not in ("ONEDNN_MAX_CPU_ISA",
                                                             "DNNL_MAX_CPU_ISA")}
    subprocess.run([sys.executable, "-c", _TORCH, str(path)], env=env, check=True, timeout=300)
    return x, g, dict(np.load(path))


def test_exact_gelu_has_torchs_avx512_onednn_bits(torch_gelu, monkeypatch):
    monkeypatch.setattr(onednn, "AVX512_CORE", True)
    x, _, expected = torch_gelu
    np.testing.assert_array_equal(kernels.gelu(x, "none"), expected["y"], strict=True)


def test_exact_gelu_backward_has_torchs_avx512_onednn_bits(torch_gelu, monkeypatch):
    monkeypatch.setattr(onednn, "AVX512_CORE", True)
    x, g, expected = torch_gelu
    np.testing.assert_array_equal(kernels.gelu_backward(g, x), expected["gx"], strict=True)


def test_avx2_gelu_order_differs_from_avx512_somewhere(torch_gelu, monkeypatch):
    """The two ISAs' forwards differ, so the test above tells them apart."""
    monkeypatch.setattr(onednn, "AVX512_CORE", False)
    x, _, expected = torch_gelu
    assert not np.array_equal(kernels.gelu(x, "none"), expected["y"])
