"""Differential tests against live PyTorch 2.13 for subclasses of torch.Tensor a script
writes (gradtrace/interpreter/tensor_subclasses.py): `class MyTensor(torch.Tensor)` made by
`as_subclass`, `torch.Tensor._make_subclass`, the legacy constructor or the class's own
`__new__`; results of operators, torch functions, methods, indexing and property reads made
instances by the default `__torch_function__` (an AliasBackward0 over the op's node when
grad is recorded), an overriding `__torch_function__` called with torch's func and types,
the class's own methods, properties and protocols, and the graph backward walks.

Skipped unless torch is importable.
"""
from __future__ import annotations

import io

import pytest
from script_runs import address_free, gradtrace_output, torch_output

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")


def same(script: str) -> None:
    assert address_free(gradtrace_output(script)) == address_free(torch_output(script))


BASICS = """import torch
class MyTensor(torch.Tensor):
    pass
x = torch.tensor([1.0, 2.0], requires_grad=True)
m = x.as_subclass(MyTensor)
print(type(m).__name__, m.grad_fn, m.requires_grad, m.is_leaf, m._base is x)
print(m)
print(repr(m * 2), type(m * 2).__name__)
y = (m * 2).sum()
print(type(y).__name__, y, y.grad_fn.next_functions)
print(y.grad_fn.next_functions[0][0].next_functions)
y.backward()
print(x.grad, type(x.grad).__name__)
a = MyTensor([1., 2.])
print(a, type(a).__name__, a.dtype, a.requires_grad, MyTensor(), MyTensor([1, 2]).dtype)
b = torch.Tensor._make_subclass(MyTensor, torch.ones(2), True)
print(b, b.is_leaf, b.grad_fn)
(b * b).sum().backward()
print(b.grad, type(b.grad).__name__)
print(isinstance(b, torch.Tensor), isinstance(b, MyTensor), type(b + 1).__name__,
      type(torch.add(b, 1)).__name__, type(1 + b).__name__, type(torch.ones(2) + b).__name__)
print(type(b[0]).__name__, type(b.sum()).__name__, type(b.shape).__name__,
      type(b.tolist()).__name__)
print(type(b.data).__name__, type(b.detach()).__name__, type(torch.cat([b, x])).__name__)
print(b.__class__.__name__, [c.__name__ for c in MyTensor.__mro__],
      MyTensor.__base__ is torch.Tensor, issubclass(MyTensor, torch.Tensor))
print(MyTensor(torch.zeros(2, 3)))
print(torch.Tensor._make_subclass(torch.Tensor, torch.ones(2)))
v, i = torch.max(b, 0)
print(type(torch.max(b, 0)).__name__, type(v).__name__, type(i).__name__)
"""


def test_results_become_instances_with_an_alias_node() -> None:
    """as_subclass aliases (AliasBackward0), every result is made an instance by
    as_subclass (AliasBackward0 over MulBackward0), .grad stays a plain tensor."""
    same(BASICS)


TORCH_FUNCTION = """import torch
class T(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        print("TF", func.__name__, kwargs, [type(a).__name__ for a in args],
              [t.__name__ for t in types])
        return super().__torch_function__(func, types, args, kwargs)
t = torch.Tensor._make_subclass(T, torch.tensor([1., 2.]), False)
i = torch.Tensor._make_subclass(T, torch.tensor([1, 2]), False)
u = torch.tensor([3., 4.])
r = t + 1
r = 1 + t
r = t - u
r = u - t
r = 2 - t
r = t * 2
r = t / 2
r = 2 / t
r = u / t
r = t @ u
r = u @ t
r = t ** 2
r = 2 ** t
r = -t
r = +t
r = abs(t)
r = ~i
r = i & 1
r = t // 2
r = t % 2
r = 3 % t
r = t < 2
r = t <= 1
r = t > 1
r = t >= 1
r = t == u
r = t != 1
r = t[0]
t[0] = 5.
t += 1
t -= 1
t *= 1
t /= 1
n = len(t)
for e in t:
    pass
b = bool(t[0])
f = float(t[0])
k = int(t[0])
c = 1. in t
r = repr(t)
r = str(t)
r = f"{t}"
r = t.requires_grad
r = t.grad
r = t.data
t.requires_grad = True
t.foo = 3
print(t.foo)
r = t.detach()
r = t.clone()
r = t.sum(dim=0)
r = t.tolist()
r = torch.add(u, t)
(t * t).sum().backward()
print(t.grad, type(t.grad).__name__)
print(type(torch.max(t, 0)).__name__, type(torch.max(t, 0)[0]).__name__)
"""


