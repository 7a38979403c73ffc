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
from ..engine.meta import MetaArray
from ..engine.node import Node
from ..engine.tensor import Tensor
from ..engine.tensor_str import THRESHOLD
from ..summary import Summary

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


def array_cell(array: np.ndarray | Summary | None, limit: int = CELL_LIMIT) -> str:
    """A numpy array's values as torch prints them, on one line: `[1., 2.]`, `12.`.

    A `Summary` of a large array gives the same text as the array itself.
    """
    if array is None:
        return "None"
    if isinstance(array, Summary) or type(array) is MetaArray:
        if type(array) is MetaArray or array.no_data:  # a meta tensor: torch prints `...`
            return "..."
        return summarise(_summary_line(array), limit)
    from ..engine.tensor_str import tensor_repr

    array = np.asarray(array)
    try:
        dtype = dtypes.from_numpy(array.dtype)
    except KeyError:  # not a torch dtype: plain numpy text
        return cut(" ".join(str(array).split()), limit)
    if array.ndim and 2 * limit + 2 < array.size <= THRESHOLD:
        return _long_cell(array, dtype, limit)
    text = tensor_repr(array, dtype)
    text = " ".join(part.strip() for part in text.splitlines())
    inner = _DTYPE_SUFFIX.sub("", text[len("tensor("):-1])
    return summarise(" ".join(inner.split()), limit)


def _long_cell(array: np.ndarray, dtype: dtypes.DType, limit: int) -> str:
    """`summarise(one-line tensor_repr text, limit)` of an array too long for the cell,
    formatting only the values from both ends that `summarise` can keep.

    The one-line text is the values as torch formats them (the format is decided from
    all of them), separated by ", ", each with the brackets of the dimensions it opens
    or closes; runs of spaces are one space, and none follows a ", ".
    """
    from ..engine.tensor_str import value_formatter

    fmt, _ = value_formatter(array, dtype)
    n = array.size
    flat = array.reshape(-1)
    shape = array.shape
    want = limit // 3 + 3  # more than summarise can keep from one end

    # the value at flat index k opens the dimensions, innermost first, whose index and
    # every inner one are 0: those d where k is a multiple of prod(shape[d:]); it closes
    # those where k + 1 is
    blocks = []
    block = 1
    for size in reversed(shape):
        block *= size
        blocks.append(block)

    def item(k: int, v: Any) -> str:
        """The text of the value `v` at flat index `k`, with its brackets."""
        opens = closes = 0
        for block in blocks:
            if k % block:
                break
            opens += 1
        for block in blocks:
            if (k + 1) % block:
                break
            closes += 1
        text = fmt(v)
        if opens:
            text = "[" * opens + (" " + text.lstrip() if text[:1] == " " else text)
        else:
            text = text.lstrip()
        return text + "]" * closes

    # summarise's loop, formatting each end's values as it reaches them (a cell keeps a
    # few of the `want` values from each end); the two ends never meet (n > 2 * want)
    front = flat[:want].tolist()
    back = flat[n - want:].tolist()
    head: list[str] = []
    tail: list[str] = []
    size = len(", …, ")
    while True:
        if len(head) <= len(tail):
            side, text = head, item(len(head), front[len(head)])
        else:
            side, text = tail, item(n - 1 - len(tail), back[-1 - len(tail)])
        cost = len(text) + (2 if side else 0)
        if size + cost > limit:
            break
        size += cost
        side.append(text)
    if not head or not tail:  # a single value is too wide: cut the text
        return cut(", ".join(item(k, v) for k, v in enumerate(front)), limit)
    return ", ".join(head) + ", …, " + ", ".join(reversed(tail))


def _summary_line(summary: Summary) -> str:
    """The one-line text `tensor_repr` gives a large array, from its summary's corners.

    torch summarises every tensor of more than 1000 elements, and only the corner values
    it shows decide the number format, so the corners are all it needs.
    """
    from ..engine.tensor_str import EDGEITEMS, nested_str, value_formatter

    corners = summary.corners
    try:
        dtype = dtypes.from_numpy(summary.dtype)
    except KeyError:
        dtype = None
    if corners is None or dtype is None or summary.size <= THRESHOLD:
        head = ", ".join(str(v) for v in summary.head.tolist())
        return f"[{head}, ...]"
    flags = [n > 2 * EDGEITEMS for n in summary.shape]
    fmt, width = value_formatter(corners, dtype)
    body = nested_str(corners.tolist(), corners.ndim, len("tensor("), flags, fmt, width)
    return " ".join(body.split())


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
