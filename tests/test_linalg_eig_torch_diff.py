"""Differential tests against live PyTorch 2.13: torch.linalg.eig and torch.linalg.eigvals.

Forward: MKL's ?geev as torch's apply_linalg_eig calls it, a real input's (wr, wi) pairs
and real vector columns made complex as linalg_eig_make_complex_eigenvectors makes them;
the eigenvalues and eigenvectors are compared bit for bit (tolist() of view_as_real, as
hex) on seeded random matrices, float32, float64, complex64 and complex128, single and
batched, with eigenvectors (eig, or eigvals of a matrix that needs a gradient) and without
(eigvals), as are printing, layouts and torch's errors.

Autograd: LinalgEigBackward0's name, next_functions and saved eigenvalues/eigenvectors;
the gradients of losses of the eigenvalues (linalg_eig_backward's V⁻ᴴ diag(gL) Vᴴ, a real
input getting the real part) bit for bit; torch's error when a loss depends on the
eigenvectors' phases; gradtrace's refusal of other eigenvector gradients; and a
finite-difference gradcheck in float64.

Skipped unless torch is importable.
"""
from __future__ import annotations

import numpy as np
import pytest
from mkl_skip import needs_mkl
from ops_helpers import TORCH as gt_torch
from ops_helpers import finite_difference_tests
from script_runs import address_free, each_expression, gradtrace_output, torch_output

from gradtrace.runner import run_text

torch = pytest.importorskip("torch")


def _bits_script(dtype: str, complex_input: bool, count: int, call: str) -> str:
    """A script printing, for `count` seeded random matrices of assorted sizes and batches,
    the hex bits of `call`'s results (`A` the matrix)."""
    make = f"torch.randn(shape, dtype=torch.{dtype})"
    if complex_input:
        make = f"torch.complex({make}, {make})"
    return f"""import torch
torch.manual_seed(12)
for i in range({count}):
    n = int(torch.randint(1, 13, ()).item())
    b = int(torch.randint(0, 3, ()).item())
    shape = (n, n) if b == 0 else (b, n, n)
    A = {make}
    out = {call}
    for t in (out if isinstance(out, tuple) else (out,)):
        print(i, tuple(t.shape), t.stride(), [x.hex() for x in
              torch.view_as_real(t).flatten().tolist()])
"""


CALLS = {
    "eig": "torch.linalg.eig(A)",
    "eigvals": "torch.linalg.eigvals(A)",
    "eigvals_grad": "torch.linalg.eigvals(A.requires_grad_()).detach()",
}


@needs_mkl
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("call", list(CALLS))
def test_eig_results_are_torchs_bits(dtype: str, call: str) -> None:
    """40 random matrices (n from 1 to 12, batches of up to 2) per dtype and call: the
    eigenvalues, the eigenvectors (column-major, batch outermost) and their strides are
    torch's, to the bit. eigvals without a gradient runs geev without eigenvectors, whose
    eigenvalues may differ from eig's in the last bits (as torch's do)."""
    complex_input = dtype.startswith("complex")
    part = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    script = _bits_script(part, complex_input, 40, CALLS[call])
    assert gradtrace_output(script) == torch_output(script)


PRINTED = """import torch
torch.manual_seed(0)
A = torch.randn(4, 4)
L, V = torch.linalg.eig(A)
print(L)
print(V)
print(torch.linalg.eig(A))
print(L.dtype, V.dtype, L.stride(), V.stride(), V.is_contiguous(), V.mT.is_contiguous())
print(V.real)
print(L.imag)
B = torch.randn(2, 3, 3, dtype=torch.float64)
print(torch.linalg.eig(B))
print(torch.linalg.eigvals(B), torch.linalg.eigvals(B).stride())
print(torch.linalg.eig(torch.eye(3)))
print(torch.linalg.eig(torch.tensor([[0., -1.], [1., 0.]])))
print(torch.linalg.eig(torch.zeros(0, 0)), torch.linalg.eigvals(torch.zeros(2, 0, 0)))
C = torch.complex(torch.randn(2, 2), torch.randn(2, 2))
print(torch.linalg.eig(C))
print(torch.linalg.eigvals(C.to(torch.complex128)))
print(torch.linalg.eigvals(torch.tensor([[1., float('nan')], [0., 1.]])))
print(L.tolist())
"""


