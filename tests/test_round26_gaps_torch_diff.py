"""Differential tests against live PyTorch 2.13 for a gap the realworld corpus's round 26
(PyTorch's own docstring examples) found: `out=` of the functions without a derivative
(comparisons, logical_*, all/any, argmax/argmin), which torch takes even when
an input requires grad, and logical_and/or/xor's out= itself (the torch.logical_xor
docstring writes into `out=torch.empty(4, dtype=torch.bool)`).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


OUT = [
    "torch.logical_xor(a, b, out=torch.empty(4, dtype=torch.bool))",
    "torch.logical_and(a, b, out=torch.empty(4, dtype=torch.bool))",
    "torch.logical_or(a.double(), b, out=torch.zeros(4))",
    "torch.logical_xor(a, b, out=torch.zeros(2, dtype=torch.int64))",
    "torch.logical_or(a, b, out=torch.empty(0, dtype=torch.int8))._version",
    "torch.eq(x, x, out=torch.empty(0, dtype=torch.bool))", "torch.gt(x, 0, out=torch.empty(2))",
    "torch.logical_not(x, out=torch.empty(0, dtype=torch.bool))",
    "torch.logical_xor(x, x, out=torch.empty(2, dtype=torch.bool))",
    "torch.all(x, out=torch.empty(0, dtype=torch.bool))",
    "torch.any(x, out=torch.empty(0, dtype=torch.bool))",
    "torch.argmax(x, out=torch.empty(0, dtype=torch.long))",
    "torch.argmin(x, 0, out=torch.empty(0, dtype=torch.long))",
    "torch.ne(x, 1.5, out=torch.empty(0))",
    # the differentiable ones still refuse
    "torch.trunc(x, out=torch.empty(0))", "torch.fmod(x, 2, out=torch.empty(0))",
    "torch.logical_xor(x, x, out=torch.empty(2, requires_grad=True))",
]

SETUP = ("a = torch.tensor([0, 1, 10, 0], dtype=torch.int8)\n"
         "b = torch.tensor([4, 0, 1, 0], dtype=torch.int8)\n"
         "x = torch.tensor([1.5, -0.5], requires_grad=True)")


def test_out_of_functions_without_a_derivative_matches_torch() -> None:
    script = each_expression(OUT, SETUP, dtype=True)
    assert gradtrace_output(script) == torch_output(script)
