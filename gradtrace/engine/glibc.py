"""glibc's float32 libm functions (2.28+, Arm optimized-routines algorithms evaluated in
double), step for step in numpy: what torch's scalar code paths (vector tails, the
`default` capability, scalar-only kernels) call through `std::exp` and friends.

On an x86-64 CPU with FMA, glibc's ifunc selects the `-mfma` builds of these files, in
which GCC contracts `a * b + c` into a fused multiply-add: `fp64.fma` reproduces it.
Functions take float32 arrays and return float32 arrays.
"""
from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np

from . import fp64

_EXP2F_BITS = 5
_N = 1 << _EXP2F_BITS


def _exp2f_table() -> np.ndarray:
    """__exp2f_data.tab: 2**(i/N) as float64 bits, less i << (52 - 5)."""
    with localcontext() as ctx:
        ctx.prec = 60
        vals = [float(Decimal(2) ** (Decimal(i) / _N)) for i in range(_N)]
    bits = np.array(vals, np.float64).view(np.uint64)
    return bits - (np.arange(_N, dtype=np.uint64) << np.uint64(52 - _EXP2F_BITS))


_T = _exp2f_table()
_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * _N
_SHIFT = float.fromhex("0x1.8p+52")
_C = (float.fromhex("0x1.c6af84b912394p-5") / _N / _N / _N,
      float.fromhex("0x1.ebfce50fac4f3p-3") / _N / _N,
      float.fromhex("0x1.62e42ff0c52d6p-1") / _N)


def expf(x: np.ndarray) -> np.ndarray:
    """glibc __expf (sysdeps/ieee754/flt-32/e_expf.c)."""
    xd = x.astype(np.float64)
    z = _INVLN2N * xd
    with np.errstate(invalid="ignore", over="ignore"):
        kd = z + _SHIFT
        ki = kd.view(np.uint64)
        kd = kd - _SHIFT
        r = z - kd
        t = _T[(ki % np.uint64(_N)).astype(np.intp)] + (ki << np.uint64(52 - _EXP2F_BITS))
        s = t.view(np.float64)
        zz = fp64.fma(_C[0], r, _C[1])
        r2 = r * r
        y = fp64.fma(_C[2], r, 1.0)
        y = fp64.fma(zz, r2, y)
        out = (y * s).astype(np.float32)
    big = ~(np.abs(x) < 88.0)  # |x| >= 88 or nan: the special cases
    if big.any():
        xb = x[big]
        with np.errstate(over="ignore"):
            res = np.where(xb > np.float32(float.fromhex("0x1.62e42ep6")), np.inf,
                           np.where(xb < np.float32(float.fromhex("-0x1.9fe368p6")), 0.0,
                                    out[big]))
        res = np.where(np.isnan(xb), xb, res)
        out[big] = res.astype(np.float32)
    return out
