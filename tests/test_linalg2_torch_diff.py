"""Differential tests against live PyTorch for torch.linalg's LU, matrix-exponential,
Householder and LDL families and tensorinv/tensorsolve: values, gradients, node names,
next_functions and errors (check_case of test_ops_torch_diff), and bit-for-bit outputs and
gradients in float32 and float64 (MKL's getrf/getrs/geqrf/orgqr/ormqr/sytrf/sytrs as torch
calls them, matrix_exp's products and linear combinations as LinearAlgebra.cpp's).

Skipped unless torch is importable.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from mkl_skip import needs_mkl  # noqa: E402
from script_runs import gradtrace_output, torch_output  # noqa: E402
from test_linalg_torch_diff import _ulps  # noqa: E402
from test_ops_torch_diff import (  # noqa: E402
    _gt_env,
    _inputs,
    _run,
    _tensors,
    _torch_env,
    check_case,
)

from gradtrace.engine.tensor import Tensor  # noqa: E402

# a square matrix, a batch of them, and LU factors of both (from the shared inputs)
A = "A = M @ x + torch.eye(3)\n"
AB = "AB = B @ B.mT + B[:, :, :2]\n"
F = A + "LU, piv = torch.linalg.lu_factor(A)\n"
S = "S = M @ M.t() - torch.eye(3)\n"
H = "a, tau = torch.geqrf(C[0].t())\n"

CASES = [
    # LU
    A + "out = torch.linalg.lu_factor(A)", A + "out = torch.linalg.lu_factor_ex(A)",
    AB + "out = torch.linalg.lu_factor(AB)", "torch.linalg.lu_factor(x)",
    "torch.linalg.lu_factor(M)", "torch.linalg.lu_factor(C)", "torch.linalg.lu_factor(v)",
    "torch.linalg.lu_factor(torch.zeros(3, 3))", "torch.linalg.lu_factor_ex(torch.zeros(3, 3))",
    "torch.linalg.lu_factor(torch.zeros(2, 3, 3))", "torch.linalg.lu_factor(x, pivot=False)",
    "torch.linalg.lu_factor_ex(torch.zeros(2, 3, 3), check_errors=True)",
    "torch.linalg.lu_factor(tgt.reshape(1, 2))",
    A + "out = torch.linalg.lu(A)", "torch.linalg.lu(x)", "torch.linalg.lu(M)",
    "torch.linalg.lu(B)", "torch.linalg.lu(C)", "torch.linalg.lu(v)",
    A + "out = torch.linalg.lu(A).L", A + "out = torch.linalg.lu(A)[2]",
    F + "out = torch.lu_unpack(LU, piv)", F + "out = torch.lu_unpack(LU, piv)[1]",
    F + "out = torch.lu_unpack(LU, piv, unpack_pivots=False)",
    "torch.lu_unpack(*torch.linalg.lu_factor(C))", "torch.lu_unpack(*torch.linalg.lu_factor(M))",
    F + "out = torch.lu_unpack(LU, (piv * 1.0))", F + "out = torch.lu_unpack(LU, piv + 3)",
    F + "out = torch.linalg.lu_solve(LU, piv, M)", F + "out = torch.linalg.lu_solve(LU, piv, B)",
    F + "out = torch.linalg.lu_solve(LU, piv, M, adjoint=True)",
    F + "out = torch.linalg.lu_solve(LU, piv, x, left=False)",
    F + "out = torch.linalg.lu_solve(LU, piv, x, left=False, adjoint=True)",
    F + "out = torch.linalg.lu_solve(LU, piv, v)", F + "out = torch.linalg.lu_solve(LU, piv, x)",
    F + "out = torch.linalg.lu_solve(LU, piv, x64.t())",
    F + "out = torch.linalg.lu_solve(LU, (piv * 1.0), M)",
    F + "out = torch.linalg.lu_solve(LU[:2], piv, M)",
    F + "out = torch.linalg.lu_solve(LU, piv[:2], M)",
    AB + "LU, piv = torch.linalg.lu_factor(AB)\nout = torch.linalg.lu_solve(LU, piv, M)",
    # matrix exponential
    "torch.linalg.matrix_exp(M @ x)", "torch.linalg.matrix_exp(B @ B.mT)",
    "torch.linalg.matrix_exp(0.01 * M @ x)", "torch.linalg.matrix_exp(0.1 * M @ x)",
    "torch.linalg.matrix_exp(5 * M @ x)", "torch.linalg.matrix_exp(0.01 * B @ B.mT)",
    "torch.linalg.matrix_exp(B[:, :, :2] * torch.tensor([1e-9, 0.03, 0.5, 2.0])"
    ".reshape(4, 1, 1))",
    "torch.matrix_exp(x[:, :2])", "(M @ x).matrix_exp()",
    "torch.linalg.matrix_exp(x[:1, :1])", "torch.linalg.matrix_exp(x)",
    "torch.linalg.matrix_exp(v)", "torch.linalg.matrix_exp(tgt.reshape(1, 2)[:, :1])",
    # Householder
    "torch.geqrf(M)", "torch.geqrf(x)", "torch.geqrf(C)", "torch.geqrf(v)",
    H + "out = torch.linalg.householder_product(a, tau)",
    H + "out = torch.linalg.householder_product(a, tau[:2])", H + "out = torch.orgqr(a, tau)",
    H + "out = a.orgqr(tau[:1])", "torch.linalg.householder_product(M, v[:2])",
    "torch.linalg.householder_product(C.mT, C[:, 0])",
    "torch.linalg.householder_product(x, v[:2])", "torch.linalg.householder_product(M, v)",
    "torch.linalg.householder_product(M, x64[0, :2])",
    H + "out = torch.ormqr(a, tau, C[1].t())", H + "out = torch.ormqr(a, tau, C[1], left=False)",
    H + "out = torch.ormqr(a, tau, C[1].t(), transpose=True)",
    H + "out = torch.ormqr(a, tau, C[1], left=False, transpose=True)",
    H + "out = a.ormqr(tau, C[1].t())", H + "out = torch.ormqr(a, tau, x.t())",
    H + "out = torch.ormqr(a, tau[:2], C[1].t())",
    # LDL
    S + "out = torch.linalg.ldl_factor(S)", S + "out = torch.linalg.ldl_factor_ex(S)",
    S + "out = torch.linalg.ldl_factor(S, hermitian=True)",
    S + "LD, piv = torch.linalg.ldl_factor(S)\nout = torch.linalg.ldl_solve(LD, piv, M)",
    S + "LD, piv = torch.linalg.ldl_factor(S)\nout = torch.linalg.ldl_solve(LD, piv, x)",
    "torch.linalg.ldl_factor(torch.zeros(3, 3))", "torch.linalg.ldl_factor(x)",
    "torch.linalg.ldl_factor_ex(torch.zeros(2, 3, 3))", "torch.linalg.ldl_factor(v)",
    # tensorinv, tensorsolve
    "torch.linalg.tensorinv(B.reshape(4, 6, 1) @ B.reshape(4, 1, 6), ind=1)",
    "torch.linalg.tensorinv(torch.eye(6).reshape(2, 3, 6) + B.reshape(2, 3, 4, 3)[:, :, 0, "
    ":1], ind=2)",
    A + "out = torch.linalg.tensorinv(A, ind=1)", "torch.linalg.tensorinv(x, ind=0)",
    "torch.linalg.tensorinv(C, ind=1)", "torch.linalg.tensorinv(torch.zeros(2, 3, 6), ind=2)",
    A + "out = torch.linalg.tensorsolve(A, v)",
    "torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6) + C.reshape(2, 3, 10)[:, :, :6], x)",
    A + "out = torch.linalg.tensorsolve(A.reshape(3, 3, 1), v, dims=(2,))",
    "torch.linalg.tensorsolve(M, v)", "torch.linalg.tensorsolve(torch.zeros(3, 3), v)",
]


# sytrf/sytrs have no numpy stand-in: without MKL, gradtrace refuses ldl_factor/ldl_solve
NEEDS_MKL = {c for c in CASES if "ldl" in c}


@pytest.mark.parametrize("code", [c if c not in NEEDS_MKL else
                                  pytest.param(c, marks=needs_mkl) for c in CASES])
def test_lu_householder_ldl_and_matrix_exp_match_torch(code: str) -> None:
    check_case(code)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("code", CASES)
def test_values_and_gradients_are_torchs_bits(code: str, dtype: type) -> None:
    """Every output and every gradient has torch's bits (float32 and float64)."""
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
    except (RuntimeError, NotImplementedError):
        return
    gloss.backward()
    for name in arrays:
        if tenv[name].grad is not None:
            assert _ulps(genv[name].grad.array, tenv[name].grad.numpy()) == 0, name


