"""torch.bfloat16 in gradtrace is torch's, bit for bit, where gradtrace runs it: conversions
into bfloat16 (through float32, as c10 converts), + - * / in float32 rounded once (a Python
number operand of + and - rounded to bfloat16 first, of * and / kept as a float32: torch's
kernels differ there), neg, abs, sqrt, comparisons and promotion with float16/float32/int64.
torch's results were recorded by tests/tools/record_bfloat16_bits.py (random values of every
magnitude, subnormals, zeros, infinities, NaN); any other op on bfloat16 is refused."""
from __future__ import annotations

import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from gradtrace.engine import dtypes
from gradtrace.engine.ops.creation import tensor
from gradtrace.engine.tensor import Tensor
from gradtrace.errors import NotSupportedError
from gradtrace.runner import run_text

DATA = np.load(Path(__file__).parent / "data" / "bfloat16_bits.npz")
N = len(DATA["f64"])
BF16 = dtypes.bfloat16


def _bf16(bits: np.ndarray) -> Tensor:
    return Tensor(bits.astype(np.uint16).view(ml_dtypes.bfloat16))


def _cases() -> dict[str, Tensor]:
    a, b = _bf16(DATA["a"]), _bf16(DATA["b"])
    out = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "neg": -a, "abs": abs(a),
           "sqrt": a.sqrt(), "lt": a < b, "eq": a == b, "ge": a >= b,
           "from_f64": Tensor(DATA["f64"]).to(BF16), "from_f32": Tensor(DATA["f32"]).to(BF16),
           "from_f16": Tensor(DATA["f16"]).to(BF16), "from_i64": Tensor(DATA["i64"]).to(BF16),
           "tensor_f64": tensor(DATA["f64"].tolist(), dtype=BF16),
           "to_f16": a.to(dtypes.float16), "to_f32": a.to(dtypes.float32),
           "add_f16": a + b.to(dtypes.float16), "mul_f32": a * b.to(dtypes.float32),
           "add_i64": a[:N] + Tensor(DATA["i64"]),
           "mul_0d_f32": a * tensor(1.1), "add_0d_f64": a + tensor(1.1, dtype=dtypes.float64),
           "iadd": a.clone().add_(b), "imul_s": a.clone().mul_(0.3)}
    for i, s in enumerate(DATA["scalars"].tolist()):
        s = int(s) if s == int(s) and abs(s) < 1e6 else s
        out |= {f"add_s{i}": a + s, f"sub_s{i}": a - s, f"mul_s{i}": a * s, f"div_s{i}": a / s,
                f"radd_s{i}": s + a, f"rsub_s{i}": s - a, f"rmul_s{i}": s * a,
                f"rdiv_s{i}": s / a, f"lt_s{i}": a < s, f"eq_s{i}": a == s}
    return out


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_bfloat16_results_are_torch_s_bits(name: str):
    got, want = CASES[name], DATA[f"out_{name}"]
    if got.dtype is BF16:
        bits = got.array.view(np.uint16).astype(np.int16)
        nan = np.isnan(got.array.astype(np.float32))  # (torch's NaN payloads vary by path)
        assert (np.isnan(_bf16(want).array.astype(np.float32)) == nan).all()
        assert (bits[~nan] == want[~nan]).all(), np.flatnonzero(bits != want)[:5]
    else:
        assert got.array.dtype == want.dtype
        assert np.array_equal(got.array, want, equal_nan=True)


def test_every_recorded_case_is_checked():
    assert {k[4:] for k in DATA.files if k.startswith("out_")} == set(CASES)


PRODUCTS = np.load(Path(__file__).parent / "data" / "bfloat16_products.npz")
_PRODUCT_KEYS = sorted({k.split("_")[0] for k in PRODUCTS.files if k.startswith("mm")})


def _bits_of(t: Tensor) -> np.ndarray:
    assert t.dtype is BF16
    return t.contiguous().array.view(np.uint16).astype(np.int16)


def _laid(x: Tensor, letter: str) -> Tensor:
    return x if letter == "n" else x.mT.contiguous().mT


