"""Differential tests against live PyTorch: values, gradients, node names, next_functions,
saved values and error messages of every op, on the same random inputs.

Skipped unless torch is importable. Run it with torch 2.13 on the path, e.g.:
PYTHONPATH=/work/main:/work/main/.venv/lib/python3.11/site-packages \
    /work/torchenv/bin/python -m pytest tests/test_ops_torch_diff.py -q
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as torch_F  # noqa: E402
from ops_helpers import TORCH as GT_TORCH  # noqa: E402
from ops_helpers import F as GT_F  # noqa: E402

from gradtrace.engine.node import Node  # noqa: E402
from gradtrace.engine.ops.creation import WARNINGS, OnceWarning  # noqa: E402
from gradtrace.engine.tensor import Tensor  # noqa: E402
from gradtrace.errors import ScriptError  # noqa: E402


def _inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return {
        "x": rng.standard_normal((2, 3)).astype(f32),
        "y": rng.standard_normal((2, 3)).astype(f32),
        "v": rng.standard_normal(3).astype(f32),
        "u": rng.standard_normal(3).astype(f32),
        "M": rng.standard_normal((3, 2)).astype(f32),
        "B": rng.standard_normal((4, 2, 3)).astype(f32),
        "C": rng.standard_normal((4, 3, 5)).astype(f32),
        "P": rng.uniform(0.5, 2.0, (2, 3)).astype(f32),
        "p": rng.uniform(0.05, 0.95, (2, 3)).astype(f32),
        "q": rng.uniform(0.0, 1.0, (2, 3)).astype(f32),
        "w": rng.uniform(0.5, 1.5, 3).astype(f32),
        "tgt": np.array([0, 2], dtype=np.int64),
        "idx": np.array([[0, 2], [1, 0]], dtype=np.int64),
        "mask": rng.standard_normal((2, 3)) > 0,
        "x64": rng.standard_normal((2, 3)),
        # nn inputs (test_ops_added_torch_diff.py): images, kernels, sequences, embeddings
        "img": rng.standard_normal((2, 3, 5, 5)).astype(f32),
        "ker": rng.standard_normal((4, 3, 3, 3)).astype(f32),
        "b4": rng.standard_normal(4).astype(f32),
        "seq": rng.standard_normal((2, 3, 7)).astype(f32),
        "ker1": rng.standard_normal((4, 3, 3)).astype(f32),
        "emb": rng.standard_normal((10, 3)).astype(f32),
        "ids": rng.integers(0, 10, (2, 4)),
        "tgt4": rng.integers(0, 3, (2, 5, 5)),
        "rm": rng.standard_normal(3).astype(f32),
        "rv": rng.uniform(0.5, 2.0, 3).astype(f32),
        "g3": rng.uniform(0.5, 1.5, 3).astype(f32),
        "sign": np.sign(rng.standard_normal((2, 3))).astype(f32),
    }


NO_GRAD = {"tgt", "idx", "mask", "q", "w", "ids", "tgt4", "rm", "rv", "sign"}


def _torch_env(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    env: dict[str, Any] = {"torch": torch, "F": torch_F}
    for k, a in arrays.items():
        t = torch.tensor(a.copy())
        if k not in NO_GRAD and t.is_floating_point():
            t.requires_grad_()
        env[k] = t
    return env


def _gt_env(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    env: dict[str, Any] = {"torch": GT_TORCH, "F": GT_F}
    for k, a in arrays.items():
        env[k] = Tensor(a.copy(), requires_grad=k not in NO_GRAD and a.dtype.kind == "f")
    return env


def _run(code: str, env: dict[str, Any]) -> Any:
    if "\n" in code or code.startswith("out ="):
        exec(code, env)  # noqa: S102 - fixed test code
        return env["out"]
    return eval(code, env)  # noqa: S307 - fixed test code


# -- comparison ------------------------------------------------------------------------

U64 = 2**64


def _close(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        tol = 1e-5 if a.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(a, b, rtol=tol * 10, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


def _compare_value(g: Any, t: Any, what: str) -> None:
    if isinstance(t, torch.Tensor):
        assert isinstance(g, Tensor), f"{what}: expected a tensor, got {type(g).__name__}"
        assert g.dtype.name == str(t.dtype)[len("torch."):], f"{what}: dtype {g.dtype} vs {t.dtype}"
        _close(g.array, t.detach().numpy(), what)
    elif isinstance(t, (tuple, list)):
        assert isinstance(g, (tuple, list)), f"{what}: expected a sequence, got {g!r}"
        assert len(g) == len(t), f"{what}: length {len(g)} != {len(t)}"
        for i, (gi, ti) in enumerate(zip(g, t, strict=True)):
            _compare_value(gi, ti, f"{what}[{i}]")
    elif isinstance(t, float):
        assert isinstance(g, (int, float)) and (
            math.isclose(g, t, rel_tol=1e-6) or (math.isnan(g) and math.isnan(t))), \
            f"{what}: {g!r} != {t!r}"
    else:
        assert g == t and type(g) is type(t), f"{what}: {g!r} ({type(g).__name__}) != {t!r}"


def _torch_saved(fn: Any) -> dict[str, Any]:
    out = {}
    for key in dir(fn):
        if key.startswith("_saved_"):
            try:
                out[key[len("_saved_"):]] = getattr(fn, key)
            except RuntimeError as exc:  # a saved tensor modified in place or freed
                out[key[len("_saved_"):]] = ("error", str(exc))
    return out


def _gt_saved(node: Node) -> dict[str, Any]:
    out = dict(node.attrs or {})
    for key in node.saved or {}:
        try:
            out[key] = node.unpack(key)
        except ScriptError as exc:
            out[key] = ("error", exc.message)
    return out


def _compare_graph(g: Node | None, t: Any, what: str, seen: set[int]) -> None:
    if t is None:
        assert g is None, f"{what}: expected no node, got {g.name()}"
        return
    assert g is not None, f"{what}: expected {t.name()}, got None"
    assert g.name() == t.name(), f"{what}: node {g.name()} != {t.name()}"
    if id(t) in seen:
        return
    seen.add(id(t))
    if t.name() == "torch::autograd::AccumulateGrad":
        assert tuple(g.variable.shape) == tuple(t.variable.shape)
        return
    tn = [(n.name() if n is not None else None, nr) for n, nr in t.next_functions]
    gn = [(n.name() if n is not None else None, nr) for n, nr in g.next_functions]
    assert gn == tn, f"{what} {t.name()}: next_functions {gn} != {tn}"
    ts, gs = _torch_saved(t), _gt_saved(g)
    assert sorted(gs) == sorted(ts), f"{what} {t.name()}: saved {sorted(gs)} != {sorted(ts)}"
    for key, tv in ts.items():
        _compare_value(gs[key], tv, f"{what} {t.name()}._saved_{key}")
    pairs = zip(g.next_functions, t.next_functions, strict=True)
    for i, ((gnext, _), (tnext, _)) in enumerate(pairs):
        _compare_graph(gnext, tnext, f"{what}.next[{i}]", seen)


def _tensors(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return [value] if hasattr(value, "grad_fn") else []


def check_case(code: str, seed: int = 0) -> None:
    arrays = _inputs(seed)
    tenv, genv = _torch_env(arrays), _gt_env(arrays)
    WARNINGS.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tout = _run(code, tenv)
        except Exception as exc:  # noqa: BLE001 - we compare whatever torch raised
            with pytest.raises(ScriptError) as info:
                _run(code, genv)
            assert info.value.kind == type(exc).__name__, (info.value.kind, type(exc).__name__)
            assert info.value.message in (str(exc).split("\n")[0], str(exc))
            return
    gout = _run(code, genv)
    want = [f"{w.category.__name__}: {w.message}" for w in caught]
    # torch warns TORCH_WARN_ONCE once per process: an earlier case may have had it
    got = [w for w in WARNINGS if not isinstance(w, OnceWarning) or w in want]
    assert got == want, f"warnings {WARNINGS} != {want}"
    _compare_value(gout, tout, "value")
    touts, gouts = _tensors(tout), _tensors(gout)
    assert len(touts) == len(gouts)
    for i, (tt, gg) in enumerate(zip(touts, gouts, strict=True)):
        assert gg.requires_grad == tt.requires_grad, f"output {i}: requires_grad"
        assert gg.is_leaf == tt.is_leaf, f"output {i}: is_leaf"
        assert gg._version == tt._version, f"output {i}: _version {gg._version} != {tt._version}"
        assert (gg._base is not None) == (tt._base is not None), f"output {i}: is a view"
        _compare_graph(gg.grad_fn, tt.grad_fn, f"output {i}", set())
    # gradients of a weighted sum of every differentiable output
    rng = np.random.default_rng(seed + 1)
    tloss, gloss = None, None
    for tt, gg in zip(touts, gouts, strict=True):
        if tt.requires_grad and tt.is_floating_point():
            w = rng.standard_normal(tuple(tt.shape)).astype(np.float32 if tt.dtype ==
                                                             torch.float32 else np.float64)
            tterm = (tt * torch.tensor(w)).sum()
            gterm = (gg * Tensor(w)).sum()
            tloss = tterm if tloss is None else tloss + tterm
            gloss = gterm if gloss is None else gloss + gterm
    if tloss is None:
        return
    try:
        tloss.backward()
    except RuntimeError as exc:  # torch's own backward error: gradtrace must match it
        with pytest.raises(ScriptError) as info:
            gloss.backward()
        assert info.value.message == str(exc)
        return
    gloss.backward()
    for name in arrays:
        tg, gg = tenv[name].grad, genv[name].grad
        assert (tg is None) == (gg is None), f"grad of {name}: {gg} vs {tg}"
        if tg is not None:
            _compare_value(gg, tg, f"grad of {name}")


CASES = [
    # views
    "x.t()", "v.t()", "x.T", "x.mT", "B.mT", "x.transpose(0, 1)", "x.transpose(-1, 0)",
    "x.H", "x.mH", "B.mH", "x.adjoint()", "torch.adjoint(B)", "v.H", "B.H", "v.mH",
    "v.adjoint()",
    "B.transpose(0, 2)", "x.permute(1, 0)", "x.permute((1, 0))", "B.permute(2, 0, -2)",
    "x.permute(0)", "x.permute(0, 0)", "x.flatten()", "v.flatten()", "v.sum().flatten()",
    "B.flatten(1)", "B.flatten(0, 1)", "x.t().flatten()", "x.t().reshape(3, 2)",
    "x.t().reshape(6)", "x.reshape(2, 3)", "x.reshape(-1)", "x.view(3, 2)", "x.view(-1, 2)",
    "x.t().view(6)", "x.unsqueeze(-1)", "x.unsqueeze(0).squeeze(0)", "x.unsqueeze(0).squeeze()",
    "x.unsqueeze(-1).squeeze(-1)", "x.unsqueeze(-1).squeeze((0, -1))", "x.squeeze(3)",
    "v.expand(2, 3)", "v.expand(2, -1)", "x.expand(2, 2, 3)", "v.repeat(2)",
    "x.repeat(2, 1, 2)", "x.repeat(2)", "x.contiguous()", "x.t().contiguous()",
    "x.unflatten(1, (3, 1))", "x.view_as(M)", "x.narrow(1, 1, 2)", "x.narrow(0, -1, 1)",
    "x.select(1, -1)", "x.select(0, 5)", "x.flip(0)", "x.movedim(0, 1)", "B.movedim(0, -1)",
    "x.swapaxes(0, 1)", "t = x.t().clone()\nout = t.reshape(6)",
    # indexing
    "x[0]", "x[-1]", "x[:, 1]", "x[0:1]", "x[0, 1]", "x[1:3, None]", "x[None]", "x[...]",
    "x[..., 1]", "x[0, ...]", "x[::2]", "x[:, ::2]", "x[:, 1:]", "x[:]", "x[:, :]", "x[1:5]",
    "x[-5:1]", "x[5:]", "x[:, -1]", "x[:-1]", "x[-2:, 1]", "x[0:5, 1]", "x[:2, :]",
    "v[[0, 2]]", "x[[0, 1]]", "x[[0, 1], [1, 2]]", "x[0, [1, 2]]", "x[:, [1, 2]]",
    "x[x > 0]", "x[mask]", "x[torch.tensor([0, 1])]", "x[torch.tensor(1)]",
    "x[torch.tensor([True, False])]", "x[True]", "x[False]", "x[None, 0]", "x[5]", "x[:, 5]",
    "x[0, 1, 2]", "v[[5]]", "v[[-4]]", "x[1.0]", "x[[0, 1], :, None]", "x[:, None, [0, 1]]",
    "x[[0, 1], 0]", "x[idx]", "x[:, torch.tensor([True, False, True])]", "x[[True, False]]",
    "x[[0, 1], [1, 2, 0]]", "x[..., ...]", "x[-3]", "x[2:1]", "x[::-1]", "x[x]",
    "x[torch.tensor([True, False, True])]", "v.sum()[0]", "v.sum()[None]", "v.sum()[...]",
    "v.sum()[1]", "v.sum()[:]", "x[0][1]", "x[(0, 1)]", "x[()]", "B[1, :, 0]",
    "B[:, [0, 1], [2, 0]]", "B[[0, 1], :, [2, 0]]", "B[..., [0, 2]]",
    "x.index_select(1, torch.tensor([0, 2]))", "x.masked_fill(mask, 0.5)",
    "x.masked_fill(mask, v.sum())", "x.gather(1, idx)", "torch.gather(x, 0, idx)",
    "x.scatter_add(1, idx, y)", "x.scatter_add(1, idx, y[:, :2])",
    # unbind / split / cat / stack
    "x.unbind()", "x.unbind(1)", "x.unbind()[0]", "x.unbind(-1)", "x.split(1)",
    "x.split([1, 2], dim=1)", "x.split(2, dim=1)", "x.split(2, -1)[1]", "x.chunk(3, dim=1)",
    "x.chunk(2, dim=1)", "x.chunk(2)", "v.split(2)", "x.split([1, 1], 1)",
    "x.chunk(0)", "torch.cat([x, y])", "torch.cat([x, y], 1)", "torch.cat([x, v[None]])",
    "torch.cat((x, y), dim=-1)", "torch.cat([x, torch.ones(2, 3)])",
    "torch.cat([torch.ones(2, 3), x])", "torch.cat([x, v])", "torch.cat([x, M])",
    "torch.cat([x, x64])", "torch.cat([x, torch.tensor([])])", "torch.stack([x, y])",
    "torch.stack([x, y], 1)", "torch.stack([x, y], -1)", "torch.stack([x, v])",
    "torch.stack([v, u, v])",
    # in-place writes into views
    "y2 = x * 2\ny2[0] = 5.0\nout = y2", "y2 = x * 2\ny2[0] = v\nout = y2",
    "y2 = x * 2\nw2 = y2[0]\nw2.mul_(3)\nout = (y2, w2)",
    "y2 = x * 2\nw2 = y2[1]\nw2.add_(v)\nout = (y2, w2)",
    "y2 = x * 2\ny2[0, 1] = 7\nout = y2", "y2 = x * 2\ny2[:, 1] = 7\nout = y2",
    "y2 = x * 2\ny2[y2 > 0] = 0\nout = y2", "y2 = x * 2\ny2[[0, 1], [1, 2]] = v[:2]\nout = y2",
    "z = torch.zeros(2, 3)\nz[0] = v\nout = z", "z = torch.zeros(3)\nz[1] = v[0]\nout = z",
    "y2 = x * 2\ny2[...] = 5.0\nout = y2", "y2 = x * 2\ny2[:] = v\nout = y2",
    "y2 = x * 2\ny2[:, :] = v\nout = y2", "y2 = x * 2\ny2[0] = v[None]\nout = y2",
    "y2 = x * 2\ny2[None] = v\nout = y2", "y2 = x * 2\ny2[0, [1, 2]] = v[:2]\nout = y2",
    "y2 = x * 2\ny2[y2 > 0] = v[0]\nout = y2", "y2 = x * 2\ny2[True] = 1.0\nout = y2",
    "y2 = x * 2\ny2[False] = 1.0\nout = y2", "y2 = x * 2\ny2[:, 1:] = v[:2]\nout = y2",
    "y2 = x * 2\ny2[0][1] = 3.0\nout = y2", "y2 = x * 2\ny2[0] = torch.ones(4)\nout = y2",
    "y2 = x * 2\ny2[[0, 1], [1, 2]] = torch.ones(4)\nout = y2",
    "y2 = x * 2\ny2[5] = 1.0\nout = y2", "x[0] = 5.0\nout = x",
    "y2 = x * 2\ny2.copy_(v)\nout = y2", "c = torch.zeros(3)\nc.copy_(v)\nout = c",
    "y2 = x * 2\nw2 = y2[0][1:]\nw2.mul_(2)\nout = (y2, w2)",
    "y2 = x * 2\nw2 = y2.t()\nw2.mul_(v[:2])\nout = (y2, w2)",
    "y2 = x * 2\nw2 = y2[:, 1:]\nw2.exp_()\nout = (y2, w2)",
    "y2 = x * 2\nw2 = y2.unbind()[0]\nw2.mul_(2)\nout = w2",
    "y2 = x * 2\nw2 = y2.split(1)[0]\nw2.mul_(2)\nout = w2",
    "y2 = x * 2\nw2 = y2[0]\nw2 += 1\ny2[0] = w2\nout = y2",
    "y2 = x.clone()\ny2[1] = y2[0] * 3\nout = y2",
    "y2 = x * 1\ny2.masked_fill_(mask, 2.0)\nout = y2",
    # reductions
    "x.max()", "x.max(dim=1)", "x.max(1)", "x.max(dim=1)[0]", "x.max(1, keepdim=True)",
    "x.max(-1)[0]", "x.max(dim=1).values", "x.max(dim=1).indices", "x.max(y)",
    "torch.max(x, y)", "torch.max(x)", "torch.max(x, 1)", "torch.max(x, dim=0, keepdim=True)",
    "x.min()", "x.min(dim=0)", "torch.min(x, y)", "v.sum().max(dim=0)", "x.amax(dim=1)",
    "x.amax()", "x.amax(dim=(0, 1))", "x.amax(-1)", "x.amax(dim=[0], keepdim=True)",
    "x.amin(dim=1)", "x.prod()", "x.prod(dim=1)", "x.prod(1, keepdim=True)", "x.prod(-1)",
    "x.norm()", "x.norm(dim=1)", "x.norm(p=1)", "x.norm(1)", "x.norm(p=2, dim=1, keepdim=True)",
    "x.norm(p='fro')", "x.norm(float('inf'))", "x.norm(p=3)", "x.norm(p=0.5)", "x.norm(p=1.5)",
    "x.norm(dim=-1, p=float('-inf'))", "torch.norm(x)", "torch.linalg.norm(x)",
    "torch.linalg.vector_norm(x, ord=1, dim=1)", "torch.linalg.norm(x, dim=1)",
    "x.var()", "x.var(dim=1)", "x.var(1, unbiased=False)", "x.var(dim=1, correction=0)",
    "x.var(dim=1, keepdim=True)", "x.var(unbiased=False)", "x.var(None)", "x.var(-1)",
    "x.var(keepdim=True)", "x.var(0, True)", "x.std()", "x.std(dim=0)",
    "x.std(0, unbiased=False)", "torch.var(x, 1)", "torch.std(x)", "x.std(dim=-1)",
    "x.logsumexp(dim=1)", "x.logsumexp(1, keepdim=True)", "x.logsumexp((0, 1))",
    "torch.logsumexp(x, dim=-1)", "x.argmax()", "x.argmax(dim=1)", "x.argmin(1, keepdim=True)",
    "torch.argmax(x)", "x.argmax(keepdim=True)", "torch.maximum(x, y)", "torch.minimum(x, y)",
    "torch.maximum(x, v)", "torch.maximum(x, 2)", "x.maximum(y)",
    "torch.maximum(x, torch.ones(2, 3))", "x.any()", "(x > 0).any()", "(x > 0).any(dim=1)",
    "(x > 0).all()", "x.cumsum(dim=1)", "x.cumsum(0)", "torch.cumsum(x, dim=-1)",
    "x.sum(-1)", "x.mean(-1)", "x.sum((0, -1))", "x.sum(dim=())", "x.mean(dim=[])",
    "x.sum(dim=(0, 0))", "torch.tensor([]).max()",
    # products
    "x @ M", "v @ u", "x @ v", "v @ M", "M.t() @ x.t()", "B @ M", "B @ C", "B @ v", "v @ C",
    "x @ C", "torch.mm(x, M)", "torch.mv(x, v)", "torch.dot(v, u)", "v.dot(u)", "x.mm(M)",
    "x.mv(v)", "x.matmul(M)", "torch.matmul(v, u)", "torch.outer(v, u)", "v.outer(u)",
    "torch.bmm(B, C)", "x @ torch.ones(3, 2)", "torch.ones(2, 3) @ M", "v @ torch.ones(3)",
    "torch.ones(3) @ u", "x @ torch.ones(3)", "torch.ones(2, 3) @ v",
    "torch.bmm(torch.ones(4, 2, 3), C)", "torch.addmm(v[:2], x, M)",
    "torch.addmm(torch.ones(2), x, M)", "F.linear(x, M.t())", "F.linear(x, M.t(), v[:2])",
    "F.linear(v, M.t())", "F.linear(v, M.t(), v[:2])", "F.linear(B, M.t())",
    "F.linear(B, M.t(), v[:2])", "F.linear(x, M.t(), v[0])",
    "F.linear(B.transpose(0, 1), M.t(), v[:2])",
    "x @ torch.ones(4, 3, 2)", "x @ y", "x @ u[:2]", "v @ torch.ones(4)",
    "torch.dot(v, torch.ones(4))", "torch.mm(x, y)", "torch.mv(x, torch.ones(4))",
    "torch.mm(v, M)", "torch.dot(x, y)", "torch.mv(x, x)", "torch.bmm(x, y)",
    "torch.bmm(B, torch.ones(4, 4, 5))", "torch.bmm(B, M)", "torch.matmul(v.sum(), u)",
    "x @ torch.ones(3, 2, dtype=torch.float64)", "torch.dot(v, torch.ones(3, dtype=torch.float64))",
    "B @ torch.ones(2, 2)",
    # torch.spmm: mm's binding under another name (dense tensors)
    "torch.spmm(x, M)", "torch.spmm(x, mat2=M)", "torch.spmm(x, y)", "torch.spmm(v, M)",
    # nn
    "torch.softmax(x, dim=1)", "torch.softmax(x, -1)", "x.softmax(1)", "x.softmax(dim=-1)",
    "F.softmax(x, dim=1)", "F.softmax(x, 1, dtype=torch.float64)", "F.softmax(x, 5)",
    "torch.log_softmax(x, dim=1)", "F.log_softmax(x, dim=0)", "x.log_softmax(1)", "F.relu(x)",
    "F.leaky_relu(x - 1)", "F.leaky_relu(x, 0.2)", "F.leaky_relu(x, negative_slope=0.1)",
    "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.gelu(x, approximate='bad')", "F.silu(x)",
    "F.softplus(x)", "F.softplus(x, beta=2, threshold=1)", "F.elu(x)", "F.elu(x, alpha=0.5)",
    "F.sigmoid(x)", "F.tanh(x)", "F.mse_loss(x, y)", "F.mse_loss(x, y, reduction='sum')",
    "F.mse_loss(x, y, reduction='none')", "F.mse_loss(x, v)", "F.mse_loss(x, torch.ones(2, 3))",
    "F.mse_loss(x, y, reduction='bad')", "F.l1_loss(x, y)", "F.l1_loss(x, y, reduction='sum')",
    "F.l1_loss(x, y, reduction='none')", "F.cross_entropy(x, tgt)",
    "F.cross_entropy(x, tgt, reduction='sum')", "F.cross_entropy(x, tgt, reduction='none')",
    "F.cross_entropy(x, tgt, ignore_index=2)", "F.cross_entropy(x, tgt, weight=w)",
    "F.cross_entropy(x, tgt, weight=w, reduction='none')", "F.cross_entropy(x, y.softmax(1))",
    "F.cross_entropy(x, q, reduction='sum')", "F.cross_entropy(v, tgt[0])",
    "F.nll_loss(x.log_softmax(1), tgt)", "F.nll_loss(x, tgt, reduction='none')",
    "F.nll_loss(x, tgt, reduction='sum')", "F.nll_loss(x, torch.tensor([0, -100]))",
    "F.nll_loss(x, tgt.to(torch.float32))", "F.nll_loss(x, torch.tensor([0, 3]))",
    "F.nll_loss(x, torch.tensor([0, 1, 2]))", "F.nll_loss(x, tgt, weight=torch.ones(4))",
    "F.binary_cross_entropy(p, q)", "F.binary_cross_entropy(x.sigmoid(), q, reduction='sum')",
    "F.binary_cross_entropy(x.sigmoid(), q, reduction='none')",
    "F.binary_cross_entropy(x.sigmoid(), P / 2)",
    "F.binary_cross_entropy(x.sigmoid(), q, weight=w)",
    "F.binary_cross_entropy(x, q)", "F.binary_cross_entropy(x.sigmoid(), q[0])",
    "F.binary_cross_entropy_with_logits(x, q)", "F.binary_cross_entropy_with_logits(x, p)",
    "F.binary_cross_entropy_with_logits(x, q, reduction='none')",
    "F.binary_cross_entropy_with_logits(x, p, pos_weight=w)",
    "F.binary_cross_entropy_with_logits(x, q, weight=w, reduction='sum')",
    "F.binary_cross_entropy_with_logits(x, v)",
    # warnings torch prints
    "v.T", "v.sum().T", "v.sum().mT", "v.sum().H", "v.sum().mH", "v.sum().adjoint()",
    "x[[[0, 1]]]", "x[[0, slice(None)]]", "F.softmax(x)",
    "F.log_softmax(v)", "x.var(dim=1, correction=3)", "x.std(0, correction=2)",
    # version counters and views
    "y2 = x * 2\nw2 = y2[0]\nz = w2 * w2\nw2.mul_(2)\nout = z",
    "y2 = x * 2\nw2 = y2[0]\nout = (w2._version, y2._version, w2._base is y2)",
    "y2 = x * 2\nw2 = y2[0]\nw2.mul_(2)\nout = (w2._version, y2._version)",
    "y2 = x.exp()\ny2[0] = 1.0\nout = y2",
    "y2 = x * 2\ny2[0] = 1.0\nz = y2 * x\ny2[1] = 2.0\nout = z",
    "y2 = x * 2\na2, b2 = y2\nout = (a2, b2)", "out = [t * 1 for t in x]",
    "out = x.unbind(1)[2] * 3",
    "y2 = (x * 1).t()\ny2[0, 1] = v[0]\nout = y2",
    "y2 = x * 1\ny2[:, 0] += v[:2]\nout = y2",
    "y2 = x * 1\ny2[0].zero_()\nout = y2", "y2 = x * 1\ny2[0].fill_(2.0)\nout = y2",
    "y2 = x * 1\ny2[:, 1].relu_()\nout = y2", "y2 = x * 1\ny2[0].clamp_(0, 1)\nout = y2",
    "y2 = x * 1\ny2[1:].sigmoid_()\nout = y2", "y2 = x * 1\ny2[0].div_(v)\nout = y2",
    "with torch.no_grad():\n    x[0] = 5.0\nout = x", "x.data[0] = 5.0\nout = x",
    "with torch.no_grad():\n    x[0] -= 0.1 * v\nout = x * 1",
    "with torch.no_grad():\n    y2 = x * 1\ny2[0] = v\nout = y2",
    "y2 = x * 1\nw2 = y2[0]\nw3 = y2[1]\nw2.mul_(2)\nout = (w2, w3, y2)",
    "y2 = x * 1\nw2 = y2[0]\nw3 = w2[1:]\nw2.mul_(2)\nout = (w3, y2)",
    "z = torch.zeros(2, 3)\nzv = z[0]\nz[1] = v\nout = (zv, z)",
    "y2 = x * 1\nt2 = y2.t()\ny2.mul_(2)\nout = t2",
    # more error messages
    "x.narrow(0, 5, 1)", "x.narrow(0, -5, 1)", "x.narrow(0, 1, 2)", "x.narrow(0, 0, -1)",
    "x.unflatten(1, (2, 2))", "x.unflatten(1, (-1, 3))", "x.index_select(1, torch.tensor([3]))",
    "x.index_select(1, torch.tensor([[0]]))", "x.index_select(1, torch.tensor([0.0]))",
    "x.gather(1, torch.tensor([[5]]))", "x.gather(1, torch.tensor([0]))",
    "x.masked_fill(x > 0, torch.ones(2))", "x.masked_fill(tgt, 1.0)",
    "x.masked_fill(torch.ones(2, 3, dtype=torch.int64), 1.0)",
    "x.masked_fill(torch.ones(3, dtype=torch.bool), 1.0)",
    "x.masked_fill(torch.ones(2, 1, 3, dtype=torch.bool), 1.0)", "x.masked_fill(mask, 'a')",
    "x.repeat(-1, 2)", "x.split(-1)", "x.expand(3, 3)", "x.view(4)", "x.view(-1, -1)",
    "x.reshape(4)", "x.flip(2)", "x.flip(0, 0)", "x.t().view(6)",
    # keyword spellings
    "x.split(split_size=1)", "x.permute(dims=(1, 0))", "torch.max(x, other=y)",
    "x.repeat(repeats=(2, 1))", "x.view(size=(3, 2))", "x.expand(size=(2, 2, 3))",
    "torch.dot(v, tensor=u)", "x.transpose(dim0=1, dim1=0)", "x.gather(dim=1, index=idx)",
    "torch.cat(tensors=[x, y], dim=1)", "x.norm(p=1, dim=0, keepdim=True)",
]


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code: str) -> None:
    check_case(code)


def test_return_types_print_like_torch() -> None:
    arrays = _inputs()
    tenv, genv = _torch_env(arrays), _gt_env(arrays)
    for code in ["x.max(dim=1)", "x.min(0, keepdim=True)", "x.detach().max(1)"]:
        assert repr(_run(code, genv)) == repr(_run(code, tenv))


SECOND_ORDER = [
    "x * y", "x / P", "x ** 3", "P ** y", "x.exp()", "P.log()", "x.sin()", "x.tanh()",
    "x.sigmoid()", "x @ M", "v @ u", "x @ v", "v @ M", "B @ C", "B @ M",
    "F.linear(x, M.t(), v[:2])", "torch.outer(v, u)", "x.sum(1)", "x.mean()", "x.softmax(1)",
    "x.log_softmax(1)", "F.cross_entropy(x, tgt)", "F.cross_entropy(x, tgt, weight=w)",
    "F.nll_loss(x, tgt, reduction='sum')", "x.norm()", "x.norm(p=3, dim=1)", "x.var(1)",
    "x.std()", "x.logsumexp(1)", "x.max()", "x.max(1)[0]", "x.amax(1)", "x.prod()",
    "x.prod(1)", "x.cumsum(1)", "torch.maximum(x, y)", "x[0] * y[1]", "x[x > 0] ** 2",
    "x[[0, 1], [2, 0]] ** 2", "torch.cat([x, y]) ** 2", "torch.stack([x, y]) ** 2",
    "x.unbind(1)[1] ** 2", "x.split(2, 1)[0] ** 2", "x.t() ** 2", "x.repeat(2, 1) ** 2",
    "x.expand(2, 2, 3) ** 2", "x.gather(1, idx) ** 2", "x.masked_fill(mask, 1.0) ** 2",
    "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.silu(x)", "F.softplus(x)", "F.elu(x)",
    "F.leaky_relu(x, 0.2) ** 2", "F.mse_loss(x, y)", "F.l1_loss(x, y) ** 2",
    "F.binary_cross_entropy_with_logits(x, q)",
    "F.binary_cross_entropy_with_logits(x, p, pos_weight=w)", "F.binary_cross_entropy(p, q)",
    "y2 = x * 2\ny2[0] = v\nout = y2 * y2", "y2 = x * 1\nw2 = y2[1]\nw2.mul_(v)\nout = y2 * y2",
]


@pytest.mark.parametrize("code", SECOND_ORDER)
def test_second_order_matches_torch(code: str) -> None:
    """Gradients of gradients (create_graph=True) agree with torch."""
    from gradtrace.engine.backward import grad as gt_grad

    arrays = _inputs(3)
    tenv, genv = _torch_env(arrays), _gt_env(arrays)
    names = [k for k in arrays if k not in NO_GRAD and arrays[k].dtype.kind == "f"]
    rng = np.random.default_rng(7)
    tout, gout = _run(code, tenv), _run(code, genv)
    w = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
    tg = torch.autograd.grad((tout * torch.tensor(w)).sum(), [tenv[n] for n in names],
                             create_graph=True, allow_unused=True)
    gg = gt_grad((gout * Tensor(w)).sum(), [genv[n] for n in names], create_graph=True,
                 allow_unused=True)
    tsum = gsum = None
    for t1, g1 in zip(tg, gg, strict=True):
        assert (t1 is None) == (g1 is None)
        if t1 is None:
            continue
        _compare_value(g1, t1, "first-order gradient")
        if not t1.requires_grad:
            continue
        w2 = rng.standard_normal(tuple(t1.shape)).astype(np.float32)
        tterm, gterm = (t1 * torch.tensor(w2)).sum(), (g1 * Tensor(w2)).sum()
        tsum = tterm if tsum is None else tsum + tterm
        gsum = gterm if gsum is None else gsum + gterm
    if tsum is None:
        return
    tsum.backward()
    gsum.backward()
    for name in names:
        t2, g2 = tenv[name].grad, genv[name].grad
        assert (t2 is None) == (g2 is None), name
        if t2 is not None:
            _compare_value(g2, t2, f"second-order gradient of {name}")


CREATE_GRAPH_EXTRA = [
    "x.cos()", "P.sqrt()", "x.abs()", "x.relu()", "x.reciprocal()", "torch.log1p(P)",
    "torch.expm1(x)", "x - y", "2 - x", "x / 2", "2 / P", "x * 2", "x ** 2", "2 ** x",
    "P.pow(0.5)", "x.mean(1) ** 2", "x.sum(-1) ** 2", "x.max(1).values ** 2", "x.min() ** 2",
    "x.amin(0) ** 2", "torch.minimum(x, y) ** 2", "torch.where(x > 0, x, y) ** 2",
    "x.view(3, 2) ** 2", "x.permute(1, 0) ** 2", "x.unsqueeze(0).squeeze() ** 2",
    "v.expand(2, 3) ** 2", "x[:, 1] ** 2", "x[0:1] ** 2", "v[[0, 2]] ** 2", "F.relu(x)",
    "F.leaky_relu(x - 1)", "x.var()", "x.std(1)", "F.nll_loss(x.log_softmax(1), tgt)",
    "F.softmax(x, 1)", "x.amax() ** 2", "x.logsumexp(0)", "x.norm(dim=0)", "x.norm(p=1)",
    "x.sigmoid() * y", "x.tanh() * y", "x.exp() * y", "x.sin() * y", "F.l1_loss(x, y)",
    "F.mse_loss(x, y, reduction='sum')", "F.binary_cross_entropy(p, q, reduction='none')",
    "F.cross_entropy(x, tgt, reduction='sum')",
]
# torch records these differently under create_graph (see the notes): excluded for now.
CREATE_GRAPH_SKIP = {
    "v @ M",  # MmBackward0 of a view saves the view's strides
    "F.gelu(x, approximate='tanh')",  # tanh gelu's double backward is a numpy constant
    "F.binary_cross_entropy_with_logits(x, p, pos_weight=w)",  # target grad: log_sigmoid
}


@pytest.mark.parametrize("code", [c for c in SECOND_ORDER + CREATE_GRAPH_EXTRA
                                  if c not in CREATE_GRAPH_SKIP])
def test_create_graph_records_torchs_nodes(code: str) -> None:
    """First and second derivatives taken with create_graph=True have torch's graphs: node
    names, next_functions, saved values (MulBackward1, TanhBackwardBackward0, ...)."""
    from gradtrace.engine.backward import grad as gt_grad

    arrays = _inputs(3)
    tenv, genv = _torch_env(arrays), _gt_env(arrays)
    names = [k for k in arrays if k not in NO_GRAD and arrays[k].dtype.kind == "f"]
    rng = np.random.default_rng(7)
    tout, gout = _run(code, tenv), _run(code, genv)
    w = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
    tg = torch.autograd.grad((tout * torch.tensor(w)).sum(), [tenv[n] for n in names],
                             create_graph=True, allow_unused=True)
    gg = gt_grad((gout * Tensor(w)).sum(), [genv[n] for n in names], create_graph=True,
                 allow_unused=True)
    for order in (1, 2):
        tsum = gsum = None
        for name, t1, g1 in zip(names, tg, gg, strict=True):
            assert (t1 is None) == (g1 is None), f"order {order} d/d{name}"
            if t1 is None:
                continue
            assert g1.requires_grad == t1.requires_grad, f"order {order} d/d{name}"
            _compare_graph(g1.grad_fn, t1.grad_fn, f"order {order} d/d{name}", set())
            if order == 2 or not t1.requires_grad:
                continue
            w2 = rng.standard_normal(tuple(t1.shape)).astype(np.float32)
            tterm, gterm = (t1 * torch.tensor(w2)).sum(), (g1 * Tensor(w2)).sum()
            tsum = tterm if tsum is None else tsum + tterm
            gsum = gterm if gsum is None else gsum + gterm
        if order == 2 or tsum is None:
            break
        tg = torch.autograd.grad(tsum, [tenv[n] for n in names], create_graph=True,
                                 allow_unused=True)
        gg = gt_grad(gsum, [genv[n] for n in names], create_graph=True, allow_unused=True)
