"""Engine semantics, one DESIGN.md bullet at a time, through the Python API."""
from __future__ import annotations

import numpy as np
import pytest

from gradtrace.engine import backward as autograd
from gradtrace.engine import dtypes, ops
from gradtrace.engine.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from gradtrace.engine.ops import creation
from gradtrace.engine.tensor import Tensor
from gradtrace.errors import ScriptError


def t(values, requires_grad=False, dtype=None):
    return creation.tensor(values, requires_grad=requires_grad, dtype=dtype)


def test_leaf_created_by_user_has_no_grad_fn_and_is_leaf():
    a = t(2.0, requires_grad=True)
    assert a.is_leaf and a.grad_fn is None and a.grad is None


def test_result_of_ops_without_grad_is_a_leaf():
    c = t(2.0) * t(3.0)
    assert c.is_leaf and not c.requires_grad and c.grad_fn is None


def test_requires_grad_spreads_from_any_input():
    c = t(2.0, requires_grad=True) * t(3.0)
    assert c.requires_grad and not c.is_leaf and c.grad_fn.name() == "MulBackward0"


def test_next_functions_have_accumulate_grad_for_leaf_and_none_for_constant():
    a = t(2.0, requires_grad=True)
    c = a * t(3.0)
    (acc, nr), (none, nr2) = c.grad_fn.next_functions
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is a
    assert nr == 0 and none is None and nr2 == 0
    assert acc.next_functions == ()


def test_same_accumulate_grad_node_is_reused_for_a_leaf():
    a = t(2.0, requires_grad=True)
    x, y = a * 2, a * 3
    assert x.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[0][0]


