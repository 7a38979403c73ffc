"""Script text -> AST (`gradtrace.syntax`), with exact spans and errors a learner can read.

This is the only module that imports lark. The grammar (`grammar/gradtrace.lark`)
is LALR(1) with lark's contextual lexer; a post-lexer turns indentation into
_INDENT/_DEDENT tokens (as `lark.indenter.PythonIndenter` does) and also tracks
brackets and keywords so syntax errors can say what went wrong in words.

lark's parse table runs in a loop of our own (`_ParseLoop`, several times faster
than lark's), which builds the parse tree with spans. The tree is converted to AST
nodes bottom-up in the order the parser made it, never by Python recursion, so
hostile input (thousands of nested brackets or unary minuses) ends in a clear
error instead of a crash. Every AST node is at most `MAX_NESTING` levels deep,
which also keeps the interpreter's recursion bounded.

Spans follow Python's `ast`: 1-based lines and columns, end exclusive. A
parenthesised expression's own span excludes its parentheses, but the node that
contains it covers them: in `(a + b) * c` the BinOp `a + b` starts at `a`, the
outer BinOp starts at `(`. A parenthesised tuple `(1, 2)` covers its parentheses.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.grammar import Rule
from lark.parsers.lalr_analysis import Shift

from . import syntax as ast
from .errors import GradtraceError, GtSyntaxError, NotSupportedError
from .source import Source, Span

__all__ = ["MAX_NESTING", "MAX_BRACKETS", "MAX_INDENT", "parse", "parse_expression"]

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
    "class": "`class` definitions are not supported",
    "global": "`global` statements are not supported",
    "nonlocal": "`nonlocal` statements are not supported",
    "del": "`del` statements are not supported",
    "yield": "`yield` (generator functions) is not supported",
    "async": "`async` is not supported",
    "await": "`await` is not supported",
}
_BLOCK_KEYWORDS = frozenset(
    {"IF", "ELIF", "ELSE", "FOR", "WHILE", "DEF", "TRY", "EXCEPT", "FINALLY", "WITH"}
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
    {"(", "[", "{", "-", "+", "~", "not", "lambda", "None", "True", "False", "...", "*", "**"}
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


# ------------------------------------------------------------------ public API


def parse(source: Source) -> ast.Module:
    """Parse a whole script; raises GtSyntaxError or NotSupportedError with a span."""
    text = _normalise(source.text)
    _check_edges(text)
    trees = _run_lark(text, "file_input", _IDENTITY)
    builder = _Builder(text, _IDENTITY, {})
    body: tuple[ast.Stmt, ...] = builder.convert(trees)
    _check_context(body)
    stripped = text[:-1]  # _normalise always appends the final newline
    end_line = stripped.count("\n") + 1
    end_column = len(stripped) - (stripped.rfind("\n") + 1) + 1
    return ast.Module(Span(1, 1, end_line, end_column), body)


def parse_expression(source: Source) -> ast.Expr:
    """Parse one expression (a bare `a, b` is a tuple); used by tools and tests."""
    text = _normalise(source.text)
    trees = _run_lark(text, "expr_input", _IDENTITY)
    return _Builder(text, _IDENTITY, {}).convert(trees)


# ------------------------------------------------------------- lark, built once


class _Tree:
    """A parse-tree node: lark's Tree cut down to what `_Builder` reads.

    `pos` is the node's own (line, column, end_line, end_column), None if it covers
    no text; `outer` also covers what a `?rule` that passed the node up unchanged
    had around it, such as parentheses (lark's "container" positions).
    """

    __slots__ = ("data", "children", "pos", "outer", "value")

    def __init__(self, data: str, children: list) -> None:
        self.data = data
        self.children = children
        self.pos: tuple[int, int, int, int] | None = None
        self.outer: tuple[int, int, int, int] | None = None
        self.value: Any = None  # the AST node or helper value, once converted


class _ParseLoop:
    """Runs lark's LALR(1) parse table with a loop of our own that builds the tree.

    lark's loop makes every node through a chain of wrappers, and its
    `propagate_positions` callback cost more than all the rest of parsing. Here
    four reductions in five are a `?rule` handing its only child up (`test` ->
    `or_test` -> ... -> `atom`): they only change the parser state. The others
    keep children as lark's ChildFilter does and take their span from the first
    and last child that isn't layout (newline, indent, dedent), as lark's
    propagate_positions does with our filter.
    """

    def __init__(self, lark: Lark) -> None:
        # the parse table, reached the public way (no text, so nothing is lexed):
        # state -> symbol -> (Shift, next state) or (Reduce, rule)
        table = lark.parse_interactive(start="file_input").parser_state.parse_conf.parse_table
        self.states: dict[Any, dict[str, tuple]] = table.states
        self.reductions = {rule: self.reduction(rule) for rule in lark.rules}
        self.trees: list[_Tree] = []  # the current parse's new nodes, children first
        # (state below, state, next terminal) -> the state after the `?rule`s
        # passing a child up there, with nothing else to do: an `atom` ends up a `test`
        # in one step instead of fifteen.
        self.passes: dict[tuple, Any] = {}

    def reduction(self, rule: Rule) -> tuple[int, str, Callable[[list], Any] | None]:
        """(how many values it pops, the symbol it makes, the callback making its value:
        None if the only child is passed up as it is)."""
        options = rule.options
        expansion = rule.expansion
        name = rule.alias or options.template_source or rule.origin.name
        inline = options.expand1 and not rule.alias  # `?rule`: a single child replaces it
        hidden = rule.origin.name.startswith("_")  # `_rule`: spliced into its parent
        assert not (inline and hidden), f"`?_rule`s are not supported: {rule}"
        # As lark's ChildFilter: keep children that aren't filtered-out tokens, splice
        # `_rule` children, and put None where an absent [optional] part goes.
        nones = [0] * (len(expansion) + 1)
        if options.empty_indices:
            flags = "".join(str(int(b)) for b in options.empty_indices)
            nones = [len(ones) for ones in flags.split("0")]
        plan: list[tuple[int, bool, int]] = []
        pending = 0
        for i, sym in enumerate(expansion):
            pending += nones[i]
            if options.keep_all_tokens or not (sym.is_term and sym.filter_out):
                plan.append((i, not sym.is_term and sym.name.startswith("_"), pending))
                pending = 0
        trailing = pending + nones[-1]
        if inline and len(expansion) == 1 and plan == [(0, False, 0)] and not trailing:
            return (1, rule.origin.name, None)
        identity = plan == [(i, False, 0) for i in range(len(expansion))] and not trailing
        # A `_rule` whose first child is spliced: lark's `x*` is the left-recursive
        # `__star: x | __star x`, and copying the growing list at every step would make a
        # long chain (`1 + 1 + ... + 1`) quadratic. The spliced child is a `_rule` tree
        # nothing else holds, so its list is extended in place.
        extend = hidden and bool(plan) and plan[0] == (0, True, 0)

        def reduce(children: list) -> Any:
            if identity:
                kept = children
            else:
                kept = children[0].children if extend else []
                for i, splice, none_count in plan[1:] if extend else plan:
                    if none_count:
                        kept += [None] * none_count
                    if splice:
                        kept += children[i].children
                    else:
                        kept.append(children[i])
                if trailing:
                    kept += [None] * trailing
            if inline and len(kept) == 1:
                tree = kept[0]
                if tree.__class__ is not _Tree:
                    return tree  # a token (or None) keeps its own position
            else:
                tree = _Tree(name, kept)
                if not hidden:
                    self.trees.append(tree)
            extent = _extent(children)
            if extent is not None:
                if tree.pos is None:
                    tree.pos = extent
                tree.outer = extent
            return tree

        return (len(expansion), rule.origin.name, reduce)

    def pass_up(self, below: Any, state: Any, kind: str) -> Any:
        """The state once `?rule`s have passed the child on top of `below` up as far as
        they do before terminal `kind` (each replaces the top state, nothing else)."""
        while True:
            action, arg = self.states[state].get(kind, (Shift, None))  # none: feed() raises
            if action is Shift:
                return state
            _, origin, callback = self.reductions[arg]
            if callback is not None:
                return state
            state = self.states[below][origin][1]

    def parse(self, lark: Lark, text: str, start: str) -> list[_Tree]:
        """The nodes of `text`'s parse tree, children before parents (the root last).
        Raises what lark's own loop (`lark.parsers.lalr_parser`) would."""
        interactive = lark.parse_interactive(text, start=start)
        parser_state = interactive.parser_state
        end_state = parser_state.parse_conf.end_state
        state_stack = parser_state.state_stack
        value_stack = parser_state.value_stack
        states = self.states
        reductions = self.reductions
        passes = self.passes
        self.trees = trees = []

        def feed(token: Token, is_end: bool = False) -> None:
            kind = token.type
            while True:
                state = state_stack[-1]
                try:
                    action, arg = states[state][kind]
                except KeyError:
                    expected = {s for s in states[state] if s.isupper()}
                    raise UnexpectedToken(token, expected, state=parser_state) from None
                if action is Shift:
                    state_stack.append(arg)
                    value_stack.append(token)
                    return
                size, origin, callback = reductions[arg]
                if callback is None:  # `?rule`s passing a child up
                    key = (state_stack[-2], state, kind)
                    top = passes.get(key)
                    if top is None:
                        top = passes[key] = self.pass_up(*key)
                    state_stack[-1] = top
                else:
                    if size:
                        children = value_stack[-size:]
                        del state_stack[-size:]
                        del value_stack[-size:]
                    else:
                        children = []
                    value_stack.append(callback(children))
                    state_stack.append(states[state_stack[-1]][origin][1])
                if is_end and state_stack[-1] == end_state:
                    return

        try:
            token = None
            for token in parser_state.lexer.lex(parser_state):
                feed(token)
            # as lark does, $END takes the last token's position unless it is empty
            feed(Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1),
                 is_end=True)
        except UnexpectedInput as exc:
            exc.interactive_parser = interactive
            raise
        return trees


