"""Python's operators on script values, by their symbol."""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ..engine.tensor import Tensor
from .nesting import HASHED, check_hashable


def _binop_table() -> dict[str, Callable[[Any, Any], Any]]:
    return {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
        "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
        ">>": operator.rshift,
    }


BINOPS = _binop_table()

_DUNDER = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
           "**": "pow", "@": "matmul", "&": "and", "|": "or", "^": "xor", "<<": "lshift",
           ">>": "rshift"}
# What Python's dispatch ends in when one operand is exactly a Tensor and the other a Tensor
# or a Python number (no subclass, so no reflected method goes first, and no Tensor method
# returns NotImplemented): the Tensor's own method, called without the two C layers
# (operator.mul, the type slot) in between. `number op tensor` ends in the reflected method,
# after float's/int's own method gives up.
# (the op itself where the slot wraps it in torch's NotImplemented check: both operands are
# known to be tensors or numbers here)
TENSOR_BINOPS = {op: getattr(getattr(Tensor, f"__{name}__"), "__wrapped__",
                             getattr(Tensor, f"__{name}__")) for op, name in _DUNDER.items()}
TENSOR_RBINOPS = {op: getattr(getattr(Tensor, f"__r{name}__"), "__wrapped__",
                              getattr(Tensor, f"__r{name}__"))
                  for op, name in _DUNDER.items() if hasattr(Tensor, f"__r{name}__")}
NUMBERS = (float, int)
INPLACE = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
    "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "@": operator.imatmul,
    "&": operator.iand, "|": operator.ior, "^": operator.ixor, "<<": operator.ilshift,
    ">>": operator.irshift,
}
COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: _contains(b, a), "not in": lambda a, b: not _contains(b, a),
}

def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, HASHED):
        check_hashable(item)
    return item in container

UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert,
         "not": operator.not_}

