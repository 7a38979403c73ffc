"""`re` as scripts see it: Python's own regular expressions behind fixed tables.

Patterns and matches are wrappers (`Pattern`, `Match`) whose attributes and methods are
the tables below (registered in wrapped.py); nothing hands a script Python's
`re.Pattern` or `re.Match` themselves. What a call builds is bounded: `sub`/`subn` build
their result piece by piece against --max-sequence (a replacement may repeat at every
position), a callable replacement runs through the interpreter (a counted step each),
and a pattern that backtracks for ever is stopped by --timeout like any long C call
(supervisor.py).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import LimitExceeded, ScriptError, TorchTypeError
from .objects import type_name
from .system_modules import python_function
from .wrapped import register

if TYPE_CHECKING:
    from .core import Interpreter

_FLAGS = ("ASCII", "A", "IGNORECASE", "I", "LOCALE", "L", "MULTILINE", "M", "DOTALL", "S",
          "VERBOSE", "X", "UNICODE", "U", "NOFLAG")


def _python_error(err: Exception) -> ScriptError:
    """Python's error from `re` as the script's (`re.error` is kind `error`)."""
    kind = "error" if isinstance(err, re.error) else type(err).__name__
    return ScriptError(str(err), kind=kind)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TorchTypeError(f"expected string or bytes-like object, got '{type_name(value)}'")
    return value


class Pattern:
    """A compiled pattern (`re.compile(...)`)."""

    __slots__ = ("compiled", "interp")
    python_type_name = "re.Pattern"

    def __init__(self, compiled: re.Pattern[str], interp: Interpreter):
        self.compiled = compiled
        self.interp = interp

    def __repr__(self) -> str:
        return repr(self.compiled)

    def __eq__(self, other: object) -> bool:
        return type(other) is Pattern and self.compiled == other.compiled

    def __hash__(self) -> int:
        return hash(self.compiled)

    def _match(self, fn: Callable[..., Any], string: Any, pos: Any, endpos: Any) -> Any:
        found = fn(_text(string), pos, endpos)
        return None if found is None else Match(found, self)

    def match(self, string: Any, pos: int = 0, endpos: int = 2**63 - 1) -> Match | None:
        return self._match(self.compiled.match, string, pos, endpos)

    def search(self, string: Any, pos: int = 0, endpos: int = 2**63 - 1) -> Match | None:
        return self._match(self.compiled.search, string, pos, endpos)

    def fullmatch(self, string: Any, pos: int = 0, endpos: int = 2**63 - 1) -> Match | None:
        return self._match(self.compiled.fullmatch, string, pos, endpos)

    def findall(self, string: Any, pos: int = 0, endpos: int = 2**63 - 1) -> list[Any]:
        return self.compiled.findall(_text(string), pos, endpos)  # at most len + 1 items

    def finditer(self, string: Any, pos: int = 0, endpos: int = 2**63 - 1) -> Any:
        matches = []
        for found in self.compiled.finditer(_text(string), pos, endpos):
            self.interp.tick()
            matches.append(Match(found, self))
        return iter(matches)

    def split(self, string: Any, maxsplit: int = 0) -> list[Any]:
        return self.compiled.split(_text(string), maxsplit)

    def subn(self, repl: Any, string: Any, count: int = 0) -> tuple[str, int]:
        """Python's `subn`: in one call when no result could pass --max-sequence, else
        built one match at a time within it."""
        string = _text(string)
        limit = self.interp.limits.max_sequence
        if isinstance(repl, str) and "\\" not in repl and \
                len(string) + (len(string) + 1) * len(repl) <= limit:
            return self.compiled.subn(repl, string, count)  # (no result can pass the limit)
        if isinstance(repl, str):
            template = repl
            self.compiled.sub(template, "", count=1)  # Python's error for a bad template now
            expand: Callable[[re.Match[str]], str] = (
                (lambda m: m.expand(template)) if "\\" in template
                else (lambda m: template))  # (no group reference: Python inserts it as is)
        elif self.interp.is_callable(repl):
            expand = self._call_repl(repl)
        else:
            raise TorchTypeError("expected str instance, "
                                 f"{type_name(repl)} found")
        pieces, size, done, last = [], 0, 0, 0
        for found in self.compiled.finditer(string):
            if count and done >= count:
                break
            self.interp.tick()
            piece = expand(found)
            pieces.append(string[last:found.start()])
            pieces.append(piece)
            size += found.start() - last + len(piece)
            if size > limit:
                raise LimitExceeded(f"re.sub made more than {limit:,} characters "
                                    "(raise the limit with --max-sequence)")
            last = found.end()
            done += 1
        pieces.append(string[last:])
        if size + len(string) - last > limit:
            raise LimitExceeded(f"re.sub made more than {limit:,} characters "
                                "(raise the limit with --max-sequence)")
        return "".join(pieces), done

    def _call_repl(self, repl: Any) -> Callable[[re.Match[str]], str]:
        def expand(found: re.Match[str]) -> str:
            piece = self.interp.call(repl, [Match(found, self)], {}, None)
            if not isinstance(piece, str):
                raise TorchTypeError(f"expected str instance, {type_name(piece)} found")
            return piece
        return expand

    def sub(self, repl: Any, string: Any, count: int = 0) -> str:
        return self.subn(repl, string, count)[0]


class Match:
    """One match: its groups, spans and the pattern that made it."""

    __slots__ = ("found", "pattern")
    python_type_name = "re.Match"

    def __init__(self, found: re.Match[str], pattern: Pattern):
        self.found = found
        self.pattern = pattern

    def __repr__(self) -> str:
        return repr(self.found)

    def __getitem__(self, group: Any) -> Any:
        return self.found[group]

    def group(self, *groups: Any) -> Any:
        return self.found.group(*groups)

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return self.found.groups(default)

    def groupdict(self, default: Any = None) -> dict[str, Any]:
        return self.found.groupdict(default)

    def start(self, group: Any = 0) -> int:
        return self.found.start(group)

    def end(self, group: Any = 0) -> int:
        return self.found.end(group)

    def span(self, group: Any = 0) -> tuple[int, int]:
        return self.found.span(group)

    def expand(self, template: Any) -> str:
        return self.found.expand(_text(template))


_MATCH_ATTRIBUTES: dict[str, Callable[[Match], Any]] = {
    "string": lambda m: m.found.string, "re": lambda m: m.pattern,
    "pos": lambda m: m.found.pos, "endpos": lambda m: m.found.endpos,
    "lastindex": lambda m: m.found.lastindex, "lastgroup": lambda m: m.found.lastgroup,
}
_PATTERN_ATTRIBUTES: dict[str, Callable[[Pattern], Any]] = {
    "pattern": lambda p: p.compiled.pattern, "flags": lambda p: p.compiled.flags,
    "groups": lambda p: p.compiled.groups, "groupindex": lambda p: dict(p.compiled.groupindex),
}


def _methods(cls: type, names: str) -> dict[str, Callable[..., Any]]:
    def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except (re.error, IndexError, TypeError, ValueError, OverflowError) as err:
                raise _python_error(err) from None
        return call
    return {name: guarded(getattr(cls, name)) for name in names.split()}


_PATTERN_METHODS = _methods(Pattern, "match search fullmatch findall finditer split sub subn")
register(Pattern, _PATTERN_ATTRIBUTES, _PATTERN_METHODS)
register(Match, _MATCH_ATTRIBUTES, _methods(Match, "group groups groupdict start end span expand"))


def _compile_sig(pattern, flags=0): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _search_sig(pattern, string, flags=0): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _sub_sig(pattern, repl, string, count=0, flags=0): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001,E501
def _split_sig(pattern, string, maxsplit=0, flags=0): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _escape_sig(pattern): pass  # type: ignore[no-untyped-def]  # noqa: E704,ANN001
def _purge_sig(): pass  # type: ignore[no-untyped-def]  # noqa: E704


def re_namespace(interp: Interpreter) -> stdlib.Namespace:
    """The module: compile and the module-level functions (a pattern compiled on each
    call, from Python's cache), the flags, escape and `re.error`."""
    def compile_(pattern: Any, flags: Any = 0) -> Pattern:
        if type(pattern) is Pattern:
            if flags:
                raise ScriptError("cannot process flags argument with a compiled pattern",
                                  kind="ValueError")
            return pattern
        if not isinstance(pattern, str):
            raise TorchTypeError("first argument must be string or compiled pattern")
        if not isinstance(flags, int):
            raise TorchTypeError(f"unsupported operand type(s) for &: "
                                 f"'{type_name(flags)}' and 'int'")
        try:
            return Pattern(re.compile(pattern, flags), interp)
        except (re.error, ValueError, OverflowError, RecursionError) as err:
            raise _python_error(err) from None

    def searching(method: str) -> Callable[..., Any]:
        bound = _PATTERN_METHODS[method]

        def call(pattern: Any, string: Any, flags: Any = 0) -> Any:
            return bound(compile_(pattern, flags), string)
        return call

    def substituting(method: str) -> Callable[..., Any]:
        bound = _PATTERN_METHODS[method]

        def call(pattern: Any, repl: Any, string: Any, count: int = 0, flags: Any = 0) -> Any:
            return bound(compile_(pattern, flags), repl, string, count)
        return call

    def split(pattern: Any, string: Any, maxsplit: int = 0, flags: Any = 0) -> Any:
        return _PATTERN_METHODS["split"](compile_(pattern, flags), string, maxsplit)

    def escape(pattern: Any) -> str:
        return re.escape(_text(pattern))

    def purge() -> None:
        return None  # (Python's cache of compiled patterns is the process's, not the run's)

    table: dict[str, Any] = {name: getattr(re, name) for name in _FLAGS}  # re.RegexFlag
    functions: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
        "compile": (compile_, _compile_sig), "split": (split, _split_sig),
        "escape": (escape, _escape_sig), "purge": (purge, _purge_sig),
        **{name: (searching(name), _search_sig)
           for name in ("match", "search", "fullmatch", "findall", "finditer")},
        **{name: (substituting(name), _sub_sig) for name in ("sub", "subn")}}
    for name, (fn, signature) in functions.items():
        table[name] = python_function(name, fn, signature)
    table["error"] = stdlib.TorchExceptionType("error", "re")
    return stdlib.Namespace("re", table)