def _extent(children: list) -> tuple[int, int, int, int] | None:
    """From the start of the first child with a position to the end of the last one,
    the children counting with what was around them (`outer`)."""
    for first in children:
        if first.__class__ is _Tree:
            if first.outer is not None:
                break
        elif first is not None and first.type not in _LAYOUT:
            break
    else:
        return None
    for last in reversed(children):  # stops at `first` at the latest
        if last.__class__ is _Tree:
            if last.outer is not None:
                break
        elif last is not None and last.type not in _LAYOUT:
            break
    start = first.outer[:2] if first.__class__ is _Tree else (first.line, first.column)
    end = last.outer[2:] if last.__class__ is _Tree else (last.end_line, last.end_column)
    return start + end


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

    always_accept = ("_NEWLINE",)

    def __init__(self) -> None:
        self.keyword_types: dict[str, str] = {}
        self.text = ""
        self.state = _LexState("")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.state = _LexState(self.text)
        return self._run(stream, self.state)

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


def _tab_error(span: Span) -> GtSyntaxError:
    return GtSyntaxError("inconsistent use of tabs and spaces in indentation", span,
                         kind="TabError")


def _is_name_char(ch: str) -> bool:
    return ("a" + ch).isidentifier()


@dataclass
class _Parser:
    lark: Lark
    postlex: _PostLexer
    loop: _ParseLoop
    literals: dict[str, str]  # terminal name -> its literal text, for string terminals


