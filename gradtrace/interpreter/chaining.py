"""Exception chaining as Python 3.11 does it: `raise X from Y` sets X's `__cause__` (and
`__suppress_context__`), `from None` only suppresses; an exception raised while another is
being handled (in an `except` block, or a `finally` block an exception is passing through)
gets that one as its `__context__` (the innermost handled, unless it is the exception
itself; a cycle through the contexts is cut as _PyErr_SetObject cuts it). The script reads
the three attributes; an uncaught error prints its chain first (errors.chained_before).
"""
from __future__ import annotations

from typing import Any

from ..errors import ExceptionChain, ScriptError, error_view, exception_chain

CHAIN_NAMES = frozenset({"__cause__", "__context__", "__suppress_context__"})
MAX_CYCLE_WALK = 1_000  # contexts followed looking for a cycle (Python follows them all)


def chain_for(err: ScriptError) -> ExceptionChain:
    view = error_view(err)
    chain = getattr(view, "chain", None)
    if chain is None:
        chain = view.chain = ExceptionChain()
    return chain


def set_context(new: ScriptError, handled: ScriptError) -> None:
    """`new` is raised while `handled` is being handled (_PyErr_SetObject)."""
    if error_view(new) is error_view(handled):
        return
    current = handled
    for _ in range(MAX_CYCLE_WALK):
        chain = exception_chain(current)
        if chain is None or chain.context is None:
            break
        if error_view(chain.context) is error_view(new):
            chain.context = None  # break the cycle
            break
        current = chain.context
    chain_for(new).context = handled


def note_context(new: ScriptError, handled: ScriptError) -> None:
    """An error leaving an `except` (or `finally`) block: the exception being handled is
    its context, unless its raise already gave it one."""
    chain = exception_chain(new)
    if chain is None or chain.context is None:
        set_context(new, handled)


def set_cause(err: ScriptError, cause: ScriptError | None) -> None:
    """`raise err from cause` (None: `from None`)."""
    chain = chain_for(err)
    chain.cause = cause
    chain.suppress_context = True


def chain_attribute(view: Any, name: str) -> Any:
    """`e.__cause__`, `e.__context__`, `e.__suppress_context__` of an exception."""
    chain = getattr(view, "chain", None)
    if name == "__suppress_context__":
        return chain is not None and chain.suppress_context
    linked = None if chain is None else chain.cause if name == "__cause__" else chain.context
    return None if linked is None else error_view(linked)


def set_chain_attribute(view: Any, name: str, value: Any) -> None:
    """`e.__cause__ = x` (which also sets `__suppress_context__`, as BaseException's
    setter does), `e.__context__ = x`, `e.__suppress_context__ = flag`, with Python's
    TypeErrors; `x` is None or an exception instance (`linked`, from the caller)."""
    from ..errors import TorchTypeError

    chain = chain_for(view)
    if name == "__suppress_context__":
        if type(value) is not bool:
            raise TorchTypeError("attribute value type must be bool")
        chain.suppress_context = value
        return
    if value is not None and not isinstance(value, ScriptError):
        what = "cause" if name == "__cause__" else "context"
        raise TorchTypeError(f"exception {what} must be None or derive from BaseException")
    if name == "__cause__":
        chain.cause = value
        chain.suppress_context = True
    else:
        chain.context = value
