"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 59
(capsule networks, RBMs, Hopfield networks, energy-based models, neural cellular automata,
self-organising maps) found: gram-ai's capsule network builds its one-hot labels with
`torch.sparse.torch.eye(10)` (a torch module that does `import torch` has torch as an
attribute; refused), and JEM draws its labelled batches with `cycle(loader).__next__()` (a
generator's `__next__` slot was missing; `type()` of a slot's method-wrapper also named it a
builtin_function_or_method).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


TORCH_THROUGH_SUBMODULES = """import torch
import torch.nn.functional as F
labels = torch.LongTensor([2, 0, 1])
onehot = torch.sparse.torch.eye(4).index_select(dim=0, index=labels)
print(onehot)
print(torch.sparse.torch is torch, F.torch is torch, torch.nn.functional.torch.zeros(2))
print(torch.autograd.torch.ones(1), torch.torch is torch, torch.sparse.torch.sparse.torch is torch)
print(hasattr(torch.sparse, "torch"), hasattr(torch.nn, "torch"), hasattr(torch.optim, "torch"))
try:
    torch.nn.torch
except AttributeError as e:
    print(e)
"""


def test_torch_modules_that_import_torch_have_it_as_an_attribute() -> None:
    """`torch.sparse.torch.eye(n)` (old capsule networks' one-hot labels) reaches torch
    itself, as does any torch module that does `import torch`; torch.nn does not."""
    assert gradtrace_output(TORCH_THROUGH_SUBMODULES) == torch_output(TORCH_THROUGH_SUBMODULES)


GENERATOR_SLOTS = """def cycle(xs):
    while True:
        for x in xs:
            yield x

def two():
    yield 1
    yield 2
    return "done"

g = cycle([1, 2, 3])
print(g.__next__(), g.__next__(), g.__next__(), g.__next__())
print(g.__iter__() is g, iter(g) is g)
h = two()
print(h.__next__(), next(h))
for _ in range(2):
    try:
        h.__next__()
    except StopIteration as e:
        print("stop", repr(e), e.value)
print(type(g.__next__).__name__, callable(g.__next__), g.__next__.__name__)
print(type((3).__add__).__name__, type(g.__iter__).__name__)
gen = (i * i for i in range(3))
step = gen.__next__
print(step(), list(gen))
try:
    g.__next__(1)
except TypeError as e:
    print(e)
"""


def test_a_generators_next_and_iter_slots() -> None:
    """`gen.__next__()` is next(gen) (its return value in StopIteration, then an empty
    StopIteration), `gen.__iter__()` the generator; both are method-wrappers."""
    assert gradtrace_output(GENERATOR_SLOTS) == torch_output(GENERATOR_SLOTS)


REMOVED_TENSOR_LINALG_METHODS = """import torch
torch.manual_seed(0)
W = torch.rand(3, 3)
b = torch.rand(3, 1)
print(type(W.eig).__name__, W.eig.__name__, W.eig.__qualname__, W.symeig.__qualname__)
for call in (lambda: W.solve(b), lambda: W.lstsq(b), lambda: W.eig(), lambda: W.eig(True),
             lambda: W.symeig(eigenvectors=True), lambda: torch.Tensor.eig(W),
             lambda: torch.eig(W), lambda: torch.symeig(W)):
    try:
        call()
    except RuntimeError as e:
        print(e)
print(hasattr(torch.Tensor, "symeig"), hasattr(W, "lstsq"), hasattr(W, "matrix_rank"))
"""


def test_the_tensor_methods_torch_removed_since_1_9_raise_its_error() -> None:
    """`W.eig()` (an old echo state network's spectral radius), `symeig`, `solve` and
    `lstsq` are Python methods of torch.Tensor that raise torch/_linalg_utils.py's
    RuntimeError naming the torch.linalg replacement, as torch.eig and friends do."""
    assert gradtrace_output(REMOVED_TENSOR_LINALG_METHODS) == \
        torch_output(REMOVED_TENSOR_LINALG_METHODS)


TENSOR_METHOD_SHADOWED = """import torch
t = torch.ones(2)
t.requires_grad_ = True
print(t.requires_grad_, t.requires_grad)
t.add = 5
print(t.add, t + 1, torch.add(t, 1))
t.backward = "b"
t.eig = 3
print(t.backward, t.eig, sorted(t.__dict__))
u = t.clone()
print(u.add(1), hasattr(u, "requires_grad_"), getattr(t, "add"))
for name in ("shape", "is_leaf", "T", "dtype", "grad_fn"):
    try:
        setattr(t, name, 1)
    except AttributeError as e:
        print(e)
del t.add
print(t.add(1))
"""


def test_an_attribute_set_on_a_tensor_shadows_a_method_of_that_name() -> None:
    """A tensor method is a non-data descriptor: `t.requires_grad_ = True` (matterda's NCA
    notebook) stores an attribute in the tensor's __dict__ that reads back instead of the
    method, on that tensor only; torch's getset attributes stay read-only."""
    assert gradtrace_output(TENSOR_METHOD_SHADOWED) == torch_output(TENSOR_METHOD_SHADOWED)


TYPING_SELF = """import typing
from typing import Self, Never, LiteralString, NoReturn


class Box:
    def set(self, v: int) -> Self:
        self.v = v
        return self

    @classmethod
    def make(cls) -> "Self":
        return cls()


print(Box().set(3).v, Self, Never, LiteralString, typing.Self, typing.Self is Self)
for form in (Self, Never, LiteralString, NoReturn, typing.TypeAlias):
    try:
        form[int]
    except TypeError as e:
        print(e)
print(Self == typing.Self, hash(Self) == hash(typing.Self), Self == Never)
"""


def test_typing_self_never_and_literalstring_are_unsubscriptable_special_forms() -> None:
    """Python 3.11's `typing.Self` (a Hopfield tutorial's `def fit(...) -> Self`), Never and
    LiteralString import and print as Python's; like NoReturn and TypeAlias they refuse a
    subscript (NoReturn[int] was accepted)."""
    assert gradtrace_output(TYPING_SELF) == torch_output(TYPING_SELF)
