"""Python's compile-time context checks on the AST, before anything runs: `break` and
`continue` only in loops, `return` and `yield` only in functions, no `yield` inside a
comprehension, no `nonlocal` at module level. (Scope checks that need to know which
names a function binds live with the interpreter's scope analysis.)"""
from __future__ import annotations

from typing import Any

from .. import syntax as ast
from ..errors import GtSyntaxError, NotSupportedError

_COMPREHENSIONS = {
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(node: ast.Node) -> tuple[str, ...]:
    cls = type(node)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f for f in cls.__dataclass_fields__ if f != "span")
    return names


# the names `from __future__ import` knows (all already how Python 3 behaves)
FUTURE_FEATURES = ("nested_scopes", "generators", "division", "absolute_import",
                   "with_statement", "print_function", "unicode_literals", "generator_stop",
                   "annotations")


def _future_prefix(body: tuple[ast.Stmt, ...]) -> set[int]:
    """The `from __future__ import` statements Python accepts: those that open the file
    (after its docstring), each naming known features."""
    allowed: set[int] = set()
    for i, stmt in enumerate(body):
        if i == 0 and type(stmt) is ast.ExprStmt and type(stmt.value) is ast.Constant \
                and isinstance(stmt.value.value, str):
            continue
        if type(stmt) is not ast.ImportFrom or stmt.module != "__future__":
            break
        for alias in stmt.names:
            if alias.name == "braces":
                raise GtSyntaxError("not a chance", stmt.span)
            if alias.name not in FUTURE_FEATURES:
                raise GtSyntaxError(f"future feature {alias.name} is not defined", stmt.span)
        allowed.add(id(stmt))
    return allowed


def _check_context(body: tuple[ast.Stmt, ...]) -> None:
    """Walks every node once, without recursion, carrying (in a loop, the enclosing
    scope: "module", "class", "function" or "lambda", the comprehension around it)."""
    future = _future_prefix(body)
    pending: list[tuple[Any, bool, str, str | None]] = [
        (s, False, "module", None) for s in reversed(body)]
    while pending:
        node, in_loop, scope, comprehension = pending.pop()
        if isinstance(node, tuple):
            pending.extend((n, in_loop, scope, comprehension) for n in reversed(node))
            continue
        if not isinstance(node, ast.Node):
            continue
        kind = type(node)
        if kind is ast.Break and not in_loop:
            raise GtSyntaxError("'break' outside loop", node.span)
        if kind is ast.Continue and not in_loop:
            raise GtSyntaxError("'continue' not properly in loop", node.span)
        if kind is ast.Return and scope != "function":
            raise GtSyntaxError("'return' outside function", node.span)
        if kind is ast.ImportFrom and node.module == "__future__" and id(node) not in future:
            raise GtSyntaxError("from __future__ imports must occur at the beginning of the "
                                "file", node.span)
        if kind is ast.Nonlocal and scope == "module":
            raise GtSyntaxError("nonlocal declaration not allowed at module level", node.span)
        if kind is ast.Yield or kind is ast.YieldFrom:
            if comprehension is not None:
                raise GtSyntaxError(f"'yield' inside {comprehension}", node.span)
            if scope == "lambda":
                raise NotSupportedError("`yield` inside a lambda is not supported", node.span)
            if scope != "function":
                raise GtSyntaxError("'yield' outside function", node.span)
        children: list[tuple[Any, bool, str, str | None]] = []
        if kind is ast.FunctionDef:
            children += [(p.default, in_loop, scope, comprehension) for p in node.params]
            children.append((node.decorators, in_loop, scope, comprehension))
            children.append((node.body, False, "function", None))
        elif kind is ast.Lambda:
            children += [(p.default, in_loop, scope, comprehension) for p in node.params]
            children.append((node.body, False, "lambda", None))
        elif kind is ast.ClassDef:
            children += [(node.bases, in_loop, scope, comprehension),
                         (node.keywords, in_loop, scope, comprehension),
                         (node.decorators, in_loop, scope, comprehension),
                         (node.body, False, "class", None)]
        elif kind in _COMPREHENSIONS:
            inner = _COMPREHENSIONS[kind]
            first, *rest = node.generators
            children.append((first.iter, in_loop, scope, comprehension))  # evaluated outside
            children += [(first.target, in_loop, scope, inner), (first.ifs, in_loop, scope, inner),
                         (tuple(rest), in_loop, scope, inner)]
            elts = (node.key, node.value) if kind is ast.DictComp else (node.elt,)
            children.append((elts, in_loop, scope, inner))
        elif kind is ast.For or kind is ast.While:
            head = (node.target, node.iter) if kind is ast.For else (node.test,)
            children += [(head, in_loop, scope, comprehension),
                         (node.body, True, scope, comprehension),
                         (node.orelse, in_loop, scope, comprehension)]
        else:
            children += [(getattr(node, f), in_loop, scope, comprehension) for f in _fields(node)]
        pending.extend(reversed(children))
