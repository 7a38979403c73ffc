"""Parse tree -> AST: expression rules (a mixin of `builder._Builder`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import syntax as ast
from ..errors import NotSupportedError
from .tokens import MAX_NESTING

if TYPE_CHECKING:
    from .driver import _Tree


class _GenExpArgs(list):
    """Arguments of `f(x for x in xs)`: a generator expression as the only argument."""


_WALRUS_WORDS: dict[type, str] = {
    ast.Name: "name", ast.Attribute: "attribute", ast.Subscript: "subscript",
    ast.TupleExpr: "tuple", ast.ListExpr: "list", ast.Call: "function call",
    ast.Compare: "comparison", ast.Lambda: "lambda", ast.IfExp: "conditional expression",
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.DictExpr: "dict literal", ast.SetExpr: "set display", ast.Starred: "starred",
    ast.FString: "f-string expression", ast.NamedExpr: "named expression",
}


def _walrus_word(target: Any) -> str:
    """How CPython names what stands left of a misplaced `:=`."""
    if isinstance(target, ast.Constant):
        if target.value is None or isinstance(target.value, bool):
            return str(target.value)
        return "ellipsis" if target.value is Ellipsis else "literal"
    return _WALRUS_WORDS.get(type(target), "expression")


class ExpressionRules:
    """Handlers for expressions: operators, calls, subscripts, displays, comprehensions."""

    def _h_ifexp(self, tree: _Tree, children: list) -> ast.IfExp:
        body, test, orelse = children
        return self._mk(ast.IfExp, self.span(tree), test, body, orelse)

    def _h_walrus(self, tree: _Tree, children: list) -> ast.NamedExpr:
        target, value = children
        self.walrus.append(tree)
        if not isinstance(target, ast.Name) or self.outer(tree.children[0]) != target.span:
            # said once the place is known: where `:=` may not stand it is "invalid syntax"
            self.walrus_errors[id(tree)] = self.error(
                f"cannot use assignment expressions with {_walrus_word(target)}", target.span)
        elif target.id == "__debug__":
            self.walrus_errors[id(tree)] = self.error("cannot assign to __debug__",
                                                      target.span)
        return self._mk(ast.NamedExpr, self.span(tree), target, value)

    def _h_lambdef(self, tree: _Tree, children: list) -> ast.Lambda:
        params, body = children
        return self._mk(ast.Lambda, self.span(tree), self.params_of(params or ()), body)

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

    def _h_shift_expr(self, tree: _Tree, children: list) -> ast.BinOp:
        return self._h_arith_expr(tree, children)

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
        if getattr(tree.children[1], "data", None) == "arguments":
            self.allow_walrus(*tree.children[1].children)
        if isinstance(arguments, _GenExpArgs):
            return self._mk(ast.Call, self.span(tree), func, tuple(arguments), ())
        args, keywords = self.split_arguments(arguments or ())
        return self._mk(ast.Call, self.span(tree), func, args, keywords)

    def split_arguments(self, arguments: Any) -> tuple[tuple, tuple[ast.Keyword, ...]]:
        """A call's (or class's) arguments as positional ones (`*x` included) and keywords
        (`**x` has arg None), in Python's order rules."""
        args: list = []
        keywords: list[ast.Keyword] = []
        seen: set[str] = set()
        unpacked = False  # a `**x` came before
        for item in arguments:
            if isinstance(item, ast.Keyword):
                if item.arg is None:
                    unpacked = True
                elif item.arg in seen:
                    raise self.error(f"keyword argument repeated: {item.arg}", item.span)
                else:
                    seen.add(item.arg)
                keywords.append(item)
            elif unpacked:
                if isinstance(item, ast.Starred):
                    raise self.error("iterable argument unpacking follows keyword argument "
                                     "unpacking", item.span)
                raise self.error("positional argument follows keyword argument unpacking",
                                 item.span)
            elif keywords and not isinstance(item, ast.Starred):
                raise self.error("positional argument follows keyword argument", item.span)
            else:
                args.append(item)
        return tuple(args), tuple(keywords)

    def _h_arguments(self, tree: _Tree, children: list) -> list:
        return [c for c in children if c is not None]

    def _h_genexp_arg(self, tree: _Tree, children: list) -> _GenExpArgs:
        elt, generators = children[0]
        return _GenExpArgs([self._mk(ast.GeneratorExp, self.span(tree), elt, generators)])

    def _h_argvalue(self, tree: _Tree, children: list) -> ast.Keyword:
        name, value = children
        if not isinstance(name, ast.Name) or self.outer(tree.children[0]) != name.span:
            raise self.error('expression cannot contain assignment, perhaps you meant "=="?',
                             self.span(tree))
        return self._mk(ast.Keyword, self.span(tree), name.id, value)

    def _h_kwargs_arg(self, tree: _Tree, children: list) -> ast.Keyword:
        return self._mk(ast.Keyword, self.span(tree), None, children[0])

    def _h_getitem(self, tree: _Tree, children: list) -> ast.Subscript:
        self.allow_walrus(tree.children[1])
        return self._mk(ast.Subscript, self.span(tree), children[0], children[1])

    def _h_getattr(self, tree: _Tree, children: list) -> ast.Attribute:
        return self._mk(ast.Attribute, self.span(tree), children[0], str(children[1]))

    def _h_subscript_tuple(self, tree: _Tree, children: list) -> ast.TupleExpr:
        self.allow_walrus(*tree.children)
        return self._mk(ast.TupleExpr, self.span(tree), tuple(children))

    def _h_slice(self, tree: _Tree, children: list) -> ast.Slice:
        lower, upper, step = children
        return self._mk(ast.Slice, self.span(tree), lower, upper, step)

    def _h_sliceop(self, tree: _Tree, children: list) -> Any:
        return children[0]

    def _h_tuple(self, tree: _Tree, children: list) -> ast.TupleExpr:
        first = tree.children[0] if tree.children else None
        outer = getattr(first, "outer", None)
        # written `(a, b)` (its first item starts after the parenthesis): a display
        if outer is not None and tree.pos is not None and outer[:2] != tree.pos[:2]:
            self.allow_walrus(*tree.children)
        return self._mk(ast.TupleExpr, self.span(tree), tuple(children))

    def _h_list(self, tree: _Tree, children: list) -> ast.ListExpr:
        self.allow_walrus(*tree.children)
        return self._mk(ast.ListExpr, self.span(tree), tuple(children))

    def _h_dict(self, tree: _Tree, children: list) -> ast.DictExpr:
        keys = tuple(pair[0] for pair in children)
        values = tuple(pair[1] for pair in children)
        return self._mk(ast.DictExpr, self.span(tree), keys, values)

    def _h_key_value(self, tree: _Tree, children: list) -> tuple:
        return (children[0], children[1])

    def _h_dict_unpack(self, tree: _Tree, children: list) -> tuple:
        return (None, children[0])  # `**value`: no key

    def _h_set(self, tree: _Tree, children: list) -> ast.SetExpr:
        self.allow_walrus(*tree.children)
        return self._mk(ast.SetExpr, self.span(tree), tuple(children))

    def _h_setcomp(self, tree: _Tree, children: list) -> ast.SetComp:
        elt, generators = children[0]
        return self._mk(ast.SetComp, self.span(tree), elt, generators)

    def _h_dictcomp(self, tree: _Tree, children: list) -> ast.DictComp:
        (key, value), generators = children[0]
        return self._mk(ast.DictComp, self.span(tree), key, value, generators)

    def _h_genexp(self, tree: _Tree, children: list) -> ast.GeneratorExp:
        elt, generators = children[0]
        return self._mk(ast.GeneratorExp, self.span(tree), elt, generators)

    def _h_yield_expr(self, tree: _Tree, children: list) -> ast.Yield:
        self.no_starred(children[0])
        return self._mk(ast.Yield, self.span(tree), children[0])

    def _h_yield_from(self, tree: _Tree, children: list) -> ast.YieldFrom:
        return self._mk(ast.YieldFrom, self.span(tree), children[0])

    def _h_listcomp(self, tree: _Tree, children: list) -> ast.ListComp:
        elt, generators = children[0]
        return self._mk(ast.ListComp, self.span(tree), elt, generators)

    def _h_comprehension(self, tree: _Tree, children: list) -> tuple:
        elt, *generators = children
        self.allow_walrus(tree.children[0])  # a dict comprehension's is its key: value
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

