"""Python's "Did you mean: 'out'?" under an uncaught NameError or AttributeError: CPython 3.11's
Python/suggestions.c, which the interpreter's last-resort printer asks for a name close
to the missing one (a weighted Levenshtein distance, case flips cheaper) among the
failing frame's local variable names, then its module's globals, then the builtins. It
is part of the uncaught error's line only: `str(e)` and `print(e)` never show it.
"""
from __future__ import annotations

import builtins as py
import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_CANDIDATE_ITEMS = 750
MAX_STRING_SIZE = 40
MOVE_COST = 2
CASE_COST = 1
# a script run as `python file.py` starts with these globals, before its own names
MODULE_DUNDERS = ("__name__", "__doc__", "__package__", "__loader__", "__spec__",
                  "__annotations__", "__builtins__", "__file__", "__cached__")
BUILTIN_NAMES = tuple(py.__dict__)  # the builtins module's dict, in its order


def _substitution_cost(a: int, b: int) -> int:
    if (a & 31) != (b & 31):
        return MOVE_COST
    if a == b:
        return 0
    if 65 <= a <= 90:
        a += 32
    if 65 <= b <= 90:
        b += 32
    return CASE_COST if a == b else MOVE_COST


def _distance(a: bytes, b: bytes, max_cost: int) -> int:
    """levenshtein_distance of suggestions.c on the names' UTF-8 bytes."""
    if a == b:
        return 0
    if abs(len(a) - len(b)) * MOVE_COST > max_cost:  # (trimming keeps the difference)
        return max_cost + 1
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    end = 0
    while end < len(a) and end < len(b) and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    a, b = a[:len(a) - end], b[:len(b) - end]
    if not a or not b:
        return (len(a) + len(b)) * MOVE_COST
    if len(a) > MAX_STRING_SIZE or len(b) > MAX_STRING_SIZE:
        return max_cost + 1
    if len(b) < len(a):
        a, b = b, a
    if (len(b) - len(a)) * MOVE_COST > max_cost:
        return max_cost + 1
    row = [MOVE_COST * (i + 1) for i in range(len(a))]
    result = 0
    for b_index, code in enumerate(b):
        distance = result = b_index * MOVE_COST
        minimum = None
        for index, char in enumerate(a):
            substitute = distance + _substitution_cost(code, char)
            distance = row[index]
            result = min(min(result, distance) + MOVE_COST, substitute)
            row[index] = result
            if minimum is None or result < minimum:
                minimum = result
        if minimum is not None and minimum > max_cost:
            return max_cost + 1
    return result


def closest(name: str, candidates: list[str]) -> str | None:
    """calculate_suggestions: the first candidate at the smallest distance within a third
    of the characters involved, none past MAX_CANDIDATE_ITEMS candidates."""
    if len(candidates) >= MAX_CANDIDATE_ITEMS:
        return None
    wanted = name.encode("utf-8", "surrogatepass")
    best, best_distance = None, None
    for item in candidates:
        if type(item) is not str or item == name:
            continue
        encoded = item.encode("utf-8", "surrogatepass")
        limit = (len(wanted) + len(encoded) + 3) * MOVE_COST // 6
        if best_distance is not None:
            limit = min(limit, best_distance - 1)
        found = _distance(wanted, encoded, limit)
        if found > limit:
            continue
        if best is None or found < best_distance:
            best, best_distance = item, found
    return best


def name_error_suggestion(name: str, local_names: Iterable[str],
                          global_names: Iterable[str]) -> str | None:
    """offer_suggestions_for_name_error: the frame's locals, then globals, then builtins."""
    for candidates in (list(local_names), [*MODULE_DUNDERS, *global_names],
                       list(BUILTIN_NAMES)):
        found = closest(name, candidates)
        if found is not None:
            return found
    return None


# what every class's namespace adds to a plain Python class's dir() (`__dict__` and
# `__weakref__` descriptors, `__module__`, the docstring slot)
CLASS_NAMESPACE = ("__module__", "__dict__", "__weakref__", "__doc__")


def instance_dir(obj: Any) -> list[str]:
    """dir() of a script class's instance, as object.__dir__ makes it: its own attribute
    names and its classes' (object's included, and the builtin type or exception it
    derives from), sorted: what offer_suggestions_for_attribute_error searches."""
    names = {key for key in obj.attrs if type(key) is str}
    names.update(dir(object), CLASS_NAMESPACE)
    cls = obj.cls
    for klass in cls.mro:
        names.update(key for key in klass.attrs if type(key) is str)
    if cls.builtin is not None:
        names.update(dir(cls.builtin))
    return sorted(names)


@functools.cache
def _torch_dirs() -> dict[str, Any]:
    """What tests/tools/record_torch_dirs.py recorded from torch 2.13: dir() of a tensor,
    and each bundled torch class's own namespace keys."""
    return json.loads((Path(__file__).resolve().parents[1] / "torch_dirs.json").read_text())


def tensor_dir(own: Iterable[str]) -> list[str]:
    """dir() of a torch tensor (Tensor.__dir__): its class's names, as recorded, and the
    attributes a script set on it (`own`)."""
    return sorted([*_torch_dirs()["tensor"], *own])


def library_instance_dir(obj: Any, library_modules: Any) -> list[str] | None:
    """dir() of an instance whose class derives from bundled torch library code (an
    nn.Module, an optimizer): torch's own namespace keys stand for each library class
    (gradtrace's bundled classes hold helpers of their own), a script class's are its
    own; nn.Module's __dir__ then adds the instance's attributes, parameters, submodules
    and buffers and drops names starting with a digit (a Sequential's `0`). None where
    that __dir__ raises: a module whose __init__ never ran Module.__init__ has no
    `_parameters` (or `_modules`, `_buffers`) to read, and Python then suggests nothing."""
    recorded = _torch_dirs()["classes"]
    names = set(dir(object))
    module = False
    for klass in obj.cls.mro:
        if klass.module in library_modules:
            qualified = f"{klass.module}.{klass.qualname}"
            names.update(recorded.get(qualified, ()))
            module = module or qualified == "torch.nn.modules.module.Module"
        elif klass.interp is not None:  # (not `object`, whose names are in already)
            names.update(key for key in klass.attrs if type(key) is str)
            names.update(CLASS_NAMESPACE)
    own = [key for key in obj.attrs if type(key) is str]
    if not module:
        return sorted(names.union(own))
    keys = sorted(names) + own
    for table in ("_parameters", "_modules", "_buffers"):
        if table not in obj.attrs:
            return None
        held = obj.attrs.get(table)
        if type(held) is dict:
            keys += [key for key in held if type(key) is str]
    return sorted(key for key in keys if not key[:1].isdigit())
