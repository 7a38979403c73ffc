"""Python's scopes, decided before the script runs (CPython's symtable, for what the
language has): which names a function binds (its locals: reading one before it is bound
is an UnboundLocalError), `global` and `nonlocal` declarations with CPython's compile-time
errors, whether a function is a generator, and qualified names.

The compiler keeps a stack of `Scope`s; each scope's frame at run time has the frame of
`parent` as its parent (a method's parent is the scope around its class: functions
never see the class body's names).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import syntax
from ..errors import GtSyntaxError
from ..source import Span

# the nested scopes an analysis does not enter (their parts that run in the enclosing
# scope are listed in `_visit_children`)
_COMPREHENSIONS = (syntax.ListComp, syntax.SetComp, syntax.DictComp, syntax.GeneratorExp)

_USE, _BOUND, _PARAM, _ANNOTATED = 1, 2, 4, 8


@dataclass
class Scope:
    kind: str  # "module", "class", "function" or "comprehension"
    parent: Scope | None
    locals: frozenset[str] = frozenset()
    globals: frozenset[str] = frozenset()
    nonlocals: frozenset[str] = frozenset()
    is_generator: bool = False
    qualname: str = ""  # of the function or class ("" for the module)
    class_name: str | None = None  # the innermost enclosing class, for name mangling
    library: bool = False  # compiling a bundled library module
    names_locals: bool = False  # a function whose code names `locals`
    # (then) its own localsplus names and its possible free variables, in the order
    # CPython's locals() lists them (frame_locals.frame_layout)
    frame_names: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def child_prefix(self) -> str:
        if self.kind == "module":
            return ""
        if self.kind == "class":
            return self.qualname + "."
        return self.qualname + ".<locals>."

    def nonlocal_hops(self, name: str) -> int | None:
        """How many frames up the binding of nonlocal `name` lives (None: no binding)."""
        hops = 1
        scope = self.parent
        while scope is not None and scope.kind != "module":
            if scope.kind == "function" and name in scope.locals:
                return hops
            if scope.kind == "function" and name in scope.nonlocals:
                found = scope.nonlocal_hops(name)
                return None if found is None else hops + found
            hops += 1
            scope = scope.parent
        return None


@dataclass
class _Analysis:
    flags: dict[str, int] = field(default_factory=dict)
    globals: dict[str, Span | None] = field(default_factory=dict)
    nonlocals: dict[str, Span | None] = field(default_factory=dict)
    is_generator: bool = False


def analyse(body: tuple[syntax.Stmt, ...], params: tuple[syntax.Param, ...] = (),
            is_function: bool = True) -> _Analysis:
    """The names a function (or class/module) body binds and declares, in source order,
    with CPython's errors for declarations that come too late."""
    found = _Analysis()
    for p in params:
        found.flags[p.name] = _PARAM | _BOUND
    pending: list[Any] = list(reversed(body))
    while pending:
        node = pending.pop()
        if isinstance(node, tuple):
            pending.extend(reversed(node))
            continue
        if not isinstance(node, syntax.Node):
            continue
        kind = type(node)
        if kind is syntax.Global or kind is syntax.Nonlocal:
            _declare(found, node, "global" if kind is syntax.Global else "nonlocal")
            continue
        if kind is syntax.Name:
            found.flags[node.id] = found.flags.get(node.id, 0) | _USE
            continue
        if kind is syntax.Yield or kind is syntax.YieldFrom:
            found.is_generator = True
        pending.extend(reversed(_visit_children(node, found)))
    return found


def bound_names(found: _Analysis) -> set[str]:
    """The names an analysed body binds itself (its `nonlocal` names are not its own)."""
    return {n for n, f in found.flags.items() if f & _BOUND} - set(found.nonlocals)


def _bind(found: _Analysis, name: str, annotated: bool = False) -> None:
    found.flags[name] = found.flags.get(name, 0) | _BOUND | (_ANNOTATED if annotated else 0)


