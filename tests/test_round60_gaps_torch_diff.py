"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 60
(differentiable control, estimation and simulation) found: KalmanNet's modules open with
`torch.pi = torch.acos(torch.zeros(1)).item() * 2`, a float constant of the torch module
the script replaces (refused: only a name a torch module lacks was the script's own).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


TORCH_CONSTANT_REPLACED = """import torch
from torch import pi as pi0
torch.pi = torch.acos(torch.zeros(1)).item() * 2 # which is 3.1415927410125732
print(torch.pi, pi0, torch.pi == pi0)
from torch import pi
print(pi, torch.e, getattr(torch, "pi"), hasattr(torch, "pi"))
torch.e = torch.tensor(2.5)
print(torch.e, torch.exp(torch.ones(1)))
def imported():
    from torch import e
    return e
print(imported())
torch.inf = 5
torch.inf += 1
print(torch.inf, torch.tensor([1.0, 9.0]).clamp(max=torch.inf), torch.nan)
torch.special.pi = 3
print(torch.special.pi, torch.__dict__["pi"], vars(torch).get("e"))
"""


def test_a_float_constant_of_the_torch_module_is_replaced_by_the_script() -> None:
    """torch.pi, torch.e and torch.inf are module attributes a script may replace: reads
    (attribute and `from torch import ...` after the assignment) see the script's value, a
    binding made before keeps torch's; torch's ops are unaffected."""
    assert gradtrace_output(TORCH_CONSTANT_REPLACED) == torch_output(TORCH_CONSTANT_REPLACED)
