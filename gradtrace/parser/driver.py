"""Runs lark: the grammar built once (and cached), our own LALR loop building the parse
tree with spans, position mapping for f-string fields, and lark errors turned into ours."""
from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken
from lark.grammar import Rule
from lark.parsers.lalr_analysis import Shift

from ..errors import GradtraceError, GtSyntaxError, NotSupportedError
from ..source import Span
from .diagnostics import _explain
from .grammar_cache import load_or_build
from .lexer import _PostLexer
from .tokens import _KEYWORDS, _LAYOUT, MAX_NESTING

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
        lark = load_or_build(grammar, {"parser": "lalr", "lexer": "contextual",
                                       "start": ["file_input", "expr_input"],
                                       "maybe_placeholders": True}, postlex)
        literals = {t.name: t.pattern.value for t in lark.terminals if t.pattern.type == "str"}
        postlex.keyword_types = {v: k for k, v in literals.items() if v in _KEYWORDS}
        _PARSER = _Parser(lark, postlex, _ParseLoop(lark), literals)
    return _PARSER


def _grammar_text() -> str:
    """The grammar shipped in the wheel (gradtrace/grammar/), else the source tree's."""
    package = Path(__file__).resolve().parent.parent
    for path in (package / "grammar" / "gradtrace.lark",
                 package.parent / "grammar" / "gradtrace.lark"):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"gradtrace.lark not found next to {package} or in its parent")


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

