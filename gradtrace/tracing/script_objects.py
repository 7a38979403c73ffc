"""What a script's top-level names reach: its tensors and nn.Modules, named by path
(`model.0.weight`), for the report's tables and the trace's module paths."""
from __future__ import annotations

from typing import Any

from ..engine.tensor import Tensor
from ..interpreter.objects import Instance

ATTRIBUTE_DEPTH = 3  # `a.b.c`: how deep script_tensors looks into instances
MODULE_DEPTH = 12  # how deep it looks into nn.Module trees (`model.encoder.layers.0.fc`)
_MODULE_TABLES = ("_parameters", "_buffers", "_modules")


def _module_tables(obj: Instance) -> tuple[dict, dict, dict] | None:
    """An nn.Module's parameters, buffers and submodules (torch's registration dicts), or
    None for another instance."""
    tables = tuple(obj.attrs.get(name) for name in _MODULE_TABLES)
    return tables if all(type(t) is dict for t in tables) else None  # type: ignore[return-value]


def script_modules(variables: dict[str, Any]) -> list[tuple[str, Instance]]:
    """The nn.Modules a script's top-level names reach, by path (`model`, `model.0`),
    each once (its first path), in torch's named_modules order."""
    out: list[tuple[str, Instance]] = []
    seen: set[int] = set()

    def walk(path: str, module: Instance, depth: int) -> None:
        seen.add(id(module))
        out.append((path, module))
        if depth >= MODULE_DEPTH:
            return
        tables = _module_tables(module)
        assert tables is not None  # only modules are walked
        for name, child in tables[2].items():
            if type(child) is Instance and id(child) not in seen and _module_tables(child):
                walk(f"{path}.{name}", child, depth + 1)

    for name, value in variables.items():
        if type(value) is Instance and id(value) not in seen and _module_tables(value):
            walk(name, value, 1)
    return out


def script_tensors(variables: dict[str, Any]) -> list[tuple[str, Tensor]]:
    """The tensors a script's top-level names hold, in binding order: bound directly, or
    as public attributes of instances, named by the path to them (`model.w`,
    `model.layer.b`); an nn.Module's parameters and buffers by their module path, in
    named_parameters order (`model.0.weight`, as torchviz names them from
    `dict(model.named_parameters())`). Library modules' names are never among them."""
    out: list[tuple[str, Tensor]] = []
    seen: set[int] = set()

    def walk(prefix: str, obj: Instance, depth: int) -> None:
        tables = _module_tables(obj)
        if tables is not None:
            for table in tables[:2]:
                for name, value in table.items():
                    if isinstance(value, Tensor):
                        out.append((f"{prefix}.{name}", value))
        for attr, value in obj.attrs.items():
            if type(attr) is not str or attr.startswith("_"):  # (an AttrDict's items)
                continue
            name = f"{prefix}.{attr}"
            if isinstance(value, Tensor):
                out.append((name, value))
            elif type(value) is Instance and depth < ATTRIBUTE_DEPTH and id(value) not in seen:
                seen.add(id(value))
                walk(name, value, depth + 1)
        if tables is not None and depth < MODULE_DEPTH:
            for name, child in tables[2].items():
                if type(child) is Instance and id(child) not in seen:
                    seen.add(id(child))
                    walk(f"{prefix}.{name}", child, depth + 1)

    for name, value in variables.items():
        if isinstance(value, Tensor):
            out.append((name, value))
        elif type(value) is Instance and id(value) not in seen:
            seen.add(id(value))
            walk(name, value, 1)
    return out
