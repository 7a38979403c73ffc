"""gradtrace's float64 elementwise kernels against torch 2.13's recorded bits.

tests/data/f64_bits/<capability>.npz holds torch's float64 results of functions it
computes through SLEEF's double kernels in the FMA builds' vector bodies and libm's in
scalar tails (every element in the default build): sigmoid, expm1, log1p, pow with a
scalar exponent, the activations built on exp/expm1/log1p/tanh, log_sigmoid, logaddexp,
atan2, sinh, cosh, lgamma, asinh, acosh, atanh, exp2, logaddexp2,
softmax, the logits losses, and the kernel backwards. Each capability's file runs with
gradtrace switched to it, without torch; every bit must match.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from f64_bits_data import FORMULAS, GRAD, chunks, domain, reference_bits
from mkl_skip import OTHER_KERNELS, OTHER_KERNELS_REASON
from ops_helpers import TORCH, F, leaf
from test_conformance import use_capability

from gradtrace.engine import fp64, sleef64
from gradtrace.engine.backward import backward
from gradtrace.engine.tensor import Tensor

DATA = Path(__file__).parent / "data" / "f64_bits"
# soft_margin_loss is log1p(exp(-y·x)): its exp is MKL VML's vdExp
THROUGH_VML = frozenset({"soft_margin"})
FILES = sorted(DATA.glob("*.npz"))


def _backward(fn: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    def run(x: Tensor) -> Tensor:
        x = leaf(x.array)
        backward([fn(x)], [Tensor(np.full(x.array.shape, GRAD))])
        return x.grad
    return run


def _target(t: Tensor) -> Tensor:
    return Tensor((t.array > 0).astype(np.float64))


GRADTRACE: dict[str, Callable[[Tensor], Tensor]] = {
    "sigmoid": TORCH.sigmoid, "expm1": TORCH.expm1, "log1p": TORCH.log1p,
    "pow_tensor": lambda t: t ** (t.flip(0) / 7), "pow_1.7": lambda t: t ** 1.7,
    "pow_-1.3": lambda t: t ** -1.3, "silu": F.silu,
    "softplus": F.softplus, "elu": F.elu, "selu": F.selu, "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "mish": F.mish,
    "logsigmoid": F.logsigmoid, "logaddexp": lambda t: TORCH.logaddexp(t, t.flip(0)),
    "atan2": lambda t: TORCH.atan2(t, t.flip(0)), "sinh": TORCH.sinh, "cosh": TORCH.cosh,
    "lgamma": TORCH.lgamma, "asinh": TORCH.asinh, "acosh": TORCH.acosh, "atanh": TORCH.atanh,
    "exp2": TORCH.exp2, "logaddexp2": lambda t: TORCH.logaddexp2(t, t.flip(0)),
    "softmax": lambda t: TORCH.softmax(t.view(1, -1), 1).view(-1),
    "log_softmax": lambda t: TORCH.log_softmax(t.view(1, -1), 1).view(-1),
    "bce_logits": lambda t: F.binary_cross_entropy_with_logits(t, _target(t), reduction="none"),
    "soft_margin": lambda t: F.soft_margin_loss(t, Tensor(np.sign(t.array)), reduction="none"),
    "silu_backward": _backward(F.silu), "softplus_backward": _backward(F.softplus),
    "elu_backward": _backward(F.elu), "mish_backward": _backward(F.mish),
    "gelu_backward": _backward(F.gelu),
    "gelu_tanh_backward": _backward(lambda t: F.gelu(t, approximate="tanh")),
}


def mismatches(path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """The inputs whose result differs from torch's in any bit (NaNs of either sign agree)."""
    data = np.load(path)
    use_capability(monkeypatch, str(data["capability"]))
    monkeypatch.setenv("OMP_NUM_THREADS", str(int(data["threads"])))
    x = domain(FORMULAS[name][0])
    want = (data[name] ^ reference_bits(name, x)).view(np.float64)
    got = np.empty_like(x)
    with np.errstate(all="ignore"):
        for i, j in chunks(x.size):
            got[i:j] = GRADTRACE[name](Tensor(x[i:j].copy())).array
    same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
    return x[~same]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_float64_bits_match_torch(path, name, monkeypatch):
    if name in THROUGH_VML and OTHER_KERNELS:
        pytest.skip(OTHER_KERNELS_REASON)
    bad = mismatches(path, name, monkeypatch)
    assert bad.size == 0, f"{name} under {path.stem}: {bad.size} differ, e.g. at {bad[:5]}"


def test_recordings_cover_both_capabilities_here():
    assert {p.stem for p in FILES} >= {"avx2", "default"}


def test_fma_is_correctly_rounded_where_the_plain_sum_double_rounds():
    # (1 + 2**-52)**2 - 1 = 2**-51 + 2**-104 exactly, a double: the plain product rounds
    # 2**-104 away first
    a = np.array([1 + 2.0 ** -52])
    c = np.array([-1.0])
    assert fp64.fma(a, a, c)[0] == 2.0 ** -51 + 2.0 ** -104
    assert (a * a + c)[0] == 2.0 ** -51


def test_sleef_exp_keeps_its_range_limits():
    x = np.array([709.78, 709.79, -745.0, -1000.0, -1001.0, np.nan, -np.inf, np.inf])
    y = sleef64.exp(x)
    assert np.isfinite(y[0]) and y[1] == np.inf and y[2] > 0 and y[4] == 0
    assert np.isnan(y[5]) and y[6] == 0 and y[7] == np.inf


def test_fma_rounds_once_where_the_product_is_subnormal():
    # 3 * 2**-1074 * 0.5 = 1.5 * 2**-1074 (ties to even: 2 * 2**-1074); + 2**-1074 exactly
    # 2.5 * 2**-1074, rounded once to 2 * 2**-1074
    tiny = 2.0 ** -1074
    got = fp64.fma(np.array([3 * tiny, 3 * tiny]), np.array([0.5, 0.5]), np.array([tiny, 0.0]))
    assert list(got) == [2 * tiny, 2 * tiny]


def test_fma_finds_a_subnormal_product_beside_a_nan():
    tiny = 2.0 ** -1074
    got = fp64.fma(np.array([3 * tiny, np.nan]), np.array([0.5, 1.0]), np.array([tiny, 0.0]))
    assert got[0] == 2 * tiny and np.isnan(got[1])


def test_fma_of_zero_dimensional_operands_rounds_as_the_array_form():
    # -(y*y) + 1 at y = tanh(0.1): the round-to-odd step must fix a 0-d sum (tanh's
    # backward of a float64 scalar crashed there with a TypeError)
    y = np.tanh(np.float64(0.1))
    scalar = fp64.fma(np.asarray(-y), np.asarray(y), 1.0)
    assert scalar.shape == () and scalar == fp64.fma(np.array([-y]), np.array([y]), 1.0)[0]


def test_tanh_backward_of_a_float64_scalar():
    x = leaf(np.float64(1e-9))
    backward([(x / 3.0).tanh()])
    assert x.grad.shape == () and x.grad.array.item() == 0.3333333333333333  # torch 2.13
