"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 32
found: Tensor.addmm_'s deprecated signatures (KaiyangZhou's center loss calls
`distmat.addmm_(1, -2, x, centers.t())`), which gradtrace's table of torch's argument
parsers lacked, and the marks (`!int!`) of the parser's message with one signature shown;
torch.autograd.graph's allow_mutation_on_saved_tensors and increment_version (their
docstrings' examples); and `iter()` of a dict or a set (increment_version iterates its
argument so), which handed the script a Python generator no loop took.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


ADDMM_DEPRECATED = """import torch
torch.manual_seed(0)
x = torch.randn(4, 3)
c = torch.randn(5, 3, requires_grad=True)
d = torch.randn(4, 5)
d.addmm_(1, -2, x, c.t())
print(d, d.grad_fn.name())
e = torch.randn(4, 5)
e.addmm_(0.5, x, c.t().detach())
print(e)
v = torch.randn(4)
v.addmv_(2, 3, d.detach(), torch.ones(5))
print(v)
m = torch.zeros(4, 5)
m.addr_(1, 2, torch.ones(4), torch.arange(5.))
print(m)
b = torch.zeros(2, 2)
b.addbmm_(1, 2, torch.ones(3, 2, 4), torch.ones(3, 4, 2))
print(b)
(d.sum()).backward()
print(c.grad)
for args in [(1, -2, x), (1, -2, x, c.t(), 3), ('a', x, c.t()), (x, x, x, x, x)]:
    try:
        torch.zeros(4, 5).addmm_(*args)
    except Exception as err:
        print(type(err).__name__, err)
y = torch.ones(2)
for call in [lambda: y.add_(1, y, 3), lambda: y.sub_(1, 2, 3), lambda: y.add_(y, y, 3),
             lambda: y.addcmul_(1, y, y, y), lambda: y.addcdiv_(y, 2, y, y)]:
    try:
        call()
    except TypeError as err:
        print(err)
"""


def test_addmm_inplace_takes_its_deprecated_signatures_as_torch() -> None:
    """`t.addmm_(beta, alpha, mat1, mat2)` and `t.addmm_(beta, mat1, mat2)` are torch's
    deprecated overloads (beta and alpha by keyword in the current one), as for addmv_,
    addr_ and addbmm_; other arguments get the parser's messages, which mark each argument
    (`!int!`) when the one signature torch shows has as many parts as the call has
    arguments."""
    assert gradtrace_output(ADDMM_DEPRECATED) == torch_output(ADDMM_DEPRECATED)


ALLOW_MUTATION = """import torch
with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
    a = torch.ones(2, 3, requires_grad=True)
    b = a.clone()
    out = (b**2).sum()
    print(b.sin_())
    out.sum().backward()
print(a.grad)
print(type(ctx).__name__, type(ctx).__module__)

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    out = (b * b).sum() + (b ** 3).sum()
    b.data.mul_(3)
    b.mul_(5)
    b[0] = 7
    out.backward()
    print(a.grad, b)

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = w * 1
    v = h[1:]
    loss = (h.exp()).sum()
    v.mul_(10)
    loss.backward()
    print(w.grad, h)

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    a = torch.ones(2, requires_grad=True)
    b = a * 3
    out = (b * b).sum()
try:
    out.backward()
except AssertionError as err:
    print("AssertionError", err)

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    try:
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            pass
    except RuntimeError as err:
        print(err)
    a = torch.ones(2, requires_grad=True)
    out = (a * a).sum()
    try:
        out.backward()
    except AssertionError as err:
        print("AssertionError", err)
"""


def test_allow_mutation_on_saved_tensors_backward_sees_the_values_saved() -> None:
    """A saved tensor written in place (itself, its .data, a view at its address) is
    cloned first, so backward reads what was saved; a view elsewhere in its memory is not
    (torch's check is the address and the version); backward outside the context, and a
    nested context (which ends the outer one), are torch's errors."""
    assert gradtrace_output(ALLOW_MUTATION) == torch_output(ALLOW_MUTATION)


INCREMENT_VERSION = """import torch
t = torch.ones(2)
for arg in [t, [t, t], (t,), {t: 1}, (x for x in [t]), t[0], 3, None, [t, 2], "ab"]:
    try:
        torch.autograd.graph.increment_version(arg)
    except RuntimeError as err:
        print(err)
    print(t._version)
with torch.inference_mode():
    z = torch.ones(2)
torch.autograd.graph.increment_version(z)
w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w * 1
loss = (h * h).sum()
torch.autograd.graph.increment_version(h)
try:
    loss.backward()
except RuntimeError as err:
    print(err)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    h = w * 1
    loss = (h * h).sum()
    torch.autograd.graph.increment_version(h)
    h.add_(1)
    loss.backward()
print(w.grad)
"""


def test_increment_version_moves_the_counter_as_torch() -> None:
    """increment_version bumps each tensor of an iterable in turn (checking each as it
    comes), leaves an inference tensor alone, and is no write: under
    allow_mutation_on_saved_tensors the saved tensor is then not cloned by a later write."""
    assert gradtrace_output(INCREMENT_VERSION) == torch_output(INCREMENT_VERSION)


ITER_OF_DICT_AND_SET = """import torch
t = torch.ones(2)
d = {t: 1, 'b': 2}
for it in [iter(d), iter({3, 1}), iter(d.values()), iter(d.items()), iter(d.keys())]:
    print(type(it).__name__, list(it))
it = iter({1: 2, 3: 4})
print(next(it), [k for k in it], next(it, 'done'))
s = {1, 2}
try:
    for k in iter(s):
        s.add(k + 5)
except RuntimeError as err:
    print(err)
"""


def test_iter_of_a_dict_or_set_is_pythons_iterator() -> None:
    """iter(dict), iter(set) and of their views give Python's iterators (named so), which
    loops, list() and next() take, and a resize while iterating is Python's RuntimeError."""
    assert gradtrace_output(ITER_OF_DICT_AND_SET) == torch_output(ITER_OF_DICT_AND_SET)
