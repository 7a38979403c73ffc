"""Differential tests against live PyTorch for the tensor API added for real code (issue
12's held-out corpora): torch's aliases and in-place forms, the composite shape functions,
the NaN-aware and sign ops, torch.special: values, gradients, node names, next_functions,
saved values, errors and warnings (check_case of test_ops_torch_diff), and the graphs
create_graph=True records.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest

pytest.importorskip("torch")
from test_ops_torch_diff import (  # noqa: E402
    check_case,
    test_create_graph_records_torchs_nodes,
    test_second_order_matches_torch,
)

ALIASES = [
    "torch.greater(x, y)", "torch.greater_equal(x, 0.0)", "torch.less(x, y)",
    "torch.less_equal(x, v)", "torch.not_equal(x, y)", "x.greater(y)", "x.not_equal(0.5)",
    "torch.multiply(x, y)", "x.multiply(2.0)", "torch.subtract(x, y, alpha=2)",
    "x.subtract(v)", "torch.divide(x, P)", "torch.divide(x, P, rounding_mode='floor')",
    "torch.true_divide(x, 2)", "x.true_divide(P)", "torch.moveaxis(B, 0, 2)",
    "x.moveaxis(1, 0)", "torch.positive(x)", "torch.positive(torch.tensor([True]))",
    "torch.bitwise_left_shift(tgt, 3)", "torch.bitwise_right_shift(torch.tensor([-8, 9]), 2)",
    "torch.bitwise_left_shift(tgt, torch.tensor([1, 70]))", "torch.bitwise_left_shift(x, 1)",
]

INPLACE = [f"y2 = x * 1\nout = y2.{m}_(y)" for m in (
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "logical_and", "logical_or", "logical_xor", "multiply", "subtract", "divide",
    "true_divide", "copysign")] + [
    f"y2 = x * 1\nout = y2.{m}_(0.5)" for m in ("eq", "lt", "ge", "multiply", "copysign")] + [
    "y2 = x * 1\nout = y2.logical_not_()", "x.eq_(y)", "out = x.logical_and_(y)",
    "y2 = x.detach().clone()\nout = y2.lt_(v)", "y2 = x * 1\nout = y2.cumsum_(1)",
    "y2 = x * 1\nout = y2.cumprod_(0)", "y2 = x * 1\nout = y2.floor_divide_(0.5)",
    "y2 = x * 1\nout = y2.floor_divide_(P)", "y2 = torch.tensor([5, 6])\nout = y2.eq_(5)",
    "y2 = torch.tensor([5, 6])\nout = y2.bitwise_and_(3)",
    "y2 = torch.tensor([5, 6])\nout = y2.bitwise_or_(torch.tensor([1, 2]))",
    "y2 = torch.tensor([5, 6])\nout = y2.bitwise_left_shift_(2)",
    "y2 = torch.tensor([5, 6])\nout = y2.bitwise_not_()", "y2 = x * 1\nout = y2.bitwise_and_(y)",
    "x.bitwise_xor_(y)", "y2 = x * 1\nout = y2.deg2rad_()", "y2 = x * 1\nout = y2.rad2deg_()",
    "y2 = x / 0\nout = y2.nan_to_num_()", "y2 = x * 1\nout = torch.deg2rad_(y2)",
    "y2 = x64 * 1\nout = y2.float_power_(2)", "y2 = x * 1\nout = y2.float_power_(2)",
    "y2 = x * 1\nout = y2.heaviside_(y)", "y2 = x * 1\nw2 = y2[0]\nw2.eq_(0.5)\nout = y2",
]

SHAPES = [
    "torch.hstack([x, y])", "torch.hstack((v, u))", "torch.hstack([x[0, 0], v])",
    "torch.vstack([x, y, v])", "torch.row_stack((v, u))", "torch.dstack([x, y])",
    "torch.dstack([v, u])", "torch.column_stack([v, x.t()])", "torch.column_stack([x, y])",
    "torch.hstack([])", "torch.hstack(x)", "torch.vstack([x, tgt])",
    "torch.atleast_1d(x[0, 0])", "torch.atleast_1d(x)", "torch.atleast_1d(x[0, 0], v)",
    "torch.atleast_1d([x[0, 0], v])", "torch.atleast_2d(v)", "torch.atleast_2d(x[0, 0])",
    "torch.atleast_3d(v)", "torch.atleast_3d(x)", "torch.atleast_3d(B)",
    "torch.atleast_3d(x[0, 0])",
    "torch.tensor_split(x, 2, dim=1)", "torch.tensor_split(v, 2)",
    "torch.tensor_split(x, [1, 2], 1)",
    "torch.tensor_split(C, (1, 4), dim=-1)", "torch.tensor_split(v, torch.tensor([1]))",
    "torch.tensor_split(v, torch.tensor(2))", "torch.tensor_split(v, 0)",
    "torch.tensor_split(x[0, 0], 2)", "x.tensor_split(3, dim=1)",
    "torch.hsplit(x, 3)", "torch.hsplit(v, [1])", "torch.hsplit(x, 2)", "torch.vsplit(B, 2)",
    "torch.vsplit(v, 1)", "torch.dsplit(C, [2, 3])", "torch.dsplit(x, 1)", "x.hsplit([1])",
    "torch.meshgrid(v, u[:2], indexing='ij')", "torch.meshgrid(v, u[:2], indexing='xy')",
    "torch.meshgrid([v, u[:2], w[:1]], indexing='xy')", "torch.meshgrid(v, u)",
    "torch.meshgrid(v, indexing='xy')",
    "torch.meshgrid(v, tgt, indexing='ij')", "torch.meshgrid(v, u, indexing='yx')",
    "torch.broadcast_tensors(x, v)", "torch.broadcast_tensors(x, y)",
    "torch.broadcast_tensors(B, x, v[:1])", "torch.broadcast_tensors(x, u[:2])",
    "torch.broadcast_to(v, (2, 2, 3))", "v.broadcast_to((4, 3))", "torch.broadcast_to(x, (3,))",
    "torch.broadcast_shapes((2, 1), (1, 3))", "torch.broadcast_shapes((2, 3), 3, (4, 1, 1))",
    "torch.broadcast_shapes((2, 3), (4, 1, 2))", "torch.broadcast_shapes()",
    "torch.take_along_dim(x, idx, dim=1)", "torch.take_along_dim(x, tgt)",
    "torch.take_along_dim(B, torch.tensor([[[0, 2]]]), 2)", "x.take_along_dim(idx[:1], 1)",
    "torch.take_along_dim(x, idx * 1.0, 1)", "torch.take_along_dim(x, tgt, 1)",
    "torch.fliplr(x)", "torch.flipud(B)", "torch.fliplr(v)", "torch.flipud(x[0, 0])",
    "x.fliplr()", "torch.ravel(x)", "torch.ravel(x.t())", "B.transpose(0, 1).ravel()",
]

MATH = [
    "torch.nansum(x)", "torch.nansum(x / q.round())", "torch.nansum(B, 1)",
    "torch.nansum(B, (0, 2), keepdim=True)", "torch.nansum(tgt)", "x.nansum(dim=0)",
    "torch.nanmean(x / q.round())", "torch.nanmean(B, dim=-1)", "torch.nanmean(tgt)",
    "x.nanmean(1, keepdim=True)", "torch.copysign(x, y)", "torch.copysign(x, v)",
    "torch.copysign(x, -1.0)", "torch.copysign(tgt, -1)", "x.copysign(sign)",
    "torch.copysign(x * 0, y)", "torch.fmax(x, y)", "torch.fmin(x, v)",
    "torch.fmax(x, y / q.round())", "torch.fmin(x / q.round(), y)", "x.fmax(y)",
    "torch.fmax(tgt, torch.tensor([1, 1]))", "torch.nan_to_num(x / q.round())",
    "torch.nan_to_num(x / q.round(), nan=1.5, posinf=2.0, neginf=-3.0)",
    "torch.nan_to_num(x64 / 0)", "torch.nan_to_num(tgt)", "x.nan_to_num(0.0)",
    "torch.deg2rad(x)", "torch.rad2deg(x)", "torch.deg2rad(tgt)", "x64.rad2deg()",
    "torch.deg2rad(B * 100)",
    "torch.signbit(x)", "torch.signbit(x * 0)", "torch.signbit(tgt - 1)",
    "torch.isposinf(x / q.round())", "torch.isneginf(x / q.round())", "torch.isposinf(tgt)",
    "torch.isreal(x)", "torch.heaviside(x, y)", "torch.heaviside(x * (q > 0.5), v)",
    "torch.heaviside(x, tgt)", "torch.float_power(x, 2)", "torch.float_power(x, y)",
    "torch.float_power(2, x)", "torch.float_power(x64, 0.5)", "x.float_power(P)",
    "torch.special.expit(x)", "torch.special.ndtr(x)", "torch.special.logit(p)",
    "torch.special.logit(p, eps=0.1)", "torch.special.xlogy(x, P)",
    "torch.special.softmax(x, 1)", "torch.special.log_softmax(x, 0)",
    "torch.special.logsumexp(x, 1)", "torch.special.erf(x)", "torch.special.expm1(x)",
    "torch.special.exp2(x)", "torch.special.log1p(P)", "torch.special.erfinv(p)",
]

UTILITIES = [
    "torch.can_cast(torch.float32, torch.int32)",
    "torch.can_cast(torch.int64, torch.uint8)", "torch.can_cast(torch.int32, torch.bool)",
    "torch.can_cast(torch.bool, torch.float16)", "torch.is_floating_point(x)",
    # c10's canCast (round 63): complex to real refused, any integral to any integral allowed
    "torch.can_cast(torch.complex64, torch.float32)",
    "torch.can_cast(torch.complex128, torch.int64)",
    "torch.can_cast(torch.float32, torch.complex64)", "torch.can_cast(torch.int32, torch.uint8)",
    "y2 = torch.tensor([1, 2, 3], dtype=torch.uint8)\n"
    "out = y2.mul_(torch.tensor([2, 3, 300], dtype=torch.int32))",
    "y2 = torch.tensor([1, 2], dtype=torch.int8)\n"
    "out = y2.add_(torch.tensor([200, 3], dtype=torch.uint8))",
    "y2 = torch.ones(2)\nout = torch.add(torch.ones(2, dtype=torch.complex64), 1, out=y2)",
    "y2 = torch.ones(2)\nout = y2.mul_(torch.ones(2, dtype=torch.complex64))",
    "torch.is_complex(x)", "torch.is_signed(tgt)",
    "torch.is_signed(torch.tensor([1], dtype=torch.uint8))", "torch.is_nonzero(x[0, :1])",
    "torch.is_nonzero(x)", "torch.is_nonzero(x[:0])", "torch.is_same_size(x, y)",
    "torch.scalar_tensor(3)", "torch.scalar_tensor(2.5, dtype=torch.float64)",
    "torch.fill(x, 2.0)", "torch.fill(x, y[0, 0])", "torch.fill(x, v)", "torch.detach(x)",
    "torch.get_num_threads() > 0", "torch.are_deterministic_algorithms_enabled()",
    "torch.get_float32_matmul_precision()", "torch.asarray([1, 2])", "torch.asarray(3.5)",
    "torch.asarray(x, requires_grad=False)", "torch.asarray(y2 := x.detach(), copy=True)",
    "torch.asarray(tgt, dtype=torch.float32)",
    "torch.asarray([1.5], dtype=torch.float64, requires_grad=True)",
]

ARRANGEMENTS = [
    "torch.repeat_interleave(x, 2)", "x.repeat_interleave(3, dim=1)",
    "torch.repeat_interleave(B, 2, dim=-2)", "torch.repeat_interleave(x, 0, 0)",
    "torch.repeat_interleave(x, -1)", "torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0)",
    "torch.repeat_interleave(x, torch.tensor(2))", "torch.repeat_interleave(x.t(), 2)",
    "torch.repeat_interleave(x, torch.tensor([1, 2, 3]), dim=0)",
    "torch.repeat_interleave(x, torch.tensor([[1]]))", "torch.repeat_interleave(tgt)",
    "torch.repeat_interleave(torch.tensor([1, -2]))", "torch.repeat_interleave(x[0, 0], 3)",
    "torch.rot90(x)", "torch.rot90(x, 2)", "torch.rot90(x, -3, [1, 0])", "B.rot90(1, (2, 0))",
    "torch.rot90(x, 1, [0])", "torch.rot90(x, 1, [0, 0])", "torch.rot90(v)",
    "torch.diagflat(v)", "torch.diagflat(x, 1)", "torch.diagflat(x.t(), -1)",
    "torch.cartesian_prod(v, u[:2])", "torch.cartesian_prod(v)",
    "torch.cartesian_prod(v, u[:2], w[:2])", "torch.tril_indices(3, 3)",
    "torch.triu_indices(4, 3, 1)", "torch.tril_indices(3, 4, -1, dtype=torch.int32)",
    "torch.searchsorted(torch.tensor([1.0, 3.0, 5.0]), x)",
    "torch.searchsorted(torch.tensor([1, 3, 5]), 3, right=True)",
    "torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3], [5]]))",
    "torch.searchsorted(torch.tensor([1, 3, 5]), tgt, side='right', out_int32=True)",
    "torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0]))",
    "torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0]), right=True)",
    "torch.gcd(torch.tensor([12, 18, -8]), torch.tensor([8, 12, 6]))",
    "torch.lcm(torch.tensor([4, 6]), torch.tensor([6, 4]))", "torch.gcd(x, y)",
    "torch.hann_window(8)", "torch.hann_window(7, periodic=False, dtype=torch.float64)",
    "torch.hamming_window(6, True, 0.6, 0.3)", "torch.blackman_window(9)",
    "torch.bartlett_window(10)", "torch.bartlett_window(1, requires_grad=True)",
    "torch.hann_window(0)", "torch.hann_window(-1)", "torch.blackman_window(4, dtype=torch.int64)",
]

CASES = ALIASES + INPLACE + SHAPES + MATH + UTILITIES + ARRANGEMENTS


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code: str) -> None:
    check_case(code)


SECOND = [
    "torch.hstack([x, y]) ** 2", "torch.meshgrid(v, u, indexing='xy')[0] ** 2",
    "torch.take_along_dim(x, idx, dim=1) ** 2", "torch.nansum(x * x, 1)",
    "torch.nanmean(x * y)", "torch.copysign(x, y) * x", "torch.fmax(x, y) * y",
    "torch.nan_to_num(x) * x", "torch.deg2rad(x) * x", "torch.special.ndtr(x)",
    "torch.float_power(x, 3)", "torch.fill(x, y[0, 0]) * y[0, 0]",
    "torch.repeat_interleave(x, 2, dim=1) ** 2", "torch.rot90(x) ** 2",
    "torch.diagflat(v) ** 2", "torch.cartesian_prod(v, u) ** 2",
]


@pytest.mark.parametrize("code", SECOND)
def test_second_order(code: str) -> None:
    test_second_order_matches_torch(code)


@pytest.mark.parametrize("code", SECOND)
def test_create_graph(code: str) -> None:
    test_create_graph_records_torchs_nodes(code)


NUMPY_SCALARS = [
    "torch.asarray(np.float64(0.5))", "torch.asarray(np.int32(3))",
    "torch.asarray(np.float16(2))", "torch.asarray([np.float64(0.5)])",
    "torch.asarray(np.float64(0.5), dtype=torch.float32)", "torch.asarray(np.bool_(True))",
    "torch.tensor(np.float64(0.5))", "torch.as_tensor(np.float32(0.5))",
]


def test_asarray_keeps_a_numpy_scalars_dtype_like_torch() -> None:
    """torch.asarray, like torch.tensor and as_tensor, keeps a numpy scalar's dtype (round 63:
    it was read as the Python number it holds, np.float64(0.5) making a float32 tensor)."""
    from script_runs import each_expression, gradtrace_output, torch_output

    script = each_expression(NUMPY_SCALARS, "import numpy as np", dtype=True)
    assert gradtrace_output(script) == torch_output(script)


DTYPE_CONVERSIONS = [
    f"torch.{name}.{method}()" for name in (
        "float32", "float64", "bfloat16", "int64", "int8", "uint8", "bool", "complex64",
        "complex128") for method in ("to_complex", "to_real")] + [
    "torch.cfloat.to_real() == torch.float", "torch.double.to_complex() is torch.cdouble"]


def test_dtype_to_complex_and_to_real_like_torch() -> None:
    """torch.dtype.to_complex()/to_real() (round 63: missing): float32 and bfloat16 to
    complex64, float64 to complex128, complex to real, and c10's error for integral dtypes."""
    from script_runs import each_expression, gradtrace_output, torch_output

    script = each_expression(DTYPE_CONVERSIONS)
    assert gradtrace_output(script) == torch_output(script)


