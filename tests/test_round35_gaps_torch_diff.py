"""Differential tests against live PyTorch 2.13 (under CPython 3.11) for the gaps the
realworld corpus's round 35 found: `locals()` in a function (Hamiltonian Neural Networks'
data.py keeps `{'meta': locals()}`), which gradtrace refused; torch.optim.Adafactor, which
gradtrace lacked (with the class `__module__` assignment torch/optim/__init__.py makes, and
the names functools.wraps copies from a `@torch.no_grad()` method). CPython 3.11 returns the
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

class Net(torch.nn.Module):
    def __init__(self, n, k=2):
        super().__init__()
        hparams = locals()
        print(sorted(hparams), hparams['__class__'].__name__, hparams['n'])
    def plain(self):
        return list(locals())
    def nested(self):
        def inner():
            return super
        return list(locals())

net = Net(3)
print(net.plain(), net.nested())

def gen():
    x = 1
    yield locals()
    y = 2
    yield locals()

it = gen()
d1 = next(it)
print(d1)
d2 = next(it)
print(d1 is d2, d2)
"""


def test_locals_in_a_function_is_its_refreshed_frame_dict_in_slot_order() -> None:
    """The keys come in CPython 3.11's slot order (the cell `q` and the walrus target
    after the plain locals, `k` last in `outer`, the free `k` in `inner`, the cells a
    class body and its method read after `C` and `w`, the free `__class__` of a method
    naming `super`, here or in a nested function), an unbound name is left out, and every
    call returns the same dict refreshed (a generator's too)."""
    assert gradtrace_output(LOCALS_ORDER) == torch_output(LOCALS_ORDER)


def test_locals_outside_a_def_function_is_refused() -> None:
    """At module level CPython's locals() is the module's globals (its dunders, loader and
    modules), which gradtrace does not model: refused, as a call of `locals` not by name."""
    out = gradtrace_output("print(1)\nprint(locals())\n")
    assert out.startswith("1\n") and "NotSupportedError locals() is only supported" in out
    out = gradtrace_output("def f():\n    g = locals\n    return g()\nf()\n")
    assert "NotSupportedError locals() is only supported" in out


ADAFACTOR = """import torch
torch.manual_seed(0)
x = torch.randn(5, 3)
for kw in [{}, {"foreach": True}, {"foreach": True, "maximize": True, "weight_decay": 0.1},
           {"lr": 0.5, "eps": (1e-30, 1e-3), "d": 1.5, "beta2_decay": -0.5},
           {"foreach": False, "weight_decay": 0.01}]:
    torch.manual_seed(1)
    w = torch.nn.Parameter(torch.randn(3, 2))
    b = torch.nn.Parameter(torch.randn(2))
    t = torch.nn.Parameter(torch.randn(2, 3, 2))
    o = torch.optim.Adafactor([w, b, t], **kw)
    for _ in range(4):
        o.zero_grad()
        ((x @ w + b).pow(2).sum() + (t * t.sin()).sum()).backward()
        o.step()
    print(w.data.tolist(), b.data.tolist(), t.data[1, 2].tolist())
    st = o.state[t]
    print(sorted(st), st['row_var'].shape, st['col_var'].flatten().tolist(),
          o.state[b]['variance'].tolist(), st['step'])
print(o, torch.optim.Adafactor.__module__, type(o), torch.optim.Adafactor.step.__module__)
print(o.step.__qualname__, o.step.__name__, torch.optim.SGD.step.__qualname__)
from torch.optim._adafactor import adafactor
for bad in [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1.0, 1e-3)), dict(d=0.5),
            dict(weight_decay=-1.0)]:
    try:
        torch.optim.Adafactor([w], **bad)
    except ValueError as err:
        print(err)
"""


def test_adafactor_updates_as_torch_bit_for_bit() -> None:
    """torch.optim.Adafactor (torch.optim._adafactor): the factored row and column second
    moments of matrices (over the last two dimensions of a 3-d parameter too), a vector's
    variance, eps1 from the dtype, update clipping by d, decoupled weight decay, maximize,
    and the foreach update (its last step a multiply then an add), at full precision."""
    assert gradtrace_output(ADAFACTOR) == torch_output(ADAFACTOR)


CLASS_MODULE = """class C:
    pass
C.__module__ = "pkg.mod"
print(C, C.__module__, repr(C()).split(" object")[0])
class D:
    __module__ = "other"
print(D, repr(D()).split(" object")[0])
"""


def test_a_class_whose_module_is_set_is_shown_under_it() -> None:
    """`C.__module__ = ...` after the class statement (torch/optim/__init__.py does it to
    Adafactor) renames the class and its instances in reprs, as a class body's own
    `__module__` does."""
    assert gradtrace_output(CLASS_MODULE) == torch_output(CLASS_MODULE)
