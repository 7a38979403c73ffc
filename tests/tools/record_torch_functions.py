"""Record how torch 2.13 presents the functions gradtrace's torch namespaces hold, so a
script sees them as under torch: `type(torch.add)` is builtin_function_or_method and it
prints `<built-in method add of type object at 0x...>`, F.relu is a Python function
(`<function relu at 0x...>`), F.linear a C one (`<built-in function linear>`), each with
torch's `__name__`, `__qualname__` and `__module__`; and which of torch.Tensor's methods
are Python functions (torch/_tensor.py's: `torch.Tensor.backward` prints
`<function Tensor.backward at 0x...>`, `t.backward` `<bound method Tensor.backward of ...>`),
with their names. Run with torch installed: python tests/tools/record_torch_functions.py"""
from __future__ import annotations

import importlib
import json
import pathlib
import types

from gradtrace import stdlib, torch_namespace

OUT = pathlib.Path(__file__).resolve().parents[2] / "gradtrace" / "torch_functions.json"

# how torch's repr starts, by the kind gradtrace prints it as
_KINDS = (("<built-in method ", "builtin method"), ("<built-in function ", "builtin function"),
          ("<function ", "function"))


def _kind(value: object) -> str | None:
    shown = repr(value)
    for prefix, kind in _KINDS:
        if shown.startswith(prefix):
            return kind
    return None


def main() -> None:
    functions: dict[str, dict[str, list[str | None]]] = {}
    for dotted, namespace in torch_namespace.MODULES.items():
        module = importlib.import_module(dotted)
        for name, ours in namespace.table.items():
            if isinstance(ours, (stdlib.Namespace, stdlib.LibraryName)) or \
                    not callable(ours):  # (an engine class torch writes as a function is
                continue  # recorded: torch.autograd.graph.disable_saved_tensors_hooks)
            theirs = getattr(module, name, None)
            kind = _kind(theirs) if callable(theirs) and not isinstance(theirs, type) else None
            if kind is None:
                continue
            functions.setdefault(dotted, {})[name] = [
                kind, theirs.__name__, getattr(theirs, "__module__", None),
                getattr(theirs, "__qualname__", theirs.__name__)]
    torch = importlib.import_module("torch")
    tensor_methods = {
        name: [method.__name__, method.__qualname__, method.__module__]
        for name in dir(torch.Tensor)
        if isinstance(method := getattr(torch.Tensor, name), types.FunctionType)}
    payload = {"torch": torch.__version__, "functions": functions,
               "tensor_methods": tensor_methods}
    OUT.write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n")
    print(f"{OUT}: {sum(map(len, functions.values()))} functions in {len(functions)} modules, "
          f"{len(tensor_methods)} Python tensor methods")


if __name__ == "__main__":
    main()