DEFAULT_TENSOR_TYPE = [
    "torch.from_numpy(np.zeros(2)).type(torch.Tensor)",
    "torch.from_numpy(np.arange(3)).type(torch.Tensor)",
    "torch.tensor([1, 2]).type('torch.Tensor')", "torch.ones(2).type(torch.Tensor)",
    "torch.ones(2, dtype=torch.float64, requires_grad=True).type(torch.Tensor).grad_fn.name()",
    "torch.ones(2).type(torch.LongTensor)", "torch.ones(2).type(3)",
]


def test_type_of_torch_tensor_is_the_default_tensor_type_like_torch() -> None:
    """`x.type(torch.Tensor)` (lkulowski/LSTM_encoder_decoder's numpy_to_torch) converts to the
    default tensor type, float32, or float64 after set_default_dtype (round 64: refused as
    'dtype must be a type, str, or dtype object')."""
    from script_runs import each_expression, gradtrace_output, torch_output

    script = each_expression(DEFAULT_TENSOR_TYPE, "import numpy as np", dtype=True)
    assert gradtrace_output(script) == torch_output(script)
    script = each_expression(DEFAULT_TENSOR_TYPE[:3],
                             "import numpy as np\ntorch.set_default_dtype(torch.float64)",
                             dtype=True) + "torch.set_default_dtype(torch.float32)\n"
    assert gradtrace_output(script) == torch_output(script)  # (torch's runs in this process)
