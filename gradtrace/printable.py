"""Text a script controls, made safe for a terminal and for strict UTF-8.

A script decides what its strings, exception messages, comments and string literals
hold; gradtrace quotes them in its messages and views. Control characters there (ESC
sequences that clear the screen, set the window title or draw hyperlinks, a carriage
return that overwrites a line, bidi overrides that reorder it) must reach the terminal
as visible escapes (`\\x1b`), and lone surrogates (which no UTF-8 encoder accepts) as
`\\ud800`. Only the script's own stdout is written as it is, as Python would.
"""
from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, the bidi marks and overrides, and
# surrogates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
# what json.dumps(ensure_ascii=False) leaves raw that a terminal or an encoder would not
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with its control characters, bidi controls and lone surrogates written as
    Python escapes (newlines and tabs kept)."""
    return _UNSAFE.sub(_escape, text)


def json_text(text: str) -> str:
    """JSON text from json.dumps(ensure_ascii=False) with the characters it leaves raw
    that are unsafe (C1 controls, bidi controls) or unencodable (lone surrogates) written
    as JSON escapes: the same document, in strict UTF-8."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
