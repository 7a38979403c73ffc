"""Short, single-line text for values shown in table cells."""
from __future__ import annotations

from typing import Any

from ..engine.node import Node
from ..engine.tensor import Tensor

CELL_LIMIT = 60


def tensor_cell(t: Tensor | None, limit: int = CELL_LIMIT) -> str:
    """A tensor's values on one line, without suffixes; long ones are cut with an ellipsis."""
    if t is None:
        return "None"
    from ..engine.tensor_str import tensor_repr

    text = tensor_repr(t.array, t.dtype)
    text = " ".join(part.strip() for part in text.splitlines())
    inner = text[len("tensor("):-1]
    if len(inner) > limit:
        inner = inner[: limit - 1] + "…"
    return inner


def node_cell(node: Node | None) -> str:
    if node is None:
        return "None"
    return node.name().replace("torch::autograd::", "")


def value_cell(value: Any, limit: int = CELL_LIMIT) -> str:
    if isinstance(value, Tensor):
        return tensor_cell(value, limit)
    if isinstance(value, Node):
        return node_cell(value)
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
