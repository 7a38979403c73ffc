"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 24
found: Tensor.to with a positional None device (and None dtype), which Hugging Face's
LlamaRotaryEmbedding runs as `.float().to(device)` with device=None; and the deprecated
Scalar-first overloads (`p.data.add_(-lr, d_p)` in old optimizers, addcmul's value first,
addmm's beta first), which torch runs with one warning a run and gradtrace refused.

Skipped unless torch is importable.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from script_runs import each_expression, file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


TO_NONE = [
    "x.to(None)", "x.to(None) is x", "x.to(None, None)", "x.to(None, torch.int32)",
    "x.to(None, None, False, True) is x", "x.to(None, None, True)", "x.to('cpu', None)",
    "x.to(None, dtype=torch.int64)", "x.to(torch.float64, None)",
    "x.to(None, torch.float64, None)", "x.to(None, None, None)", "x.to(None, 3)",
    "x.to(x, None)", "x.to(None, x)", "x.requires_grad_().to(None, torch.float64).grad_fn.name()",
]


def test_to_takes_a_positional_none_device_like_torch() -> None:
    """`Device? device=None` and `ScalarType? dtype=None` take None positionally; the other
    overloads' bool and Tensor parameters do not (torch's invalid-combination error)."""
    script = each_expression(TO_NONE, "x = torch.ones(2)")
    assert gradtrace_output(script) == torch_output(script)


DEPRECATED = [
    "x.add(2, y)", "x.clone().add_(-0.5, y)", "torch.add(x, 2, y)", "x.sub(2, y)",
    "x.clone().sub_(2, y)", "torch.sub(x, 3, y)", "x.addcmul(2, y, y)",
    "x.clone().addcmul_(0.5, y, x)", "torch.addcmul(x, 2, y, y)", "x.addcdiv(2, y, x)",
    "x.clone().addcdiv_(-1, y, x + 1)", "torch.addcdiv(x, 2, y, x)",
    "m.addmm(2, m, m)", "m.addmm(2, 3, m, m)", "torch.addmm(2, m, 3, m, m)",
    "torch.addmm(2, m, m, m)", "x.addmv(2, m, y)",
    "x.addr(2, 3, y, y)", "b.baddbmm(2, b, b)", "m.addbmm(2, 3, b, b)",
    "x.add(y, 2)", "x.add(2, 3)", "x.add(z, y)", "x.add(y, alpha=z)",
    "torch.add(x, 2, y, out=torch.empty(3))", "x.requires_grad_().add(2, y).grad_fn.name()",
]
DEPRECATED_SETUP = "x = torch.ones(3)\ny = torch.arange(3.)\nm = torch.eye(3)\n" \
                   "z = torch.tensor(2.)\nb = torch.ones(2, 3, 3)"


def test_deprecated_scalar_first_overloads_run_like_torch() -> None:
    """torch still takes add(Scalar alpha, Tensor other), addcmul(Scalar value, ...) and the
    beta-first addmm-likes (old optimizers' `p.data.add_(-lr, d_p)`); gradtrace raised
    "add_() takes 2 positional arguments but 3 were given"."""
    script = each_expression(DEPRECATED, DEPRECATED_SETUP)
    assert gradtrace_output(script) == torch_output(script)


DEPRECATED_WARNINGS = """import torch
x = torch.ones(3)
y = torch.arange(3.)
print(x.add(y))
print(x.clone().add_(-0.5, y))
print(x.sub(2, y))
print(torch.addcmul(x, 2, y, y))
for i in range(2):
    print(x.add(2, y))
"""


def test_deprecated_overload_warns_once_per_run_like_torch(tmp_path: Path) -> None:
    """torch warns for the first call a deprecated signature takes (TORCH_WARN_ONCE: one
    warning a run, whichever op), naming the signatures to use instead."""
    torch_run, result, err = file_runs(DEPRECATED_WARNINGS, tmp_path, "deprecated")
    assert result.error is None
    assert result.stdout == torch_run.stdout
    assert err.replace("deprecated.gt", str(tmp_path / "deprecated.py")) == torch_run.stderr
    assert torch_run.stderr.count("Warning") == 1
