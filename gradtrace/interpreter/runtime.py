"""The interpreter's runtime plumbing: limits, scopes (frames), control-flow signals."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Code = Callable[["Frame"], Any]


def compiled_or_refused(compile: Callable[[Any], Code], node: Any,
                        refusal: type[Exception]) -> Code:
    """`compile(node)`; when the compiler refuses it with `refusal`, code that raises that
    refusal only when it runs: for parts a script may never run (annotations read only on
    request, `if TYPE_CHECKING:` blocks)."""
    try:
        return compile(node)
    except refusal as err:
        refused = err

        def run(frame: Frame) -> Any:
            raise refused

        return run

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


def named(variables: dict[Any, Any]) -> dict[str, Any]:
    """A scope's variables by name: its str keys (a script writing through `globals()` may
    add any hashable key, which names no variable)."""
    return {key: value for key, value in variables.items() if type(key) is str}


class Frame:
    """A scope: `vars` here, then the enclosing scopes, then the builtins.

    `function` is the script function whose call made the frame (None for a module, a
    class body or a comprehension): `super()` finds its class and first argument there.
    `locals_dict`, set by a function's first `locals()` call, is the dict every call
    refreshes and returns (CPython's frame f_locals). `back`, set as a function's body
    starts running, is the frame that called it (CPython's f_back), and `object` a weak
    reference to the frame object inspect.currentframe() made of it (frame_objects.py).
    """

    __slots__ = ("vars", "parent", "function", "locals_dict", "back", "object")

    def __init__(self, vars: dict[str, Any], parent: Frame | None = None,
                 function: Any = None):
        self.vars = vars
        self.parent = parent
        self.function = function


class ClassFrame(Frame):
    """The frame a class body runs in; `cell` is the class being made, for the `super()` of
    the functions defined in it."""

    __slots__ = ("cell",)

    def __init__(self, vars: dict[str, Any], parent: Frame, cell: Any):
        super().__init__(vars, parent)
        self.cell = cell


class BreakSignal(Exception):
    pass


class ContinueSignal(Exception):
    pass


class ReturnSignal(Exception):
    def __init__(self, value: Any):
        self.value = value


BREAK = BreakSignal()
CONTINUE = ContinueSignal()


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
