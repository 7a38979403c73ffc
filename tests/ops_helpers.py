"""Shared helpers for the op tests: a torch-like namespace over gradtrace's engine,
finite-difference gradient checks, and graph/saved-value summaries."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from gradtrace.engine import api, dtypes
from gradtrace.engine.backward import grad as autograd_grad
from gradtrace.engine.node import AccumulateGrad, Node
from gradtrace.engine.tensor import Tensor


class Namespace:
    """`torch`, `F` and `torch.linalg` for expressions run on gradtrace."""

    def __init__(self, table: dict[str, Any]):
        self._table = table

    def __getattr__(self, name: str) -> Any:
        try:
            return self._table[name]
        except KeyError:
            raise AttributeError(name) from None


F = Namespace(api.FUNCTIONAL)
TORCH = Namespace({**api.TORCH_FUNCTIONS, **api.DTYPES,
                   "linalg": Namespace(api.LINALG_FUNCTIONS),
                   "special": Namespace(api.SPECIAL_FUNCTIONS),
                   "autograd": Namespace({"grad": autograd_grad}),
                   "nn": Namespace({"functional": F})})


def leaf(array: Any, requires_grad: bool = True) -> Tensor:
    array = np.asarray(array)
    return Tensor(array.copy(), requires_grad=requires_grad and array.dtype.kind == "f")


def saved_summary(node: Node) -> dict[str, Any]:
    """A node's saved values: tensors as ('T', shape, dtype-name), others as they are."""
    out: dict[str, Any] = {}
    for key, value in (node.attrs or {}).items():
        out[key] = summarize(value)
    for key in node.saved or {}:
        out[key] = summarize(node.unpack(key))
    return out


def summarize(value: Any) -> Any:
    if isinstance(value, Tensor):
        return ("T", tuple(value.shape), value.dtype.name)
    if isinstance(value, (tuple, list)):
        return tuple(summarize(v) for v in value)
    return value


def node_name(node: Node | None) -> str | None:
    if node is None:
        return None
    name = node.name()
    return "AccumulateGrad" if isinstance(node, AccumulateGrad) else name


def next_summary(node: Node) -> list[tuple[str | None, int]]:
    return [(node_name(n), nr) for n, nr in node.next_functions]


# -- gradient checks ---------------------------------------------------------------------


def _outputs(result: Any) -> list[Tensor]:
    if isinstance(result, Tensor):
        return [result]
    return [r for r in result if isinstance(r, Tensor) and r.dtype.is_floating_point]


def numerical_jacobian(fn: Callable[..., Any], inputs: Sequence[Tensor], i: int,
                       eps: float) -> list[np.ndarray]:
    """d(out_k)/d(input_i) by central differences, one matrix per output."""
    x = inputs[i].array
    flat = x.reshape(-1)
    cols: list[list[np.ndarray]] = []
    for j in range(flat.size):
        orig = flat[j]
        flat[j] = orig + eps
        plus = [o.array.astype(np.float64).copy() for o in _outputs(fn(*inputs))]
        flat[j] = orig - eps
        minus = [o.array.astype(np.float64).copy() for o in _outputs(fn(*inputs))]
        flat[j] = orig
        cols.append([((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus, strict=True)])
    n_out = len(cols[0]) if cols else 0
    return [np.stack([c[k] for c in cols], axis=1) if cols else np.zeros((0, 0))
            for k in range(n_out)]


def analytical_jacobian(fn: Callable[..., Any], inputs: Sequence[Tensor], i: int
                        ) -> list[np.ndarray]:
    outs = _outputs(fn(*inputs))
    mats = []
    for out in outs:
        rows = []
        if not out.requires_grad:
            mats.append(np.zeros((out.array.size, inputs[i].array.size)))
            continue
        for k in range(out.array.size):
            seed = np.zeros(out.array.size, dtype=out.array.dtype)
            seed[k] = 1.0
            (g,) = autograd_grad([out], [inputs[i]], [Tensor(seed.reshape(out.shape))],
                                 retain_graph=True, allow_unused=True)
            rows.append(np.zeros(inputs[i].array.size) if g is None
                        else g.array.astype(np.float64).reshape(-1))
        mats.append(np.stack(rows, axis=0) if rows else np.zeros((0, inputs[i].array.size)))
    return mats


def gradcheck(fn: Callable[..., Any], inputs: Sequence[Tensor], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3) -> bool:
    """torch.autograd.gradcheck's criterion for every input that requires grad."""
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            continue
        numeric = numerical_jacobian(fn, inputs, i, eps)
        analytic = analytical_jacobian(fn, inputs, i)
        for n, a in zip(numeric, analytic, strict=True):
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                raise AssertionError(
                    f"Jacobian mismatch for input {i}:\nnumerical:\n{n}\nanalytical:\n{a}")
    return True


def gradgradcheck(fn: Callable[..., Any], inputs: Sequence[Tensor], eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, seed: int = 0) -> bool:
    """Check the gradient of (grad of fn against fixed grad_outputs) by finite differences."""
    rng = np.random.default_rng(seed)
    outs = _outputs(fn(*inputs))
    grad_outputs = [Tensor(rng.standard_normal(o.shape).astype(o.array.dtype)) for o in outs]
    wanted = [t for t in inputs if t.requires_grad]

    def first_order(*xs: Tensor) -> tuple[Tensor, ...]:
        res = _outputs(fn(*xs))
        grads = autograd_grad(res, [x for x in xs if x.requires_grad], grad_outputs,
                              create_graph=True, allow_unused=True)
        return tuple(g if g is not None else Tensor(np.zeros_like(x.array)) * 0
                     for g, x in zip(grads, [x for x in xs if x.requires_grad], strict=True))

    assert wanted
    return gradcheck(first_order, inputs, eps, atol, rtol)


def float64_leaves(arrays: Sequence[Any]) -> list[Tensor]:
    """A case's input arrays as float64 leaves that require grad (what gradcheck perturbs)."""
    return [Tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]


Case = tuple[Callable[..., Any], Callable[[np.random.Generator], list[Any]]]


def finite_difference_tests(cases: dict[str, Case], second_order: Sequence[str],
                            rng: Callable[[str], np.random.Generator]) -> tuple[Any, Any]:
    """The two tests of a gradcheck corpus, for its module to bind as `test_gradcheck` and
    `test_gradgradcheck`: each case's `fn` against finite differences at float64 inputs
    built from its own seeded generator, first order for every case, second order
    (create_graph) for those in `second_order`."""
    @pytest.mark.parametrize("name", list(cases))
    def test_gradcheck(name: str) -> None:
        fn, build = cases[name]
        assert gradcheck(fn, float64_leaves(build(rng(name))))

    @pytest.mark.parametrize("name", list(second_order))
    def test_gradgradcheck(name: str) -> None:
        fn, build = cases[name]
        assert gradgradcheck(fn, float64_leaves(build(rng(name))))

    return test_gradcheck, test_gradgradcheck


def as_dtype(name: str) -> dtypes.DType:
    return dtypes.BY_NAME[name]
