"""Short, single-line text for values shown in table cells and graph labels.

Tensors are written the way torch prints their values (`tensor_repr`, which already
summarises past 1000 elements), on one line, without the `tensor(...)` wrapper or the
dtype suffix, and cut with an ellipsis past `limit` characters, so a large tensor never
floods a table.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..engine import dtypes
from ..engine.node import Node
from ..engine.tensor import Tensor

CELL_LIMIT = 60
_DTYPE_SUFFIX = re.compile(r",\s*dtype=torch\.\w+$")


def cut(text: str, limit: int = CELL_LIMIT) -> str:
    """`text` on at most `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


def summarise(text: str, limit: int = CELL_LIMIT) -> str:
    """Shorten one-line tensor text to `limit` by keeping whole values from both ends:
    `[0.0000e+00, 1.0000e+00, …, 1.9990e+03]`."""
    if len(text) <= limit:
        return text
    items = [item for item in text.split(", ") if item.strip() != "..."]
    if len(items) < 3:
        return cut(text, limit)
    head: list[str] = []
    tail: list[str] = []
    size = len(", …, ")
    i, j = 0, len(items) - 1
    while i <= j:
        side, index = (head, i) if len(head) <= len(tail) else (tail, j)
        cost = len(items[index]) + (2 if side else 0)
        if size + cost > limit:
            break
        size += cost
        if side is head:
            head.append(items[i])
            i += 1
        else:
            tail.insert(0, items[j])
            j -= 1
    if not head or not tail:
        return cut(text, limit)
    return ", ".join(head) + ", …, " + ", ".join(tail)


def array_cell(array: np.ndarray | None, limit: int = CELL_LIMIT) -> str:
    """A numpy array's values as torch prints them, on one line: `[1., 2.]`, `12.`."""
    if array is None:
        return "None"
    from ..engine.tensor_str import tensor_repr

    array = np.asarray(array)
    try:
        dtype = dtypes.from_numpy(array.dtype)
    except KeyError:  # not a torch dtype: plain numpy text
        return cut(" ".join(str(array).split()), limit)
    text = tensor_repr(array, dtype)
    text = " ".join(part.strip() for part in text.splitlines())
    inner = _DTYPE_SUFFIX.sub("", text[len("tensor("):-1])
    return summarise(" ".join(inner.split()), limit)


def tensor_cell(t: Tensor | None, limit: int = CELL_LIMIT) -> str:
    """A tensor's values on one line, without suffixes; long ones are cut with an ellipsis."""
    if t is None:
        return "None"
    return array_cell(t.array, limit)


def short_node_name(name: str) -> str:
    """`torch::autograd::AccumulateGrad` -> `AccumulateGrad`; other names unchanged."""
    return name.replace("torch::autograd::", "")


def node_cell(node: Node | None) -> str:
    if node is None:
        return "None"
    return short_node_name(node.name())


def shape_cell(shape: tuple[int, ...]) -> str:
    """`[2, 3]`, `[]` for a scalar (torch.Size without the wrapper)."""
    return "[" + ", ".join(str(int(n)) for n in shape) + "]"


def attr_cell(value: Any, limit: int = 30) -> str:
    """A saved non-tensor attribute (dim, alpha, sizes, ...) as Python would write it."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, tuple):
        value = tuple(v.item() if isinstance(v, np.generic) else v for v in value)
    return cut(repr(value), limit)


def value_cell(value: Any, limit: int = CELL_LIMIT) -> str:
    if isinstance(value, Tensor):
        return tensor_cell(value, limit)
    if isinstance(value, Node):
        return node_cell(value)
    return cut(repr(value), limit)
