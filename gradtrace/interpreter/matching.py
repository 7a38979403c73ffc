"""The `match` statement (PEP 634) as CPython 3.11 runs it: the subject once, then each
case's pattern in order, its names bound when the whole pattern matched (before the
guard), the first case whose guard holds runs.

Patterns: literals compare with `==` (None, True, False with `is`), dotted names with
`==`; a sequence pattern takes a collections.abc Sequence that is not a string (list,
tuple, range, torch.Size, deque, a script class deriving from Sequence; never a tensor);
a mapping pattern takes a Mapping (its keys looked up with `get`); a class pattern checks
isinstance, then `__match_args__` for positional sub-patterns (a builtin type's one
positional sub-pattern matches the subject itself), then the attributes named.
"""
from __future__ import annotations

import collections.abc
from collections.abc import Callable
from typing import Any

from .. import syntax
from ..errors import ScriptError, TorchTypeError
from .objects import MISSING, BuiltinType, Instance, ScriptClass, type_name
from .operators import COMPARE
from .runtime import Code, Frame

Bindings = dict[str, tuple[Any, Any]]
Matcher = Callable[[Frame, Any, Bindings], bool]

# the builtin types whose one positional sub-pattern matches the subject itself
_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


class MatchCompiler:
    """`match` statements (a mixin of the Interpreter)."""

    def stmt_Match(self, node: syntax.Match) -> Code:
        subject = self.compile_expr(node.subject)
        cases = [(self.compile_pattern(case.pattern),
                  None if case.guard is None else self.compile_expr(case.guard),
                  None if case.guard is None else case.guard.span,
                  self.compile_block(case.body)) for case in node.cases]
        span = node.subject.span

        def run(frame: Frame) -> None:
            value = subject(frame)
            for match, guard, guard_span, body in cases:
                self.tick()
                bindings: Bindings = {}
                self._spans.current_span = span
                if not match(frame, value, bindings):
                    continue
                for store, bound in bindings.values():
                    store(frame, bound)
                if guard is None or self.truth(guard(frame), guard_span):
                    body(frame)
                    return

        return run

    def compile_pattern(self, pattern: Any) -> Matcher:
        kind = type(pattern)
        return getattr(self, "pattern_" + kind.__name__)(pattern)

    def _capture(self, name: str | None, span: Any) -> Callable[[Bindings, Any], None]:
        if name is None:
            return lambda bindings, value: None
        store = self._store_name(self.mangled(name), span)
        return lambda bindings, value: bindings.__setitem__(name, (store, value))

    def pattern_MatchAs(self, pattern: syntax.MatchAs) -> Matcher:
        inner = None if pattern.pattern is None else self.compile_pattern(pattern.pattern)
        bind = self._capture(pattern.name, pattern.span)

        def match(frame: Frame, value: Any, bindings: Bindings) -> bool:
            if inner is not None and not inner(frame, value, bindings):
                return False
            bind(bindings, value)
            return True

        return match

    def pattern_MatchValue(self, pattern: syntax.MatchValue) -> Matcher:
        expected = self.compile_expr(pattern.value)
        equal = COMPARE["=="]
        span = pattern.span

        def match(frame: Frame, value: Any, bindings: Bindings) -> bool:
            return self.truth(self.guarded_compare(equal, value, expected(frame), span), span)

        return match

    def guarded_compare(self, op: Callable[[Any, Any], Any], a: Any, b: Any, span: Any) -> Any:
        try:
            return op(a, b)
        except (TypeError, ValueError) as err:
            raise ScriptError(str(err), span, kind=type(err).__name__) from None

    def pattern_MatchSingleton(self, pattern: syntax.MatchSingleton) -> Matcher:
        expected = pattern.value
        return lambda frame, value, bindings: value is expected

    def pattern_MatchOr(self, pattern: syntax.MatchOr) -> Matcher:
        alternatives = [self.compile_pattern(p) for p in pattern.patterns]

        def match(frame: Frame, value: Any, bindings: Bindings) -> bool:
            for alternative in alternatives:
                trial: Bindings = {}
                if alternative(frame, value, trial):
                    bindings.update(trial)
                    return True
            return False

        return match

    def is_sequence(self, value: Any) -> bool:
        if type(value) is Instance:
            return any(self.abc_kinds.get(c) == ("collections.abc", "Sequence")
                       for c in value.cls.mro)
        return isinstance(value, collections.abc.Sequence) and \
            not isinstance(value, (str, bytes, bytearray))

    def is_mapping(self, value: Any) -> bool:
        if type(value) is Instance:
            return any(self.abc_kinds.get(c) == ("collections.abc", "Mapping")
                       for c in value.cls.mro)
        return isinstance(value, collections.abc.Mapping)

    def pattern_MatchSequence(self, pattern: syntax.MatchSequence) -> Matcher:
        star = next((i for i, p in enumerate(pattern.patterns)
                     if type(p) is syntax.MatchStar), None)
        items = [(None if type(p) is syntax.MatchStar else self.compile_pattern(p))
                 for p in pattern.patterns]
        bind_star = None if star is None else self._capture(pattern.patterns[star].name,
                                                            pattern.patterns[star].span)
        count = len(items)
        length = self.builtins["len"]

        def match(frame: Frame, value: Any, bindings: Bindings) -> bool:
            if not self.is_sequence(value):
                return False
            size = length(value)
            if star is None:
                if size != count:
                    return False
                return all(item(frame, self.get_item(value, i), bindings)
                           for i, item in enumerate(items))
            if size < count - 1:
                return False
            after = count - 1 - star
            for i in range(star):
                if not items[i](frame, self.get_item(value, i), bindings):
                    return False
            for j in range(after):
                item = items[star + 1 + j]
                if not item(frame, self.get_item(value, size - after + j), bindings):
                    return False
            if bind_star is not None:
                self.check_size(size - count + 1, "a starred pattern")
                bind_star(bindings, [self.get_item(value, i)
                                     for i in range(star, size - after)])
            return True

        return match

    def pattern_MatchMapping(self, pattern: syntax.MatchMapping) -> Matcher:
        keys = [self.compile_expr(k) for k in pattern.keys]
        values = [self.compile_pattern(p) for p in pattern.patterns]
        bind_rest = None if pattern.rest is None else self._capture(pattern.rest, pattern.span)
        missing = object()
        span = pattern.span

        def match(frame: Frame, value: Any, bindings: Bindings) -> bool:
            if not self.is_mapping(value):
                return False
            if len(keys) > self.builtins["len"](value):
                return False
            found_keys = [key(frame) for key in keys]
            get = self.get_attribute(value, "get", span)
            for key, sub in zip(found_keys, values, strict=True):
                found = self.call(get, [key, missing], {}, span)
                if found is missing or not sub(frame, found, bindings):
                    return False
            if bind_rest is not None:
                rest = {}
                for k in self.iterate(value, span):
                    if k not in found_keys:
                        rest[k] = self.get_item(value, k)
                        if len(rest) > self.limits.max_sequence:
                            self.check_size(len(rest), "a mapping pattern's **rest")
                bind_rest(bindings, rest)
            return True

        return match

    def pattern_MatchClass(self, pattern: syntax.MatchClass) -> Matcher:
        cls_code = self.compile_expr(pattern.cls)
        positional = [self.compile_pattern(p) for p in pattern.patterns]
        keywords = [(name, self.compile_pattern(p))
                    for name, p in zip(pattern.kwd_attrs, pattern.kwd_patterns, strict=True)]
        span = pattern.span

        def match(frame: Frame, value: Any, bindings: Bindings) -> bool:
            cls = cls_code(frame)
            if not self.is_class(cls):
                raise ScriptError("called match pattern must be a type", span,
                                  kind="TypeError")
            if not self.isinstance_check(value, cls):
                return False
            names: list[str] = []
            if positional:
                name = getattr(cls, "name", type_name(cls))
                if type(cls) is BuiltinType and issubclass(cls.type, _SELF_MATCHING):
                    if len(positional) > 1:
                        raise TorchTypeError(f"{name}() accepts 1 positional sub-pattern "
                                             f"({len(positional)} given)")
                    if not positional[0](frame, value, bindings):
                        return False
                else:
                    match_args = cls.lookup("__match_args__") if type(cls) is ScriptClass \
                        else MISSING
                    match_args = () if match_args is MISSING else match_args
                    if not isinstance(match_args, tuple):
                        raise TorchTypeError(f"{name}.__match_args__ must be a tuple (got "
                                             f"{type_name(match_args)})")
                    if len(positional) > len(match_args):
                        s = "" if len(match_args) == 1 else "s"
                        raise TorchTypeError(f"{name}() accepts {len(match_args)} positional "
                                             f"sub-pattern{s} ({len(positional)} given)")
                    names = list(match_args[:len(positional)])
                    for attr, sub in zip(names, positional, strict=True):
                        if not self._attribute_matches(value, attr, sub, frame, bindings):
                            return False
            for attr, sub in keywords:
                if attr in names:
                    raise TorchTypeError(f"{getattr(cls, 'name', '')}() got multiple "
                                         f"sub-patterns for attribute {attr!r}")
                if not self._attribute_matches(value, attr, sub, frame, bindings):
                    return False
            return True

        return match

    def _attribute_matches(self, value: Any, attr: str, sub: Matcher, frame: Frame,
                           bindings: Bindings) -> bool:
        try:
            found = self.get_attribute(value, attr, None)
        except ScriptError as err:
            if err.kind == "AttributeError":
                return False
            raise
        return sub(frame, found, bindings)
