"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 92
(recommender systems in plain torch) found: the class `super`'s own attributes (a notebook's
matrix-factorisation model calls `super.__init__()` for `super().__init__()`) and a builtin
slot wrapper called without its object; pydoc.locate (TorchDeepRec's MLP builds its
activation from a dotted name in its config); torch.fx.wrap as a decorator of a module-level
helper (TorchDeepRec's DIN wraps its torch.arange so).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SUPER_CLASS = """class MF:
    def __init__(self):
        super.__init__()
for call in (lambda: super.__init__(), lambda: super.__init__(5), MF,
             lambda: object.__init__(), lambda: dict.__init__(), lambda: object.__init__(x=1)):
    try:
        call()
    except TypeError as e:
        print(type(e).__name__, e)
print(super.__name__, super.__qualname__, super.__module__, super)
print(super.__init__)
try:
    super.mro_entries
except AttributeError as e:
    print(e)
class A:
    def __init__(self):
        object.__init__(self)
        self.x = 1
print(A().x)
"""


def test_the_class_super_and_slot_wrappers_called_without_their_object() -> None:
    """`super.__init__()` is Python's TypeError "descriptor '__init__' of 'super' object
    needs an argument" (and of 'object' and 'dict' for theirs), not a
    refusal; `super.__init__(5)` names the object it was given; super's name and module
    read as Python's; a missing attribute is "type object 'super' has no attribute"."""
    assert gradtrace_output(SUPER_CLASS) == torch_output(SUPER_CLASS)


PYDOC_LOCATE = """import pydoc
import torch
from typing import Optional
print(pydoc.locate("torch.nn.ReLU"), pydoc.locate("torch.nn.ReLU")())
print(pydoc.locate("int"), pydoc.locate("len")([1, 2]), pydoc.locate("math.pi"))
print(pydoc.locate("torch.nn.NoSuch"), pydoc.locate("nosuchmodule.x"), pydoc.locate("nosuch"))
print(pydoc.locate("collections.OrderedDict"), pydoc.locate("torch.optim.Adam"))
print(pydoc.locate(".torch..nn.Tanh."), pydoc.locate("torch.float32"))
print(pydoc.locate("torch.nn.functional.relu")(torch.tensor([-1.0, 2.0])))
class Act(torch.nn.Module):
    def forward(self, x):
        return x * 2
def load_by_path(path):
    path = path.strip()
    if path == "" or path is None:
        return None
    try:
        return pydoc.locate(path)
    except pydoc.ErrorDuringImport:
        return None
seq = torch.nn.Sequential(torch.nn.Linear(2, 2), load_by_path(" torch.nn.Sigmoid ")())
print(seq)
print(load_by_path(""), load_by_path("torch.nn.Sigmoid").__name__)
for bad in ((), (None,), ("a", 0, 1)):
    try:
        pydoc.locate(*bad)
    except (TypeError, AttributeError) as e:
        print(type(e).__name__, e)
print(issubclass(pydoc.ErrorDuringImport, Exception), pydoc.ErrorDuringImport.__name__)
"""


def test_pydoc_locate_finds_modules_builtins_and_attributes() -> None:
    """pydoc.locate walks the longest importable module prefix (torch's, Python's, the
    script's `__main__`), else the builtins, then the attributes; None for what is not
    there; leading, trailing and doubled dots are dropped; wrong arguments are Python's
    errors."""
    assert gradtrace_output(PYDOC_LOCATE) == torch_output(PYDOC_LOCATE)


FX_WRAP = """import torch
import torch.fx
from torch.fx import wrap

@torch.fx.wrap
def _arange(end, device=None):
    return torch.arange(end, device=device)

print(_arange(3), _arange.__name__)
print(torch.fx.wrap("len"), wrap(_arange) is _arange)
lengths = torch.tensor([2, 0, 3])
print(_arange(4).unsqueeze(0) < lengths.unsqueeze(1))
def inner():
    return torch.fx.wrap(len)
for call in (inner, lambda: torch.fx.wrap(3)):
    try:
        call()
    except (NotImplementedError, RuntimeError) as e:
        print(type(e).__name__, e)
class Holder:
    try:
        wrap("x")
    except NotImplementedError as e:
        print("class body:", e)
"""


def test_torch_fx_wrap_at_module_level_hands_the_function_back() -> None:
    """torch.fx.wrap(fn) at a module's top level returns fn (and a name as it is); called
    in a function or a class body it is torch's NotImplementedError, and neither a
    callable nor a str is its RuntimeError."""
    assert gradtrace_output(FX_WRAP) == torch_output(FX_WRAP)
