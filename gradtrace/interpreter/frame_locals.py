"""`locals()` in a function, as CPython 3.11 builds it (PyFrame_FastToLocalsWithError).

A function's frame keeps one locals dict: every `locals()` call refreshes it from the
frame's variables and returns that same dict. The refresh walks the code object's
"localsplus" names in order, setting each bound one (a key already there keeps its place)
and dropping each unbound one, so the dict's order is that of the names' slots:

- `co_varnames`: the parameters (positional-only, positional, keyword-only, then `*args`
  and `**kwargs`), then the other local names in the order the compiler first emits code
  naming them (an assignment's value before its targets, a `for`'s iterable before its
  target, a `def`'s defaults before its name, ...);
- the cell variables that are not parameters (locals a nested function, lambda,
  comprehension or class body reads), sorted by name;
- the free variables (names this function, or a scope nested in it, reads from an
  enclosing function), sorted by name.

Comprehensions are functions in 3.11: their targets are theirs, and a local they read
is a cell of the enclosing function.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import syntax
from ..errors import NotSupportedError, TorchTypeError
from .scopes import analyse, bound_names, comprehension_walrus_targets

_PARAM_KINDS = (syntax.POSITIONAL_ONLY, syntax.POSITIONAL, syntax.KEYWORD_ONLY,
                syntax.VAR_POSITIONAL, syntax.VAR_KEYWORD)
_COMPREHENSIONS = (syntax.ListComp, syntax.SetComp, syntax.DictComp, syntax.GeneratorExp)
_NESTED = (syntax.FunctionDef, syntax.Lambda, syntax.ClassDef) + _COMPREHENSIONS


def frame_layout(params: tuple[syntax.Param, ...], body: tuple[syntax.Stmt, ...],
                 local_names: frozenset[str], globals_: frozenset[str],
                 nonlocals: frozenset[str], in_class: bool
                 ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The function's own localsplus names (varnames, then its other cells) and the names
    it may hold as free variables (resolved against the enclosing frames when read). In a
    class (`in_class`), naming `super` here or in a nested function makes `__class__` a
    free variable, as CPython's symtable does for zero-argument super()."""
    inner_free: set[str] = set()
    for nested in _nested_scopes(body):
        inner_free |= _free_names(nested)
    cells = local_names & inner_free
    varnames: dict[str, None] = {}
    for kind in _PARAM_KINDS:
        for p in params:
            if p.kind == kind:
                varnames[p.name] = None
    for name in _emitted_names(body):
        if name in local_names and name not in cells:
            varnames.setdefault(name, None)
    own = tuple(varnames) + tuple(sorted(cells - set(varnames)))
    used = set(_emitted_names(body)) | nonlocals
    free = (used | inner_free) - local_names - globals_
    if in_class and "super" in free:
        free.add(CLASS_CELL)
    return own, tuple(sorted(free))


def _nested_scopes(root: Any) -> Iterator[Any]:
    """The scopes nested directly in `root`'s code (not the ones inside those)."""
    for item in _children_in_scope(root):
        if isinstance(item, _NESTED):
            yield item
        yield from _nested_scopes(item)


def _children_in_scope(node: Any) -> Iterator[Any]:
    """The parts of `node` that run in the scope `node` is in."""
    if isinstance(node, tuple):
        yield from node
        return
    if not isinstance(node, syntax.Node):
        return
    kind = type(node)
    if kind is syntax.FunctionDef:
        yield from node.decorators
        yield from (p.default for p in node.params)
        return
    if kind is syntax.Lambda:
        yield from (p.default for p in node.params)
        return
    if kind is syntax.ClassDef:
        yield from node.decorators
        yield from node.bases
        yield from (k.value for k in node.keywords)
        return
    if kind in _COMPREHENSIONS:
        yield node.generators[0].iter
        return
    for field in node.fields:
        if field != "span":
            yield getattr(node, field)


def _free_names(scope: Any) -> set[str]:
    """The names a nested scope reads (or declares nonlocal) that it does not bind, with
    those of the scopes nested in it that it does not bind either."""
    kind = type(scope)
    if kind is syntax.FunctionDef or kind is syntax.Lambda:
        body = scope.body if kind is syntax.FunctionDef else (scope.body,)
        found = analyse(body, scope.params)
        bound = bound_names(found)
        declared_global = set(found.globals)
        names = set(found.flags) | set(found.nonlocals)
    elif kind is syntax.ClassDef:
        body = scope.body
        found = analyse(body, is_function=False)
        bound = bound_names(found)
        declared_global = set(found.globals)
        names = set(found.flags) | set(found.nonlocals)
    else:  # a comprehension: its targets are its own; the first iterable is not in it
        body = (scope.elt if kind is not syntax.DictComp else (scope.key, scope.value),
                tuple(g.ifs for g in scope.generators),
                tuple(g.iter for g in scope.generators[1:]))
        bound = {n for g in scope.generators for n in _target_names(g.target)}
        bound -= set(comprehension_walrus_targets(scope))
        declared_global = set()
        names = set(_names_read(body)) | {n for g in scope.generators
                                          for n in _target_names(g.target)}
    inner: set[str] = set()
    for nested in _nested_scopes(body):
        inner |= _free_names(nested)
    if kind is syntax.ClassDef:  # a class body's names are not its methods' closure
        return (names - bound | inner) - declared_global
    return (names | inner) - bound - declared_global


