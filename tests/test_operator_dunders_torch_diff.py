"""Differential tests against live PyTorch 2.13: a tensor's and a number's Python protocol
methods (`x.__add__(1)`, `x.__len__()`, `(3).__mul__(2)`) are values a script can call and
`hasattr` finds, giving what the syntax they stand for gives, NotImplemented where torch's
or Python's method answers it, and the same errors.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import address_free, each_expression, gradtrace_output, torch_output

torch = pytest.importorskip("torch")

SETUP = """x = torch.arange(3.)
y = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
i = torch.tensor([1, 2])
s = torch.tensor(2.5)
"""

TENSOR = [
    "x.__add__(1)", "x.__add__(x)", "x.__radd__(2)", "x.__sub__(1.5)", "x.__rsub__(1)",
    "x.__mul__(True)", "x.__rmul__(3)", "x.__truediv__(2)", "x.__rtruediv__(1)",
    "x.__div__(4)", "x.__rdiv__(1)", "x.__floordiv__(2)", "x.__rfloordiv__(5)",
    "x.__mod__(2)", "x.__rmod__(5)", "x.__pow__(2)", "x.__rpow__(2)",
    "x.__matmul__(x)", "x.__rmatmul__(x)", "x.__matmul__(2)", "i.__and__(3)",
    "i.__ror__(4)", "i.__xor__(i)", "i.__lshift__(1)", "i.__rrshift__(8)", "i.__invert__()",
    "x.__add__('a')", "x.__radd__(None)", "x.__add__([1., 2., 3.])", "x.__eq__(1)",
    "x.__ne__(x)", "x.__lt__(2)", "x.__le__(1)", "x.__gt__(x)", "x.__ge__(0)",
    "x.__eq__('a')", "x.__neg__()", "x.__pos__()", "x.__abs__()", "x.__len__()",
    "s.__len__()", "x.__getitem__(1)", "x.__getitem__(slice(0, 2))", "x.__contains__(2.0)",
    "x.__contains__(7)", "s.__bool__()", "x.__bool__()", "s.__float__()", "s.__int__()",
    "i[0].__index__()", "s.__index__()", "s.__long__()", "s.__nonzero__()", "x.__repr__()",
    "x.__str__()", "s.__format__('.3f')", "x.__hash__() == hash(x)", "list(x.__iter__())",
    "x.__reversed__()", "reversed(x)", "reversed(s)", "reversed(y).grad_fn",
    "x.__delitem__(0)", "(y * 2).__add__(1).grad_fn",
    "y.__matmul__(y).grad_fn", "y.__rsub__(1).grad_fn", "y.__getitem__(0).grad_fn",
    "[hasattr(x, n) for n in ('__len__', '__iter__', '__getitem__', '__add__', '__rmatmul__',"
    " '__imatmul__', '__bool__', '__index__', '__contains__', '__setitem__')]",
]

NUMBERS = [
    "(3).__add__(1)", "(3).__add__(1.5)", "(3.0).__add__(1)", "(3).__radd__(2)",
    "(2).__pow__(10)", "(3).__eq__(3.0)", "(3.0).__eq__(3)", "(3).__lt__(4)",
    "True.__and__(False)", "(7).__floordiv__(2)", "(3).__truediv__(2)", "(3).__neg__()",
    "(2.5).__round__()", "(2.5).__floor__()", "(3).__bool__()", "(3).__index__()",
    "(3.7).__int__()", "(2.0).__rtruediv__(1)", "(5).__mod__(3)", "(3).__format__('05d')",
    "(3).__add__('a')", "(1.5).__sub__(None)", "(3).__mul__(x)", "(3).__add__(x)",
    "[hasattr(3, n) for n in ('__add__', '__matmul__', '__index__', '__invert__')]",
    "[hasattr(2.0, n) for n in ('__add__', '__index__', '__invert__', '__floor__')]",
    "(2).__pow__(-1)", "(0).__rtruediv__(1)",
]


@pytest.mark.parametrize("expressions", [TENSOR, NUMBERS], ids=["tensor", "number"])
def test_protocol_dunders_print_what_torch_prints(expressions: list[str]) -> None:
    script = each_expression(expressions, SETUP)
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


def test_inplace_and_item_dunders_write_like_the_syntax() -> None:
    script = """import torch
a = torch.zeros(3)
print(a.__iadd__(1), a)
print(a.__imul__(torch.tensor([1., 2., 3.])), a)
a.__setitem__(0, 7.)
print(a, a._version)
b = a.__ipow__(2)
print(b is a, a, a.__itruediv__(2), a.__idiv__(2), a)
n = torch.tensor([5, 6])
print(n.__ilshift__(1), n.__ior__(1), n.__iand__(3), n.__ixor__(1), n.__irshift__(1), n)
try:
    del a[0]
except TypeError as e:
    print(e)
w = torch.ones(2, requires_grad=True)
try:
    w.__iadd__(1)
except RuntimeError as e:
    print(e)
"""
    assert gradtrace_output(script) == torch_output(script)


def test_method_values_print_as_torch_and_python_print_them() -> None:
    script = """import torch
x = torch.ones(2)
for m in (x.__add__, x.__eq__, x.__getitem__, x.__setitem__, x.__len__, x.__iter__,
          x.__rsub__, x.__pow__, x.__bool__, (3).__add__, (2.0).__mul__, True.__or__):
    print(m)
f = x.__mul__
print(f(3), list(map((10).__add__, [1, 2])))
"""
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


def test_a_tensors_dict_holds_what_the_script_set_on_it_live_as_torchs() -> None:
    script = """import torch
x = torch.arange(3.)
print(hasattr(x, "__dict__"), hasattr(x, "__array__"), x.__dict__, vars(x))
x.foo = 5
d = x.__dict__
print(d, vars(x) is d)
d["bar"] = [1, 2]
d["grad"] = 7
print(x.bar, x.grad)
del x.foo
print(x.__dict__, sorted(vars(x)))
a = x.__array__()
print(a, type(a), x.__array__("float64").dtype)
y = torch.ones(2, requires_grad=True)
try:
    y.__array__()
except RuntimeError as e:
    print(e)
"""
    assert gradtrace_output(script) == torch_output(script)
