"""lark's errors as messages a learner can act on, at the offending token."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lark import Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..errors import GradtraceError, GtSyntaxError, NotSupportedError
from ..source import Span
from .lexer import _LexState
from .tokens import (
    _BLOCK_KEYWORDS,
    _CLOSE,
    _EXPR_START_LITERALS,
    _HIDDEN_LITERALS,
    _KEYWORDS,
    _NUMBERS,
    _OPEN,
    _READABLE,
    _SMART_QUOTES,
    _STRINGS,
    _UNSUPPORTED_KEYWORDS,
    _after,
    _token_span,
)

if TYPE_CHECKING:
    from .driver import _Parser


def _explain(exc: UnexpectedInput, parser: _Parser, st: _LexState, text: str,
             wrapped: bool = False) -> GradtraceError:
    """A lark error as a message a learner can act on, at the offending token."""
    if isinstance(exc, UnexpectedCharacters):
        return _explain_character(exc, text)
    if not isinstance(exc, UnexpectedToken):
        return GtSyntaxError("invalid syntax", _after(st.last))
    tok = exc.token
    kind = tok.type
    visible = st.brackets[1:] if wrapped else st.brackets  # not our f-string wrapper
    expected = _expected_terminals(exc)
    if kind == "NAME" and tok in _UNSUPPORTED_KEYWORDS:
        return NotSupportedError(_UNSUPPORTED_KEYWORDS[str(tok)], _token_span(tok))
    if kind == "$END" and visible:
        bracket = visible[-1]
        return GtSyntaxError(f"unexpected end of script: '{bracket}' was never closed",
                             _token_span(bracket))
    if kind == "_INDENT":
        return GtSyntaxError("unexpected indent", _token_span(tok), kind="IndentationError")
    if st.last is not tok:  # raised by the lexer itself: the post-lexer never saw it
        if kind in _CLOSE:
            if not st.brackets:
                return GtSyntaxError(f"unmatched '{tok}'", _token_span(tok))
            opening = st.brackets[-1]
            if _OPEN[opening.type] != kind:
                where = f" on line {opening.line}" if opening.line != tok.line else ""
                return GtSyntaxError(
                    f"closing parenthesis '{tok}' does not match opening "
                    f"parenthesis '{opening}'{where}",
                    _token_span(tok),
                )
    span = _after(st.last) if kind in ("$END", "_NEWLINE") else _token_span(tok)
    if "_INDENT" in expected:
        after = ""
        if st.opener is not None:
            keyword, line = st.opener
            what = {"def": "function definition", "class": "class definition"}.get(
                keyword, f"'{keyword}' statement")
            after = f" after {what} on line {line}"
        return GtSyntaxError(f"expected an indented block{after}", span, kind="IndentationError")

    found = _describe_token(tok)
    if wrapped and kind == "RPAR" and tok.end_pos == len(text):
        found = "the end of the f-string expression"
    starts_expression = _starts_expression(tok, parser)
    before = st.prev if st.last is tok else st.last  # the token before the offending one
    if (starts_expression and before is not None and before.type == "NAME"
            and before == "print" and not visible and before is st.line_first):
        return GtSyntaxError(
            "missing parentheses in call to 'print'; did you mean print(...)?",
            _token_span(before),
        )
    unclosed = _never_closed(visible, text, tok.start_pos) if kind != "$END" else None
    if unclosed is not None:
        # As Python does: an error while a bracket is open that the rest of the
        # script never closes is most likely that bracket's fault.
        first_on_line = before is None or before.end_line < tok.line
        if not (starts_expression and "COMMA" in expected):
            return GtSyntaxError(f"'{unclosed}' was never closed", _token_span(unclosed))
        if first_on_line and unclosed.line < tok.line:
            return GtSyntaxError(
                f"unexpected {found}: '{unclosed}' on line {unclosed.line} was never closed "
                "(or a comma is missing before this)",
                span,
            )
    if kind == "_NEWLINE" and "COLON" in expected:
        first = st.line_first
        if first is not None and first.type in _BLOCK_KEYWORDS:
            return GtSyntaxError("expected ':'", span)
    if "ELSE" in expected and "IF" not in expected and "ELIF" not in expected:
        return GtSyntaxError(f"expected 'else' after 'if' expression, found {found}", span)
    if "EXCEPT" in expected and "FINALLY" in expected:
        return GtSyntaxError(f"expected 'except' or 'finally' block, found {found}", span)
    wanted = _describe_expected(expected, parser)
    if wanted and len(wanted) <= 4:
        message = f"expected {_join_or(wanted)}, found {found}"
    else:
        message = f"unexpected {found}"
    if kind == "EQUAL":
        message += " (did you mean '=='?)"
    if kind == "NAME":
        for name in expected:
            keyword = parser.literals.get(name, "")
            if keyword.isalpha() and tok.startswith(keyword) and len(tok) > len(keyword):
                message += f" (missing a space after '{keyword}'?)"
                break
    if st.brackets and starts_expression and "COMMA" in expected:
        message += "; perhaps you forgot a comma?"
    return GtSyntaxError(message, span)


_BRACKET_SCAN = re.compile(
    r"""#[^\n]*|'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[()\[\]{}]"""
)


