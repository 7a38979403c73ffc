"""oneDNN's float32 eltwise kernels that torch calls, step for step in numpy.

torch 2.13 computes exact GELU of a contiguous float32 tensor of more than one element
with oneDNN (`ideep::eltwise_forward`, algorithm eltwise_gelu_erf). Below AVX-512 the JIT
injector (src/cpu/x64/injectors/jit_uni_eltwise_injector.cpp, Apache-2.0) evaluates
Abramowitz and Stegun's erf with its own exp; every `vfmadd`/`vfnmadd` is a float32
fused multiply-add (`fp32.fma`). Functions take and return 1-D float32 arrays.

oneDNN picks its ISA from the CPU (capped by ONEDNN_MAX_CPU_ISA), not from torch's
ATEN_CPU_CAPABILITY. With AVX-512 it runs a minimax polynomial instead, which gradtrace
does not reproduce (no machine here to check it on): `AVX512_CORE` tells callers so.
"""
from __future__ import annotations

import os

import numpy as np

from . import capability
from .fp32 import fma

_BELOW_AVX512 = ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2")


def uses_avx512_core(environ: dict[str, str] | None = None,
                     flags: frozenset[str] | None = None) -> bool:
    """Whether oneDNN runs its AVX-512 kernels: the CPU has them and no cap forbids."""
    env = os.environ if environ is None else environ
    cap = env.get("ONEDNN_MAX_CPU_ISA") or env.get("DNNL_MAX_CPU_ISA") or ""
    if cap.upper() in _BELOW_AVX512:
        return False
    flags = capability._cpu_flags() if flags is None else flags
    return {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags


AVX512_CORE = uses_avx512_core()


def _f(bits: int) -> np.float32:
    return np.array(bits, np.uint32).view(np.float32)[()]


_ONE, _HALF, _TWO = np.float32(1), np.float32(0.5), np.float32(2)
_LOG2EF = _f(0x3FB8AA3B)
_LN2F = _f(0x3F317218)
_LN_FLT_MAX = _f(0x42B17218)
_LN_FLT_MIN = _f(0xC2AEAC50)
_EXP_POL = [_f(b) for b in (0x3F7FFFFB, 0x3EFFFEE3, 0x3E2AAD40, 0x3D2B9D0D, 0x3C07CFCE)]
_ERF_P = _f(0x3EA7BA05)
_ONE_OVER_SQRT_TWO = _f(0x3F3504F3)
_ERF_POL = [_f(b) for b in (0x3E827906, 0xBE91A98E, 0x3FB5F0E3, 0xBFBA00E3, 0x3F87DC22)]


def exp(v: np.ndarray) -> np.ndarray:
    """exp_compute_vector_fwd: 2**(n-1) * p(r) * 2, zero below log(FLT_MIN)."""
    with np.errstate(over="ignore", invalid="ignore"):
        too_small = v < _LN_FLT_MIN
        v = np.maximum(np.minimum(v, _LN_FLT_MAX), _LN_FLT_MIN)
        fx = np.floor(v * _LOG2EF + _HALF)
        r = fma(-fx, _LN2F, v)
        n = (fx - _ONE).astype(np.int32)  # integral already: cvtps2dq is exact here
        scale = ((n + 127) << 23).view(np.float32)
        scale[too_small] = 0
        p = np.full_like(r, _EXP_POL[4])
        for c in _EXP_POL[3::-1]:
            p = fma(p, r, c)
        p = fma(p, r, _ONE)
        return p * scale * _TWO


def gelu_erf(s: np.ndarray) -> np.ndarray:
    """gelu_erf_compute_vector_fwd (non-AVX-512 ISAs): 0.5 s (1 + erf(s / sqrt 2))."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        x = s * _ONE_OVER_SQRT_TWO
        t = _ONE / fma(np.full_like(x, _ERF_P), np.abs(x), _ONE)
        e = -exp(-(x * x)) * t
        r = np.full_like(t, _ERF_POL[4])
        for c in _ERF_POL[3::-1]:
            r = fma(r, t, c)
        erf = fma(e, r, _ONE)
        erf = (erf.view(np.int32) ^ (s.view(np.int32) & np.int32(-2**31))).view(np.float32)
        half_s = s * _HALF
        return fma(erf, half_s, half_s)


_ONE_OVER_SQRT_PI = _f(0x3F106EBA)  # oneDNN rounds 1/sqrt(pi) down


def gelu_erf_backward(s: np.ndarray) -> np.ndarray:
    """gelu_erf_compute_vector_bwd (non-AVX-512 ISAs): d gelu / ds, which the eltwise
    backward kernel then multiplies by the incoming gradient."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        r = s * _ONE_OVER_SQRT_TWO
        q = exp(-(r * r))
        t = r * _ONE_OVER_SQRT_PI * q
        w = _ONE / fma(np.full_like(r, _ERF_P), np.abs(r), _ONE)
        qw = -q * w
        poly = np.full_like(w, _ERF_POL[4])
        for c in _ERF_POL[3::-1]:
            poly = fma(poly, w, c)
        erf = fma(qw, poly, _ONE)
        erf = (erf.view(np.int32) ^ (r.view(np.int32) & np.int32(-2**31))).view(np.float32)
        return fma(erf, _HALF, t + _HALF)
