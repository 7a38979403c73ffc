"""Global grad mode: whether ops record nodes (`torch.no_grad`, `enable_grad`, ...)."""
from __future__ import annotations

from .events import OBSERVERS, emit


class _GradMode:
    __slots__ = ("enabled",)

    def __init__(self) -> None:
        self.enabled = True


GRAD_MODE = _GradMode()


def _set(mode: bool, function: str | None = None) -> None:
    if OBSERVERS and GRAD_MODE.enabled != mode:
        emit("grad_mode", enabled=mode, function=function)
    GRAD_MODE.enabled = mode


def is_grad_enabled() -> bool:
    return GRAD_MODE.enabled


class set_grad_enabled:  # noqa: N801 - torch's name
    """Sets grad mode on construction (like torch) and restores the previous mode on exit."""

    __slots__ = ("prev",)

    def __init__(self, mode: bool) -> None:
        self.prev = GRAD_MODE.enabled
        _set(bool(mode))

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        _set(self.prev)


class no_grad:  # noqa: N801 - torch's name
    """Context manager that turns recording off; nests and restores like torch."""

    __slots__ = ("prev",)
    mode = False

    def __enter__(self) -> None:
        self.prev = GRAD_MODE.enabled
        _set(self.mode)

    def __exit__(self, *exc: object) -> None:
        _set(self.prev)


class enable_grad(no_grad):  # noqa: N801 - torch's name
    __slots__ = ()
    mode = True


class function_forward:  # noqa: N801 - used like a function
    """Grad mode off while a custom Function's forward runs (`F.apply` does that): the
    trace learns which Function turned it off."""

    __slots__ = ("prev", "name")

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        self.prev = GRAD_MODE.enabled
        _set(False, self.name)

    def __exit__(self, *exc: object) -> None:
        _set(self.prev, self.name)
