"""Differential tests against live PyTorch 2.13 for the gaps the realworld corpus's round 55
(state-space and modern sequence models) found: S4's nplr() diagonalises the HiPPO matrix
with torch.linalg.eigh of a complex128 (Hermitian) matrix, which was refused, and writes
complex numbers into complex tensors by `V[1, -1] = 2**-0.5 * 1j`, which was refused with
a TypeError torch does not raise.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from mkl_skip import needs_mkl
from script_runs import gradtrace_output, run_text, torch_output

torch = pytest.importorskip("torch")


HERMITIAN = """import torch
torch.manual_seed(0)
def bits(t):
    t = torch.view_as_real(t) if t.is_complex() else t
    return t.flatten().tolist()
def hermitian(*shape, dtype=torch.float32):
    re = torch.randn(*shape, dtype=dtype)
    im = torch.randn(*shape, dtype=dtype)
    return torch.complex(re + re.transpose(-1, -2), im - im.transpose(-1, -2))
for dtype in (torch.float32, torch.float64):
    for shape in ((1, 1), (2, 2), (5, 5), (3, 4, 4), (2, 2, 7, 7), (12, 12)):
        a = hermitian(*shape, dtype=dtype)
        w, v = torch.linalg.eigh(a)
        print(a.dtype, shape, w.dtype, v.dtype, v.shape, v.stride())
        print(bits(w))
        print(bits(v))
        wu, vu = torch.linalg.eigh(a, UPLO="U")
        print(bits(wu), bits(vu))
        print(bits(torch.linalg.eigvalsh(a)), bits(torch.linalg.eigvalsh(a, UPLO="U")))
# S4's nplr: a real skew-symmetric-plus-constant-diagonal matrix times -1j, in double
q = torch.arange(8, dtype=torch.float64)
ap = torch.triu(torch.outer(q + 1, q + 2), 1)
ap = ap - ap.T - 0.5 * torch.eye(8, dtype=torch.float64)
w, v = torch.linalg.eigh(ap * -1j)
print(bits(w))
print(bits(v))
r = torch.linalg.eigh(ap.to(torch.complex64) * 1j)
print(type(r).__name__, bits(r.eigenvalues), bits(r.eigenvectors))
"""


@needs_mkl  # (MKL's cheevd/zheevd)
def test_complex_eigh_decomposes_hermitian_matrices_like_torch() -> None:
    """torch.linalg.eigh and eigvalsh of complex64 and complex128 matrices: LAPACK's ?heevd
    from either triangle, with apply_lapack_eigh's workspaces: real eigenvalues (float32 for
    complex64), complex eigenvectors laid out column-major, bit for bit, batched."""
    assert gradtrace_output(HERMITIAN) == torch_output(HERMITIAN)


@pytest.mark.parametrize("expression", [
    "torch.linalg.eigh(h.requires_grad_())",
    "torch.linalg.eigvalsh(h.requires_grad_())",
])
def test_complex_eigh_gradients_are_refused(expression: str) -> None:
    """The Hermitian case of linalg_eig_backward (Vᴴ, complex products) is not written: a
    complex input that needs a gradient is refused, not differentiated wrongly."""
    result = run_text("import torch\n"
                      "h = torch.complex(torch.eye(3), torch.zeros(3, 3))\n"
                      f"{expression}\n")
    assert result.error is not None
    assert result.error.kind == "NotSupportedError", result.error.message
    assert "detach()" in result.error.message
    done = run_text("import torch\n"
                    "h = torch.complex(torch.eye(3), torch.zeros(3, 3)).requires_grad_()\n"
                    "with torch.no_grad():\n    print(torch.linalg.eigh(h).eigenvalues)\n"
                    "print(torch.linalg.eigh(h.detach()).eigenvectors.dtype)\n")
    assert done.error is None
    assert done.stdout == "tensor([1., 1., 1.])\ntorch.complex64\n"


SETITEM = """import torch
import numpy as np
def tryit(dt, v):
    t = torch.zeros(2, dtype=dt)
    try:
        t[0] = v
        print(dt, repr(v), t.tolist())
    except Exception as e:
        print(dt, repr(v), type(e).__name__, e)
tryit(torch.float16, (1e10 + 0j))
tryit(torch.float32, (2.5 + 0j))
tryit(torch.int64, (2.7 + 0j))
tryit(torch.uint8, (-3 + 0j))
tryit(torch.bool, 0j)
tryit(torch.bool, 2j)
tryit(torch.float32, (float("inf") + 0j))
tryit(torch.complex64, (float("nan") + 1j))
tryit(torch.complex64, (1 + 1e300j))
tryit(torch.float64, 1j)
tryit(torch.int32, 1j)
tryit(torch.float32, np.float32(1.5))
tryit(torch.float32, np.float64(1.5))
tryit(torch.int64, np.int32(3))
tryit(torch.complex64, 3)
tryit(torch.complex128, 2**-0.5 * 1j)
tryit(torch.complex64, True)
tryit(torch.complex64, np.float64(2.5))
tryit(torch.float32, np.bool_(True))
tryit(torch.float32, np.uint8(7))
tryit(torch.bool, np.float32(0.5))
t = torch.zeros(3, dtype=torch.complex64); t[:] = 1j; print(t)
t = torch.zeros(3, dtype=torch.complex64); t[torch.tensor([0, 2])] = 2 - 1j; print(t)
t = torch.zeros(3, dtype=torch.complex64); t[torch.tensor([True, False, True])] = 2 - 1j
print(t)
v = torch.zeros(2, 3, dtype=torch.complex128)
v[:, -1] = 0.
v[1, -1] = 2**-0.5 * 1j
print(v)
"""


def test_complex_numbers_and_numpy_scalars_assign_like_torch() -> None:
    """`t[i] = number`: a Python complex into a complex tensor (c10's checked_convert: a part
    past complex64's range is torch's overflow error), into a real one only with a zero
    imaginary part (else the same overflow error), into a bool one as nonzero; numpy scalars
    that are not Python numbers or integers (np.float32, np.bool_) are torch's TypeError."""
    assert gradtrace_output(SETITEM) == torch_output(SETITEM)


