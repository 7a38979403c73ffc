"""The in-place `_` forms of the elementwise ops: the same node as the op, written into
self (apply_inplace: torch's leaf/view/version rules, `self` saved as a clone)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..node import Function
from ..tensor import Tensor, as_tensor_operand
from . import pointwise, rounding, transcendental, unary
from ._util import apply_inplace
from .arithmetic import NegBackward0, pow_
from .fused import addcdiv_, addcmul_, lerp_

# method name -> the node its in-place form records
_UNARY: dict[str, type[Function]] = {
    "abs": unary.AbsBackward0, "neg": NegBackward0, "exp": unary.ExpBackward0,
    "log": unary.LogBackward0, "log1p": unary.Log1PBackward0, "expm1": unary.Expm1Backward0,
    "sin": unary.SinBackward0, "cos": unary.CosBackward0, "tanh": unary.TanhBackward0,
    "sigmoid": unary.SigmoidBackward0, "relu": unary.ReluBackward0,
    "sqrt": unary.SqrtBackward0, "rsqrt": unary.RsqrtBackward0,
    "reciprocal": unary.ReciprocalBackward0, "floor": unary.FloorBackward0,
    "ceil": unary.CeilBackward0, "trunc": unary.TruncBackward0, "sign": unary.SignBackward0,
    "sgn": unary.SgnBackward0,
    **{name: node for name, (_, node) in transcendental.FUNCTIONS.items()},
}
# torch's other spellings of the same in-place ops
_ALIASES = {"absolute": "abs", "negative": "neg", "fix": "trunc", **transcendental.ALIASES}


def _unary_inplace(node: type[Function]) -> Callable[[Tensor], Tensor]:
    def op(a: Tensor) -> Tensor:
        return apply_inplace(node, a)

    op.__doc__ = f"in place, recording {node.__name__}"
    return op


def round_(a: Tensor, decimals: int = 0) -> Tensor:
    if decimals:
        return apply_inplace(unary.RoundBackward1, a, decimals=decimals)
    return apply_inplace(unary.RoundBackward0, a)


def square_(a: Tensor) -> Tensor:
    return pow_(a, 2)


def clamp_min_(a: Tensor, min: Any) -> Tensor:  # noqa: A002
    if isinstance(min, Tensor):
        return apply_inplace(pointwise.ClampMinBackward1, a, min)
    return apply_inplace(pointwise.ClampMinBackward0, a, bound=min)


def clamp_max_(a: Tensor, max: Any) -> Tensor:  # noqa: A002
    if isinstance(max, Tensor):
        return apply_inplace(pointwise.ClampMaxBackward1, a, max)
    return apply_inplace(pointwise.ClampMaxBackward0, a, bound=max)


def fmod_(a: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(rounding.FmodBackward1, a, other)
    return apply_inplace(rounding.FmodBackward0, a, other=as_tensor_operand(other))


def remainder_(a: Tensor, other: Any) -> Tensor:
    from .arithmetic import RemainderBackward1

    if isinstance(other, Tensor):
        return apply_inplace(RemainderBackward1, a, other)
    return apply_inplace(rounding.RemainderBackward0, a, other=as_tensor_operand(other))


def atan2_(a: Tensor, other: Tensor) -> Tensor:
    return apply_inplace(pointwise.Atan2Backward0, a, other)


def hypot_(a: Tensor, other: Tensor) -> Tensor:
    return apply_inplace(pointwise.HypotBackward0, a, other)


def xlogy_(a: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return apply_inplace(pointwise.XlogyBackward0, a, other)
    return apply_inplace(pointwise.XlogyBackward2, a, number=as_tensor_operand(other))


INPLACE_METHODS: dict[str, Callable[..., Any]] = {
    **{f"{name}_": _unary_inplace(node) for name, node in _UNARY.items()},
    **{f"{alias}_": _unary_inplace(_UNARY[name]) for alias, name in _ALIASES.items()},
    "round_": round_, "square_": square_, "clamp_min_": clamp_min_, "clamp_max_": clamp_max_,
    "clip_": unary.clip_, "clamp_": unary.clamp_, "fmod_": fmod_, "remainder_": remainder_,
    "lerp_": lerp_,
    "addcmul_": addcmul_, "addcdiv_": addcdiv_, "atan2_": atan2_, "hypot_": hypot_,
    "xlogy_": xlogy_,
}

# the in-place functions torch also offers as torch.<name>_ (measured on torch 2.13)
TORCH_INPLACE = (
    "abs_", "neg_", "exp_", "log_", "log1p_", "expm1_", "sin_", "cos_", "tan_", "asin_",
    "acos_", "atan_", "sinh_", "cosh_", "tanh_", "asinh_", "acosh_", "atanh_", "sqrt_",
    "rsqrt_", "sigmoid_", "relu_", "reciprocal_", "floor_", "ceil_", "round_", "trunc_",
    "frac_", "log2_", "log10_", "exp2_", "erf_", "erfc_", "square_", "arcsin_", "arccos_",
    "arctan_", "arcsinh_", "arccosh_", "arctanh_", "fix_", "negative_", "clamp_", "clamp_min_",
    "clamp_max_", "clip_", "xlogy_",
)
