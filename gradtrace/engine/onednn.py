"""oneDNN's float32 eltwise kernels that torch calls, step for step in numpy.

torch 2.13 computes exact GELU of a contiguous float32 tensor of more than one element
with oneDNN (`ideep::eltwise_forward`, algorithm eltwise_gelu_erf). Below AVX-512 the JIT
injector (src/cpu/x64/injectors/jit_uni_eltwise_injector.cpp, Apache-2.0) evaluates
Abramowitz and Stegun's erf with its own exp; every `vfmadd`/`vfnmadd` is a float32
fused multiply-add (`fp32.fma`). The same injector's sigmoid (`logistic`) and `tanh` run in
the LSTM's post-GEMM kernels (engine/ops/rnn.py). Functions take and return float32 arrays.

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


# tanh_compute_vector_fwd: |x| below 0x1.bb67aep-12 (tanh_linear_ubound) is its own tanh, from
# 0x1.205966p3 (tanh_saturation_lbound) it is 1; between, a degree-6 polynomial in the offset
# from the start of |x|'s half binade (its exponent and first mantissa bit), chosen by them.
_TANH_IDX_BIAS = np.uint32(0x39800000)
_TANH_IDX_MASK = np.uint32(0xFFC00000)
_TANH_LINEAR_UBOUND = _f(0x39DDB3D7)
_TANH_SATURATION_LBOUND = _f(0x41102CB3)
_TANH_POL = np.array([  # [degree][interval]
    [0x00000000, 0x39BFFFFF, 0x39FFFFFF, 0x3A3FFFFE, 0x3A7FFFFB, 0x3ABFFFF7, 0x3AFFFFEB,
     0x3B3FFFDC, 0x3B7FFFAB, 0x3BBFFF70, 0x3BFFFEAB, 0x3C3FFDC0, 0x3C7FFAAB, 0x3CBFF701,
     0x3CFFEAAD, 0x3D3FDC08, 0x3D7FAACD, 0x3DBF7081, 0x3DFEACC9, 0x3E3DC7FD, 0x3E7ACBF5,
     0x3EB77A9F, 0x3EEC9A9F, 0x3F22991F, 0x3F42F7D6, 0x3F67B7CC, 0x3F76CA83, 0x3F7EBBE9,
     0x3F7FD40C, 0x3F7FFF32, 0x3F7FFFFC, 0x3F800000],
    [0x3F800000, 0x3F800018, 0x3F7FFFE8, 0x3F7FFFDA, 0x3F7FFFDC, 0x3F7FFFDC, 0x3F7FFFAC,
     0x3F7FFF70, 0x3F7FFEEC, 0x3F7FFDC0, 0x3F7FFBED, 0x3F7FF704, 0x3F7FEFF5, 0x3F7FDBCA,
     0x3F7FBFFF, 0x3F7F7041, 0x3F7F009B, 0x3F7DC36C, 0x3F7C0AA8, 0x3F7734B8, 0x3F70A4DE,
     0x3F5F1FD8, 0x3F495493, 0x3F18B9EC, 0x3ED706CB, 0x3E390B06, 0x3D90B11F, 0x3C21A053,
     0x3AAF7FDB, 0x37CCC1A3, 0x355C6733, 0x00000000],
    [0x00000000, 0xBE4E0FF1, 0x3D25B1B1, 0x3D6B6DAB, 0x3C9FB1D5, 0xBABFF06F, 0x3C07B3F6,
     0xBB3FC1BC, 0x3A9F5921, 0xBBBF06F2, 0xBBB0F402, 0xBC47DB9E, 0xBC73D5E7, 0xBCA25BDA,
     0xBCFCA780, 0xBD40E07C, 0xBD7DAB03, 0xBDBE4A0F, 0xBDFB14A5, 0xBE36CC8D, 0xBE6BD102,
     0xBE9FE7C5, 0xBEBA0F10, 0xBEC206A8, 0xBEA3C388, 0xBE277D62, 0xBD8B7960, 0xBC209F49,
     0xBAAD44CA, 0xB7C6EEAC, 0xB663AA41, 0x00000000],
    [0x00000000, 0x45B3AE96, 0xC414EB20, 0xC450E02E, 0xC3152B4E, 0xBEAD2F56, 0xC2162E02,
     0xBEB4BD5A, 0xC11A59A4, 0xBED2F507, 0xC020D32C, 0x3DD0F506, 0xBF2A75E2, 0xBFF950E3,
     0xBED47334, 0xBE809B8C, 0xBEB64532, 0xBE961A5B, 0xBE9B63AC, 0xBEA0D4B2, 0xBE828A77,
     0xBE378612, 0xBDC20908, 0x3D2D3957, 0x3DD46E89, 0x3DB3F629, 0x3D2C5E7B, 0x3BD20403,
     0x3A59DFAE, 0x3770AF45, 0x372CC014, 0x00000000],
    [0x00000000, 0xCC981A1B, 0x4A7EDD3D, 0x4AB1007C, 0x48FEDD9C, 0x41A557B5, 0x477EE32A,
     0x422557F5, 0x45FF3CE4, 0x42A55641, 0x446E0867, 0xC33DC19A, 0x42915214, 0x43AF4FAD,
     0x4110FE88, 0xC1099B75, 0x3FC8A8DC, 0xBFBEAEF5, 0xBE365AAD, 0x3F4D9652, 0x3DDFA08F,
     0x3E34E9B8, 0x3E2D07A6, 0x3DC63567, 0x3CDAEB78, 0xBCD17537, 0xBC92829C, 0xBB43AB99,
     0xB9B471DD, 0xB6BAAD5A, 0xB78BAFC7, 0x00000000],
    [0x00000000, 0x52F688D5, 0xD0505C72, 0xD08F98E3, 0xCE505CC9, 0xC7162B8A, 0xCC5061D6,
     0xC7162BDF, 0xCA50B37F, 0xC7162A3A, 0xC8422086, 0x471A714E, 0xC5ECE1F1, 0xC70E3D90,
     0xC3EBA94A, 0x43E0C424, 0xC21F4552, 0x42217CC8, 0x405E7DC4, 0xC10DD401, 0x3E96B602,
     0xBD1A6D2F, 0xBD393883, 0xBD674682, 0xBD310016, 0xB961E269, 0x3BA32495, 0x3A7680D5,
     0x38B3173C, 0x35A9DEEA, 0x375C3F2A, 0x00000000],
    [0x00000000, 0xD8995ED1, 0x558285EA, 0x55B2CD69, 0x53028625, 0x4BC9991F, 0x5082898A,
     0x4B4999B3, 0x4E02C07C, 0x4AC99764, 0x4B72C822, 0xCA40C0E1, 0x489413E4, 0x49B12224,
     0x46134C4E, 0xC60C2D57, 0x43C83910, 0xC3C872D1, 0xC186BC9E, 0x42325BC3, 0xBF2FFA4A,
     0x3D9A203C, 0xBC545A43, 0xBAE08FEE, 0x3C80225D, 0x3B1FD1DF, 0xBA36B9D1, 0xB91DE544,
     0xB71F100F, 0xB408E2ED, 0xB685FEC8, 0x00000000],
], np.uint32).view(np.float32)
_SIGN = np.uint32(0x80000000)


def tanh(x: np.ndarray) -> np.ndarray:
    """tanh_compute_vector_fwd (AVX2 and AVX-512 alike: a gather or a permute of the same
    table). Lanes outside the table's intervals take a value that is blended away."""
    bits = x.view(np.uint32)
    s = np.abs(x)
    sbits = s.view(np.uint32)
    idx = (((sbits - _TANH_IDX_BIAS) & _TANH_IDX_MASK) >> np.uint32(22)).astype(np.intp) & 31
    r = s - (sbits & _TANH_IDX_MASK).view(np.float32)
    p = _TANH_POL[6][idx]
    for degree in range(5, -1, -1):
        p = fma(p, r, _TANH_POL[degree][idx])
    with np.errstate(invalid="ignore"):
        dst = np.where(_TANH_SATURATION_LBOUND > s, p, _ONE)
        dst = np.where(_TANH_LINEAR_UBOUND > s, s, dst).astype(np.float32)
    return (dst.view(np.uint32) ^ (bits & _SIGN)).view(np.float32)


def logistic(x: np.ndarray) -> np.ndarray:
    """logistic_compute_vector_fwd: e = exp(-|x|), e / (e + 1) for negative x (sign bit
    set), 1 - that for the others."""
    negative = (x.view(np.uint32) & _SIGN) != 0
    e = exp((x.view(np.uint32) | _SIGN).view(np.float32).ravel()).reshape(x.shape)
    y = e / (e + _ONE)
    return np.where(negative, y, _ONE - y)
