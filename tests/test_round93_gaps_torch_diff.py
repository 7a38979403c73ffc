"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 93
(continuous-depth, implicit, hypernetwork and spiking models) found: a class statement whose
base is not a class (hmf17's snn_starter wrote `class ActFun(torch.autograd.function)`, the
module, for torch.autograd.Function), where CPython takes the base's type as the metaclass
and calls it with (name, bases, namespace), so the constructor's own TypeError is raised.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


NON_CLASS_BASES = """import math
import torch
import torch.autograd.function
for base in [torch.autograd.function, torch.nn, math, 1, 2.5, 'a', None, [], (), {}, True,
             b'x', {1}, frozenset(), 1j]:
    try:
        class A(base):
            pass
    except TypeError as e:
        print(type(base).__name__, e)
class ActFun(torch.autograd.function):
    @staticmethod
    def forward(ctx, input):
        return input
"""


def test_class_statement_with_a_module_or_value_base_raises_the_metaclass_call_error() -> None:
    """`class A(torch.autograd.function)` raises `module() takes at most 2 arguments (3
    given)`, and an int, float, str, None, list, tuple, dict, bool, bytes, set, frozenset or
    complex base its constructor's TypeError, as CPython does."""
    assert gradtrace_output(NON_CLASS_BASES) == torch_output(NON_CLASS_BASES)