_LOCK = threading.RLock()
_PARSER: _Parser | None = None


def _get_parser() -> _Parser:
    """The Lark parser, built on first use and then shared (guarded by _LOCK)."""
    global _PARSER
    if _PARSER is None:
        grammar = _grammar_text()
        postlex = _PostLexer()
        lark = Lark(
            grammar,
            parser="lalr",
            lexer="contextual",
            postlex=postlex,
            start=["file_input", "expr_input"],
            maybe_placeholders=True,
            cache=_cache_file(grammar),
        )
        literals = {t.name: t.pattern.value for t in lark.terminals if t.pattern.type == "str"}
        postlex.keyword_types = {v: k for k, v in literals.items() if v in _KEYWORDS}
        _PARSER = _Parser(lark, postlex, _ParseLoop(lark), literals)
    return _PARSER


def _grammar_text() -> str:
    """The grammar shipped in the wheel (gradtrace/grammar/), else the source tree's."""
    package = Path(__file__).resolve().parent
    for path in (package / "grammar" / "gradtrace.lark",
                 package.parent / "grammar" / "gradtrace.lark"):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"gradtrace.lark not found next to {package} or in its parent")


def _cache_file(grammar: str) -> str | bool:
    """Where lark caches the analysed grammar (building it takes ~0.4 s, loading ~20 ms).

    A private per-user directory (the cache is a pickle), keyed by grammar, lark and
    Python versions. GRADTRACE_PARSER_CACHE=0 turns caching off.
    """
    if os.environ.get("GRADTRACE_PARSER_CACHE", "1") in ("0", "", "no", "off", "false"):
        return False
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "gradtrace")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        info = os.stat(directory)
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            return False
        if not os.access(directory, os.W_OK):
            return False
    except OSError:
        return False
    import lark as lark_module

    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    version = f"{sys.version_info[0]}{sys.version_info[1]}"
    name = f"parser-{digest}-lark{lark_module.__version__}-py{version}.pickle"
    return os.path.join(directory, name)


# ------------------------------------------------------------ running the parser


class _Mapper:
    """Maps positions in the text lark saw to positions in the script file.

    Identity for a script (no parent). For an f-string field, lark sees `(` + field
    text + `)`; (line, column) is where the field's first character sits in the
    parent's text, and that character is at column 2 of what lark sees.
    """

    def __init__(self, line: int = 1, column: int = 1, parent: _Mapper | None = None) -> None:
        self.line = line
        self.column = column
        self.parent = parent

    def pos(self, line: int, column: int) -> tuple[int, int]:
        if self.parent is None:
            return line, column
        if line == 1:
            line, column = self.line, self.column + column - 2
        else:
            line = self.line + line - 1
        return self.parent.pos(line, column)

    def span(self, line: int, column: int, end_line: int, end_column: int) -> Span:
        if self.parent is None:
            return Span(line, column, end_line, end_column)
        start = self.pos(line, column)
        end = self.pos(end_line, end_column)
        return Span(start[0], start[1], end[0], end[1])

    def remap(self, span: Span | None) -> Span | None:
        if span is None or self.parent is None:
            return span
        return self.span(span.line, span.column, span.end_line, span.end_column)


_IDENTITY = _Mapper()


def _normalise(text: str) -> str:
    """Universal newlines, no BOM, and always a final newline (lark needs one)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    return text


def _check_edges(text: str) -> None:
    """What lark can't see: an indented first line (it only sees indentation after a
    newline) and a backslash continuing the last line into nothing."""
    match = re.match(r"[ \t\f]*", text)
    end = match.end() if match else 0
    if end and text[end] not in "\n#":
        raise GtSyntaxError("unexpected indent", Span.point(1, end + 1), kind="IndentationError")
    tail = re.search(r"\\[ \t\f]*\n\Z", text)
    if tail is not None and not _inside_string_or_comment(text, tail.start()):
        line = text.count("\n", 0, tail.start()) + 1
        column = tail.start() - text.rfind("\n", 0, tail.start())
        raise GtSyntaxError("unexpected end of script after a line continuation '\\'",
                            Span.point(line, column))


def _inside_string_or_comment(text: str, pos: int) -> bool:
    """Whether the backslash at `pos` (on the last line) is in a comment or a string;
    good enough for the one place it is used, where lark decides everything else."""
    line_start = text.rfind("\n", 0, pos) + 1
    return "#" in text[line_start:pos] or text.count('"""', 0, pos) % 2 == 1 \
        or text.count("'''", 0, pos) % 2 == 1


