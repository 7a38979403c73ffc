"""Differential tests against live PyTorch for torch.linalg and the classic linear-algebra
functions: values, gradients, node names, next_functions, saved values and errors
(check_case of test_ops_torch_diff), plus bit-for-bit forward values of the
factorizations (MKL's LAPACK, as torch calls it).

Skipped unless torch is importable.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from mkl_skip import OTHER_KERNELS, needs_mkl  # noqa: E402
from test_ops_torch_diff import (  # noqa: E402
    _gt_env,
    _inputs,
    _run,
    _tensors,
    _torch_env,
    check_case,
)

from gradtrace.engine.tensor import Tensor  # noqa: E402

# square and symmetric positive-definite matrices from the shared inputs
A = "A = M @ x + torch.eye(3)\n"
S = "S = M @ M.t() + torch.eye(3)\n"
SB = "SB = B @ B.mT + torch.eye(2)\n"
AB = "AB = B @ B.mT + B[:, :, :2]\n"

CASES = [
    # determinants
    A + "out = torch.linalg.det(A)", A + "out = torch.det(A)", A + "out = A.det()",
    AB + "out = torch.linalg.det(AB)", A + "out = torch.linalg.det(A.t())",
    A + "out = torch.linalg.slogdet(A)", A + "out = torch.slogdet(A)",
    A + "out = torch.linalg.slogdet(A)[1]", S + "out = torch.logdet(S)",
    A + "out = torch.logdet(-A)", "torch.linalg.det(x)", "torch.linalg.det(v)",
    "torch.linalg.det(tgt)", "torch.det(torch.zeros(3, 3))", "torch.logdet(x)",
    # inverse and solve
    A + "out = torch.linalg.inv(A)", A + "out = torch.inverse(A)", A + "out = A.inverse()",
    AB + "out = torch.linalg.inv(AB)", A + "out = torch.linalg.inv_ex(A)",
    "torch.linalg.inv(torch.zeros(3, 3))", "torch.linalg.inv(x)",
    "torch.linalg.inv_ex(torch.zeros(3, 3))", "torch.linalg.inv(torch.zeros(2, 3, 3))",
    A + "out = torch.linalg.solve(A, v)", A + "out = torch.linalg.solve(A, M)",
    AB + "out = torch.linalg.solve(AB, B)", AB + "out = torch.linalg.solve(AB, B[0])",
    A + "out = torch.linalg.solve(A, C)", A + "out = torch.linalg.solve_ex(A, M)",
    "torch.linalg.solve(torch.zeros(3, 3), v)", A + "out = torch.linalg.solve(A, x)",
    A + "out = torch.linalg.solve(A, x64.t())", "torch.linalg.solve(x, v)",
    A + "out = torch.linalg.solve_triangular(A.triu(), M, upper=True)",
    A + "out = torch.linalg.solve_triangular(A.tril(), M, upper=False)",
    A + "out = torch.linalg.solve_triangular(A.triu(), x, upper=True, left=False)",
    A + "out = torch.linalg.solve_triangular(A, M, upper=False, unitriangular=True)",
    A + "out = torch.linalg.solve_triangular(A, v, upper=True)",
    # Cholesky
    S + "out = torch.linalg.cholesky(S)", S + "out = torch.linalg.cholesky(S, upper=True)",
    SB + "out = torch.linalg.cholesky(SB)", S + "out = torch.linalg.cholesky_ex(S)",
    "torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))",
    "torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))",
    "torch.linalg.cholesky(x)", S + "out = torch.cholesky(S)", "torch.cholesky(x)",
    # QR
    "torch.linalg.qr(M)", "torch.linalg.qr(x)", "torch.linalg.qr(B)", "torch.linalg.qr(C)",
    "torch.linalg.qr(x, mode='complete')",
    "torch.linalg.qr(M, mode='r')", "torch.linalg.qr(M)[0]", "torch.linalg.qr(M)[1]",
    "torch.linalg.qr(v)",
    "torch.linalg.qr(M, mode='foo')", "torch.linalg.qr(tgt.reshape(1, 2))",
    # SVD
    "torch.linalg.svd(M, full_matrices=False)", "torch.linalg.svd(x, full_matrices=False)",
    "torch.linalg.svd(B, full_matrices=False)", "torch.linalg.svdvals(M)",
    "torch.linalg.svdvals(C)", "torch.linalg.svd(M, full_matrices=False)[1]",
    "torch.linalg.svd(M, full_matrices=False)[0]", "torch.linalg.svd(x, full_matrices=False)[2]",
    "torch.svd(M)", "torch.svd(x)[1]", "torch.svd(M, some=False)", "torch.qr(M)",
    "torch.svd(M, compute_uv=False)", "torch.linalg.svd(v)", "torch.linalg.svdvals(tgt)",
    # symmetric eigen-decomposition
    S + "out = torch.linalg.eigh(S)", S + "out = torch.linalg.eigvalsh(S)",
    S + "out = torch.linalg.eigh(S)[0]", S + "out = torch.linalg.eigh(S, UPLO='U')",
    SB + "out = torch.linalg.eigh(SB)", "torch.linalg.eigh(x)",
    S + "out = torch.linalg.eigh(S, UPLO='X')",
    # pseudo-inverse and rank
    "torch.linalg.pinv(M)", "torch.linalg.pinv(x)", "torch.pinverse(M)", "M.pinverse()",
    "torch.linalg.pinv(B)", "torch.linalg.pinv(v)", "torch.linalg.matrix_rank(M)",
    "torch.linalg.matrix_rank(M @ x)", "torch.linalg.matrix_rank(B)",
    # least squares (gelsy)
    "torch.linalg.lstsq(M, x.t())", "torch.linalg.lstsq(M, x.t()).solution",
    "torch.linalg.lstsq(x, y[:, :2])", "torch.linalg.lstsq(B, B[:, :, :2])",
    "torch.linalg.lstsq(M @ x, M)", "torch.linalg.lstsq(M, x)",
    # least squares with the other drivers: residuals (differentiable) and singular values
    "torch.linalg.lstsq(M, x.t(), driver='gels')",
    "torch.linalg.lstsq(M, x.t(), driver='gelsd')",
    "torch.linalg.lstsq(M, x.t(), driver='gelss')",
    "torch.linalg.lstsq(x, y[:, :2], driver='gels')",
    "torch.linalg.lstsq(B.mT, C, driver='gelsd')",
    "torch.linalg.lstsq(B.mT[:1], C, driver='gelss')",
    "torch.linalg.lstsq(x, y[:, :2], driver='gelsd')",
    "torch.linalg.lstsq(M, x.t(), driver='foo')",
    "torch.linalg.lstsq(M, x.t(), driver='gelsd').residuals",
    "torch.linalg.lstsq(torch.zeros(4, 2, 2), B, driver='gels')",
    "torch.linalg.lstsq(torch.zeros(2, 2), x, driver='gels')",
    "torch.linalg.lstsq(M @ x, M, driver='gelss')",
    # a vector B (one column per matrix): the solution and B's gradient are vectors too
    "torch.linalg.lstsq(M, v, driver='gelsd')", "torch.linalg.lstsq(M, x[0], driver='gels')",
    "torch.linalg.lstsq(B.mT, B[:, 0], driver='gelss')", "torch.linalg.lstsq(B, v)",
    "torch.linalg.lstsq(B.mT[:1], B[:, 0], driver='gelss')", "torch.linalg.lstsq(M, M[0])",
    "torch.linalg.lstsq(v, v)", "torch.linalg.lstsq(M, torch.tensor(1.0))",
]


COMPOSITE = [
    # tensordot, inner, kron, vdot
    "torch.tensordot(M, x, dims=1)", "torch.tensordot(B, x, dims=([1], [0]))",
    "torch.tensordot(B, C, dims=([0, 2], [0, 1]))", "torch.tensordot(v, u, dims=0)",
    "torch.tensordot(B, M, dims=([2, 1], [0, 1]))", "torch.tensordot(x, y, dims=2)",
    "torch.tensordot(M, x, dims=([1], [1]))", "torch.tensordot(x, M, dims=3)",
    "torch.tensordot(x, x64, dims=1)", "torch.inner(x, y)", "torch.inner(v, u)",
    "torch.inner(B, x)", "x.inner(y)", "torch.inner(x, M)", "torch.kron(x, M)",
    "torch.kron(v, u)", "torch.kron(B, x)", "x.kron(v)", "torch.vdot(v, u)", "v.vdot(u)",
    "torch.vdot(v, x)",
    # multi_dot and chain_matmul
    "torch.linalg.multi_dot([x, M])", "torch.linalg.multi_dot([M, x, M])",
    "torch.linalg.multi_dot([x, M, x, M])", "torch.linalg.multi_dot([v, M.t(), x, v])",
    "torch.linalg.multi_dot([v, x.t()])", "torch.linalg.multi_dot([x])",
    "torch.linalg.multi_dot([x, x])", "torch.linalg.multi_dot([x, B])",
    "torch.linalg.multi_dot((M, x, M, x, M))", "torch.chain_matmul(M, x, M)",
    # vecdot, diagonal
    "torch.linalg.vecdot(x, y)", "torch.linalg.vecdot(x, v)", "torch.linalg.vecdot(B, x, dim=1)",
    "torch.linalg.diagonal(B)", "torch.linalg.diagonal(C, offset=1)",
    # matrix_power
    A + "out = torch.linalg.matrix_power(A, 0)", A + "out = torch.linalg.matrix_power(A, 1)",
    A + "out = torch.linalg.matrix_power(A, 2)", A + "out = torch.linalg.matrix_power(A, 3)",
    A + "out = torch.linalg.matrix_power(A, 5)", A + "out = torch.linalg.matrix_power(A, -2)",
    A + "out = A.matrix_power(6)", "torch.linalg.matrix_power(x, 2)",
    "torch.linalg.matrix_power(torch.zeros(3, 3), -1)",
    # matrix norms
    "torch.linalg.matrix_norm(x)", "torch.linalg.matrix_norm(x, 'nuc')",
    "torch.linalg.matrix_norm(M, 2)", "torch.linalg.matrix_norm(M, -2)",
    "torch.linalg.matrix_norm(M, 1)", "torch.linalg.matrix_norm(M, -1)",
    "torch.linalg.matrix_norm(M, float('inf'))", "torch.linalg.matrix_norm(M, -float('inf'))",
    "torch.linalg.matrix_norm(B, keepdim=True)", "torch.linalg.matrix_norm(B, 1, keepdim=True)",
    "torch.linalg.matrix_norm(B, 'nuc', keepdim=True)", "torch.linalg.matrix_norm(B, 2)",
    "torch.linalg.matrix_norm(B, 1, dim=(0, 2))", "torch.linalg.matrix_norm(v)",
    "torch.linalg.matrix_norm(x, 3)", "torch.linalg.norm(x, 'fro')", "torch.linalg.norm(x, 2)",
    "torch.linalg.norm(x, 'nuc')", "torch.linalg.norm(x, 1)", "torch.linalg.norm(v, 1)",
    "torch.linalg.norm(B, dim=(1, 2))", "torch.linalg.norm(x, float('inf'))",
    "torch.norm(x, p='nuc')", "x.norm(p='fro')", "torch.norm(x, 'fro')",
    # cdist: the direct kernel, and the matrix-product path past 25 rows
    "torch.cdist(x, y)", "torch.cdist(x, M.t(), p=1)", "torch.cdist(B, x)",
    "torch.cdist(x, y, p=0)", "torch.cdist(x, y, p=float('inf'))", "torch.cdist(x, y, p=3)",
    "torch.cdist(x, y, p=1.5)", "torch.cdist(B, C.mT, p=2)", "torch.cdist(x, x)",
    "torch.cdist(x, y, compute_mode='use_mm_for_euclid_dist')",
    "torch.cdist(B, x, compute_mode='use_mm_for_euclid_dist')",
    "torch.cdist(emb.repeat(3, 1), M.t())", "torch.cdist(emb.repeat(3, 1), emb)",
    "torch.cdist(x, y, compute_mode='x')", "torch.cdist(v, x)", "torch.cdist(x, M)",
    "torch.cdist(x, y, p=-1)",
    # condition number
    A + "out = torch.linalg.cond(A)", "torch.linalg.cond(x)", "torch.linalg.cond(M, -2)",
    A + "out = torch.linalg.cond(A, 'nuc')", A + "out = torch.linalg.cond(A, 'fro')",
    A + "out = torch.linalg.cond(A, 1)", A + "out = torch.linalg.cond(A, -float('inf'))",
    "torch.linalg.cond(M @ x, 1)", "torch.linalg.cond(M @ x, 'nuc')",
    "torch.linalg.cond(torch.zeros(2, 2), 'fro')", "torch.linalg.cond(B.mT @ B, -1)",
]


@pytest.mark.parametrize("code", CASES)
def test_factorizations_match_torch(code: str) -> None:
    check_case(code)


@pytest.mark.parametrize("code", COMPOSITE)
def test_composite_functions_match_torch(code: str) -> None:
    check_case(code)


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    ints = np.int32 if a.dtype == np.float32 else np.int64
    return int(np.abs(a.view(ints).astype(np.int64) - b.view(ints).astype(np.int64)).max()) \
        if a.size else 0


# cdist's backward kernel for 1 < p < 2 (a pow and a division per term) is modelled, not
# copied: its float32 gradients may differ from torch's in the last bit or two. lstsq's
# default driver gelsy pivots by torch's jpvt, an at::empty buffer: its first matrix's
# pivoting is whatever the heap held (engine/lapack.py gels_family)
NOT_BIT_EXACT = {"torch.cdist(x, y, p=1.5)",
                 *(c for c in CASES if "lstsq" in c and "driver=" not in c)}
# exact on an AMD CPU; on an Intel one the gradient of an A broadcast over B's batch differs
# from torch's in the last place (2-4 of 6 elements), the same A unbroadcast does not:
# which of the backward's products torch runs through MKL there is not yet located
UNLOCATED_ON_OTHER_KERNELS = {"torch.linalg.lstsq(B.mT[:1], C, driver='gelss')"}


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("code", [c for c in CASES + COMPOSITE if c not in NOT_BIT_EXACT])
def test_values_and_gradients_are_torchs_bits(code: str, dtype: type) -> None:
    """MKL's LAPACK called as torch calls it, and the backward formulas op for op: every
    output and every gradient has torch's bits (float32 and float64)."""
    if OTHER_KERNELS and code in UNLOCATED_ON_OTHER_KERNELS:
        pytest.skip("exact on an AMD CPU; on this one MKL runs other kernels, and which of "
                    "this backward's steps they change is not yet located")
    arrays = {k: (a.astype(dtype) if a.dtype.kind == "f" else a)
              for k, a in _inputs(0).items()}
    tenv, genv = _torch_env(arrays), _gt_env(arrays)
    try:
        tout = _run(code, tenv)
    except Exception:  # noqa: BLE001 - the error cases are check_case's
        return
    gout = _run(code, genv)
    touts, gouts = _tensors(tout), _tensors(gout)
    rng = np.random.default_rng(1)
    tloss = gloss = None
    for tt, gg in zip(touts, gouts, strict=True):
        assert _ulps(gg.array, tt.detach().numpy()) == 0 if tt.is_floating_point() else \
            np.array_equal(gg.array, tt.numpy())
        if tt.requires_grad:
            w = rng.standard_normal(tuple(tt.shape)).astype(dtype)
            tloss = (tt * torch.tensor(w)).sum() + (0 if tloss is None else tloss)
            gloss = (gg * Tensor(w)).sum() + (0 if gloss is None else gloss)
    if tloss is None:
        return
    try:
        tloss.backward()
    except RuntimeError:
        return
    gloss.backward()
    for name in arrays:
        if tenv[name].grad is not None:
            assert _ulps(genv[name].grad.array, tenv[name].grad.numpy()) == 0, name


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelsy_batch_after_the_first_matrix_does_not_pivot(dtype: type) -> None:
    """torch reuses one jpvt buffer over a batch, so every matrix after the first starts
    from the permutation before it (all columns fixed): those solutions are torch's bits,
    whatever the first one's uninitialised jpvt held."""
    from gradtrace.engine.ops.spectral import lstsq

    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6, 4)).astype(dtype)
    b = rng.standard_normal((4, 6, 2)).astype(dtype)
    ours = lstsq(Tensor(a), Tensor(b)).solution.array
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b)).solution.numpy()
    assert _ulps(ours[1:], theirs[1:]) == 0
