"""Python's operators on script values, by their symbol."""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any


def _binop_table() -> dict[str, Callable[[Any, Any], Any]]:
    return {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
        "&": operator.and_, "|": operator.or_, "^": operator.xor,
    }


BINOPS = _binop_table()
INPLACE = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
    "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "@": operator.imatmul,
    "&": operator.iand, "|": operator.ior, "^": operator.ixor,
}
COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert,
         "not": operator.not_}

