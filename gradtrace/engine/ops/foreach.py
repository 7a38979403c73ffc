"""torch's in-place foreach ops over lists of tensors (_foreach_mul_, _foreach_add_,
_foreach_sub_, _foreach_div_, _foreach_lerp_, _foreach_zero_), as EMA and optimizer code
calls them (timm's ModelEmaV3: `torch._foreach_lerp_(ema_values, model_values, weight=1. -
decay)`). On CPU torch runs them by its slow path, the tensor op in place on each element
in turn, so each element gets that op's values, version bump and node: a number is the C++
Scalar overload's (mul_.Scalar's MulBackward1, where `t.mul_(0.5)` from Python records
MulBackward0); the call returns the list it was given."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import TorchRuntimeError
from ..tensor import Tensor
from ._util import apply_inplace
from .arithmetic import add_, div_, mul_, sub_
from .fused import lerp_
from .scalar import AddBackward1, DivBackward1, MulBackward1, SubBackward1


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _check(tensors: Any, other: Any, scalars: bool) -> None:
    if not len(tensors):
        raise TorchRuntimeError("Tensor list must have at least one tensor.")
    if _is_list(other) and len(other) != len(tensors):
        if scalars:
            raise TorchRuntimeError("Tensor list must have same number of elements as "
                                    "scalar list.")
        raise TorchRuntimeError(f"Tensor lists must have the same number of tensors, got "
                                f"{len(tensors)} and {len(other)}")


def _each(op: Callable[..., Any], scalar_op: type, tensors: Any, other: Any,
          **kwargs: Any) -> Any:
    """`other` is one number or tensor for every element, or a list of one each."""
    scalars = _is_list(other) and not any(isinstance(o, Tensor) for o in other)
    _check(tensors, other, scalars)
    for i, t in enumerate(tensors):
        value = other[i] if _is_list(other) else other
        if isinstance(value, Tensor):
            op(t, value, **kwargs)
        else:
            apply_inplace(scalar_op, t, other=value)
    return tensors


def _foreach_mul_(self: Any, other: Any) -> Any:
    return _each(mul_, MulBackward1, self, other)


def _foreach_div_(self: Any, other: Any) -> Any:
    return _each(div_, DivBackward1, self, other)


def _foreach_add_(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    return _each(add_, AddBackward1, self, other, alpha=alpha)


def _foreach_sub_(self: Any, other: Any, *, alpha: Any = 1) -> Any:
    return _each(sub_, SubBackward1, self, other, alpha=alpha)


def _foreach_lerp_(self: Any, tensors1: Any, weight: Any) -> Any:
    _check(self, tensors1, False)
    if _is_list(weight):
        _check(self, weight, not any(isinstance(w, Tensor) for w in weight))
    for i, (t, end) in enumerate(zip(self, tensors1)):
        lerp_(t, end, weight[i] if _is_list(weight) else weight)
    return self


def _foreach_zero_(self: Any) -> Any:
    _check(self, None, False)
    for t in self:
        t.zero_()
    return self


TORCH_FUNCTIONS: dict[str, Any] = {
    "_foreach_mul_": _foreach_mul_, "_foreach_div_": _foreach_div_,
    "_foreach_add_": _foreach_add_, "_foreach_sub_": _foreach_sub_,
    "_foreach_lerp_": _foreach_lerp_, "_foreach_zero_": _foreach_zero_,
}