def _target_names(target: Any) -> Iterator[str]:
    if isinstance(target, syntax.Name):
        yield target.id
    elif isinstance(target, (syntax.TupleExpr, syntax.ListExpr)):
        for t in target.elts:
            yield from _target_names(t)
    elif isinstance(target, syntax.Starred):
        yield from _target_names(target.value)


def _names_read(root: Any) -> Iterator[str]:
    for item in _children_in_scope(root):
        if isinstance(item, syntax.Name):
            yield item.id
        yield from _names_read(item)


def _emitted_names(node: Any) -> Iterator[str]:
    """The names the compiler emits code for in `node`'s scope, in the order it emits
    it (repeats included)."""
    if isinstance(node, tuple):
        for item in node:
            yield from _emitted_names(item)
        return
    if not isinstance(node, syntax.Node):
        return
    kind = type(node)
    if kind is syntax.Name:
        yield node.id
    elif kind is syntax.Assign:
        yield from _emitted_names(node.value)
        yield from _emitted_names(node.targets)
    elif kind is syntax.AugAssign:
        yield from _emitted_names((node.target, node.value))
    elif kind is syntax.AnnAssign:  # (`x: int` alone names x in no code)
        if node.value is not None or not isinstance(node.target, syntax.Name):
            yield from _emitted_names((node.value, node.target))
    elif kind is syntax.For:
        yield from _emitted_names((node.iter, node.target, node.body, node.orelse))
    elif kind is syntax.With:
        for item in node.items:
            yield from _emitted_names((item.context_expr, item.optional_vars))
        yield from _emitted_names(node.body)
    elif kind is syntax.ExceptHandler:
        yield from _emitted_names(node.type)
        if node.name is not None:
            yield node.name
        yield from _emitted_names(node.body)
    elif kind is syntax.Import or kind is syntax.ImportFrom:
        for alias in node.names:
            yield alias.asname or (alias.name.split(".")[0] if kind is syntax.Import
                                   else alias.name)
    elif kind is syntax.FunctionDef or kind is syntax.ClassDef:
        yield from _emitted_names(tuple(_children_in_scope(node)))
        yield node.name
    elif kind is syntax.NamedExpr:
        yield from _emitted_names(node.value)
        yield node.target.id
    elif kind is syntax.DictExpr:
        for key, value in zip(node.keys, node.values):
            yield from _emitted_names((key, value))
    elif kind is syntax.Lambda or kind in _COMPREHENSIONS:
        yield from _emitted_names(tuple(_children_in_scope(node)))
    elif kind is syntax.MatchAs or kind is syntax.MatchStar:
        if kind is syntax.MatchAs:
            yield from _emitted_names(node.pattern)
        if node.name is not None:
            yield node.name
    elif kind is syntax.MatchMapping:
        yield from _emitted_names((node.keys, node.patterns))
        if node.rest is not None:
            yield node.rest
    else:
        for field in node.fields:
            if field != "span":
                yield from _emitted_names(getattr(node, field))


def refresh(store: dict[str, Any], own: tuple[str, ...], free: tuple[str, ...],
            variables_frame: Any) -> dict[str, Any]:
    """Bring the frame's locals dict up to date with its variables (its free variables
    are found in the frames it was defined in)."""
    variables, enclosing = variables_frame.vars, variables_frame.parent
    for name in own:
        if name in variables:
            store[name] = variables[name]
        else:
            store.pop(name, None)
    for name in free:
        if name == CLASS_CELL:
            store[name] = _defining_class(variables_frame)
            continue
        frame = enclosing
        while frame is not None and frame.parent is not None and name not in frame.vars:
            frame = frame.parent
        if frame is not None and frame.parent is not None and name in frame.vars:
            store[name] = frame.vars[name]
        else:
            store.pop(name, None)
    return store


def _defining_class(frame: Any) -> Any:
    """The class whose body defined the method running in `frame` (or around it)."""
    while frame is not None:
        cell = getattr(frame.function, "cell", None)
        if cell is not None and cell.cls is not None:
            return cell.cls
        frame = frame.parent
    return None


CLASS_CELL = "__class__"


class LocalsBuiltin:
    """The builtin `locals`: a call by name in a function's code is made where it is
    called (it needs the caller's frame: ExpressionCompiler.expr_Call); any other call
    is refused."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if args or kwargs:
            raise TorchTypeError(f"locals() takes no arguments ({len(args) + len(kwargs)} "
                                 "given)")
        raise NotSupportedError(NOT_IN_FUNCTION)

    def __repr__(self) -> str:
        return "<built-in function locals>"


LOCALS = LocalsBuiltin()
NOT_IN_FUNCTION = ("locals() is only supported called by its name directly in a `def` "
                   "function's code (not at module level, in a class body, a lambda or "
                   "a comprehension)")