def test_chain_rule_gives_12_8_6():
    a, b, d = (t(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    e = (a * b) * d
    e.backward()
    assert (a.grad.item(), b.grad.item(), d.grad.item()) == (12.0, 8.0, 6.0)


def test_grad_accumulates_until_zeroed():
    w = t([1.0, -2.0], requires_grad=True)
    for _ in range(3):
        (w * w).sum().backward()
    assert w.grad.tolist() == [6.0, -12.0]
    w.grad.zero_()
    assert w.grad.tolist() == [0.0, 0.0]


def test_integer_tensors_cannot_require_grad():
    with pytest.raises(ScriptError, match="Only Tensors of floating point and complex dtype"):
        t([1, 2], requires_grad=True)
    with pytest.raises(ScriptError, match="only Tensors of floating point dtype"):
        t([1, 2]).requires_grad_()


def test_requires_grad_false_on_non_leaf_raises_torch_message():
    y = t([1.0], requires_grad=True) * 2
    with pytest.raises(ScriptError, match="you can only change requires_grad flags of leaf"):
        y.requires_grad_(False)


def test_inplace_bumps_version_and_views_share_counter():
    x = t([1.0, 2.0, 3.0])
    v = x.view(3)
    d = x.detach()
    x.add_(1)
    assert x._version == v._version == d._version == 1
    assert x.data._version == 0  # .data has its own counter


def test_data_shares_storage_but_not_version():
    x = t([1.0], requires_grad=True)
    y = x * x * 4
    data = x.data
    data.mul_(100)
    y.backward()
    assert x.grad.tolist() == [800.0]  # silently wrong, like torch


def test_modified_saved_tensor_raises_version_error_naming_the_op():
    a, b, d = (t(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    c = a * b
    e = c * d
    c.add_(1)
    with pytest.raises(ScriptError) as err:
        e.backward()
    assert "[torch.FloatTensor []], which is output 0 of Add, is at version 1; expected " \
           "version 0 instead." in err.value.message


def test_modified_saved_output_names_the_saving_node():
    y = ops.sigmoid(t([1.0, 2.0], requires_grad=True))
    y.mul_(2)
    with pytest.raises(ScriptError, match="which is output 0 of Sigmoid"):
        y.sum().backward()


def test_inplace_on_leaf_requiring_grad_raises_unless_no_grad():
    x = t([1.0, 2.0], requires_grad=True)
    with pytest.raises(ScriptError, match="a leaf Variable that requires grad is being used"):
        x.add_(1)
    with no_grad():
        x.add_(1)
    assert x.tolist() == [2.0, 3.0] and x._version == 1


def test_second_backward_raises_unless_retain_graph():
    x = t(3.0, requires_grad=True)
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 12.0
    with pytest.raises(ScriptError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_second_backward_through_nodes_without_saved_tensors_is_allowed():
    x = t(3.0, requires_grad=True)
    y = x + 1
    y.backward()
    y.backward()
    assert x.grad.item() == 2.0


def test_nonscalar_backward_needs_gradient():
    y = t([1.0, 2.0], requires_grad=True) * 2
    with pytest.raises(ScriptError, match="grad can be implicitly created only for scalar"):
        y.backward()


def test_grad_mode_contexts_nest_and_restore():
    x = t(1.0, requires_grad=True)
    with no_grad():
        a = x * 2
        with enable_grad():
            b = x * 2
        c = x * 2
    assert (a.requires_grad, b.requires_grad, c.requires_grad) == (False, True, False)
    assert is_grad_enabled()
    with set_grad_enabled(False):
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_broadcast_gradients_reduce_to_input_shape():
    a = t([[1.0], [2.0], [3.0]], requires_grad=True)
    b = t([[10.0, 20.0, 30.0, 40.0]], requires_grad=True)
    (a * b + a).sum().backward()
    assert a.grad.shape == (3, 1) and a.grad.tolist() == [[104.0]] * 3
    assert b.grad.tolist() == [[6.0] * 4]


def test_dtype_promotion_follows_torch():
    f64 = t([1.0], dtype=dtypes.float64)
    f32 = t([1.0])
    i64 = t([1])
    assert (f64 * f32).dtype is dtypes.float64
    assert (i64 * 2.5).dtype is dtypes.float32
    assert (i64 / 2).dtype is dtypes.float32
    assert (i64 * 2).dtype is dtypes.int64
    assert (t(2.0, dtype=dtypes.float64) * f32).dtype is dtypes.float32  # 0-dim ranks lower


def test_grad_dtype_matches_leaf_dtype():
    a = t([1.0, 2.0], dtype=dtypes.float64, requires_grad=True)
    b = t([3.0, 4.0], requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype is dtypes.float64 and b.grad.dtype is dtypes.float32


def test_autograd_grad_does_not_touch_grad_and_reports_unused_inputs():
    a = t(2.0, requires_grad=True)
    b = t(5.0, requires_grad=True)
    ga, gb = autograd.grad(a * b * b, [a, b])
    assert (ga.item(), gb.item()) == (25.0, 20.0) and a.grad is None
    with pytest.raises(ScriptError, match="at index 1 appears to not have been used"):
        autograd.grad(a * 2, [a, b])
    assert autograd.grad(a * 2, [b], allow_unused=True) == (None,)


def test_create_graph_records_backward_for_second_derivative():
    x = t(3.0, requires_grad=True)
    (g,) = autograd.grad(x ** 3, x, create_graph=True)
    assert g.item() == 27.0 and g.grad_fn.name() == "MulBackward0"
    (g2,) = autograd.grad(g, x)
    assert g2.item() == 18.0


def test_backward_inputs_limits_accumulation():
    a = t(2.0, requires_grad=True)
    b = t(5.0, requires_grad=True)
    (a * b).backward(inputs=[a])
    assert a.grad.item() == 5.0 and b.grad is None


def test_retain_grad_fills_non_leaf_grad():
    a = t(2.0, requires_grad=True)
    b = a * 3
    b.retain_grad()
    (b * b).backward()
    assert b.grad.item() == 12.0 and a.grad.item() == 36.0


def test_tensor_hook_can_replace_gradient():
    a = t(2.0, requires_grad=True)
    b = a * 3
    seen = []
    b.register_hook(lambda g: seen.append(g.item()) or g * 10)
    b.backward()
    assert seen == [1.0] and a.grad.item() == 30.0


def test_deep_graph_backward_needs_no_recursion():
    x = t(1.0, requires_grad=True)
    y = x
    for _ in range(50_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def test_execution_order_runs_most_recent_node_first():
    order = []
    x = t(1.0, requires_grad=True)
    a = x * 2
    b = x * 3
    a.register_hook(lambda g: order.append("a"))
    b.register_hook(lambda g: order.append("b"))
    (a + b).backward()
    assert order == ["b", "a"]


def test_tensor_wraps_python_scalars_as_torch_does():
    x = t([1.0], requires_grad=True)
    saved = (x * 2.5).grad_fn.unpack("other")
    assert saved.dtype is dtypes.float64 and saved.array.shape == ()
    assert (x * 2).grad_fn.unpack("self") is None


def test_zeros_like_keeps_dtype():
    assert creation.zeros_like(t([1, 2])).dtype is dtypes.int64
    assert np.array_equal(creation.ones(2, 3).array, np.ones((2, 3), np.float32))


def test_tensor_from_ragged_list_raises_value_error():
    with pytest.raises(ScriptError, match="expected sequence of length 2 at dim 1"):
        t([[1.0, 2.0], [3.0]])


def test_deleted_tensor_free_accumulator_is_recreated():
    x = Tensor(np.array(1.0, np.float32), requires_grad=True)
    assert (x * 1).grad_fn.next_functions[0][0].variable is x


@pytest.mark.parametrize("avx512", [False, True])
@pytest.mark.parametrize(("xs", "ws", "kwargs"), [
    ((2, 3, 8, 8), (8, 3, 3, 3), dict(padding=1)),  # oneDNN's AVX2 or AVX-512 order
    ((2, 4, 7, 7), (8, 2, 3, 3), dict(stride=2, groups=2)),  # grouped: float64 everywhere
    ((2, 3, 9), (6, 3, 3), dict(dilation=2)),
])
def test_convolution_results_and_gradients_are_contiguous_on_every_kernel_path(
        xs, ws, kwargs, avx512, monkeypatch):
    """torch's convolution output and gradients are contiguous; a float64 fallback's einsum
    picks its own layout, which view() and stride() would otherwise show."""
    from gradtrace.engine import onednn
    from gradtrace.engine.ops import conv

    monkeypatch.setattr(onednn, "AVX512_CORE", avx512)
    rng = np.random.default_rng(0)
    x, w, b = (Tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
               for s in (xs, ws, ws[:1]))
    out = (conv.conv1d if len(xs) == 3 else conv.conv2d)(x, w, b, **kwargs)
    autograd.backward(out.sum())
    for a in (out.array, x.grad.array, w.grad.array, b.grad.array):
        assert a.flags.c_contiguous
