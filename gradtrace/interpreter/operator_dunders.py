"""The Python protocol methods of tensors and numbers as values: `x.__add__(1)`,
`x.__len__()`, `(3).__mul__(2)`, `hasattr(batch, "__len__")`. torch's Tensor and Python's
int and float have each of these; here each runs the operation its syntax runs (`x + 1`,
`len(x)`, `x[i] = v`), with the same checks, limits and errors, so no dunder is a second
way into the engine or around the size guards of Python's ints."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.tensor import Tensor
from ..errors import ScriptError
from .objects import script_message
from .operators import BINOPS, COMPARE, INPLACE, UNARY
from .runtime import PYTHON_ERRORS

# operator symbol -> its names in torch's dunders (`__add__`, `__radd__`, `__iadd__`);
# `__div__`/`__rdiv__`/`__idiv__` are torch's old names of true division
_BINARY = {"+": ("add",), "-": ("sub",), "*": ("mul",), "/": ("truediv", "div"),
           "//": ("floordiv",), "%": ("mod",), "**": ("pow",), "@": ("matmul",),
           "&": ("and",), "|": ("or",), "^": ("xor",), "<<": ("lshift",), ">>": ("rshift",)}
_COMPARISONS = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_UNARY = {"-": "neg", "+": "pos", "~": "invert"}
# a tensor's dunders that are type slots, not methods (measured: `<method-wrapper ...>`)
SLOT_WRAPPERS = frozenset(("__getitem__", "__setitem__", "__delitem__", "__str__"))
_NUMBERS = (bool, int, float, complex, np.generic)
# the builtin each conversion or container dunder is the method of (`__long__` and
# `__nonzero__` are torch's Python 2 names; not `__complex__`: scripts have no complex())
_BUILTIN_OF = {"__len__": "len", "__iter__": "iter", "__abs__": "abs", "__float__": "float",
               "__int__": "int", "__long__": "int",
               "__repr__": "repr", "__str__": "str", "__format__": "format",
               "__hash__": "hash", "__reversed__": "reversed"}


def _operand(other: Any, matmul: bool) -> bool:
    """Whether torch's operator method takes `other`; for anything else it answers
    NotImplemented (measured: a list, a string, None; any number for `@`)."""
    return isinstance(other, Tensor) or not matmul and isinstance(other, _NUMBERS)


def _as_script_error(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Python's own errors of `fn` as the script's, as the syntax's operators raise them."""
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except PYTHON_ERRORS as err:
            raise ScriptError(script_message(str(err), args), kind=type(err).__name__) \
                from None
    return call


def _binary(apply_op: Callable[..., Any], fn: Callable[..., Any], symbol: str,
            reflected: bool, takes: Callable[[Any], bool]) -> Callable[..., Any]:
    """`a.__op__(other)` (`__rop__`: `other op a`) through the syntax's apply_op, or
    NotImplemented for an operand the method does not take."""
    def call(a: Any, other: Any, /) -> Any:
        if not takes(other):
            return NotImplemented
        return apply_op(fn, other, a, symbol, None) if reflected else \
            apply_op(fn, a, other, symbol, None)
    return call


def tensor_dunders(interp: Any) -> dict[str, Callable[..., Any]]:
    """Dunder name -> fn(tensor, *args), for the BoundMethod `x.__name__` gives."""
    table: dict[str, Callable[..., Any]] = {}
    apply_op = interp.apply_op

    for symbol, names in _BINARY.items():
        matmul = symbol == "@"

        def takes(other: Any, matmul: bool = matmul) -> bool:
            return _operand(other, matmul)

        for name in names:
            table[f"__{name}__"] = _binary(apply_op, BINOPS[symbol], symbol, False, takes)
            table[f"__r{name}__"] = _binary(apply_op, BINOPS[symbol], symbol, True, takes)
            if not matmul:  # torch has no __imatmul__
                table[f"__i{name}__"] = _binary(apply_op, INPLACE[symbol], symbol, False,
                                                takes)

    def comparison(fn: Callable[..., Any]) -> Callable[..., Any]:
        checked = _as_script_error(fn)
        return lambda t, other, /: checked(t, other) if _operand(other, False) \
            else NotImplemented

    for symbol, name in _COMPARISONS.items():
        table[f"__{name}__"] = comparison(COMPARE[symbol])
    for symbol, name in _UNARY.items():
        table[f"__{name}__"] = _as_script_error(UNARY[symbol])
    builtins = interp.builtins
    for dunder, name in _BUILTIN_OF.items():
        table[dunder] = builtins[name]
    table["__index__"] = _as_script_error(Tensor.__index__)
    table["__bool__"] = table["__nonzero__"] = lambda t, /: interp.truth(t, None)
    table["__getitem__"] = lambda t, index, /: interp.get_item(t, index)
    table["__setitem__"] = lambda t, index, value, /: interp.set_item(t, index, value)
    table["__delitem__"] = lambda t, index, /: interp.del_item(t, index)
    table["__contains__"] = lambda t, item, /: COMPARE["in"](item, t)

    def array(t: Tensor, dtype: Any = None, /) -> Any:
        """torch's Tensor.__array__: `t.numpy()`, cast by the array's own astype."""
        values = interp.call(interp.get_attribute(t, "numpy", None), (), {}, None)
        if dtype is None:
            return values
        return interp.call(interp.get_attribute(values, "astype", None), (dtype,), {"copy": False},
                           None)

    table["__array__"] = array
    return table


# a number's operand types for which its own operator method does not answer NotImplemented
_NUMBER_OPERANDS = {int: (int, bool), bool: (int, bool), float: (int, float, bool)}
_NUMBER_CONVERSIONS = {"__abs__": "abs", "__float__": "float", "__int__": "int",
                       "__repr__": "repr", "__str__": "str", "__format__": "format",
                       "__hash__": "hash", "__round__": "round"}


def number_dunders(interp: Any) -> dict[type, dict[str, Callable[..., Any]]]:
    """Per type (int, bool, float): dunder name -> fn(number, *args), as Python's own."""
    apply_op = interp.apply_op
    builtins = interp.builtins
    tables: dict[type, dict[str, Callable[..., Any]]] = {}
    for kind, operands in _NUMBER_OPERANDS.items():
        def takes(other: Any, operands: tuple[type, ...] = operands) -> bool:
            return type(other) in operands

        table: dict[str, Callable[..., Any]] = {}
        for symbol, names in _BINARY.items():
            name = names[0]
            if hasattr(kind, f"__{name}__"):
                table[f"__{name}__"] = _binary(apply_op, BINOPS[symbol], symbol, False, takes)
                table[f"__r{name}__"] = _binary(apply_op, BINOPS[symbol], symbol, True, takes)
        for symbol, name in _COMPARISONS.items():
            table[f"__{name}__"] = _binary(apply_op, COMPARE[symbol], symbol, False, takes)
        for symbol, name in _UNARY.items():
            if hasattr(kind, f"__{name}__"):
                table[f"__{name}__"] = _as_script_error(UNARY[symbol])
        for dunder, name in _NUMBER_CONVERSIONS.items():
            table[dunder] = builtins[name]
        for dunder in ("__bool__", "__index__", "__floor__", "__ceil__", "__trunc__"):
            if hasattr(kind, dunder):
                table[dunder] = _as_script_error(getattr(kind, dunder))
        tables[kind] = table
    return tables
