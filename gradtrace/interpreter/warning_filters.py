"""Python's warnings machinery for one run: the filters, the registries, and where a
warning goes (stderr, a `catch_warnings(record=True)` list, or an exception).

One path for every warning: the script's `warnings.warn`, torch's C++ warnings the engine
queues (`float(t)` of a tensor that requires grad, `.grad` of a non-leaf), and those torch's
Python code raises (bundled library modules). Each is filtered as CPython 3.11's
`warnings.warn_explicit` filters it: the first matching filter's action, else "default";
"default" shows a warning once per (text, category, line) of a module, "module" once per
module, "once" once per run, "always" each time, "ignore" never, "error" raises it. The
per-module registries are forgotten whenever the filters change, as CPython's are.

Filter patterns (`filterwarnings(message=..., module=...)`) are regular expressions in
Python (`re.match`: the message's ignoring case, the module's not); here only the subset
that cannot backtrack without bound is taken: literal text, `.` and `.*`, escaped
characters, a trailing `$`. Anything else is refused, so a hostile pattern cannot hold the
process beyond --timeout inside one C call.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import EXCEPTION_PARENTS, NotSupportedError, ScriptError, TorchTypeError
from ..printable import visible

if TYPE_CHECKING:
    from .core import Interpreter

ACTIONS = ("error", "ignore", "always", "default", "module", "once")  # CPython 3.11's
WARNING_KINDS = frozenset(kind for kind in EXCEPTION_PARENTS
                          if kind == "Warning" or EXCEPTION_PARENTS[kind] == "Warning")

# The filters a script under torch 2.13 starts with: those `import torch` puts in front
# (torch's own, then numpy's "size changed" ones), then CPython's defaults (no -W, no dev
# mode): (action, message, category, module, line). torch's TracerWarning filter (module
# `torch.(?!jit)`, which no script-side warning's module matches) and numpy's "always"
# RankWarning are left out. Its message filters are why `warnings.warn(None)` raises.
DEFAULT_FILTERS: tuple[tuple[str, Any, str, Any, int], ...] = (
    ("ignore", "torch::jit::fuser::cuda", "Warning", None, 0),
    ("ignore", "numpy.ndarray size changed", "Warning", None, 0),
    ("ignore", "numpy.ufunc size changed", "Warning", None, 0),
    ("ignore", "numpy.dtype size changed", "Warning", None, 0),
    ("default", None, "DeprecationWarning", ((tuple("__main__"),), True, False), 0),
    ("ignore", None, "DeprecationWarning", None, 0),
    ("ignore", None, "PendingDeprecationWarning", None, 0),
    ("ignore", None, "ImportWarning", None, 0),
    ("ignore", None, "ResourceWarning", None, 0),
)

_META = set("()[]{}+?|^\\")


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str, what: str, ignore_case: bool = True) -> tuple[Any, ...]:
    """A filter's pattern as segments separated by `.*` (each a tuple of characters, None
    for `.`), whether it must match to the end (`$`), and whether case is ignored (a
    message's pattern, not a module's). What would need backtracking is refused."""
    fold = str.lower if ignore_case else str
    anchored = pattern.endswith("$") and not pattern.endswith("\\$")
    text = pattern[:-1] if anchored else pattern
    segments: list[tuple[Any, ...]] = []
    current: list[Any] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 >= len(text) or text[i + 1].isalnum():
                raise NotSupportedError(
                    f"warnings {what} pattern {pattern!r}: gradtrace takes literal text, `.`, "
                    "`.*`, escaped punctuation and a final `$` (not regular-expression classes)")
            current.append(fold(text[i + 1]))
            i += 2
            continue
        if c == "." and text[i + 1:i + 2] == "*":
            segments.append(tuple(current))
            current = []
            i += 2
            continue
        if c == "*" or c in _META or c == "$":
            raise NotSupportedError(
                f"warnings {what} pattern {pattern!r}: gradtrace takes literal text, `.`, "
                "`.*`, escaped punctuation and a final `$` (not general regular expressions)")
        current.append(None if c == "." else fold(c))
        i += 1
    segments.append(tuple(current))
    return tuple(segments), anchored, ignore_case


DEFAULT_FILTERS = tuple((action, compile_pattern(message, "message") if message else None,
                         category, module, line)
                        for action, message, category, module, line in DEFAULT_FILTERS)


def _segment_at(text: str, start: int, segment: tuple[Any, ...]) -> bool:
    if start + len(segment) > len(text):
        return False
    return all(c is None or text[start + k] == c for k, c in enumerate(segment))


def pattern_matches(compiled: tuple[Any, ...], text: str) -> bool:
    """`re.match(pattern, text, re.I)` for the compiled subset: the first segment at the
    start, each later one at its leftmost place (greedy `.*` needs no more), the last at
    the end when anchored. Linear in the text for each segment."""
    segments, anchored, ignore_case = compiled
    if ignore_case:
        text = text.lower()
    first = segments[0]
    if not _segment_at(text, 0, first):
        return False
    pos = len(first)
    if len(segments) == 1:
        return not anchored or pos == len(text)
    for segment in segments[1:-1]:
        found = next((s for s in range(pos, len(text) - len(segment) + 1)
                      if _segment_at(text, s, segment)), None)
        if found is None:
            return False
        pos = found + len(segment)
    last = segments[-1]
    if anchored:
        return len(text) - len(last) >= pos and _segment_at(text, len(text) - len(last), last)
    return any(_segment_at(text, s, last) for s in range(pos, len(text) - len(last) + 1))


@dataclass
class Shown:
    """Where warnings go: printed to stderr (None) or passed to a recorder (a script
    callable taking message, category, filename, lineno)."""

    recorder: Any = None


@dataclass
class WarningState:
    """The run's warnings module state (what catch_warnings saves and restores)."""

    filters: list[tuple[str, Any, str, Any, int]] = field(
        default_factory=lambda: list(DEFAULT_FILTERS))
    version: int = 0
    registries: dict[str, set[tuple[Any, ...]]] = field(default_factory=dict)
    registry_version: int = 0
    once: set[tuple[str, str]] = field(default_factory=set)
    shown: Shown = field(default_factory=Shown)
    saved: list[tuple[list[Any], Shown]] = field(default_factory=list)