@pytest.mark.parametrize("key", _PRODUCT_KEYS)
def test_bfloat16_matrix_products_are_torch_s_bits(key: str):
    """mm's gemm loops (float32 sums in each layout's order, rounded once), recorded by
    tests/tools/record_bfloat16_products.py on operands whose sums sit on rounding ties."""
    a, b = _bf16(PRODUCTS[f"{key}_a"]), _bf16(PRODUCTS[f"{key}_b"])
    for lay in ("nn", "tn", "nt", "tt"):
        got = _bits_of(_laid(a, lay[0]) @ _laid(b, lay[1]))
        assert (got == PRODUCTS[f"{key}_{lay}"]).all(), (lay, np.argwhere(
            got != PRODUCTS[f"{key}_{lay}"])[:5])
    assert (_bits_of(a @ a.mT) == PRODUCTS[f"{key}_mt"]).all()
    assert (_bits_of(a[0] @ b) == PRODUCTS[f"{key}_vec"]).all()


@pytest.mark.parametrize("key", sorted({k.split("_")[0] for k in PRODUCTS.files
                                        if k.startswith("bmm")}))
def test_bfloat16_batched_products_are_torch_s_bits(key: str):
    """bmm: baddbmm_cpu_kernel's sums over k in turn under 400 products per batch, else
    each batch's mm; 3-D @ 2-D folded into one mm, 2-D @ 3-D expanded into a bmm."""
    from gradtrace.engine.ops.linalg import bmm

    a, b = (_bf16(PRODUCTS[f"{key}_{x}"]) for x in "ab")
    for lay in ("nn", "tn", "nt", "tt"):
        got = _bits_of(bmm(_laid(a, lay[0]), _laid(b, lay[1])))
        assert (got == PRODUCTS[f"{key}_{lay}"]).all(), lay
    assert (_bits_of(a @ b[0]) == PRODUCTS[f"{key}_fold"]).all()
    assert (_bits_of(a[0] @ b) == PRODUCTS[f"{key}_left"]).all()


def test_bfloat16_2_norms_are_torch_s_bits():
    offset, got = 0, {"all": [], "mt": [], "none": [], "last": []}
    for rows, cols in PRODUCTS["norm_shapes"].tolist():
        x = _bf16(PRODUCTS["norm_x"][offset:offset + rows * cols]).reshape(rows, cols)
        offset += rows * cols
        got["all"].append(_bits_of(x.norm(dim=(-2, -1), keepdim=True)).ravel())
        got["mt"].append(_bits_of(x.mT.norm(dim=(-2, -1), keepdim=True)).ravel())
        got["none"].append(_bits_of(x.norm()).ravel())
        got["last"].append(_bits_of(x.norm(dim=-1)).ravel())
    for name, parts in got.items():
        values = np.concatenate(parts)
        assert (values == PRODUCTS[f"norm_{name}"]).all(), (name, np.flatnonzero(
            values != PRODUCTS[f"norm_{name}"])[:5])


# (as tests/tools/record_bfloat16_products.py takes them)
REDUCTIONS = {"sum": lambda x: x.sum(), "sum_last": lambda x: x.sum(-1),
              "sum_t": lambda x: x.mT.sum() if x.ndim > 1 else x.sum(),
              "mean": lambda x: x.mean(), "mean_last": lambda x: x.mean(-1),
              "mean_first": lambda x: x.mean(0),
              "mean_t": lambda x: x.mT.mean() if x.ndim > 1 else x.mean()}


def test_bfloat16_sums_and_means_are_torch_s_bits():
    """sum: SumKernel's cascade_sum for a reduced type (16-element loads widened to two
    float32 vectors added lane-wise); mean: mean_out's float32 sum, divided in float32,
    rounded once. Operands of tie-sensitive values, up to 3,000 elements."""
    offset, got = 0, {name: [] for name in REDUCTIONS}
    for shape in PRODUCTS["sum_shapes"].tolist():
        shape = tuple(s for s in shape if s)
        x = _bf16(PRODUCTS["sum_x"][offset:offset + math.prod(shape)]).reshape(shape)
        offset += math.prod(shape)
        for name, fn in REDUCTIONS.items():
            got[name].append(_bits_of(fn(x)).ravel())
    for name, parts in got.items():
        values = np.concatenate(parts)
        assert (values == PRODUCTS[f"sum_{name}"]).all(), (name, np.flatnonzero(
            values != PRODUCTS[f"sum_{name}"])[:5])


