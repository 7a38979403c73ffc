"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 19
found: torch.tensor of a `range` (a Python sequence to torch's parser), torch.add/sub/mul/div
and their aliases with a Python number as `input` (a wrapped-number tensor, computed in the
default dtype, alpha applied to `other`), torch's check against bool operands of `-`, and
the linear-algebra functions torch removed in 1.9 (each raising its own RuntimeError).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


def _each(expressions: list[str], setup: str = "") -> str:
    """The values printed with their dtypes: round 19's gaps were dtypes as often as values."""
    return each_expression(expressions, setup, dtype=True)


RANGES = ["torch.tensor(range(5))", "torch.tensor(range(2, 9, 3), dtype=torch.float64)",
          "torch.tensor([range(3), range(3)])", "torch.tensor(range(0))",
          "torch.tensor((range(2), [1.5, 2]))", "torch.as_tensor(range(4))",
          "torch.LongTensor(range(3))", "torch.Tensor(range(3))",
          "torch.tensor(range(3), requires_grad=True, dtype=torch.float32)",
          "torch.tensor([range(2), range(3)])", "torch.tensor(range(3), requires_grad=True)"]


def test_tensor_of_a_range_like_torch() -> None:
    script = _each(RANGES)
    assert gradtrace_output(script) == torch_output(script)


def test_tensor_of_a_huge_range_stops_at_the_memory_limit() -> None:
    out = gradtrace_output("import torch\nx = torch.tensor(range(10**12))\n")
    assert out.startswith("LimitError")


NUMBER_INPUTS = [f"torch.{name}({a}, {b})"
                 for name in ("add", "sub", "subtract", "mul", "multiply", "div", "divide",
                              "true_divide", "floor_divide", "remainder", "pow", "atan2")
                 for a, b in (("1.5", "2.5"), ("3", "2"), ("True", "2"), ("2", "1.5"),
                              ("0.1", "0.2"), ("1e-8", "1.0"), ("1/3", "2/3"),
                              ("2", "t"), ("2.5", "t.detach().long()"), ("True", "False"))]
NUMBER_INPUTS += ["torch.add(2, t, alpha=3)", "torch.sub(2, t, alpha=1.5)",
                  "torch.add(0.7, 0.1, alpha=0.3)", "torch.add(2, 3, alpha=2)",
                  "torch.div(1, torch.tensor([3., 7., 11.]))", "1 / torch.tensor([3., 7., 11.])",
                  "torch.div(1.3, t, rounding_mode='floor')",
                  "torch.div(7, 2, rounding_mode='trunc')",
                  "torch.add(2**40, 3)", "torch.mul(2**40, 3.0)", "torch.mul(True, 2.5)",
                  "torch.add(2, t).grad_fn.next_functions[0]",
                  "torch.mul(2, t).grad_fn.next_functions[0]"]


def test_a_number_as_input_of_add_sub_mul_div_like_torch() -> None:
    script = _each(NUMBER_INPUTS, "t = torch.tensor([3., 7.], requires_grad=True)")
    assert gradtrace_output(script) == torch_output(script)


def test_gradient_through_a_number_first_operand_like_torch() -> None:
    script = """import torch
t = torch.tensor([3., 7.], requires_grad=True)
for name, f in (("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div)):
    y = f(2, t).sum()
    y.backward()
    print(name, y.item(), t.grad)
    t.grad = None
"""
    assert gradtrace_output(script) == torch_output(script)


BOOL_SUBTRACTIONS = ["b - 1", "1 - b", "b - b", "b - 1.5", "torch.sub(b, 1)",
                     "torch.rsub(b, 1)", "b.sub(1)", "torch.tensor(2) - b",
                     "b - torch.tensor(2)", "torch.sub(True, 2)", "torch.sub(True, False)",
                     "b.sub_(1)", "torch.tensor([1, 2]).sub_(b)", "b + 1", "b * 2"]


def test_bool_operands_of_subtraction_like_torch() -> None:
    script = _each(BOOL_SUBTRACTIONS, "b = torch.tensor([True, False])")
    assert gradtrace_output(script) == torch_output(script)


ROUNDED = ["b // c", "torch.div(b, c, rounding_mode='floor')",
           "torch.div(b, c, rounding_mode='trunc')",
           "b // 2", "torch.floor_divide(True, 2)", "b.floor_divide(True)", "b.floor_divide_(c)",
           "b.div_(c, rounding_mode='trunc')", "i.clone().div_(2, rounding_mode='floor')",
           "i.clone().div_(torch.tensor([2, 3, 4]), rounding_mode='trunc')", "i.clone().div_(2)",
           "x.clone().div_(2, rounding_mode='round')",
           "(x * 1).div_(2, rounding_mode='floor').grad_fn.name()"]


def test_rounded_division_of_bools_and_in_place_like_torch() -> None:
    script = _each(ROUNDED, "b = torch.tensor([True, False])\nc = torch.tensor([True, True])\n"
                            "i = torch.tensor([7, -7, 5])\n"
                            "x = torch.tensor([7., -7., 5.5], requires_grad=True)")
    assert gradtrace_output(script) == torch_output(script)


def test_in_place_rounded_division_gradient_like_torch() -> None:
    script = """import torch
x = torch.tensor([7., -7., 5.5], requires_grad=True)
for mode in ("floor", "trunc"):
    z = x * 1
    r = z.div_(2, rounding_mode=mode)
    print(r, r is z, z._version, [(type(n).__name__, i) for n, i in r.grad_fn.next_functions])
    r.sum().backward()
    print(x.grad)
"""
    assert gradtrace_output(script) == torch_output(script)


REMOVED = ["torch.lstsq(B, A)", "torch.solve(B, A)", "torch.eig(A)",
           "torch.eig(A, eigenvectors=True)", "torch.symeig(A, upper=False)",
           "torch.matrix_rank(A, symmetric=True)", "torch.matrix_rank(A)"]


def test_functions_removed_in_1_9_raise_like_torch() -> None:
    script = _each(REMOVED, "A = torch.eye(3) * 2\nB = torch.ones(3, 1)")
    assert gradtrace_output(script) == torch_output(script)