def _run_lark(text: str, start: str, mapper: _Mapper, wrapped: bool = False) -> list[_Tree]:
    """Parse with lark and turn every lark error into a GtSyntaxError in words.

    Returns the parse tree's nodes, children before parents (the root last).

    `wrapped`: the text is an f-string field inside parentheses we added, which
    error messages must not mention.
    """
    with _LOCK:
        parser = _get_parser()
        parser.postlex.text = text
        try:
            return parser.loop.parse(parser.lark, text, start)
        except GradtraceError as exc:
            exc.span = mapper.remap(exc.span)
            raise
        except UnexpectedInput as exc:
            error = _explain(exc, parser, parser.postlex.state, text, wrapped)
        except LarkError as exc:  # anything else lark may raise: still no lark error escapes
            original = getattr(exc, "orig_exc", None)
            if isinstance(original, GradtraceError):
                error = original
            else:
                error = GtSyntaxError(f"invalid syntax ({type(exc).__name__})")
        except RecursionError:
            error = NotSupportedError(f"code nested too deeply (limit {MAX_NESTING})")
    error.span = mapper.remap(error.span)
    raise error


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
        if kind == "AT" and st.line_first is None:
            return NotSupportedError("decorators are not supported", _token_span(tok))
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
            what = "function definition" if keyword == "def" else f"'{keyword}' statement"
            after = f" after {what} on line {line}"
        return GtSyntaxError(f"expected an indented block{after}", span, kind="IndentationError")

    found = _describe_token(tok)
    if wrapped and kind == "RPAR" and tok.end_pos == len(text):
        found = "the end of the f-string expression"
    starts_expression = _starts_expression(tok, parser)
    before = st.prev if st.last is tok else st.last  # the token before the offending one
    if (before is not None and before is st.line_first and before.type == "NAME"
            and before in ("match", "case") and kind == "NAME" and not visible):
        return NotSupportedError(f"`{before}` statements are not supported",
                                 _token_span(before))
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


# --------------------------------------------------------- parse tree -> AST


class _GenExpArgs(list):
    """Arguments of `f(x for x in xs)`: a generator expression as the only argument."""


_AUG_OPS = frozenset({"+", "-", "*", "/", "//", "%", "**", "@"})
_TARGET_WORDS: dict[type, str] = {
    ast.Call: "function call",
    ast.Compare: "comparison",
    ast.Lambda: "lambda",
    ast.IfExp: "conditional expression",
    ast.ListComp: "list comprehension",
    ast.DictExpr: "dict literal",
    ast.FString: "f-string expression",
    ast.Slice: "slice",
}
_EXPR_TYPES: tuple[type, ...] = (
    ast.Constant, ast.FString, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred,
    ast.Call, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda,
    ast.ListExpr, ast.TupleExpr, ast.DictExpr, ast.ListComp,
)


