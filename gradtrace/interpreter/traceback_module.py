"""`traceback` inside `except` blocks: `print_exc()`/`format_exc()` (and `print_exception`/
`format_exception` of the exception being handled) print what CPython 3.11 prints for the
script's frames: "Traceback (most recent call last):", one `File "...", line N, in name`
entry per script frame the exception left, with the source line and 3.11's `~~^~~`
markers under the failing expression, then the exception's last line.

With `chain` (Python's default), the exception's chain comes first: its `__cause__`
("The above exception was the direct cause...") or, unless suppressed, its `__context__`
("During handling of the above exception..."), as Python prints them. What gradtrace
knows differs from Python in two ways: the file is named as it was given on the command
line (Python prints the absolute path); frames of bundled library code (torch.nn,
torch.optim, ...) are left out, as torch's own Python files would be other files.
`format_stack`/`print_stack` give the current stack (interpreter.format_stack). An error
handled in the frame that raised it (an `except`, a `with`'s __exit__) keeps that frame
as its one entry (statements.pin_frame), for a chain printed later from elsewhere.

The frames are recorded as an error leaves a script function (calls.py): the function's
own name and where it was raised, then each caller's name and the call's span.
"""
from __future__ import annotations

import ast
import weakref
from typing import TYPE_CHECKING, Any

from .. import stdlib
from ..errors import GradtraceError, ScriptError, TorchTypeError, chained_before, error_view
from ..source import Span
from .objects import BuiltinFunction, Instance

if TYPE_CHECKING:
    from .core import Interpreter


MAX_FRAMES = 10_000


def record_frame(err: GradtraceError, stack: list[tuple[str, Span | None, bool]]) -> None:
    """An error leaves the function on top of `stack`: note that frame (the first time)
    and the caller's (its name, and the span of the call), unless they are library code."""
    frames = getattr(err, "frames", None)
    name, call_span, library = stack[-1]
    if frames is not None and len(frames) >= MAX_FRAMES:  # one error re-raised in a loop
        return
    if frames is None:
        frames = err.frames = []  # type: ignore[attr-defined]
        if not library:
            frames.append((name, err.span))
    caller, caller_library = ("<module>", False) if len(stack) < 2 else \
        (stack[-2][0], stack[-2][2])
    if not caller_library:
        frames.append((caller, call_span))


def _anchors(segment: str) -> tuple[int, int] | None:
    """traceback._extract_caret_anchors_from_line_segment (3.11): where the `^` go inside
    a binary operation (its operator) or a subscript (its brackets)."""
    try:
        tree = ast.parse(segment)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    expr = tree.body[0].value
    if isinstance(expr, ast.BinOp):
        operator_start = _character_offset(segment, expr.left.end_col_offset or 0)
        operator_end = _character_offset(segment, expr.right.col_offset)
        operator_str = segment[operator_start:operator_end]
        operator_offset = len(operator_str) - len(operator_str.lstrip())
        left_anchor = (expr.left.end_col_offset or 0) + operator_offset
        right_anchor = left_anchor + 1
        if operator_offset + 1 < len(operator_str) and \
                not operator_str[operator_offset + 1].isspace():
            right_anchor += 1
        while left_anchor < len(segment) and (segment[left_anchor].isspace()
                                              or segment[left_anchor] in ")#"):
            left_anchor += 1
            right_anchor += 1
        return _character_offset(segment, left_anchor), _character_offset(segment, right_anchor)
    if isinstance(expr, ast.Subscript):
        left_anchor = _character_offset(segment, expr.value.end_col_offset or 0)
        right_anchor = _character_offset(segment, (expr.slice.end_col_offset or 0) + 1)
        while left_anchor < len(segment) and (segment[left_anchor].isspace()
                                              or segment[left_anchor] != "["):
            left_anchor += 1
        while right_anchor < len(segment) and (segment[right_anchor].isspace()
                                               or segment[right_anchor] != "]"):
            right_anchor += 1
        if right_anchor < len(segment):
            right_anchor += 1
        return left_anchor, right_anchor
    return None


def _character_offset(text: str, offset: int) -> int:
    return len(text.encode("utf-8")[:offset].decode("utf-8", errors="replace"))


def _entry(interp: Interpreter, name: str, span: Span | None) -> str:
    """One frame as StackSummary.format_frame_summary prints it."""
    source = interp.source
    line = span.line if span is not None else 0
    row = f'  File "{source.python_name}", line {line}, in {name}\n'
    original = source.line_text(line) if span is not None else ""
    stripped = original.strip()
    if not stripped:
        return row
    row += f"    {stripped}\n"
    stripped_characters = len(original) - len(original.lstrip())
    start = span.column
    if span.end_line == span.line:
        end = span.end_column
        try:
            anchors = _anchors(original[start - 1:end - 1])
        except Exception:  # noqa: BLE001 - traceback.py suppresses any failure here
            anchors = None
    else:
        end = stripped_characters + len(stripped)
        anchors = None
    if end - start < len(stripped) or (anchors and anchors[1] - anchors[0] > 0):
        row += "    " + " " * (start - 1 - stripped_characters)
        if anchors:
            left, right = anchors
            row += "~" * left + "^" * (right - left) + "~" * (end - start - right)
        else:
            row += "^" * (end - start)
        row += "\n"
    return row


