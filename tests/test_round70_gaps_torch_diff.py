"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 70
(Stack Overflow tensor questions) found: an answer's `tensor.shape()` raises Python's
"'torch.Size' object is not callable", and gradtrace named the type 'Size' in that and every
other message Python writes with the type's name (attribute lookups, item assignment and
deletion, comparisons, int()/float(), unsupported operands); a torch.Size repeated by a float
is Python's sequence-repeat refusal ("can't multiply sequence by non-int of type 'float'"),
where gradtrace gave tuple.__mul__'s "'float' object cannot be interpreted as an integer".

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


SIZE_TYPE_NAME_IN_MESSAGES = """import torch
s = torch.Size([2, 3])
x = torch.zeros(2, 3)
tests = [lambda: x.shape(), lambda: s.foo, lambda: s.__setitem__(0, 1), lambda: s + 1,
         lambda: s * 1.5, lambda: 1.5 * s, lambda: s * 'a', lambda: s * 2, lambda: True * s,
         lambda: s * torch.tensor(2), lambda: type(s).__name__, lambda: type(s), lambda: 1 + s,
         lambda: s < 3, lambda: int(s), lambda: float(s), lambda: s - s, lambda: s.shape,
         lambda: next(s), lambda: x.size()(), lambda: s + (4,), lambda: (1,) + s]
for f in tests:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", e)
try:
    s[0] = 1
except TypeError as e:
    print(e)
try:
    del s[0]
except TypeError as e:
    print(e)
try:
    s.append(3)
except AttributeError as e:
    print(e)
"""


def test_torch_size_is_named_torch_size_in_pythons_messages() -> None:
    """torch.Size is the C type `torch.Size`: Python's messages name it so; repeating it by
    a non-integer is the sequence-repeat TypeError."""
    assert gradtrace_output(SIZE_TYPE_NAME_IN_MESSAGES) == torch_output(SIZE_TYPE_NAME_IN_MESSAGES)
