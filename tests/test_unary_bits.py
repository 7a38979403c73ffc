"""gradtrace's float32 elementwise functions against torch 2.13's recorded bits.

tests/data/unary_bits/<capability>.npz holds torch's outputs for 10^5 points per function
(tests/tools/record_unary_bits.py); each capability's file runs with gradtrace switched
to that capability and torch's thread count, without torch. gradtrace follows torch's
code path for every function (engine/kernels.py), so each must match every bit, except:

exp, log, sin, cos, tanh, sqrt and erfinv are MKL VML's in torch: exact only with torch's MKL
installed (`pip install gradtrace[exact]`); those exactness tests skip without it, and the
float64 fallback is tested separately against the match rate it had when recorded.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mkl_skip import MISSING, OTHER_KERNELS, OTHER_KERNELS_REASON, REASON
from test_conformance import use_capability
from unary_bits_data import DOMAINS, chunks, domain, reference_bits

from gradtrace.engine import kernels
from gradtrace.engine.ops import activations as nn
from gradtrace.engine.tensor import Tensor

DATA = Path(__file__).parent / "data" / "unary_bits"
FILES = sorted(DATA.glob("*.npz"))


def _t(x: np.ndarray) -> Tensor:
    return Tensor._wrap(x)


GRADTRACE = {
    "exp": lambda t: t.exp(),
    "log": lambda t: t.log(),
    "log1p": lambda t: t.log1p(),
    "expm1": lambda t: t.expm1(),
    "sin": lambda t: t.sin(),
    "cos": lambda t: t.cos(),
    "tanh": lambda t: t.tanh(),
    "sigmoid": lambda t: t.sigmoid(),
    "sqrt": lambda t: t.sqrt(),
    "rsqrt": lambda t: t.rsqrt(),
    "reciprocal": lambda t: t.reciprocal(),
    "pow_1.7": lambda t: t**1.7,
    "pow_-1.3": lambda t: t**-1.3,
    "silu": nn.silu,
    "softplus": nn.softplus,
    "elu": nn.elu,
    "gelu": nn.gelu,
    "gelu_tanh": lambda t: nn.gelu(t, approximate="tanh"),
    "erfinv": lambda t: t.erfinv(),
    "sinh": lambda t: t.sinh(),
    "cosh": lambda t: t.cosh(),
    "atan2": lambda t: t.atan2(t.flip(0)),
    "lgamma": lambda t: t.lgamma(),
    "asinh": lambda t: t.asinh(),
    "acosh": lambda t: t.acosh(),
    "atanh": lambda t: t.atanh(),
    "exp2": lambda t: t.exp2(),
    "logaddexp2": lambda t: t.logaddexp2(t.flip(0)),
}

MKL_FUNCTIONS = ("cos", "erfinv", "exp", "log", "sin", "sqrt", "tanh")
# MKL's functions evaluated in float64 and rounded once (no `mkl` wheel): the match rate
# measured when recorded, rounded down
FALLBACK_FLOORS = {"cos": 0.957, "erfinv": 0.999, "exp": 0.992, "log": 0.949, "sin": 0.964,
                   "sqrt": 0.833, "tanh": 0.999}


def match_rate(path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> float:
    data = np.load(path)
    use_capability(monkeypatch, str(data["capability"]))
    monkeypatch.setenv("OMP_NUM_THREADS", str(int(data["threads"])))
    x = domain(DOMAINS.get(name, "real"))
    want = data[name] ^ reference_bits(name, x)
    got = np.empty_like(x)
    with np.errstate(all="ignore"):
        for i, j in chunks(x.size):
            got[i:j] = GRADTRACE[name](_t(x[i:j].copy())).array
    w = want.view(np.float32)
    same = (got.view(np.uint32) == want) | (np.isnan(got) & np.isnan(w))
    return float(same.mean())


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("name", sorted(GRADTRACE))
def test_float32_bits_match_torch(path, name, monkeypatch):
    if name in MKL_FUNCTIONS and MISSING:
        pytest.skip(REASON)
    if name in MKL_FUNCTIONS and OTHER_KERNELS:
        pytest.skip(OTHER_KERNELS_REASON)
    rate = match_rate(path, name, monkeypatch)
    assert rate == 1.0, f"{name} under {path.stem}: {rate:.5f} of torch's bits"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("name", MKL_FUNCTIONS)
def test_float64_fallback_without_mkl_stays_as_close_as_recorded(path, name, monkeypatch):
    monkeypatch.setattr(kernels, "_mkl", lambda: None)
    rate = match_rate(path, name, monkeypatch)
    assert rate >= FALLBACK_FLOORS[name], f"{name} without MKL: {rate:.5f} of torch's bits"


def test_recordings_cover_every_capability():
    assert {p.stem for p in FILES} >= {"avx2", "avx512", "default"}
