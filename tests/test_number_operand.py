"""`tensor * number`, `+`, `-` and `/` record the node `call(a, wrap_number(number))`
records, without building the number's tensor until something reads it (Function.call_number,
SavedNumber): the same values, next_functions, metadata, saved values, version checks and
gradients, with and without grad mode and observers."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import dtypes, events
from gradtrace.engine.grad_mode import no_grad, set_grad_enabled
from gradtrace.engine.node import SavedNumber
from gradtrace.engine.ops import creation
from gradtrace.engine.ops.arithmetic import AddBackward0, DivBackward0, MulBackward0, SubBackward0
from gradtrace.engine.tensor import wrap_number
from gradtrace.errors import TorchRuntimeError

CASES = [
    (dtype, shape, number)
    for dtype in (dtypes.float32, dtypes.float64, dtypes.float16)
    for shape in ((), (3,), (2, 3))
    for number in (0.9999, -2.5, 1e-300, float("inf"), float("nan"), 0.1)
]


def leaf(shape, dtype, requires_grad=True):
    values = np.linspace(-1.7, 2.3, int(np.prod(shape, dtype=int))).reshape(shape)
    return creation.tensor(values.tolist() if shape else float(values), dtype=dtype,
                           requires_grad=requires_grad)


def both(op, a, number):
    """The node recorded through call_number and through call with the wrapped number."""
    return op.call_number(a, number), op.call(a, wrap_number(number))


def same_node(fast, slow):
    assert fast.array.dtype == slow.array.dtype and fast.array.shape == slow.array.shape
    assert fast.array.tobytes() == slow.array.tobytes()
    assert fast.requires_grad == slow.requires_grad and fast.output_nr == slow.output_nr
    f, s = fast.grad_fn, slow.grad_fn
    assert type(f) is type(s)
    if f is None:
        return
    assert f.next_functions == s.next_functions
    assert f.input_meta == s.input_meta and f.output_meta == s.output_meta
    assert f.attrs == s.attrs and f.saved_names() == s.saved_names()
    for key in s.saved or ():
        a, b = f.unpack(key), s.unpack(key)
        assert (a is None) == (b is None)
        if b is not None:
            assert a.dtype is b.dtype and a.array.tobytes() == b.array.tobytes()
            assert a._wrapped == b._wrapped and a._version == b._version


@pytest.mark.parametrize("dtype,shape,number", CASES)
@pytest.mark.parametrize("op", [MulBackward0, AddBackward0, SubBackward0, DivBackward0])
def test_number_operand_records_the_node_the_wrapped_number_records(op, dtype, shape, number):
    a = leaf(shape, dtype)
    with np.errstate(all="ignore"):
        same_node(*both(op, a, number))
        with no_grad():
            same_node(*both(op, a, number))
        same_node(*both(op, leaf(shape, dtype, requires_grad=False), number))


@pytest.mark.parametrize("dtype,shape,number", CASES)
@pytest.mark.parametrize("op", [MulBackward0, DivBackward0])
def test_gradient_through_a_saved_number_is_the_wrapped_numbers(op, dtype, shape, number):
    grads = []
    for fast in (True, False):
        a = leaf(shape, dtype)
        with np.errstate(all="ignore"):
            y = op.call_number(a, number) if fast else op.call(a, wrap_number(number))
            y.sum().backward()
        grads.append(a.grad.array.tobytes())
    assert grads[0] == grads[1]


def test_a_saved_number_is_built_once_when_read_and_kept():
    a = leaf((2,), dtypes.float32)
    y = a * 0.5
    saved = y.grad_fn.saved["other"]
    assert type(saved) is SavedNumber and not saved.built()
    first = y.grad_fn.unpack("other")
    assert saved.built() and y.grad_fn.unpack("other") is first
    assert first._wrapped and first.dtype is dtypes.float64 and first.array.item() == 0.5


@pytest.mark.parametrize("divide", [False, True])
def test_a_saved_number_changed_in_place_fails_backward_like_any_saved_tensor(divide):
    a = leaf((2,), dtypes.float32)
    y = a / 3.0 if divide else a * 3.0
    y.grad_fn.unpack("other").add_(1)  # a script's `y.grad_fn._saved_other.add_(1)`
    with pytest.raises(TorchRuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


def test_a_saved_number_is_freed_with_the_graph():
    a = leaf((), dtypes.float32)
    y = a * 2.0
    y.backward()
    with pytest.raises(TorchRuntimeError, match="backward through the graph a second time"):
        y.grad_fn.unpack("other")


def test_create_graph_records_the_backward_product():
    a = leaf((), dtypes.float32)
    gradient = leaf((), dtypes.float32)  # requires grad: the product is recorded
    (a * 2.0).backward(gradient, create_graph=True)
    assert a.grad.requires_grad and a.grad.array.item() == np.float32(-3.4)
    _, (product, _) = a.grad.grad_fn.next_functions  # CopyBackwards of the recorded product
    assert product.name() == "MulBackward0"


def test_an_observer_sees_the_wrapped_number_as_the_ops_input():
    seen = []

    class Observer:
        def on_op(self, node, name, inputs, outputs):
            seen.append([t.array.item() if t._wrapped else "tensor" for t in inputs])

    observer = Observer()
    events.OBSERVERS.append(observer)
    try:
        with set_grad_enabled(True):
            leaf((), dtypes.float32) * 0.25
    finally:
        events.OBSERVERS.remove(observer)
    assert seen == [["tensor", 0.25]]
