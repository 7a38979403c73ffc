"""Differential tests against live PyTorch for the ops added for real code (issue 12):
values, gradients, node names, next_functions, saved values, errors and warnings
(check_case of test_ops_torch_diff), and the graphs create_graph=True records.

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

POINTWISE = [
    # unary functions
    "x.tan()", "p.asin()", "p.acos()", "x.atan()", "x.sinh()", "x.cosh()", "x.asinh()",
    "(P + 1).acosh()", "p.atanh()", "P.log2()", "P.log10()", "x.exp2()", "x.erf()",
    "x.erfc()", "p.erfinv()", "x.frac()", "torch.tan(x)", "torch.arcsin(p)", "torch.arctan(x)",
    "torch.erfinv(torch.tensor([-1.0, 1.0, 0.5, 2.0]))", "torch.erf(tgt)", "torch.exp2(tgt)",
    "torch.frac(tgt)", "torch.log2(tgt)", "x.absolute()", "x.negative()", "x.fix()",
    # binary and ternary
    "torch.atan2(x, y)", "torch.atan2(x, v)", "x.arctan2(y)", "torch.hypot(x, y)",
    "torch.hypot(x, v)", "torch.logaddexp(x, y)", "torch.logaddexp(x, v)",
    "torch.logaddexp(torch.tensor([float('inf')]), torch.tensor([float('inf')]))",
    "torch.xlogy(P, y.abs())", "torch.xlogy(x, 2.0)", "torch.xlogy(2.0, P)",
    "torch.xlogy(x, P)", "torch.xlogy(torch.zeros(3), v)", "torch.lerp(x, y, 0.3)",
    "torch.lerp(x, y, 0.7)", "torch.lerp(x, y, P)", "torch.lerp(x, v, 0.5)", "x.lerp(y, q)",
    "torch.lerp(x, x64, 0.5)", "torch.addcmul(x, y, P)", "torch.addcmul(x, y, v, value=2.5)",
    "x.addcmul(y, P, value=-1)", "torch.addcdiv(x, y, P)", "torch.addcdiv(x, y, P, value=0.5)",
    "torch.addcdiv(x, v, P)", "torch.addcdiv(tgt, tgt, tgt)", "torch.fmod(x, 0.7)",
    "torch.fmod(x, P)", "x.fmod(v)", "torch.fmod(tgt, 2)",
    # clamp with tensor bounds, clamp_min/clamp_max
    "x.clamp(-P, P)", "x.clamp(min=v)", "x.clamp(max=v)", "x.clamp(v, 0.5)", "x.clamp(y, -P)",
    "torch.clamp(x, min=y)", "x.clamp_min(0.2)", "x.clamp_max(0.2)", "x.clamp_min(y)",
    "x.clamp_max(v)", "torch.clamp_min(x, 0.1)", "torch.clamp_max(x, y)", "x.clip(-0.5, v)",
]

INPLACE = [f"y2 = x * 1\nout = y2.{m}_()" for m in (
    "abs", "neg", "exp", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "asinh", "sigmoid",
    "relu", "reciprocal", "floor", "ceil", "round", "trunc", "frac", "exp2", "erf", "erfc",
    "square", "sign", "fix", "negative", "absolute", "arctan", "arcsinh")] + [
    f"y2 = P * 1\nout = y2.{m}_()" for m in ("log", "log1p", "sqrt", "rsqrt", "log2", "log10")
] + [f"y2 = p * 1\nout = y2.{m}_()" for m in ("asin", "acos", "atanh", "erfinv", "arcsin")] + [
    "y2 = P + 1\nout = y2.acosh_()", "y2 = x * 1\nout = y2.expm1_()",
    "y2 = x * 1\nout = y2.round_(decimals=1)", "y2 = x * 1\nout = y2.clamp_min_(0.1)",
    "y2 = x * 1\nout = y2.clamp_max_(v)", "y2 = x * 1\nout = y2.clamp_(y, P)",
    "y2 = x * 1\nout = y2.clamp_(v, 0.5)", "y2 = x * 1\nout = y2.clip_(-0.5, 0.5)",
    "y2 = x * 1\nout = y2.fmod_(0.5)", "y2 = x * 1\nout = y2.fmod_(P)",
    "y2 = x * 1\nout = y2.remainder_(0.5)", "y2 = x * 1\nout = y2.remainder_(P)",
    "y2 = x * 1\nout = y2.lerp_(y, 0.25)", "y2 = x * 1\nout = y2.lerp_(y, P)",
    "y2 = x * 1\nout = y2.addcmul_(y, P, value=2)", "y2 = x * 1\nout = y2.addcdiv_(y, P)",
    "y2 = x * 1\nout = y2.atan2_(y)", "y2 = x * 1\nout = y2.hypot_(y)",
    "y2 = P * 1\nout = y2.xlogy_(P)", "y2 = P * 1\nout = y2.xlogy_(3.0)",
    "y2 = x * 1\nout = torch.cos_(y2)", "y2 = x * 1\nout = torch.clamp_min_(y2, 0.0)",
    "y2 = x * 1\nout = y2[0].cos_()", "y2 = x * 1\nw2 = y2[:, 1]\nw2.tan_()\nout = y2",
    "x.cos_()", "x.detach().sqrt_()", "tgt.sqrt_()", "y2 = x * 1\nout = y2.addcmul_(y, q)",
    "y2 = x * 1\nz = y2.sin()\ny2.cos_()\nout = z",
    "y2 = x * 1\nw2 = y2.unbind()[0]\nw2.exp2_()\nout = w2",
]

SECOND = [
    "x.tan()", "p.asin()", "p.acos()", "x.atan()", "x.sinh()", "x.cosh()", "x.asinh()",
    "(P + 1).acosh()", "p.atanh()", "P.log2()", "P.log10()", "x.exp2()", "x.erf()", "x.erfc()",
    "p.erfinv()", "x.frac() * y", "torch.atan2(x, y)", "torch.hypot(x, y)",
    "torch.logaddexp(x, y)", "torch.xlogy(P, y.abs() + 0.5)", "torch.xlogy(x, 2.0)",
    "torch.xlogy(2.0, P)", "torch.lerp(x, y, 0.3) ** 2", "torch.lerp(x, y, P)",
    "torch.addcmul(x, y, P, value=2)", "torch.addcdiv(x, y, P, value=0.5)",
    "torch.fmod(x, P) * y", "x.clamp(-P, P) * y", "x.clamp_min(y) * x", "x.clamp_max(0.2) * x",
]


@pytest.mark.parametrize("code", POINTWISE + INPLACE)
def test_matches_torch(code: str) -> None:
    check_case(code)


@pytest.mark.parametrize("code", SECOND)
def test_second_order(code: str) -> None:
    test_second_order_matches_torch(code)


@pytest.mark.parametrize("code", SECOND)
def test_create_graph(code: str) -> None:
    test_create_graph_records_torchs_nodes(code)