def is_subclass(kind: str, parent: str) -> bool:
    current: str | None = kind
    while current is not None:
        if current == parent:
            return True
        current = EXCEPTION_PARENTS.get(current)
    return False


def warning_category(value: Any) -> str:
    """The category a script passed, as a kind name; Python's TypeError otherwise."""
    if isinstance(value, stdlib.ExceptionType) and value.kind in WARNING_KINDS:
        return value.kind
    from .objects import type_name

    what = value.kind if isinstance(value, stdlib.ExceptionType) else type_name(value)
    raise TorchTypeError(f"category must be a Warning subclass, not '{what}'")


class Warnings:
    """The filters and the output of one run's warnings."""

    def __init__(self, interp: Interpreter):
        self.interp = interp
        self.state = WarningState()
        self.dynamo_loaded = False  # process-wide: catch_warnings does not undo an import

    # ---------------------------------------------------------------- the filters

    def mutated(self) -> None:
        self.state.version += 1

    def dynamo_imported(self) -> None:
        """torch imports torch._dynamo lazily, at the first call of a function it wraps in
        `_disable_dynamo` (Optimizer.add_param_group, hence every optimizer's construction,
        zero_grad, state_dict, load_state_dict; checkpoint) or in an optimizer's
        `_use_grad` step. That import loads sympy, whose module runs
        `warnings.simplefilter("once", SymPyDeprecationWarning)`: the filters change once
        per process, so every registry is forgotten and a "default" warning shown before
        shows again at its next warn. (The sympy filter itself, which no warning a script
        meets matches, is not added to the filters.)"""
        if not self.dynamo_loaded:
            self.dynamo_loaded = True
            self.mutated()

    def add_filter(self, action: str, message: Any, category: str, module: Any, lineno: int,
                   append: bool) -> None:
        entry = (action, message, category, module, lineno)
        filters = self.state.filters
        if not append:
            if entry in filters:
                filters.remove(entry)
            filters.insert(0, entry)
        elif entry not in filters:
            filters.append(entry)
        self.mutated()

    def reset(self) -> None:
        self.state.filters[:] = []
        self.mutated()

    def save(self) -> int:
        """catch_warnings.__enter__: keep the filters and the output; a token to restore."""
        state = self.state
        state.saved.append((list(state.filters), state.shown))
        state.filters = list(state.filters)
        self.mutated()
        return len(state.saved)

    def restore(self, token: int) -> None:
        state = self.state
        while len(state.saved) >= token and state.saved:
            filters, shown = state.saved.pop()
            state.filters, state.shown = filters, shown
        self.mutated()

    def record(self, recorder: Any) -> None:
        self.state.shown = Shown(recorder)

    def action_for(self, text: Any, category: str, module: str, lineno: int) -> str:
        for action, message, kind, mod, line in self.state.filters:
            if message is not None and not isinstance(text, str):  # re.match(pattern, text)
                from .objects import type_name

                raise TorchTypeError("expected string or bytes-like object, got "
                                     f"'{type_name(text)}'")
            if (message is None or pattern_matches(message, text)) and \
                    is_subclass(category, kind) and \
                    (mod is None or pattern_matches(mod, module)) and \
                    (line == 0 or line == lineno):
                return action
        return "default"

    # ---------------------------------------------------------------- a warning

    def emit(self, text: Any, category: str, lineno: int, module: str = "__main__",
             filename: str | None = None, line_text: str | None = None,
             where: int | None = None) -> None:
        """warnings.warn_explicit: filter, then show, record or raise. `where` is the line
        in torch's own file a warning comes from, when that is not the script's line (it
        is shown at the script's line, and filtered and remembered by torch's). `text` is
        what the script passed when that is neither a str nor a Warning: CPython keys its
        registry with it and matches the filters' patterns against it (TypeErrors), and
        shows `str()` of it."""
        if not isinstance(text, str):
            try:
                hash(text)
            except TypeError:
                from .objects import type_name

                raise TorchTypeError(f"unhashable type: '{type_name(text)}'") from None
        state = self.state
        if state.registry_version != state.version:
            state.registries.clear()
            state.registry_version = state.version
        registry = state.registries.setdefault(module, set())
        place = lineno if where is None else where
        key = (text, category, place)
        if key in registry:
            return
        action = self.action_for(text, category, module, place)
        if action == "ignore":
            return
        if action == "error":
            from ..engine.ops import creation

            creation.WARNINGS.clear()  # the op that warned stops here, as in torch
            raise ScriptError(str(text), kind=category)
        if action == "once":
            registry.add(key)
            if (text, category) in state.once:
                return
            state.once.add((text, category))
        elif action == "module":
            registry.add(key)
            if (text, category, 0) in registry:
                return
            registry.add((text, category, 0))
        elif action == "default":
            registry.add(key)
        self.show(str(text), category, lineno, filename, line_text)

    def show(self, text: str, category: str, lineno: int, filename: str | None,
             line_text: str | None) -> None:
        interp = self.interp
        source = interp.source
        if filename is None:
            filename = source.python_name
            if line_text is None and source.name != "<stdin>":
                line_text = source.line_text(lineno)
        recorder = self.state.shown.recorder
        if recorder is not None:
            message = ScriptError(text, kind=category)
            interp.call(recorder, [message, stdlib.ExceptionType(category), filename, lineno],
                        {}, None)
            return
        interp.stderr.write(visible(format_warning(text, category, filename, lineno,
                                                   line_text)))

    def emit_text(self, message: str, lineno: int, module: str = "__main__",
                  where: int | None = None) -> None:
        """A warning the engine or a library module raised as `Category: text`."""
        category, sep, text = message.partition(": ")
        if not sep or category not in WARNING_KINDS:
            category, text = "UserWarning", message
        self.emit(text, category, lineno, module, where=where)


def format_warning(text: str, category: str, filename: str, lineno: int,
                   line_text: str | None) -> str:
    """warnings.formatwarning: `file:line: Category: text`, then the source line."""
    out = f"{filename}:{lineno}: {category}: {text}\n"
    if line_text:
        line_text = line_text.strip()
        if line_text:
            out += f"  {line_text}\n"
    return out
