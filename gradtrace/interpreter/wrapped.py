"""Python objects scripts hold behind fixed tables (`re.Match`, `pathlib.Path`, ...).

Each kind registers its readable attributes (getters) and its methods here; attributes.py
answers an attribute of such an object from its tables only, so the wrapper's own fields
(the Python object inside, the interpreter) are never reachable.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

Getters = dict[str, Callable[[Any], Any]]
Methods = dict[str, Callable[..., Any]]

OBJECT_TABLES: dict[type, tuple[Getters, Methods]] = {}
REFUSED: dict[type, dict[str, str]] = {}
"""Attributes Python has that gradtrace refuses, with why (`Path.open`)."""


def register(kind: type, getters: Getters, methods: Methods,
             refused: dict[str, str] | None = None) -> None:
    OBJECT_TABLES[kind] = (getters, methods)
    if refused:
        REFUSED[kind] = refused
