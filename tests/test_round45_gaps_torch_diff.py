"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 45
(optimizer zoos) found: `torch.eye(n, out=t)`, which torch_optimizer's Shampoo (after
moskomule's shampoo.pytorch) uses to make its preconditioners,
`epsilon * torch.eye(dim, out=grad.new(dim, dim))`; gradtrace's eye took no `out=`.

Skipped unless torch is importable.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from script_runs import file_runs, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


EYE_OUT = """import torch

def tr(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)

grad = torch.randn(3, 2)
p = torch.eye(3, out=grad.new(3, 3))
print(p, p._version, p.dtype)
t = torch.ones(2, dtype=torch.float64)
r = torch.eye(3, out=t)
print(r is t, t, t._version)
tr(lambda: torch.eye(2, 3, out=torch.empty(0, dtype=torch.long)))
tr(lambda: torch.eye(2, out=torch.ones(2, 2, dtype=torch.bool)))
tr(lambda: torch.eye(2, out=torch.empty(0), dtype=torch.float32))
tr(lambda: torch.eye(2, out=torch.empty(0), dtype=torch.float64))
tr(lambda: torch.eye(-1, out=torch.empty(2, 2), dtype=torch.float64))
tr(lambda: torch.eye(2, out=torch.empty(2, 2, requires_grad=True)))
tr(lambda: torch.eye(-1, out=torch.empty(2, 2, requires_grad=True)))
tr(lambda: torch.eye(-1, out=torch.empty(2, 2)))
tr(lambda: torch.eye(2, -1, out=torch.empty(2, 2)))
tr(lambda: torch.eye(2, out=torch.empty(2, 2, dtype=torch.int8), requires_grad=True))
h = torch.ones(2, 2)
print(torch.eye(2, out=h, requires_grad=True), h.is_leaf)
with torch.no_grad():
    a = torch.ones(2, 2, requires_grad=True)
    print(torch.eye(3, out=a), a.requires_grad, a._version)
c = torch.empty(3, 3)[:, :2]
torch.eye(3, 2, out=c)
print(c, c.stride())
d = torch.empty(2, 3).t()
torch.eye(3, out=d)
print(d, d.stride())
base = torch.zeros(3, 4)
v = base[1:, 1:3]
torch.eye(2, out=v)
print(base, base._version, v._version)
g = torch.empty(0)
print(torch.eye(0, out=g).shape, torch.eye(3, 0, out=g).shape)
print(2e-4 * torch.eye(2, out=torch.empty(5)))
"""


def test_eye_writes_into_out_as_torch() -> None:
    """out= is resized without a warning and written in its own dtype (one version bump),
    a view of the same shape is written through to its base, a transposed one keeps its
    strides; torch's checks in its order (a dtype other than out's, out= under autograd, n
    and m, requires_grad of an integral out), and requires_grad set to the keyword's."""
    assert gradtrace_output(EYE_OUT) == torch_output(EYE_OUT)


RANDINT_LIKE_HIGH = """import torch

def tr(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)

torch.manual_seed(0)
p = torch.zeros(2, 3)
print([2 * torch.randint_like(q, high=2) - 1 for q in (p, torch.zeros(4))])
tr(lambda: torch.randint_like(p, low=3, high=5))
tr(lambda: torch.randint_like(p, 3, high=5))
tr(lambda: torch.randint_like(p, 4))
tr(lambda: torch.randint_like(p, high=2, dtype=torch.long))
tr(lambda: torch.randint_like(p, low=2))
tr(lambda: torch.randint_like(p))
"""


def test_randint_like_takes_high_by_keyword() -> None:
    """`torch.randint_like(p, high=2)` (AdaHessian's Rademacher vectors) is the (input, high)
    overload; `low=` alone and no bound are refused with torch's message."""
    assert gradtrace_output(RANDINT_LIKE_HIGH) == torch_output(RANDINT_LIKE_HIGH)


PARAMS_T = """import torch
from collections.abc import Iterable, Sequence
from typing import Any, Optional
from torch.optim.optimizer import ParamsT, StateDict

print(ParamsT)
print(StateDict, type(ParamsT).__name__)
print(list[int] | None, dict[str, Any] | int | list[int], type(list[int] | None).__name__)
print((list[int] | tuple[int, ...]) == (tuple[int, ...] | list[int]))

def f(params: ParamsT, lr: float = 0.02) -> Optional[float]:
    return lr

print(ParamsT == ParamsT, f([torch.zeros(1)]))
"""


def test_torch_optim_type_aliases_and_generic_alias_unions() -> None:
    """`from torch.optim.optimizer import ParamsT` (Muon's annotations) and `|` of
    parameterized builtins (`Iterable[torch.Tensor] | Iterable[dict[str, Any]]`), which
    makes a types.UnionType printed as Python prints it."""
    assert gradtrace_output(PARAMS_T) == torch_output(PARAMS_T)


PRIVATE_TENSOR_ATTRIBUTES = """import torch

p = torch.nn.Parameter(torch.zeros(2))
t = torch.ones(3)[1:]
print(hasattr(p, "_fsdp_flattened"), hasattr(t, "_fsdp_flattened"), hasattr(p, "_version"))
print(getattr(p, "_fsdp_flattened", False), getattr(t, "_some_flag", None), t._version)
print(hasattr(p, "nonexistent"), getattr(p, "nonexistent", 7))
"""


def test_private_names_torch_tensors_lack_are_absent() -> None:
    """Prodigy's `if hasattr(p, "_fsdp_flattened")`: a private name torch's tensors lack is
    absent (hasattr False, getattr's default), not refused as a gradtrace gap."""
    assert gradtrace_output(PRIVATE_TENSOR_ATTRIBUTES) == torch_output(PRIVATE_TENSOR_ATTRIBUTES)


CREATE_GRAPH = """import torch
w = torch.ones(2, requires_grad=True)
print("a")
torch.autograd.grad((w * w).sum(), w, create_graph=True)
print("b")
(w * w).sum().backward(create_graph=True)
(w * w * w).sum().backward(create_graph=True)
x = torch.ones(2, requires_grad=True) * 2
print("c")
torch.autograd.backward([(x * x).sum()], create_graph=True, inputs=[x])
print(w.grad, x.grad)
"""


def test_backward_with_create_graph_warns_once_from_torch(tmp_path: Path) -> None:
    """AdaHessian's `loss.backward(create_graph=True)`: torch's engine warns of the
    parameter/gradient reference cycle, attributed to run_backward's line in
    torch/autograd/graph.py, so shown once per run (autograd.grad does not warn)."""
    torch_run, result, err = file_runs(CREATE_GRAPH, tmp_path, "create_graph", check=True)
    assert result.error is None
    assert result.stdout == torch_run.stdout

    def warnings(stderr: str) -> list[str]:
        return [re.sub(r"^.*?:\d+: ", "", line) for line in stderr.splitlines()
                if "Warning: " in line]

    assert warnings(err) == warnings(torch_run.stderr)
    assert len(warnings(err)) == 1
