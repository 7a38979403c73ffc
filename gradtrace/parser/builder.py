"""Parse tree -> AST: the `Builder` that converts lark's tree bottom-up, and its machinery.

The rule handlers live in three mixins by concern: statements, expressions, and
literals (numbers, strings, f-strings).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token

from .. import syntax as ast
from ..errors import GtSyntaxError, NotSupportedError
from ..source import Span
from .driver import _Mapper, _Tree
from .expression_rules import ExpressionRules
from .literal_rules import LiteralRules
from .statement_rules import StatementRules
from .tokens import MAX_NESTING, _token_span

_EXPR_TYPES: tuple[type, ...] = (
    ast.Constant, ast.FString, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred,
    ast.Call, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda,
    ast.ListExpr, ast.TupleExpr, ast.DictExpr, ast.ListComp,
)


class _Builder(StatementRules, ExpressionRules, LiteralRules):
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

    def parenthesised(self, node: ast.Node) -> bool:
        """Whether the node's own text starts with a parenthesis (a written `(a, b)`)."""
        span = node.span
        if self.mapper.parent is not None:  # an f-string field: never a statement
            return False
        start = 0
        for _ in range(span.line - 1):
            start = self.text.index("\n", start) + 1
        return self.text.startswith("(", start + span.column - 1)

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


_HANDLERS: dict[str, Callable[..., Any]] = {
    name[3:]: getattr(_Builder, name) for name in dir(_Builder) if name.startswith("_h_")
}
"""Rule name -> its `_Builder` handler."""
