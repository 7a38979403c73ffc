"""Python's bytes in scripts: `b'...'` literals, `bytes()`, the common bytes methods,
`str.encode`/`bytes.decode`, `int.to_bytes`/`int.from_bytes`, and str's expandtabs,
translate and maketrans. Each snippet's output must be what the CPython running the tests
prints; what can grow without bound is counted first."""
from __future__ import annotations

import pytest
from test_python_gaps import gt_error, same_as_python, snippet


def test_literals_operators_methods_and_conversions_match_python():
    same_as_python(snippet("bytes_basics"))


def test_classmethods_errors_and_str_codec_methods_match_python():
    same_as_python(snippet("bytes_methods_errors"))


def test_raw_and_escaped_bytes_literals():
    same_as_python(r"""
x = rb'\x' + br'\n' + b'\x41\101\n' b'\q'
print(x, len(x))
""")


@pytest.mark.parametrize(("text", "message"), [
    ("x = b'\u00e9'\n", "bytes can only contain ASCII literal characters"),
    ("x = b'a' 'b'\n", "cannot mix bytes and nonbytes literals"),
])
def test_bytes_literal_syntax_errors_are_pythons(text: str, message: str):
    err = gt_error(text)
    assert err.kind == "SyntaxError"
    assert err.message == message


@pytest.mark.parametrize("text", [
    "bytes(10**12)\n", "(1).to_bytes(10**10, 'big')\n",
    "(b'a' * 10**6).replace(b'', b'x' * 1000)\n", "('\\t' * 10**5).expandtabs(10**5)\n",
])
def test_what_would_grow_past_the_sequence_limit_is_refused_first(text: str):
    assert gt_error(text).kind == "LimitError"


def test_a_codec_outside_the_text_encodings_is_refused():
    err = gt_error("'x'.encode('rot13')\n")
    assert err.kind == "NotSupportedError"
    assert "codec 'rot13'" in err.message
