"""The ops a training script runs, as cases both torch and gradtrace can evaluate: matrix
products (F.linear, @, mv, bmm, in float32 and float64), normalization (layer_norm,
batch_norm, group_norm), losses, convolutions, activations and statistics, each forward
and backward with a fixed incoming gradient.

A case is a function of (T, F, **tensors) -- T the `torch` namespace, F
`torch.nn.functional` -- so tests/tools/record_numerics.py runs it under torch and
tests/test_numerics_training.py under gradtrace's engine, on inputs built here from integer
bit patterns (numerics_data.floats), the same on every platform.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numerics_data import _splitmix, floats


@dataclass(frozen=True)
class Input:
    """An input tensor: `kind` 'floats' (exponents low..high, both signs), 'positive',
    'prob' (in (0, 1)) or 'labels' (int64 below `classes`)."""

    shape: tuple[int, ...]
    kind: str = "floats"
    low: int = -3
    high: int = 1
    grad: bool = True
    classes: int = 0
    dtype: str = "float32"

    def array(self, seed: int) -> np.ndarray:
        t = np.float64 if self.dtype == "float64" else np.float32
        if self.kind == "labels":
            n = int(np.prod(self.shape, dtype=np.int64))
            return (_splitmix(seed * 7 + 3, n) % np.uint64(self.classes)).astype(
                np.int64).reshape(self.shape)
        if self.kind == "prob":
            return floats(seed, self.shape, -7, -1, t, positive=True)
        return floats(seed, self.shape, self.low, self.high, t,
                      positive=self.kind == "positive")


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    fn: Callable[..., Any]
    inputs: dict[str, Input] = field(default_factory=dict)

    def arrays(self, index: int) -> dict[str, np.ndarray]:
        return {k: v.array(300_000 + 100 * index + i)
                for i, (k, v) in enumerate(sorted(self.inputs.items()))}


def _x(*shape: int, grad: bool = True, **kw: Any) -> Input:
    return Input(tuple(shape), grad=grad, **kw)


def _products() -> list[Case]:
    out = []
    for m, k, n in [(1, 3, 2), (4, 10, 32), (64, 10, 32), (32, 20, 24), (100, 4, 16),
                    (16, 784, 10), (5, 300, 6), (2, 7, 1), (128, 128, 128)]:
        out.append(Case("products", f"linear {m}x{k}->{n}",
                        lambda T, F, x, w, b: F.linear(x, w, b),
                        {"x": _x(m, k), "w": _x(n, k), "b": _x(n)}))
        out.append(Case("products", f"x @ w {m}x{k}@{k}x{n}", lambda T, F, x, w: x @ w,
                        {"x": _x(m, k), "w": _x(k, n)}))
    for m, k in [(3, 5), (20, 40), (64, 200)]:
        out.append(Case("products", f"mv {m}x{k}", lambda T, F, a, v: T.mv(a, v),
                        {"a": _x(m, k), "v": _x(k)}))
        out.append(Case("products", f"dot {k}", lambda T, F, a, v: T.dot(a, v),
                        {"a": _x(k), "v": _x(k)}))
    for b, m, k, n in [(3, 4, 5, 6), (4, 16, 8, 16), (2, 32, 20, 8)]:
        out.append(Case("products", f"bmm {b}x{m}x{k}x{n}", lambda T, F, a, c: T.bmm(a, c),
                        {"a": _x(b, m, k), "c": _x(b, k, n)}))
        out.append(Case("products", f"3d @ 2d {b}x{m}x{k}x{n}", lambda T, F, a, c: a @ c,
                        {"a": _x(b, m, k), "c": _x(k, n)}))
    out.append(Case("products", "linear float64 32x20->24",
                    lambda T, F, x, w, b: F.linear(x, w, b),
                    {"x": _x(32, 20, dtype="float64"), "w": _x(24, 20, dtype="float64"),
                     "b": _x(24, dtype="float64")}))
    out.append(Case("products", "addmm beta alpha", lambda T, F, b, x, w:
                    T.addmm(b, x, w, beta=0.5, alpha=1.5),
                    {"b": _x(12, 8), "x": _x(12, 30), "w": _x(30, 8)}))
    return out


def _norms() -> list[Case]:
    out = []
    for shape, ns in [((32, 24), (24,)), ((3, 5, 16), (16,)), ((7, 33), (33,)),
                      ((2, 3, 4, 5), (4, 5)), ((8, 300), (300,))]:
        out.append(Case("norms", f"layer_norm {shape}",
                        lambda T, F, x, w, b, ns=ns: F.layer_norm(x, ns, w, b),
                        {"x": _x(*shape), "w": _x(*ns), "b": _x(*ns)}))
        out.append(Case("norms", f"layer_norm no affine {shape}",
                        lambda T, F, x, ns=ns: F.layer_norm(x, ns), {"x": _x(*shape)}))
    for shape in [(40, 12), (64, 10), (4, 3, 5), (8, 6, 10, 10), (5, 4, 13)]:
        c = shape[1]
        out.append(Case("norms", f"batch_norm train {shape}",
                        lambda T, F, x, w, b, rm, rv: (F.batch_norm(x, rm, rv, w, b, True),
                                                       rm, rv),
                        {"x": _x(*shape), "w": _x(c), "b": _x(c), "rm": _x(c, grad=False),
                         "rv": _x(c, grad=False, kind="positive")}))
        out.append(Case("norms", f"batch_norm eval {shape}",
                        lambda T, F, x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, False),
                        {"x": _x(*shape), "w": _x(c), "b": _x(c), "rm": _x(c, grad=False),
                         "rv": _x(c, grad=False, kind="positive")}))
        out.append(Case("norms", f"batch_norm no affine {shape}",
                        lambda T, F, x: F.batch_norm(x, None, None, training=True),
                        {"x": _x(*shape)}))
    for shape, groups in [((2, 4, 5), 2), ((3, 6, 16), 3), ((2, 8, 7, 7), 4),
                          ((3, 40, 13), 4), ((2, 48, 3, 3), 2)]:
        out.append(Case("norms", f"group_norm {shape}",
                        lambda T, F, x, w, b, g=groups: F.group_norm(x, g, w, b),
                        {"x": _x(*shape), "w": _x(shape[1]), "b": _x(shape[1])}))
        out.append(Case("norms", f"group_norm no affine {shape}",
                        lambda T, F, x, g=groups: F.group_norm(x, g), {"x": _x(*shape)}))
    return out


def _losses() -> list[Case]:
    out = []
    for n in (7, 33, 100):
        for red in ("mean", "sum", "none"):
            def add(name: str, fn: Callable[..., Any], red: str = red, n: int = n,
                    **inputs: Input) -> None:
                out.append(Case("losses", f"{name} {red} {n}", fn, inputs))
            add("binary_cross_entropy", lambda T, F, x, t, r=red:
                F.binary_cross_entropy(x, t, reduction=r),
                x=_x(n, kind="prob"), t=_x(n, kind="prob"))
            add("bce_with_logits", lambda T, F, x, t, p, r=red:
                F.binary_cross_entropy_with_logits(x, t, pos_weight=p, reduction=r),
                x=_x(n), t=_x(n, kind="prob"), p=_x(n, kind="positive", grad=False))
            add("mse_loss", lambda T, F, x, t, r=red: F.mse_loss(x, t, reduction=r),
                x=_x(n), t=_x(n))
            add("l1_loss", lambda T, F, x, t, r=red: F.l1_loss(x, t, reduction=r),
                x=_x(n), t=_x(n))
            add("smooth_l1_loss", lambda T, F, x, t, r=red:
                F.smooth_l1_loss(x, t, reduction=r, beta=0.3), x=_x(n), t=_x(n))
            add("huber_loss", lambda T, F, x, t, r=red:
                F.huber_loss(x, t, reduction=r, delta=0.7), x=_x(n), t=_x(n))
            add("kl_div", lambda T, F, x, t, r=red:
                F.kl_div(x, t, reduction="batchmean" if r == "mean" else r),
                x=_x(n, 4), t=_x(n, 4, kind="prob"))
            add("cross_entropy", lambda T, F, x, t, r=red: F.cross_entropy(x, t, reduction=r),
                x=_x(n, 5), t=_x(n, kind="labels", classes=5, grad=False))
            add("cross_entropy smoothing", lambda T, F, x, t, r=red:
                F.cross_entropy(x, t, reduction=r, label_smoothing=0.1),
                x=_x(n, 5), t=_x(n, kind="labels", classes=5, grad=False))
            add("nll_loss weighted", lambda T, F, x, t, w, r=red:
                F.nll_loss(F.log_softmax(x, 1), t, weight=w, reduction=r),
                x=_x(n, 5), t=_x(n, kind="labels", classes=5, grad=False),
                w=_x(5, kind="positive", grad=False))
            add("soft_margin_loss", lambda T, F, x, t, r=red:
                F.soft_margin_loss(x, t.sign(), reduction=r), x=_x(n), t=_x(n, grad=False))
    return out


def _convolutions() -> list[Case]:
    out = []
    for n, c, h, o, k, pad, stride in [(8, 1, 12, 6, 3, 0, 1), (4, 3, 10, 8, 5, 0, 1),
                                       (2, 8, 10, 16, 3, 1, 1), (3, 4, 7, 8, 3, 1, 2),
                                       (5, 2, 6, 24, 3, 1, 1), (16, 3, 8, 4, 3, 1, 1),
                                       (1, 2, 8, 4, 3, 1, 1), (4, 10, 6, 3, 1, 0, 1)]:
        out.append(Case("conv", f"conv2d {n}x{c}x{h} {o}x{k}x{k} p{pad} s{stride}",
                        lambda T, F, x, w, b, p=pad, s=stride: F.conv2d(x, w, b, s, p),
                        {"x": _x(n, c, h, h), "w": _x(o, c, k, k), "b": _x(o)}))
    out.append(Case("conv", "conv1d 4x3x20 8x3 p1", lambda T, F, x, w, b:
                    F.conv1d(x, w, b, padding=1),
                    {"x": _x(4, 3, 20), "w": _x(8, 3, 3), "b": _x(8)}))
    out.append(Case("conv", "conv2d + max_pool2d 4x2x12", lambda T, F, x, w:
                    F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2),
                    {"x": _x(4, 2, 12, 12), "w": _x(6, 2, 3, 3)}))
    return out


def _activations() -> list[Case]:
    out = []
    fns = {"relu": lambda T, F, x: F.relu(x), "tanh": lambda T, F, x: T.tanh(x),
           "sigmoid": lambda T, F, x: T.sigmoid(x), "silu": lambda T, F, x: F.silu(x),
           "mish": lambda T, F, x: F.mish(x), "softplus": lambda T, F, x: F.softplus(x),
           "elu": lambda T, F, x: F.elu(x), "gelu": lambda T, F, x: F.gelu(x),
           "gelu tanh": lambda T, F, x: F.gelu(x, approximate="tanh"),
           "logsigmoid": lambda T, F, x: F.logsigmoid(x),
           "leaky_relu": lambda T, F, x: F.leaky_relu(x, 0.1),
           "softmax": lambda T, F, x: F.softmax(x, -1),
           "log_softmax": lambda T, F, x: F.log_softmax(x, -1)}
    for n in (7, 33, 1000):
        for name, fn in fns.items():
            out.append(Case("activations", f"{name} {n}", fn, {"x": _x(n, low=-2, high=3)}))
    return out


def _statistics() -> list[Case]:
    out = []
    for shape in [(7,), (4, 9), (16, 50), (3, 5, 7)]:
        out.append(Case("statistics", f"var_mean {shape}", lambda T, F, x: T.var_mean(x, -1),
                        {"x": _x(*shape)}))
        out.append(Case("statistics", f"std_mean {shape}", lambda T, F, x: T.std_mean(x, 0),
                        {"x": _x(*shape)}))
        out.append(Case("statistics", f"cumprod {shape}", lambda T, F, x:
                        T.cumprod(x * 0.1 + 1, -1), {"x": _x(*shape)}))
        out.append(Case("statistics", f"logsumexp {shape}", lambda T, F, x:
                        T.logsumexp(x, -1), {"x": _x(*shape)}))
    return out


def _large_reductions() -> list[Case]:
    """Full sums past GRAIN_SIZE elements: one partial sum per thread, then the partials."""
    return [Case("statistics", f"{name} {shape}", fn, {"x": _x(*shape)})
            for shape in [(100_000,), (300, 784), (40_000,)]
            for name, fn in [("sum", lambda T, F, x: x.sum()),
                             ("mean", lambda T, F, x: T.mean(x))]]


def training_cases() -> list[Case]:
    return (_products() + _norms() + _losses() + _convolutions() + _activations()
            + _statistics() + _large_reductions())


def grad_seed(index: int) -> int:
    return 900_000 + index
