"""Record what Python's "Did you mean: ...?" searches on torch 2.13's objects, for
gradtrace's uncaught AttributeError (interpreter/suggestions.py): dir() of a CPU tensor
(Tensor.__dir__: the class's names less `volatile` and `__cuda_array_interface__`),
and the own namespace keys (`cls.__dict__`) of every class defined in a torch module that
gradtrace bundles as library code (gradtrace/lib/torch/**.gt), from which dir() of a class
is the union over its MRO. Run with torch installed: python tests/tools/record_torch_dirs.py
"""
from __future__ import annotations

import importlib
import inspect
import json
import pathlib

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = ROOT / "gradtrace" / "lib"
OUT = ROOT / "gradtrace" / "torch_dirs.json"


def main() -> None:
    classes: dict[str, list[str]] = {}
    for path in sorted((LIB / "torch").rglob("*.gt")):
        dotted = ".".join(path.relative_to(LIB).with_suffix("").parts)
        try:
            module = importlib.import_module(dotted)
        except ImportError:
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == dotted:
                classes[f"{dotted}.{cls.__qualname__}"] = sorted(
                    key for key in cls.__dict__ if type(key) is str)
    payload = {"torch": torch.__version__, "tensor": dir(torch.zeros(1)), "classes": classes}
    OUT.write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n")
    print(f"{OUT}: dir() of a tensor ({len(payload['tensor'])} names), {len(classes)} classes")


if __name__ == "__main__":
    main()