BATCHED_DECOMPOSITIONS = """import torch
torch.manual_seed(1)
def bits(t):
    if isinstance(t, (tuple, list)):
        return [bits(x) for x in t if isinstance(x, torch.Tensor) and x.is_floating_point()]
    return [x.hex() if isinstance(x, float) else x for x in t.flatten().tolist()]
for dt in (torch.float32, torch.float64):
    for n in (5, 7, 9, 11, 13):
        A = torch.randn(3, n, n, dtype=dt)
        S = A @ A.mT + n * torch.eye(n, dtype=dt)
        B = torch.randn(3, n, 4, dtype=dt)
        R = torch.randn(3, n + 3, n, dtype=dt)
        W = torch.randn(3, n, n + 2, dtype=dt)
        L = torch.linalg.cholesky(S)
        for name, out in [
                ("cholesky", L), ("qr", torch.linalg.qr(R)),
                ("qr complete", torch.linalg.qr(R, mode="complete")),
                ("qr wide", torch.linalg.qr(W)), ("qr r", torch.linalg.qr(R, mode="r")),
                ("svd", torch.linalg.svd(R, full_matrices=False)),
                ("svd full", torch.linalg.svd(W)), ("svdvals", torch.linalg.svdvals(R)),
                ("eigh", torch.linalg.eigh(S)), ("eigvals", torch.linalg.eigvals(A)),
                ("solve", torch.linalg.solve(A, B)), ("inv", torch.linalg.inv(A)),
                ("det", torch.linalg.det(A)), ("lu_factor", torch.linalg.lu_factor(A)),
                ("triangular", torch.linalg.solve_triangular(
                    A.triu() + n * torch.eye(n, dtype=dt), B, upper=True)),
                ("cholesky_solve", torch.cholesky_solve(B, L)),
                ("cholesky_inverse", torch.cholesky_inverse(L)),
                ("lstsq gels", torch.linalg.lstsq(R, B[:, :1].expand(3, n + 3, 1).contiguous(),
                                                  driver="gels").solution),
                ("lstsq gelsd", torch.linalg.lstsq(R, torch.randn(3, n + 3, 2, dtype=dt),
                                                   driver="gelsd")),
                ("pinv", torch.linalg.pinv(R)),
                ("householder_product", torch.linalg.householder_product(*torch.geqrf(R)))]:
            print(dt, n, name, bits(out))
"""


@needs_mkl
def test_batched_decompositions_lie_in_torchs_buffers_and_give_its_bits() -> None:
    """apply_geqrf, apply_svd, apply_lstsq, ... run each matrix of a batch in one
    batched column-major buffer at a 64-byte-aligned address, with one workspace for the
    batch. On an AMD CPU MKL's LAPACK sums in other orders at other 16-byte phases of a
    matrix (measured: 8 of these 19 kinds differed while each matrix had its own copy)."""
    assert gradtrace_output(BATCHED_DECOMPOSITIONS) == torch_output(BATCHED_DECOMPOSITIONS)
