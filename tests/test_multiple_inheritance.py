"""Classes with several bases: Python's C3 method resolution order, cooperative super()
chains, mixins beside nn.Module, abc.ABC as a second base, and Python's errors for the
orders and bases it refuses. Each script is run by the CPython running the tests too."""
from __future__ import annotations

import subprocess
import sys

import pytest

from gradtrace.runner import run_text

SCRIPTS = {
    "diamond": """
class A:
    def who(self):
        return ["A"]
class B(A):
    def who(self):
        return ["B"] + super().who()
class C(A):
    def who(self):
        return ["C"] + super().who()
class D(B, C):
    def who(self):
        return ["D"] + super().who()
print(D().who(), isinstance(D(), C), issubclass(D, A))
""",
    "cooperative_init": """
class Base:
    def __init__(self, **kw):
        self.seen = ["Base"]
class Named(Base):
    def __init__(self, name, **kw):
        super().__init__(**kw)
        self.name = name
        self.seen.append("Named")
class Sized(Base):
    def __init__(self, size, **kw):
        super().__init__(**kw)
        self.size = size
        self.seen.append("Sized")
class Thing(Named, Sized):
    pass
t = Thing(name="x", size=3)
print(t.name, t.size, t.seen)
""",
    "mixin_overrides": """
class ReprMixin:
    def __repr__(self):
        return f"<{type(self).__name__} {self.value}>"
    def describe(self):
        return "mixin"
class Value:
    def __init__(self, value):
        self.value = value
    def describe(self):
        return "value"
class V(ReprMixin, Value):
    pass
class W(Value, ReprMixin):
    pass
print(V(1), V(1).describe(), W(2).describe(), repr(W(2)).startswith("<"))
""",
    "inconsistent_order": """
class A: pass
class B(A): pass
try:
    class C(A, B): pass
except TypeError as e:
    print(e)
class X: pass
class Y: pass
class P(X, Y): pass
class Q(Y, X): pass
try:
    class R(P, Q): pass
except TypeError as e:
    print(e)
""",
    "duplicate_base": """
class A: pass
try:
    class B(A, A): pass
except TypeError as e:
    print(e)
""",
    "exception_with_mixin": """
class Coded:
    code = 7
    def describe(self):
        return f"{type(self).__name__}({self.code})"
class ShapeError(Coded, ValueError):
    pass
try:
    raise ShapeError("bad shape")
except ValueError as e:
    print(e, e.describe(), isinstance(e, Coded), isinstance(e, ValueError))
""",
    "abc_second_base": """
from abc import ABC, abstractmethod
class Plain:
    def hello(self):
        return "hello"
class Shape(Plain, ABC):
    @abstractmethod
    def area(self): ...
class Square(Shape):
    def __init__(self, s):
        self.s = s
    def area(self):
        return self.s * self.s
try:
    Shape()
except TypeError as e:
    print(e)
print(Square(3).area(), Square(3).hello(), isinstance(Square(3), ABC))
""",
}


def cpython(text: str) -> str:
    done = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_a_class_with_several_bases_runs_as_in_cpython(name):
    text = SCRIPTS[name]
    result = run_text(text)
    assert result.error is None, result.error.format(result.source)
    assert result.stdout == cpython(text)


def test_an_uncaught_order_error_points_at_the_class_statement():
    result = run_text("class A: pass\nclass B(A): pass\nclass C(A, B): pass\n")
    assert result.error.kind == "TypeError"
    assert result.error.message == ("Cannot create a consistent method resolution\n"
                                    "order (MRO) for bases A, B")
    assert result.error.span.line == 3


@pytest.mark.parametrize(("text", "message"), [
    ("class C(ValueError, KeyError): pass\n", "a class deriving from two different builtin "
     "exceptions (KeyError, ValueError) is not supported"),
    ("import enum\nclass M: pass\nclass E(M, enum.Enum):\n    A = 1\n",
     "an enumeration with mixin classes is not supported"),
])
def test_what_gradtrace_does_not_offer_is_refused_by_name(text, message):
    result = run_text(text)
    assert (result.error.kind, result.error.message) == ("NotSupportedError", message)
