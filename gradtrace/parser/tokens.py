"""The parser's vocabulary: limits, keywords, terminal groups, and token spans."""
from __future__ import annotations

import re

from lark import Token

from ..source import Span

MAX_NESTING = 200
"""Deepest AST allowed (nodes inside nodes), so walking it recursively is safe."""
MAX_BRACKETS = 200
"""Deepest bracket nesting, as in CPython's tokenizer ("too many nested parentheses")."""
MAX_INDENT = 100
"""Deepest block nesting, as in CPython's tokenizer ("too many levels of indentation")."""

_TAB_SIZE = 8

# Python's hard keywords. Lark's contextual lexer reads a keyword as a NAME where
# only a name can follow (`x = if`); the post-lexer retypes those so they never
# become variables.
_KEYWORDS = frozenset(
    "False None True and as assert async await break class continue def del elif else "
    "except finally for from global if import in is lambda nonlocal not or pass raise "
    "return try while with yield".split()
)
_UNSUPPORTED_KEYWORDS = {
    "async": "`async` is not supported",
    "await": "`await` is not supported",
}
_BLOCK_KEYWORDS = frozenset(
    {"IF", "ELIF", "ELSE", "FOR", "WHILE", "DEF", "CLASS", "TRY", "EXCEPT", "FINALLY",
     "WITH", "MATCH", "CASE"}
)
_OPEN = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}
_CLOSE = frozenset(_OPEN.values())
_LAYOUT = frozenset({"_NEWLINE", "_INDENT", "_DEDENT"})

_NUMBERS = frozenset(
    {"DEC_NUMBER", "HEX_NUMBER", "OCT_NUMBER", "BIN_NUMBER", "FLOAT_NUMBER", "IMAG_NUMBER"}
)
_STRINGS = frozenset({"STRING", "LONG_STRING"})
# Literal text of terminals that can start an expression (besides names, numbers, strings).
_EXPR_START_LITERALS = frozenset(
    {"(", "[", "{", "-", "+", "~", "not", "lambda", "None", "True", "False", "...", "*", "**",
     "yield"}
)
# Literal terminals of unsupported syntax: never suggested in "expected ..." lists.
_HIDDEN_LITERALS = frozenset({"->", ":=", "<<", ">>", "<<=", ">>=", "&=", "|=", "^="})
_READABLE = {
    "NAME": "a name",
    "STRING": "a string",
    "LONG_STRING": "a string",
    "_NEWLINE": "end of line",
    "$END": "end of script",
    **{name: "a number" for name in _NUMBERS},
}
_SMART_QUOTES = frozenset("\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00b4\u2032\u2033")

_NAME_RE = re.compile(r"[^\W\d]\w*")
_STRING_RE = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")", re.S)


def _token_span(tok: Token) -> Span:
    end_line = tok.end_line if tok.end_line is not None else tok.line
    end_column = tok.end_column if tok.end_column is not None else tok.column + 1
    if (end_line, end_column) <= (tok.line, tok.column):
        return Span.point(tok.line, tok.column)
    return Span(tok.line, tok.column, end_line, end_column)


def _after(tok: Token | None) -> Span:
    """A one-character span just after a token (where something is missing)."""
    if tok is None:
        return Span.point(1, 1)
    return Span.point(tok.end_line, tok.end_column)

