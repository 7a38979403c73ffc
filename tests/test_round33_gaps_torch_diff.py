"""Differential tests against live PyTorch 2.13 (and its Python) for the gaps the realworld
corpus's round 33 found: the PyTorch chatbot tutorial's header imports `codecs` (it
unescapes its delimiter with `codecs.decode('\\\\t', "unicode_escape")`) and `from io import
open`, which gradtrace refused at the import; a codec's UnicodeDecodeError was not a kind a
script's `except ValueError` or `except UnicodeError` could catch.

Skipped unless torch is importable.
"""
from __future__ import annotations

import pytest
from script_runs import gradtrace_output, run_text, torch_output

torch = pytest.importorskip("torch")


CODECS = r"""import codecs
delimiter = '\\t'
delimiter = str(codecs.decode(delimiter, "unicode_escape"))
print(repr(delimiter), codecs.decode)
print(codecs.encode("h\xe9llo\n", "unicode_escape"), codecs.encode("h\xe9", "utf-8"))
print(codecs.decode(b"h\xc3\xa9", "utf-8"), codecs.decode(b"a\\nb", "raw_unicode_escape"))
print(codecs.decode(b"\xff", "latin-1", "strict"), codecs.encode("\u20ac", "ascii", "replace"))
for call in [lambda: codecs.decode(b"\xff", "utf-8"), lambda: codecs.encode("\u20ac", "ascii"),
             lambda: codecs.decode(3, "utf-8"), lambda: codecs.decode("x", "utf-8")]:
    try:
        call()
    except ValueError as err:
        print("ValueError", type(err).__name__, isinstance(err, UnicodeError), err)
    except TypeError as err:
        print("TypeError", err)
print(issubclass(UnicodeDecodeError, UnicodeError), issubclass(UnicodeError, ValueError))
try:
    b"\xe9".decode("ascii")
except UnicodeDecodeError as err:
    print(type(err).__name__, err)
"""


def test_codecs_encode_decode_as_python() -> None:
    """codecs.encode/decode with the text codecs (now with unicode_escape and
    raw_unicode_escape, which str.encode and bytes.decode take too) and Python's errors,
    a codec's UnicodeError caught as the ValueError it is."""
    assert gradtrace_output(CODECS) == torch_output(CODECS)


IO_OPEN = """from io import open
import io
import torch
print(open, io.open is open, io.open)
print(torch.tensor([1, 2]).sum())
"""


def test_io_open_imports_as_python_builtin() -> None:
    """`from io import open` binds Python's builtin open (the NLP tutorials' header):
    the import and the name print as in Python."""
    assert gradtrace_output(IO_OPEN) == torch_output(IO_OPEN)


def test_io_open_call_is_refused_as_open_is() -> None:
    """Calling the imported open reaches a file: refused with the builtin's message."""
    result = run_text('from io import open\nopen("x.txt", "w")\n')
    assert result.error is not None and result.error.kind == "NotSupportedError"
    assert result.error.message.startswith("`open` is not supported")