TYPE_ALIAS = """import typing
from typing import Any, Optional, TypeAlias, Union
import torch
Device: TypeAlias = str | torch.device | None
print(Device, typing.TypeAlias, TypeAlias)
print(str | torch.device, torch.device | str, torch.Generator | None, int | torch.device | int)
print(isinstance(torch.device("cpu"), Device), isinstance("cpu", Device), isinstance(3, Device))
print(isinstance(None, Device), Device == (torch.device | None | str))
def f(device: Device = None) -> TypeAlias:
    return device
print(f(torch.device("cpu")))
for alias in (TypeAlias, Any, typing.Tuple[int]):
    try:
        alias[int]
    except TypeError as e:
        print("TypeError:", e)
print(Optional[torch.device], Union[str, torch.device])
"""


def test_type_alias_and_unions_with_torch_device_like_python() -> None:
    """mamba2-minimal's `Device: TypeAlias = str | torch.device | None`: typing.TypeAlias is
    a name (not subscriptable), and `|` joins torch.device (the engine's class) with
    Python's classes into a union isinstance accepts; `Any[int]` is Python 3.11's error."""
    assert gradtrace_output(TYPE_ALIAS) == torch_output(TYPE_ALIAS)


DEVICE_STATES = """import torch
from torch.utils.checkpoint import get_device_states, set_device_states
import torch.utils.checkpoint as cp
x = torch.randn(2, requires_grad=True)
print(torch.cuda._initialized, get_device_states(x, 3, [x], {"a": x}), get_device_states())
print(set_device_states([], []), cp.set_device_states([], [], device_type="meta"))
state = torch.get_rng_state()
with torch.random.fork_rng(devices=[], enabled=True):
    torch.set_rng_state(state)
    set_device_states(*get_device_states(x))
    a = torch.rand(3)
b = torch.rand(3)
print(torch.equal(a, b))
"""


def test_device_rng_states_of_a_cpu_only_run_like_torch() -> None:
    """lucidrains' reversible layers (after torch.utils.checkpoint) read
    `torch.cuda._initialized` and call get_device_states/set_device_states: with no
    accelerator, no device ids or states, and setting none is a no-op."""
    assert gradtrace_output(DEVICE_STATES) == torch_output(DEVICE_STATES)



EINSUM_LAYOUTS = """import torch
torch.manual_seed(0)
cases = [('de,nd->ne', (16, 8), (6, 16)), ('ij,jk->ik', (3, 4), (4, 5)),
         ('jk,ij->ik', (4, 5), (3, 4)), ('bij,bjk->bik', (2, 3, 4), (2, 4, 5)),
         ('bjk,bij->bik', (2, 4, 5), (2, 3, 4)), ('ij,jk->ki', (3, 4), (4, 5)),
         ('abc,cd->dab', (2, 3, 4), (4, 5)), ('abc,cd->adb', (2, 3, 4), (4, 5)),
         ('ac,cbd->bad', (2, 4), (4, 3, 5)), ('ac,cbd->dba', (2, 4), (4, 3, 5)),
         ('xac,xcbd->dxab', (6, 2, 4), (6, 4, 3, 5)), ('xij,jkx->kxi', (5, 2, 3), (3, 4, 5)),
         ('aib,bjc->jcai', (2, 3, 4), (4, 5, 6)), ('aib,bjc->jaic', (2, 3, 4), (4, 5, 6)),
         ('xai,xij->jax', (7, 2, 3), (7, 3, 4)), ('ai,ijx->xja', (2, 3), (3, 4, 5)),
         ('i,ij->j', (3,), (3, 4)), ('ij,i->j', (3, 4), (3,)), ('xij,xi->jx', (2, 3, 4), (2, 3)),
         ('ij,ij->i', (3, 4), (3, 4)), ('de,nd->ne', (33, 17), (19, 33)),
         ('bhde,bhnd->bhne', (2, 3, 20, 9), (2, 3, 11, 20))]
for eq, s1, s2 in cases:
    a = torch.randn(*s1, requires_grad=True)
    b = torch.randn(*s2, requires_grad=True)
    r = torch.einsum(eq, a, b)
    (r * torch.randn(r.shape)).sum().backward()
    print(eq, r.stride(), r.sum().item(), a.grad.sum().item(), b.grad.flatten().tolist()[:2])
c, q, d = torch.randn(1, 2, 16, 8), torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6)
r = torch.einsum('...de,...nd,...n->...ne', c, q, d)
print(r.stride(), (r - 1).abs().sum().item(), (r - 1).abs().mean().item())
"""


def test_einsum_swaps_operands_as_torch_so_its_result_is_laid_out_alike() -> None:
    """Performer's `einsum('...de,...nd,...n->...ne', context, q, D_inv)`: torch 2.13's
    sumproduct_pair multiplies right by left when every right-only dim precedes every
    left-only one (pytorch#161755), so its result is contiguous where gradtrace's was
    transposed, and a later sum over it added in another order (1 ulp in a mean). Strides,
    values and gradients for swapped, unswapped and interleaved contractions."""
    assert gradtrace_output(EINSUM_LAYOUTS) == torch_output(EINSUM_LAYOUTS)
