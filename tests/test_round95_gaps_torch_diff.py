"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 95
(Chinese-language PyTorch learning material) found: a class statement whose base is not a
class. A Chinese-commented custom autograd Function example imports the module
(`import torch.autograd.function as Function`) and writes `class Exp(Function)`; Python
then takes the metaclass from the bases' types (<class 'module'>) and calls it with (name,
bases, namespace) once the body has run, which raises "module() takes at most 2 arguments
(3 given)". gradtrace raised its own "class bases must be classes, not 'module'", and
calling `type(a_module)` or `type(a_function)` said "'type' object is not callable".

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


VALUE_BASES = """import torch
import torch.autograd.function as Function
try:
    class A(torch, object):
        pass
except TypeError as e:
    print(1, e)
try:
    class A(object, torch):
        pass
except TypeError as e:
    print(2, e)
try:
    class A(1, True):
        pass
except TypeError as e:
    print(3, e)
try:
    class Exp(Function):
        print('body ran')
except TypeError as e:
    print(4, e)
for base in [3.0, 's', 5, None, [1], (1,), {}, print]:
    try:
        class A(base):
            pass
    except TypeError as e:
        print(5, e)
def f():
    pass
try:
    class A(f):
        x = 1
except TypeError as e:
    print(6, e)
class Meta:
    def __init__(self, *args):
        if args:
            print("made with", args[0], len(args[1]), sorted(k for k in args[2]))
m = Meta()
class B(m):
    '''a docstring'''
    y = 2
    def g(self):
        return 1
print(type(B).__name__)
"""


def test_a_class_statement_with_a_value_base_calls_the_bases_type() -> None:
    """The bases' most derived type is the metaclass (a conflict TypeError before the body
    runs when a class and a value are mixed); it is called with (name, bases, namespace)
    after the body: a module's, a number's, a container's, a function's constructor errors,
    or a script class's instance made."""
    assert gradtrace_output(VALUE_BASES) == torch_output(VALUE_BASES)


OPAQUE_TYPES = """import torch
def f():
    pass
for make in [lambda: type(torch)(), lambda: type(torch)(1), lambda: type(torch)("a", "b", "c"),
             lambda: type(torch)("a", x=1), lambda: type(f)(), lambda: type(f)("A", (1,), {}),
             lambda: type(print)("A", (print,), {}), lambda: type(torch.relu)()]:
    try:
        make()
    except TypeError as e:
        print(e)
"""


def test_calling_the_type_of_a_module_or_a_function_raises_pythons_argument_errors() -> None:
    """module(name, doc=None), function(code, globals, ...) and builtin_function_or_method
    check their arguments as CPython does."""
    assert gradtrace_output(OPAQUE_TYPES) == torch_output(OPAQUE_TYPES)


TYPE_OF_VALUES = """import torch
for bases in [(5,), (torch,), (object, 5), (print,)]:
    try:
        type('A', bases, {})
    except TypeError as e:
        print(e)
"""


def test_type_with_a_value_among_its_bases_is_a_metaclass_conflict() -> None:
    """type(name, bases, dict) starts from `type` itself, to which no value's type is
    related: a metaclass conflict (it never calls the value's type)."""
    assert gradtrace_output(TYPE_OF_VALUES) == torch_output(TYPE_OF_VALUES)
