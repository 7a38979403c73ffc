"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 24
found: Tensor.to with a positional None device (and None dtype), which Hugging Face's
LlamaRotaryEmbedding runs as `.float().to(device)` with device=None.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

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
