"""The post-lexer: indentation -> _INDENT/_DEDENT, bracket and keyword checks."""
from __future__ import annotations

import re
from collections.abc import Iterator

from lark import Token

from ..errors import GtSyntaxError, NotSupportedError
from ..source import Span
from .tokens import (
    _BLOCK_KEYWORDS,
    _CLOSE,
    _KEYWORDS,
    _NAME_RE,
    _OPEN,
    _TAB_SIZE,
    _UNSUPPORTED_KEYWORDS,
    MAX_BRACKETS,
    MAX_INDENT,
    _token_span,
)


class _LexState:
    """Per-parse state of the post-lexer, kept after an error to explain it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.brackets: list[Token] = []
        self.indents: list[tuple[int, int]] = [(0, 0)]  # (tab size 8, tab size 1)
        self.line_first: Token | None = None  # first token of the current logical line
        self.last: Token | None = None  # last non-layout token passed to the parser
        self.prev: Token | None = None  # the one before it
        self.opener: tuple[str, int] | None = None  # block the next line must indent


class _PostLexer:
    """Indentation -> _INDENT/_DEDENT (PythonIndenter-style), plus checks on brackets,
    keywords and unsupported statements that give better errors than the parser could."""

    always_accept = ("_NEWLINE", "NAME")  # NAME: `match`/`case` become MATCH/CASE here

    def __init__(self) -> None:
        self.keyword_types: dict[str, str] = {}
        self.text = ""
        self.state = _LexState("")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.state = _LexState(self.text)
        return self._run(_soft_keywords(stream, self.text), self.state)

    def _run(self, stream: Iterator[Token], st: _LexState) -> Iterator[Token]:
        keyword_types = self.keyword_types
        text = st.text
        for tok in stream:
            kind = tok.type
            if kind == "_NEWLINE":
                if st.brackets:
                    continue  # implicit line joining inside brackets
                first = st.line_first
                st.opener = None
                if st.last is not None and st.last.type == "COLON" and first is not None:
                    if first.type in _BLOCK_KEYWORDS:
                        st.opener = (str(first), first.line)
                yield tok
                yield from self._indentation(tok, st)
                st.line_first = None
                continue
            if kind == "NAME" and tok in _KEYWORDS:
                message = _UNSUPPORTED_KEYWORDS.get(str(tok))
                if message is not None:
                    raise NotSupportedError(message, _token_span(tok))
                tok = Token.new_borrow_pos(keyword_types[str(tok)], str(tok), tok)
                kind = tok.type
            elif tok in _KEYWORDS and kind == keyword_types.get(str(tok)):
                # A keyword glued to more letters (`inrange`) is really a name; the
                # contextual lexer only split it because no name could come next.
                end = tok.end_pos
                if end is not None and end < len(text) and _is_name_char(text[end]):
                    match = _NAME_RE.match(text, tok.start_pos)
                    if match is not None:
                        name = match.group()
                        tok = Token("NAME", name, tok.start_pos, tok.line, tok.column,
                                    tok.line, tok.column + len(name), tok.start_pos + len(name))
                        kind = "NAME"
            if st.line_first is None:
                st.line_first = tok
            if kind in _OPEN:
                if len(st.brackets) >= MAX_BRACKETS:
                    raise GtSyntaxError(
                        f"too many nested parentheses (limit {MAX_BRACKETS})", _token_span(tok)
                    )
                st.brackets.append(tok)
            elif kind in _CLOSE:
                if not st.brackets:
                    raise GtSyntaxError(f"unmatched '{tok}'", _token_span(tok))
                opening = st.brackets.pop()
                if _OPEN[opening.type] != kind:
                    where = f" on line {opening.line}" if opening.line != tok.line else ""
                    raise GtSyntaxError(
                        f"closing parenthesis '{tok}' does not match opening "
                        f"parenthesis '{opening}'{where}",
                        _token_span(tok),
                    )
            st.prev, st.last = st.last, tok
            yield tok
        while len(st.indents) > 1:
            st.indents.pop()
            at = st.last
            if at is None:
                yield Token("_DEDENT", "", 0, 1, 1, 1, 1, 0)
            else:
                yield Token("_DEDENT", "", at.end_pos, at.end_line, at.end_column,
                            at.end_line, at.end_column, at.end_pos)

    def _indentation(self, nl: Token, st: _LexState) -> Iterator[Token]:
        """CPython's algorithm: compare with tabs to 8 columns and to 1, and the
        two comparisons must agree (else the indentation depends on tab width)."""
        indent = nl[nl.rfind("\n") + 1:]
        col = alt = 0
        for ch in indent:
            if ch == "\t":
                col = (col // _TAB_SIZE + 1) * _TAB_SIZE
            else:
                col += 1
            alt += 1
        where = Span.point(nl.end_line, nl.end_column)
        top_col, top_alt = st.indents[-1]
        if col == top_col:
            if alt != top_alt:
                raise _tab_error(where)
        elif col > top_col:
            if alt <= top_alt:
                raise _tab_error(where)
            if len(st.indents) > MAX_INDENT:
                raise GtSyntaxError(f"too many levels of indentation (limit {MAX_INDENT})",
                                    where, kind="IndentationError")
            st.indents.append((col, alt))
            yield Token("_INDENT", indent, nl.end_pos, nl.end_line, nl.end_column,
                        nl.end_line, nl.end_column, nl.end_pos)
        else:
            while col < st.indents[-1][0]:
                st.indents.pop()
                yield Token("_DEDENT", "", nl.end_pos, nl.end_line, nl.end_column,
                            nl.end_line, nl.end_column, nl.end_pos)
            if col != st.indents[-1][0]:
                raise GtSyntaxError("unindent does not match any outer indentation level",
                                    where, kind="IndentationError")
            if alt != st.indents[-1][1]:
                raise _tab_error(where)


_NOT_A_BLOCK = re.compile(r"(?:[=.:,;)\]}]|(?:\*\*|//|<<|>>|[-+*/%@&|^])=)(?!=)")
_LINE_SCAN = re.compile(
    r"""#[^\n]*|'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\\\r?\n|[()\[\]{}:\n]"""
)


