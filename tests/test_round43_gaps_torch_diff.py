"""Differential tests against live PyTorch 2.13 (and CPython) for the gap the realworld
corpus's round 43 found: `inspect.currentframe()` and `inspect.getargvalues(frame)`, which
Dive into Deep Learning's English edition (d2l.HyperParameters.save_hyperparameters, in
every model, data module and trainer of the book) uses to read its caller's arguments;
gradtrace refused `inspect.currentframe` outright.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SAVE_HYPERPARAMETERS = """import inspect
import torch
from torch import nn

class HyperParameters:
    def save_hyperparameters(self, ignore=[]):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        self.hparams = {k:v for k, v in local_vars.items()
                        if k not in set(ignore+['self']) and not k.startswith('_')}
        for k, v in self.hparams.items():
            setattr(self, k, v)

class B(HyperParameters):
    def __init__(self, a, b, c):
        self.save_hyperparameters(ignore=['c'])
        print('self.a =', self.a, 'self.b =', self.b, hasattr(self, 'c'))

class Module(nn.Module, HyperParameters):
    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()

class Scratch(Module):
    def __init__(self, num_inputs, lr, sigma=0.01, *rest, scale=2, **extra):
        super().__init__()
        w = torch.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.save_hyperparameters()
        self.w = w

torch.manual_seed(0)
b = B(a=1, b=2, c=3)
print(b.hparams)
m = Scratch(2, 0.03, 0.1, 'x', scale=3, k=4)
print(sorted(m.hparams), m.hparams['rest'], m.hparams['extra'], m.lr, m.scale)
print(m.plot_train_per_epoch, m.w.shape, m.hparams['w'] is m.w)
"""


def test_save_hyperparameters_reads_the_callers_arguments_as_python() -> None:
    """d2l's save_hyperparameters: f_back of its own frame is the __init__ that called it,
    and getargvalues' locals are that frame's variables in CPython's order (parameters,
    *args, **kwargs, then the other locals; `__class__`, a cell for super(), filtered by
    its underscore)."""
    assert gradtrace_output(SAVE_HYPERPARAMETERS) == torch_output(SAVE_HYPERPARAMETERS)


FRAMES = """import inspect
import copy

def f(a, b=2, /, *args, c, d=5, **kw):
    x = a + b
    fr = inspect.currentframe()
    print(fr.f_code.co_name, fr.f_back.f_code.co_name, fr.f_back.f_back.f_code.co_name)
    info = inspect.getargvalues(fr)
    print(info.args, info.varargs, info.keywords, sorted(info.locals))
    print(type(info).__name__, info[0] is info.args, len(info))
    y = 3
    print('y' in fr.f_locals, fr.f_locals is locals(), fr is inspect.currentframe())
    return fr

def g():
    return f(1, 3, 4, c=7, e=8)

fr = g()
print(fr.f_locals['x'], fr.f_locals['y'])
print(type(fr).__name__, type(fr.f_code).__name__, inspect.currentframe().f_code.co_name)

def gen():
    yield inspect.currentframe().f_back.f_code.co_name
    yield inspect.currentframe().f_back.f_code.co_name

def caller():
    it = gen()
    return next(it), other(it)

def other(it):
    return next(it)

print(caller())
print((lambda: inspect.currentframe().f_code.co_name)())
print([inspect.currentframe().f_code.co_name for _ in range(1)] != [])

class K:
    def method(self, *, flag=True):
        return inspect.getargvalues(inspect.currentframe())

info = K().method()
print(info.args, list(info.locals))
for copier in (copy.copy, copy.deepcopy):
    try:
        copier(fr)
    except TypeError as e:
        print(type(e).__name__, e)
try:
    fr.anything = 1
except AttributeError as e:
    print(e)
"""


def test_frame_objects_walk_the_calls_as_python() -> None:
    """f_back follows the calls (a generator's frame is resumed by whoever calls next()),
    up to the module's frame; f_locals is the locals() dict, refreshed; one frame gives
    one object; getargvalues names the positional (positional-only too) and keyword-only
    parameters, then *args and **kwargs; frames are not copied and take no attributes."""
    assert gradtrace_output(FRAMES) == torch_output(FRAMES)


CLASS_BODY_FRAMES = """import inspect

def who():
    return inspect.currentframe().f_back.f_code.co_name

class C:
    n = inspect.currentframe().f_code.co_name
    b = inspect.currentframe().f_back.f_code.co_name
    w = who()
    def m(self):
        class D:
            x = who()
            y = inspect.currentframe().f_back.f_code.co_name
        return D.x, D.y

print(C.n, C.b, C.w, C().m(), who.__name__)
"""


def test_a_class_body_runs_in_its_own_frame_as_python() -> None:
    """A class body has a frame of its own, named for the class: a function it calls sees
    it as f_back, and its f_back is the frame that ran the `class` statement."""
    assert gradtrace_output(CLASS_BODY_FRAMES) == torch_output(CLASS_BODY_FRAMES)
