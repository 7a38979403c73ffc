"""Differential tests against live PyTorch 2.13: torch.linalg.eig and torch.linalg.eigvals.

Forward: MKL's ?geev as torch's apply_linalg_eig calls it, a real input's (wr, wi) pairs
and real vector columns made complex as linalg_eig_make_complex_eigenvectors makes them;
the eigenvalues and eigenvectors are compared bit for bit (tolist() of view_as_real, as
hex) on seeded random matrices, float32, float64, complex64 and complex128, single and
batched, with eigenvectors (eig, or eigvals of a matrix that needs a gradient) and without
(eigvals), as are printing, layouts and torch's errors.

Autograd: LinalgEigBackward0's name, next_functions and saved eigenvalues/eigenvectors;
the gradients of losses of the eigenvalues and of the eigenvectors (linalg_eig_backward
with torch's complex products, quotients and solve; a real input getting the real part)
bit for bit; torch's error when a loss depends on the eigenvectors' phases; forward derivatives
(linalg_eig_jvp) bit for bit; and a finite-difference gradcheck in float64.

Skipped unless torch is importable.
"""
from __future__ import annotations

import numpy as np
import pytest
from mkl_skip import needs_mkl
from ops_helpers import TORCH as gt_torch
from ops_helpers import finite_difference_tests
from script_runs import address_free, each_expression, gradtrace_output, torch_output

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


@needs_mkl
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


META = """import torch
A = torch.empty(2, 3, 3, device="meta")
L, V = torch.linalg.eig(A)
print(L.shape, L.dtype, L.device, V.shape, V.stride(), torch.linalg.eigvals(A).shape)
B = torch.empty(4, 4, device="meta", dtype=torch.float64, requires_grad=True)
L, V = torch.linalg.eig(B)
print(L.dtype, V.dtype, V.stride(), type(L.grad_fn).__name__, L.device)
print(torch.linalg.eigvals(B).shape, torch.linalg.eigvals(B.detach()).dtype)
"""


def test_eig_of_meta_tensors_is_torchs() -> None:
    """On the meta device: shapes, complex dtypes, contiguous results (not LAPACK's
    column-major eigenvectors), no check for NaNs, the node when a gradient is needed."""
    assert gradtrace_output(META) == torch_output(META)


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


@needs_mkl
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
    "torch.linalg.eigvals(A).abs().sum()",
    "(torch.linalg.eigvals(A).abs() * w).sum() + torch.linalg.eig(A)[0].abs().max()",
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
    for seed in range(64):
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


@needs_mkl
def test_phase_dependent_loss_raises_torchs_error() -> None:
    """A loss that changes when an eigenvector is multiplied by e^{iφ}: torch's check in
    linalg_eig_backward (Im diag(Vᴴ gV) not within 1e-2 of zero) and its message."""
    assert gradtrace_output(PHASE) == torch_output(PHASE)
    assert "ill-defined" in torch_output(PHASE)


EIGENVECTOR_LOSSES = [
    "torch.view_as_real(V).pow(2).sum(-1).mul(W).sum()",
    "L.real.sum() + torch.view_as_real(L).pow(2).sum() + torch.view_as_real(V).pow(2).sum()",
    "(V.real ** 2 + V.imag ** 2).mul(W).sum() + (L.imag * w).sum()",
    "V.real.mul(W).sum() + L.real.sum()",
]


def _eigenvector_script(seed: int, dtype: str, shape: tuple[int, ...], loss: str,
                        kind: str) -> str:
    make = {"real": f"torch.randn({shape}, dtype=torch.{dtype})",
            "complex": f"torch.complex(torch.randn({shape}, dtype=torch.{dtype}), "
                       f"torch.randn({shape}, dtype=torch.{dtype}))",
            "symmetric": f"(lambda M: M + M.mT)(torch.randn({shape}, dtype=torch.{dtype}))"}
    return f"""import torch
torch.manual_seed({seed})
A = {make[kind]}.requires_grad_()
W = torch.randn({shape}, dtype=torch.{dtype})
w = torch.randn({shape[-1]}, dtype=torch.{dtype})
L, V = torch.linalg.eig(A)
loss = {loss}
loss.backward()
g = torch.view_as_real(A.grad) if A.grad.is_complex() else A.grad
print(A.grad.dtype, [x.hex() for x in g.flatten().tolist()])
"""


