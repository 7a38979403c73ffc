"""`datetime` as scripts use it (`datetime.now().strftime("%Y%m%d-%H%M%S")` to name a run,
`timedelta`s for elapsed time): Python's own date, time, datetime, timedelta and
timezone values (immutable, printed and compared as Python does), reached only through
the fixed tables here: their fields and methods, the classes' constructors, clocks
(`now`, `today`, `utcnow`, `fromtimestamp`: the real clock) and parsers. A custom tzinfo
is not offered (a script class cannot subclass Python's).
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import ScriptError
from . import wrapped
from .objects import BuiltinType

if TYPE_CHECKING:
    from .core import Interpreter

_ERRORS = (TypeError, ValueError, OverflowError)


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Python's errors of a datetime call as the script's errors, in Python's words."""
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _ERRORS as exc:
            raise ScriptError(str(exc), kind=type(exc).__name__) from None
    return call


def _fields(*names: str) -> dict[str, Callable[[Any], Any]]:
    return {name: (lambda obj, n=name: getattr(obj, n)) for name in names}


def _methods(kind: type, *names: str) -> dict[str, Callable[..., Any]]:
    return {name: _guard(getattr(kind, name)) for name in names}


_DATE_METHODS = ("weekday", "isoweekday", "isoformat", "strftime", "replace", "toordinal",
                 "isocalendar", "ctime")
_TIME_FIELDS = ("hour", "minute", "second", "microsecond", "tzinfo", "fold")

wrapped.register(_dt.timedelta, _fields("days", "seconds", "microseconds"),
                 _methods(_dt.timedelta, "total_seconds"))
wrapped.register(_dt.date, _fields("year", "month", "day"), _methods(_dt.date, *_DATE_METHODS))
wrapped.register(_dt.datetime, _fields("year", "month", "day", *_TIME_FIELDS),
                 _methods(_dt.datetime, *_DATE_METHODS, "date", "time", "timetz",
                          "timestamp", "astimezone", "utcoffset", "tzname", "dst"))
wrapped.register(_dt.time, _fields(*_TIME_FIELDS),
                 _methods(_dt.time, "isoformat", "strftime", "replace", "utcoffset",
                          "tzname", "dst"))
wrapped.register(_dt.timezone, {}, _methods(_dt.timezone, "utcoffset", "tzname", "dst"))

# what the classes themselves offer: alternative constructors and constants
CLASS_ATTRIBUTES: dict[type, dict[str, Any]] = {
    _dt.timedelta: {"min": _dt.timedelta.min, "max": _dt.timedelta.max,
                    "resolution": _dt.timedelta.resolution},
    _dt.date: {"min": _dt.date.min, "max": _dt.date.max, "resolution": _dt.date.resolution,
               **{n: _guard(getattr(_dt.date, n)) for n in (
                   "today", "fromtimestamp", "fromordinal", "fromisoformat",
                   "fromisocalendar")}},
    _dt.datetime: {"min": _dt.datetime.min, "max": _dt.datetime.max,
                   "resolution": _dt.datetime.resolution,
                   **{n: _guard(getattr(_dt.datetime, n)) for n in (
                       "now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp",
                       "fromordinal", "fromisoformat", "fromisocalendar", "strptime",
                       "combine")}},
    _dt.time: {"min": _dt.time.min, "max": _dt.time.max, "resolution": _dt.time.resolution,
               "fromisoformat": _guard(_dt.time.fromisoformat)},
    _dt.timezone: {"utc": _dt.timezone.utc, "min": _dt.timezone.min,
                   "max": _dt.timezone.max},
}


def class_attribute(cls: BuiltinType, name: str) -> Any:
    """`datetime.now`, `timedelta.max`, ...: a constructor (a builtin) or a constant;
    None if the class has no such attribute here."""
    table = CLASS_ATTRIBUTES.get(cls.type)
    if table is None or name not in table:
        return None
    value = table[name]
    if callable(value):
        return stdlib.BoundMethod(cls, lambda _cls, *a, **k: value(*a, **k), name)
    return value


def datetime_namespace(interp: Interpreter) -> stdlib.Namespace:
    table: dict[str, Any] = {"MINYEAR": _dt.MINYEAR, "MAXYEAR": _dt.MAXYEAR}
    for kind in (_dt.date, _dt.datetime, _dt.time, _dt.timedelta, _dt.timezone):
        made = BuiltinType(kind, _guard(kind))
        made.module = "datetime"
        interp.builtin_types[kind] = made
        table[kind.__name__] = made
    return stdlib.Namespace("datetime", table)
