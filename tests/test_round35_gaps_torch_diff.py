"""Differential tests against live PyTorch 2.13 (under CPython 3.11) for the gaps the
realworld corpus's round 35 found: `locals()` in a function (Hamiltonian Neural Networks'
data.py keeps `{'meta': locals()}`), which gradtrace refused. CPython 3.11 returns the
frame's one locals dict, refreshed at each call, its keys in the code object's slot order:
parameters (keyword-only before `*args`), then the other locals in the order the compiler
first names them, then the cell and free variables, each sorted.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


LOCALS_ORDER = """import contextlib
import torch

def f(a, b=2, *args, c, **kw):
    x = a + b
    for i in range(2):
        y = i
    d = {'meta': locals()}
    z = torch.ones(2) * x
    e = locals()
    print(d['meta'] is e, list(e), e['z'])
    return d

print(list(f(1, c=3)['meta']))

def outer(n):
    k = n * 2
    m = 1
    def inner(t):
        s = t + k
        return locals()
    print(list(locals()))
    return inner

print(outer(3)(4))

def loops(flag):
    for i in range(2):
        if i:
            print(q)
        p = 1
        q = 2
    x = y = 0
    a, (b, *c) = 1, (2, 3, 4)
    with contextlib.nullcontext(5) as cm:
        pass
    try:
        raise ValueError
    except ValueError as err:
        caught = 1
    import math as m2
    lam = lambda u=p: u + q
    w = [v * r for v in range(2)] if (r := 2) else 0
    return list(locals())

print(loops(1))

def deleted():
    a = 1
    del a
    b = 2
    first = locals()
    a = 3
    print(first is locals(), first)

deleted()

def config(lr=0.1, epochs=3, name="run"):
    return dict(locals())

print(config(), locals)

def with_class():
    x = 1
    z = 0
    class C:
        x = 2
        y = z
        def m(self):
            return x
    w = 3
    return list(locals()), C().m(), C.y

print(with_class())
"""


def test_locals_in_a_function_is_its_refreshed_frame_dict_in_slot_order() -> None:
    """The keys come in CPython 3.11's slot order (the cell `q` and the walrus target
    after the plain locals, `k` last in `outer`, the free `k` in `inner`, the cells a
    class body and its method read after `C` and `w`), an unbound name is left out, and
    every call returns the same dict refreshed."""
    assert gradtrace_output(LOCALS_ORDER) == torch_output(LOCALS_ORDER)


def test_locals_outside_a_def_function_is_refused() -> None:
    """At module level CPython's locals() is the module's globals (its dunders, loader and
    modules), which gradtrace does not model: refused, as a call of `locals` not by name."""
    out = gradtrace_output("print(1)\nprint(locals())\n")
    assert out.startswith("1\n") and "NotSupportedError locals() is only supported" in out
    out = gradtrace_output("def f():\n    g = locals\n    return g()\nf()\n")
    assert "NotSupportedError locals() is only supported" in out
