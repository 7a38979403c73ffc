"""Parse tree -> AST: statement rules (a mixin of `builder._Builder`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lark import Token

from .. import syntax as ast
from ..errors import NotSupportedError
from .tokens import MAX_NESTING

if TYPE_CHECKING:
    from .driver import _Tree

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


class StatementRules:
    """Handlers for statements, parameters and assignment targets."""

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