def test_an_overriding_torch_function_sees_torchs_func_and_types() -> None:
    """Each operator, protocol, method, torch function and property read calls the hook
    once with the function torch hands it (`add` for `+`, `__rsub__` for `2 - t`,
    `matmul` of (u, t) for `u @ t`, `__get__` for a property, `__set__` for a write)."""
    same(TORCH_FUNCTION)


LOGGING = """import torch
class LoggingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # NOTE: Logging calls Tensor.__repr__, so we can't log __repr__ without infinite
        # recursion
        if func is not torch.Tensor.__repr__:
            print(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
        if kwargs is None:
            kwargs = {}
        return super().__torch_function__(func, types, args, kwargs)
x = torch.tensor([1., 2.], requires_grad=True).as_subclass(LoggingTensor)
y = x * 3
z = y.sum()
z.backward(retain_graph=True)
print(z.grad_fn, z.grad_fn.next_functions)
"""


def test_the_docs_logging_tensor() -> None:
    """torch's docs' LoggingTensor: `func is not torch.Tensor.__repr__` holds for every
    function but the repr it triggers itself; backward's keywords all reach the hook."""
    same(LOGGING)


CLASS_OWN = """import torch
class Scaled(torch.Tensor):
    def scaled(self, k):
        return self * k
    @property
    def double_it(self):
        return self * 2
    def __repr__(self):
        return "Scaled!" + super().__repr__()
s = Scaled([1., 2.])
print(s.scaled(3), s.double_it)
print(repr(s), str(s), [s])
print(f"{s}")
class Meta(torch.Tensor):
    @staticmethod
    def __new__(cls, x, extra, *args, **kwargs):
        return super().__new__(cls, x, *args, **kwargs)
    def __init__(self, x, extra):
        self.extra = extra
x = torch.tensor([1., 2.], requires_grad=True)
n = Meta([1., 2.], "meta")
print(n, n.extra, type(n).__name__)
n2 = Meta(x, "m2")
print(n2, n2.extra, n2.grad_fn, hasattr(n2 * 2, "extra"))
class NoOverride(torch.Tensor):
    def __add__(self, other):
        print("my add")
        return super().__add__(other)
    def __getitem__(self, idx):
        print("my getitem", idx)
        return super().__getitem__(idx)
o = torch.ones(2).as_subclass(NoOverride)
print(o + 1, 1 + o, torch.add(o, 1), o[1])
class Str(torch.Tensor):
    def __str__(self):
        return "as str"
q = torch.zeros(1).as_subclass(Str)
print(q, repr(q), f"{q}")
try:
    f"{q[0]:.2f}"
except TypeError as e:
    print(e)
"""


def test_the_classs_own_methods_properties_and_protocols() -> None:
    """A subclass's methods and properties, its __repr__/__str__ (print, f-strings,
    containers), `super().__new__(cls, x)` with extra data set by __init__ (not carried to
    results), and overridden operators calling `super().__add__`."""
    same(CLASS_OWN)


GRAPH = """import torch
class P(torch.Tensor):
    pass
w = torch.zeros(2, requires_grad=True)
k = torch.Tensor._make_subclass(P, w.detach() + 1, True)
out = (k * w).sum()
print(out, out.grad_fn.next_functions)
print(out.grad_fn.next_functions[0][0].next_functions)
out.backward()
print(k.grad, w.grad)
for e in k:
    print(type(e).__name__, e)
print(len(k), k.shape, k.size(), k.dim(), k.numel(), k.dtype)
print(k.detach().tolist(), k.detach()[0].item())
print(torch.stack([k, k]).shape, type(torch.stack([k, k])).__name__)
print(k.detach(), k.data)
with torch.no_grad():
    r = k * 2
print(r, r.requires_grad, r._base is None)
k.data.mul_(2)
print(k, k._version)
h = k.register_hook(lambda g: print("hook", g))
(k * 3).sum().backward()
print(k.grad)
"""


def test_backward_through_subclass_results() -> None:
    """The graph backward walks: AliasBackward0 nodes over the ops' own, AccumulateGrad
    for a _make_subclass leaf, hooks on it, no_grad results (a view, no node)."""
    same(GRAPH)


ERRORS = """import torch
class M(torch.Tensor):
    pass
x = torch.ones(2)
for f in [lambda: x.as_subclass(int), lambda: torch.Tensor._make_subclass(int, x),
          lambda: M(x).missing]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_errors_read_as_torchs() -> None:
    same(ERRORS)


COPIES = """import copy
import torch
class M(torch.Tensor):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.tag = "t"
m = M([1., 2.])
print(m.tag)
try:
    copy.deepcopy(m)
except RuntimeError as e:
    print("RuntimeError", e)
