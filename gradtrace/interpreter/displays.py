"""Compiles displays and comprehensions: lists, tuples, sets and dicts (with `*` and `**`
unpacking), list/set/dict comprehensions and generator expressions.

A comprehension runs in its own scope (its targets never leak), with the first iterable
evaluated where the comprehension is, as in Python; every item counts as a step, and
what it builds is bounded by --max-sequence. A generator expression is a lazy
`ScriptGenerator`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .. import syntax
from ..errors import GradtraceError, LimitExceeded, ScriptError
from .nesting import check_all_hashable, check_hashable
from .objects import ScriptGenerator, script_message, type_name
from .runtime import PYTHON_ERRORS, Code, Frame
from .scopes import Scope

Items = Callable[[Frame], list]


class DisplayCompiler:
    """List, tuple, set and dict displays, comprehensions, generator expressions."""

    def expr_ListExpr(self, node: syntax.ListExpr) -> Code:
        items = self._compile_items(node.elts)
        return lambda frame: list(items(frame))

    def expr_TupleExpr(self, node: syntax.TupleExpr) -> Code:
        items = self._compile_items(node.elts)
        return lambda frame: tuple(items(frame))

    def expr_SetExpr(self, node: syntax.SetExpr) -> Code:
        items = self._compile_items(node.elts)
        span = node.span

        def run(frame: Frame) -> set:
            values = items(frame)
            check_all_hashable(values)
            try:
                return set(values)
            except GradtraceError as err:
                err.at(span)
                raise
            except PYTHON_ERRORS as err:
                raise ScriptError(script_message(str(err), values[:8]), span,
                                  kind=type(err).__name__) from None

        return run

    def _compile_items(self, elts: tuple[syntax.Expr, ...],
                       compile_item: Callable[[syntax.Expr], Code] | None = None) -> Items:
        """A display's items, `*iterable` unpacked (counted against the sequence limit);
        `compile_item` compiles the others (an index tuple's: slices too)."""
        compile_item = compile_item or self.compile_expr
        codes = [(True, self.compile_expr(e.value), e.span) if isinstance(e, syntax.Starred)
                 else (False, compile_item(e), e.span) for e in elts]
        if not any(starred for starred, _, _ in codes):
            plain = [code for _, code, _ in codes]
            return lambda frame: [code(frame) for code in plain]

        def items(frame: Frame) -> list:
            out: list = []
            for starred, code, span in codes:
                if starred:
                    out.extend(self.materialize(code(frame), "an unpacked display", span))
                else:
                    out.append(code(frame))
            self.check_size(len(out), "a display")
            return out

        return items

    def expr_DictExpr(self, node: syntax.DictExpr) -> Code:
        pairs = [(self.compile_expr(k) if k is not None else None, self.compile_expr(v), v.span)
                 for k, v in zip(node.keys, node.values)]
        span = node.span

        def run(frame: Frame) -> dict:
            out: dict = {}
            for key_code, value_code, value_span in pairs:
                if key_code is None:  # `**mapping`
                    value = value_code(frame)
                    mapping = self.unpacked_mapping(value, "an unpacked mapping")
                    if mapping is None:
                        raise ScriptError(f"'{type_name(value)}' object is not a mapping",
                                          value_span, kind="TypeError")
                    out.update(mapping)
                    continue
                key = key_code(frame)
                value = value_code(frame)
                _store(out, key, value, span)
            return out

        return run

    # ------------------------------------------------------------------ comprehensions

    def compile_comprehension(self, node: Any, elts: tuple[syntax.Expr, ...]
                              ) -> Callable[[Frame], Iterator[Any]]:
        """A maker of the comprehension's items (a Python generator): the first iterable is
        evaluated (and iterated) when it is made, the rest as it runs."""
        first, *rest = node.generators
        first_iter = self.compile_expr(first.iter)
        first_span = first.iter.span
        parent = self._scope
        scope = Scope("comprehension", parent, class_name=parent.class_name,
                      library=parent.library, qualname=parent.qualname)
        with self.scope(scope):
            levels = [(self.compile_expr(g.iter) if i else None, self.compile_store(g.target),
                       [(self.compile_expr(c), c.span) for c in g.ifs], g.iter.span)
                      for i, g in enumerate(node.generators)]
            produce = [self.compile_expr(e) for e in elts]
        del rest
        tick, truth, iterate = self.tick, self.truth, self.iterate
        single = len(produce) == 1

        def make(frame: Frame) -> Iterator[Any]:
            source = iterate(first_iter(frame), first_span)
            inner = Frame({}, frame)

            def run(level: int, items: Iterator[Any]) -> Iterator[Any]:
                _, store, ifs, _ = levels[level]
                last = level + 1 == len(levels)
                for item in items:
                    tick()
                    store(inner, item)
                    if ifs and not all(truth(c(inner), s) for c, s in ifs):
                        continue
                    if not last:
                        code, _, _, span = levels[level + 1]
                        yield from run(level + 1, iterate(code(inner), span))
                    elif single:
                        yield produce[0](inner)
                    else:
                        yield tuple(p(inner) for p in produce)

            return run(0, source)

        return make

    def _collect(self, node: Any, elts: tuple[syntax.Expr, ...], build: Callable) -> Code:
        make = self.compile_comprehension(node, elts)
        limit = self.limits.max_sequence
        span = node.span

        def run(frame: Frame) -> Any:
            out: list = []
            for value in make(frame):
                out.append(value)
                if len(out) > limit:
                    raise LimitExceeded(f"a comprehension of more than {limit} items (raise "
                                        "the limit with --max-sequence)", span)
            return build(out, span)

        return run

    def expr_ListComp(self, node: syntax.ListComp) -> Code:
        return self._collect(node, (node.elt,), lambda out, span: out)

    def expr_SetComp(self, node: syntax.SetComp) -> Code:
        return self._collect(node, (node.elt,), _make_set)

    def expr_DictComp(self, node: syntax.DictComp) -> Code:
        def build(pairs: list, span: Any) -> dict:
            out: dict = {}
            for key, value in pairs:
                _store(out, key, value, span)
            return out

        return self._collect(node, (node.key, node.value), build)

    def expr_GeneratorExp(self, node: syntax.GeneratorExp) -> Code:
        make = self.compile_comprehension(node, (node.elt,))
        library = self._scope.library
        return lambda frame: ScriptGenerator("<genexpr>", make(frame), self, library)


def _store(out: dict, key: Any, value: Any, span: Any) -> None:
    check_hashable(key)
    try:
        out[key] = value
    except GradtraceError as err:
        err.at(span)
        raise
    except PYTHON_ERRORS as err:
        raise ScriptError(script_message(str(err), (key,)), span,
                          kind=type(err).__name__) from None


def _make_set(items: list, span: Any) -> set:
    check_all_hashable(items)
    try:
        return set(items)
    except GradtraceError as err:
        err.at(span)
        raise
    except PYTHON_ERRORS as err:
        raise ScriptError(script_message(str(err), items[:8]), span,
                          kind=type(err).__name__) from None
