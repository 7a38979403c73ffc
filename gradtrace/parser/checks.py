"""Python's compile-time context checks on the AST, before anything runs: `break` and
`continue` only in loops, `return` and `yield` only in functions, no `yield` inside a
comprehension, no `nonlocal` at module level and no `import *` anywhere else. (Scope checks
that need to know which names a function binds live with the interpreter's scope analysis.)"""
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
        names = _FIELDS[cls] = tuple(f for f in cls.fields if f != "span")
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
        if kind is ast.ImportFrom and scope != "module" and node.names[0].name == "*":
            raise GtSyntaxError("import * only allowed at module level", node.names[0].span)
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
        if kind is ast.Match:
            check_match(node)
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


class _Comprehension:
    """A comprehension being checked: its iteration variables so far and the `:=`
    targets seen in it (and in comprehensions inside it)."""

    __slots__ = ("parent", "iter_vars", "walrus_targets")

    def __init__(self, parent: _Comprehension | None) -> None:
        self.parent = parent
        self.iter_vars: set[str] = set()
        self.walrus_targets: set[str] = set()


def _target_names(target: Any) -> list[ast.Name]:
    names: list[ast.Name] = []
    pending = [target]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, (ast.TupleExpr, ast.ListExpr)):
            pending.extend(reversed(node.elts))
        elif isinstance(node, ast.Starred):
            pending.append(node.value)
    return names


def check_walrus_scopes(body: tuple[ast.Stmt, ...]) -> None:
    """CPython's symtable errors for `:=` in comprehensions (PEP 572): its target binds in
    the enclosing function, so it may not rebind an iteration variable, stand in an
    iterable expression, or be in a class body. Walks the tree in source order without
    recursion, carrying (the comprehension around it, whether in an iterable expression,
    the kind of the nearest enclosing function/class/module scope)."""
    Item = tuple[Any, "_Comprehension | None", bool, str]
    pending: list[Item] = [(s, None, False, "module") for s in reversed(body)]
    while pending:
        node, comp, in_iter, owner = pending.pop()
        if isinstance(node, tuple):
            if node and node[0] == "bind-loop":  # a comprehension's `for` target, now bound
                _, target, current = node
                for name in _target_names(target):
                    scope: _Comprehension | None = current
                    while scope is not None:
                        if name.id in scope.walrus_targets:
                            raise GtSyntaxError("comprehension inner loop cannot rebind "
                                                f"assignment expression target '{name.id}'",
                                                name.span)
                        scope = scope.parent
                    current.iter_vars.add(name.id)
                continue
            pending.extend((n, comp, in_iter, owner) for n in reversed(node))
            continue
        if not isinstance(node, ast.Node):
            continue
        kind = type(node)
        children: list[Item] = []
        if kind is ast.NamedExpr:
            name = node.target.id
            if in_iter:
                raise GtSyntaxError("assignment expression cannot be used in a comprehension "
                                    "iterable expression", node.span)
            scope = comp
            while scope is not None:
                if name in scope.iter_vars:
                    raise GtSyntaxError("assignment expression cannot rebind comprehension "
                                        f"iteration variable '{name}'", node.target.span)
                scope.walrus_targets.add(name)
                scope = scope.parent
            if comp is not None and owner == "class":
                raise GtSyntaxError("assignment expression within a comprehension cannot be "
                                    "used in a class body", node.target.span)
            children.append((node.value, comp, in_iter, owner))
        elif kind in _COMPREHENSIONS:
            inner = _Comprehension(comp)
            for i, generator in enumerate(node.generators):
                children.append((generator.iter, comp if i == 0 else inner, True, owner))
                children.append((("bind-loop", generator.target, inner), inner, in_iter, owner))
                children.append((generator.ifs, inner, in_iter, owner))
            elts = (node.key, node.value) if kind is ast.DictComp else (node.elt,)
            children.append((elts, inner, in_iter, owner))
        elif kind is ast.Lambda:
            children += [(p.default, comp, in_iter, owner) for p in node.params]
            children.append((node.body, None, in_iter, "function"))  # CPython keeps in_iter
        elif kind is ast.FunctionDef:
            children += [(p.default, comp, in_iter, owner) for p in node.params]
            children.append((node.decorators, comp, in_iter, owner))
            children.append((node.body, None, False, "function"))
        elif kind is ast.ClassDef:
            children += [(node.bases, comp, in_iter, owner), (node.keywords, comp, in_iter, owner),
                         (node.decorators, comp, in_iter, owner),
                         (node.body, None, False, "class")]
        else:
            children += [(getattr(node, f), comp, in_iter, owner) for f in _fields(node)]
        pending.extend(reversed(children))


def _irrefutable(pattern: Any) -> Any:
    """The capture or wildcard that makes `pattern` always match, else None."""
    kind = type(pattern)
    if kind is ast.MatchAs:
        return pattern if pattern.pattern is None else _irrefutable(pattern.pattern)
    if kind is ast.MatchOr:
        return _irrefutable(pattern.patterns[-1])
    return None


def _unreachable(capture: ast.MatchAs) -> GtSyntaxError:
    what = "wildcard" if capture.name is None else f"name capture {capture.name!r}"
    return GtSyntaxError(f"{what} makes remaining patterns unreachable", capture.span)


def _bound_names(pattern: Any) -> list[tuple[str, Any]]:
    """The names a pattern binds, in order, with CPython's errors for one bound twice and
    for alternatives binding different names or an early one that always matches."""
    names: list[tuple[str, Any]] = []
    pending = [pattern]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.MatchOr:
            first = None
            for alternative in node.patterns[:-1]:
                capture = _irrefutable(alternative)
                if capture is not None:
                    raise _unreachable(capture)
            for alternative in node.patterns:
                named = _bound_names(alternative)
                bound = sorted(n for n, _ in named)
                if first is None:
                    first = bound
                elif bound != first:
                    odd = next((n for name, n in named if name not in first), alternative)
                    raise GtSyntaxError("alternative patterns bind different names", odd.span)
            names += _bound_names(node.patterns[0])
            continue
        if kind is ast.MatchAs:
            if node.pattern is not None:
                pending.append(node.pattern)
            if node.name is not None:
                names.append((node.name, node))
        elif kind is ast.MatchStar:
            if node.name is not None:
                names.append((node.name, node))
        elif kind is ast.MatchSequence:
            pending.extend(reversed(node.patterns))
        elif kind is ast.MatchMapping:
            pending.extend(reversed(node.patterns))
            if node.rest is not None:
                names.append((node.rest, node))
        elif kind is ast.MatchClass:
            pending.extend(reversed(node.patterns + node.kwd_patterns))
    seen: set[str] = set()
    for name, node in names:
        if name in seen:
            raise GtSyntaxError(f"multiple assignments to name {name!r} in pattern", node.span)
        seen.add(name)
    return names


def check_match(node: ast.Match) -> None:
    """CPython's compile-time errors of a `match` statement's patterns."""
    for i, case in enumerate(node.cases):
        _bound_names(case.pattern)
        if i < len(node.cases) - 1 and case.guard is None:
            capture = _irrefutable(case.pattern)
            if capture is not None:
                raise _unreachable(capture)
