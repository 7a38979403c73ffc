"""Numbers and values in `explain`, in the one format every view uses.

Tensor values are written as torch prints them and as the report's tables show them
(`values.array_cell`: 4 decimals, torch's scientific-notation rules, one line), so the
story, the tables and the script's own `print` agree digit for digit. A tensor of more
than `MAX_ELEMENTS` values is shown by its corner values and its shape, not flattened.
Python numbers (saved attributes such as `alpha`, a number in `x * 0.001`) are written
as Python prints them. Facts for JSON stay plain numbers (`jsonable`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...summary import Summary
from ..values import array_cell

MAX_ELEMENTS = 8  # values with more elements get their shape after their corner values
VALUE_LIMIT = 48  # characters of one value's text


def signed(d: Any) -> int:
    """torch shows dims saved as unsigned 64-bit ints; -1 comes back as 2**64 - 1."""
    d = int(d)
    return d - (1 << 64) if d >= 1 << 63 else d


def fmt_number(x: Any) -> str:
    """A Python number as Python prints it: 3, 0.001, 1e-05, True (numpy scalars too)."""
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(signed(x))
    if isinstance(x, float):
        return repr(x)
    return str(x)


def fmt_attr(value: Any) -> str:
    """A saved attribute (alpha, dim, sizes, ...) as Python would write it."""
    if isinstance(value, (tuple, list)):
        items = [fmt_attr(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, (bool, int, float, np.generic)):
        return fmt_number(value)
    if value is None:
        return "None"
    return repr(value) if isinstance(value, str) else str(value)


def fmt_shape(shape: Any) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def fmt_value(value: Any) -> str:
    """A tensor's values as torch prints them, on one line; a large one by its corner
    values and shape: `[[0.0157, 0.0103, …, 0.0049]] (shape [100, 100])`."""
    if value is None:
        return "None"
    if isinstance(value, (bool, int, float)):
        return fmt_number(value)
    if isinstance(value, Summary):
        return f"{array_cell(value, VALUE_LIMIT)} (shape {fmt_shape(value.shape)})"
    a = np.asarray(value)
    text = array_cell(a, VALUE_LIMIT)
    if a.size > MAX_ELEMENTS:
        text += f" (shape {fmt_shape(a.shape)})"
    return text


def uniform_text(value: Any) -> str:
    """A value whose elements are all equal is shown as one number."""
    if isinstance(value, Summary):
        if value.uniform:
            return array_cell(np.asarray(value.head[0]))
        return fmt_value(value)
    a = np.asarray(value)
    if a.ndim and a.size and np.all(a == a.reshape(-1)[0]):
        return array_cell(a.reshape(-1)[0:1].reshape(()))
    return fmt_value(a)


def is_uniform(value: Any) -> bool:
    """All elements equal (a summary knows it)."""
    if isinstance(value, Summary):
        return bool(value.uniform)
    a = np.asarray(value)
    return bool(a.size == 0 or np.all(a == a.reshape(-1)[0]))


def jsonable(value: Any) -> Any:
    """Facts as strict JSON: arrays become (nested) lists, non-finite floats strings, complex
    numbers {"real", "imag"}."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
        if kind in "biu" or (kind == "f" and bool(np.isfinite(value).all())):
            return value.tolist()  # already plain bools, ints and finite floats
        return jsonable(value.tolist())
    if isinstance(value, Summary):  # a large array: what the trace kept of it
        summary: dict[str, Any] = {"first": jsonable(value.head)}
        if value.corners is not None:
            summary["corners"] = jsonable(value.corners)
        if value.uniform is not None:
            summary["all_equal"] = value.uniform
        return {"shape": list(value.shape), "dtype": str(value.dtype), "summary": summary}
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        if np.isfinite(v):
            return v
        return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(value, (np.complexfloating, complex)):  # a complex tensor's element
        return {"real": jsonable(value.real), "imag": jsonable(value.imag)}
    return value


def total(parts: list[Any]) -> Any:
    """The sum of gradients in float64 (complex128 for complex ones); of summaries, the sum
    of what they kept."""
    if not any(isinstance(p, Summary) for p in parts):
        wide = np.complex128 if any(np.iscomplexobj(p) for p in parts) else np.float64
        return sum(np.asarray(p, dtype=wide) for p in parts)
    if len({tuple(p.shape) for p in parts}) != 1 or not all(
            isinstance(p, Summary) for p in parts):
        return None
    head = sum(p.head.astype(np.float64) for p in parts)
    corners = None if any(p.corners is None for p in parts) else sum(
        p.corners.astype(np.float64) for p in parts)
    return Summary(parts[0].shape, np.dtype(np.float64), head, corners, None)


def close(a: Any, b: Any) -> bool:
    """np.allclose for gradients of the same shape; summaries compare what they kept."""
    if tuple(np.shape(a) if not isinstance(a, Summary) else a.shape) != tuple(
            np.shape(b) if not isinstance(b, Summary) else b.shape):
        return False
    if isinstance(a, Summary) or isinstance(b, Summary):
        a = a if isinstance(a, Summary) else Summary.of(np.asarray(a))
        b = b if isinstance(b, Summary) else Summary.of(np.asarray(b))
        if not np.allclose(a.head, b.head, rtol=1e-5, atol=1e-6):
            return False
        return a.corners is None or b.corners is None or bool(
            np.allclose(a.corners, b.corners, rtol=1e-5, atol=1e-6))
    return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6))


def as_dtype(value: Any, dtype: Any) -> Any:
    if isinstance(value, Summary):
        return Summary(value.shape, dtype, value.head.astype(dtype),
                       None if value.corners is None else value.corners.astype(dtype),
                       value.uniform)
    return value.astype(dtype)
