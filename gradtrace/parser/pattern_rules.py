"""Parse tree -> AST: the `match` statement and its patterns (a mixin of `builder._Builder`),
with CPython's compile-time errors for patterns (checks.check_patterns has the ones that
need the whole statement)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lark import Token

from .. import syntax as ast

if TYPE_CHECKING:
    from .driver import _Tree


class _Keyword:
    """`name=pattern` in a class pattern, until `_h_class_pattern` sorts the arguments."""

    __slots__ = ("name", "pattern", "span")

    def __init__(self, name: str, pattern: Any, span: Any):
        self.name = name
        self.pattern = pattern
        self.span = span


class PatternRules:
    """Handlers for `match`, `case` and patterns."""

    def _h_match_stmt(self, tree: _Tree, children: list) -> ast.Match:
        _, subject, *cases = children
        self.allow_walrus(tree.children[1])
        self.no_starred(subject)
        return self._mk(ast.Match, self.span(tree), subject, tuple(cases))

    def _h_case_block(self, tree: _Tree, children: list) -> ast.MatchCase:
        _, pattern, guard, body = children
        self.allow_walrus(tree.children[2])
        return self._mk(ast.MatchCase, self.span(tree), pattern, guard, body)

    def _h_open_sequence_pattern(self, tree: _Tree, children: list) -> ast.MatchSequence:
        return self._sequence(tree, children)

    _h_tuple_pattern = _h_open_sequence_pattern
    _h_list_pattern = _h_open_sequence_pattern

    def _sequence(self, tree: _Tree, children: list) -> ast.MatchSequence:
        patterns = tuple(c for c in children if c is not None)
        stars = [p for p in patterns if isinstance(p, ast.MatchStar)]
        if len(stars) > 1:
            raise self.error("multiple starred names in sequence pattern", self.span(tree))
        return self._mk(ast.MatchSequence, self.span(tree), patterns)

    def _h_star_pattern(self, tree: _Tree, children: list) -> ast.MatchStar:
        name = str(children[0])
        return self._mk(ast.MatchStar, self.span(tree), None if name == "_" else name)

    def _h_as_pattern(self, tree: _Tree, children: list) -> ast.MatchAs:
        pattern, name = children
        if name == "_":
            raise self.error("cannot use '_' as a target", self.tok_span(name))
        return self._mk(ast.MatchAs, self.span(tree), pattern, str(name))

    def _h_or_pattern(self, tree: _Tree, children: list) -> ast.MatchOr:
        return self._mk(ast.MatchOr, self.span(tree), tuple(children))

    def _h_attr_chain(self, tree: _Tree, children: list) -> list[Token]:
        return list(children)

    def _chain_expr(self, names: list[Token]) -> ast.Expr:
        first = self.tok_span(names[0])
        expr: ast.Expr = self._mk(ast.Name, first, str(names[0]))
        for name in names[1:]:
            expr = self._mk(ast.Attribute, self.join(first, self.tok_span(name)), expr,
                            str(name))
        return expr

    def _h_name_pattern(self, tree: _Tree, children: list) -> ast.Node:
        names = children[0]
        span = self.span(tree)
        if len(names) > 1:
            return self._mk(ast.MatchValue, span, self._chain_expr(names))
        name = str(names[0])
        return self._mk(ast.MatchAs, span, None, None if name == "_" else name)

    def _h_class_pattern(self, tree: _Tree, children: list) -> ast.MatchClass:
        names, arguments = children
        positional: list = []
        attrs: list[str] = []
        keyword_patterns: list = []
        for item in arguments or ():
            if isinstance(item, _Keyword):
                if item.name in attrs:
                    raise self.error(f"attribute name repeated in class pattern: {item.name}",
                                     item.pattern.span)
                attrs.append(item.name)
                keyword_patterns.append(item.pattern)
            elif attrs:
                raise self.error("positional patterns follow keyword patterns", item.span)
            else:
                positional.append(item)
        return self._mk(ast.MatchClass, self.span(tree), self._chain_expr(names),
                        tuple(positional), tuple(attrs), tuple(keyword_patterns))

    def _h_pattern_arguments(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    def _h_keyword_pattern(self, tree: _Tree, children: list) -> _Keyword:
        return _Keyword(str(children[0]), children[1], self.span(tree))

    def _h_literal_pattern(self, tree: _Tree, children: list) -> ast.MatchValue:
        value = children[0]
        if not isinstance(value, ast.Constant):  # an f-string
            raise self.error("patterns may only match literals and attribute lookups",
                             value.span)
        return self._mk(ast.MatchValue, self.span(tree), value)

    def _h_negative_pattern(self, tree: _Tree, children: list) -> ast.MatchValue:
        return self._mk(ast.MatchValue, self.span(tree), self._negative(tree, children[0]))

    def _negative(self, tree: _Tree, number: ast.Constant) -> ast.Constant:
        return self._mk(ast.Constant, self.span(tree), -number.value)

    def _h_negative_key(self, tree: _Tree, children: list) -> ast.Constant:
        return self._negative(tree, children[0])

    def _h_none_pattern(self, tree: _Tree, children: list) -> ast.MatchSingleton:
        return self._mk(ast.MatchSingleton, self.span(tree), None)

    def _h_true_pattern(self, tree: _Tree, children: list) -> ast.MatchSingleton:
        return self._mk(ast.MatchSingleton, self.span(tree), True)

    def _h_false_pattern(self, tree: _Tree, children: list) -> ast.MatchSingleton:
        return self._mk(ast.MatchSingleton, self.span(tree), False)

    def _h_mapping_item(self, tree: _Tree, children: list) -> tuple:
        key, pattern = children
        if isinstance(key, list):  # a dotted name; a bare one would be a capture
            if len(key) < 2:
                raise self.error("mapping pattern keys may only match literals and attribute "
                                 "lookups", self.tok_span(key[0]))
            key = self._chain_expr(key)
        elif not isinstance(key, ast.Constant):
            raise self.error("mapping pattern keys may only match literals and attribute "
                             "lookups", key.span)
        return (key, pattern)

    def _h_mapping_rest(self, tree: _Tree, children: list) -> tuple:
        name = str(children[0])
        if name == "_":
            raise self.error("invalid syntax", self.span(tree))
        return (None, name)

    def _h_mapping_pattern(self, tree: _Tree, children: list) -> ast.MatchMapping:
        items = [c for c in children if c is not None]
        keys: list = []
        patterns: list = []
        rest = None
        for i, (key, pattern) in enumerate(items):
            if key is None:
                if i != len(items) - 1:
                    raise self.error("invalid syntax", self.span(tree))
                rest = pattern
                continue
            keys.append(key)
            patterns.append(pattern)
        seen: list = []
        for key in keys:
            if isinstance(key, ast.Constant):
                if any(type(k) is type(key.value) and k == key.value for k in seen):
                    raise self.error(f"mapping pattern checks duplicate key ({key.value!r})",
                                     self.span(tree))
                seen.append(key.value)
        return self._mk(ast.MatchMapping, self.span(tree), tuple(keys), tuple(patterns), rest)