def _bind_target(found: _Analysis, target: Any) -> list[Any]:
    """Bind the names of an assignment target; returns the parts that are read (the
    objects of attribute and item targets)."""
    reads: list[Any] = []
    pending = [target]
    while pending:
        t = pending.pop()
        if isinstance(t, syntax.Name):
            _bind(found, t.id)
        elif isinstance(t, (syntax.TupleExpr, syntax.ListExpr)):
            pending.extend(t.elts)
        elif isinstance(t, syntax.Starred):
            pending.append(t.value)
        elif isinstance(t, syntax.Attribute):
            reads.append(t.value)
        elif isinstance(t, syntax.Subscript):
            reads += [t.value, t.index]
    return reads


def _visit_children(node: Any, found: _Analysis) -> list[Any]:
    """The parts of `node` that run in this scope, in order; binds what it binds."""
    kind = type(node)
    if kind is syntax.Assign:
        reads = [node.value]
        for target in node.targets:
            reads += _bind_target(found, target)
        return reads
    if kind is syntax.AugAssign:
        if isinstance(node.target, syntax.Name):
            found.flags[node.target.id] = found.flags.get(node.target.id, 0) | _USE
        return [node.value] + _bind_target(found, node.target)
    if kind is syntax.AnnAssign:
        if isinstance(node.target, syntax.Name):
            _bind(found, node.target.id, annotated=True)
            return [node.value]
        return [node.value] + _bind_target(found, node.target)
    if kind is syntax.For:
        return [node.iter] + _bind_target(found, node.target) + [node.body, node.orelse]
    if kind is syntax.With:
        reads: list[Any] = []
        for item in node.items:
            reads.append(item.context_expr)
            if item.optional_vars is not None:
                reads += _bind_target(found, item.optional_vars)
        return reads + [node.body]
    if kind is syntax.ExceptHandler:
        if node.name is not None:
            _bind(found, node.name)
        return [node.type, node.body]
    if kind is syntax.Import:
        for alias in node.names:
            _bind(found, alias.asname or alias.name.split(".")[0])
        return []
    if kind is syntax.ImportFrom:
        for alias in node.names:
            if alias.name != "*":  # (module level only: names looked up when read)
                _bind(found, alias.asname or alias.name)
        return []
    if kind is syntax.FunctionDef:
        _bind(found, node.name)
        return [p.default for p in node.params] + list(node.decorators)
    if kind is syntax.ClassDef:
        _bind(found, node.name)
        return list(node.bases) + [k.value for k in node.keywords] + list(node.decorators)
    if kind is syntax.Lambda:
        return [p.default for p in node.params]
    if kind is syntax.MatchAs or kind is syntax.MatchStar:
        if node.name is not None:
            _bind(found, node.name)
        return [node.pattern] if kind is syntax.MatchAs else []
    if kind is syntax.MatchMapping and node.rest is not None:
        _bind(found, node.rest)
    if kind is syntax.NamedExpr:
        _bind(found, node.target.id)
        return [node.value]
    if kind in _COMPREHENSIONS:
        for name in comprehension_walrus_targets(node):  # PEP 572: they bind out here
            _bind(found, name)
        return [node.generators[0].iter]  # the rest runs in the comprehension's own scope
    if kind is syntax.Delete:
        reads = []
        for target in node.targets:
            reads += _bind_target(found, target)
        return reads
    return [getattr(node, f) for f in _fields(kind)]


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f for f in kind.fields if f != "span")
    return names


def _declare(found: _Analysis, node: syntax.Global | syntax.Nonlocal, word: str) -> None:
    for name in node.names:
        flags = found.flags.get(name, 0)
        other = found.nonlocals if word == "global" else found.globals
        if name in other:
            raise GtSyntaxError(f"name '{name}' is nonlocal and global", node.span)
        if flags & _PARAM:
            raise GtSyntaxError(f"name '{name}' is parameter and {word}", node.span)
        if flags & _USE:
            raise GtSyntaxError(f"name '{name}' is used prior to {word} declaration", node.span)
        if flags & _ANNOTATED:
            raise GtSyntaxError(f"annotated name '{name}' can't be {word}", node.span)
        if flags & _BOUND:
            raise GtSyntaxError(f"name '{name}' is assigned to before {word} declaration",
                                node.span)
        (found.globals if word == "global" else found.nonlocals)[name] = node.span


