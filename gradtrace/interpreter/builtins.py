"""The builtins a script can call: Python's own where safe, size-checked where they loop in C."""
from __future__ import annotations

import builtins as builtins_module
import string
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import (
    LimitExceeded,
    NotSupportedError,
)
from .runtime import length_hint

if TYPE_CHECKING:
    from .core import Interpreter


_FORMATTER = string.Formatter()

# -------------------------------------------------------------- builtins

def make_builtins(self: Interpreter) -> dict[str, Any]:
    """The builtins table of one run (print writes to its stdout; limits are its own)."""
    limits = self.limits

    def script_print(*args: Any, sep: str | None = " ", end: str | None = "\n") -> None:
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        self.stdout.write(sep.join(str(a) for a in args) + end)

    def check_size(n: int, what: str) -> None:
        if n > limits.max_sequence:
            raise LimitExceeded(
                f"{what} of {n} items exceeds the limit of {limits.max_sequence} "
                "(raise it with --max-sequence)")

    def sized(fn: Callable[..., Any], what: str) -> Callable[..., Any]:
        """A builtin that walks its first argument in C: check the length first."""
        def call(*args: Any, **kwargs: Any) -> Any:
            if args:
                check_size(length_hint(args[0]), what)
            return fn(*args, **kwargs)

        call.__name__ = fn.__name__
        return call

    def script_format(text: str, *args: Any, **kwargs: Any) -> str:
        """str.format without attribute or index lookups in the fields."""
        for _, field_name, spec, _ in _FORMATTER.parse(text):
            if field_name and any(c in field_name for c in ".["):
                raise NotSupportedError(
                    f"format field '{{{field_name}}}' is not supported (only positions and "
                    "names; use an f-string)")
            if spec and "{" in spec:
                raise NotSupportedError("nested format fields are not supported")
        return text.format(*args, **kwargs)

    self.format_method = script_format
    table: dict[str, Any] = dict(stdlib.PLAIN_BUILTINS)
    table.update(stdlib.exception_types())
    table["print"] = script_print
    for name in ("list", "tuple", "dict", "sorted", "sum", "min", "max", "any", "all"):
        table[name] = sized(table.get(name) or getattr(builtins_module, name),
                            f"a {name}() argument")
    return table

