"""torch.autograd.profiler.record_function (also torch.profiler.record_function): a label
for a block or function that torch's profiler records; with no profiler running (and
gradtrace has none) entering and leaving it change nothing, as in torch."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


class record_function:  # noqa: N801 - torch's name
    """A context manager and, as contextlib.ContextDecorator, a decorator."""

    __module__ = "torch.autograd.profiler"

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True

    def __enter__(self) -> record_function:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def release(self) -> None:
        """(A decorating manager's hook before it decorates: nothing to undo.)"""

    def clone(self) -> record_function:
        """The manager each call of a function it decorates runs in."""
        return record_function(self.name, self.args)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return inner
