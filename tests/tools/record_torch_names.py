"""Record which names torch 2.13 (and the Python modules scripts import) really have, so a
name gradtrace lacks is told apart from one that does not exist: `torch.compile` is "not
supported by gradtrace", `torch.nope` is Python's AttributeError, and `hasattr` answers as
under torch; and what `from M import *` binds.
Run with torch installed: python tests/tools/record_torch_names.py"""
from __future__ import annotations

import importlib
import json
import pathlib

import torch

from gradtrace import torch_namespace
from gradtrace.interpreter.modules import IMPORTABLE_PYTHON_MODULES

OUT = pathlib.Path(__file__).resolve().parents[2] / "gradtrace" / "torch_names.json"


def main() -> None:
    names: dict[str, list[str]] = {}
    dotted_names = [*torch_namespace.MODULES, *IMPORTABLE_PYTHON_MODULES]
    modules = [importlib.import_module(dotted) for dotted in dotted_names]  # all first: an
    for dotted, module in zip(dotted_names, modules, strict=True):  # import adds attributes
        names[dotted] = sorted(n for n in dir(module) if not n.startswith("__"))
    names["torch.Tensor"] = sorted(n for n in dir(torch.Tensor) if not n.startswith("__"))
    # what `from M import *` binds, in Python's order: M.__all__, else M's public names
    star = {dotted: list(getattr(module, "__all__", None) or
                         [n for n in vars(module) if not n.startswith("_")])
            for dotted, module in zip(dotted_names, modules, strict=True)}
    payload = {"torch": torch.__version__, "names": names, "star": star}
    OUT.write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n")
    print(f"{OUT}: {sum(map(len, names.values()))} names in {len(names)} namespaces")


if __name__ == "__main__":
    main()
