"""Differential tests against live PyTorch: a Tensor operator given an operand it cannot
take (None, a str, a list, a tuple, an object) answers NotImplemented as torch's
TypeError_to_NotImplemented_ dunders do, so Python decides: `t == None` is False and
`t != None` True (real scripts test `p.grad == None`), `t < None` and `t + None` raise
Python's own TypeError naming both types, either operand order.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")

EXPRESSIONS = [
    "t + None", "None + t", "t - None", "None - t", "t * None", "None * t", "t / None",
    "None / t", "t ** None", "None ** t", "t @ None", "t // None", "None // t", "t % None",
    "None % t", "t & None", "t | None", "t ^ None", "t < None", "None < t", "t <= None",
    "t > None", "t >= None", "t + 'a'", "'a' + t", "t + (1,)", "t == None", "t != None",
    "None == t", "None != t", "t == 'x'", "t != 'x'", "t == [1., 1.]", "[1., 1.] == t",
    "t < [2, 2]", "t + [1, 1]", "t == o", "t != o", "o == t", "t + o", "t == 1", "t != 2.0",
    "t + 1", "2 * t", "t == t", "t ** 2", "2 ** t", "7 // t", "7 % t",
    "t.eq(1)", "t in [None, t]", "None in [t]", "[t, None].index(None)",
]


def test_operators_with_foreign_operands_answer_like_torch() -> None:
    cases = "\n".join(f"    ({e!r}, lambda: {e})," for e in EXPRESSIONS)
    script = f"""import torch
class Obj:
    pass
o = Obj()
t = torch.ones(2)
cases = [
{cases}
]
for expr, f in cases:
    try:
        print(expr, '->', f())
    except Exception as e:
        print(expr, '->', type(e).__name__, str(e).splitlines()[0])
"""
    assert gradtrace_output(script) == torch_output(script)


def test_a_none_grad_compared_with_none_is_false_then_true() -> None:
    script = """import torch
w = torch.nn.Linear(2, 2).weight
print(w.grad == None, w.grad != None)
w.sum().backward()
print(w.grad == None, w.grad != None)
print((w.grad == None) is False)
"""
    assert gradtrace_output(script) == torch_output(script)
