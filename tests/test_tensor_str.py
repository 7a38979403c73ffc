"""tensor_repr must print byte-identically to torch 2.13.

The recorded cases in tests/data/tensor_str_cases.json come from real torch
(tests/tools/record_tensor_str.py); the golden strings below are the readable subset.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import math
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradtrace.engine import dtypes
from gradtrace.engine.tensor_str import format_size, tensor_repr

CASES_FILE = Path(__file__).parent / "data" / "tensor_str_cases.json"
CASES = json.loads(CASES_FILE.read_text())["cases"]

_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _decode(x):
    if isinstance(x, list):
        return [_decode(v) for v in x]
    return _SPECIAL.get(x, x) if isinstance(x, str) else x


def case_array(case: dict) -> np.ndarray:
    """Rebuild a recorded tensor's exact values in its dtype."""
    np_dtype = dtypes.BY_NAME[case["dtype"]].np
    shape = tuple(case["shape"])
    if "zb64" in case:
        raw = zlib.decompress(base64.b64decode(case["zb64"]))
        return np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)
    return np.array(_decode(case["values"]), dtype=np_dtype).reshape(shape)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}:{c['expr'][:60]}" for c in CASES])
def test_recorded_case(case: dict) -> None:
    got = tensor_repr(
        case_array(case),
        dtypes.BY_NAME[case["dtype"]],
        grad_fn=case["grad_fn"],
        requires_grad=case["requires_grad"],
    )
    assert got == case["repr"]


def test_recorded_cases_cover_enough() -> None:
    assert len(CASES) >= 150
    assert {c["dtype"] for c in CASES} == {d.name for d in dtypes.ALL}
    assert any("..." in c["repr"] for c in CASES)


def r(values, dtype=dtypes.float32, **kw) -> str:
    return tensor_repr(np.array(values, dtype=dtype.np), dtype, **kw)


# the expected outputs of /work/shared/conformance/cases/print_formats.gt
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1.0, 2.5, -3.25], "tensor([ 1.0000,  2.5000, -3.2500])"),
        (
            [[1.0, 200.0], [3.5, -4.0]],
            "tensor([[  1.0000, 200.0000],\n        [  3.5000,  -4.0000]])",
        ),
        ([1e-5, 1.0, 1e5], "tensor([1.0000e-05, 1.0000e+00, 1.0000e+05])"),
        ([123456.0, 1.0], "tensor([1.2346e+05, 1.0000e+00])"),
        ([0.1, 0.25, 1.0 / 3.0], "tensor([0.1000, 0.2500, 0.3333])"),
        (1e10, "tensor(1.0000e+10)"),
        (
            [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]],
            "tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]])",
        ),
        (np.zeros(0), "tensor([])"),
        ([-0.0, 0.0], "tensor([-0., 0.])"),
        (math.inf, "tensor(inf)"),
        (math.nan, "tensor(nan)"),
        ([1.0, math.nan, -math.inf], "tensor([1., nan, -inf])"),
    ],
)
def test_print_formats_golden(values, expected: str) -> None:
    assert r(values) == expected


def test_int_and_bool_golden() -> None:
    assert r(np.arange(5), dtypes.int64) == "tensor([0, 1, 2, 3, 4])"
    assert r([1, 2], dtypes.int32) == "tensor([1, 2], dtype=torch.int32)"
    assert r([True, False], dtypes.bool_) == "tensor([ True, False])"
    assert r([[1, -22], [333, 4]], dtypes.int64) == "tensor([[  1, -22],\n        [333,   4]])"


def test_suffixes_golden() -> None:
    assert r([1.0, 2.0], requires_grad=True) == "tensor([1., 2.], requires_grad=True)"
    assert r(3.0, grad_fn="MulBackward0") == "tensor(3., grad_fn=<MulBackward0>)"
    # grad_fn wins over requires_grad, as in torch
    assert r(3.0, grad_fn="SumBackward0", requires_grad=True) == (
        "tensor(3., grad_fn=<SumBackward0>)"
    )
    assert r([1.5], dtypes.float64, requires_grad=True) == (
        "tensor([1.5000], dtype=torch.float64, requires_grad=True)"
    )
    assert r(np.zeros((2, 0, 3)), dtypes.bool_) == "tensor([], size=(2, 0, 3), dtype=torch.bool)"
    assert r(np.zeros(0), dtypes.int64) == "tensor([], dtype=torch.int64)"


def test_summarised_golden() -> None:
    assert r(np.arange(2000), dtypes.int64) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    assert r(np.arange(1000.0, 3000.0).reshape(40, 50)) == (
        "tensor([[1000., 1001., 1002.,  ..., 1047., 1048., 1049.],\n"
        "        [1050., 1051., 1052.,  ..., 1097., 1098., 1099.],\n"
        "        [1100., 1101., 1102.,  ..., 1147., 1148., 1149.],\n"
        "        ...,\n"
        "        [2850., 2851., 2852.,  ..., 2897., 2898., 2899.],\n"
        "        [2900., 2901., 2902.,  ..., 2947., 2948., 2949.],\n"
        "        [2950., 2951., 2952.,  ..., 2997., 2998., 2999.]])"
    )
    # 1999 / 1 > 1000 switches to scientific notation, and rows wrap at 80 columns
    assert r(np.arange(2000.0).reshape(40, 50)).startswith(
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n"
        "         4.9000e+01],\n"
        "        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n"
    )


def test_format_size() -> None:
    assert format_size(()) == "torch.Size([])"
    assert format_size((4,)) == "torch.Size([4])"
    assert format_size((2, 3)) == "torch.Size([2, 3])"
    assert format_size((np.int64(2), 0, 3)) == "torch.Size([2, 0, 3])"


def test_casts_data_to_dtype() -> None:
    assert (
        r([1, 2], dtypes.float64)
        == tensor_repr(np.array([1.0, 2.0]), dtypes.float64)
        == "tensor([1., 2.], dtype=torch.float64)"
    )
    assert tensor_repr(np.array([0.1]), dtypes.float32) == "tensor([0.1000])"


_DTYPE_NAMES = [d.name for d in dtypes.ALL]


@st.composite
def _arrays(draw) -> tuple[np.ndarray, str]:
    """Arrays of any dtype and 0-4 dims, floats mixing magnitudes, integers and non-finites."""
    name = draw(st.sampled_from(_DTYPE_NAMES))
    np_dtype = dtypes.BY_NAME[name].np
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=12))
    if np_dtype.kind != "f":
        return draw(hnp.arrays(np_dtype, shape)), name
    exponent = draw(st.integers(-12, 12))
    elements = st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-1000, 1000).map(float),
        st.floats(-(10.0**exponent), 10.0**exponent),
    )
    wide = draw(hnp.arrays(np.float64, shape, elements=elements))
    with np.errstate(over="ignore"):
        return wide.astype(np_dtype), name


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs real torch")
@settings(max_examples=300, deadline=None)
@given(_arrays(), st.sampled_from(["plain", "leaf", "mul"]))
def test_differential_against_torch(arr_name: tuple[np.ndarray, str], autograd: str) -> None:
    import torch

    arr, name = arr_name
    t = torch.from_numpy(arr.copy())
    grad_fn = None
    if arr.dtype.kind == "f" and autograd == "leaf":
        t.requires_grad_()
    elif arr.dtype.kind == "f" and autograd == "mul":
        t = t.requires_grad_() * 1
        grad_fn = "MulBackward0"
    got = tensor_repr(arr, dtypes.BY_NAME[name], grad_fn=grad_fn, requires_grad=t.requires_grad)
    assert got == repr(t)
