"""Every op's derivative lives beside its backward, as data (gradtrace/engine/formulas.py).

These tests hold every node class to the convention, so an op added later cannot skip it:
a formula for each input, operands that name something the node has, language-neutral
math, and a replay (the op's own backward on recorded values) that gives the engine's
numbers.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest
import test_gradcheck
import test_gradcheck_added
import test_gradcheck_linalg
from ops_helpers import TORCH as torch  # noqa: F401 (the gradcheck cases use it)
from ops_helpers import F, float64_leaves, leaf

import gradtrace.engine.ops as ops_package
from gradtrace.engine import events
from gradtrace.engine.backward import grad as autograd_grad
from gradtrace.engine.formulas import LOCAL, UNDEFINED, VJP, formulas_of, input_name, replay
from gradtrace.engine.grad_mode import GRAD_MODE
from gradtrace.engine.node import AccumulateGrad, Function, Node, reachable_nodes
from gradtrace.engine.ops.view_inplace import CopySlices
from gradtrace.engine.ops.views import ViewFunction
from gradtrace.engine.tensor import Tensor
from gradtrace.runner import load_source, run_source
from gradtrace.summary import Summary

ROOT = Path(__file__).parent.parent
SCRIPTS = sorted((ROOT / "samples").glob("*.gt")) + sorted(
    (Path(__file__).parent / "conformance").glob("*.gt"))

for _module in pkgutil.iter_modules(ops_package.__path__):
    importlib.import_module(f"gradtrace.engine.ops.{_module.name}")


def node_classes() -> list[type]:
    """Every node class an op can record: Function subclasses (and CopySlices), not the
    shared bases (`_ZeroGrad`, `ViewFunction`, ...)."""
    found: list[type] = [CopySlices]
    stack = [Function]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            if not sub.__name__.startswith("_") and sub is not ViewFunction \
                    and sub not in found:
                found.append(sub)
    return sorted(found, key=lambda c: c.__name__)


def test_every_node_class_has_formulas():
    classes = node_classes()
    assert len(classes) > 100
    missing = [c.__name__ for c in classes if not c.formulas]
    assert missing == []
    for cls in classes:
        for formula in cls.formulas:
            assert formula.kind in (LOCAL, VJP, UNDEFINED), cls.__name__
            assert formula.kind == UNDEFINED or formula.math, cls.__name__


# words a formula may use outside braces: math and PyTorch notation, never a sentence
NOTATION = {"if", "else", "for", "in", "class", "t", "tensors", "fn", "view", "ln", "exp",
            "cos", "sin", "sgn", "floor", "outer", "stack", "cat", "zeros", "zeros_like",
            "argsort", "dim", "keepdim", "accumulate", "True", "shape", "nll"}


def test_formulas_are_math_not_sentences():
    for cls in node_classes():
        for formula in cls.formulas:
            text = re.sub(r"{\w+}", "X", formula.math)
            for match in re.finditer(r"[A-Za-z_][A-Za-z_0-9]*", text):
                word, end = match.group(), match.end()
                method = match.start() > 0 and text[match.start() - 1] == "."
                call = text[end:end + 1] in ("(", "=", "′", "″")
                assert word == "X" or method or call or word in NOTATION, \
                    (cls.__name__, formula.math, word)


def _nodes_of(tensors: list[Tensor]) -> list[Node]:
    seen = reachable_nodes(t.grad_fn for t in tensors if t is not None)
    return [n for n in seen.values() if not isinstance(n, AccumulateGrad)]


# the gradcheck corpus: every differentiable op, first order and (create_graph) second
CORPUS = [(module, name)
          for module in (test_gradcheck, test_gradcheck_added, test_gradcheck_linalg)
          for name in module.CASES]


def _run_case(module, name: str) -> tuple[list[Tensor], list[Tensor], list[Tensor | None]]:
    """A gradcheck case's inputs, outputs (with a grad_fn) and first-order gradients, built
    with create_graph so that the backward's own nodes are recorded too (from the outputs'
    squares, so that the gradients they receive depend on the inputs as well)."""
    fn, build = module.CASES[name]
    inputs = float64_leaves(build(module._rng(name)))
    out = fn(*inputs)
    outs = list(out) if isinstance(out, tuple) else [out]
    outs = [o for o in outs if isinstance(o, Tensor) and o.grad_fn is not None]
    total = sum((o * o).sum() for o in outs)
    grads = autograd_grad(total, inputs, create_graph=True, allow_unused=True)
    return inputs, outs, list(grads)


def _recorded_nodes() -> list[Node]:
    """The nodes every gradcheck case records, forward and (create_graph) backward."""
    nodes = []
    for module, name in CORPUS:
        _, outs, grads = _run_case(module, name)
        nodes += _nodes_of(outs)
        nodes += _nodes_of([g for g in grads if g is not None])
    return nodes


@pytest.fixture(scope="module")
def recorded() -> list[Node]:
    return _recorded_nodes()


def test_every_recorded_node_has_a_formula_for_each_input(recorded):
    kinds = set()
    for node in recorded:
        kinds.add(type(node).__name__)
        chosen = formulas_of(node)
        assert len(chosen) == len(node.next_functions)
        assert None not in chosen, (node.name(), [f and f.input for f in chosen])
    assert len(kinds) > 180


def test_formula_operands_name_what_the_node_has(recorded):
    for node in recorded:
        chosen = formulas_of(node)
        names = {input_name(f, i) for i, f in enumerate(chosen)}
        names |= {f.input for f in chosen if f is not None}
        known = names | set(node.saved or {}) | set(node.attrs or {}) | {"grad", "result", "i"}
        for formula in chosen:
            unknown = set(formula.operands) - known
            assert not unknown, (node.name(), formula.math, unknown)


IN_PLACE_ACTIVATIONS = {
    "elu_": lambda x: F.elu_(x, 0.5), "celu_": lambda x: F.celu_(x, 0.5),
    "leaky_relu_": lambda x: F.leaky_relu_(x, 0.1), "relu_": lambda x: F.relu_(x),
    "threshold_": lambda x: F.threshold_(x, 0.1, 2.0), "hardtanh_": lambda x: F.hardtanh_(x),
    "selu": lambda x: F.selu(x, inplace=True),
    "rrelu_": lambda x: F.rrelu_(x), "rrelu_ (training)": lambda x: F.rrelu_(x, training=True),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_ACTIVATIONS))
def test_in_place_activation_formulas_read_only_what_the_node_saved(name):
    """An in-place op overwrites its input, so its formula must be written in the saved
    result (elu_'s is result + alpha × scale), not in the input's name."""
    x = leaf(np.array([-1.5, -0.2, 0.3, 2.0])) * 1
    node = IN_PLACE_ACTIVATIONS[name](x).grad_fn
    for formula in formulas_of(node):
        unknown = set(formula.operands) - set(node.saved or {}) - set(node.attrs or {}) - {
            "grad"}
        assert not unknown, (node.name(), formula.math, unknown)


# -- replay: the op's own backward on the values the trace kept ---------------------------


def test_replay_gives_what_the_engine_sent_for_every_backward_step():
    checked = 0
    for script in SCRIPTS:
        result = run_source(load_source(str(script)), trace=True)
        for call in result.trace.backward_calls:
            nodes = {r.id: r for r in result.trace.nodes.values()}
            for step in call.steps:
                record = nodes[step.node_id]
                if step.accumulated is not None or any(g is None for g in step.received):
                    continue
                saved = {s.name: s.value for s in record.saved}
                saved.update({k: v for k, v in step.saved.items() if v is not None})
                try:
                    sent = replay(record.node, list(step.received), saved,
                                  create_graph=call.create_graph)
                except Exception:  # freed inner nodes (CopySlices), ops without a derivative
                    continue
                for flow in step.sent:
                    if flow.grad is None or sent[flow.index] is None:
                        continue
                    _assert_kept_equal(sent[flow.index], flow.grad,
                                       f"{script.name}: {record.name}")
                    checked += 1
    assert checked > 100


def _assert_kept_equal(replayed: np.ndarray, kept, where: str) -> None:
    """A large gradient is kept as a Summary: compare the replayed one by what the trace
    kept of it (shape, dtype, first values and the printed corners)."""
    if isinstance(kept, Summary):
        mine = Summary.of(np.asarray(replayed))
        assert (mine.shape, mine.dtype) == (kept.shape, kept.dtype), where
        np.testing.assert_array_equal(mine.head, kept.head, err_msg=where)
        np.testing.assert_array_equal(mine.corners, kept.corners, err_msg=where)
        return
    np.testing.assert_array_equal(replayed, kept, err_msg=where)


class _StepRecorder:
    """An engine observer keeping, for every backward step, the node, the gradients it
    received and sent, and the values its saved tensors held (copies: the engine may add
    into a gradient in place later)."""

    def __init__(self) -> None:
        self.steps: list[tuple[Node, list, dict, list, bool]] = []

    def on_node(self, node: Node, grad_outputs: list, grad_inputs: list) -> None:
        def copy(g):
            return None if g is None else np.array(g.array)

        saved = {k: None if v is None else np.array(v.tensor.array)
                 for k, v in (node.saved or {}).items()}
        self.steps.append((node, [copy(g) for g in grad_outputs], saved,
                           [copy(g) for g in grad_inputs], GRAD_MODE.enabled))

    def __getattr__(self, name: str):
        if name.startswith("on_"):
            return lambda **facts: None
        raise AttributeError(name)


def test_replay_gives_what_the_engine_sent_on_the_gradcheck_corpus():
    """Every node of every case, forward and backward nodes alike, run again by replay on
    the values it received and saved gives the engine's gradients bit for bit: so each
    backward reads its state only through what a node copy carries."""
    kinds = set()
    for module, name in CORPUS:
        recorder = _StepRecorder()
        events.OBSERVERS.append(recorder)
        try:
            inputs, _, grads = _run_case(module, name)
            grads = [g for g in grads if g is not None and g.requires_grad]
            if name in module.SECOND_ORDER and grads:  # through the backward's own nodes
                autograd_grad(sum((g * 1.0).sum() for g in grads), inputs, allow_unused=True)
        finally:
            events.OBSERVERS.remove(recorder)
        for node, received, saved, sent, create_graph in recorder.steps:
            kinds.add(type(node).__name__)
            if all(g is None for g in received):
                continue
            replayed = replay(node, received, saved, create_graph=create_graph)
            assert len(replayed) == len(sent), (name, node.name())
            for want, got in zip(sent, replayed, strict=True):
                if want is None:
                    assert got is None, (name, node.name())
                    continue
                if (name, node.name()) in REPLAY_ORDER_GAPS:  # (within 1 ulp, known)
                    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0)
                    continue
                np.testing.assert_array_equal(got, want, err_msg=f"{name}: {node.name()}")
    assert len(kinds) > 180


# The engine lays an elementwise product out in TensorIterator's order of its operands'
# strides (round 31), and then sums it back to a broadcast input's shape in that order; the
# replay's formula still runs numpy's order there, 1 ulp apart (not yet aligned).
REPLAY_ORDER_GAPS = {("kron", "MulBackward0")}


def test_replay_with_ones_gives_the_local_derivative():
    x = Tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = x * x
    local = replay(y.grad_fn, [np.ones(3, dtype=np.float32)], {"self": x.array,
                                                                 "other": x.array},
                   reduce=False)
    assert [v.tolist() for v in local] == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


def test_replay_records_nothing():
    a = Tensor(np.array([2.0]), requires_grad=True)
    b = a.exp()
    before = len(b.grad_fn.next_functions)
    out = replay(b.grad_fn, [np.ones(1)], {"result": np.array([5.0])})
    assert out[0].tolist() == [5.0]
    assert len(b.grad_fn.next_functions) == before and a.grad is None


def test_complex_nodes_show_the_conjugates_their_backward_takes():
    """A node that computed in a complex dtype shows torch's conjugate Wirtinger formulas
    (grad × conj(other) for a product); the same node class on real tensors keeps the real
    ones; angle of a real tensor sends 0."""
    z = torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([0.5, -1.0])).requires_grad_()
    x = leaf([1.0, -2.0])
    shown = {}
    for name, out in [("mul", z * (z + 1)), ("div", z / (z + 1)), ("exp", torch.exp(z)),
                      ("angle", z.angle()), ("real_mul", x * x), ("real_exp", torch.exp(x)),
                      ("real_angle", x.angle())]:
        shown[name] = [f.math for f in formulas_of(out.grad_fn)]
    assert shown["mul"] == ["conj({other})", "conj({self})"]
    assert shown["div"] == ["1 / conj({other})", "-conj({self} / {other}²)"]
    assert shown["exp"] == ["conj(exp({self})) = conj({result})"]
    assert shown["angle"][0].startswith("where(")
    assert shown["real_mul"] == ["{other}", "{self}"]
    assert shown["real_exp"] == ["exp({self}) = {result}"]
    assert shown["real_angle"] == ["0"]


def test_complex_matrix_products_show_conjugate_transposes():
    a = torch.complex(torch.ones(2, 3), torch.ones(2, 3)).requires_grad_()
    b = torch.complex(torch.ones(3, 2), torch.zeros(3, 2))
    assert [f.math for f in formulas_of((a @ b).grad_fn)] == ["{grad} @ {mat2}ᴴ",
                                                              "{self}ᴴ @ {grad}"]
    r = leaf([[1.0, 2.0], [3.0, 4.0]])
    assert [f.math for f in formulas_of((r @ r).grad_fn)] == ["{grad} @ {mat2}ᵀ",
                                                              "{self}ᵀ @ {grad}"]


def test_complex_dot_products_show_their_conjugates():
    z = torch.complex(torch.tensor([1.0, 2.0]), torch.tensor([0.5, -1.0])).requires_grad_()
    w = torch.complex(torch.tensor([3.0, 1.0]), torch.tensor([0.0, 2.0])).requires_grad_()
    assert [f.math for f in formulas_of(torch.dot(z, w).grad_fn)] == ["conj({tensor})",
                                                                      "conj({self})"]
    assert [f.math for f in formulas_of(torch.vdot(z, w).grad_fn)] == [
        "conj({grad}) × {other}", "{grad} × {self}"]
    x = leaf([1.0, -2.0])
    assert [f.math for f in formulas_of(torch.dot(x, x).grad_fn)] == ["{tensor}", "{self}"]
