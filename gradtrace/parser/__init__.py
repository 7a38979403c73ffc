"""Script text -> AST (`gradtrace.syntax`), with exact spans and errors a learner can read.

This package is the only place that imports lark. The grammar (`grammar/gradtrace.lark`)
is LALR(1) with lark's contextual lexer; a post-lexer turns indentation into
_INDENT/_DEDENT tokens (as `lark.indenter.PythonIndenter` does) and also tracks
brackets and keywords so syntax errors can say what went wrong in words.

lark's parse table runs in a loop of our own (`driver._ParseLoop`, several times faster
than lark's), which builds the parse tree with spans. The tree is converted to AST
nodes bottom-up in the order the parser made it, never by Python recursion, so
hostile input (thousands of nested brackets or unary minuses) ends in a clear
error instead of a crash. Every AST node is at most `MAX_NESTING` levels deep,
which also keeps the interpreter's recursion bounded.

Spans follow Python's `ast`: 1-based lines and columns, end exclusive. A
parenthesised expression's own span excludes its parentheses, but the node that
contains it covers them: in `(a + b) * c` the BinOp `a + b` starts at `a`, the
outer BinOp starts at `(`. A parenthesised tuple `(1, 2)` covers its parentheses.

Modules: `driver` (lark, built once; our LALR loop), `lexer` (the post-lexer),
`diagnostics` (lark errors in words), `builder` and its rule mixins (tree -> AST),
`checks` (Python's compile-time context checks), `tokens` (shared vocabulary).
"""
from __future__ import annotations

from .. import syntax as ast
from ..errors import GradtraceError, GtSyntaxError
from ..source import Source, Span
from .builder import _Builder
from .checks import _check_context, check_walrus_scopes
from .driver import _IDENTITY, _check_edges, _normalise, _run_lark
from .tokens import MAX_BRACKETS, MAX_INDENT, MAX_NESTING

__all__ = ["MAX_NESTING", "MAX_BRACKETS", "MAX_INDENT", "parse", "parse_expression"]


def parse(source: Source) -> ast.Module:
    """Parse a whole script; raises GtSyntaxError or NotSupportedError with a span."""
    text = _normalise(source.text)
    _check_edges(text)
    trees = _run_lark(text, "file_input", _IDENTITY)
    builder = _Builder(text, _IDENTITY, {})
    body: tuple[ast.Stmt, ...] = builder.convert(trees)
    _check_context(body)
    if ":=" in text:
        check_walrus_scopes(body)
    stripped = text[:-1]  # _normalise always appends the final newline
    end_line = stripped.count("\n") + 1
    end_column = len(stripped) - (stripped.rfind("\n") + 1) + 1
    return ast.Module(Span(1, 1, end_line, end_column), body)


def parse_expression(source: Source) -> ast.Expr:
    """Parse one expression (a bare `a, b` is a tuple); used by tools and tests."""
    text = _normalise(source.text)
    trees = _run_lark(text, "expr_input", _IDENTITY)
    return _Builder(text, _IDENTITY, {}).convert(trees)


def parse_evaluated(text: str, at: Span | None) -> ast.Expr:
    """The expression a script hands to `eval`: parsed as Python parses it (leading spaces
    and tabs stripped), with every node's span, and any syntax error's, the `eval` call's
    own `at` (its text has no place in the script's file to point to)."""
    try:
        expr = parse_expression(Source("<string>", text.lstrip(" \t")))
    except GradtraceError as err:
        if isinstance(err, GtSyntaxError):  # Python's words for eval's text
            line = err.span.line if err.span is not None else 1
            err = GtSyntaxError(f"invalid syntax (<string>, line {line})")
        err.span = at
        raise err from None
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Node):
            node.span = at  # type: ignore[assignment]
            stack.extend(getattr(node, name) for name in node.fields
                         if name != "span")
        elif isinstance(node, (tuple, list)):
            stack.extend(node)
    return expr
