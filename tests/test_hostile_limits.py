"""Issue 16's limits, checked in-process by cause: each hostile shape is refused by the
check meant for it (with small limits, so a missing check would show as the wrong
error or none), or raises the error Python or torch would raise, catchable by the script.
"""
from __future__ import annotations

import pytest

from gradtrace.errors import LimitExceeded
from gradtrace.interpreter import Limits
from gradtrace.runner import run_text

SMALL = Limits(max_elements=10_000, max_sequence=100_000)


def _run(text: str, limits: Limits = SMALL):
    return run_text("import torch\n" + text, "hostile.gt", limits=limits)


def _limited(text: str, option: str, limits: Limits = SMALL) -> str:
    result = _run(text, limits)
    assert isinstance(result.error, LimitExceeded), result.error
    message = str(result.error)
    assert option in message, message
    return message


@pytest.mark.parametrize("expr", [
    "torch.ones(200, 1).expand(200, 200).clone()",
    "torch.ones(1, 1).expand(200, 200).expand(2, 200, 200) + 0",
    "torch.ones(200, 1) @ torch.ones(1, 200)",
    "torch.bmm(torch.ones(1, 200, 1), torch.ones(1, 1, 200))",
    "torch.ones(2, 2).repeat(100, 100)",
    "torch.cat([torch.ones(200)] * 200)",
    "torch.stack([torch.ones(200)] * 200)",
    "torch.where(torch.ones(200, 1) > 0, torch.ones(1, 200), torch.zeros(200, 1))",
    "torch.ones(4, 4)[torch.zeros(200, 1, dtype=torch.long), "
    "torch.zeros(1, 200, dtype=torch.long)]",
])
def test_max_elements_holds_for_every_op_that_builds_a_large_tensor(expr: str):
    _limited(f"y = {expr}", "--max-elements")


def test_max_elements_holds_in_an_advanced_index_backward():
    message = _limited("x = torch.ones(4, 4, requires_grad=True)\n"
                       "i = torch.zeros(200, 1, dtype=torch.long)\n"
                       "j = torch.zeros(1, 200, dtype=torch.long)\n"
                       "x[i, j].sum().backward()", "--max-elements")
    assert "[200, 200]" in message


def test_alpha_must_be_a_number_as_torch_says():
    result = _run("y = torch.add(torch.ones(3), torch.ones(3), alpha=[1.0] * 8000)")
    assert result.error.kind == "TypeError"
    assert str(result.error) == "add(): argument 'alpha' must be Number, not list"
    result = _run("y = torch.sub(torch.ones(3), torch.ones(3), alpha='a')")
    assert str(result.error) == "sub(): argument 'alpha' must be Number, not str"


@pytest.mark.parametrize("expr", [
    '"{:900000000}".format(1)', '"{:>900000000}".format("a")', '"{:.900000000f}".format(1.0)',
    'f"{1:900000000}"', 'format(1, "900000000")', '"%900000000d" % 7', '"%*d" % (900000000, 7)',
    '"%.*f" % (900000000, 1.0)', '"%(a)900000000s" % {"a": 1}',
    '"a".ljust(900000000)', '"1".zfill(900000000)',
])
def test_max_sequence_holds_for_format_widths_before_python_pads(expr: str):
    _limited(f"x = {expr}", "--max-sequence")


def test_ordinary_format_widths_still_format():
    result = _run('print("%5d|%-4s|%%|%.2f" % (3, "a", 1.5), "{:>6}".format("x"), f"{2:04d}")')
    assert result.error is None and result.stdout == "    3|a   |%|1.50      x 0002\n"


@pytest.mark.parametrize("expr, what", [
    ("sum(reversed(range(10 ** 15)))", "sum()"), ("max(reversed(range(10 ** 15)))", "max()"),
    ("list(zip(range(10 ** 15)))", "list()"), ("list(enumerate(range(10 ** 15)))", "list()"),
    ("sorted(zip(range(10 ** 15), range(10 ** 14)))", "sorted()"),
])
def test_max_sequence_takes_the_length_of_python_iterators(expr: str, what: str):
    # the length is known before a single item is built: the message names it
    message = _limited(f"x = {expr}", "--max-sequence", Limits())
    assert what in message and ("1000000000000000" in message or "100000000000000" in message)


def test_hex_text_is_held_to_the_integer_size_limit():
    message = _limited('x = int("f" * 10 ** 5, 16)', "integer size limit")
    assert "100000 bits" in message


@pytest.mark.parametrize("op", ["//", "%"])
def test_floor_division_and_modulo_of_integers_past_the_size_limit_are_refused(op: str):
    # `+` may step just past the cap; `//` and `%` (quadratic in C) must not run on that
    limits = Limits(max_int_bits=1000)
    result = run_text(f"a = 2 ** 999\na = a + a\nb = a {op} 3", limits=limits)
    assert isinstance(result.error, LimitExceeded), result.error
    assert "size limit (1000 bits)" in str(result.error)


def test_dict_changed_during_iteration_is_a_runtime_error_the_script_catches():
    result = _run("d = {1: 1}\ntry:\n    for k in d:\n        d[k + 1] = 1\n"
                  "except RuntimeError as e:\n    print('caught', e)\n"
                  "s = {1}\nfor k in s:\n    s.add(k + 1)\n")
    assert result.stdout == "caught dictionary changed size during iteration\n"
    assert result.error.kind == "RuntimeError"
    assert str(result.error) == "Set changed size during iteration"


def test_str_of_a_huge_int_is_pythons_value_error():
    result = _run("n = 2 ** 20000\nd = {n: 1}\ntry:\n    x = f'{n!r}'\n"
                  "except ValueError as e:\n    print('caught', str(e)[:31])\n")
    assert result.error is None, result.error
    assert result.stdout == "caught Exceeds the limit (4300 digits)\n"


@pytest.mark.parametrize("value, kind, message", [
    ('float("nan")', "TypeError", "'float' object cannot be interpreted as an integer"),
    ("lambda: 0", "TypeError", "'function' object cannot be interpreted as an integer"),
    ("2 ** 20000", "OverflowError", "Python int too large to convert to C long"),
])
def test_retain_graph_is_read_as_torch_reads_it(value: str, kind: str, message: str):
    result = _run(f"x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                  f"y.backward(retain_graph={value})")
    assert result.error.kind == kind and str(result.error) == message


def test_retain_graph_accepts_an_integer_as_torch_does():
    result = _run("x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                  "y.backward(retain_graph=2)\ny.backward()\nprint(x.grad)")
    assert result.error is None and result.stdout == "tensor([4., 4.])\n"


@pytest.mark.parametrize("separator", ["\f", "\u2028", "\x1c", "\x85"])
def test_a_line_break_python_does_not_count_leaves_the_error_on_its_line(separator: str):
    result = run_text(f'x = "a{separator}b"\nraise ValueError("here")\n', "hostile.gt")
    assert result.error.span.line == 2
    assert 'raise ValueError("here")' in result.error.format(result.source)


def test_a_dtype_that_is_not_a_dtype_is_torchs_type_error():
    result = _run('x = torch.tensor(1, dtype="float32")')
    assert result.error.kind == "TypeError"
    assert str(result.error) == "tensor(): argument 'dtype' must be torch.dtype, not str"
    result = _run("print(torch.zeros(2, dtype=float))")
    assert result.error is None and result.stdout == "tensor([0., 0.], dtype=torch.float64)\n"