def _never_closed(open_brackets: list[Token], text: str, pos: int | None) -> Token | None:
    """The innermost of `open_brackets` that nothing after `pos` closes, if any
    (a rough scan that skips comments and strings)."""
    if not open_brackets or pos is None:
        return None
    stack: list[Token | None] = list(open_brackets)
    for match in _BRACKET_SCAN.finditer(text, pos):
        ch = match.group()
        if ch in ("(", "[", "{"):
            stack.append(None)
        elif ch in (")", "]", "}"):
            stack.pop()
            if not stack:
                return None
    originals = [b for b in stack if b is not None]
    return originals[-1] if originals else None


def _explain_character(exc: UnexpectedCharacters, text: str) -> GtSyntaxError:
    ch = exc.char
    span = Span.point(exc.line, exc.column)
    pos = exc.pos_in_stream
    if ch in "'\"":
        if pos is not None and text.startswith(ch * 3, pos):
            return GtSyntaxError("unterminated triple-quoted string literal", span)
        return GtSyntaxError("unterminated string literal", span)
    if ch == "\\":
        return GtSyntaxError("unexpected character after line continuation character", span)
    if ch in _SMART_QUOTES:
        return GtSyntaxError(
            f"invalid character '{ch}' (U+{ord(ch):04X}); use a straight quote ' or \" instead",
            span,
        )
    if not ch.isprintable():
        return GtSyntaxError(f"invalid non-printable character U+{ord(ch):04X}", span)
    if ord(ch) > 127:
        return GtSyntaxError(f"invalid character '{ch}' (U+{ord(ch):04X})", span)
    if ch == "!":
        return GtSyntaxError("invalid character '!' (use 'not' for logical negation)", span)
    return GtSyntaxError(f"invalid character '{ch}'", span)


def _expected_terminals(exc: UnexpectedToken) -> set[str]:
    """The terminals the parser could take next, tried one by one (exact, unlike the
    LALR table's merged lookaheads); only computed on the error path."""
    interactive = getattr(exc, "interactive_parser", None)
    if interactive is not None:
        try:
            return set(interactive.accepts())
        except LarkError:
            pass
    state = exc.state
    try:
        names = set(state.parse_conf.parse_table.states[state.position])
    except (AttributeError, KeyError, TypeError):
        names = set(exc.expected or ())
    return {name for name in names if name.isupper()}


def _starts_expression(tok: Token, parser: _Parser) -> bool:
    kind = tok.type
    if kind == "NAME" and tok not in _KEYWORDS:
        return True
    if kind in _NUMBERS or kind in _STRINGS:
        return True
    return parser.literals.get(kind) in ("(", "[", "{", "-", "+", "~", "lambda", "not",
                                         "None", "True", "False", "...")


def _describe_token(tok: Token) -> str:
    kind = tok.type
    if kind == "$END":
        return "end of script"
    if kind == "_NEWLINE":
        return "end of line"
    if kind == "_INDENT":
        return "indent"
    if kind == "_DEDENT":
        return "dedent"
    if kind == "NAME":
        return f"'{tok}'" if tok in _KEYWORDS else f"name '{tok}'"
    if kind in _NUMBERS:
        return f"number {tok}"
    if kind in _STRINGS:
        value = str(tok)
        first_line = value.split("\n", 1)[0]
        if len(first_line) > 30 or first_line != value:
            first_line = first_line[:27] + "..."
        return f"string {first_line}"
    return f"'{tok}'"


def _describe_expected(expected: set[str], parser: _Parser) -> list[str]:
    """Terminal names as words; everything that can start an expression is one item."""
    literals = parser.literals
    starters = {name for name in expected
                if name == "NAME" or name in _NUMBERS or name in _STRINGS
                or literals.get(name) in _EXPR_START_LITERALS}
    words: list[str] = []
    if "NAME" in starters and len(starters) > 1:
        words.append("an expression")
        rest = expected - starters
    else:
        rest = set(expected)
    for name in sorted(rest, key=_terminal_order):
        if name in ("_DEDENT", "_INDENT", "$END", "IMAG_NUMBER"):
            continue
        if name == "SEMICOLON" and "_NEWLINE" in rest:
            continue
        literal = literals.get(name)
        if literal is not None:
            if literal in _HIDDEN_LITERALS:
                continue
            word = f"'{literal}'"
        else:
            word = _READABLE.get(name, name.lower())
        if word not in words:
            words.append(word)
    return words


def _terminal_order(name: str) -> tuple[int, str]:
    return (1 if name == "_NEWLINE" else 0, name)


def _join_or(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]

