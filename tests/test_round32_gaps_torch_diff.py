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


FUNCTION_VMAP = """import torch
import numpy as np

class NumpyMul(torch.autograd.Function):
    @staticmethod
    def forward(x, y, scale=1.0):
        return torch.tensor(x.numpy() * y.numpy() * scale)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y, grad_output * x, None

    @staticmethod
    def vmap(info, in_dims, x, y, scale):
        print("vmap", info, in_dims, scale)
        x_bdim, y_bdim, _ = in_dims
        x = x.movedim(x_bdim, -1) if x_bdim is not None else x.unsqueeze(-1)
        y = y.movedim(y_bdim, -1) if y_bdim is not None else y.unsqueeze(-1)
        result = NumpyMul.apply(x, y, scale)
        return result.movedim(-1, 0), 0

x = torch.arange(6.).view(2, 3)
y = torch.arange(3.) + 1
print(torch.vmap(NumpyMul.apply)(x, x))
print(torch.vmap(NumpyMul.apply, in_dims=(0, None))(x, y))
print(torch.vmap(lambda a: NumpyMul.apply(a, y, scale=2.0))(x))
print(torch.vmap(torch.vmap(NumpyMul.apply))(x.view(2, 3, 1), x.view(2, 3, 1)))
print(torch.vmap(lambda a: NumpyMul.apply(y, y) + a)(x))

class Ident(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x.clone(), y * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g1, g2):
        return g1, g2

    @staticmethod
    def vmap(info, in_dims, x, y):
        return (x, y * 2), (in_dims[0], None)

a, b = torch.vmap(Ident.apply, in_dims=(0, None))(x, y)
print(a, b)

class NoRule(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g * 2

class Both(NoRule):
    generate_vmap_rule = True

    @staticmethod
    def vmap(info, in_dims, x):
        return x * 2, 0

class NotATuple(NoRule):
    @staticmethod
    def vmap(info, in_dims, x):
        return x * 2

class Three(NoRule):
    @staticmethod
    def vmap(info, in_dims, x):
        return x, 0, 0

class OldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

for f in [NoRule.apply, Both.apply, NotATuple.apply, Three.apply, OldStyle.apply,
          lambda t: NoRule.apply(y)]:
    try:
        print(torch.vmap(f)(x))
    except RuntimeError as err:
        print(err)
print(OldStyle.apply(y), NoRule.apply(y))
"""


def test_function_vmap_staticmethod_runs_as_torchs_custom_function_call() -> None:
    """Under vmap, Function.apply calls the class's vmap staticmethod with the operands
    unwrapped from the level (VmapInfo, in_dims), a level where none is batched skipped,
    the outputs batched along out_dims (an input handed back is the original); without a
    vmap rule, with both, a wrong return, or an old-style Function: torch's errors."""
    assert gradtrace_output(FUNCTION_VMAP) == torch_output(FUNCTION_VMAP)


GRAD_OF_GRAD_FUNCTION = """import torch

class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 3, 3 * x ** 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], output[1])

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x

def my_cube(x):
    return MyCube.apply(x)[0]

x = torch.tensor(0.7)
print(torch.func.grad(my_cube)(x), torch.func.grad(torch.func.grad(my_cube))(x))
print(torch.func.grad(lambda t: torch.func.grad(my_cube)(t) * t)(x))
"""


def test_grad_of_grad_through_a_function_rewires_its_node() -> None:
    """A grad level ending rewires the edges of the custom Function's node (its ctx, whose
    next_functions a script may not assign), so grad of grad works as in torch."""
    assert gradtrace_output(GRAD_OF_GRAD_FUNCTION) == torch_output(GRAD_OF_GRAD_FUNCTION)


BATCHED_STORAGE = """import torch
import numpy as np
x = torch.arange(6.).view(2, 3)
for f in [lambda t: t.numpy(), lambda t: t.tolist(), lambda t: t[0].tolist(),
          lambda t: t.data_ptr(), lambda t: (t * 2).numpy(force=True),
          lambda t: t.untyped_storage(), lambda t: t.item()]:
    try:
        torch.vmap(f)(x)
    except (RuntimeError, NotImplementedError) as err:
        print(type(err).__name__, err)
a = np.array([[10, 30, 20], [60, 40, 50]])
i = np.argsort(a, axis=1)
print(np.take_along_axis(a, i, axis=1), np.take_along_axis(a, i[:, :1], 1))
"""


