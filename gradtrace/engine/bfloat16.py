"""torch.bfloat16: the ops gradtrace computes exactly as torch's CPU kernels do, and no other.

Values are ml_dtypes' numpy bfloat16. torch converts into bfloat16 through float32 (c10's
BFloat16 is made from a float, rounded to nearest even: a double or an int64 is rounded to
float32 first), and computes pointwise arithmetic in float32 (its opmath type), rounding the
result once: `through_float32` and `arithmetic` do the same. What was measured bit for bit
against torch (tests/test_bfloat16.py, on random values) is in `RUNS`; every other op given a
bfloat16 tensor or dtype is refused with NotSupportedError naming it, as is autograd through
bfloat16 (its backward formulas and reductions were not measured).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotSupportedError
from .dtypes import DType, bfloat16, is_bfloat16

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

RUNS = frozenset("""
    tensor as_tensor zeros ones full zeros_like ones_like full_like empty empty_like new_zeros
    new_ones new_full new_tensor new_empty to type type_as bfloat16 float double half long int
    short char byte bool clone detach contiguous cpu item tolist numel nelement dim ndimension
    size stride element_size is_floating_point is_signed is_complex is_tensor finfo
    promote_types result_type can_cast view reshape flatten squeeze unsqueeze t transpose
    permute expand expand_as view_as reshape_as unbind chunk split select narrow cat stack
    add sub subtract mul multiply div divide true_divide neg negative abs absolute sqrt eq ne
    lt le gt ge equal isnan isinf isfinite copy_ fill_ zero_ eig eigvals
""".split())
# in place: the same arithmetic written back (the result is rounded to bfloat16 either way)
RUNS = RUNS | frozenset(f"{name}_" for name in (
    "add", "sub", "mul", "div", "neg", "abs", "sqrt"))


def check_op(name: str, operands: Any, kwargs: dict[str, Any]) -> None:
    """A call of torch op `name` given a bfloat16 tensor or dtype: NotSupportedError unless
    the op is one gradtrace computes exactly as torch does."""
    from .tensor import Tensor

    if name.startswith("__"):
        return  # Python's operators: the engine's ops check them
    if name not in RUNS:
        raise NotSupportedError(
            f"{name}() on torch.bfloat16 is not supported by gradtrace: only creation, casts, "
            "views, printing, + - * /, neg, abs, sqrt and comparisons are exact in bfloat16")
    grad = kwargs.get("requires_grad") is True or name == "requires_grad_" or any(
        isinstance(t, Tensor) and t.requires_grad for t in _tensors(operands))
    if grad:
        refuse_autograd()


def _tensors(values: Any) -> Any:
    from .tensor import Tensor

    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif type(v) in (list, tuple):
            yield from (item for item in v if isinstance(item, Tensor))


def refuse_autograd() -> None:
    raise NotSupportedError("autograd through torch.bfloat16 tensors is not supported by "
                            "gradtrace (its gradients' rounding was not measured)")


def through_float32(array: np.ndarray, target: np.dtype) -> np.ndarray:
    """`array` ready to be cast to `target` as torch casts: into bfloat16 from a float32
    (rounded once, to nearest even), out of bfloat16 through the float it widens to."""
    if is_bfloat16(target):
        return array if array.dtype == _F32 or is_bfloat16(array.dtype) else array.astype(_F32)
    if is_bfloat16(array.dtype) and target not in (_F32, _F64) and not is_bfloat16(target):
        return array.astype(_F32)
    return array


def cast(array: np.ndarray, target: np.dtype) -> np.ndarray:
    """`array.astype(target)` as torch converts, when bfloat16 is one side."""
    return through_float32(array, target).astype(target)


# torch's kernels convert a Python number operand for add and sub into bfloat16 first, and
# for mul and div use it as a float32 (measured: `x + 257` adds 256, `x * 257` multiplies by
# 257 and rounds the product)
_NUMBER_IN_BF16 = frozenset({np.add, np.subtract})


def arithmetic(ufunc: np.ufunc, x: Any, y: Any) -> np.ndarray:
    """`ufunc(x, y)` for a bfloat16 result: operands (bfloat16 arrays or Python numbers) in
    float32, one float32 operation, rounded once to bfloat16."""
    if ufunc not in _ARITHMETIC:
        raise NotSupportedError(f"{ufunc.__name__} in torch.bfloat16 is not supported by "
                                "gradtrace")
    return ufunc(_float32(ufunc, x), _float32(ufunc, y)).astype(bfloat16.np)


_ARITHMETIC = frozenset({np.add, np.subtract, np.multiply, np.true_divide})


def _float32(ufunc: np.ufunc, value: Any) -> Any:
    if type(value) is np.ndarray:
        return value.astype(_F32)
    if ufunc in _NUMBER_IN_BF16:
        return np.float32(np.float32(value).astype(bfloat16.np))
    return np.float32(value)


def check_dtype(name: str, dtype: DType) -> None:
    """An engine op reached by a Python operator (`**`, `//`, `%`, `@`) computing in
    bfloat16: refused, as it was not measured."""
    if dtype is bfloat16:
        raise NotSupportedError(f"{name} on torch.bfloat16 is not supported by gradtrace")