class _Builder:
    """Turns the parse tree into AST nodes, bottom-up.

    Handlers are `_h_<rule>(tree, children)`; `children` are already converted (AST
    nodes, tokens, None for an absent optional part, or helper values). Every node
    is made by `_mk`, which tracks nesting depth and enforces MAX_NESTING.
    """

    def __init__(self, text: str, mapper: _Mapper, depths: dict[int, int]) -> None:
        self.text = text
        self.mapper = mapper
        self.depths = depths

    # ---------------------------------------------------------------- machinery

    def convert(self, trees: list[_Tree]) -> Any:
        """Converts the nodes in the order the parser made them (children before parents,
        left to right), so each handler's children are already converted; returns the
        root's value. The handlers run in the same order as a depth-first walk."""
        handlers = _HANDLERS
        for tree in trees:
            children = [c.value if c.__class__ is _Tree else c for c in tree.children]
            tree.value = handlers[tree.data](self, tree, children)
        return trees[-1].value

    def _mk(self, cls: type, span: Span, *fields: Any) -> Any:
        node = cls(span, *fields)
        depths = self.depths
        depth = 0
        for field in fields:
            if isinstance(field, ast.Node):
                depth = max(depth, depths.get(id(field), 1))
            elif isinstance(field, tuple):
                for item in field:
                    if isinstance(item, ast.Node):
                        depth = max(depth, depths.get(id(item), 1))
        depth += 1
        if depth > MAX_NESTING:
            what = "expression" if isinstance(node, _EXPR_TYPES) else "code"
            raise NotSupportedError(f"{what} nested too deeply (limit {MAX_NESTING})", span)
        depths[id(node)] = depth
        return node

    def span(self, tree: _Tree) -> Span:
        if tree.pos is None:
            return self.mapper.span(1, 1, 1, 1)
        return self.mapper.span(*tree.pos)

    def outer(self, child: Any) -> Span:
        """The span of a child including its parentheses, if it has any."""
        if isinstance(child, Token):
            return self.tok_span(child)
        return self.mapper.span(*child.outer)

    def tok_span(self, tok: Token) -> Span:
        span = _token_span(tok)
        return self.mapper.span(span.line, span.column, span.end_line, span.end_column)

    @staticmethod
    def join(first: Span, last: Span) -> Span:
        return Span(first.line, first.column, last.end_line, last.end_column)

    def error(self, message: str, span: Span) -> GtSyntaxError:
        return GtSyntaxError(message, span)

    def unsupported(self, message: str, span: Span) -> NotSupportedError:
        return NotSupportedError(message, span)

    def no_starred(self, value: Any) -> None:
        if isinstance(value, ast.Starred):
            raise self.error("can't use starred expression here", value.span)

    # -------------------------------------------------------------- statements

    def _h_file_input(self, tree: _Tree, children: list) -> tuple[ast.Stmt, ...]:
        return _flatten(children)

    def _h_expr_input(self, tree: _Tree, children: list) -> ast.Expr:
        value = children[0]
        self.no_starred(value)
        return value

    def _h_simple_stmt(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    def _h_suite(self, tree: _Tree, children: list) -> tuple[ast.Stmt, ...]:
        return _flatten(children)

    def _h_expr_stmt(self, tree: _Tree, children: list) -> ast.ExprStmt:
        self.no_starred(children[0])
        return self._mk(ast.ExprStmt, self.span(tree), children[0])

    def _h_assign_stmt(self, tree: _Tree, children: list) -> ast.Assign:
        *targets, value = children
        self.no_starred(value)
        for target in targets:
            self.check_target(target)
        return self._mk(ast.Assign, self.span(tree), tuple(targets), value)

    def _h_annassign_stmt(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("type annotations (`x: int = ...`) are not supported",
                               self.span(tree))

    def _h_augassign_op(self, tree: _Tree, children: list) -> Token:
        return children[0]

    def _h_augassign_stmt(self, tree: _Tree, children: list) -> ast.AugAssign:
        target, op, value = children
        self.no_starred(value)
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            if isinstance(target, (ast.TupleExpr, ast.ListExpr)):
                word = "tuple" if isinstance(target, ast.TupleExpr) else "list"
                raise self.error(f"'{word}' is an illegal expression for augmented assignment",
                                 target.span)
            self.check_target(target)
        symbol = str(op)[:-1]
        if symbol not in _AUG_OPS:
            raise self.unsupported(f"the `{op}` operator is not supported", self.tok_span(op))
        return self._mk(ast.AugAssign, self.span(tree), target, symbol, value)

    def _h_pass_stmt(self, tree: _Tree, children: list) -> ast.Pass:
        return self._mk(ast.Pass, self.span(tree))

    def _h_break_stmt(self, tree: _Tree, children: list) -> ast.Break:
        return self._mk(ast.Break, self.span(tree))

    def _h_continue_stmt(self, tree: _Tree, children: list) -> ast.Continue:
        return self._mk(ast.Continue, self.span(tree))

    def _h_return_stmt(self, tree: _Tree, children: list) -> ast.Return:
        self.no_starred(children[0])
        return self._mk(ast.Return, self.span(tree), children[0])

    def _h_raise_stmt(self, tree: _Tree, children: list) -> ast.Raise:
        exc, cause = children
        if cause is not None:
            raise self.unsupported("`raise ... from ...` is not supported; use `raise ...`",
                                   self.span(tree))
        return self._mk(ast.Raise, self.span(tree), exc)

    def _h_assert_stmt(self, tree: _Tree, children: list) -> ast.Assert:
        return self._mk(ast.Assert, self.span(tree), children[0], children[1])

    def _h_import_stmt(self, tree: _Tree, children: list) -> ast.Import:
        return self._mk(ast.Import, self.span(tree), tuple(children))

    def _h_dotted_name(self, tree: _Tree, children: list) -> str:
        return ".".join(str(c) for c in children)

    def _h_dotted_as_name(self, tree: _Tree, children: list) -> ast.Alias:
        name, asname = children
        return self._mk(ast.Alias, self.span(tree), name, None if asname is None else str(asname))

    def _h_import_from(self, tree: _Tree, children: list) -> ast.ImportFrom:
        module, names = children
        return self._mk(ast.ImportFrom, self.span(tree), module, tuple(names))

    def _h_from_module(self, tree: _Tree, children: list) -> str:
        return children[0]

    def _h_relative_dots(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("relative imports (`from . import x`) are not supported",
                               self.span(tree))

    def _h_import_star(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("`from ... import *` is not supported; import the names you use",
                               self.span(tree))

    def _h_import_as_names(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    def _h_import_as_name(self, tree: _Tree, children: list) -> ast.Alias:
        name, asname = children
        return self._mk(ast.Alias, self.span(tree), str(name),
                        None if asname is None else str(asname))

    def _h_if_stmt(self, tree: _Tree, children: list) -> ast.If:
        test, body, *elifs, orelse = children
        whole = self.span(tree)
        tail: tuple = orelse or ()
        try:
            for elif_span, elif_test, elif_body in reversed(elifs):
                tail = (self._mk(ast.If, self.join(elif_span, whole), elif_test, elif_body,
                                 tail),)
            return self._mk(ast.If, whole, test, body, tail)
        except NotSupportedError as exc:  # each `elif` nests one level deeper
            exc.message = f"too many `elif` branches in one `if` (limit about {MAX_NESTING})"
            exc.args = (exc.message,)
            raise

    def _h_elif_clause(self, tree: _Tree, children: list) -> tuple:
        return (self.span(tree), children[0], children[1])

    def _h_while_stmt(self, tree: _Tree, children: list) -> ast.While:
        test, body, orelse = children
        return self._mk(ast.While, self.span(tree), test, body, orelse or ())

    def _h_for_stmt(self, tree: _Tree, children: list) -> ast.For:
        target, iterable, body, orelse = children
        self.check_target(target)
        self.no_starred(iterable)
        return self._mk(ast.For, self.span(tree), target, iterable, body, orelse or ())

    def _h_try_stmt(self, tree: _Tree, children: list) -> ast.Try:
        body, *handlers, orelse, final = children
        for handler in handlers[:-1]:
            if handler.type is None:
                raise self.error("default 'except:' must be last", handler.span)
        return self._mk(ast.Try, self.span(tree), body, tuple(handlers), orelse or (),
                        final or ())

    def _h_try_finally(self, tree: _Tree, children: list) -> ast.Try:
        body, final = children
        return self._mk(ast.Try, self.span(tree), body, (), (), final)

    def _h_except_clause(self, tree: _Tree, children: list) -> ast.ExceptHandler:
        kind, name, body = children
        self.no_starred(kind)
        return self._mk(ast.ExceptHandler, self.span(tree), kind,
                        None if name is None else str(name), body)

    def _h_with_stmt(self, tree: _Tree, children: list) -> ast.With:
        *items, body = children
        return self._mk(ast.With, self.span(tree), tuple(items), body)

    def _h_with_item(self, tree: _Tree, children: list) -> ast.WithItem:
        context, target = children
        if target is not None:
            self.check_target(target)
        return self._mk(ast.WithItem, self.span(tree), context, target)

    def _h_funcdef(self, tree: _Tree, children: list) -> ast.FunctionDef:
        name, params, returns, body = children
        if returns is not None:
            raise self.unsupported("return annotations (`-> type`) are not supported",
                                   self.outer(tree.children[2]))
        params = tuple(params or ())
        self.check_params(params)
        return self._mk(ast.FunctionDef, self.span(tree), str(name), params, body)

    def _h_parameters(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    _h_lambda_params = _h_parameters

    def _h_plain_param(self, tree: _Tree, children: list) -> ast.Param:
        name, annotation, default = children
        if annotation is not None:
            raise self.unsupported("parameter annotations (`x: int`) are not supported",
                                   self.span(tree))
        return self._mk(ast.Param, self.span(tree), str(name), default)

    def _h_plain_lambda_param(self, tree: _Tree, children: list) -> ast.Param:
        name, default = children
        return self._mk(ast.Param, self.span(tree), str(name), default)

    def _h_star_param(self, tree: _Tree, children: list) -> None:
        if children and children[0] is not None:
            raise self.unsupported("`*args` parameters are not supported", self.span(tree))
        raise self.unsupported("keyword-only parameters (a bare `*`) are not supported",
                               self.span(tree))

    def _h_kwargs_param(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("`**kwargs` parameters are not supported", self.span(tree))

    def _h_slash_param(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("positional-only parameters (`/`) are not supported",
                               self.span(tree))

    def check_params(self, params: tuple[ast.Param, ...]) -> None:
        seen: set[str] = set()
        has_default = False
        for param in params:
            if param.name in seen:
                raise self.error(f"duplicate argument '{param.name}' in function definition",
                                 param.span)
            seen.add(param.name)
            if param.default is not None:
                has_default = True
            elif has_default:
                raise self.error("non-default argument follows default argument", param.span)

    def check_target(self, target: Any) -> None:
        """Python's rules for what may stand left of `=` (and after `for`/`as`)."""
        pending = [target]
        while pending:
            node = pending.pop()
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
                continue
            if isinstance(node, (ast.TupleExpr, ast.ListExpr)):
                pending.extend(node.elts)
                continue
            if isinstance(node, ast.Starred):
                raise self.unsupported(
                    "starred assignment targets (`a, *rest = ...`) are not supported", node.span)
            if isinstance(node, ast.Constant):
                if node.value is None or isinstance(node.value, bool):
                    raise self.error(f"cannot assign to {node.value}", node.span)
                word = "ellipsis" if node.value is Ellipsis else "literal"
                raise self.error(f"cannot assign to {word}", node.span)
            word = _TARGET_WORDS.get(type(node), "expression")
            raise self.error(f"cannot assign to {word}", node.span)

    # ------------------------------------------------------------- expressions

    def _h_ifexp(self, tree: _Tree, children: list) -> ast.IfExp:
        body, test, orelse = children
        return self._mk(ast.IfExp, self.span(tree), test, body, orelse)

    def _h_walrus(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("the walrus operator `:=` is not supported", self.span(tree))

    def _h_lambdef(self, tree: _Tree, children: list) -> ast.Lambda:
        params, body = children
        params = tuple(params or ())
        self.check_params(params)
        return self._mk(ast.Lambda, self.span(tree), params, body)

    def _h_or_test(self, tree: _Tree, children: list) -> ast.BoolOp:
        return self._mk(ast.BoolOp, self.span(tree), "or", tuple(children))

    def _h_and_test(self, tree: _Tree, children: list) -> ast.BoolOp:
        return self._mk(ast.BoolOp, self.span(tree), "and", tuple(children))

    def _h_not_op(self, tree: _Tree, children: list) -> ast.UnaryOp:
        return self._mk(ast.UnaryOp, self.span(tree), "not", children[0])

    def _h_comparison(self, tree: _Tree, children: list) -> ast.Compare:
        return self._mk(ast.Compare, self.span(tree), children[0], tuple(children[1::2]),
                        tuple(children[2::2]))

    def _h_comp_op(self, tree: _Tree, children: list) -> str:
        return " ".join(str(c) for c in children)

    def _h_star_expr(self, tree: _Tree, children: list) -> ast.Starred:
        return self._mk(ast.Starred, self.span(tree), children[0])

    _h_stararg = _h_star_expr

    def fold(self, operands: list, trees: list, ops: list[str]) -> ast.BinOp:
        """Left-associative chain `a op b op c` -> BinOp(BinOp(a, b), c); each BinOp
        spans from the first operand (with its parentheses) to its right operand."""
        first = self.outer(trees[0])
        result = operands[0]
        for op, operand, operand_tree in zip(ops, operands[1:], trees[1:], strict=True):
            span = self.join(first, self.outer(operand_tree))
            try:
                result = self._mk(ast.BinOp, span, result, op, operand)
            except NotSupportedError as exc:  # a long flat chain reads better this way
                exc.message = (f"too many operators in one expression (limit {MAX_NESTING});"
                               " split it into several statements")
                exc.args = (exc.message,)
                raise
        return result

    def _h_or_expr(self, tree: _Tree, children: list) -> ast.BinOp:
        return self.fold(children, tree.children, ["|"] * (len(children) - 1))

    def _h_xor_expr(self, tree: _Tree, children: list) -> ast.BinOp:
        return self.fold(children, tree.children, ["^"] * (len(children) - 1))

    def _h_and_expr(self, tree: _Tree, children: list) -> ast.BinOp:
        return self.fold(children, tree.children, ["&"] * (len(children) - 1))

    def _h_shift_expr(self, tree: _Tree, children: list) -> None:
        op = children[1]
        raise self.unsupported(f"the `{op}` operator is not supported", self.tok_span(op))

    def _h_arith_expr(self, tree: _Tree, children: list) -> ast.BinOp:
        ops = [str(op) for op in children[1::2]]
        return self.fold(children[::2], tree.children[::2], ops)

    _h_term = _h_arith_expr

    def _h_factor(self, tree: _Tree, children: list) -> ast.UnaryOp:
        return self._mk(ast.UnaryOp, self.span(tree), str(children[0]), children[1])

    def _h_power(self, tree: _Tree, children: list) -> ast.BinOp:
        return self._mk(ast.BinOp, self.span(tree), children[0], "**", children[1])

    def _h_call(self, tree: _Tree, children: list) -> ast.Call:
        func, arguments = children
        if isinstance(arguments, _GenExpArgs):
            return self._mk(ast.Call, self.span(tree), func, tuple(arguments), ())
        args: list = []
        keywords: list[ast.Keyword] = []
        seen: set[str] = set()
        for item in arguments or ():
            if isinstance(item, ast.Keyword):
                if item.arg in seen:
                    raise self.error(f"keyword argument repeated: {item.arg}", item.span)
                seen.add(item.arg)
                keywords.append(item)
            elif keywords and not isinstance(item, ast.Starred):
                raise self.error("positional argument follows keyword argument", item.span)
            else:
                args.append(item)
        return self._mk(ast.Call, self.span(tree), func, tuple(args), tuple(keywords))

    def _h_arguments(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    def _h_genexp_arg(self, tree: _Tree, children: list) -> _GenExpArgs:
        elt, generators = children[0]
        return _GenExpArgs([self._mk(ast.ListComp, self.span(tree), elt, generators)])

    def _h_argvalue(self, tree: _Tree, children: list) -> ast.Keyword:
        name, value = children
        if not isinstance(name, ast.Name) or self.outer(tree.children[0]) != name.span:
            raise self.error('expression cannot contain assignment, perhaps you meant "=="?',
                             self.span(tree))
        return self._mk(ast.Keyword, self.span(tree), name.id, value)

    def _h_kwargs_arg(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("`**` argument unpacking is not supported", self.span(tree))

    def _h_getitem(self, tree: _Tree, children: list) -> ast.Subscript:
        return self._mk(ast.Subscript, self.span(tree), children[0], children[1])

    def _h_getattr(self, tree: _Tree, children: list) -> ast.Attribute:
        return self._mk(ast.Attribute, self.span(tree), children[0], str(children[1]))

    def _h_subscript_tuple(self, tree: _Tree, children: list) -> ast.TupleExpr:
        return self._mk(ast.TupleExpr, self.span(tree), tuple(children))

    def _h_slice(self, tree: _Tree, children: list) -> ast.Slice:
        lower, upper, step = children
        return self._mk(ast.Slice, self.span(tree), lower, upper, step)

    def _h_sliceop(self, tree: _Tree, children: list) -> Any:
        return children[0]

    def _h_tuple(self, tree: _Tree, children: list) -> ast.TupleExpr:
        return self._mk(ast.TupleExpr, self.span(tree), tuple(children))

    def _h_list(self, tree: _Tree, children: list) -> ast.ListExpr:
        return self._mk(ast.ListExpr, self.span(tree), tuple(children))

    def _h_dict(self, tree: _Tree, children: list) -> ast.DictExpr:
        keys = tuple(pair[0] for pair in children)
        values = tuple(pair[1] for pair in children)
        return self._mk(ast.DictExpr, self.span(tree), keys, values)

    def _h_key_value(self, tree: _Tree, children: list) -> tuple:
        return (children[0], children[1])

    def _h_dict_unpack(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("`**` unpacking in dict displays is not supported",
                               self.span(tree))

    def _h_set(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("set displays (`{a, b}`) are not supported", self.span(tree))

    def _h_setcomp(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("set comprehensions are not supported", self.span(tree))

    def _h_dictcomp(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("dict comprehensions are not supported", self.span(tree))

    def _h_genexp(self, tree: _Tree, children: list) -> None:
        raise self.unsupported(
            "generator expressions are only supported as a call's only argument, as in "
            "`sum(x for x in xs)`; use a list comprehension `[...]` instead",
            self.span(tree),
        )

    def _h_listcomp(self, tree: _Tree, children: list) -> ast.ListComp:
        elt, generators = children[0]
        return self._mk(ast.ListComp, self.span(tree), elt, generators)

    def _h_comprehension(self, tree: _Tree, children: list) -> tuple:
        elt, *generators = children
        if isinstance(elt, ast.Starred):
            raise self.error("iterable unpacking cannot be used in comprehension", elt.span)
        return (elt, tuple(generators))

    def _h_comp_for(self, tree: _Tree, children: list) -> ast.Comprehension:
        target, iterable, *ifs = children
        self.check_target(target)
        return self._mk(ast.Comprehension, self.span(tree), target, iterable, tuple(ifs))

    def _h_comp_if(self, tree: _Tree, children: list) -> Any:
        return children[0]

    def _h_var(self, tree: _Tree, children: list) -> ast.Name:
        return self._mk(ast.Name, self.span(tree), str(children[0]))

    def _h_const_none(self, tree: _Tree, children: list) -> ast.Constant:
        return self._mk(ast.Constant, self.span(tree), None)

    def _h_const_true(self, tree: _Tree, children: list) -> ast.Constant:
        return self._mk(ast.Constant, self.span(tree), True)

    def _h_const_false(self, tree: _Tree, children: list) -> ast.Constant:
        return self._mk(ast.Constant, self.span(tree), False)

    def _h_ellipsis(self, tree: _Tree, children: list) -> ast.Constant:
        return self._mk(ast.Constant, self.span(tree), Ellipsis)

    def _h_number(self, tree: _Tree, children: list) -> ast.Constant:
        tok = children[0]
        span = self.span(tree)
        text = str(tok)
        kind = tok.type
        if kind == "IMAG_NUMBER":
            raise self.unsupported("complex numbers are not supported", span)
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

    # ----------------------------------------------------------------- strings

    def _h_strings(self, tree: _Tree, children: list) -> ast.Constant | ast.FString:
        parts: list[str | ast.FormattedValue] = []
        is_fstring = False
        for tok in children:
            match = _STRING_RE.match(tok)
            assert match is not None  # the STRING terminals guarantee this shape
            prefix = match.group(1).lower()
            quote = match.group(2)
            if "b" in prefix:
                raise self.unsupported("bytes literals (`b'...'`) are not supported",
                                       self.tok_span(tok))
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
            return self._mk(ast.Constant, span, "".join(parts))  # type: ignore[arg-type]
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
                      raw: bool) -> tuple[list, int]:
        """One `{...}` field starting at `brace`; returns its parts and the index after it."""
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
            if conversion == "a":
                raise self.unsupported("the `!a` conversion is not supported; use `!r`",
                                       here(j, 2))
            j += 2
        if j < n and body[j] == ":":
            k = j + 1
            while k < n and body[k] != "}":
                if body[k] == "{":
                    raise self.unsupported(
                        "nested replacement fields in format specs are not supported", here(k))
                k += 1
            spec_raw = body[j + 1:k]
            spec = spec_raw if raw else self.unescape(tok, spec_raw, offset + j + 1)
            j = k
        if j >= n or body[j] != "}":
            raise self.error("f-string: expecting '}'", here(brace))
        if parts and conversion is None and spec is None:
            conversion = "r"  # `{x=}` shows repr(x) unless told otherwise
        value = self.field_expression(tok, expr_text, offset + start)
        span = self.span_in(tok, offset + brace, offset + j + 1)
        parts.append(self._mk(ast.FormattedValue, span, value, conversion, spec))
        return parts, j + 1

    def field_expression(self, tok: Token, expr_text: str, offset: int) -> ast.Expr:
        """Parse an f-string field with the script grammar, spans pointing into the file."""
        line, column = self.pos_in(tok, offset)
        mapper = _Mapper(line, column, self.mapper)
        trees = _run_lark(f"({expr_text})", "expr_input", mapper, wrapped=True)
        value = _Builder(self.text, mapper, self.depths).convert(trees)
        return value


_HANDLERS: dict[str, Callable[..., Any]] = {
    name[3:]: handler for name, handler in vars(_Builder).items() if name.startswith("_h_")
}
"""Rule name -> its `_Builder` handler."""

_SIMPLE_ESCAPES = {
    "\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
    "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_HEX = frozenset("0123456789abcdefABCDEF")


def _flatten(children: list) -> tuple[ast.Stmt, ...]:
    out: list = []
    for child in children:
        if child is None:
            continue
        if isinstance(child, (list, tuple)):
            out.extend(child)
        else:
            out.append(child)
    return tuple(out)


def _check_context(body: tuple[ast.Stmt, ...]) -> None:
    """`break`/`continue` only in loops and `return` only in functions (Python's
    compile-time checks, so a script fails before running, as in Python)."""
    pending: list[tuple[Any, bool, bool]] = [(s, False, False) for s in reversed(body)]
    while pending:
        stmt, in_loop, in_function = pending.pop()
        if isinstance(stmt, ast.Break) and not in_loop:
            raise GtSyntaxError("'break' outside loop", stmt.span)
        if isinstance(stmt, ast.Continue) and not in_loop:
            raise GtSyntaxError("'continue' not properly in loop", stmt.span)
        if isinstance(stmt, ast.Return) and not in_function:
            raise GtSyntaxError("'return' outside function", stmt.span)
        blocks: list[tuple[tuple, bool, bool]] = []
        if isinstance(stmt, ast.FunctionDef):
            blocks.append((stmt.body, False, True))
        elif isinstance(stmt, (ast.For, ast.While)):
            blocks += [(stmt.body, True, in_function), (stmt.orelse, in_loop, in_function)]
        elif isinstance(stmt, ast.If):
            blocks += [(stmt.body, in_loop, in_function), (stmt.orelse, in_loop, in_function)]
        elif isinstance(stmt, ast.With):
            blocks.append((stmt.body, in_loop, in_function))
        elif isinstance(stmt, ast.Try):
            blocks.append((stmt.body, in_loop, in_function))
            blocks += [(h.body, in_loop, in_function) for h in stmt.handlers]
            blocks += [(stmt.orelse, in_loop, in_function), (stmt.finalbody, in_loop, in_function)]
        for block, loop, function in reversed(blocks):
            pending.extend((s, loop, function) for s in reversed(block))


def _debug_dump(node: Any) -> str:  # pragma: no cover - a helper for interactive use
    """A compact one-line dump of an AST, for poking at the parser by hand."""
    if isinstance(node, ast.Node):
        fields = [f for f in type(node).__dataclass_fields__ if f != "span"]
        inner = ", ".join(f"{f}={_debug_dump(getattr(node, f))}" for f in fields)
        return f"{type(node).__name__}({inner})"
    if isinstance(node, tuple):
        return "(" + ", ".join(_debug_dump(x) for x in node) + ")"
    return repr(node)

