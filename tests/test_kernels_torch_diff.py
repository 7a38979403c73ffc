"""engine/kernels.py against live torch, bit for bit, over the layouts that change which
code computes an element: contiguous tensors of sizes around the vector width and past
the thread split, transposed, row-sliced, strided and expanded views, 0-d tensors.

Skipped without torch; the MKL-backed functions also need torch's MKL (`mkl` wheel).
torch and gradtrace run in this process with the same capability and thread count.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as torch_F  # noqa: E402
from mkl_skip import needs_mkl  # noqa: E402

from gradtrace.engine import capability, kernels  # noqa: E402


def _layouts(rng: np.random.Generator) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """name -> view of a base array: numpy views, mirrored in torch by the same strides."""
    return {
        "0-d": lambda b: b[0, 0, ...],
        "1": lambda b: b[0, :1],
        "15": lambda b: b[0, :15],
        "17": lambda b: b[0, :17],
        "contiguous": lambda b: b,
        "transposed": lambda b: b.T,
        "rows sliced": lambda b: b[:, :37],
        "strided": lambda b: b[:, ::3],
        "expanded": lambda b: np.broadcast_to(b[:1, :40], (50, 40)),
        # not dense, its contiguous dim innermost in memory: the loop (and the output)
        # follow the strides' order, so its rows of 37 and 16 are vectorised
        "transposed, sliced": lambda b: b.T[:37],
        "transposed split": lambda b: b.reshape(60, 30, 50).transpose(0, 2, 1)[:, :16],
    }


def _bits_equal(ours: np.ndarray, theirs: np.ndarray) -> float:
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape
    u = ours.view(np.uint32 if ours.dtype == np.float32 else np.uint64)
    t = theirs.view(u.dtype)
    return float(((u == t) | (np.isnan(ours) & np.isnan(theirs))).mean())


def _torch_view(base: torch.Tensor, arr: np.ndarray, view: np.ndarray) -> torch.Tensor:
    """The torch tensor with the numpy view's offset, shape and strides over `base`."""
    item = arr.itemsize
    offset = (view.__array_interface__["data"][0] - arr.__array_interface__["data"][0]) // item
    return base.as_strided(view.shape, [s // item for s in view.strides], offset)


FLOAT32 = {
    "sigmoid": (lambda x: kernels.unary("sigmoid", x), torch.sigmoid),
    "expm1": (lambda x: kernels.unary("expm1", x), torch.expm1),
    "log1p": (lambda x: kernels.unary("log1p", x), torch.log1p),
    "silu": (kernels.silu, torch_F.silu),
    "softplus": (lambda x: kernels.softplus(x, 1, 20), torch_F.softplus),
    "softplus b2": (lambda x: kernels.softplus(x, 2, 5), lambda t: torch_F.softplus(t, 2, 5)),
    "elu": (lambda x: kernels.elu(x, 1.0, 1, 1), torch_F.elu),
    "elu a.5": (lambda x: kernels.elu(x, 0.5, 1, 1), lambda t: torch_F.elu(t, 0.5)),
    "gelu": (lambda x: kernels.gelu(x, "none"), torch_F.gelu),
    "gelu tanh": (lambda x: kernels.gelu(x, "tanh"),
                  lambda t: torch_F.gelu(t, approximate="tanh")),
    "pow 1.7": (lambda x: kernels.pow_scalar(np.abs(x), 1.7), lambda t: t.abs() ** 1.7),
}
MKL = ("exp", "log", "sin", "cos", "tan", "tanh", "sqrt", "erf", "erfc", "erfinv", "asin",
       "acos", "atan", "log2", "log10", "trunc")


@pytest.fixture(autouse=True)
def _torch_threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", str(torch.get_num_threads()))
    monkeypatch.setattr(capability, "CAPABILITY",
                        torch.backends.cpu.get_cpu_capability().lower())


def _check(ours: Callable, theirs: Callable, dtype: type, prepare=lambda a: a) -> None:
    rng = np.random.default_rng(4)
    arr = prepare((rng.standard_normal((60, 1500)) * 4).astype(dtype))
    big = prepare((rng.standard_normal(70_001) * 4).astype(dtype))  # past the thread split
    base = torch.from_numpy(arr)
    with np.errstate(all="ignore"):
        for name, layout in _layouts(rng).items():
            view = layout(arr)
            got = ours(view)
            want = theirs(_torch_view(base, arr, view)).numpy()
            assert _bits_equal(got, want) == 1.0, name
        assert _bits_equal(ours(big), theirs(torch.from_numpy(big)).numpy()) == 1.0


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_float32_kernel_matches_torch_in_every_layout(name):
    ours, theirs = FLOAT32[name]
    _check(ours, theirs, np.float32)


def test_float32_gelu_backward_matches_torch_in_every_layout():
    """gelu_backward (exact form): oneDNN's derivative for a contiguous input of more than
    one element, GeluBackwardKernel (ATen's erf polynomial and SLEEF's expf in the vector
    body, glibc's erff and expf in the scalar tail) for strided ones and single elements
    (a GEGLU's gate, a chunk of the last dimension, takes the second)."""
    rng = np.random.default_rng(5)
    dy_of = {}

    def ours(view: np.ndarray) -> np.ndarray:
        dy_of[view.shape] = rng.standard_normal(view.shape).astype(np.float32)
        return kernels.gelu_backward(dy_of[view.shape], view)

    def theirs(t: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten.gelu_backward(torch.from_numpy(dy_of[tuple(t.shape)]), t)
    _check(ours, theirs, np.float32)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", MKL)
def test_mkl_function_matches_torch_in_every_layout(name, dtype):
    def prepare(a: np.ndarray) -> np.ndarray:
        if name in ("log", "log2", "log10", "sqrt"):
            return np.abs(a)
        if name in ("asin", "acos", "erfinv"):
            return np.clip(a / 8, -1, 1).astype(a.dtype)
        return a
    _check(lambda x: kernels.unary(name, x), getattr(torch, name), dtype, prepare)


def test_results_keep_a_dense_inputs_layout():
    x = np.arange(12, dtype=np.float32).reshape(3, 4).T
    assert kernels.unary("sigmoid", x).strides == x.strides
    assert kernels.unary("exp", x).strides == x.strides


def test_results_of_a_sliced_transposed_input_follow_its_strides_order():
    """TensorIterator orders a unary op's output by its input's strides, dense or not."""
    base = np.arange(2 * 6 * 32, dtype=np.float32).reshape(2, 6, 32) / 100
    x = base.transpose(0, 2, 1)[:, 16:]
    want = torch_F.silu(torch.from_numpy(base).transpose(1, 2)[:, 16:])
    for got in (kernels.silu(x), kernels.unary("exp", x), kernels.unary("sigmoid", x)):
        assert tuple(s // 4 for s in got.strides) == want.stride() == (96, 1, 16)
