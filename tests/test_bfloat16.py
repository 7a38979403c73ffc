"""torch.bfloat16 in gradtrace is torch's, bit for bit, where gradtrace runs it: conversions
into bfloat16 (through float32, as c10 converts), + - * / in float32 rounded once (a Python
number operand of + and - rounded to bfloat16 first, of * and / kept as a float32: torch's
kernels differ there), neg, abs, sqrt, comparisons and promotion with float16/float32/int64.
torch's results were recorded by tests/tools/record_bfloat16_bits.py (random values of every
magnitude, subnormals, zeros, infinities, NaN); any other op on bfloat16 is refused."""
from __future__ import annotations

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


@pytest.mark.parametrize("script", [
    "x = torch.ones(2, dtype=torch.bfloat16)\nx.exp()",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx.sum()",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx ** 2",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx @ x",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx // 2",
    "torch.ones(2, dtype=torch.bfloat16, requires_grad=True)",
    "torch.ones(2, requires_grad=True).to(torch.bfloat16)",
    "x = torch.ones(2, dtype=torch.bfloat16)\nx.requires_grad = True",
    "torch.set_default_dtype(torch.bfloat16)",
    "torch.nn.Linear(2, 2).to(torch.bfloat16)",
])
def test_what_is_not_exact_in_bfloat16_is_refused_by_name(script: str):
    result = run_text("import torch\n" + script + "\n", "bf16.gt")
    assert isinstance(result.error, NotSupportedError), result.error
    assert "bfloat16" in str(result.error)
