"""torch's functions as a script sees them: `torch.add` is a `builtin_function_or_method`
printed `<built-in method add of type object at 0x...>`, `F.linear` a C function
(`<built-in function linear>`), `F.relu` a Python function (`<function relu at 0x...>`),
each with torch's `__name__`, `__qualname__` and `__module__` (recorded from torch 2.13 by
tests/tools/record_torch_functions.py into gradtrace/torch_functions.json).

The namespaces keep the engine's own functions (the call path, the argument parsers and the
tracer key on them); a script reading one gets its `TorchFunction`, one per function and
presentation, and a call unwraps it first. Nothing of the engine function is reachable.
"""
from __future__ import annotations

import functools
import json
import pathlib
from typing import Any


class TorchFunction:
    """A torch function as a value: calling it calls the engine function `fn`; it prints
    and names itself as torch's does (`kind` is how torch's repr starts: "builtin method",
    "builtin function" or "function")."""

    __slots__ = ("fn", "kind", "name", "module", "qualname")

    def __init__(self, fn: Any, kind: str, name: str, module: str | None, qualname: str):
        self.fn = fn
        self.kind = kind
        self.name = name
        self.module = module
        self.qualname = qualname

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        if self.kind == "builtin method":  # (all of torch's share one type object)
            return f"<built-in method {self.name} of type object at {id(_TYPE_OBJECT):#x}>"
        if self.kind == "builtin function":
            return f"<built-in function {self.name}>"
        return f"<function {self.qualname} at {id(self):#x}>"

    def type_name(self) -> str:
        """The name of the script's `type(f)`."""
        return "function" if self.kind == "function" else "builtin_function_or_method"


class _TypeObject:
    """Stands for torch's `_VariableFunctionsClass`, whose address torch's builtin methods
    print."""

    __slots__ = ()


_TYPE_OBJECT = _TypeObject()
FUNCTION_ATTRIBUTES = frozenset(("__name__", "__qualname__", "__module__"))


@functools.cache
def _recorded_file() -> dict[str, Any]:
    path = pathlib.Path(__file__).resolve().parents[1] / "torch_functions.json"
    return json.loads(path.read_text())


def _recorded() -> dict[str, dict[str, list[Any]]]:
    return _recorded_file()["functions"]


_MADE: dict[tuple[int, tuple[Any, ...]], TorchFunction] = {}


def tensor_python_method(name: str) -> tuple[str, str, str] | None:
    """torch's (__name__, __qualname__, __module__) of the Tensor method `name` if torch
    writes it in Python (torch/_tensor.py: `backward`, `register_hook`, `split`, ...)."""
    entry = _recorded_file()["tensor_methods"].get(name)
    return None if entry is None else (entry[0], entry[1], entry[2])


def script_value(module: str, name: str, value: Any) -> Any:
    """What a script reading `module.name` gets: the TorchFunction of an engine function
    torch presents as recorded, else `value` itself."""
    found = _recorded().get(module)
    entry = found.get(name) if found is not None else None
    if entry is None or not callable(value):
        return value
    key = (id(value), tuple(entry))  # one per function: torch.random.manual_seed is
    made = _MADE.get(key)  # torch.manual_seed
    if made is None:
        made = _MADE[key] = TorchFunction(value, *entry)
    return made


def function_attribute(fn: TorchFunction, name: str) -> str | None:
    """One of FUNCTION_ATTRIBUTES (`__name__`, `__qualname__`, `__module__`) as torch
    has it."""
    if name == "__name__":
        return fn.name
    if name == "__qualname__":
        return fn.qualname
    return fn.module
