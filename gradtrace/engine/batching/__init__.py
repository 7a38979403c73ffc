"""vmap's batching (functorch's BatchedTensor, batching rules and fallback) in the engine:
see batched.py, dispatch.py and rules.py. `install_operators` gives BatchedTensor Python's
operators through the rules."""
from __future__ import annotations

from typing import Any

from .batched import (
    TRANSFORMS,
    BatchedTensor,
    add_batch_dim,
    max_level,
    physical,
    unwrap,
)
from .dispatch import batched_call, call, has_batched

# operator -> (engine op, operands reversed)
_OPERATORS = {
    "__add__": ("add", False), "__radd__": ("add", True), "__sub__": ("sub", False),
    "__mul__": ("mul", False), "__rmul__": ("mul", True),
    "__truediv__": ("div", False), "__rtruediv__": ("rdiv", False), "__neg__": ("neg", False),
    "__pow__": ("pow", False), "__rpow__": ("rpow", False), "__matmul__": ("matmul", False),
    "__rmatmul__": ("matmul", True), "__abs__": ("abs", False),
    "__invert__": ("bitwise_not", False), "__floordiv__": ("floor_divide", False),
    "__mod__": ("remainder", False), "__and__": ("bitwise_and", False),
    "__rand__": ("bitwise_and", True), "__or__": ("bitwise_or", False),
    "__ror__": ("bitwise_or", True), "__xor__": ("bitwise_xor", False),
    "__rxor__": ("bitwise_xor", True), "__eq__": ("eq", False), "__ne__": ("ne", False),
    "__lt__": ("lt", False), "__le__": ("le", False), "__gt__": ("gt", False),
    "__ge__": ("ge", False), "__iadd__": ("add_", False), "__isub__": ("sub_", False),
    "__imul__": ("mul_", False), "__itruediv__": ("div_", False), "__ipow__": ("pow_", False),
    "__getitem__": ("getitem", False), "__setitem__": ("setitem", False),
}


def _operator(fn: Any, reverse: bool) -> Any:
    if reverse:
        return lambda self, *args: call(fn, *args, self)
    return lambda self, *args: call(fn, self, *args)


def install_operators() -> None:
    """BatchedTensor's operators: each runs its engine op through the batching rules."""
    from .. import ops
    from ..tensor import Tensor

    def engine_op(name: str) -> Any:
        fn = getattr(ops, name, None) or ops.TENSOR_METHODS.get(name)
        if fn is None:
            from ..ops import arithmetic

            fn = getattr(arithmetic, name)
        return fn

    for dunder, (name, reverse) in _OPERATORS.items():
        setattr(BatchedTensor, dunder, _operator(engine_op(name), reverse))
    # `t - batched` reaches BatchedTensor.__rsub__ only because the engine's Tensor gives way
    # to it; torch's vmap runs t's own __sub__ (SubBackward0). A number's `2 - batched` is
    # torch's Tensor.__rsub__, rsub (RsubBackward1).
    rsub, sub = _operator(engine_op("rsub"), False), _operator(engine_op("sub"), True)
    BatchedTensor.__rsub__ = lambda self, other: (  # type: ignore[method-assign]
        sub(self, other) if isinstance(other, Tensor) else rsub(self, other))
    BatchedTensor.__hash__ = object.__hash__  # type: ignore[method-assign,assignment]
    BatchedTensor.__iter__ = lambda self: iter(call(ops.unbind, self, 0))  # type: ignore
    BatchedTensor.__pos__ = lambda self: self  # type: ignore[method-assign]


__all__ = ["TRANSFORMS", "BatchedTensor", "add_batch_dim", "batched_call", "call",
           "has_batched", "install_operators", "max_level", "physical", "unwrap"]
