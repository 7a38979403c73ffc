"""Differential tests against live PyTorch for the margin and likelihood losses
(hinge_embedding, multi_margin, multilabel_margin, multilabel_soft_margin, triplet_margin,
triplet_margin_with_distance, poisson_nll, gaussian_nll): graphs, saved values, errors and
warnings (check_case), and values and gradients bit for bit in float32 and float64.

Skipped unless torch is importable.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as torch_F  # noqa: E402
from ops_helpers import TORCH as GT_TORCH  # noqa: E402
from ops_helpers import F as GT_F  # noqa: E402
from test_ops_torch_diff import (  # noqa: E402
    check_case,
    test_create_graph_records_torchs_nodes,
    test_second_order_matches_torch,
)

from gradtrace.engine import capability  # noqa: E402
from gradtrace.engine.tensor import Tensor  # noqa: E402
from gradtrace.errors import ScriptError  # noqa: E402

T3 = "torch.tensor([2, 0])"  # class targets for x's 2 rows of 3
ML = "torch.tensor([[2, 0, -1], [1, -1, 0]])"  # multilabel targets
LP, TG = "B.log_softmax(2)", "torch.tensor([[1, 2], [2, 2]])"  # ctc: T=4, N=2, C=3

CASES = [
    # hinge_embedding_loss
    "F.hinge_embedding_loss(x, sign)", "F.hinge_embedding_loss(x, sign, margin=0.3)",
    "F.hinge_embedding_loss(x, sign, reduction='sum')",
    "F.hinge_embedding_loss(x, sign, reduction='none')",
    "F.hinge_embedding_loss(x, sign[0])", "F.hinge_embedding_loss(x, sign, reduction='max')",
    "F.hinge_embedding_loss(x, sign, size_average=False)",
    "torch.hinge_embedding_loss(x, sign, 0.5, 2)",
    # multi_margin_loss
    f"F.multi_margin_loss(x, {T3})", f"F.multi_margin_loss(x, {T3}, p=2)",
    f"F.multi_margin_loss(x, {T3}, margin=0.2, weight=w)",
    f"F.multi_margin_loss(x, {T3}, p=2, weight=w, reduction='sum')",
    f"F.multi_margin_loss(x, {T3}, reduction='none')",
    "F.multi_margin_loss(v, torch.tensor(1))", "F.multi_margin_loss(v, torch.tensor([1]))",
    "F.multi_margin_loss(v, torch.tensor(1), reduction='none')",
    "F.multi_margin_loss(v, torch.tensor([1]), reduction='none')",
    f"F.multi_margin_loss(x64, {T3}, weight=w.to(torch.float64))",
    f"F.multi_margin_loss(x, {T3}, p=3)", f"F.multi_margin_loss(x, {T3}, weight=x)",
    f"F.multi_margin_loss(x, {T3}, weight=v)",
    f"F.multi_margin_loss(x, {T3}, weight=torch.ones(4))",
    f"F.multi_margin_loss(x, {T3}, weight=w.to(torch.float64))",
    "F.multi_margin_loss(x, torch.tensor([2, 3]))", "F.multi_margin_loss(x, torch.tensor([2]))",
    "F.multi_margin_loss(x, torch.tensor([[2, 0]]))", "F.multi_margin_loss(B, tgt)",
    "F.multi_margin_loss(x, tgt.to(torch.float32))",
    f"F.multi_margin_loss(x, {T3}, reduction='all')",
    "F.multi_margin_loss(torch.zeros(2, 0), tgt)",
    # multilabel_margin_loss
    f"F.multilabel_margin_loss(x, {ML})", f"F.multilabel_margin_loss(x, {ML}, reduction='sum')",
    f"F.multilabel_margin_loss(x, {ML}, reduction='none')",
    "F.multilabel_margin_loss(v, torch.tensor([2, 1, -1]))",
    "F.multilabel_margin_loss(v, torch.tensor([2, 1, -1]), reduction='none')",
    f"F.multilabel_margin_loss(x64, {ML})",
    "F.multilabel_margin_loss(x, torch.tensor([[2, 0, -2], [1, -1, 0]]))",
    "F.multilabel_margin_loss(x, torch.tensor([[2, 0, 3], [1, -1, 0]]))",
    "F.multilabel_margin_loss(x, torch.tensor([2, 0, -1]))",
    f"F.multilabel_margin_loss(x, {ML}.to(torch.float32))", f"F.multilabel_margin_loss(B, {ML})",
    # multilabel_soft_margin_loss
    "F.multilabel_soft_margin_loss(x, q)", "F.multilabel_soft_margin_loss(x, q, weight=w)",
    "F.multilabel_soft_margin_loss(x, q, reduction='none')",
    "F.multilabel_soft_margin_loss(x, q, reduction='sum')",
    "F.multilabel_soft_margin_loss(x, q, reduction='bad')",
    "F.multilabel_soft_margin_loss(x, q, reduce=False)",
    "F.multilabel_soft_margin_loss(B, (B > 0).to(torch.float32))",
    # triplet_margin_loss
    "F.triplet_margin_loss(x, y, P)", "F.triplet_margin_loss(x, y, P, swap=True)",
    "F.triplet_margin_loss(x, y, P, p=1, eps=0.0, reduction='none')",
    "F.triplet_margin_loss(x, y, P, margin=0.5, p=3, reduction='sum')",
    "F.triplet_margin_loss(x, y, v)", "F.triplet_margin_loss(x, y, P, margin=0)",
    "F.triplet_margin_loss(v, u, v * 2)",
    "torch.triplet_margin_loss(x, y, P, 1.0, 2, 1e-6, True, 0)",
    # triplet_margin_with_distance_loss
    "F.triplet_margin_with_distance_loss(x, y, P)",
    "F.triplet_margin_with_distance_loss(x, y, P, swap=True, reduction='sum')",
    "F.triplet_margin_with_distance_loss(x, y, P, margin=1.5, reduction='none', "
    "distance_function=lambda a, b: (a - b).abs().sum(1))",
    "F.triplet_margin_with_distance_loss(x, y, P, "
    "distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b))",
    "F.triplet_margin_with_distance_loss(x, y, P, margin=-1.0)",
    "F.triplet_margin_with_distance_loss(x, y, v)",
    "F.triplet_margin_with_distance_loss(x, y, P, reduction='avg')",
    # poisson_nll_loss
    "F.poisson_nll_loss(x, P)", "F.poisson_nll_loss(x, P * 3, full=True)",
    "F.poisson_nll_loss(P, y.abs() * 4, log_input=False, full=True, reduction='sum')",
    "F.poisson_nll_loss(P, q, log_input=False, eps=1e-3, reduction='none')",
    "F.poisson_nll_loss(x, v)", "F.poisson_nll_loss(x, P, reduction='mean ')",
    "F.poisson_nll_loss(x, P, size_average=False)",
    "torch.poisson_nll_loss(x, P, True, True, 1e-8, 2)",
    # gaussian_nll_loss
    "F.gaussian_nll_loss(x, y, P)", "F.gaussian_nll_loss(x, y, P, full=True, reduction='sum')",
    "F.gaussian_nll_loss(x, y, P[:, 0])", "F.gaussian_nll_loss(x, y, P[:, :1])",
    "F.gaussian_nll_loss(x, y, P[:1])", "F.gaussian_nll_loss(x, y, 0.7, reduction='none')",
    "F.gaussian_nll_loss(x, y, q, eps=0.1)", "F.gaussian_nll_loss(x, y, -P)",
    "F.gaussian_nll_loss(x, y, -0.5)", "F.gaussian_nll_loss(x, y, v[:2])",
    "F.gaussian_nll_loss(x, y, P, reduction='each')", "F.gaussian_nll_loss(B, B * 0, B.abs())",
    # ctc_loss's errors (its values: test_ctc_loss_is_torchs_bits; its saved log_alpha holds
    # memory torch leaves uninitialised, so check_case cannot compare its graph)
    "F.ctc_loss(x.t().log_softmax(1), torch.tensor([1]), (3,), (1,))",
    f"F.ctc_loss({LP}, {TG}, (4, 3), (2, 1), blank=3)",
    f"F.ctc_loss({LP}, {TG}, (4,), (2, 1))", f"F.ctc_loss({LP}, {TG}, (4, 3), (2, 1, 1))",
    f"F.ctc_loss({LP}, {TG}, (9, 3), (2, 1))", f"F.ctc_loss({LP}, {TG}, (-1, 3), (2, 1))",
    f"F.ctc_loss({LP}, {TG}, (4, 3), (-1, 1))", f"F.ctc_loss({LP}, {TG}, (4, 3), (3, 1))",
    f"F.ctc_loss({LP}, torch.tensor([1, 2]), (4, 3), (2, 1))",
    f"F.ctc_loss({LP}, {TG}[:1], (4, 3), (2, 1))",
    f"F.ctc_loss({LP}.to(torch.int64), {TG}, (4, 3), (2, 1))",
    # a one-element integer tensor in a size (ctc_loss's docstring: size=(sum(lengths),))
    "torch.full((tgt.sum(), 2), 1.5)", "torch.zeros((torch.tensor([3]), 2))",
    # the torch.* forms: Reduction's int, whose default the parser reads as 0 ('none')
    "torch.hinge_embedding_loss(x, sign)", "torch.triplet_margin_loss(x, y, P)",
    "torch.poisson_nll_loss(x, P, False, False, 1e-8, 1)",
    "torch.kl_div(x, y.softmax(1))", "torch.kl_div(x, y, 1, log_target=True)",
    "torch.kl_div(x, y.softmax(1), 2)", "torch.margin_ranking_loss(x, y, sign)",
    "torch.margin_ranking_loss(x, y, sign, 0.3, 1)",
    "torch.cosine_embedding_loss(x, y, sign[:, 0])",
    "torch.cosine_embedding_loss(x, y, sign[:, 0], 0.1, 2)",
    "torch.binary_cross_entropy_with_logits(x, q)",
    "torch.binary_cross_entropy_with_logits(x, q, w, w, 1)",
    "torch.binary_cross_entropy_with_logits(x, q, None, w, 2)",
]


@pytest.mark.parametrize("code", CASES)
def test_loss_matches_torch(code: str) -> None:
    check_case(code)


SECOND = [
    "F.hinge_embedding_loss(x, sign)", "F.multilabel_soft_margin_loss(x, q, weight=w)",
    "F.triplet_margin_loss(x, y, P, swap=True)",
    "F.triplet_margin_with_distance_loss(x, y, P)", "F.poisson_nll_loss(x, P * 3, full=True)",
    "F.poisson_nll_loss(P, q, log_input=False)", "F.gaussian_nll_loss(x, y, P, full=True)",
    "F.gaussian_nll_loss(x, y, P[:, 0])",
]


@pytest.mark.parametrize("code", SECOND)
def test_loss_second_order_matches_torch(code: str) -> None:
    test_second_order_matches_torch(code)


@pytest.mark.parametrize("code", SECOND)
def test_loss_create_graph_records_torchs_nodes(code: str) -> None:
    test_create_graph_records_torchs_nodes(code)


@pytest.mark.parametrize("loss", ["multi_margin_loss", "multilabel_margin_loss"])
def test_native_margin_losses_have_no_double_backward_as_in_torch(loss: str) -> None:
    """Their backward records torch::autograd::NotImplemented, whose backward raises."""
    target = [[2, 0, -1], [1, -1, 0]] if loss == "multilabel_margin_loss" else [2, 0]
    x_np = np.random.default_rng(0).standard_normal((2, 3))
    results = []
    for lib, make, wrap in ((torch, torch.tensor, lambda a: torch.tensor(a)),
                            (GT_TORCH, lambda a: Tensor(np.asarray(a)), lambda a: Tensor(a))):
        fn = getattr(torch_F if lib is torch else GT_F, loss)
        x = wrap(x_np.copy())
        x.requires_grad_()
        go = make(np.float64(1.5))
        go.requires_grad_()
        g = (torch.autograd.grad if lib is torch else _gt_grad)(
            fn(x, make(np.asarray(target))), [x], go, create_graph=True)[0]
        names = [type(n).__name__ if n is not None else None
                 for n, _ in g.grad_fn.next_functions]
        try:
            g.sum().backward()
            message = None
        except (RuntimeError, ScriptError) as exc:
            message = exc.message if isinstance(exc, ScriptError) else str(exc)
        results.append((g.grad_fn.name(), names, g.detach().numpy() if lib is torch
                        else g.array, message))
    (tname, tnext, tval, tmsg), (gname, gnext, gval, gmsg) = results
    assert (gname, gnext, gmsg) == (tname, tnext, tmsg)
    assert np.array_equal(gval, tval)


def _gt_grad(outputs, inputs, grad_outputs, create_graph):
    from gradtrace.engine.backward import grad

    return grad(outputs, inputs, grad_outputs, create_graph=create_graph)


# -- bit for bit -----------------------------------------------------------------------------

BITS = {
    "hinge": ("F.hinge_embedding_loss(a, s, margin=0.7, reduction={r})", ["a"]),
    "multi_margin_p1": ("F.multi_margin_loss(a, k, margin=0.9, reduction={r})", ["a"]),
    "multi_margin_p2_weight": ("F.multi_margin_loss(a, k, p=2, weight=wt, reduction={r})",
                               ["a"]),
    "multilabel_margin": ("F.multilabel_margin_loss(a, ml, reduction={r})", ["a"]),
    "multilabel_soft_margin": ("F.multilabel_soft_margin_loss(a, q, weight=wt, reduction={r})",
                               ["a"]),
    "triplet": ("F.triplet_margin_loss(a, b, c, swap=True, reduction={r})", ["a", "b", "c"]),
    "triplet_p1": ("F.triplet_margin_loss(a, b, c, p=1, margin=2.0, reduction={r})",
                   ["a", "b", "c"]),
    "triplet_distance": ("F.triplet_margin_with_distance_loss(a, b, c, reduction={r})",
                         ["a", "b", "c"]),
    "poisson": ("F.poisson_nll_loss(a, pos * 3, full=True, reduction={r})", ["a"]),
    "poisson_no_log": ("F.poisson_nll_loss(pos, q * 5, log_input=False, full=True, "
                       "reduction={r})", ["pos"]),
    "gaussian": ("F.gaussian_nll_loss(a, b, pos, full=True, reduction={r})", ["a", "b", "pos"]),
    "gaussian_homoscedastic": ("F.gaussian_nll_loss(a, b, pos[:, 0], reduction={r})",
                               ["a", "pos"]),
}


def _bits_inputs(seed: int, dtype: type) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    n, c = 7, 9
    ml = np.full((n, c), -1)
    for row in range(n):
        labels = rng.choice(c, size=rng.integers(0, c), replace=False)
        ml[row, :len(labels)] = labels
    return {
        "a": rng.standard_normal((n, c)).astype(dtype),
        "b": rng.standard_normal((n, c)).astype(dtype),
        "c": rng.standard_normal((n, c)).astype(dtype),
        "pos": rng.uniform(0.05, 3.0, (n, c)).astype(dtype),
        "q": rng.uniform(0.0, 1.0, (n, c)).astype(dtype),
        "s": np.sign(rng.standard_normal((n, c))).astype(dtype),
        "wt": rng.uniform(0.2, 2.0, c).astype(dtype),
        "k": rng.integers(0, c, n),
        "ml": ml,
    }


def _bits_env(lib: str, arrays: dict[str, np.ndarray], grads: list[str]) -> dict:
    env: dict = {"F": torch_F if lib == "torch" else GT_F}
    for k, a in arrays.items():
        t = torch.tensor(a.copy()) if lib == "torch" else Tensor(a.copy())
        if k in grads:
            t.requires_grad_()
        env[k] = t
    return env


@pytest.mark.parametrize("reduction", ["'mean'", "'sum'", "'none'"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", list(BITS))
def test_values_and_gradients_are_torchs_bits(name: str, dtype: type, reduction: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capability, "CAPABILITY", "avx2", raising=False)
    code, grads = BITS[name]
    code = code.format(r=reduction)
    for seed in range(3):
        arrays = _bits_inputs(seed, dtype)
        tenv, genv = _bits_env("torch", arrays, grads), _bits_env("gradtrace", arrays, grads)
        tout, gout = eval(code, tenv), eval(code, genv)  # noqa: S307 - fixed test code
        assert np.array_equal(gout.array, tout.detach().numpy(), equal_nan=True), (seed, "value")
        weights = np.random.default_rng(seed + 10).standard_normal(tuple(tout.shape))
        weights = weights.astype(dtype)
        (tout * torch.tensor(weights)).sum().backward()
        (gout * Tensor(weights)).sum().backward()
        for g in grads:
            assert np.array_equal(genv[g].grad.array, tenv[g].grad.numpy(), equal_nan=True), \
                (seed, f"grad of {g}")


CTC = [
    ("mean", False, [2, 3, 1], [7, 5, 4], 2), ("sum", False, [3, 2, 0], [6, 7, 3], 2),
    ("none", False, [2, 3, 1], [7, 5, 4], 0), ("mean", True, [3, 3, 1], [7, 2, 4], 1),
    ("none", True, [3, 3, 1], [7, 2, 4], 3), ("sum", False, [0, 1, 3], [0, 7, 7], 0),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CTC, ids=[f"{c[0]}-zero_inf={c[1]}-{i}" for i, c in
                                            enumerate(CTC)])
def test_ctc_loss_is_torchs_bits(case: tuple, dtype: type) -> None:
    """Values and log_probs' gradients bit for bit, torch's node names and saved lengths."""
    reduction, zero_infinity, target_lengths, input_lengths, blank = case
    rng = np.random.default_rng(len(target_lengths) + sum(input_lengths))
    x = rng.standard_normal((7, 3, 5)).astype(dtype)
    targets = rng.integers(0, 5, (3, 3))
    targets[targets == blank] = (blank + 1) % 5
    outs = []
    for lib in ("torch", "gradtrace"):
        xt = torch.tensor(x.copy()) if lib == "torch" else Tensor(x.copy())
        xt.requires_grad_()
        fn = torch_F if lib == "torch" else GT_F
        tg = torch.tensor(targets) if lib == "torch" else Tensor(targets)
        out = fn.ctc_loss(fn.log_softmax(xt, 2), tg, input_lengths, target_lengths, blank,
                          reduction, zero_infinity)
        weights = np.random.default_rng(5).standard_normal(tuple(out.shape)).astype(dtype)
        (out * (torch.tensor(weights) if lib == "torch" else Tensor(weights))).sum().backward()
        node = out.grad_fn
        names = []
        while node is not None:
            names.append(node.name())
            node = next((n for n, _ in node.next_functions if n is not None), None)
        ctc_node = out.grad_fn
        while ctc_node.name() != "CtcLossBackward0":
            ctc_node = next(n for n, _ in ctc_node.next_functions if n is not None)
        attrs = ({k: getattr(ctc_node, f"_saved_{k}") for k in
                  ("blank", "input_lengths", "target_lengths", "zero_infinity")}
                 if lib == "torch" else ctc_node.attrs)
        saved = (attrs["blank"], tuple(attrs["input_lengths"]), tuple(attrs["target_lengths"]),
                 attrs["zero_infinity"])
        value = out.detach().numpy() if lib == "torch" else out.array
        grad = xt.grad.numpy() if lib == "torch" else xt.grad.array
        outs.append((value, grad, names, saved))
    (tv, tg_, tn, ts), (gv, gg, gn, gs) = outs
    assert (gn, gs) == (tn, ts)
    assert np.array_equal(gv, tv, equal_nan=True)
    assert np.array_equal(gg, tg_, equal_nan=True)
