"""All ops, and the table of Tensor methods they provide.

`TENSOR_METHODS` is the single list of methods a Tensor has: they are attached
to the Tensor class here, and the interpreter allows exactly these names.
"""
from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor
from .arithmetic import (
    add, add_, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, div, div_, eq, floor_divide,
    ge, gt, le, logical_not, lt, mul, mul_, ne, neg, pow, pow_, rdiv, remainder, rpow, rsub,
    sub, sub_,
)
from ._util import apply_inplace
from .creation import FillBackward0, ZeroBackward0, ones_like, zeros_like
from .reductions import mean, sum, where
from .unary import (
    abs, ceil, clamp, clamp_, clamp_max, clamp_min, cos, exp, exp_, expm1, floor, log, log1p,
    reciprocal, relu, relu_, round, sgn, sigmoid, sigmoid_, sign, sin, sqrt, tanh, tanh_, trunc,
)
from .views import alias, clone, expand, expand_as, reshape, squeeze, to, unsqueeze, view


def zero_(t: Tensor) -> Tensor:
    return apply_inplace(ZeroBackward0, t)


def fill_(t: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    return apply_inplace(FillBackward0, t, value=value)


TENSOR_METHODS: dict[str, Callable[..., Any]] = {
    "add": add, "add_": add_, "sub": sub, "sub_": sub_, "mul": mul, "mul_": mul_,
    "div": div, "div_": div_, "neg": neg, "pow": pow, "pow_": pow_, "remainder": remainder,
    "floor_divide": floor_divide, "rsub": rsub,
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "logical_not": logical_not,
    "exp": exp, "exp_": exp_, "log": log, "log1p": log1p, "expm1": expm1, "sin": sin,
    "cos": cos, "tanh": tanh, "tanh_": tanh_, "sigmoid": sigmoid, "sigmoid_": sigmoid_,
    "relu": relu, "relu_": relu_, "sqrt": sqrt, "abs": abs, "reciprocal": reciprocal,
    "clamp": clamp, "clamp_": clamp_, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "clip": clamp, "floor": floor, "ceil": ceil, "round": round, "trunc": trunc, "sign": sign,
    "sgn": sgn,
    "sum": sum, "mean": mean, "where": lambda self, condition, other: where(condition, self,
                                                                                    other),
    "view": view, "reshape": reshape, "expand": expand, "expand_as": expand_as,
    "unsqueeze": unsqueeze, "squeeze": squeeze, "clone": clone, "to": to, "alias": alias,
    "zero_": zero_, "fill_": fill_,
}

for _name, _fn in TENSOR_METHODS.items():
    setattr(Tensor, _name, _fn)

__all__ = [
    "TENSOR_METHODS", "add", "sub", "rsub", "mul", "div", "rdiv", "neg", "pow", "rpow",
    "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "where", "ones_like", "zeros_like",
]
