"""The gamma family and torch.special's kernels: values bit for bit against torch 2.13's
recorded outputs (tests/data/special_bits, avx2), the once-rounded lgamma within its
rounding, finite-difference gradchecks in float64, and torch's errors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ops_helpers import TORCH as torch
from ops_helpers import finite_difference_tests
from special_bits_data import inputs, samplers
from test_gradcheck import pos, prob, randn

from gradtrace.engine import api
from gradtrace.engine.tensor import Tensor
from gradtrace.errors import ScriptError

S = api.SPECIAL_FUNCTIONS
RECORDED = np.load(Path(__file__).parent / "data" / "special_bits" / "avx2.npz")

FUNCTIONS = {
    "digamma": (torch.digamma, "real"), "trigamma": (lambda t: torch.polygamma(1, t), "real"),
    "polygamma2": (lambda t: torch.polygamma(2, t), "real"),
    "polygamma3": (lambda t: torch.polygamma(3, t), "real"),
    "i0": (torch.i0, "real"), "i0e": (S["i0e"], "real"), "i1": (S["i1"], "real"),
    "i1e": (S["i1e"], "real"), "ndtri": (S["ndtri"], "probability"),
    "sinc": (torch.sinc, "moderate"), "entr": (S["entr"], "real"),
    "xlog1py": (lambda t: S["xlog1py"](t, t.abs()), "real"),
}
NOT_REPRODUCED = {  # torch's lgamma is SLEEF's (vector body) and glibc's (tail)
    "lgamma": (torch.lgamma, "real"),
    "mvlgamma2": (lambda t: torch.mvlgamma(t.abs() + 1, 2), "real"),
}
DTYPES = (np.float32, np.float64)


def _ours(fn, domain: str, dtype: type) -> np.ndarray:
    return fn(Tensor(inputs(domain, dtype))).array


def test_recorded_values_came_from_avx2():
    assert str(RECORDED["capability"]) == "avx2"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_kernel_is_bit_identical_to_torch(name: str, dtype: type) -> None:
    fn, domain = FUNCTIONS[name]
    ours = _ours(fn, domain, dtype)
    theirs = RECORDED[f"{name}_{np.dtype(dtype).name}"]
    assert ours.dtype == theirs.dtype
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    assert same.all(), (inputs(domain, dtype)[~same][:5], ours[~same][:5], theirs[~same][:5])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(NOT_REPRODUCED))
def test_lgamma_is_within_a_rounding_of_torch(name: str, dtype: type) -> None:
    fn, domain = NOT_REPRODUCED[name]
    ours = _ours(fn, domain, dtype)
    theirs = RECORDED[f"{name}_{np.dtype(dtype).name}"]
    rtol = 4e-7 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)


CASES = {
    "lgamma": (lambda a: a.lgamma(), lambda r: [pos(r, 2, 3)]),
    "digamma": (lambda a: a.digamma(), lambda r: [pos(r, 2, 3)]),
    "polygamma1": (lambda a: torch.polygamma(1, a), lambda r: [pos(r, 2, 3)]),
    "polygamma2": (lambda a: a.polygamma(2), lambda r: [pos(r, 2, 3)]),
    "polygamma_inplace": (lambda a: (a * 1).polygamma_(1), lambda r: [pos(r, 3)]),
    "mvlgamma": (lambda a: torch.mvlgamma(a, 3), lambda r: [pos(r, 2, 3) + 1.5]),
    "sinc": (lambda a: a.sinc(), lambda r: [randn(r, 2, 3)]),
    "i0": (lambda a: a.i0(), lambda r: [randn(r, 2, 3) * 3]),
    "i0e": (lambda a: S["i0e"](a), lambda r: [randn(r, 2, 3) * 3]),
    "i1": (lambda a: S["i1"](a), lambda r: [randn(r, 2, 3) * 3]),
    "i1e": (lambda a: S["i1e"](a), lambda r: [randn(r, 2, 3) * 3]),
    "ndtri": (lambda a: S["ndtri"](a), lambda r: [prob(r, 2, 3)]),
    "entr": (lambda a: S["entr"](a), lambda r: [pos(r, 2, 3)]),
    "xlog1py": (lambda a, b: S["xlog1py"](a, b), lambda r: [randn(r, 2, 3), pos(r, 3)]),
    "xlog1py_number_other": (lambda a: S["xlog1py"](a, 1.5), lambda r: [randn(r, 2, 3)]),
    "xlog1py_number_self": (lambda b: S["xlog1py"](2.5, b), lambda r: [pos(r, 2, 3)]),
    "logaddexp2": (lambda a, b: torch.logaddexp2(a, b), lambda r: [randn(r, 2, 3),
                                                                   randn(r, 3)]),
    "logcumsumexp": (lambda a: torch.logcumsumexp(a, 1), lambda r: [randn(r, 2, 4)]),
    "logcumsumexp_dim0": (lambda a: a.logcumsumexp(0), lambda r: [randn(r, 3, 2) * 3]),
}
SECOND_ORDER = ["lgamma", "digamma", "polygamma2", "sinc", "i0", "i0e", "i1", "ndtri", "entr",
                "xlog1py", "logaddexp2", "mvlgamma", "logcumsumexp"]


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([2313, sum(map(ord, name))])


test_gradcheck, test_gradgradcheck = finite_difference_tests(CASES, SECOND_ORDER, _rng)


@pytest.mark.parametrize("call, message", [
    (lambda x: torch.polygamma(-1, x), "polygamma(n, x) does not support negative n."),
    (lambda x: torch.mvlgamma(x, 0), "p has to be greater than or equal to 1"),
    (lambda x: torch.logaddexp2(Tensor(np.array([1, 2])), Tensor(np.array([3, 4]))),
     "\"logaddexp2_cpu\" not implemented for 'Long'"),
])
def test_errors_are_torchs(call, message: str) -> None:
    with pytest.raises(ScriptError) as info:
        call(Tensor(np.array([1.5, 2.5], np.float32)))
    assert str(info.value).startswith(message) or message in str(info.value)


def test_in_place_polygamma_records_its_own_node():
    x = Tensor(np.array([0.5, 1.5]), requires_grad=True)
    y = (x * 1).polygamma_(2)
    assert type(y.grad_fn).__name__ == "PolygammaBackward1"
    assert y.grad_fn.attrs["n"] == 2


def test_integer_inputs_compute_in_the_default_float():
    x = Tensor(np.array([1, 2, 3]))
    assert torch.digamma(x).dtype.np == np.float32
    assert S["gammaln"](x).dtype.np == np.float32


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_samplers_draw_as_torch_does(dtype: type) -> None:
    """_standard_gamma, _sample_dirichlet, poisson and binomial from a seeded generator give
    torch's values and leave the generator where torch leaves it; the gradients are torch's too."""
    ours = samplers(torch, Tensor(inputs("positive", dtype)))
    for name, value in ours.items():
        theirs = RECORDED[f"{name}_{np.dtype(dtype).name}"]
        np.testing.assert_array_equal(value.array, theirs, err_msg=name)


def test_poisson_rejects_a_negative_rate():
    with pytest.raises(ScriptError, match="invalid Poisson rate"):
        torch.poisson(Tensor(np.array([1.0, -1.0])))


def test_standard_gamma_gradient_is_the_reparameterised_one():
    alpha = Tensor(np.array([0.5, 3.0, 20.0]), requires_grad=True)
    torch.manual_seed(1)
    x = torch._standard_gamma(alpha)
    assert type(x.grad_fn).__name__ == "StandardGammaBackward0"
    x.sum().backward()
    expected = torch._standard_gamma_grad(alpha.detach(), x.detach())
    np.testing.assert_array_equal(alpha.grad.array, expected.array)


@pytest.mark.parametrize("name", [*FUNCTIONS, *NOT_REPRODUCED])
def test_zero_dim_tensors_give_the_one_element_value(name: str) -> None:
    fn, domain = {**FUNCTIONS, **NOT_REPRODUCED}[name]
    value = 0.7 if domain != "real" else 2.3
    scalar = fn(Tensor(np.array(value, np.float32))).array
    vector = fn(Tensor(np.array([value], np.float32))).array
    assert scalar.shape == () and scalar == vector[0]
