"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 20
found: item assignment into a typed storage (`t.storage()[0] = 2.0`, "Deep Learning with
PyTorch" chapter 3), which torch runs as a write through a new tensor over the storage;
Python numbers past int64/uint64 as Scalar arguments and as values written by `t[i] = v`;
torch.rand/randn with `out=` (CMU 11-785's WGAN-GP); float16 uniform draws.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, torch_output

torch = pytest.importorskip("torch")


STORAGE_WRITES = """import torch
import numpy as np
p = torch.tensor([[1.0, 4.0], [2.0, 1.0], [3.0, 5.0]], requires_grad=True)
s = p.storage()
s[0] = 2.0
s[-1] = 7
s[2:4] = 9
print(p, p._version, p.grad_fn)
q = p.detach()[1]
q.storage()[5] = torch.tensor(1.5)
print(p, q, q._version)
i = torch.arange(4)
si = i.storage()
si[1] = 2.7
si[True] = si[1]
print(i, i._version)
for idx, val in [(6, 1.0), (-7, 1.0), ("a", 1.0), (1.0, 1.0), (np.int64(0), 1.0),
                 (0, p.storage()), (0, "x"), (0, [1, 2]), (slice(0, 2), [1., 2.]),
                 (slice(0, 6, 2), 0.5), (0, torch.ones(2)), (None, 1.0), (0, float('nan')),
                 (slice(None), torch.arange(6.)), (0, 2**70)]:
    try:
        s[idx] = val
        print("ok", idx, p)
    except Exception as e:
        print(type(e).__name__, e)
b = torch.zeros(3, dtype=torch.bool)
b.storage()[1] = 1
h = torch.zeros(2, 3, dtype=torch.float64).t()
h.storage()[1] = -0.5
print(b, h, torch.tensor(5).storage().tolist())
"""


def test_typed_storage_item_assignment_like_torch() -> None:
    assert gradtrace_output(STORAGE_WRITES) == torch_output(STORAGE_WRITES)


HUGE_INTS = """import torch
def w0(t, v): t[0] = v
def w1(t, v): t[1:] = v
def w2(t, v): t[torch.tensor([True, False, True])] = v
def w3(t, v): t.fill_(v)
def w4(t, v): t.masked_fill_(torch.tensor([True, False, True]), v)
def w5(t, v): t.storage()[2] = v
for v in [2**70, -2**64, 2**63, 2**63 - 1, -2**63 - 1, -2**63, 2**64 - 1, 2**64, 300, -1,
          -255, -256, 256, 1e10, -0.5, 255.9, True, float('inf'), float('nan')]:
    for t in [torch.zeros(3), torch.zeros(3, dtype=torch.float64),
              torch.zeros(3, dtype=torch.long), torch.zeros(3, dtype=torch.uint8),
              torch.zeros(3, dtype=torch.int8), torch.zeros(3, dtype=torch.float16),
              torch.zeros(3, dtype=torch.bool)]:
        for how in [w0, w1, w2, w3, w4, w5]:
            try:
                how(t, v)
                print(how.__name__, "ok", t)
            except Exception as e:
                print(how.__name__, type(e).__name__, e)
t = torch.zeros(3)
for f in [lambda: t.add(1, alpha=2**70), lambda: torch.clamp(t, min=2**70),
          lambda: torch.full((2,), 2**70), lambda: t.fill_(2**64 - 1),
          lambda: torch.where(t > 0, t, 2**70), lambda: t.masked_fill(t == 0, -2**63 - 1),
          lambda: torch.fmod(t, 2**70), lambda: t.mul(2**70), lambda: torch.add(t, 2**70),
          lambda: torch.zeros(3, dtype=torch.long).fill_(2**63),
          lambda: torch.tensor(3).fill_(-2**63), lambda: t.clamp(max=-2**64)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_numbers_as_scalars_and_written_values_like_torch() -> None:
    """A Scalar argument takes an int up to uint64 (then c10's checks), past that torch's
    OverflowError; a number written by `t[i] = v` is an int64 (ValueError past that),
    checked into an integer dtype as fill_ checks it, unchecked into a floating one."""
    assert gradtrace_output(HUGE_INTS) == torch_output(HUGE_INTS)


RANDOM_OUT = """import torch
torch.manual_seed(0)
def show(name, f):
    try:
        r = f()
        print(name, r is o, o, o._version, o.dtype, o.requires_grad)
    except Exception as e:
        print(name, type(e).__name__, e)
for make in [lambda: torch.empty(0), lambda: torch.empty(0, dtype=torch.float64),
             lambda: torch.zeros(4), lambda: torch.zeros(2, 3),
             lambda: torch.empty(0, dtype=torch.long), lambda: torch.zeros(6).t(),
             lambda: torch.empty(0, requires_grad=True), lambda: torch.zeros(3, 3)[:, 0],
             lambda: torch.empty(0, dtype=torch.float16)]:
    o = make(); show("randn", lambda: torch.randn(2, 3, out=o))
    o = make(); show("rand", lambda: torch.rand(2, 3, out=o))
    o = make(); show("rand_dtype", lambda: torch.rand(2, out=o, dtype=torch.float64))
    o = make(); show("randn_size", lambda: torch.randn((3,), out=o))
    o = make(); show("randn_rg", lambda: torch.randn(2, out=o, requires_grad=True))
    o = make(); show("randn_gen", lambda: torch.randn(2, out=o,
                                                       generator=torch.Generator().manual_seed(3)))
with torch.no_grad():
    o = torch.empty(0, requires_grad=True); show("nograd", lambda: torch.randn(2, out=o))
latent = torch.FloatTensor(2, 3)
torch.randn(*latent.size(), out=latent)
print(latent, torch.rand(2, 1, 1, out=latent.data.new()))
"""


def test_rand_and_randn_with_out_like_torch() -> None:
    """`out=` is resized and filled in its own dtype, with torch's checks and versions."""
    assert gradtrace_output(RANDOM_OUT) == torch_output(RANDOM_OUT)


HALF_UNIFORM = """import torch
for lo, hi in [(0, 1), (-2.3, 5.1), (0.1, 0.3), (-3, -1)]:
    torch.manual_seed(0)
    print(torch.empty(40, dtype=torch.float16).uniform_(lo, hi))
torch.manual_seed(3)
print(torch.rand(3, 5, dtype=torch.float16), torch.rand_like(torch.ones(7, dtype=torch.float16)))
"""


def test_float16_uniform_draws_like_torch() -> None:
    """A float16 rand/uniform_ is the float32 draw rounded (torch 2.13, measured)."""
    assert gradtrace_output(HALF_UNIFORM) == torch_output(HALF_UNIFORM)
