"""The assignment expression `:=` (PEP 572), measured against the CPython running the
tests: where the grammar allows it unparenthesised, its spans, the compile-time errors
of its comprehension scoping, and what it binds where when the script runs."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradtrace.errors import GtSyntaxError
from gradtrace.runner import run_text
from tests.test_parser import parse_text, same_as_python


@pytest.mark.parametrize("text", [
    "if (n := len(a)) > 3:\n    pass\n",
    "if n := f():\n    pass\nelif m := g():\n    pass\n",
    "while chunk := read():\n    pass\n",
    "x = [y := f(v) for v in data]\n",
    "x = [v for v in data if (y := f(v)) > 1]\n",
    "print(x := 1, (y := 2))\n",
    "a[k := 1]\n",
    "a[1, k := 2]\n",
    "x = [k := 1, 2]\n",
    "x = (k := 1, 2)\n",
    "-(x := 1)\n",
    "f(a=(x := 1))\n",
    "x = {(y := 1): 2}\n",
    "print(sum([(hit := v) for v in vs]))\n",
])
def test_walrus_parses_to_cpythons_tree(text):
    same_as_python(text)


# CPython's message for each; "invalid syntax" ones are where the grammar has no room
@pytest.mark.parametrize("text", [
    "x := 1", "y = x := 1", "x := 1, 2", "def f(a=x:=1): pass", "assert x := 1",
    "f(a=x := 1)", "print(*x := [1])", "with x := 1: pass", "for x in y := [1]: pass",
    "x += y := 1", "yield x := 1", "raise x := 1", "x = 1 + y := 2", "x = 1, y := 2",
    "(a.b := 1)", "(a[0] := 1)", "((a) := 1)", "(True := 1)", "(None := 1)",
    "((a, b) := 1)", "(f() := 1)", "(__debug__ := 1)", "del (x := 1)",
    "[i := 0 for i in range(3)]",
    "[[(j := i) for i in range(3)] for j in range(2)]",
    "[x for x in (y := [1, 2])]",
    "[x for x in [1] for z in (y := [1, 2])]",
    "[x for x in (lambda: (y := 1))()]",
    "[j for i in range(2) for j in [(k := i)]]",
    "class C:\n    [(y := x) for x in range(3)]",
    "def f():\n    [(x := 1) for x, y in []]",
    "[(x := 1) for x in range(3) if (y := x)]",
    "[i for i in range(3) if (j := i) for j in range(2)]",
    "[i for i in [1] if (i := 2)]",
    "{(i := 1): 2 for i in [1]}",
])
def test_misplaced_walrus_is_cpythons_syntax_error(text):
    with pytest.raises(SyntaxError) as python:
        compile(text, "t", "exec")
    with pytest.raises(GtSyntaxError) as ours:
        parse_text(text + "\n")
    assert ours.value.message == python.value.msg
    span = ours.value.span
    assert (span.line, span.column) == (python.value.lineno, python.value.offset)


@pytest.mark.parametrize("text", [
    "lambda: [(y := 1) for i in [1]]",
    "[(lambda: (i := 1)) for i in [1]]",
    "def f(x):\n    [(x := 1) for i in [1]]",
    "def f():\n    global y\n    [(y := 1) for i in [1]]",
    "class C:\n    y = (z := 1)",
    "@d := deco\ndef g():\n    pass",
])
def test_walrus_cpython_accepts_is_accepted(text):
    compile(text, "t", "exec")
    parse_text(text + "\n")


SCRIPT = '''\
data = [1, 5, 2, 8, 3]
if (n := len(data)) > 3:
    print(f"too long ({n} elements)")
while (chunk := data[:2]):
    print(chunk)
    data = data[2:]
print([y for x in range(5) if (y := x * 2) > 4], y)
print([last := v for v in range(3)], last)
def running():
    total = 0
    partial = [total := total + v for v in range(5)]
    return partial, total
print(running())
def nested():
    [[(z := i * j) for i in range(2)] for j in range(3)]
    return z
print(nested())
def unbound():
    try:
        print(w)
    except UnboundLocalError as e:
        print(e)
    [w := 1 for _ in ()]
unbound()
gen = (s := i for i in range(3))
print(list(gen), s)
def as_global():
    global G
    [G := i for i in range(4)]
as_global()
print(G)
def outer():
    k = 0
    def inner():
        nonlocal k
        [k := k + i for i in range(4)]
    inner()
    return k
print(outer())
class C:
    a = (b := 3)
print(C.a, C.b)
try:
    print(b)
except NameError as e:
    print(e)
print(any((hit := v) > 2 for v in [1, 3, 5]), hit)
print((f := lambda: (inside := 1))())
try:
    print(inside)
except NameError as e:
    print(e)
x = 3
print(f"{x:=5}|{(x := 7)}|{x}")
lst = [10, 20]
print(lst[(i := 1)], lst[i := 0], i)
'''


def test_walrus_binds_where_cpython_binds_it():
    python = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                            check=True).stdout
    result = run_text(SCRIPT)
    assert result.error is None, result.error.format(result.source)
    assert result.stdout == python
