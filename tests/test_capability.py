"""Which of torch's kernels run which vector code (engine/capability.py): under AVX-512 only
the kernels ATen registers for it run AVX-512 code, the rest their AVX2 build, and MKL picks
its kernels from the CPU's vendor as well as its flags (both measured on an AMD EPYC with
AVX-512 against torch 2.13; tests/data/numerics/avx512 holds the recordings)."""
from __future__ import annotations

import numpy as np

from gradtrace.engine import capability
from gradtrace.engine.reduction_order import cascade_sum

AVX512_FLAGS = frozenset({"avx2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq"})


def test_a_kernel_not_registered_for_avx512_runs_its_avx2_build(monkeypatch):
    monkeypatch.setattr(capability, "CAPABILITY", "avx512")
    assert capability.kernel() == "avx2"
    assert capability.lanes(4) == 8
    assert capability.kernel(capability.AVX512_KERNEL) == "avx512"
    assert capability.lanes(4, capability.kernel(capability.AVX512_KERNEL)) == 16


def test_below_avx512_every_kernel_runs_the_chosen_capability(monkeypatch):
    for cap in ("avx2", "default"):
        monkeypatch.setattr(capability, "CAPABILITY", cap)
        assert capability.kernel() == capability.kernel(capability.AVX512_KERNEL) == cap


def test_a_float32_sum_has_the_same_bits_under_avx512_and_avx2(monkeypatch):
    x = np.random.default_rng(3).standard_normal((7, 45)).astype(np.float32)
    sums = {}
    for cap in ("avx2", "avx512"):
        monkeypatch.setattr(capability, "CAPABILITY", cap)
        sums[cap] = [cascade_sum(x, (), False), cascade_sum(x, (0,), False),
                     cascade_sum(x, (1,), False)]
    for a, b in zip(sums["avx2"], sums["avx512"], strict=True):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_mkl_runs_avx512_kernels_only_on_intel_cpus():
    assert capability.blas_platform(AVX512_FLAGS, "GenuineIntel") == "mkl-avx512"
    assert capability.blas_platform(AVX512_FLAGS, "AuthenticAMD") == "mkl-avx2"
    assert capability.blas_platform(frozenset({"avx2", "fma"}), "GenuineIntel") == "mkl-avx2"
