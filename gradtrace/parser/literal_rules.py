"""Parse tree -> AST: literals (numbers, strings, f-strings; a mixin of `builder._Builder`)."""
from __future__ import annotations

import codecs
import re
import sys
import unicodedata
import warnings
from typing import TYPE_CHECKING

from lark import Token

from .. import syntax as ast
from ..source import Span
from .driver import _Mapper, _run_lark
from .tokens import _STRING_RE

if TYPE_CHECKING:
    from .driver import _Tree

_SIMPLE_ESCAPES = {
    "\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
    "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_HEX = frozenset("0123456789abcdefABCDEF")


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def shared_constant(value: str, seen: dict[str, str]) -> str:
    """A string literal as CPython's compiler makes it, so that `is` between equal strings
    answers as in Python (`name is 'conv2d'`, MAML-Pytorch's learner.py): the empty string
    and one Latin-1 character are CPython's singletons, a literal of only ASCII letters,
    digits and underscores is interned (all_name_chars), and equal literals of one file
    are one object (the compiler's constant cache, `seen`)."""
    if len(value) == 1 and ord(value) < 256:
        return chr(ord(value))
    if not value or all(c in _NAME_CHARS for c in value):
        return sys.intern(value)
    return seen.setdefault(value, value)


class LiteralRules:
    """Handlers for numbers and strings, with Python's escapes and f-string fields."""

    def _h_number(self, tree: _Tree, children: list) -> ast.Constant:
        tok = children[0]
        span = self.span(tree)
        text = str(tok)
        kind = tok.type
        if kind == "IMAG_NUMBER":  # `2j`, `1.5e3J`: a complex with no real part
            return self._mk(ast.Constant, span, complex(text.replace("_", "")))
        if kind == "FLOAT_NUMBER":
            return self._mk(ast.Constant, span, float(text))
        if kind == "DEC_NUMBER" and len(text) > 1 and text[0] == "0" and text.strip("0_"):
            raise self.error("leading zeros in decimal integer literals are not permitted; "
                             "use an 0o prefix for octal integers", span)
        try:
            value = int(text, 0)
        except ValueError:
            raise self.error("integer literal is too large", span) from None
        return self._mk(ast.Constant, span, value)

    def _h_strings(self, tree: _Tree, children: list) -> ast.Constant | ast.FString:
        parts: list[str | ast.FormattedValue] = []
        is_fstring = False
        kinds = {"b" in _STRING_RE.match(tok).group(1).lower() for tok in children}
        if len(kinds) > 1:
            raise self.error("cannot mix bytes and nonbytes literals", self.span(tree))
        if kinds == {True}:
            return self._mk(ast.Constant, self.span(tree),
                            b"".join(self.bytes_literal(tok) for tok in children))
        for tok in children:
            match = _STRING_RE.match(tok)
            assert match is not None  # the STRING terminals guarantee this shape
            prefix = match.group(1).lower()
            quote = match.group(2)
            start = match.end()
            body = str(tok)[start:len(tok) - len(quote)]
            raw = "r" in prefix
            if "f" in prefix:
                is_fstring = True
                parts.extend(self.fstring_parts(tok, body, start, raw))
            else:
                parts.append(body if raw else self.unescape(tok, body, start))
        span = self.span(tree)
        if not is_fstring:
            return self._mk(ast.Constant, span, shared_constant(
                "".join(parts), self.string_constants))  # type: ignore[arg-type]
        merged: list[str | ast.FormattedValue] = []
        for part in parts:
            if isinstance(part, str):
                if not part:
                    continue
                if merged and isinstance(merged[-1], str):
                    merged[-1] = merged[-1] + part
                    continue
            merged.append(part)
        return self._mk(ast.FString, span, tuple(merged))

    def bytes_literal(self, tok: Token) -> bytes:
        """A `b'...'` piece: ASCII characters only, Python's escapes (codecs.escape_decode
        is what CPython's tokenizer uses for them; unknown ones keep their backslash)."""
        match = _STRING_RE.match(tok)
        assert match is not None
        quote = match.group(2)
        body = str(tok)[match.end():len(tok) - len(quote)]
        if not body.isascii():
            raise self.error("bytes can only contain ASCII literal characters",
                             self.tok_span(tok))
        if "r" in match.group(1).lower() or "\\" not in body:
            return body.encode("ascii")
        try:
            with warnings.catch_warnings():  # (`\q`: Python's own is not shown either)
                warnings.simplefilter("ignore", DeprecationWarning)
                return codecs.escape_decode(body.encode("ascii"))[0]
        except ValueError as err:
            raise self.error(f"(value error) {err}", self.tok_span(tok)) from None

    def pos_in(self, tok: Token, offset: int) -> tuple[int, int]:
        """Line and column (in the parsed text) of character `offset` of a token."""
        text = str(tok)
        newlines = text.count("\n", 0, offset)
        if not newlines:
            return tok.line, tok.column + offset
        return tok.line + newlines, offset - text.rfind("\n", 0, offset)

    def span_in(self, tok: Token, start: int, end: int) -> Span:
        line, column = self.pos_in(tok, start)
        end_line, end_column = self.pos_in(tok, end)
        return self.mapper.span(line, column, end_line, end_column)

    def unescape(self, tok: Token, body: str, offset: int) -> str:
        """Python's escape sequences in a (non-raw) string piece starting at `offset`."""
        if "\\" not in body:
            return body
        out: list[str] = []
        i = 0
        n = len(body)
        while i < n:
            j = body.find("\\", i)
            if j < 0:
                out.append(body[i:])
                break
            out.append(body[i:j])
            c = body[j + 1] if j + 1 < n else ""
            if c in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[c])
                i = j + 2
            elif c in "01234567":
                digits = re.match(r"[0-7]{1,3}", body[j + 1:j + 4])
                assert digits is not None
                out.append(chr(int(digits.group(), 8)))
                i = j + 1 + len(digits.group())
            elif c in ("x", "u", "U"):
                width = {"x": 2, "u": 4, "U": 8}[c]
                digits_text = body[j + 2:j + 2 + width]
                if len(digits_text) != width or not all(d in _HEX for d in digits_text):
                    raise self.error(
                        f"invalid \\{c} escape: expected {width} hex digits after \\{c}",
                        self.span_in(tok, offset + j, offset + j + 2),
                    )
                code = int(digits_text, 16)
                if code > 0x10FFFF:
                    raise self.error(f"illegal Unicode character \\{c}{digits_text}",
                                     self.span_in(tok, offset + j, offset + j + 2 + width))
                out.append(chr(code))
                i = j + 2 + width
            elif c == "N":
                close = body.find("}", j) if body.startswith("{", j + 2) else -1
                try:
                    if close < 0:
                        raise KeyError
                    out.append(unicodedata.lookup(body[j + 3:close]))
                except KeyError:
                    end = close + 1 if close >= 0 else j + 2
                    raise self.error("unknown Unicode character name in \\N{...} escape",
                                     self.span_in(tok, offset + j, offset + end)) from None
                i = close + 1
            else:  # unknown escapes keep their backslash, as in Python
                out.append("\\" + c)
                i = j + 2
        return "".join(out)

    def fstring_parts(self, tok: Token, body: str, offset: int,
                      raw: bool) -> list[str | ast.FormattedValue]:
        """Split an f-string body into literal text and `{expr!conv:spec}` fields."""
        parts: list[str | ast.FormattedValue] = []
        literal_start = 0
        i = 0
        n = len(body)

        def flush(end: int) -> None:
            piece = body[literal_start:end]
            if piece:
                parts.append(piece if raw else self.unescape(tok, piece, offset + literal_start))

        while i < n:
            c = body[i]
            if c == "\\" and not raw:
                if body.startswith("N{", i + 1):
                    close = body.find("}", i)
                    i = n if close < 0 else close + 1
                else:
                    i += 2
                continue
            if c == "}":
                if body.startswith("}", i + 1):
                    flush(i + 1)
                    i += 2
                    literal_start = i
                    continue
                raise self.error("f-string: single '}' is not allowed",
                                 self.span_in(tok, offset + i, offset + i + 1))
            if c != "{":
                i += 1
                continue
            if body.startswith("{", i + 1):
                flush(i + 1)
                i += 2
                literal_start = i
                continue
            flush(i)
            field, i = self.fstring_field(tok, body, offset, i, raw)
            parts.extend(field)
            literal_start = i
        flush(n)
        return parts

    def fstring_field(self, tok: Token, body: str, offset: int, brace: int,
                      raw: bool, nested: bool = False) -> tuple[list, int]:
        """One `{...}` field starting at `brace`; returns its parts and the index after it.
        `nested`: a field inside another's format spec (`{x:{width}.{digits}f}`), whose
        own spec may hold no further fields, as in Python."""
        n = len(body)
        start = brace + 1
        j = start
        depth = 0
        quote = ""

        def here(k: int, width: int = 1) -> Span:
            return self.span_in(tok, offset + k, offset + min(k + width, n))

        while j < n:
            ch = body[j]
            if quote:
                if body.startswith(quote, j):
                    j += len(quote)
                    quote = ""
                else:
                    j += 1
                continue
            if ch in "'\"":
                quote = ch * 3 if body.startswith(ch * 3, j) else ch
                j += len(quote)
                continue
            if ch == "\\":
                raise self.error("f-string expression part cannot include a backslash", here(j))
            if ch == "#":
                raise self.error("f-string expression part cannot include '#'", here(j))
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    if ch == "}":
                        break
                    raise self.error(f"f-string: unmatched '{ch}'", here(j))
                depth -= 1
            elif depth == 0:
                if ch == "!" and not body.startswith("=", j + 1):
                    break
                if ch == ":":
                    break
                if ch == "=" and not body.startswith("=", j + 1) and body[j - 1] not in "=!<>":
                    break
            j += 1
        if j >= n or quote:
            raise self.error("f-string: expecting '}'", here(brace))
        expr_text = body[start:j]
        if not expr_text.strip():
            raise self.error("f-string: empty expression not allowed", here(brace, j - brace + 1))
        parts: list = []
        conversion: str | None = None
        spec: str | None = None
        if body[j] == "=":
            j += 1
            while j < n and body[j] in " \t\n":
                j += 1
            parts.append(body[start:j])
        if j < n and body[j] == "!":
            conversion = body[j + 1:j + 2]
            if conversion not in ("r", "s", "a") or body[j + 2:j + 3] not in (":", "}"):
                raise self.error(
                    "f-string: invalid conversion character: expected 's', 'r', or 'a'",
                    here(j, 2))
            j += 2
        if j < n and body[j] == ":":
            spec, j = self.fstring_spec(tok, body, offset, j + 1, raw, nested)
        if j >= n or body[j] != "}":
            raise self.error("f-string: expecting '}'", here(brace))
        if parts and conversion is None and spec is None:
            conversion = "r"  # `{x=}` shows repr(x) unless told otherwise
        value = self.field_expression(tok, expr_text, offset + start)
        span = self.span_in(tok, offset + brace, offset + j + 1)
        parts.append(self._mk(ast.FormattedValue, span, value, conversion, spec))
        return parts, j + 1

    def fstring_spec(self, tok: Token, body: str, offset: int, start: int, raw: bool,
                     nested: bool) -> tuple[str | ast.FString, int]:
        """A field's format spec from `start` to its closing brace (returned): text, or an
        f-string of text and fields when it holds `{...}` (formatted before the value)."""
        n = len(body)
        parts: list[str | ast.FormattedValue] = []
        literal_start = k = start

        def flush(end: int) -> None:
            piece = body[literal_start:end]
            if piece:
                parts.append(piece if raw else self.unescape(tok, piece, offset + literal_start))

        while k < n and body[k] != "}":
            if body[k] == "{":
                if nested:
                    raise self.error("f-string: expressions nested too deeply",
                                     self.span_in(tok, offset + k, offset + k + 1))
                flush(k)
                field, k = self.fstring_field(tok, body, offset, k, raw, nested=True)
                parts.extend(field)
                literal_start = k
                continue
            k += 1
        flush(k)
        if all(isinstance(p, str) for p in parts):
            return "".join(parts), k  # type: ignore[arg-type]
        return self._mk(ast.FString, self.span_in(tok, offset + start, offset + k),
                        tuple(parts)), k

    def field_expression(self, tok: Token, expr_text: str, offset: int) -> ast.Expr:
        """Parse an f-string field with the script grammar, spans pointing into the file."""
        line, column = self.pos_in(tok, offset)
        mapper = _Mapper(line, column, self.mapper)
        trees = _run_lark(f"({expr_text})", "expr_input", mapper, wrapped=True)
        value = type(self)(self.text, mapper, self.depths).convert(trees)
        return value

