"""What an import does besides binding its name, as CPython 3.11 does it.

`collections.abc` is an attribute of the `collections` package only once some import has
loaded the submodule: a script's own `import collections.abc` (or `from collections import
abc`), or a module whose import loads it (measured under CPython 3.11 with torch 2.13
installed: torch, numpy, tqdm, typing, dataclasses, logging, pprint, ...). Before that,
`collections.abc` is Python's AttributeError.
"""
from __future__ import annotations

from typing import Any

# the modules whose import loads collections.abc (each measured in a fresh CPython 3.11:
# `import M, sys; 'collections.abc' in sys.modules`), by full name or by package
LOADS_COLLECTIONS_ABC = frozenset({
    "collections.abc", "typing", "dataclasses", "pprint", "statistics", "traceback",
    "logging", "functorch", "pdb", "multiprocessing", "subprocess", "socket", "pstats",
    "urllib.request", "concurrent.futures"})
_LOADING_PACKAGES = frozenset({"torch", "numpy", "tqdm"})

# (package, submodule) pairs that are attributes of the package only once imported
LOADED_SUBMODULES = frozenset({("collections", "abc"), ("einops", "layers"),
                               ("einops.layers", "torch"), ("packaging", "version")})


def note_import(modules: dict[str, Any], name: str) -> None:
    """An import of the module `name` ran: the submodules it loads become attributes."""
    if name in LOADS_COLLECTIONS_ABC or name.split(".")[0] in _LOADING_PACKAGES:
        collections = modules.get("collections")
        if collections is not None:
            collections.table["abc"] = modules["collections.abc"]
    parts = name.split(".")  # `import einops.layers.torch`: einops.layers, layers.torch
    for end in range(1, len(parts)):
        package, child = ".".join(parts[:end]), parts[end]
        if (package, child) in LOADED_SUBMODULES and package in modules:
            modules[package].table[child] = modules[f"{package}.{child}"]