def test_eig_prints_like_torch() -> None:
    """The named tuple, complex printing, dtypes, strides, .real/.imag of the results,
    rotations (a conjugate pair), empty matrices, complex inputs, and eigvals' missing
    check for NaNs (geev without eigenvectors)."""
    assert gradtrace_output(PRINTED) == torch_output(PRINTED)


ERRORS = [
    "torch.linalg.eig(torch.randn(3, 4))", "torch.linalg.eigvals(torch.randn(3, 4))",
    "torch.linalg.eig(torch.randn(3))", "torch.linalg.eigvals(torch.randn(3))",
    "torch.linalg.eig(torch.arange(3))", "torch.linalg.eigvals(torch.arange(6).reshape(2, 3))",
    "torch.linalg.eig(torch.ones(2, 2, dtype=torch.bool))",
    "torch.linalg.eig(torch.ones(2, 2, dtype=torch.bfloat16))",
    "torch.linalg.eig(torch.ones(2, 3, dtype=torch.bfloat16))",
    "torch.linalg.eig(torch.tensor([[1., float('nan')], [0., 1.]]))",
    "torch.linalg.eig(torch.tensor([[1., float('inf')], [0., 1.]], dtype=torch.float64))",
    "torch.linalg.eigvals(torch.tensor([[1., float('inf')], [0., 1.]], requires_grad=True))",
]


def test_eig_errors_are_torchs() -> None:
    """torch's order (the complex result dtype, two dimensions, square, the kernel's dtypes,
    finite values when eigenvectors are computed) and wording."""
    script = each_expression(ERRORS)
    assert gradtrace_output(script) == torch_output(script)


GRAPH = """import torch
torch.manual_seed(1)
A = torch.randn(3, 3, requires_grad=True)
L, V = torch.linalg.eig(A)
print(L.grad_fn, V.grad_fn is L.grad_fn, L.grad_fn.next_functions)
print(L.grad_fn._saved_eigenvalues)
print(L.grad_fn._saved_eigenvectors)
print(L.requires_grad, V.requires_grad, L.is_leaf)
W = torch.linalg.eigvals(A)
print(W.grad_fn, W.grad_fn.next_functions)
print(W.grad_fn._saved_eigenvectors)
with torch.no_grad():
    print(torch.linalg.eigvals(A).grad_fn, torch.linalg.eig(A)[1].requires_grad)
print(torch.linalg.eigvals(A.detach()).grad_fn)
B = torch.randn(2, 3, 3, dtype=torch.float64).requires_grad_()
print(torch.linalg.eig(B * 2).eigenvalues.grad_fn.next_functions)
"""


def test_eig_node_and_saved_values_are_torchs() -> None:
    """LinalgEigBackward0 for eig and for eigvals of a matrix needing a gradient (both
    outputs saved, eigenvectors computed), none without a gradient."""
    assert address_free(gradtrace_output(GRAPH)) == address_free(torch_output(GRAPH))


LOSSES = [
    "torch.linalg.eigvals(A).real.sum()",
    "(torch.linalg.eigvals(A).imag * w).sum()",
    "torch.linalg.eig(A)[0].real.sum()",
    "(torch.linalg.eigvals(A) * c).real.sum()",
    "torch.view_as_real(torch.linalg.eigvals(A)).pow(2).sum()",
    "(torch.linalg.eigvals(A).imag ** 2).sum() + torch.linalg.eigvals(A).real.sum() * 0.5",
]


