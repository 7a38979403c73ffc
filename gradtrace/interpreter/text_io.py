"""Text streams a script may write to: `sys.stdout`, `sys.stderr` (gradtrace's own capture
of the script's output, never the process's files) and `io.StringIO` (text in memory).

Each is an interpreter object whose attributes are the fixed tables below (attributes.py
reads them); the text a StringIO holds counts toward --max-sequence.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from ..errors import LimitExceeded, ScriptError, TorchTypeError, TorchValueError


def _type_name(value: Any) -> str:
    from .objects import type_name  # (objects.py imports this module)

    return type_name(value)


class ScriptStream:
    """`sys.stdout` / `sys.stderr`: writes go to the run's captured output streams."""

    __slots__ = ("name", "target")

    def __init__(self, name: str, target: Any):
        self.name = name
        self.target = target

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TorchTypeError(f"write() argument must be str, not {_type_name(text)}")
        self.target.write(text)
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __repr__(self) -> str:
        return f"<_io.TextIOWrapper name='<{self.name}>' mode='w' encoding='utf-8'>"


STREAM_METHODS: dict[str, Callable[..., Any]] = {
    "write": ScriptStream.write, "flush": ScriptStream.flush, "isatty": ScriptStream.isatty,
    "writelines": ScriptStream.writelines,
}


class StringIO:
    """io.StringIO(initial_value='', newline='\\n'): Python's own, with its size bounded."""

    __slots__ = ("buffer", "limit")

    def __init__(self, initial_value: Any = "", newline: Any = "\n", *, limit: int = 10**7):
        if initial_value is None:
            initial_value = ""
        if not isinstance(initial_value, str):
            raise TorchTypeError("initial_value must be str or None, not "
                                 f"{_type_name(initial_value)}")
        if len(initial_value) > limit:
            raise LimitExceeded(f"an io.StringIO of more than {limit:,} characters "
                                "(raise the limit with --max-sequence)")
        self.buffer = io.StringIO(initial_value, newline)
        self.limit = limit

    def _checked(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except ValueError as err:
            raise TorchValueError(str(err)) from None
        except TypeError as err:
            raise TorchTypeError(str(err)) from None

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TorchTypeError(f"string argument expected, got '{_type_name(text)}'")
        if not self.buffer.closed and \
                max(self.buffer.tell(), 0) + len(text) > self.limit:
            raise LimitExceeded(f"an io.StringIO grew past {self.limit:,} characters "
                                "(raise the limit with --max-sequence)")
        return self._checked(self.buffer.write, text)

    def getvalue(self) -> str:
        return self._checked(self.buffer.getvalue)

    def read(self, size: Any = -1) -> str:
        return self._checked(self.buffer.read, size)

    def readline(self, size: Any = -1) -> str:
        return self._checked(self.buffer.readline, size)

    def readlines(self, hint: Any = -1) -> list[str]:
        return self._checked(self.buffer.readlines, hint)

    def seek(self, pos: Any, whence: Any = 0) -> int:
        if not isinstance(pos, int) or not isinstance(whence, int):
            raise TorchTypeError("an integer is required")
        if pos > self.limit:
            raise LimitExceeded(f"io.StringIO.seek past {self.limit:,} characters")
        return self._checked(self.buffer.seek, pos, whence)

    def tell(self) -> int:
        return self._checked(self.buffer.tell)

    def truncate(self, size: Any = None) -> int:
        return self._checked(self.buffer.truncate, size)

    def close(self) -> None:
        self.buffer.close()

    def flush(self) -> None:
        return self._checked(self.buffer.flush)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def closed(self) -> bool:
        return self.buffer.closed

    def __iter__(self) -> StringIO:
        """A StringIO is its own iterator, as Python's: each step reads the next line from
        the current position (a loop's body may read or seek the same stream)."""
        self._checked(self.buffer.__iter__)  # a closed stream's ValueError
        return self

    def __next__(self) -> str:
        line = self._checked(self.buffer.readline)
        if not line:
            raise StopIteration
        return line

    def __enter__(self) -> StringIO:
        if self.buffer.closed:
            raise ScriptError("I/O operation on closed file.", kind="ValueError")
        return self

    def __exit__(self, *exc: object) -> None:
        self.buffer.close()

    def __repr__(self) -> str:
        return f"<_io.StringIO object at {id(self):#x}>"


STRING_IO_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(StringIO, name) for name in (
        "write", "getvalue", "read", "readline", "readlines", "seek", "tell", "truncate",
        "close", "flush", "writelines")
}
STRING_IO_ATTRIBUTES = frozenset({"closed"})
WRITABLE = (ScriptStream, StringIO)
"""What print(file=...) accepts."""
