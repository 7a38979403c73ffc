"""unittest's reach into the script for lib/unittest.gt: the classes of the script's own
module (what `loadTestsFromModule(__main__)` finds through `dir(module)`), the attribute
names of a script class and its bases (what `getTestCaseNames` reads through
`dir(cls)`), difflib's ndiff over lists of strings (assertEqual's diffs), and the
dropping of a caught exception's traceback (assertRaises' `with_traceback(None)`). Each gives
plain values: names, the script's own classes, strings."""
from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from ..errors import LimitExceeded, NotSupportedError, ScriptError
from .library import intrinsic
from .objects import ScriptClass, type_name

if TYPE_CHECKING:
    from .core import Interpreter

MAX_DIFF_LINES = 2_000
"""ndiff compares every line with every other: longer inputs are refused (LimitExceeded)."""


@intrinsic
def module_classes(interp: Interpreter) -> list[tuple[str, Any]]:
    """(name, class) for each class the script's module binds, sorted by name (dir())."""
    found = [(name, value) for name, value in interp.globals.vars.items()
             if isinstance(name, str) and type(value) is ScriptClass]
    return sorted(found, key=lambda item: item[0])


@intrinsic
def class_names(interp: Interpreter, cls: Any) -> list[str]:
    """dir(cls) of a script class: the attribute names of it and its bases, sorted."""
    if type(cls) is not ScriptClass:
        raise NotSupportedError(f"class_names of a {type_name(cls)}")
    names = {name for klass in cls.mro for name in klass.attrs if isinstance(name, str)}
    return sorted(names)


@intrinsic
def drop_traceback(interp: Interpreter, exc: Any) -> Any:
    """`exc.with_traceback(None)` for an exception the script raised (the value a `with`
    block's __exit__ receives): it prints as its last line only, as in Python."""
    from .objects import Instance
    from .traceback_module import CLEARED

    if isinstance(exc, ScriptError) or type(exc) is Instance and \
            exc.cls.exception_kind is not None:
        CLEARED.add(exc)
    return exc


@intrinsic
def ndiff(interp: Interpreter, a: Any, b: Any) -> list[str]:
    """difflib.ndiff(a, b) of two lists of strings, as a list."""
    if type(a) is not list or type(b) is not list or \
            not all(type(s) is str for s in (*a, *b)):
        raise NotSupportedError("ndiff() takes two lists of strings")
    if len(a) + len(b) > MAX_DIFF_LINES or \
            sum(map(len, a)) + sum(map(len, b)) > 100 * MAX_DIFF_LINES:
        raise LimitExceeded(f"a unittest diff of more than {MAX_DIFF_LINES} lines "
                         "(or 200,000 characters) is beyond gradtrace's limits")
    return list(difflib.ndiff(a, b))