def function_scope(parent: Scope, name: str, params: tuple[syntax.Param, ...],
                   body: tuple[syntax.Stmt, ...], library: bool) -> Scope:
    """The scope of a `def` or `lambda` body, checked: `nonlocal` names must be bound in
    an enclosing function."""
    found = analyse(body, params)
    frame_parent = parent.parent if parent.kind == "class" else parent
    locals_ = frozenset(n for n, f in found.flags.items() if f & _BOUND) - \
        set(found.globals) - set(found.nonlocals)
    scope = Scope("function", frame_parent, locals_, frozenset(found.globals),
                  frozenset(found.nonlocals), found.is_generator,
                  parent.child_prefix() + name, parent.class_name, library)
    for nonlocal_name, span in found.nonlocals.items():
        if scope.nonlocal_hops(nonlocal_name) is None:
            raise GtSyntaxError(f"no binding for nonlocal '{nonlocal_name}' found", span)
    scope.names_locals = "locals" in found.flags
    return scope


def class_scope(parent: Scope, name: str, body: tuple[syntax.Stmt, ...],
                library: bool) -> Scope:
    found = analyse(body, is_function=False)
    scope = Scope("class", parent, frozenset(), frozenset(found.globals),
                  frozenset(found.nonlocals), False, parent.child_prefix() + name, name,
                  library)
    for nonlocal_name, span in found.nonlocals.items():
        if scope.nonlocal_hops(nonlocal_name) is None:
            raise GtSyntaxError(f"no binding for nonlocal '{nonlocal_name}' found", span)
    return scope


def module_scope(body: tuple[syntax.Stmt, ...], library: bool) -> Scope:
    analyse(body, is_function=False)  # the declaration-order errors
    return Scope("module", None, library=library)


def mangle(name: str, class_name: str | None) -> str:
    """Python's private-name mangling: `__x` inside class `C` is `_C__x`."""
    if class_name is None or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = class_name.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def _walk(root: Any, children: Callable[[Any], Iterable[Any]]) -> Iterator[Any]:
    """Every syntax node under `root` (tuples of nodes flattened), descending into what
    `children` gives for each: the callers decide where a scope stops the walk."""
    pending: list[Any] = [root]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple):
            pending.extend(item)
        elif isinstance(item, syntax.Node):
            yield item
            pending.extend(children(item))


def _all_fields(item: Any) -> Iterator[Any]:
    return (getattr(item, f) for f in _fields(type(item)))


def comprehension_walrus_targets(node: Any) -> list[str]:
    """The `:=` targets inside a comprehension (and comprehensions nested in it), which
    bind in the enclosing function's scope; a lambda inside binds its own."""
    def children(item: Any) -> Iterable[Any]:
        if type(item) is syntax.Lambda:
            return [p.default for p in item.params]
        return _all_fields(item)

    return [item.target.id for item in _walk(node, children)
            if type(item) is syntax.NamedExpr]


def contains_yield(node: Any) -> bool:
    """Whether `yield` appears in `node` (a statement or a block), outside nested scopes."""
    def children(item: Any) -> Iterable[Any]:
        kind = type(item)
        if kind is syntax.FunctionDef or kind is syntax.ClassDef or kind is syntax.Lambda:
            return ()  # its own scope (its defaults and decorators cannot hold a yield here)
        if kind in _COMPREHENSIONS:
            return (item.generators[0].iter,)
        return _all_fields(item)

    return any(type(item) is syntax.Yield or type(item) is syntax.YieldFrom
               for item in _walk(node, children))
