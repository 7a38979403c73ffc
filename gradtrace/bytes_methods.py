"""The methods of Python's `bytes` values and the text codecs scripts may name (for
`str.encode`, `bytes.decode`, `bytes(text, encoding)`): a fixed list of text encodings, as
a codec name would otherwise pick a module for Python to import. The tables are read by
stdlib's attribute tables; interpreter/bytes_values.py has the rest of `bytes`."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import NotSupportedError

# the encodings str.encode / bytes.decode / bytes(text, encoding) accept, by the names
# Python's codec registry normalises to (`codecs.lookup(name).name`)
ENCODINGS = frozenset({"utf-8", "utf8", "ascii", "us-ascii", "latin-1", "latin1",
                       "iso-8859-1", "iso8859-1", "utf-16", "utf-16-le", "utf-16-be",
                       "utf-32", "utf-32-le", "utf-32-be", "cp1252", "unicode-escape",
                       "raw-unicode-escape"})
ERROR_HANDLERS = frozenset({"strict", "ignore", "replace", "backslashreplace",
                            "xmlcharrefreplace", "surrogateescape", "namereplace"})


def check_codec(encoding: Any, errors: Any) -> None:
    """An encoding and an error handler a script may name (Python's own TypeErrors for
    values of the wrong type)."""
    if isinstance(encoding, str) and \
            encoding.lower().replace("_", "-").replace(" ", "-") not in ENCODINGS:
        raise NotSupportedError(f"the codec '{encoding}' is not supported by gradtrace "
                                f"(it offers {', '.join(sorted(ENCODINGS))})")
    if isinstance(errors, str) and errors not in ERROR_HANDLERS:
        raise NotSupportedError(f"the error handler '{errors}' is not supported by gradtrace")


def _coded(method: Callable[..., Any]) -> Callable[..., Any]:
    """str.encode / bytes.decode with its codec checked first."""
    def call(value: Any, encoding: Any = "utf-8", errors: Any = "strict") -> Any:
        check_codec(encoding, errors)
        return method(value, encoding, errors)

    call.__name__ = method.__name__
    return call


BYTES_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(bytes, name) for name in (  # fixed names: Python's pure bytes methods
        "split", "rsplit", "strip", "lstrip", "rstrip", "startswith", "endswith", "find",
        "rfind", "index", "rindex", "count", "replace", "join", "upper", "lower", "title",
        "capitalize", "swapcase", "isdigit", "isalpha", "isalnum", "isspace", "isupper",
        "islower", "istitle", "isascii", "partition", "rpartition", "splitlines", "ljust",
        "rjust", "center", "zfill", "removeprefix", "removesuffix", "hex", "expandtabs",
        "translate")
}
BYTES_METHODS["decode"] = _coded(bytes.decode)
BYTES_TYPE_METHODS: dict[str, Callable[..., Any]] = {
    **BYTES_METHODS, "fromhex": bytes.fromhex, "maketrans": bytes.maketrans}
ENCODE = _coded(str.encode)
STR_CODEC_METHODS: dict[str, Callable[..., Any]] = {
    "encode": ENCODE, "isascii": str.isascii, "isprintable": str.isprintable,
    "expandtabs": str.expandtabs, "translate": str.translate}