c2 = copy.copy(m)
print(type(c2).__name__, c2, c2.tag)
print(type(m.new_zeros(2)).__name__, type(m.to(torch.float64)).__name__, m.to(torch.float64))
r = m.requires_grad_()
print(r is m, m.requires_grad, type(r).__name__)
print(m.detach().numpy(), type(m.detach().numpy()).__name__)
print(torch.is_tensor(m), torch.numel(m), m.is_leaf)
lin = torch.nn.Linear(2, 1)
print(type(lin(m)).__name__)
print(hash(m) == hash(m), m in {m: 1})
print(sorted([M([3.]), M([1.])])[0], sum([M([1.]), M([2.])]), max(M([1., 5.])))
print(list(zip(M([1., 2.]), [1, 2]))[0][0])
x = M([1., -2.])
print(x.abs(), torch.abs(x), x.relu(), torch.nn.functional.relu(x))
print(x > 0, (x > 0).any(), bool((x > 0).any()))
print(x.view(2, 1), x.reshape(1, 2).T)
class A(torch.Tensor):
    pass
class B(torch.Tensor):
    pass
for f in [lambda: A([1.]) + B([1.]), lambda: A([1.]) == B([1.]), lambda: A([1.]) < B([2.]),
          lambda: A([1.]) != B([1.]), lambda: B([1.]) == A([2.]), lambda: A([1.]) @ B([2.]),
          lambda: A([1.]) ** B([2.]), lambda: torch.eq(A([1.]), B([1.]))]:
    try:
        print(f())
    except TypeError as e:  # (its first line: the classes' module differs under exec)
        print("TypeError", str(e).splitlines()[0])
"""


def test_copies_builtins_and_unrelated_classes() -> None:
    """copy.copy keeps the class and attributes, copy.deepcopy raises torch's RuntimeError;
    Python's builtins (sorted, sum, max, zip) and modules see subclass instances; two
    unrelated subclasses' operators end in Python's TypeError (`!=` by identity; `==` asks
    its left operand's hook only), a torch function in torch's dispatch TypeError."""
    same(COPIES)


def test_refused_constructs_name_themselves() -> None:
    """__torch_dispatch__ and _make_wrapper_subclass are refused cleanly."""
    dispatch = run_text("import torch\nclass W(torch.Tensor):\n"
                        "    @classmethod\n"
                        "    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):\n"
                        "        return func(*args)\n", stderr=io.StringIO())
    assert dispatch.error is not None and dispatch.error.kind == "NotSupportedError"
    assert "__torch_dispatch__" in dispatch.error.message
    wrapper = run_text("import torch\ntorch.Tensor._make_wrapper_subclass(torch.Tensor, (2,))\n",
                       stderr=io.StringIO())
    assert wrapper.error is not None and wrapper.error.kind == "NotSupportedError"
    assert "_make_wrapper_subclass" in wrapper.error.message
    parameter = run_text("import torch\nclass M(torch.Tensor):\n    pass\n"
                         "torch.nn.Parameter(M([1.]))\n", stderr=io.StringIO())
    assert parameter.error is not None and parameter.error.kind == "NotSupportedError"
    saved = run_text("import io, torch\nclass M(torch.Tensor):\n    pass\n"
                     "torch.save(M([1.]), io.BytesIO())\n", stderr=io.StringIO())
    assert saved.error is not None and saved.error.kind == "NotSupportedError", saved.error


def test_views_show_the_graph_of_subclass_results() -> None:
    """The run tables, --json, explain and graph views take a subclass script."""
    from click.testing import CliRunner

    from gradtrace.cli import main

    runner = CliRunner()
    for args in (["run"], ["run", "--json"], ["explain"], ["explain", "--lang", "zh"],
                 ["graph"]):
        done = runner.invoke(main, [*args, "-"], input=BASICS)
        assert done.exit_code == 0, (args, done.output)
        assert "AliasBackward0" in done.output, args


MIXINS = """import torch
class Mixin:
    def hello(self):
        return "hello " + type(self).__name__
    def twice(self):
        return self * 2
class M(torch.Tensor, Mixin):
    pass
class N(Mixin, torch.Tensor):
    pass
m = M([1., 2.])
n = N([3.])
print([c.__name__ for c in M.__mro__], [c.__name__ for c in N.__mro__])
print(m.hello(), m.twice(), n.hello(), n.twice())
print(isinstance(m, Mixin), issubclass(N, Mixin), issubclass(N, torch.Tensor))
"""


def test_a_mixin_beside_torch_tensor() -> None:
    """A mixin after torch.Tensor (after torch._C.TensorBase in the MRO) or before it."""
    same(MIXINS)
