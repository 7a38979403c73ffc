"""Binding a call's arguments to a script function's parameters, as CPython 3.11 does it
(`initialize_locals` in ceval.c): the same order of checks and the same messages."""
from __future__ import annotations

from typing import Any

from .. import syntax
from ..errors import TorchTypeError


class Signature:
    """A `def`'s or `lambda`'s parameters, split by kind once when it is compiled."""

    __slots__ = ("positional", "posonly", "varargs", "kwonly", "varkw", "names", "simple",
                 "count")

    def __init__(self, params: tuple[syntax.Param, ...]):
        self.positional = tuple(p.name for p in params
                                if p.kind in (syntax.POSITIONAL_ONLY, syntax.POSITIONAL))
        self.posonly = sum(1 for p in params if p.kind == syntax.POSITIONAL_ONLY)
        self.varargs = next((p.name for p in params if p.kind == syntax.VAR_POSITIONAL), None)
        self.kwonly = tuple(p.name for p in params if p.kind == syntax.KEYWORD_ONLY)
        self.varkw = next((p.name for p in params if p.kind == syntax.VAR_KEYWORD), None)
        self.names = frozenset(self.positional[self.posonly:] + self.kwonly)  # by keyword
        self.count = len(self.positional)
        # only plain positional parameters: a call with exactly that many positional
        # arguments binds by zip (the common case, and the fast one)
        self.simple = self.count == len(params) and not self.posonly

    def bind(self, qualname: str, defaults: dict[str, Any], args: Any,
             kwargs: dict[str, Any]) -> dict[str, Any]:
        """The new frame's variables, or CPython's TypeError."""
        positional = self.positional
        nargs = len(args)
        if self.simple and not kwargs and nargs == self.count:
            return dict(zip(positional, args))
        bound: dict[str, Any] = dict(zip(positional, args))
        if self.varargs is not None:
            bound[self.varargs] = tuple(args[self.count:])
        extra: dict[str, Any] | None = {} if self.varkw is not None else None
        for key, value in kwargs.items():
            if key in self.names:
                if key in bound:
                    raise TorchTypeError(
                        f"{qualname}() got multiple values for argument '{key}'")
                bound[key] = value
            elif extra is not None:
                extra[key] = value
            else:
                given = [k for k in kwargs if k in positional[:self.posonly]]
                if given:
                    raise TorchTypeError(
                        f"{qualname}() got some positional-only arguments passed as keyword "
                        f"arguments: '{', '.join(given)}'")
                raise TorchTypeError(f"{qualname}() got an unexpected keyword argument '{key}'")
        if nargs > self.count and self.varargs is None:
            raise TorchTypeError(self._too_many(qualname, defaults, nargs, bound))
        missing = [n for n in positional[nargs:] if n not in bound and n not in defaults]
        if missing:
            raise TorchTypeError(_missing(qualname, missing, "positional"))
        for name in positional[nargs:]:
            if name not in bound:
                bound[name] = defaults[name]
        if self.kwonly:
            missing = [n for n in self.kwonly if n not in bound and n not in defaults]
            if missing:
                raise TorchTypeError(_missing(qualname, missing, "keyword-only"))
            for name in self.kwonly:
                if name not in bound:
                    bound[name] = defaults[name]
        if extra is not None:
            bound[self.varkw] = extra
        return bound

    def _too_many(self, qualname: str, defaults: dict[str, Any], given: int,
                  bound: dict[str, Any]) -> str:
        count = self.count
        with_default = sum(1 for n in self.positional if n in defaults)
        if with_default:
            takes = f"from {count - with_default} to {count} positional arguments"
        else:
            takes = f"{count} positional argument{'s' if count != 1 else ''}"
        kwonly = sum(1 for n in self.kwonly if n in bound)
        tail = ""
        if kwonly:
            tail = (f" positional argument{'s' if given != 1 else ''} (and {kwonly} "
                    f"keyword-only argument{'s' if kwonly != 1 else ''})")
        verb = "was" if given == 1 and not kwonly else "were"
        return f"{qualname}() takes {takes} but {given}{tail} {verb} given"


def _missing(qualname: str, names: list[str], kind: str) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    n = len(names)
    return f"{qualname}() missing {n} required {kind} argument{'s' if n != 1 else ''}: {listed}"