MUON = """
import torch
def zeropower_via_newtonschulz5(G, steps):
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.bfloat16()
    if G.size(-2) > G.size(-1):
        X = X.mT
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + c * A @ A
        X = a * X + B @ X
    if G.size(-2) > G.size(-1):
        X = X.mT
    return X
out = zeropower_via_newtonschulz5(G, steps=5)
"""


@pytest.mark.parametrize("index", range(7))
def test_muon_newton_schulz_in_bfloat16_is_torch_s_bits(index: int):
    """KellerJordan/Muon's zeropower_via_newtonschulz5 (MIT), run as a script."""
    from gradtrace.runner import run_text as run

    g = PRODUCTS[f"muon{index}_g"]
    script = MUON.replace("import torch\n", "import torch\nG = torch.tensor(" +
                          repr(g.tolist()) + ")\n", 1)
    result = run(script + "print(out.contiguous().view(torch.int16).tolist())\n", "muon.gt")
    assert result.error is None, result.error
    assert result.stdout.strip() == str(PRODUCTS[f"muon{index}_out"].tolist())


@pytest.mark.parametrize("script", [
    "x = torch.ones(2, dtype=torch.bfloat16)\nx.exp()",
    "x = torch.ones(2, 3, dtype=torch.bfloat16)\nx.sum(0)",
    "x = torch.ones(2, 3, dtype=torch.bfloat16)\nx.prod()",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx ** 2",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx @ x",
    "x = torch.ones(2, 2, 2, dtype=torch.bfloat16)\nx @ x[0, 0]",
    "x = torch.ones(2, 2, 2, dtype=torch.bfloat16)\ntorch.baddbmm(x, x, x)",
    "x = torch.ones(2, 2, dtype=torch.bfloat16)\nx @ x[0]",
    "x = torch.ones(2, 2, dtype=torch.bfloat16)\ntorch.addmm(x, x, x)",
    "x = torch.ones(2, 3, dtype=torch.bfloat16)\nx.norm(p=1)",
    "x = torch.ones(2, 3, dtype=torch.bfloat16)\nx.norm(dim=0)",
    "x = torch.ones(2, 2, dtype=torch.bfloat16, requires_grad=True)\nx.mm(x)",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx // 2",
    "torch.ones(2, dtype=torch.bfloat16, requires_grad=True)",
    "torch.ones(2, requires_grad=True).to(torch.bfloat16)",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx.requires_grad = True",
    "torch.set_default_dtype(torch.bfloat16)",
    "torch.nn.Linear(2, 2).to(torch.bfloat16)",
    "torch.nn.Parameter(torch.ones(2, dtype=torch.bfloat16))",
])
def test_what_is_not_exact_in_bfloat16_is_refused_by_name(script: str):
    result = run_text("import torch\n" + script + "\n", "bf16.gt")
    assert isinstance(result.error, NotSupportedError), result.error
    assert "bfloat16" in str(result.error)


@pytest.mark.parametrize("script", ["x @ x", "x.sum()", "x.norm()"])
def test_bfloat16_products_and_reductions_are_refused_off_avx2(script: str, monkeypatch):
    """The measured kernels are AVX2's (torch's vectors and gemm differ under AVX-512)."""
    from gradtrace.engine import capability

    monkeypatch.setattr(capability, "CAPABILITY", "avx512")
    result = run_text("import torch\nx = torch.ones(3, 3, dtype=torch.bfloat16)\n" + script
                      + "\n", "bf16.gt")
    assert isinstance(result.error, NotSupportedError), result.error
    assert "AVX2" in str(result.error)
