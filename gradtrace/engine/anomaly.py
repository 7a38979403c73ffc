"""Anomaly detection: `torch.autograd.set_detect_anomaly` / `detect_anomaly` (torch's
anomaly_mode.py, python_anomaly_mode.cpp and the engine's checks).

While the mode is on, every node created keeps the traceback of the forward call that
made it (`grad_fn.metadata["traceback_"]`), and a node made while another node's
backward runs remembers that node as its parent (`"parent_"`). When evaluating a node
raises, the engine warns "Error detected in <node>" with those tracebacks; with
`check_nan`, a node whose gradients contain nan raises.

The traceback is the script's own call stack (gradtrace runs no Python frames of
torch's): the interpreter installs `STACK`, which formats it the way Python's
`traceback.format_stack` does, innermost call last.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import TorchRuntimeError

if TYPE_CHECKING:
    from .node import Node
    from .tensor import Tensor

ENABLED_WARNING = ("UserWarning: Anomaly Detection has been enabled. This mode will increase "
                   "the runtime and should only be enabled for debugging.")
TRACE_KEY = "traceback_"
PARENT_KEY = "parent_"
TRIGGERED = (" (Triggered internally at "
             "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)")
TRIGGERED_PARENT = TRIGGERED.replace(":122.", ":129.")


class _AnomalyMode:
    __slots__ = ("enabled", "check_nan", "evaluating")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True
        self.evaluating: Node | None = None  # the node whose backward runs (a new node's parent)


ANOMALY = _AnomalyMode()

# Formats the script's call stack (list of `  File "...", line N, in f\n    text\n`).
STACK: Callable[[], list[str]] | None = None

# grad_fn.metadata: a dict per node, made on first use (torch's PyAnomalyMetadata dict)
_METADATA: weakref.WeakKeyDictionary[Node, dict[str, Any]] = weakref.WeakKeyDictionary()


def is_anomaly_enabled() -> bool:
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return ANOMALY.check_nan


def set_anomaly_enabled(mode: bool, check_nan: bool = True) -> None:
    """torch.set_anomaly_enabled."""
    ANOMALY.enabled = bool(mode)
    ANOMALY.check_nan = bool(check_nan)


class set_detect_anomaly:  # noqa: N801 - torch's name
    """Sets the mode on construction; as a context manager, restores it on exit."""

    __slots__ = ("prev", "prev_check_nan")
    __module__ = "torch.autograd.anomaly_mode"  # torch's: its repr and its instances'

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.prev_check_nan = ANOMALY.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class detect_anomaly:  # noqa: N801 - torch's name
    """Warns on construction (like torch), turns the mode on for the `with` block."""

    __slots__ = ("prev", "prev_check_nan", "check_nan")
    __module__ = "torch.autograd.anomaly_mode"

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.check_nan = check_nan
        self.prev_check_nan = ANOMALY.check_nan
        _warn(ENABLED_WARNING)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def metadata(node: Node) -> dict[str, Any]:
    """`grad_fn.metadata`: the same dict on every access."""
    meta = _METADATA.get(node)
    if meta is None:
        meta = _METADATA[node] = {}
    return meta


def record(node: Node) -> None:
    """A node was created while the mode is on: keep the forward traceback (and parent)."""
    meta = metadata(node)
    meta[TRACE_KEY] = STACK() if STACK is not None else []
    if ANOMALY.evaluating is not None:
        meta[PARENT_KEY] = ANOMALY.evaluating


def _format(meta: dict[str, Any] | None, name: str, is_parent: bool) -> str:
    stack = None if meta is None else meta.get(TRACE_KEY)
    if stack is None:
        return (f"Error detected in {name}. No forward pass information available. Enable "
                "detect anomaly during forward pass for more information.")
    # (a script can put anything in grad_fn.metadata: torch would fail to join it)
    text = "".join(map(str, stack)) if isinstance(stack, (list, tuple)) else str(stack)
    if is_parent:
        return (f"Previous calculation was induced by {name}. Traceback of forward call that "
                f"induced the previous calculation:\n{text}")
    return f"Error detected in {name}. Traceback of forward call that caused the error:\n{text}"


def warn_error(node: Node) -> None:
    """Evaluating `node` raised: torch's warnings with the forward traceback of the node,
    then one for each node whose backward made it (its parents)."""
    from .node import Node

    meta = _METADATA.get(node)
    _warn("UserWarning: " + _format(meta, node.name(), False) + TRIGGERED)
    parent = None if meta is None else meta.get(PARENT_KEY)
    seen = {id(node)}
    while isinstance(parent, Node) and id(parent) not in seen:
        seen.add(id(parent))
        parent_meta = _METADATA.get(parent)
        _warn("UserWarning: \n\n" + _format(parent_meta, parent.name(), True)
              + TRIGGERED_PARENT)
        parent = None if parent_meta is None else parent_meta.get(PARENT_KEY)


def check_nan(node: Node, grads: Any) -> None:
    """check_nan: a node's gradients must not contain nan."""
    for i, g in enumerate(grads):
        if g is not None and _has_nan(g):
            raise TorchRuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output.")


def _has_nan(t: Tensor) -> bool:
    array = t.array
    return array.dtype.kind in "fc" and bool(np.isnan(array).any())


def _warn(message: str) -> None:
    from .ops.creation import WARNINGS  # (ops import the node module, which imports this one)

    WARNINGS.append(message)


def reset() -> None:
    """A new run starts with the mode off (like a new process)."""
    set_anomaly_enabled(False, True)
    ANOMALY.evaluating = None
