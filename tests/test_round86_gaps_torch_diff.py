"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 86
(differentiable rendering and geometry in plain torch) found:

- torch.cross, torch.linalg.cross and Tensor.cross of tensors of two dtypes promoted them;
  torch's kernel reads `other` as the output's (input's) scalar type and raises
  "expected scalar type Float but found Double" (Torch-Sphere-Tracer's main.py builds its
  camera position from numpy float64 values and crosses it with a float32 up vector),
  after the meta function's rank, length-3 and broadcast checks.
- F.binary_cross_entropy let NaN inputs and targets through (a soft rasterizer's sqrt at a
  zero distance gives NaN gradients, Adam then NaN parameters): ATen checks
  (x >= 0 && x <= 1) element by element, input before target, so NaN fails and the first
  failing element decides which of the two the error names.
- a "default" warning shown before the first optimizer was constructed showed again after
  it under torch, not under gradtrace: torch's first call of a function wrapped in
  `_disable_dynamo` (Optimizer.add_param_group, zero_grad, state_dict, load_state_dict,
  checkpoint) or of an optimizer's step imports torch._dynamo, whose sympy import calls
  warnings.simplefilter, and changed filters make Python forget every warning registry,
  once per process (measured in a fresh child Python).

Skipped unless torch is importable.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from script_runs import file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

CROSS = """import torch
a = torch.tensor([0., 1., 0.])
b = torch.tensor([1., 2., 3.], dtype=torch.float64)
pairs = [(a, b), (b, a), (a, b.half()), (a.int(), a), (a, a.int()), (a.long(), a.int()),
         (a.reshape(1, 3), b.reshape(1, 3).expand(2, 3)),
         (torch.ones(2, 3), torch.ones(4, 3, dtype=torch.float64)),
         (torch.ones(2, 4), torch.ones(2, 3, dtype=torch.float64)),
         (torch.ones(3), torch.ones(1, 3, dtype=torch.float64)),
         (a.requires_grad_(), b)]
for x, y in pairs:
    for call in (lambda: torch.cross(x, y, dim=-1), lambda: torch.linalg.cross(x, y),
                 lambda: x.cross(y, dim=-1), lambda: torch.cross(x, y)):
        try:
            print(call())
        except Exception as e:
            print(type(e).__name__, e)
print(torch.cross(a.double(), b), torch.linalg.cross(b, b.flip(0)))
"""


def test_cross_of_mixed_dtypes_matches_torch() -> None:
    assert gradtrace_output(CROSS) == torch_output(CROSS)


BCE = """import torch
import torch.nn.functional as F
nan = float('nan')
cases = [([0.5, nan], [0., 1.]), ([0.5, 0.2], [nan, 1.]), ([0.5, 2.0], [-1., 1.]),
         ([0.5, 0.3], [2., 1.]), ([nan, 0.3], [0., 7.]), ([0.1, nan], [7., 0.]),
         ([float('inf'), 0.2], [0., 1.]), ([0.5, 0.5], [0.5, 1.0]), ([[0.2, -1.0]], [[3.0, 0.0]])]
for x, t in cases:
    for dt in (torch.float32, torch.float64, torch.float16):
        try:
            print(F.binary_cross_entropy(torch.tensor(x, dtype=dt), torch.tensor(t, dtype=dt)))
        except RuntimeError as e:
            print(e)
try:
    print(torch.nn.BCELoss()(torch.full((2, 3), nan, requires_grad=True), torch.ones(2, 3)))
except RuntimeError as e:
    print(e)
x = torch.tensor([0.25, 0.5], requires_grad=True)
loss = F.binary_cross_entropy(x, torch.tensor([0.0, 1.0]), weight=torch.tensor([2.0, 1.0]))
loss.backward()
print(loss, x.grad)
"""


def test_binary_cross_entropy_range_check_matches_torch() -> None:
    assert gradtrace_output(BCE) == torch_output(BCE)


DYNAMO_IMPORT = """import warnings
import torch
import torch.nn.functional as F
x = torch.rand(1, 1, 3, 3)
g = torch.zeros(1, 2, 2, 2)
def sample():
    return F.grid_sample(x, g)
def mine():
    warnings.warn("mine")
sample(); mine(); sample(); mine()
print("before")
w = torch.nn.Parameter(torch.zeros(2))
sample(); mine()
opt = torch.optim.SGD([w], lr=0.1)
print("constructed")
sample(); mine()
opt2 = torch.optim.Adam([w])
opt2.zero_grad()
sample(); mine()
print("after")
"""


def test_first_optimizer_forgets_warning_registries_as_torch(tmp_path: Path) -> None:
    torch_run, result, err = file_runs(DYNAMO_IMPORT, tmp_path, "dynamo", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout

    def shown(stderr: str, name: str) -> list[tuple[str, str]]:
        return re.findall(rf"{re.escape(name)}:(\d+): (\w+: \w+)", stderr)

    assert shown(err, "dynamo.gt") == shown(torch_run.stderr, str(tmp_path / "dynamo.py"))
    assert len(shown(err, "dynamo.gt")) == 4


CUSTOM_OP_IMPORT = """import warnings
import torch
def mine():
    warnings.warn("mine")
mine(); mine()
@torch.library.custom_op("mylib::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2
mine()
print(twice(torch.ones(2)))
mine(); twice(torch.ones(1)); mine()
"""


def test_first_custom_op_call_forgets_warning_registries_as_torch(tmp_path: Path) -> None:
    torch_run, result, err = file_runs(CUSTOM_OP_IMPORT, tmp_path, "customop", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout
    shown = re.findall(r"customop\.\w+:(\d+): UserWarning", err)
    assert shown == re.findall(r"customop\.\w+:(\d+): UserWarning", torch_run.stderr)
    assert shown == ["4", "4"]  # shown again after the first call imported torch._dynamo
