"""Parse tree -> AST: the `Builder` that converts lark's tree bottom-up, and its machinery.

The rule handlers live in three mixins by concern: statements, expressions, and
literals (numbers, strings, f-strings).
"""
from __future__ import annotations

import ast as python_ast
from collections.abc import Callable
from typing import Any

from lark import Token

from .. import syntax as ast
from ..errors import GtSyntaxError, NotSupportedError
from ..source import Span
from .driver import _Mapper, _Tree
from .expression_rules import ExpressionRules
from .literal_rules import LiteralRules
from .pattern_rules import PatternRules
from .statement_rules import StatementRules
from .tokens import MAX_NESTING, _token_span

_EXPR_TYPES: tuple[type, ...] = (
    ast.Constant, ast.FString, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred,
    ast.Call, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda,
    ast.ListExpr, ast.TupleExpr, ast.DictExpr, ast.ListComp, ast.NamedExpr,
)


class _Builder(StatementRules, ExpressionRules, LiteralRules, PatternRules):
    """Turns the parse tree into AST nodes, bottom-up.

    Handlers are `_h_<rule>(tree, children)`; `children` are already converted (AST
    nodes, tokens, None for an absent optional part, or helper values). Every node
    is made by `_mk`, which tracks nesting depth and enforces MAX_NESTING.
    """

    def __init__(self, text: str, mapper: _Mapper, depths: dict[int, int]) -> None:
        self.text = text
        self.mapper = mapper
        self.depths = depths
        self.walrus: list[_Tree] = []  # every `:=` made, checked where it stands at the end
        self.walrus_allowed: set[int] = set()  # ids of those standing where Python allows
        self.walrus_errors: dict[int, GtSyntaxError] = {}  # a target `:=` cannot bind
        self.future_annotations = False  # `from __future__ import annotations` seen
        self.string_constants: dict[str, str] = {}  # one object per value (literal_rules)

    # ---------------------------------------------------------------- machinery

    def convert(self, trees: list[_Tree]) -> Any:
        """Converts the nodes in the order the parser made them (children before parents,
        left to right), so each handler's children are already converted; returns the
        root's value. The handlers run in the same order as a depth-first walk."""
        handlers = _HANDLERS
        for tree in trees:
            children = [c.value if c.__class__ is _Tree else c for c in tree.children]
            tree.value = handlers[tree.data](self, tree, children)
        if self.walrus:
            self.check_walrus()
        return trees[-1].value

    def allow_walrus(self, *children: Any) -> None:
        """These children may be an unparenthesised `target := value` (Python's
        `named_expression` places: conditions, call arguments, subscripts, display
        items, comprehension results)."""
        for child in children:
            if child.__class__ is _Tree and child.data == "walrus":
                self.walrus_allowed.add(id(child))

    def check_walrus(self) -> None:
        """Python's grammar allows `:=` unparenthesised only in some places: anywhere
        else (a statement, an assignment's value, a default, a keyword argument, a
        lambda's body...) it is a syntax error at the `:=`."""
        for tree in self.walrus:
            if tree.outer != tree.pos or id(tree) in self.walrus_allowed:
                if id(tree) in self.walrus_errors:
                    raise self.walrus_errors[id(tree)]
                continue
            target = tree.children[0]
            if isinstance(target, Token):
                start = target.end_pos or 0
            else:
                start = _offset(self.text, target.outer[2], target.outer[3])
            at = self.text.index(":=", start)
            line = self.text.count("\n", 0, at) + 1
            column = at - (self.text.rfind("\n", 0, at) + 1) + 1
            raise self.error("invalid syntax", self.mapper.span(line, column, line, column + 2))

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

    def annotation(self, node: Any) -> Any:
        """A parameter's or a return's annotation: the expression, or under `from
        __future__ import annotations` the string Python keeps (PEP 563: its text as
        `ast.unparse` writes it)."""
        if node is None or not self.future_annotations or self.mapper.parent is not None:
            return node
        span = node.span
        text = self.text[_offset(self.text, span.line, span.column):
                         _offset(self.text, span.end_line, span.end_column)]
        return self._mk(ast.Constant, span, unparsed(text))

    def no_starred(self, value: Any) -> None:
        if isinstance(value, ast.Starred):
            raise self.error("can't use starred expression here", value.span)


def unparsed(text: str) -> str:
    """An annotation's source text as CPython stores it under PEP 563 (`ast.unparse` of
    the expression: `Optional[ int ]` -> `Optional[int]`); the text as written if Python's
    own parser refuses it (gradtrace's grammar accepted it)."""
    try:
        return python_ast.unparse(python_ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return " ".join(text.split())


def _offset(text: str, line: int, column: int) -> int:
    """The index in `text` of a 1-based (line, column)."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


_HANDLERS: dict[str, Callable[..., Any]] = {
    name[3:]: getattr(_Builder, name) for name in dir(_Builder) if name.startswith("_h_")
}
"""Rule name -> its `_Builder` handler."""