def _soft_keywords(stream: Iterator[Token], text: str) -> Iterator[Token]:
    """`match` and `case` at the start of a line are keywords when the line is shaped like
    their statement (a colon outside brackets, and not `match = ...`, `match.x`,
    `match: int`): MATCH and CASE tokens; anywhere else they are names (Python's soft
    keywords, decided here from the line's text instead of by trying to parse it)."""
    depth = 0
    line_start = True
    for tok in stream:
        kind = tok.type
        if line_start and depth == 0 and kind == "NAME" and tok in ("match", "case") \
                and tok.end_pos is not None and _block_line(text, tok.end_pos):
            tok = Token.new_borrow_pos("MATCH" if tok == "match" else "CASE", str(tok), tok)
        if kind in _OPEN:
            depth += 1
        elif kind in _CLOSE:
            depth = max(depth - 1, 0)
        line_start = kind == "_NEWLINE" and depth == 0
        yield tok


def _block_line(text: str, pos: int) -> bool:
    """Whether the logical line going on at `pos` (just after `match`/`case`) has a colon
    outside brackets, and what follows the word can start its subject or pattern."""
    after = text[pos:pos + 4].lstrip(" \t")
    if not after or after[0] in "\r\n#" or _NOT_A_BLOCK.match(after):
        return False
    level = 0
    for found in _LINE_SCAN.finditer(text, pos):
        piece = found.group()
        if piece in ("(", "[", "{"):
            level += 1
        elif piece in (")", "]", "}"):
            level -= 1
        elif piece == ":" and level <= 0:
            return True
        elif piece == "\n" and level <= 0:
            return False
    return False


def _tab_error(span: Span) -> GtSyntaxError:
    return GtSyntaxError("inconsistent use of tabs and spaces in indentation", span,
                         kind="TabError")


def _is_name_char(ch: str) -> bool:
    return ("a" + ch).isidentifier()