def _eigenvector_cases() -> list[tuple[int, str, tuple[int, ...], str, str]]:
    rng = np.random.default_rng(2027)
    cases = []
    for seed in range(56):
        loss = EIGENVECTOR_LOSSES[seed % len(EIGENVECTOR_LOSSES)]
        # V.real depends on the phases unless the eigenvectors are real: symmetric A
        kind = "symmetric" if loss.startswith("V.real") else (
            "complex" if rng.random() < 0.25 else "real")
        n = int(rng.integers(1, 11))
        batch = [(), (), (2,), (3,), (2, 2)][int(rng.integers(0, 5))]
        cases.append((seed, ["float32", "float64"][seed % 2], (*batch, n, n), loss, kind))
    return cases


@needs_mkl
@pytest.mark.parametrize(("seed", "dtype", "shape", "loss", "kind"), _eigenvector_cases())
def test_eigenvector_gradients_are_torchs_bits(seed: int, dtype: str, shape: tuple[int, ...],
                                               loss: str, kind: str) -> None:
    """linalg_eig_backward with an eigenvector gradient: Vᴴ gV and the other products as
    torch runs them (mm: MKL's cgemm/zgemm through addmm_impl_cpu_'s layouts; bmm of a
    batch: ATen's own unfused loop below 400 multiply-adds, MKL's batched gemm above; the
    conjugate resolved), the projection with mul_kernel's products, the division by
    conj(E) rounded as c10::complex's operator/ (FMA-contracted, complex64's basic_loop
    numerators not), gL on the diagonal, then the complex solve: the gradient's bits are
    torch's."""
    script = _eigenvector_script(seed, dtype, shape, loss, kind)
    assert gradtrace_output(script) == torch_output(script)


@needs_mkl
def test_phase_check_comes_first_for_batches() -> None:
    """The phase check runs on the whole batch before any product of the formula."""
    phase = PHASE.replace("torch.randn(3, 3,", "torch.randn(2, 3, 3,")
    assert gradtrace_output(phase) == torch_output(phase)


@needs_mkl
def test_complex_bmm_is_torchs() -> None:
    """blas.bmm of complex batches against torch.matmul with a conjugated operand (V.mH of
    a column-major V, as the backward multiplies): ATen's loop and MKL's batched gemm."""
    from gradtrace.engine import blas

    rng = np.random.default_rng(6)
    for dt in (np.complex64, np.complex128):
        for n, b in [(1, 2), (3, 3), (7, 2), (8, 2), (13, 3), (20, 1)]:
            v = (rng.standard_normal((b, n, n)) + 1j * rng.standard_normal((b, n, n))).astype(dt)
            g = (rng.standard_normal((b, n, n)) + 1j * rng.standard_normal((b, n, n))).astype(dt)
            vt = torch.from_numpy(v).mT.contiguous().mT
            vh = np.conj(np.swapaxes(vt.numpy(), -1, -2))
            for ours, theirs in ((blas.bmm(vh, g), torch.matmul(vt.mH, torch.from_numpy(g))),
                                 (blas.bmm(g, vh), torch.matmul(torch.from_numpy(g), vt.mH))):
                assert np.array_equal(np.ascontiguousarray(ours).view(np.uint8),
                                      theirs.numpy().view(np.uint8)), (dt, n, b)


def test_complex_division_is_torchs() -> None:
    """engine/complex.py's divide against torch's div_ (in place) and / (into a fresh
    output: GCC's other loop) on contiguous complex operands of many lengths (its vector
    body, the basic_loop tail, two threads' chunks) and zero divisors, bit for bit."""
    from gradtrace.engine import complex as complex_ops

    rng = np.random.default_rng(5)
    for dt in (np.complex64, np.complex128):
        for shape in [(k,) for k in range(1, 30)] + [(7, 7), (2, 5, 5), (190, 190)]:
            a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
            e = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
            e[..., 0] = 0
            x = torch.from_numpy(a.copy())
            x.div_(torch.from_numpy(e))
            with complex_ops.into_operand():
                ours = np.ascontiguousarray(complex_ops.divide(a, e))
            assert np.array_equal(x.numpy().view(np.uint8), ours.view(np.uint8)), (dt, shape)
            y = torch.from_numpy(a) / torch.from_numpy(e)
            ours = np.ascontiguousarray(complex_ops.divide(a, e))
            assert np.array_equal(y.numpy().view(np.uint8), ours.view(np.uint8)), (dt, shape)


