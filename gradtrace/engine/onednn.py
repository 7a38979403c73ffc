"""oneDNN's float32 eltwise kernels that torch calls, step for step in numpy.

torch 2.13 computes exact GELU of a contiguous float32 tensor of more than one element
with oneDNN (`ideep::eltwise_forward`, algorithm eltwise_gelu_erf). Below AVX-512 the JIT
injector (src/cpu/x64/injectors/jit_uni_eltwise_injector.cpp, Apache-2.0) evaluates
Abramowitz and Stegun's erf with its own exp; every `vfmadd`/`vfnmadd` is a float32
fused multiply-add (`fp32.fma`). Functions take and return 1-D float32 arrays.

oneDNN picks its ISA from the CPU (capped by ONEDNN_MAX_CPU_ISA), not from torch's
ATEN_CPU_CAPABILITY. With AVX-512 the forward runs a piecewise minimax polynomial instead
(`gelu_erf_avx512`); the backward keeps the Abramowitz-Stegun form. Both measured bit for
bit against torch 2.13 on an AVX-512 CPU. `AVX512_CORE` tells callers which applies.
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


# gelu_erf_minimax_approx_compute_vector_fwd (AVX-512): erf(s / sqrt 2) for |s| by a degree-5
# polynomial in |s| chosen from 25 intervals (the exponent and two mantissa bits of |s|).
_MINIMAX_IDX_BIAS = np.int32(-0x3DE00001)  # 0xc21fffff
_MINIMAX_RBOUND = _f(0x40B15CEE)
_MINIMAX_POL = np.array([  # [degree][interval]: 25 intervals (the padding left out)
    [0xA6F2CB94, 0x32827792, 0x3381CC0C, 0x34523D4A, 0x351AC44D, 0x35F36D88, 0x36EE8229,
     0x37B8A3BB, 0x3867A213, 0x3940033B, 0x3A2A5A1D, 0x3AE35863, 0x3B7828F2, 0x3C08B14B,
     0x3C515ED3, 0xBB503236, 0xBD8D8E5E, 0xBE8ABCD9, 0xBF0C19A2, 0xBECCB328, 0x3E176CED,
     0x3F470D99, 0x3F7ABB28, 0x3F800000, 0x00000000],
    [0x3F4C422A, 0x3F4C421F, 0x3F4C4207, 0x3F4C41CB, 0x3F4C413B, 0x3F4C3FAD, 0x3F4C3A2F,
     0x3F4C2D40, 0x3F4C146A, 0x3F4BC341, 0x3F4AD08C, 0x3F48F8CF, 0x3F45FAC7, 0x3F404E07,
     0x3F3B980F, 0x3F48DFF3, 0x3F78B21B, 0x3FBB0704, 0x40019C32, 0x3FE536D6, 0x3F81331E,
     0x3E6C8684, 0x3C98F936, 0x00000000, 0x3F800000],
    [0xB62173F4, 0x3735E4CF, 0x37F2FF89, 0x388C23BE, 0x3917535C, 0x39AB2AB0, 0x3A60FADB,
     0x3AF9B960, 0x3B6E5491, 0x3C0A4EC5, 0x3CA5AA8C, 0x3D2138D9, 0x3D8737D4, 0x3DDFB660,
     0x3E0F27AB, 0x3D94004B, 0xBE0EFDEB, 0xBF1D96C3, 0xBF89DB58, 0xBF6D9897, 0xBEF69FB8,
     0xBDC4F8A8, 0xBBDE6422, 0x00000000, 0x00000000],
    [0xBE081A19, 0xBE084570, 0xBE08639B, 0xBE089837, 0xBE08F409, 0xBE09AB95, 0xBE0B66D0,
     0xBE0E400A, 0xBE124DF8, 0xBE1BDE02, 0xBE2F19C9, 0xBE4931BF, 0xBE685FBC, 0xBE89C95F,
     0xBE96CBCA, 0xBE8044AA, 0xBE0550F2, 0x3DCFD6A1, 0x3E94C826, 0x3E79345F, 0x3DECEC91,
     0x3CA46568, 0x3AA1E00A, 0x00000000, 0x00000000],
    [0xBA3D61DB, 0x39F097A3, 0x3A5845DC, 0x3AB1FA35, 0x3B0CEFB8, 0x3B653AB6, 0x3BCAE527,
     0x3C221712, 0x3C6C5840, 0x3CC0A703, 0x3D1DCC19, 0x3D63656D, 0x3D955907, 0x3DBF9910,
     0x3DD53F69, 0x3DB7DCEF, 0x3D639EBE, 0xBA6EDE48, 0xBD22BE69, 0xBD041CF1, 0xBC64F5AB,
     0xBB097A32, 0xB8EBF380, 0x00000000, 0x00000000],
    [0x3CB7D80C, 0x3C9B6050, 0x3C978D11, 0x3C92E850, 0x3C8D058B, 0x3C848454, 0x3C6CD623,
     0x3C4C824B, 0x3C2A7935, 0x3BE0B390, 0x3B0651AC, 0xBB232F53, 0xBBD42FA0, 0xBC2C5366,
     0xBC492C9E, 0xBC2A7AA6, 0xBBD55D04, 0xBA823A76, 0x3B102AA8, 0x3AE25A7E, 0x3A31F792,
     0x38B84375, 0x3689BB5A, 0x00000000, 0x00000000],
], np.uint32).view(np.float32)


def gelu_erf_avx512(s: np.ndarray) -> np.ndarray:
    """gelu_erf_minimax_approx_compute_vector_fwd (AVX-512 ISAs): the interval's
    polynomial in |s| by fused multiply-adds, signed as s, plus 1, times s, times 0.5."""
    with np.errstate(over="ignore", invalid="ignore"):
        pos = np.abs(s)
        idx = (pos.view(np.int32) + _MINIMAX_IDX_BIAS) >> 21
        idx = np.minimum(np.maximum(idx, 1), 24)
        idx[_MINIMAX_RBOUND < pos] = 23
        pol = _MINIMAX_POL[5][idx]
        for deg in range(4, -1, -1):
            pol = fma(pol, pos, _MINIMAX_POL[deg][idx])
        pol = (pol.view(np.int32) ^ (s.view(np.int32) & np.int32(-2**31))).view(np.float32)
        return s * (pol + _ONE) * _HALF
