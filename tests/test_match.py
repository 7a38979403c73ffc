"""The `match` statement (PEP 634), measured against the CPython running the tests: what
each kind of pattern matches and binds, `match`/`case` staying names elsewhere, and
CPython's compile-time errors for patterns."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradtrace.errors import GtSyntaxError
from gradtrace.runner import run_text
from tests.test_parser import parse_text

SCRIPT = '''\
from dataclasses import dataclass
from collections import OrderedDict, deque
from collections.abc import Sequence, Mapping


@dataclass
class Point:
    x: float
    y: float


class Cmd:
    __match_args__ = ("op", "arg")

    def __init__(self, op, arg=None):
        self.op = op
        self.arg = arg


class Row(Sequence):
    def __getitem__(self, i):
        if i >= 2:
            raise IndexError(i)
        return i * 10

    def __len__(self):
        return 2


class Table(Mapping):
    def __getitem__(self, k):
        return {"a": 1}[k]

    def __iter__(self):
        return iter(["a"])

    def __len__(self):
        return 1


def describe(value):
    match value:
        case None:
            return "nothing"
        case True | False as flag:
            return f"flag {flag}"
        case 0 | 1:
            return "bit"
        case -1 | -2.5:
            return "negative"
        case int(n) if n > 100:
            return f"big {n}"
        case int() | float():
            return f"number {value}"
        case "a" "b":
            return "ab"
        case str(s):
            return f"string {s!r}"
        case []:
            return "empty"
        case [x]:
            return f"one {x}"
        case [x, (y, z)]:
            return f"nested {x} {y} {z}"
        case [first, *middle, last]:
            return f"{first}..{last} ({len(middle)} between)"
        case {"lr": lr, **others}:
            return f"lr {lr} {others}"
        case {"a": 1}:
            return "a is one"
        case Point(x=0, y=0):
            return "origin"
        case Point(x, y) if x == y:
            return f"diagonal {x}"
        case Point(x, _):
            return f"point x={x}"
        case Cmd("go", arg):
            return f"go {arg}"
        case Cmd(op="stop" | "halt" as op):
            return f"stop ({op})"
        case _:
            return f"other {type(value).__name__}"


for v in [None, True, 0, -1, -2.5, 500, 7, "ab", "hi", [], [3], (1, [2, 3]), [1, 2, 3, 4],
          range(5), deque([1, 2]), "xyz", {"lr": 0.1, "m": 0.9}, OrderedDict(a=1),
          Table(), Row(), Point(0, 0), Point(3, 3), Point(1, 2), Cmd("go", 5), Cmd("halt"),
          Cmd("x"), {1, 2}]:
    print(describe(v))

match = {"case": 1}
case = match["case"]
print(match, case)
match 1, 2:
    case a, b:
        print("bound", a, b)
for guard_value in (1, 5):
    match guard_value:
        case n if n > 3:
            print("guarded", n)
        case n:
            print("after failed guard", n)
try:
    match Cmd("x"):
        case Cmd(1, 2, 3):
            pass
except TypeError as e:
    print(e)
try:
    match 3:
        case print():
            pass
except TypeError as e:
    print(e)
try:
    match 3:
        case int(1, 2):
            pass
except TypeError as e:
    print(e)
'''


def test_match_runs_as_cpython_runs_it():
    python = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                            check=True).stdout
    result = run_text(SCRIPT)
    assert result.error is None, result.error.format(result.source)
    assert result.stdout == python


@pytest.mark.parametrize("text", [
    "match v:\n case x:\n  pass\n case 1:\n  pass",
    "match v:\n case _:\n  pass\n case 1:\n  pass",
    "match v:\n case 1 | _:\n  pass\n case 2:\n  pass",
    "match v:\n case _ | 1:\n  pass",
    "match v:\n case x | 1:\n  pass",
    "match v:\n case (a as b) | c:\n  pass\n case 2:\n  pass",
    "match v:\n case [x, x]:\n  pass",
    "match v:\n case [x] | [y]:\n  pass",
    "match v:\n case {'a': 1, 'a': 2}:\n  pass",
    "match v:\n case [*a, *b]:\n  pass",
    "match v:\n case C(x=1, x=2):\n  pass",
    "match v:\n case C(x=1, 2):\n  pass",
    "match v:\n case _ as y:\n  pass\n case 1:\n  pass",
    "match v:\n case 1 as _:\n  pass",
    "match v:\n case f'{x}':\n  pass",
    "match v:\n case (x):\n  pass\n case 2:\n  pass",
])
def test_pattern_errors_are_cpythons(text):
    with pytest.raises(SyntaxError) as python:
        compile(text, "t", "exec")
    with pytest.raises(GtSyntaxError) as ours:
        parse_text(text + "\n")
    assert ours.value.message == python.value.msg
    span = ours.value.span
    assert (span.line, span.column) == (python.value.lineno, python.value.offset)


@pytest.mark.parametrize("text", [
    "match v:\n case x if x:\n  pass\n case 1:\n  pass",
    "match v:\n case a.b():\n  pass",
    "match v:\n case {'k': [1, *_], **rest}:\n  pass",
    "match(v)\n", "match = 1\n", "case.x = 1\n", "match: int\n",
])
def test_what_cpython_accepts_is_accepted(text):
    compile(text, "t", "exec")
    parse_text(text + "\n")