FORWARD_AD = """import torch
import torch.autograd.forward_ad as fwAD
torch.manual_seed(5)
def bits(t):
    t = torch.view_as_real(t) if t.is_complex() else t
    return [x.hex() for x in t.flatten().tolist()]
for dt in (torch.float32, torch.float64):
    for shape in [(2, 2), (3, 3), (5, 5), (2, 4, 4), (9, 9), (2, 2, 3, 3)]:
        A = torch.randn(shape, dtype=dt)
        T = torch.randn(shape, dtype=dt)
        with fwAD.dual_level():
            L, V = torch.linalg.eig(fwAD.make_dual(A, T))
            dL, dV = fwAD.unpack_dual(L).tangent, fwAD.unpack_dual(V).tangent
            print(bits(dL), bits(dV), dL.stride(), dV.stride())
            print(bits(fwAD.unpack_dual(torch.linalg.eigvals(fwAD.make_dual(A, T))).tangent))
        C = torch.complex(torch.randn(shape, dtype=dt), torch.randn(shape, dtype=dt))
        with fwAD.dual_level():
            L, V = torch.linalg.eig(fwAD.make_dual(C, C.flip(-1)))
            print(bits(fwAD.unpack_dual(L).tangent), bits(fwAD.unpack_dual(V).tangent))
"""


@needs_mkl
def test_forward_derivatives_are_torchs_bits() -> None:
    """linalg_eig_jvp: solve(V, dA V) (dA cast to complex), its diagonal, the division by
    E (a column-major dP over a row-major E: div_true_kernel's strided rows), V times it,
    minus V diag(re(Vᴴ dX)); tangents in their primal's layout; eigvals of a dual matrix
    goes through linalg.eig, as torch's _may_require_fw_or_bw_grad sends it."""
    assert gradtrace_output(FORWARD_AD) == torch_output(FORWARD_AD)


def _square(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Distinct, well-separated eigenvalues (a random matrix plus a spread diagonal)."""
    n = shape[-1]
    return rng.standard_normal(shape) + np.diag(np.arange(1.0, n + 1) * 2)


def _values_and_moduli(result):
    """Phase-invariant outputs of eig: the eigenvalues' parts and |V_ij|²."""
    values, vectors = result
    return (gt_torch.view_as_real(values),
            gt_torch.view_as_real(vectors).pow(2).sum(-1))


GRADCHECK = {
    "eigvals_real": (lambda a: gt_torch.real(gt_torch.linalg.eigvals(a)),
                     lambda r: [_square(r, 4, 4)]),
    "eigvals_pairs": (lambda a: gt_torch.view_as_real(gt_torch.linalg.eigvals(a)),
                      lambda r: [r.standard_normal((4, 4))]),
    "eig_values_batched": (lambda a: gt_torch.view_as_real(gt_torch.linalg.eig(a)[0]),
                           lambda r: [r.standard_normal((2, 3, 3))]),
    "eig_vectors_moduli": (lambda a: gt_torch.view_as_real(gt_torch.linalg.eig(a)[1])
                           .pow(2).sum(-1), lambda r: [_square(r, 4, 4)]),
    "eig_both": (lambda a: _values_and_moduli(gt_torch.linalg.eig(a)),
                 lambda r: [r.standard_normal((3, 3))]),
    "eig_both_batched": (lambda a: _values_and_moduli(gt_torch.linalg.eig(a)),
                         lambda r: [r.standard_normal((2, 3, 3))]),
}

test_eig_gradcheck, _ = finite_difference_tests(
    GRADCHECK, [], lambda name: np.random.default_rng([77, sum(map(ord, name))]))
