"""Global grad mode: whether ops record nodes (`torch.no_grad`, `enable_grad`,
`set_grad_enabled`, `inference_mode`)."""
from __future__ import annotations

from .events import OBSERVERS, emit


class _GradMode:
    __slots__ = ("enabled", "inference")

    def __init__(self) -> None:
        self.enabled = True
        self.inference = False  # inside torch.inference_mode()


GRAD_MODE = _GradMode()


def _set(mode: bool, function: str | None = None, inference: bool = False) -> None:
    if OBSERVERS and GRAD_MODE.enabled != mode:
        if inference:  # inference_mode switched it: tensors made meanwhile are inference ones
            emit("grad_mode", enabled=mode, function=function, inference=True)
        else:
            emit("grad_mode", enabled=mode, function=function)
    GRAD_MODE.enabled = mode


def is_grad_enabled() -> bool:
    return GRAD_MODE.enabled


def is_inference_mode_enabled() -> bool:
    return GRAD_MODE.inference


# the module torch defines these classes in: their repr, their instances' and __module__
TORCH_MODULE = "torch.autograd.grad_mode"


class set_grad_enabled:  # noqa: N801 - torch's name
    """Sets grad mode on construction (like torch) and restores the previous mode on exit."""

    __slots__ = ("prev", "mode")
    __module__ = TORCH_MODULE

    def __init__(self, mode: bool) -> None:
        self.prev = GRAD_MODE.enabled
        self.mode = bool(mode)
        _set(self.mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        _set(self.prev)

    def clone(self) -> set_grad_enabled:
        """A fresh manager for the same mode (a decorator makes one per call)."""
        return set_grad_enabled(self.mode)

    def release(self) -> None:
        """Used as a decorator: torch restores the mode its construction set."""
        _set(self.prev)

    def __repr__(self) -> str:
        return f"{TORCH_MODULE}.set_grad_enabled(mode={self.mode})"


class _GradSwitch:
    """A context manager that sets grad mode to its class's `mode` and restores it on exit,
    nesting like torch's (no_grad and enable_grad, neither a subclass of the other)."""

    __slots__ = ("prev",)
    mode: bool

    def __enter__(self) -> None:
        self.prev = GRAD_MODE.enabled
        _set(self.mode)

    def __exit__(self, *exc: object) -> None:
        _set(self.prev)

    def clone(self) -> _GradSwitch:
        return type(self)()

    def release(self) -> None:
        return None


class no_grad(_GradSwitch):  # noqa: N801 - torch's name
    """Turns recording off."""

    __slots__ = ()
    __module__ = TORCH_MODULE
    mode = False


class enable_grad(_GradSwitch):  # noqa: N801 - torch's name
    """Turns recording on."""

    __slots__ = ()
    __module__ = TORCH_MODULE
    mode = True


class inference_mode:  # noqa: N801 - torch's name
    """`torch.inference_mode(mode=True)`: grad mode off and `is_inference_mode_enabled()`;
    `inference_mode(False)` turns both the other way (grad mode on), as torch's c10
    InferenceMode guard does. Tensors made inside are inference tensors (engine/tensor.py)."""

    __slots__ = ("enabled", "prev", "prev_inference")
    __module__ = TORCH_MODULE

    def __init__(self, mode: bool = True) -> None:
        self.enabled = bool(mode)

    def __enter__(self) -> None:
        self.prev, self.prev_inference = GRAD_MODE.enabled, GRAD_MODE.inference
        _set(not self.enabled, inference=self.enabled)
        GRAD_MODE.inference = self.enabled

    def __exit__(self, *exc: object) -> None:
        _set(self.prev, inference=self.enabled)
        GRAD_MODE.inference = self.prev_inference

    def clone(self) -> inference_mode:
        return inference_mode(self.enabled)

    def release(self) -> None:
        return None


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