def _last_line(error: GradtraceError) -> str:
    """The exception's own line: a script class's instance as Python names it."""
    instance = getattr(error, "instance", None)
    if type(instance) is Instance and instance.cls.exception_kind is not None:
        from .exception_classes import exception_name

        name, text = exception_name(instance.cls), str(instance)
        return f"{name}: {text}" if text else name
    kind = error.printed_kind
    return f"{kind}: {error.message}" if error.message else kind


def format_error(interp: Interpreter, error: GradtraceError, chain: Any = True) -> list[str]:
    """traceback.format_exception of an error the script handles, as a list of strings:
    with `chain`, the exceptions of its chain first (its cause, else its context), each
    followed by the line that leads to the next, as Python prints them."""
    lines: list[str] = []
    if chain:
        for earlier, link in chained_before(error):
            lines += _format_one(interp, earlier)
            lines.append(link + "\n")
    return lines + _format_one(interp, error)


CLEARED: weakref.WeakSet = weakref.WeakSet()
"""Exceptions whose traceback was dropped (unittest's assertRaises keeps
`exc.with_traceback(None)`): they print as their last line only, as Python prints an
exception without a traceback."""


def _format_one(interp: Interpreter, error: GradtraceError) -> list[str]:
    if error_view(error) in CLEARED:
        return [_last_line(error) + "\n"]
    frames = list(getattr(error, "frames", None) or ())
    if not frames:  # raised in the frame that is handling it
        current = next((name for name, _, library in reversed(interp.call_stack)
                        if not library), "<module>")  # (not library code's handler)
        frames = [(current, error.span)]
    if len(frames) > 1 and frames[0][1] is None:  # a call refused as it began (the
        frames = frames[1:]  # recursion limit): Python's last entry is the calling line
    lines = ["Traceback (most recent call last):\n"]
    lines += _entries(interp, reversed(frames))
    lines.append(_last_line(error) + "\n")
    return lines


RECURSIVE_CUTOFF = 3  # traceback._RECURSIVE_CUTOFF


def _entries(interp: Interpreter, frames: Any) -> list[str]:
    """StackSummary.format: a frame repeating the one before it (same line, same function)
    more than 3 times in a row is shown 3 times, then "[Previous line repeated N more
    times]"."""
    result: list[str] = []
    last: Any = None
    count = 0

    def repeated() -> None:
        if count > RECURSIVE_CUTOFF:
            more = count - RECURSIVE_CUTOFF
            result.append(f"  [Previous line repeated {more} more "
                          f"time{'s' if more > 1 else ''}]\n")

    for name, span in frames:
        key = (name, span.line if span is not None else 0)
        if key != last:
            repeated()
            last, count = key, 0
        count += 1
        if count <= RECURSIVE_CUTOFF:
            result.append(_entry(interp, name, span))
    repeated()
    return result


def traceback_namespace(interp: Interpreter) -> stdlib.Namespace:
    import traceback

    def handled() -> Any:
        return interp.handling[-1] if interp.handling else None

    def write(text: str, file: Any) -> None:
        if file is None:
            interp.stderr_stream.write(text)
        else:
            interp.call(interp.get_attribute(file, "write", None), [text], {}, None)

    def format_exc(limit: Any = None, chain: Any = True) -> str:
        error = handled()
        if error is None:
            return "NoneType: None\n"
        return "".join(format_error(interp, error, chain))

    def print_exc(limit: Any = None, file: Any = None, chain: Any = True) -> None:
        write(format_exc(limit, chain), file)

    def format_exception(exc: Any, /, value: Any = None, tb: Any = None, limit: Any = None,
                         chain: Any = True) -> list[str]:
        return format_error(interp, _error_of(exc), chain)

    def print_exception(exc: Any, /, value: Any = None, tb: Any = None, limit: Any = None,
                        file: Any = None, chain: Any = True) -> None:
        write("".join(format_exception(exc, chain=chain)), file)

    def _error_of(exc: Any) -> Any:
        if isinstance(exc, ScriptError):
            return exc
        if type(exc) is Instance and exc.cls.exception_kind is not None:
            for error in reversed(interp.handling):
                if error.instance is exc:
                    return error
        raise TorchTypeError(f"'{type(exc).__name__}' object is not an exception")

    def format_stack(f: Any = None, limit: Any = None) -> list[str]:
        return interp.format_stack()

    def print_stack(f: Any = None, limit: Any = None, file: Any = None) -> None:
        write("".join(format_stack()), file)

    table = {"format_exc": format_exc, "print_exc": print_exc,
             "format_exception": format_exception, "print_exception": print_exception,
             "format_stack": format_stack, "print_stack": print_stack}
    return stdlib.Namespace("traceback", {name: BuiltinFunction(name, fn, getattr(traceback, name))
                                          for name, fn in table.items()})