def _grad_script(seed: int, dtype: str, shape: tuple[int, ...], loss: str,
                 complex_input: bool) -> str:
    make = f"torch.randn({shape}, dtype=torch.{dtype})"
    if complex_input:
        make = f"torch.complex({make}, {make})"
    n = shape[-1]
    return f"""import torch
torch.manual_seed({seed})
A = {make}.requires_grad_()
w = torch.randn({n}, dtype=torch.{dtype})
c = torch.complex(torch.randn({n}, dtype=torch.{dtype}), torch.randn({n}, dtype=torch.{dtype}))
loss = {loss}
loss.backward()
g = torch.view_as_real(A.grad) if A.grad.is_complex() else A.grad
print(A.grad.dtype, tuple(A.grad.shape), [x.hex() for x in g.flatten().tolist()])
"""


def _grad_cases() -> list[tuple[int, str, tuple[int, ...], str, bool]]:
    rng = np.random.default_rng(2026)
    cases = []
    for seed in range(48):
        n = int(rng.integers(1, 9))
        shape = (n, n) if rng.random() < 0.6 else (int(rng.integers(1, 4)), n, n)
        cases.append((seed, ["float32", "float64"][seed % 2], shape,
                      LOSSES[seed % len(LOSSES)], bool(rng.random() < 0.25)))
    return cases


@needs_mkl
@pytest.mark.parametrize(("seed", "dtype", "shape", "loss", "complex_input"), _grad_cases())
def test_eigenvalue_gradients_are_torchs_bits(seed: int, dtype: str, shape: tuple[int, ...],
                                              loss: str, complex_input: bool) -> None:
    """linalg_eig_backward without an eigenvector gradient: linalg.solve(Vᴴ, gL.unsqueeze(-1)
    * Vᴴ) (Vᴴ resolved by the conjugate fallback, the product rounded as mul_kernel rounds
    it, complex getrf + getrs), the real part for a real input; the gradient's bits
    (signed zeros too) are torch's."""
    script = _grad_script(seed, dtype, shape, loss, complex_input)
    assert gradtrace_output(script) == torch_output(script)


PHASE = """import torch
torch.manual_seed(3)
A = torch.randn(3, 3, requires_grad=True)
L, V = torch.linalg.eig(A)
V.real.sum().backward()
"""


def test_phase_dependent_loss_raises_torchs_error() -> None:
    """A loss that changes when an eigenvector is multiplied by e^{iφ}: torch's check in
    linalg_eig_backward (Im diag(Vᴴ gV) not within 1e-2 of zero) and its message."""
    assert gradtrace_output(PHASE) == torch_output(PHASE)
    assert "ill-defined" in torch_output(PHASE)


def test_other_eigenvector_gradients_are_refused() -> None:
    """A phase-invariant loss of the eigenvectors needs complex matmul and division, which
    gradtrace does not compute as torch does: NotSupportedError, not a wrong gradient."""
    script = """import torch
A = torch.randn(3, 3, requires_grad=True)
L, V = torch.linalg.eig(A)
torch.view_as_real(V).pow(2).sum().backward()
"""
    result = run_text(script)
    assert result.error is not None and result.error.kind == "NotSupportedError"
    assert "eigenvectors" in result.error.message


def _square(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Distinct, well-separated eigenvalues (a random matrix plus a spread diagonal)."""
    n = shape[-1]
    return rng.standard_normal(shape) + np.diag(np.arange(1.0, n + 1) * 2)


GRADCHECK = {
    "eigvals_real": (lambda a: gt_torch.real(gt_torch.linalg.eigvals(a)),
                     lambda r: [_square(r, 4, 4)]),
    "eigvals_pairs": (lambda a: gt_torch.view_as_real(gt_torch.linalg.eigvals(a)),
                      lambda r: [r.standard_normal((4, 4))]),
    "eig_values_batched": (lambda a: gt_torch.view_as_real(gt_torch.linalg.eig(a)[0]),
                           lambda r: [r.standard_normal((2, 3, 3))]),
}

test_eig_gradcheck, _ = finite_difference_tests(
    GRADCHECK, [], lambda name: np.random.default_rng([77, sum(map(ord, name))]))
