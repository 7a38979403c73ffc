"""The interpreter's runtime values: limits, scopes, control-flow signals, script functions."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import syntax
from ..engine.dtypes import DType
from ..engine.node import Node
from ..engine.tensor import Tensor

if TYPE_CHECKING:
    from .core import Interpreter


Code = Callable[["Frame"], Any]

# Python exceptions our operations can raise on script values, reported with Python's text.
PYTHON_ERRORS = (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError,
                 OverflowError, AttributeError)


@dataclass
class Limits:
    """Resource limits; each has a CLI option (see `gradtrace run --help`)."""

    timeout: float = 60.0  # seconds of wall time
    max_steps: int = 50_000_000  # statements and loop iterations executed
    max_call_depth: int = 200  # nested calls of script functions
    max_int_bits: int = 100_000  # size of Python integers a script may compute
    max_sequence: int = 10_000_000  # length of strings and lists a script may build
    max_elements: int = 50_000_000  # elements in one tensor
    max_memory: int = 1 << 30  # bytes of live tensor data


@dataclass
class Frame:
    """A scope: `vars` here, then the enclosing scopes, then the builtins."""

    vars: dict[str, Any]
    parent: Frame | None = None


class BreakSignal(Exception):
    pass


class ContinueSignal(Exception):
    pass


class ReturnSignal(Exception):
    def __init__(self, value: Any):
        self.value = value


BREAK = BreakSignal()
CONTINUE = ContinueSignal()


@dataclass
class UserFunction:
    """A `def` or `lambda` from the script; Python-callable so hooks and key= work."""

    name: str
    params: tuple[syntax.Param, ...]
    defaults: dict[str, Any]
    body: Code
    closure: Frame
    interpreter: Interpreter = field(repr=False)
    is_lambda: bool = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.interpreter.call_function(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.name} at {id(self):#x}>"

    __hash__ = object.__hash__



def run_iteration(body: Code, frame: Frame) -> bool:
    """One pass of a loop body; False when it hit `break`."""
    try:
        body(frame)
    except BreakSignal:
        return False
    except ContinueSignal:
        pass
    return True


def short_int(n: int) -> str:
    return str(n) if n.bit_length() < 64 else "a large integer"


def length_hint(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 0


def is_callable_value(fn: Any) -> bool:
    """Only values the language hands out are callable: engine/builtin functions, methods."""
    return callable(fn) and not isinstance(fn, (Tensor, Node, DType))



def type_name(value: Any) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, UserFunction):
        return "function"
    if isinstance(value, Node):
        return value.name()
    if value is None:
        return "NoneType"
    return type(value).__name__
