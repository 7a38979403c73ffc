"""Parse tree -> AST: statement rules (a mixin of `builder._Builder`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lark import Token

from .. import syntax as ast
from ..errors import NotSupportedError
from ..source import Span
from .expression_rules import _GenExpArgs
from .tokens import MAX_NESTING

if TYPE_CHECKING:
    from .driver import _Tree

_AUG_OPS = frozenset({"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>"})
_TARGET_WORDS: dict[type, str] = {
    ast.Call: "function call",
    ast.Compare: "comparison",
    ast.Lambda: "lambda",
    ast.IfExp: "conditional expression",
    ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression",
    ast.DictExpr: "dict literal",
    ast.SetExpr: "set display",
    ast.Yield: "yield expression",
    ast.YieldFrom: "yield expression",
    ast.FString: "f-string expression",
    ast.Slice: "slice",
    ast.NamedExpr: "named expression",
}


class _ParamMark:
    """A bare `*` or `/` in a parameter list, until `params_of` gives the kinds."""

    __slots__ = ("symbol", "span")

    def __init__(self, symbol: str, span: Span):
        self.symbol = symbol
        self.span = span


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

    def _h_annassign_stmt(self, tree: _Tree, children: list) -> ast.AnnAssign:
        target, annotation, value = children
        if isinstance(target, (ast.TupleExpr, ast.ListExpr)):
            word = "tuple" if isinstance(target, ast.TupleExpr) else "list"
            raise self.error(f"only single target (not {word}) can be annotated", target.span)
        self.check_target(target)
        self.no_starred(value)
        return self._mk(ast.AnnAssign, self.span(tree), target, self.annotation(annotation),
                        value)

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
        return self._mk(ast.Raise, self.span(tree), exc, cause)

    def _h_assert_stmt(self, tree: _Tree, children: list) -> ast.Assert:
        return self._mk(ast.Assert, self.span(tree), children[0], children[1])

    def _h_global_stmt(self, tree: _Tree, children: list) -> ast.Global:
        return self._mk(ast.Global, self.span(tree), tuple(str(c) for c in children))

    def _h_nonlocal_stmt(self, tree: _Tree, children: list) -> ast.Nonlocal:
        return self._mk(ast.Nonlocal, self.span(tree), tuple(str(c) for c in children))

    def _h_del_stmt(self, tree: _Tree, children: list) -> ast.Delete:
        target = children[0]
        bare = isinstance(target, ast.TupleExpr) and not self.parenthesised(target)
        targets = target.elts if bare else (target,)  # `del a, b`, but `del (a, b)` as written
        for t in targets:
            self.check_target(t, "delete")
        return self._mk(ast.Delete, self.span(tree), tuple(targets))

    def _h_import_stmt(self, tree: _Tree, children: list) -> ast.Import:
        return self._mk(ast.Import, self.span(tree), tuple(children))

    def _h_dotted_name(self, tree: _Tree, children: list) -> str:
        return ".".join(str(c) for c in children)

    def _h_dotted_as_name(self, tree: _Tree, children: list) -> ast.Alias:
        name, asname = children
        return self._mk(ast.Alias, self.span(tree), name, None if asname is None else str(asname))

    def _h_import_from(self, tree: _Tree, children: list) -> ast.ImportFrom:
        module, names = children
        if module == "__future__" and any(a.name == "annotations" for a in names):
            self.future_annotations = True  # (the statements after it are built later)
        return self._mk(ast.ImportFrom, self.span(tree), module, tuple(names))

    def _h_from_module(self, tree: _Tree, children: list) -> str:
        return children[0]

    def _h_relative_dots(self, tree: _Tree, children: list) -> None:
        raise self.unsupported("relative imports (`from . import x`) are not supported",
                               self.span(tree))

    def _h_import_star(self, tree: _Tree, children: list) -> list:
        return [self._mk(ast.Alias, self.span(tree), "*", None)]

    def _h_import_as_names(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    def _h_import_as_name(self, tree: _Tree, children: list) -> ast.Alias:
        name, asname = children
        return self._mk(ast.Alias, self.span(tree), str(name),
                        None if asname is None else str(asname))

    def _h_if_stmt(self, tree: _Tree, children: list) -> ast.If:
        test, body, *elifs, orelse = children
        self.allow_walrus(tree.children[0])
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
        self.allow_walrus(tree.children[0])
        return (self.span(tree), children[0], children[1])

    def _h_while_stmt(self, tree: _Tree, children: list) -> ast.While:
        test, body, orelse = children
        self.allow_walrus(tree.children[0])
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
        return self._mk(ast.FunctionDef, self.span(tree), str(name),
                        self.params_of(params or ()), body, self.annotation(returns))

    def _h_classdef(self, tree: _Tree, children: list) -> ast.ClassDef:
        name, arguments, body = children
        if isinstance(arguments, _GenExpArgs):
            raise self.error("invalid syntax", arguments[0].span)
        bases, keywords = self.split_arguments(arguments or ())
        return self._mk(ast.ClassDef, self.span(tree), str(name), bases, keywords, body)

    def _h_decorated(self, tree: _Tree, children: list) -> ast.FunctionDef | ast.ClassDef:
        *decorators, definition = children
        fields = [getattr(definition, f) for f in type(definition).fields
                  if f not in ("span", "decorators")]
        return self._mk(type(definition), definition.span, *fields, tuple(decorators))

    def _h_decorator(self, tree: _Tree, children: list) -> ast.Expr:
        self.allow_walrus(tree.children[0])
        return children[0]

    def _h_parameters(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    _h_lambda_params = _h_parameters

    def _h_plain_param(self, tree: _Tree, children: list) -> ast.Param:
        name, annotation, default = children
        return self._mk(ast.Param, self.span(tree), str(name), default, ast.POSITIONAL,
                        self.annotation(annotation))

    def _h_plain_lambda_param(self, tree: _Tree, children: list) -> ast.Param:
        name, default = children
        return self._mk(ast.Param, self.span(tree), str(name), default)

    def _h_star_param(self, tree: _Tree, children: list) -> ast.Param | _ParamMark:
        name = children[0] if children else None
        if name is None:
            return _ParamMark("*", self.span(tree))
        annotation = children[1] if len(children) > 1 else None
        return self._mk(ast.Param, self.span(tree), str(name), None, ast.VAR_POSITIONAL,
                        self.annotation(annotation))

    def _h_kwargs_param(self, tree: _Tree, children: list) -> ast.Param:
        annotation = children[1] if len(children) > 1 else None
        return self._mk(ast.Param, self.span(tree), str(children[0]), None, ast.VAR_KEYWORD,
                        self.annotation(annotation))

    def _h_slash_param(self, tree: _Tree, children: list) -> _ParamMark:
        return _ParamMark("/", self.span(tree))

    def params_of(self, items: list) -> tuple[ast.Param, ...]:
        """Parameters with their kinds (`/` and `*` make the ones around them positional-
        only or keyword-only), checked with CPython's messages."""
        out: list[ast.Param] = []
        star: _ParamMark | ast.Param | None = None
        bare_star_used = True
        var_keyword = False
        for item in items:
            if var_keyword:
                raise self.error("arguments cannot follow var-keyword argument", item.span)
            if isinstance(item, _ParamMark) and item.symbol == "/":
                if any(p.kind == ast.POSITIONAL_ONLY for p in out):
                    raise self.error("/ may appear only once", item.span)
                if star is not None:
                    raise self.error("/ must be ahead of *", item.span)
                if not out:
                    raise self.error("at least one argument must precede /", item.span)
                out = [self._mk(ast.Param, p.span, p.name, p.default, ast.POSITIONAL_ONLY,
                                p.annotation) for p in out]
            elif isinstance(item, _ParamMark) or item.kind == ast.VAR_POSITIONAL:
                if star is not None:
                    raise self.error("* argument may appear only once", item.span)
                star = item
                if isinstance(item, _ParamMark):
                    bare_star_used = False
                else:
                    out.append(item)
            elif item.kind == ast.VAR_KEYWORD:
                var_keyword = True
                out.append(item)
            elif star is not None:
                bare_star_used = True
                out.append(self._mk(ast.Param, item.span, item.name, item.default,
                                    ast.KEYWORD_ONLY, item.annotation))
            else:
                out.append(item)
        if not bare_star_used:
            raise self.error("named arguments must follow bare *", star.span)
        seen: set[str] = set()
        has_default = False
        for param in out:
            if param.name in seen:
                raise self.error(f"duplicate argument '{param.name}' in function definition",
                                 param.span)
            seen.add(param.name)
            if param.kind not in (ast.POSITIONAL_ONLY, ast.POSITIONAL):
                continue
            if param.default is not None:
                has_default = True
            elif has_default:
                raise self.error("non-default argument follows default argument", param.span)
        return tuple(out)

    def check_target(self, target: Any, verb: str = "assign") -> None:
        """Python's rules for what may stand left of `=` (and after `for`/`as`, `del`):
        one starred name per tuple or list, never alone."""
        pending = [(target, False)]
        while pending:
            node, in_sequence = pending.pop()
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
                continue
            if isinstance(node, (ast.TupleExpr, ast.ListExpr)):
                starred = [e for e in node.elts if isinstance(e, ast.Starred)]
                if len(starred) > 1 and verb == "assign":
                    raise self.error("multiple starred expressions in assignment",
                                     starred[1].span)
                pending.extend((e, True) for e in node.elts)
                continue
            if isinstance(node, ast.Starred):
                if verb != "assign":
                    raise self.error(f"cannot {verb} starred", node.span)
                if not in_sequence:
                    raise self.error("starred assignment target must be in a list or tuple",
                                     node.span)
                pending.append((node.value, False))
                continue
            if isinstance(node, ast.Constant):
                if node.value is None or isinstance(node.value, bool):
                    raise self.error(f"cannot {verb} to {node.value}" if verb == "assign"
                                     else f"cannot {verb} {node.value}", node.span)
                word = "ellipsis" if node.value is Ellipsis else "literal"
                raise self.error(f"cannot {verb} {'to ' if verb == 'assign' else ''}{word}",
                                 node.span)
            word = _TARGET_WORDS.get(type(node), "expression")
            raise self.error(f"cannot {verb} {'to ' if verb == 'assign' else ''}{word}",
                             node.span)

