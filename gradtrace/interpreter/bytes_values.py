"""Python's `bytes` as a script value: literals (`b'...'`, made by the parser), `bytes()`,
their methods, `str.encode`, `int.to_bytes` and `int.from_bytes`.

A bytes object is Python's own immutable value (like a str), so printing, comparing,
hashing, indexing, slicing, iterating and `%`-formatting are Python's. What can grow
without bound is counted against --max-sequence before Python builds it (`bytes(n)`,
`n.to_bytes(length)`, the padding methods, repetition); the codecs a script may name are
a fixed list of text encodings (a codec name would otherwise pick a module to import).
`bytearray` is not offered. Their methods and the codecs: gradtrace/bytes_methods.py.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bytes_methods import check_codec
from ..errors import ScriptError

if TYPE_CHECKING:
    from .core import Interpreter

def make_bytes(interp: Interpreter) -> Callable[..., bytes]:
    """The builtin `bytes`: from a size (counted), text with a codec, or an iterable of
    ints (built within the limits first)."""
    def script_bytes(source: Any = b"", encoding: Any = None, errors: Any = None) -> bytes:
        if isinstance(source, int) and not isinstance(source, bool) and source > 0:
            interp.check_size(source, "a bytes() result")
        if isinstance(source, str):
            check_codec("utf-8" if encoding is None else encoding, errors)
        elif not isinstance(source, (bytes, int)) and encoding is None and errors is None:
            try:
                source = interp.materialize(source, "a bytes() argument")
            except ScriptError as err:
                if getattr(err, "not_iterable", None) is None:
                    raise  # (else Python's own words: "cannot convert 'float' object")
        args = [a for a in (encoding, errors) if a is not None]
        try:
            return bytes(source, *args) if args else bytes(source)
        except (TypeError, ValueError, OverflowError, UnicodeError) as err:
            raise ScriptError(str(err), kind=type(err).__name__) from None

    return script_bytes


def to_bytes(value: int, length: Any = 1, byteorder: Any = "big", *,
             signed: Any = False) -> bytes:
    """int.to_bytes (its `length` is counted by the caller: attributes.guarded)."""
    return value.to_bytes(length, byteorder, signed=signed)


def from_bytes(data: Any, byteorder: Any = "big", *, signed: Any = False) -> int:
    """int.from_bytes (a bytes value or a list/tuple of ints: lazy iterables are built by
    the caller, within the limits)."""
    return int.from_bytes(data, byteorder, signed=signed)


# methods whose result's size is counted before Python builds it (attributes.guarded)
GROWING = frozenset({"to_bytes", "expandtabs", "replace", "from_bytes"})


def grown(interp: Interpreter, name: str, args: tuple, kwargs: dict[str, Any]) -> tuple:
    """Count what a GROWING method would build (`n.to_bytes(length)`, `s.expandtabs(k)`,
    `s.replace(old, new)` of a str or bytes) against --max-sequence; the arguments, with a
    lazy iterable given to int.from_bytes built first (within the limits)."""
    if name == "to_bytes":
        length = args[1] if len(args) > 1 else kwargs.get("length", 1)
        if isinstance(length, int):
            interp.check_size(length, "a to_bytes() result")
    elif name == "expandtabs" and args and isinstance(args[0], (str, bytes)):
        tabsize = args[1] if len(args) > 1 else kwargs.get("tabsize", 8)
        if isinstance(tabsize, int):
            interp.check_size(len(args[0]) * max(tabsize, 1), "an expandtabs() result")
    elif name == "replace" and len(args) >= 3 and \
            all(isinstance(a, (str, bytes)) for a in args[:3]):
        text, old, new = args[:3]
        count = args[3] if len(args) > 3 else kwargs.get("count", -1)
        times = len(text) + 1 if not old else len(text) // len(old)
        if isinstance(count, int) and count >= 0:
            times = min(times, count)
        interp.check_size(len(text) + times * len(new), "a replace() result")
    elif name == "from_bytes" and args and not isinstance(args[0], (bytes, list, tuple)):
        args = (interp.materialize(args[0], "a from_bytes() argument"), *args[1:])
    return args