def test_a_batched_tensor_has_no_memory_to_read() -> None:
    """numpy(), tolist(), data_ptr() and the storages of a tensor inside vmap are torch's
    errors (the fallback ran them per example and handed out the first example's)."""
    assert gradtrace_output(BATCHED_STORAGE) == torch_output(BATCHED_STORAGE)


FUNCTION_UNDER_GRAD = """import torch
import numpy as np

class NumpyExp(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        print("forward sees", x.requires_grad, x.grad_fn and x.grad_fn.name(), k)
        return torch.tensor(np.exp(x.numpy()) * k), x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output[0])
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g, g_x):
        y, = ctx.saved_tensors
        return g * y + g_x, None

def f(x):
    y, same = NumpyExp.apply(x * 2, 3.0)
    return y.sum() + same.sum()

x = torch.tensor([0.5, -1.0])
print(torch.func.grad(f)(x))
print(torch.func.grad(lambda t: NumpyExp.apply(t, 1.0)[0].sum())(x))
w = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    torch.func.grad(lambda t: (NumpyExp.apply(t * w, 1.0)[0]).sum())(x)
except RuntimeError as err:
    print(err)

class OldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

try:
    torch.func.grad(lambda t: OldStyle.apply(t).sum())(x)
except RuntimeError as err:
    print(err)
"""


def test_a_functions_forward_sees_its_operands_unwrapped_under_grad() -> None:
    """Under torch.func.grad, a setup_context Function's forward gets its operands as the
    caller's autograd has them (not requiring grad unless they reach one of its leaves), so
    forward may call numpy(); an operand handed back is the operand; an old-style Function
    under a transform is torch's error."""
    assert gradtrace_output(FUNCTION_UNDER_GRAD) == torch_output(FUNCTION_UNDER_GRAD)


NUMPY_WITHOUT_GRAD_MODE = """import torch
import numpy as np
a = torch.ones(2, requires_grad=True)
try:
    a.numpy()
except RuntimeError as e:
    print('enabled:', e)
with torch.no_grad():
    print(a.numpy())
with torch.inference_mode():
    print(a.numpy())
b = a * 2
with torch.no_grad():
    print(b.numpy(), b.tolist(), np.asarray(b))
try:
    np.asarray(b)
except RuntimeError as e:
    print('asarray', e)
print(a.numpy(force=True))
with torch.no_grad():
    n = a.numpy()
    n[0] = 5
print(a)
"""


def test_numpy_of_a_tensor_that_requires_grad_needs_grad_mode_off() -> None:
    """torch's tensor_to_numpy refuses a tensor that requires grad only while grad mode is
    on: under no_grad (a custom Function's forward runs so) numpy() and np.asarray share
    its memory."""
    assert gradtrace_output(NUMPY_WITHOUT_GRAD_MODE) == torch_output(NUMPY_WITHOUT_GRAD_MODE)


NESTED_GRADS = """import torch
x = torch.tensor(0.7)
print(torch.func.grad(torch.func.grad(torch.func.grad(lambda t: t ** 3)))(x))
print(torch.func.grad(torch.func.grad(torch.func.grad(lambda t: t.sin() * t)))(x))
print(torch.func.grad(torch.func.grad(torch.func.grad(torch.func.grad(
    lambda t: t.exp() * t ** 3))))(x))
w = torch.tensor(1.5, requires_grad=True)
r = torch.func.grad(torch.func.grad(torch.func.grad(lambda t: t ** 3 * w ** 2)))(x)
print(r)
r.backward()
print(w.grad)
print(torch.func.hessian(torch.func.hessian(lambda t: (t ** 3).sum()))(torch.tensor([0.5, 2.0])))
"""


def test_grads_nested_three_and_four_deep_are_torchs() -> None:
    """A level's end also rewires the edges to inner levels' leaves that ended before it
    (the nodes an inner grad's own backward made after its level ended lead to them): the
    outermost result has no history, and a fourth derivative is right (it was 78.99, not
    111.61)."""
    assert gradtrace_output(NESTED_GRADS) == torch_output(NESTED_GRADS)
