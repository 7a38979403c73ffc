"""Runs a parsed script: compiles each AST node once into a Python closure, then calls it.

Values are plain Python objects (int, float, str, list, tuple, dict, None) plus the
engine's Tensor, Node and DType. Attributes and methods come only from the explicit
tables in `stdlib`; errors carry the span of the expression that raised them.

Modules: `core` (the Interpreter: running, steps, warnings), `statements`, `targets` and
`expressions` (the compilers), `protocols`, `attributes` and `calls` (what values do at run
time), `builtins`, `operators`, `runtime` (limits, scopes, signals, script functions).
"""
from __future__ import annotations

from ..engine.tensor import SCRIPT_TYPE_NAME
from .core import Interpreter
from .objects import UserFunction, type_name
from .runtime import PYTHON_ERRORS, Frame, Limits

SCRIPT_TYPE_NAME[:] = [type_name]  # the engine's messages name types as the script sees them

__all__ = ["Interpreter", "Limits", "Frame", "UserFunction", "PYTHON_ERRORS"]
