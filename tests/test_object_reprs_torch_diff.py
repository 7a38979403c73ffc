"""Differential tests against live PyTorch 2.13 (and its CPython 3.11): how classes,
functions and modules print. A class a script defines is `<class '__main__.Name'>`; an
autograd Function subclass is an instance of torch's FunctionMeta (gradtrace said `type`);
a module CPython builds in or freezes prints `(built-in)` / `(frozen)` (gradtrace printed
none). A module read from a file names its path (`from '/.../site-packages/torch/nn/
__init__.py'`), which is the machine's: gradtrace leaves it out, and only that differs.

Skipped unless torch is importable.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from script_runs import address_free, each_expression, file_runs

torch = pytest.importorskip("torch")

SETUP = """
import sys, itertools, time, os, abc, io, math, collections
import torch.nn as nn
import torch.nn.functional as F
class MyModule(nn.Module):
    def forward(self, x):
        return x
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
class Twice(Double):
    pass
def helper(a):
    return a
m = MyModule()
"""

EXPRESSIONS = [
    "m", "type(m)", "MyModule", "repr(MyModule)", "type(m).__qualname__", "type(m).__module__",
    "nn.Linear", "nn.Module", "torch.Tensor", "type(torch.zeros(1))", "nn.Parameter",
    "torch.optim.SGD", "torch.autograd.Function", "torch.utils.data.Dataset",
    "helper", "F.relu", "torch.relu", "torch.zeros", "MyModule.forward", "nn.Linear.forward",
    "type(helper)", "type(F.relu)", "type(torch.relu)", "torch.float32", "type(torch.float32)",
    "sys", "itertools", "time", "os", "abc", "io", "os.path",
    "type(torch.autograd.Function)", "type(Double)", "type(Twice)", "Double", "type(type(Double))",
    "isinstance(Double, type)", "issubclass(Double, torch.autograd.Function)",
    "isinstance(Double, type(torch.autograd.Function))", "type(Double) is type(Twice)",
    "isinstance(MyModule, type(Double))", "type(MyModule)", "type(Double).__name__",
    "type(Double).__module__", "type(nn.Module)",
]


def test_class_function_and_builtin_module_reprs_like_torch(tmp_path: Path) -> None:
    """(Run as a file: a class's module is __main__.)"""
    torch_run, result, _ = file_runs(each_expression(EXPRESSIONS, SETUP), tmp_path, "reprs",
                                     check=True)
    assert result.error is None
    assert address_free(result.stdout) == address_free(torch_run.stdout)


FILE_MODULES = ["torch", "torch.nn", "F", "math", "collections", "torch.autograd.function"]


def test_file_modules_print_without_the_machines_path(tmp_path: Path) -> None:
    """torch's `<module 'torch.nn' from '<path>'>` is gradtrace's `<module 'torch.nn'>`."""
    torch_run, result, _ = file_runs(each_expression(FILE_MODULES, SETUP), tmp_path,
                                     "modules", check=True)
    assert result.error is None
    assert result.stdout == re.sub(r" from '[^']*'>", ">", torch_run.stdout)
    assert torch_run.stdout.count(" from '/") == len(FILE_MODULES)
