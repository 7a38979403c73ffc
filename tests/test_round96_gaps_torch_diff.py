"""Differential tests against live PyTorch 2.13 for the gap the realworld corpus's round 96
(Japanese and English blog posts on autograd internals: grad_fn chains, next_functions,
saved tensors, hooks) found: `grad_fn._raw_saved_<key>`, torch's SavedTensor object, and its
`register_hooks(pack_hook, unpack_hook)` (a blog on autograd mechanics registers a pair on
`param.grad_fn._raw_saved_self`; gradtrace refused the attribute).

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import address_free, gradtrace_output, torch_output

torch = pytest.importorskip("torch")


RAW_SAVED_HOOKS = """import torch
def pack_hook(x):
    print("Packing", x)
    return x
def unpack_hook(x):
    print("Unpacking", x)
    return x
x = torch.tensor([1., 2.], requires_grad=True)
y = x.pow(2)
r = y.grad_fn._raw_saved_self
print(type(r), type(r).__name__, isinstance(r, type(r)))
r.register_hooks(pack_hook, unpack_hook)
print(y.grad_fn._saved_self)
y.sum().backward()
print(x.grad)
z = x.exp()
z.grad_fn._raw_saved_result.register_hooks(pack_hook, unpack_hook)
print(z.grad_fn._saved_result)
z.sum().backward()
print(x.grad)
v = x * 2
v.grad_fn._raw_saved_other.register_hooks(pack_hook, unpack_hook)
u = x.pow(2)
u.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t)
u.sum().backward()
print(x.grad)
s = x.sin()
s.grad_fn._raw_saved_self.register_hooks(lambda t: (t, 1), lambda p: p[0] * 2)
s.backward(torch.ones(2), retain_graph=True)
print(x.grad)
w = (x * 1.0) * (x * 1.0)
w.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
w.grad_fn._raw_saved_other.register_hooks(pack_hook, unpack_hook)
w.sum().backward()
print(x.grad)
"""

RAW_SAVED_ERRORS = """import torch
def pack_hook(x):
    return x
def unpack_hook(x):
    return x
def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
x = torch.tensor([1., 2.], requires_grad=True)
y = x.pow(2)
r = y.grad_fn._raw_saved_self
r.register_hooks(pack_hook, unpack_hook)
attempt(lambda: r.register_hooks(pack_hook, unpack_hook))
y.sum().backward()
attempt(lambda: r.register_hooks(pack_hook, unpack_hook))
z = x.exp()
z.sum().backward()
attempt(lambda: z.grad_fn._raw_saved_result)
attempt(lambda: z.grad_fn._raw_saved_result.register_hooks(pack_hook, unpack_hook))
w = x * torch.tensor([10.2])
attempt(lambda: w.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook))
attempt(lambda: w.grad_fn._raw_saved_other.register_hooks(1, unpack_hook))
attempt(lambda: x.sum(0).grad_fn._raw_saved_dim)
print(hasattr(torch.stack([x, x]).grad_fn, "_raw_saved_tensors"))
k = x.pow(2)
k.grad_fn._raw_saved_self.register_hooks(lambda t: 5, lambda t: t)
attempt(lambda: k.sum().backward())
def bad(t):
    t.add_(1)
    return t
m = x * 1.0
attempt(lambda: (m * m).grad_fn._raw_saved_self.register_hooks(bad, unpack_hook))
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    h = x.pow(3)
attempt(lambda: h.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook))
q = x.pow(2)
raw = q.grad_fn._raw_saved_self
def again(t):
    raw.register_hooks(again, again)
    return t
attempt(lambda: raw.register_hooks(again, again))
"""


def test_raw_saved_tensor_register_hooks_packs_now_and_unpacks_on_every_read() -> None:
    """`grad_fn._raw_saved_<key>` is torch's SavedTensor; register_hooks calls pack_hook at
    once on the detached data (a saved input, a saved result, a wrapped number), and every
    `_saved_<key>` read and backward calls unpack_hook, whose tensor backward then uses."""
    assert address_free(gradtrace_output(RAW_SAVED_HOOKS)) == \
        address_free(torch_output(RAW_SAVED_HOOKS))


def test_raw_saved_tensor_register_hooks_errors() -> None:
    """torch's errors: a second pair, a pair after backward freed the graph, a saved None,
    arguments that are not callables (pybind's TypeError), attributes torch has no
    SavedTensor for, an unpack hook returning no tensor, a pack hook writing in place, a
    tensor already packed under saved_tensors_hooks, and a pack hook registering again
    (torch sets the pair before it packs)."""
    assert address_free(gradtrace_output(RAW_SAVED_ERRORS)) == \
        address_free(torch_output(RAW_SAVED_ERRORS))
